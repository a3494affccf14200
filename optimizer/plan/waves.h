#pragma once
/**
 * @file waves.h
 * Waves and durations: which steps of an ordered plan may run concurrently, and how long the
 * plan takes. A live migration holds its VM's resources on both hosts until it completes, so a
 * wave is valid only if the state with all its migrations in flight (each VM on both ends) is
 * feasible; the waves run one after another, so every wave boundary is a plan state.
 */
#include "optimizer/plan/plan.h"

namespace vmcap {

/** How the plan will be run (optimizer/plan/waves.h): waves under the limits, durations, and the
 *  maintenance window it must end within. */
struct ScheduleParams {
    MigrationLimits limits;
    DurationModel durations;
    /** > 0: seconds the plan must end within, a budget beside the count and RAM budgets (the
     *  pipeline searches again with fewer migrations when the plan runs past it); 0: none. */
    double window_s = 0.0;
};

/**
 * The plan that runs `plan`'s steps in waves, with its schedule (Plan::schedule, PlanStep::wave,
 * start_s, end_s, mbps). Waves are built greedily in plan order: a step joins the open wave when
 *  - its VM has no earlier step still to run, nor one in the wave;
 *  - no earlier step still to run touches its source or destination host — so the step commutes
 *    with every step it overtakes, and each later step finds its hosts as the sequential plan
 *    left them, under every rule that is separable per host (FeasibilityFilter::
 *    separable_per_host). With a rule that is not (links: a step's room depends on VMs
 *    elsewhere) this is speculative: every step is re-checked at its wave's end, and if one no
 *    longer fits (or can no longer run), the waves are rebuilt as consecutive runs of the plan,
 *    where only the next step in plan order may join;
 *  - the in-flight state has room: its destination pNUMA nodes hold it while its source nodes
 *    still do (a remap re-pins in place: a node in both mappings holds one share);
 *  - under a destination-node rule that fixes nodes (CapacityModel::fixes_nodes), its nodes are the
 *    rule's choice when it starts: on its destination in flight, the boundary state less the
 *    wave's earlier arrivals there, the VMs leaving it in the wave still holding theirs. A step
 *    refused for that runs in a later wave (in the first wave that it opens, its destination is
 *    as the sequential plan left it, where the rule chose its nodes);
 *  - the limits hold: migrations out of and into each host (a remap counts once each way), of one
 *    tenant (Vm::tenant) and in the cluster;
 *  - every rule that holds in flight (FeasibilityFilter::holds_in_flight) admits it on the wave's
 *    boundary state as an arrival on its destination beside the wave's earlier arrivals
 *    (InFlightWave, evaluators/rules/feasibility.h). Anti-affinity (ServerGroupFilter): the
 *    destination's members, those leaving it in this wave included, and those arriving in this
 *    wave stay within what the rule allows;
 *  - with a network section and limits.copies_on_network: its memory copy, DurationModel::mbps on the route between the two
 *    hosts (NetworkRoutes::for_each_flow), fits every link direction beside the vlink loads of
 *    the wave's start (a VM in flight still runs on its source) and the wave's other copies. A
 *    step alone in a wave copies at its route's spare bandwidth when that is less (>= 1 Mbps).
 * A wave ends at the first step that cannot join when waves are consecutive, else after the
 * scan. Each step then lasts durations.seconds(RAM, mbps), starts with its wave, and the wave
 * ends with its longest step; the next wave starts there. The steps are returned in wave order
 * (plan order within a wave) — a sequential plan as valid as `plan`, each step re-checked with
 * step_fits — with objectives recomputed and cut after the best prefix (plan_from_steps).
 *
 * Scheduling stops at a step that cannot run even alone (its route has no spare bandwidth), and,
 * when window_s > 0, at the first wave that would end after window_s (of that wave, the steps
 * that end within the window are kept: a subset of an in-flight state is one; under a rule that
 * fixes nodes, not those whose destination lost an earlier arrival of the wave): the steps left
 * out are counted in PlanSchedule::cut_steps. Throws std::invalid_argument on bad limits or
 * durations, std::logic_error if a scheduled step has no room (a bug). O(waves x steps x
 * (k x R + route length + the in-flight rules' admits()) + waves x vlinks x route length).
 * Deterministic; thread-safe for distinct plans.
 */
Plan schedule_plan(const CapacityModel& model, const Plan& plan, const MigrationLimits& limits, const DurationModel& durations,
                   double window_s = 0.0);

}  // namespace vmcap

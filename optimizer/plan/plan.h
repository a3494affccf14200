#pragma once
/**
 * @file plan.h
 * Migration plan: an ordered list of live migrations, each feasible on the state that the earlier
 * steps leave, within the migration budget; and its JSON form ("vmcap-plan/1", docs/format.md).
 */
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluators/state/search_state.h"
#include "instances/stop_reason.h"
#include "optimizer/search/convergence.h"

namespace vmcap {

/** One live migration (or a remap when from_host == to_host). pNUMA nodes 0-based. */
struct PlanStep {
    int vm = -1;
    int from_host = -1, to_host = -1;
    std::array<std::uint8_t, kMaxVNuma> from_pnuma{}, to_pnuma{};
    bool temporary = false;        ///< a detour that breaks a cyclic dependency; the VM moves again later
    double objective_after = 0.0;  ///< weighted objective once this step is done (objective units; to_objective(score_after))
    Score score_after = 0;         ///< the same, exactly (score units, evaluators/closed_forms/score.h): what plans are compared by
    /** The schedule (optimizer/plan/waves.h; only when Plan::schedule is set): the step's wave
     *  (0-based), its estimated start and end in seconds from the plan's start, and the
     *  bandwidth its memory copy gets (Mbps; below DurationModel::mbps only when its route's
     *  spare bandwidth is less). */
    int wave = -1;
    double start_s = 0.0, end_s = 0.0;
    std::int64_t mbps = 0;
};

/**
 * How many live migrations may be in flight at once. A live migration holds its VM's resources
 * on both hosts until it completes. Defaults: OpenStack Nova's max_concurrent_live_migrations = 1
 * (per compute host), and no cluster-wide limit.
 */
struct MigrationLimits {
    int per_host_out = 1;  ///< migrations leaving one host at once (>= 1)
    int per_host_in = 1;   ///< migrations entering one host at once (>= 1); a remap counts as one out and one in
    int cluster = 0;       ///< migrations in flight in the whole cluster (0: no limit)
    int per_tenant = 0;    ///< migrations of one tenant's VMs (Vm::tenant) in flight at once (0: no limit)
    /** With a network section: do the memory copies cross the network's links, beside the vlinks'
     *  reservations (true), or a separate migration network (false: only the limits above)? */
    bool copies_on_network = true;
    /** Throws std::invalid_argument naming the first value out of range. */
    void validate() const;
};

/**
 * The duration of one live migration, seconds:
 *   overhead_s + RAM (MiB) x 8.388608 (Mbit per MiB) / bandwidth (Mbps) x dirty_factor.
 * The pre-copy model of live migration: the RAM is copied once at the migration's bandwidth,
 * pages dirtied meanwhile are copied again (dirty_factor >= 1: total bytes sent / RAM), and a
 * fixed overhead covers scheduling, the destination's set-up and the switch-over. The defaults
 * (10,000 Mbps, 1.5, 10 s) are a 10 GbE migration network and a moderately busy guest:
 * calibrate them from your own migration logs.
 */
struct DurationModel {
    std::int64_t mbps = 10000;  ///< bandwidth of one migration's memory copy, Mbps (>= 1)
    double dirty_factor = 1.5;  ///< total data sent / RAM (>= 1)
    double overhead_s = 10.0;   ///< fixed cost per migration, seconds (>= 0)
    /** Estimated seconds for a VM of `ram_mib` MiB copied at `mbps_used` Mbps (>= 1). */
    double seconds(Amount ram_mib, std::int64_t mbps_used) const {
        return overhead_s + static_cast<double>(ram_mib) * 8.388608 / static_cast<double>(mbps_used) * dirty_factor;
    }
    /** Throws std::invalid_argument naming the first value out of range. */
    void validate() const;
};

/** A plan's schedule: its steps grouped into waves that run one after another, the steps of
 *  one wave concurrently (optimizer/plan/waves.h). */
struct PlanSchedule {
    MigrationLimits limits;
    DurationModel durations;
    int waves = 0;
    double makespan_s = 0.0;  ///< end of the last wave, seconds
    double window_s = 0.0;    ///< the maintenance window the plan was cut to (0: none)
    /** Steps of the plan as built that were left out: past the window, or behind a step whose
     *  route had no spare bandwidth for its memory copy. */
    int cut_steps = 0;
};

struct Plan {
    std::vector<PlanStep> steps;
    std::vector<Count> capacity_before, capacity_after;    ///< per flavor (all flavors, flavor order)
    double objective_before = 0.0, objective_after = 0.0;  ///< objective units, for reports: to_objective(score_*)
    Score score_before = 0, score_after = 0;               ///< the same, exactly (score units): what plans are compared by
    Amount migrated_ram_mib = 0;                           ///< RAM of the steps that count as live migrations
    std::int64_t migrations = 0;                           ///< steps that count against the budget (all, unless remaps are free)
    int dropped = 0;                                       ///< target placements left out (no feasible order within the budget)
    /** Set by schedule_plan (optimizer/plan/waves.h): the steps are then in wave order. */
    std::optional<PlanSchedule> schedule;
};

/** Does a step from `from_host` to `to_host` use the migration budget (one live migration and
 *  the VM's RAM)? Yes unless it is a remap (same host) and remaps are free. */
inline bool step_uses_budget(const Problem& p, int from_host, int to_host) {
    return from_host != to_host || p.constraints.remap_counts_as_migration;
}

/** Every VM's host once `plan`'s steps have run from the snapshot. O(VMs + steps). */
std::vector<int> plan_end_hosts(const Problem& problem, const Plan& plan);

/** Placements of the VMs that `plan` leaves off their snapshot placement (its end state). */
std::vector<Placement> plan_end_state(const CapacityModel& model, const Plan& plan);

/**
 * Orders the moves from the snapshot to `target` (the search's best state) into a plan:
 * repeatedly executes, in VM order, every pending move whose destination nodes have room now
 * (under a destination-node rule that fixes nodes, each step gets the nodes the rule assigns
 * then: the moves it puts on their target's nodes first, else the first that can run on others,
 * so the plan may end elsewhere than `target` on some hosts' nodes; a move within one host is
 * then never made directly);
 * a cyclic dependency is broken by a temporary detour to another host if the budget allows one
 * more step, otherwise the blocked moves are dropped. Finally the plan is cut after its best
 * prefix, so objective_after >= objective_before and every prefix is feasible and within budget.
 * O(steps^2 x k x R + steps x hosts) worst case.
 */
Plan build_plan(const CapacityModel& model, const std::vector<Placement>& target);

/**
 * Completes a plan whose steps carry objective_after (in execution order from the snapshot): cuts
 * it after its best prefix (the shortest among equals; so objective_after >= objective_before,
 * except that every step leaving a drained host (constraints.drain_hosts) is kept: a drain may
 * cost capacity),
 * marks `temporary` exactly the steps of VMs that move again later, and recomputes migrations,
 * migrated RAM and capacity_after from the kept steps. O(steps + VMs + hosts x targets x VMCAP).
 */
void finish_plan(const CapacityModel& model, Plan& plan);

/**
 * The plan that executes `steps` (e.g. plans of successive searches, each from the state the
 * previous one leaves) in order from the snapshot: every objective_after recomputed on `model`,
 * then finish_plan. `dropped` is copied to Plan::dropped. Throws std::logic_error if a step does
 * not start where its VM is or has no room (pNUMA capacity, the destination-node rule or a feasibility filter): a bug of
 * the caller. O(steps x (k x R + move cost)).
 */
Plan plan_from_steps(const CapacityModel& model, const std::vector<PlanStep>& steps, int dropped = 0);

/** Search metadata written beside the steps. */
struct PlanInfo {
    std::string cluster;
    std::string algorithm = "sa";
    std::uint64_t seed = 0;
    int threads = 1;
    std::int64_t evaluations = 0;
    double seconds = 0.0;
    StopReason stopped_by = StopReason::EvaluationBudget;  ///< written as search.stopped_by
    /** The proven optimum (vmcap exact), score units: written as search.proven_optimum
     *  (objective units); none: not written. */
    std::optional<Score> proven_optimum;
    /** A valid upper bound on the best objective within the budget (optimizer/bound/upper_bound.h), in
     *  score units: written as `upper_bound_score`, `upper_bound` (objective units) and the plan's
     *  `gap`; none: not written. */
    std::optional<Score> upper_bound;
    /** false: the bound covers only the VMCAP part sum_f w_f x capacity_f (gap taken on that part). */
    bool upper_bound_covers_objective = true;
    double upper_bound_seconds = 0.0;
    /** false: the bound was cut short (deadline or interrupt; UpperBound::complete): written as
     *  `upper_bound_complete`, with `upper_bound_stopped_by` (UpperBound::stopped_by). */
    bool upper_bound_complete = true;
    StopReason upper_bound_stopped_by = StopReason::Complete;
    /** The Lagrangian on moved VMs' conservation lowered the bound (UpperBound::arrivals_priced):
     *  compute_upper_bound's score, written as `upper_bound_removal_only_score` (and
     *  `upper_bound_removal_only`, objective units), and the multipliers per flavor,
     *  `upper_bound_arrival_prices` (score units per VM, by flavor name); none: not written. */
    std::optional<Score> upper_bound_removal_only;
    std::vector<Score> upper_bound_arrival_prices;
    /** Multiplier vectors the Lagrangian evaluated and their seconds (search.upper_bound_arrival_steps
     *  and _seconds; 0 steps: not written). */
    int upper_bound_arrival_steps = 0;
    double upper_bound_arrival_seconds = 0.0;
    /** Objective of the search's best final state (NaN: not written): the plan's objective_after
     *  is below it only if that state had no order within the budget (search.best_state_objective). */
    double search_best_objective = std::numeric_limits<double>::quiet_NaN();
    int repair_rounds = 0;  ///< searches re-run from a plan's end state (search.repair_rounds)
    /** Annealing workers that owned host regions (search.parallel "regions", search.regions),
     *  0: independent chains or one thread (search.parallel "chains" when threads > 1). */
    int regions = 0;
    /** false: no search phase ran (the start already met the bound, or nothing to search): no
     *  parallel search to describe, so search.parallel is not written. */
    bool search_phase_ran = true;
    /** Best objective at each synchronisation point, from the search's start (greedy
     *  included; its end is the first row): search.convergence as [seconds, evaluations, objective] rows. Empty: not written. */
    std::vector<ConvergencePoint> convergence;
};

/**
 * The plan's `network` figures (docs/format.md), from scratch: for the snapshot's VM hosts and
 * `host_after` (every VM's host after the plan), the links over capacity (names), the largest link
 * utilisation in percent (link_loads of evaluators/network/network_load.h over the routes of the model's
 * LinkCapacityFilter), the Mbps of vlinks between different ToR switches and between different
 * pods, and the number of vlinks. A null JSON value when the model has no LinkCapacityFilter (no
 * network with vlinks). `vmcap plan` writes it and `vmcap validate` recomputes it from its own
 * replay. O(vlinks x route length + links). Thread-safe.
 */
nlohmann::ordered_json network_figures(const CapacityModel& model, const std::vector<int>& host_after);

/** JSON of a plan ("vmcap-plan/1"): steps with ids and 1-based pNUMA nodes, budget, capacities. */
nlohmann::ordered_json plan_to_json(const Problem& problem, const Plan& plan, const PlanInfo& info);

}  // namespace vmcap

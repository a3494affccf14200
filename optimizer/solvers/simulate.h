#pragma once
/**
 * @file simulate.h
 * `vmcap simulate`: a VM trace replayed over time into a cluster with an
 * online placer (placement/placer.h), and at a chosen time each simulated night the consolidation
 * engine run on the cluster as it stands, its plan applied, then the replay goes on. Requests no
 * host can take are rejected and counted: what an operator pays for.
 *
 * Units: seconds of trace time, vCPU, MiB. Deterministic for the same trace, options and seed.
 */
#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "instances/datacenter_network.h"
#include "instances/forecast.h"
#include "instances/stop_reason.h"
#include "instances/trace.h"
#include "optimizer/plan/waves.h"
#include "optimizer/solvers/make_room.h"
#include "placement/replay.h"

namespace vmcap {

class NightPolicies;  // optimizer/solvers/night_policy.h

/** The cluster at the end of one simulated day (just before its next defragmentation). */
struct SimulateDay {
    int day = 0;
    double time_s = 0.0;        ///< seconds after the first arrival
    std::int64_t live_vms = 0;  ///< VMs on a host
    double used_vcpu_fraction = 0.0;
    std::int64_t arrivals = 0, rejected = 0;  ///< during the day
    Amount rejected_vcpu = 0;
    /** The reference without fragmentation: the day's rejections had the cluster been one pool of
     *  its total vCPU and RAM (a request admitted while the pool has its vCPU and RAM free), fed the
     *  same arrivals and departures. The gap to `rejected` is what fragmentation (pNUMA nodes and
     *  hosts) costs. A reference, not a bound on the count: a fragmented cluster that rejects a large
     *  VM may keep room for several small ones. */
    std::int64_t rejected_one_pool = 0;
    Amount rejected_one_pool_vcpu = 0;  ///< their vCPU
    /** Live migrations made at admission (migrations_per_request) and the arrivals they admitted. */
    std::int64_t admission_migrations = 0, admitted_by_migrations = 0;
    std::int64_t migrations = 0;          ///< live migrations applied at the day's defragmentation
    std::int64_t planned_migrations = 0;  ///< in its plan (more than `migrations` when steps were dropped)
    Amount planned_ram_mib = 0;           ///< RAM its plan's live migrations copy, MiB
    std::int64_t steps_dropped = 0;       ///< apply_over_duration: steps that no longer fitted when due
    double makespan_s = 0.0;              ///< the plan's makespan when scheduled (SimulateOptions::schedule), seconds
    double objective_before = 0.0;        ///< weighted capacity of the targets before it (objective units)
    double objective_after = 0.0;         ///< and after it
    std::vector<Count> capacity_after;    ///< per flavor of the trace (SimulateResult::flavors) after it
    std::vector<double> weights;          ///< per flavor: the weights of the day's defragmentation
    /** Per flavor: the forecast need (instances/forecast.h) at the day's defragmentation (with
     *  ForecastRoom::On the part of it the free room holds, with ForecastRoom::Keep that part or the
     *  flavor's capacity up to the need); empty
     *  when the run has no forecast (targets other than "forecast", defrag_when nightly) or no full
     *  day of history yet. */
    std::vector<std::int64_t> needs;
    /** defrag_when triggered or both: the day's checks that found a flavor's capacity below its
     *  need and ran the policy, the live migrations their plans applied (also in `migrations`), and
     *  the plans (nightly or triggered) not applied because they lowered the forecast coverage. */
    std::int64_t triggered_runs = 0, triggered_migrations = 0, plans_refused = 0;
};

/** SimulateOptions::forecast_room. The part of the forecast needs the room holds: what the
 *  cluster's free vCPU and RAM (summed over its pNUMA nodes) hold when the smaller flavors' needs
 *  are served first, each VM one request (needs_the_room_holds, instances/forecast.h). At the
 *  cluster's wall that part of a large flavor's need is 0: room made for it would go to VMs whose
 *  admission turns away more small requests than it admits. */
enum class ForecastRoom {
    Off,  ///< the needs as forecast, everywhere
    /** A triggered check runs the policy only when a flavor's capacity is below the part of its
     *  need the room holds; every run (nights included) plans for the needs as forecast. */
    Triggers,
    /** That part is the need everywhere: the triggers, the targets and the coverage check. */
    On,
    /** The triggers as Triggers; every run plans for the part of each need the room holds or, when
     *  more, the flavor's capacity now up to its need: room is made for a flavor only up to that
     *  part, and a run does not spend the capacity a flavor already has within its need. */
    Keep,
};

struct SimulateOptions {
    /** The cluster, the placer, sampling, weights; time_s: the simulated span after the first
     *  arrival. Targets "multi-numa" or "all" are fixed weights; "demand" re-weighs every night:
     *  each flavor by its share of the requests (accepted or rejected) of the demand_window_s
     *  before the night, 1000 x requests_f / requests (demand_weights, instances/trace.h), 0 for
     *  flavors not asked for; a window without requests keeps the "multi-numa" weights. The
     *  `weights` overrides apply last. */
    SnapshotOptions replay;
    /** A datacenter network over the hosts' racks (replay.hosts_per_rack, racks_per_pod), built by
     *  build_datacenter_network; none: CPU and RAM only. With one, every placement and migration
     *  keeps every link within capacity (the link rule). */
    std::optional<DatacenterNetworkOptions> network;
    /** Gridiron VDCs (seed 003 §3.2-3.4; needs a network and the Azure trace's tenant batches):
     *  each tenant batch, chopped at vdc_cap VMs, linked all-to-all with floor(bpc x min vCPU)
     *  Mbps (add_trace_vdcs); a vlink carries load once both its VMs are on a host. 0: none. */
    double bpc_mbps = 0.0;
    int vdc_cap = 30;
    /** Bandwidth price of the revenue metric, $ per Mbps-hour (seed 003 §4.2.5: $0.58 per
     *  Gbps-hour). */
    double bw_price_per_mbps_h = 0.00058;
    /** Set: every night's plan is scheduled into waves with durations (optimizer/plan/waves.h;
     *  with a window, fitted into it: the maintenance window as the night's budget). */
    std::optional<ScheduleParams> schedule;
    /** With a schedule: the plan runs over its waves' duration while arrivals and departures go
     *  on — from a step's start its destination's pNUMA nodes are held (SearchState::hold) while
     *  the VM still runs on its source, at its end the VM moves; a step that no longer fits when
     *  due (an arrival took the room, its VM departed) is dropped and counted. Steps still in
     *  flight end before the next night. False: each plan is applied at once. */
    bool apply_over_duration = false;
    /** The night policy (night_policy.h): a name in `night_policies` ("none", "greedy", "sa",
     *  "tabu" built in), made each night with its own options `defrag_options` (e.g. tabu's
     *  {"tenure", "30"}). */
    std::string defrag = "none";
    std::map<std::string, std::string> defrag_options;  ///< NightOptions (night_policy.h)
    /** The registry `defrag` is looked up in, owned by the caller (who may add policies of its
     *  own); null: builtin_night_policies(). */
    const NightPolicies* night_policies = nullptr;
    /** Time of day of the first defragmentation on the trace's clock, seconds after its midnight,
     *  in [0, 86400): the trace's timestamps modulo 86,400 s (first_defragmentation_s), not the
     *  time since the first arrival. Then every defrag_every_s (> 0). */
    double defrag_at_s = 3 * 3600.0;
    double defrag_every_s = 86400.0;
    /** Migration budget of one night: max(1, ceil(fraction x VMs on a host then)) when
     *  budget_count < 0, else budget_count; with budget_ram_mib >= 0 instead the RAM the night's
     *  live migrations may copy, MiB (Constraints::max_migrated_ram_mib; no count limit). */
    double budget_fraction = 0.005;
    std::int64_t budget_count = -1;
    Amount budget_ram_mib = -1;
    /** Evaluations per night of a policy that searches (Night::evaluations: sa, tabu; their own
     *  evaluations= option overrides it; 0: optimize's default for the night's cluster). */
    std::int64_t evaluations = 0;
    /** Admission with live migrations (`--migrations-per-request K`): an arrival no host takes
     *  gets up to K migrations that make room for it (make_room.h), applied step by step, then one
     *  more try. A flavor make_room found nothing for is not tried again until a VM departs or
     *  migrates (room only grows then). 0: none. */
    int migrations_per_request = 0;
    /** make_room's options for those migrations (`--make-room-copies N`: second_for_copies, >= 0;
     *  `--make-room-second copies`: second_only_for_copies). */
    MakeRoomOptions make_room;
    /** `--placer-one-node on`: the online placer (a placer that values capacity, e.g. vmcap-fit)
     *  also weighs the trace's largest flavor of one vNUMA node (largest_one_node_flavor,
     *  instances/problem.h) at 1, unless a `weights` override names it; the nights' weights stay
     *  as the targets give them. Why: the multi-NUMA targets keep room for flavors that span
     *  linked pNUMA nodes and none for a VM that needs most of one node, so the placer splits the
     *  nodes such a VM needs; at the wall of Azure x3 every rejection is of 8c14g, half a CQ3 node
     *  (docs/performance.md, "The placer keeps room for the largest one-node flavor"). */
    bool placer_one_node = false;
    std::uint64_t seed = 1;
    /** Re-check every night's plan with `vmcap validate`'s replay (validate_plan) before applying
     *  it; a failure throws std::logic_error (a bug). */
    bool check = false;
    /** Called with every day's row as it closes (progress); may be empty. */
    std::function<void(const SimulateDay&)> on_day;
    /** Set (SIGINT / SIGTERM): the simulation stops at the next arrival or inside a night's search
     *  (its best plan so far is applied) and returns what it has (stopped_by Interrupted). */
    const std::atomic<bool>* stop = nullptr;
    /** Wall-clock seconds after which the simulation stops the same way (stopped_by
     *  TimeLimit; a night's search running then stops too and its best plan is applied); +infinity:
     *  none. */
    double time_limit_s = std::numeric_limits<double>::infinity();
    /** With apply_over_duration: a running plan keeps what its later steps need (OnlineCluster::
     *  set_reserve_steps): from the night's time each step's room on its destination (its VM's
     *  per-node demand on its pNUMA nodes there) is reserved — what is free at once, the rest as
     *  it frees up on that host (the plan's own earlier steps, departures) — and seen by the placer
     *  and make_room as used, until the step starts (then held in flight), its VM departs, or the
     *  plan's window ends (schedule window_s, else the plan's makespan). Ignored when plans are
     *  applied at once. */
    bool reserve_plan = true;
    /** replay.targets "forecast": each night (and each triggered run) every flavor of the trace
     *  weighs forecast_base_weight and the objective gains the term uncovered-need of weight 1
     *  (evaluators/objective/uncovered_need_term.h) over the forecast needs: a VM of capacity is
     *  worth 1 + forecast_base_weight up to its flavor's need and forecast_base_weight beyond. The
     *  needs: forecast_need (instances/forecast.h) at the run's time over the sampled arrivals and
     *  their departures so far (rejected requests included), from the first arrival; without a
     *  full day of history the "multi-numa" weights. The `weights` overrides apply last. */
    ForecastOptions forecast;
    double forecast_base_weight = 0.01;
    /** With a forecast: whether the part of the needs the free room holds decides the triggers
     *  (and the targets), ForecastRoom. */
    ForecastRoom forecast_room = ForecastRoom::Off;
    /** When the night policy runs: "nightly" (at the nights above), "triggered" (every
     *  trigger_every_s of trace time from the first arrival, when some flavor's capacity is below
     *  its forecast need; the day rows still close at the nights) or "both". Triggered runs have
     *  the nightly budget each, within the day's budget (daily_budget_*: the sum over the day's
     *  runs, the night's included, from one night to the next), are applied at once, and a plan
     *  that lowers the forecast coverage sum_f min(capacity_f, need_f) is not applied. */
    std::string defrag_when = "nightly";
    double trigger_every_s = 3600.0;
    /** The day's migration budget with defrag_when triggered or both: daily_budget_count when >= 0,
     *  else max(1, ceil(daily_budget_fraction x VMs on a host at the day's first run)) when >= 0,
     *  else the nightly budget (budget_count / budget_fraction) at that run. */
    std::int64_t daily_budget_count = -1;
    double daily_budget_fraction = -1.0;
};

struct SimulateResult {
    std::vector<std::string> flavors;  ///< the trace's flavors (the replay's problem order)
    std::vector<SimulateDay> days;
    std::int64_t arrivals = 0, rejected = 0, migrations = 0, departed = 0;
    Amount rejected_vcpu = 0;
    std::int64_t rejected_one_pool = 0;  ///< sums over the days
    Amount rejected_one_pool_vcpu = 0;
    /** VDCs (SimulateOptions::bpc_mbps) with at least one VM rejected, of `vdcs` in the replay. */
    std::int64_t rejected_vdcs = 0, vdcs = 0;
    /**
     * Seed 003's revenue (§4.2.3, Eq. 4.1) over the simulated span, each VM priced per hour by its
     * (vCPU, RAM) in the thesis's Table 4.2 (Azure rates of Dec 2016; see vm_price_per_hour):
     * base = sum over all requests of price x lifetime (to the end of the span); compute = the
     * same over the admitted VMs; network = sum over vlinks between two admitted VMs of Mbps x
     * their overlapping hours x bw_price_per_mbps_h. revenue_gain = (compute + network) / base
     * - 1 (0 when base is 0). NaN when a flavor has no price in the table. Dollars.
     */
    double base_revenue = 0.0, compute_revenue = 0.0, network_revenue = 0.0, revenue_gain = 0.0;
    std::int64_t admission_migrations = 0, admitted_by_migrations = 0;  ///< sums over the days
    std::int64_t steps_dropped = 0;                                     ///< sum over the days
    std::map<std::string, std::int64_t> rejected_by_flavor;
    double seconds = 0.0;  ///< wall-clock time of the simulation
    /** Complete, Interrupted or TimeLimit: the days are then those simulated so far, the last one
     *  closed where it stopped. */
    StopReason stopped_by = StopReason::Complete;
    std::int64_t triggered_runs = 0, plans_refused = 0;  ///< sums over the days
    /** What the rejections cost in time: sum over the rejected requests of vCPU x the hours of their
     *  lifetime within the simulated span (arrival to min(departure, end of the span)). vCPU-hours. */
    double rejected_vcpu_hours = 0.0;
};

/**
 * Trace time (seconds, the trace's own time base) of the first defragmentation: the first time at
 * or after `first_arrival_s` whose time of day on the trace's clock is `at_s`, the clock's
 * midnights being the multiples of 86,400 s of the trace's timestamps (Azure V1: the dataset's
 * time 0, so the test split, whose first arrival is at 2,099,700 + a few seconds, starts at 07:15;
 * Huawei-East-1: its time 0, the first arrival). at_s in [0, 86400). O(1). Pure.
 */
double first_defragmentation_s(double first_arrival_s, double at_s);

/**
 * The checks of simulate() on `options` alone, before any trace is read: InputError "simulate:
 * ..." on a night policy unknown to the registry or a bad option of it (NightPolicies::make), an
 * unknown placer, defragmentation times out of range, a bad budget, a
 * negative migrations_per_request or evaluations, waves without a schedule, vlinks without a
 * network. O(1).
 */
void check_simulate_options(const SimulateOptions& options);

/**
 * Everything simulate() checks before it replays the first event: check_simulate_options, then
 * the problem the replay places on (replay_arrivals: a weight or vNUMA override naming a flavor
 * absent from the trace, a flavor the vNUMA rule cannot split, ...), the network and the VDCs.
 * Throws InputError as simulate() would; nothing else. O(trace + arrivals); memory as simulate's
 * problem, released on return.
 */
void check_simulation(const std::vector<TraceVm>& trace, const SimulateOptions& options);

/**
 * Replays `trace` for options.replay.time_s with the placer options.replay.placer, as
 * replay_snapshot does (departures before arrivals at equal times, a flavor that fits no host
 * rejected in O(1) until a host frees room), and runs the nightly defragmentation at
 * first_defragmentation_s(first arrival, defrag_at_s) + n x defrag_every_s up to the end of the
 * span: the night policy (`defrag`, made afresh each night) is asked for a plan on the cluster as
 * it stands (cluster_now.h) with the night's weights, budget, seed + night, the stop flag and the
 * time left (night_policy.h: Night), and the ordered plan is applied step by step on the
 * replay's state (each step re-checked: room and rules). Day rows close just before
 * each defragmentation and at the end. Throws InputError on bad options, std::logic_error on a bug
 * (a plan step without room). O(events x (placer + log events) + nights x the policy + make_room
 * calls x greedy).
 */
SimulateResult simulate(const std::vector<TraceVm>& trace, const SimulateOptions& options);

/**
 * $ per hour of a VM of (vcpu, ram_mib) by seed 003's Table 4.2 (Azure rates of Dec 24 2016, the
 * minimum rate per shape; §4.2.4): the 16 shapes from A0 Basic (1 vCPU, 0.75 GB, $0.018) to D14
 * (16 vCPU, 112 GB, $1.387), RAM matched to the MiB (GB read as GiB, as the Azure V1 trace's
 * flavors are). nullopt for a shape not in the table. O(1). Pure.
 */
std::optional<double> vm_price_per_hour(Amount vcpu, Amount ram_mib);

}  // namespace vmcap

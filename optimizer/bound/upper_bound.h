#pragma once
/**
 * @file upper_bound.h
 * A valid upper bound on the best objective reachable within the migration budget, reported with
 * every plan (`vmcap plan`: plan JSON `upper_bound` and `gap`; docs/upper-bound.md), as MIP
 * solvers report a best bound beside their incumbent.
 *
 * Why it holds (details and formula in docs/upper-bound.md). Final-state view, as the search and
 * the exact solvers use: a plan within the budget ends in a state whose set M of VMs off their
 * snapshot placement (off their host, when remaps are free) has |M| <= max_migrations and RAM(M)
 * <= max_migrated_ram (temporary detours only add steps). Adding a VM to a host never raises its
 * VMCAP of any flavor, so host h's final value is at most its value with M_h (M's VMs from h)
 * taken off and nothing added: V_h(M_h) (with free remaps: at most the best over re-placements
 * of the VMs that stay, bounded by a pooled-resource relaxation). Every moved VM lands somewhere,
 * and a VM whose own footprint holds m_t copies of target t takes at least m_t copies of t from
 * the host it lands on (landing cost l(g) = min over host types and placements of sum_t w_t m_t;
 * 0 for VMs smaller than every target and with free remaps). Hence
 *
 *     objective(plan) <= max over (k_h) with sum_h k_h <= B of  sum_h U_h(k_h),
 *     U_h(k) >= max over removal sets S of k migratable VMs of h of V_h(S) - W x RAM(S) - l(S)
 *
 * (W: the ram-cost term's weight, 0 without it), a multiple-choice knapsack over hosts solved
 * exactly by dynamic programming over the budget. U_h(k) is exact for k <= K_h (enumeration of
 * removal multisets over classes of identical VMs, K_h as large as a per-host work cap allows),
 * then exact by a branch and bound while a per-host allowance lasts, then an allocation bound (k
 * removals shared out over the pNUMA nodes, each node gaining its a_i largest demands), then the
 * tail: the smaller of "every migratable VM removed" and every node gaining its k largest demands
 * (all >= any k-removal; VMCAP is monotone in the capacity vector). Tables stop at the effective
 * budget. The RAM budget enters twice: B is lowered to how many of the smallest migratable VMs
 * fit it, and a Lagrangian relaxation (any multiplier lambda >= 0 gives a valid bound; the best
 * over a convex search is kept) prices RAM.
 *
 * Scope: feasibility filters (the link rule) only forbid states, so the bound stays valid. Terms:
 * ram-cost is modelled (above); locality-weight and bandwidth-capacity are <= 0 in every state
 * (their headers), so the VMCAP bound bounds the whole objective; any other term makes the
 * result cover the VMCAP part only (UpperBound::covers_objective false, and reports say so).
 */
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "evaluators/state/capacity_model.h"
#include "instances/stop_reason.h"

namespace vmcap {

/** One validated parameter set of the bound. */
struct UpperBoundParams {
    /** Most removal multisets evaluated exactly per host whose target pairs all have closed forms
     *  (each costs one VMCAP evaluation per target). The host's exact depth K_h is the largest k
     *  whose multisets of at most k removals fit in this; >= 1. */
    std::int64_t max_sets_per_host = 4096;
    /** The same for hosts with an exact-fallback (host type, target) pair, whose evaluations can
     *  cost milliseconds; >= 1. */
    std::int64_t max_sets_per_exact_host = 64;
    /** Beyond K_h, a branch and bound finds the best removal set of each size k exactly (from
     *  K_h + 1 up) until it has used this many value evaluations on the host; the remaining k get
     *  the allocation bound, then the tail bound. >= 0 (0: no branch and bound). */
    std::int64_t max_search_per_host = 20000;
    /** The same for hosts with an exact-fallback (host type, target) pair; >= 0. */
    std::int64_t max_search_per_exact_host = 256;
    /** Cap on the branch and bound's evaluations over all hosts: each host with migratable VMs
     *  gets at most this divided by their number (10,000 hosts: 2,000 each); >= 0. */
    std::int64_t max_search_total = 20000000;
    /** Value evaluations of the allocation bound per host (over all its k), then the tail bound;
     *  >= 0 (0: no allocation bound). */
    std::int64_t max_allocation_per_host = 20000;
    /** The same for hosts with an exact-fallback pair; >= 0. */
    std::int64_t max_allocation_per_exact_host = 256;
    /** Cap on the allocation bound's evaluations over all hosts, shared as max_search_total; >= 0. */
    std::int64_t max_allocation_total = 20000000;
    /** Cap on every K_h; >= 0 (0: no enumeration; the branch and bound and the tail alone). */
    int max_exact_removals = 8;
    /** Steps of the convex search over the RAM budget's Lagrange multiplier (0: off). Only run when
     *  the RAM budget is below the RAM of all migratable VMs. */
    int ram_lagrangian_steps = 40;
    /** Subtract from every removal set the landing costs of its VMs (docs/upper-bound.md,
     *  "Landing costs"); false: the removal-only bound (kept to measure what they add). */
    bool landing_costs = true;
    /** Beyond the depth, first the node-subset bound (docs/upper-bound.md): per pNUMA node, the
     *  copy counts real subsets of its VMs free, combined over the nodes; exact where it completes
     *  (an allowance as large as the allocation bound's, which keeps its own). false: the branch and
     *  bound, allocation bound and tail alone (kept to test and measure them). */
    bool node_subsets = true;
    /** Where every target is a one-node flavor or a multi-node flavor of one shared per-node
     *  demand (the Azure replays with one-node targets), the node-subset search keeps per node,
     *  removal count and copies of that demand only the best one-node value (docs/upper-bound.md,
     *  "Targets that split"): the same exact tables where both complete, on many more hosts.
     *  false: the general search there too (kept to test the two against each other). */
    bool split_nodes = true;
    /** With split_nodes: removal counts beyond the multi-node VMs taken out (X) searched exactly
     *  per count; every count is also bounded by the concave envelope of removals priced (docs/
     *  upper-bound.md, "Targets that split"), alone beyond this. >= 0 (0: the envelope alone). */
    int split_exact_removals = 16;
    /** A host whose node-subset search ran out after at least an eighth of it (read from the
     *  host alone, so the bound stays independent of threads) is searched once more with this
     *  many times its allowance (docs/upper-bound.md); 1: no second try. >= 1. */
    std::int64_t node_subset_retry = 4;
    /** lagrangian_upper_bound(), where multi-node arrivals are exact (every target with the same
     *  per-node demand, docs/upper-bound.md "Arrivals priced"): each host's table from the per-k
     *  node-subset search first, and from the envelope of the removals priced where that runs out
     *  (true); false: the envelope first, the per-k search only where the envelope runs out. Both
     *  are valid; the first is tighter on small clusters (the knapsack's integrality), the second
     *  cheaper on 8-node hosts. Kept to test and measure the envelope on its own. */
    bool arrival_per_k_first = true;
    /** How host values are evaluated on host types whose targets all have closed forms (without
     *  free remaps): Auto times both ways on a sample of each type's hosts, and the closed forms
     *  on copy counts the node-subset search already has (about 3 ms per type), and keeps the
     *  fastest; Kernel always uses the target-parallel kernel (WeightedVmcap), PerTarget the
     *  closed forms target by target (from copy counts where the search has them). Both give the
     *  same integers (weighted_vmcap.h), so the bound never depends on this, only its speed. */
    enum class ValuePath : std::uint8_t { Auto, Kernel, PerTarget };
    ValuePath value_path = ValuePath::Auto;
    /** Worker threads of the per-host tables (oneTBB); the result does not depend on it. >= 1. */
    int threads = 1;
    /** Wall-clock instant (steady clock) after which the bound stops refining: hosts whose tables
     *  are not finished get a cheap relaxation (tail bounds for 1..4 removals, then "every
     *  migratable VM removed"; docs/upper-bound.md, "Cut short"), the knapsack falls back to its LP relaxation and the RAM multiplier search keeps the
     *  best multiplier so far. The result is then still a valid bound, never below the complete one
     *  (UpperBound::complete false). time_point::max(): no deadline. */
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    /** When set (another thread, a signal handler), the bound stops refining at its next check, as
     *  at the deadline (UpperBound::stopped_by Interrupted). nullptr: never. */
    const std::atomic<bool>* stop = nullptr;
    /** After the deadline or the stop, the cheap relaxation of the unfinished hosts may take this
     *  long; the hosts still left then get the topology-free value of "every migratable VM
     *  removed" (no VMCAP evaluation at all). Seconds, >= 0. */
    double fallback_seconds = 1.0;
    /** Most hosts (with migratable VMs or not) whose full tables are computed; then the bound
     *  stops refining as at the deadline (UpperBound::stopped_by TableLimit). For tests of a
     *  bound cut short at a chosen point; -1: no limit. >= -1. */
    std::int64_t max_full_tables = -1;
    /** > 0 (with a deadline): the bound stops refining, as at its deadline, as soon as the host
     *  tables made so far project the whole set past `give_up` times the time it has to its
     *  deadline (tables_out_of_reach): a bound that cannot complete in its time is cut short in any
     *  case, and its time is worth more to the search after it (docs/performance.md, "Starved
     *  time-cut runs"). The result stays valid (a cut-short bound). 0: never. >= 0. */
    double give_up = 0.0;
    /** optimize() only: after the search, at most this many multiplier vectors of the Lagrangian
     *  on moved VMs' conservation (lagrangian_upper_bound(), toward the plan's objective, within
     *  the time limit); the plan reports the smaller bound. 0: not run. >= 0. */
    int arrival_steps = 0;
    /** Throws std::invalid_argument naming the first bad parameter. */
    void validate() const;
};

/**
 * Would the host tables not all be made in time? `made` of `total` tables made in `elapsed_s`
 * seconds since the bound started, `allowance_s` from its start to its deadline: true when at
 * least kGiveUpProbe of the allowance has passed, at least one table is made, and elapsed x total
 * / made exceeds `factor` x allowance (factor > 0). Pure, O(1); no clock inside, so tests choose
 * the seconds.
 */
bool tables_out_of_reach(double elapsed_s, double allowance_s, std::int64_t made, std::int64_t total, double factor);
/** The share of its allowance after which a bound may give up (UpperBoundParams::give_up):
 *  the first tables' rate before that is noise. */
inline constexpr double kGiveUpProbe = 0.2;

/** The bound and how it was obtained. */
struct UpperBound {
    Score score = 0;     ///< the bound in score units (evaluators/closed_forms/score.h)
    double value = 0.0;  ///< the bound in objective units
    /** true: bounds the whole objective of the model (VMCAP plus its terms); false: only the VMCAP
     *  part sum_f w_f x capacity_f (a term of unknown sign is switched on). */
    bool covers_objective = true;
    std::int64_t effective_budget = 0;  ///< min(max_migrations, migratable VMs, smallest VMs within the RAM budget)
    int min_depth = 0, max_depth = 0;   ///< range of the exact depths K_h over hosts with migratable VMs
    bool free_remaps = false;           ///< remaps were free: the pooled relaxation was used
    /** The RAM Lagrangian lowered the bound; lambda is its multiplier (objective units per GiB). */
    bool ram_lagrangian = false;
    double lambda_per_gib = 0.0;
    /** Flavors whose VMs contain a target copy, so that each one moved costs the host it lands
     *  on at least that copy's weight (0 with free remaps or UpperBoundParams::landing_costs off). */
    int priced_flavors = 0;
    std::int64_t evaluations = 0;  ///< host values evaluated (removal sets and tail bounds)
    double seconds = 0.0;          ///< wall clock
    /** true: every host's table was finished, every knapsack solved exactly and the RAM multiplier
     *  search ran to its end, so the same model and params give the same bound. false: the deadline
     *  or the stop cut it short (or an exact-fallback evaluation met the model's deadline): still a
     *  valid bound, never below the complete one, but it depends on timing. */
    bool complete = true;
    /** Complete, TimeLimit (UpperBoundParams::deadline or the model's deadline), Interrupted
     *  (UpperBoundParams::stop) or TableLimit (UpperBoundParams::max_full_tables). */
    StopReason stopped_by = StopReason::Complete;
    std::int64_t hosts_tightened = 0;  ///< hosts with migratable VMs whose tables were finished
    std::int64_t hosts_cheap = 0;      ///< hosts with migratable VMs left at the cheap relaxation
    std::int64_t hosts_trivial = 0;    ///< hosts left at the topology-free value (fallback time spent)
    bool knapsack_relaxed = false;     ///< a knapsack was cut short: its LP relaxation was used
    /** Of hosts_tightened, those whose tables go beyond the exact depth K_h, and of these the ones
     *  where the node-subset bound completed (their tables beyond K_h exact without a RAM cost). */
    std::int64_t hosts_beyond_depth = 0, hosts_node_subsets = 0;
    /** Of hosts_node_subsets, those searched with the targets' split (UpperBoundParams::split_nodes):
     *  exact up to split_exact_removals removals beyond the multi-node VMs taken out, the concave
     *  envelope of the removals priced beyond. */
    std::int64_t hosts_split = 0;
    /** Set by optimize() when lagrangian_upper_bound() lowered the bound (UpperBoundParams::
     *  arrival_steps): score is then its bound, `removal_only` compute_upper_bound's,
     *  arrival_prices its multipliers per flavor (score units per VM). */
    bool arrivals_priced = false;
    Score removal_only = 0;
    std::vector<Score> arrival_prices;
    int arrival_steps = 0;  ///< multiplier vectors evaluated (0: not run)
    /** Complete, or TimeLimit / Interrupted: the Lagrangian was cut short (its bound stays valid and
     *  reproducible at its prices; `complete` is about compute_upper_bound's part). */
    StopReason arrival_stopped_by = StopReason::Complete;
    double arrival_seconds = 0.0;  ///< their wall clock (not in `seconds`)
};

/**
 * Computes the bound for `model`'s snapshot and budget (Problem::constraints). Deterministic when
 * UpperBound::complete: the same model and params give the same bound for any thread count; a
 * bound cut short by UpperBoundParams::deadline or stop depends on timing, is >= the complete bound
 * and is valid. Returns within about fallback_seconds (plus one host's check interval of 64 value
 * evaluations and one knapsack's LP relaxation) after the deadline or the stop. Complexity: O(sum over hosts of
 * values evaluated x targets x VMCAP) for the tables (parallel over hosts; per host at most
 * max_sets_per_host + the branch-and-bound and allocation allowances, plus one per removal count
 * of the tail), O(host types x flavors x placements x targets) for the landing costs, O(hosts x options x
 * B) for the knapsack, times ram_lagrangian_steps + 1 when the RAM search runs (B: the effective
 * budget, capped by the largest useful removal count). Memory O(hosts x (K_h + tail) + B).
 * Thread-safe for concurrent calls on the same model (reads only). An exact-fallback evaluation
 * that exceeds its work limit or deadline (InputError, TimeLimitReached) is replaced by the valid
 * bound floor(sum b / guest nodes); nothing of that reaches the caller. Throws
 * std::invalid_argument on bad params.
 */
UpperBound compute_upper_bound(const CapacityModel& model, const UpperBoundParams& params = {});

/** What lagrangian_upper_bound() found. */
struct LagrangianBound {
    /** false: not applicable to this model (free remaps, an exact-fallback (host type, target)
     *  pair, a RAM budget that can bind, a bound that covers only the VMCAP part, or no budget),
     *  or cut short before one multiplier vector was evaluated: score says nothing. */
    bool applied = false;
    Score score = 0;                               ///< the least bound over the multipliers evaluated, score units
    int steps = 0;                                 ///< multiplier vectors evaluated (each a full set of host tables and a knapsack)
    StopReason stopped_by = StopReason::Complete;  ///< TimeLimit or Interrupted when cut short
    double seconds = 0.0;                          ///< wall clock
    std::vector<Score> prices;                     ///< [flavor] the multipliers of `score` (score units per VM)
    bool whole_arrivals = false;                   ///< the multi-node arrivals arrived whole (not as pieces) at `prices`
};

/**
 * The Lagrangian bound on the conservation of moved VMs (docs/upper-bound.md, "Arrivals priced"):
 * for any multipliers pi_g (score units per VM of flavor g, >= 0), a final state within the
 * budget has as many arrivals as removals of every flavor, so adding sum_g pi_g x (arrivals_g -
 * removals_g) = 0 to its objective and letting each host choose its own removals *and* arrivals
 * can only raise it:
 *
 *     L(pi) = max over (k_h), sum k_h <= B, of sum_h G_h(k_h),
 *     G_h(k) >= max over removal sets S (|S| = k) and arrival sets A of
 *              V_h(F_h + d(S) - d(A)) - W x RAM(S) - pi(S) + pi(A)
 *
 * with multi-node arrivals relaxed to independent one-node pieces worth ceil(pi_g / vNUMA nodes)
 * each (a superset of the real arrivals at no less value) -- or, where every target's per-node
 * demand is a whole multiple of one unit u, arriving whole: a table per host type of (at least)
 * the best value of the targets' copies and whole arrivals of the multi-node flavors whose
 * per-node demand is a multiple of u, over the classes of the units of u per node (runs of units
 * with the same copy counts, or each unit its own class where the units' vectors are few; at most
 * 2^20 states per type, else pieces; pieces too on hosts whose nodes are all linked when the
 * targets' multiples differ: docs/upper-bound.md). G_h is the node-subset search of
 * compute_upper_bound with, per pNUMA node, options (removals, the room kept for the targets'
 * copies, removal prices less the best piece value of what is left: an exact two-resource
 * unbounded knapsack on a grid of the pieces' demands); a host where that search runs out gets a
 * valid tail bound (with whole arrivals and no RAM cost, before the tail: the concave envelope
 * over k of a price on removals, UpperBoundParams::arrival_per_k_first). Without a RAM cost L is rounded down to a multiple of the targets' weights'
 * greatest common divisor (every VMCAP part is one).
 *
 * Multipliers: `prices` given (one per flavor): L at those alone (`steps` ignored; the landing
 * costs' vector runs first where they differ, as in the search, whose per-k searches it fixes:
 * the same integer), what `vmcap validate` recomputes. Else from pi = the landing costs, at
 * most `steps` deflected Polyak
 * subgradient steps toward `target` (score units; the plan's objective; s = arrivals - removals
 * per flavor at the knapsack's choice), stopping when L <= target or s = 0, and giving up when the
 * first L exceeds `today` (compute_upper_bound's score) by more than 50% or 20 steps never went
 * below it. Every L(pi) is a valid bound; the least and its prices are returned (the caller
 * reports the smaller of it and `today`).
 *
 * Uses params' allowances, threads, deadline and stop (checked every 64 value evaluations; a
 * multiplier vector cut short is discarded). Deterministic and independent of the thread count
 * when not cut short. Cost per step: about one compute_upper_bound without enumeration, plus
 * O(grid x flavors) for the pieces' knapsack (grid: the largest node's amounts in units of the
 * pieces' demands' gcd, at most 2^22 cells, else not applied) and O(hosts x B x K) time, O(hosts x
 * B) memory for the knapsack with its choices. Thread-safe for concurrent calls (reads the model
 * only). Throws std::invalid_argument on bad params, steps < 0 or a prices vector of the wrong size.
 */
LagrangianBound lagrangian_upper_bound(const CapacityModel& model, const UpperBoundParams& params, Score target, int steps, Score today,
                                       const std::vector<Score>* prices = nullptr);

/**
 * Relative gap of `objective` below `bound`, as MIP solvers report it: (bound - objective) /
 * |bound|, 0 when they are equal (also both 0), clamped to >= 0. In [0, 1] for objective in
 * [0, bound].
 */
double relative_gap(double bound, double objective);

/**
 * Does the bound of `model` cover its whole objective (true), or only the VMCAP part sum_f w_f x
 * capacity_f (false: a term of unknown sign is on)? The rule compute_upper_bound applies
 * (UpperBound::covers_objective); `vmcap validate` checks a plan's `upper_bound_covers` by it.
 * O(terms), thread-safe.
 */
bool bound_covers_objective(const CapacityModel& model);

/**
 * The VMCAP part of the objective, sum_f w_f x capacity_f over the flavors of `problem` with a
 * weight > 0, in score units (`capacity` per flavor, in the problem's order). What covered_score
 * takes when a bound covers only that part, and `vmcap validate`'s replay its objective's first
 * term. O(flavors), thread-safe.
 */
Score vmcap_score(const Problem& problem, const std::vector<Count>& capacity);

/**
 * The part of a state's objective that a bound covers, in score units: `score` itself when
 * `covers_objective` (bound_covers_objective), else the VMCAP part sum_f w_f x capacity_f
 * (`capacity` per flavor of `problem`, in its order). What a plan's `gap` is taken on; the plan
 * writer and `vmcap validate` both call it. O(flavors), thread-safe.
 */
Score covered_score(const Problem& problem, bool covers_objective, Score score, const std::vector<Count>& capacity);

/**
 * A cheap ceiling of every bound compute_upper_bound can return for `model` (complete or cut short):
 * sum over hosts of sum_t w_t x floor(sum_i b_i / guest nodes of t) with every migratable VM of the
 * host removed (the topology-free count, which no VMCAP value exceeds), in score units. No VMCAP
 * evaluation: O(hosts x targets x pNUMA nodes x resources + VMs). `vmcap validate` rejects a stated
 * bound above it. Thread-safe.
 */
Score upper_bound_ceiling(const CapacityModel& model);

}  // namespace vmcap

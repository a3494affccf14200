#pragma once
/**
 * @file search_params.h
 * The parameter and result types shared by every search driver (greedy, annealing, tabu) and the
 * pipeline that runs them (optimize.h).
 */
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "evaluators/state/search_state.h"
#include "instances/stop_reason.h"
#include "moves/move_list.h"
#include "optimizer/search/convergence.h"

namespace vmcap {

/** t0 + seconds on the steady clock, saturating: a limit beyond ~30 years (or +inf) never
 *  expires instead of overflowing the clock's integer ticks into the past. seconds >= 0 (0: t0). */
inline std::chrono::steady_clock::time_point deadline_after(std::chrono::steady_clock::time_point t0, double seconds) {
    using Clock = std::chrono::steady_clock;
    if (!(seconds < 1e9)) return Clock::time_point::max();
    return t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

/** One parameter set for a search (annealing, tabu, greedy); validate() checks it once. */
struct SearchParams {
    std::int64_t max_evaluations = 0;  ///< candidate-move evaluations, all workers; 0 = default_evaluations()
    /** Wall-clock cap in seconds (checked every 1024 evaluations). Annealing: when the evaluation
     *  budget cannot complete within it, the clock drives the temperature schedule instead
     *  (RunProgress, optimizer/search/progress.h). */
    double time_limit_s = 60.0;
    int threads = 1;  ///< workers (oneTBB tasks); see `regions`
    /**
     * Annealing with threads > 1: the workers own disjoint host regions and shares of the budget
     * (a domain decomposition, re-partitioned at every synchronisation point; optimizer/search/annealing.cpp,
     * anneal_regions), so together they
     * run one chain at the workers' combined evaluation rate; false: independent chains of the
     * whole cluster sharing their best state. Used only where the objective is separable per
     * host (no feasibility filter, e.g. no vlinks; every term separable_per_host) and every
     * region gets at least kMinRegionHosts hosts; otherwise chains. Tabu always runs chains.
     */
    bool regions = true;
    static constexpr int kMinRegionHosts = 16;
    std::uint64_t seed = 1;
    /** > 0: every applied move's delta asserted, full recomputation every N applied moves (annealing,
     *  tabu); greedy's room steps compare every cached host's room candidates with a recomputation. */
    std::int64_t check_every = 0;
    /** Evaluations per worker between synchronisation points; 0 = auto: 1/50 of the worker's run
     *  (host regions: 1/200, at least 50,000), clamped to [2,000, 2 x 10^7]. A worker that adopts another's best state finds the cached
     *  deltas of every host where the states differ stale, so on 10,000 hosts a synchronisation
     *  costs a noticeable re-evaluation: long runs synchronise rarely (measurements:
     *  docs/performance.md, "Search speed on 10,000 hosts"). */
    std::int64_t round_evaluations = 0;
    bool quiet = false;                ///< no progress lines on stderr
    double initial_temperature = 0.0;  ///< in objective units (not score units); 0 = calibrated from sampled worsening moves
    /** Reheat: a worker without a new best for 10% of its evaluations (>= 50,000) multiplies the
     *  temperature by this factor (capped at the start temperature, decaying back); 1 = off. */
    double reheat_factor = 3.0;
    /** Draw half of the migrate destinations from per-flavor candidate lists of the hosts that
     *  absorb the flavor most cheaply (rebuilt at each synchronisation point; Proposal in moves/proposal.h). */
    bool destination_lists = true;
    /** Give each worker's state a host-value memo (evaluators/state/host_value_memo.h) when the
     *  model has at least HostValueMemo::kMinTargets targets. Results are identical either way;
     *  false is for A/B measurements and the tests that show it. */
    bool value_memo = true;
    /** Greedy: also take room steps (optimizer/search/greedy.h) that evict at most this many VMs
     *  of one host so that one more VM of a target flavor fits on a pNUMA node set there; 0: off
     *  (the published baseline). >= 0. OptimizeParams::room_steps sets it for the greedy run
     *  beside annealing and tabu. */
    int room_steps = 0;
    /** Greedy with room steps: after it ends, this many ruin-and-recreate iterations, each from
     *  the last kept state: a few related migrations are given back (their VMs return to their
     *  snapshot placements where those have room) and greedy with room steps runs again; the
     *  result is kept when not worse, else the kept state is restored. The best state is returned.
     *  Deterministic for a seed; stops early at the time limit, an interrupt or the bound. >= 0;
     *  0 = off. OptimizeParams::ruin_iterations sets it for the greedy run after annealing and tabu. */
    std::int64_t ruin_iterations = 0;
    /** At most this many seconds of ruin and recreate (no iteration starts after them; the run
     *  then depends on timing: SearchResult::ruins says how many ran). > 0; the time limit still
     *  applies. */
    double ruin_time_limit_s = std::numeric_limits<double>::infinity();
    /** Probability of accepting an exactly neutral simple move (migrate, remap, return: objective
     *  and migration count unchanged): plateau steps; each invalidates two hosts' cached deltas.
     *  In [0, 1]. Neutral compound moves (swap, exchange, ejection, gather) take the threshold-first path,
     *  where a threshold <= 0 always accepts them. Default chosen by the quality suite
     *  (docs/performance.md, "Search", neutral-acceptance sweep). */
    double neutral_acceptance = 0.1;
    /** Share of proposals per move kind (moves/move_list.h; defaults: each move's kDefaultShare,
     *  chosen by the quality suite, docs/performance.md); the rest are migrate moves. A kind
     *  whose proposal finds no suitable VMs (e.g. exchange without a migrated VM) falls back to
     *  migrate. */
    MoveMix mix;
    /** When set (from another thread or a signal handler), the search stops at its next clock
     *  check (every 1024 annealing evaluations, every tabu iteration, every greedy round) and
     *  returns its best state so far with StopReason::Interrupted. nullptr: never. */
    const std::atomic<bool>* stop = nullptr;
    /** An upper bound on the objective of every state within the budget, score units (e.g.
     *  compute_upper_bound's score when it covers the whole objective; optimizer/bound): the search
     *  stops as soon as its best state's objective reaches it, since that state is then proven
     *  optimal (StopReason::ProvenOptimal). Greedy checks after every migration it takes, annealing
     *  and tabu with one thread after every new best, with more threads at each synchronisation
     *  point (a worker that reaches it ends its round; the others end theirs, so the result does
     *  not depend on timing). A start state that meets it is returned without searching. nullopt:
     *  never. A value below the true optimum would stop a search early at a state that is not. */
    std::optional<Score> bound_score;
    /** Start state, as placements of migrated VMs (e.g. the greedy result); empty = the snapshot.
     *  The best state starts as this one, so the search never returns anything worse. */
    std::vector<Placement> start;

    /** Throws std::invalid_argument naming the first bad parameter: threads < 1, time limit <= 0,
     *  max_evaluations or check_every < 0, reheat_factor < 1, neutral_acceptance or a move-mix
     *  share outside [0, 1], shares summing above 1, initial_temperature < 0. */
    void validate() const;
};

/** Outcome of a search: the best state found, as the placements of its migrated VMs. */
struct SearchResult {
    std::vector<Placement> best;
    double objective_before = 0.0;     ///< objective units (evaluators/closed_forms/score.h)
    double objective_best = 0.0;       ///< objective units
    Score score_best = 0;              ///< the same, exactly (score units, evaluators/closed_forms/score.h)
    std::int64_t evaluations = 0;      ///< candidate moves evaluated (all workers)
    std::int64_t accepted = 0;         ///< moves applied
    std::int64_t reheats = 0;          ///< annealing reheats (all workers)
    std::int64_t ruins = 0;            ///< greedy: ruin-and-recreate iterations run (SearchParams::ruin_iterations)
    std::int64_t ruins_improving = 0;  ///< greedy: of those, the ones that found a new best state
    bool ruins_cut = false;            ///< greedy: the clock ended them early (ruin_time_limit_s or time_limit_s)
    /** Annealing: moves with a negative delta accepted during the first tenth of each worker's run
     *  (all workers); 0 means the start temperature left the chain frozen. */
    std::int64_t early_worsening_accepted = 0;
    double temperature_start = 0.0;  ///< annealing: start temperature, objective units (calibrated or given)
    double temperature_end = 0.0;    ///< annealing: end temperature of the schedule, objective units
    /** Annealing: the evaluation position per worker (0-based) from which the clock drove the
     *  schedule because the evaluation budget was out of reach of the time limit
     *  (optimizer/search/progress.h); -1: evaluations drove it throughout (reproducible). */
    std::int64_t clock_driven_from = -1;
    double seconds = 0.0;
    /** EvaluationBudget, TimeLimit, Interrupted, NothingToSearch, ProvenOptimal (the best state met
     *  SearchParams::bound_score), or (greedy) NoImprovingMove, BudgetSpent. */
    StopReason stopped_by = StopReason::EvaluationBudget;
    /** Annealing: workers that owned host regions (SearchParams::regions), 0 for independent
     *  chains (and for one thread). */
    int regions = 0;
    /** Best objective after each synchronisation point (annealing and tabu), for time-to-target
     *  measurements and convergence plots. */
    std::vector<ConvergencePoint> convergence;
};

/** The most migrations a plan can make on the snapshot: its max_migrations, at most its migratable
 *  VMs, and at most as many of the smallest (by RAM) migratable VMs as max_migrated_ram_mib holds
 *  together. O(VMs log VMs) with a RAM budget, O(VMs) without. Thread-safe. */
std::int64_t migrations_the_budget_allows(const Problem& problem);

/** Default evaluation budget for a snapshot: 1500 per migratable VM, times s^2 (at most 25) when
 *  the budget allows s >= 2 percent of the migratable VMs (the budget counted as at most the
 *  migratable VMs, and as at most as many of the smallest-RAM ones as the migrated-RAM budget
 *  holds; s real, the product rounded down), clamped to [10^6, 2.5 x 10^8]. Budgets under 2%
 *  give 1500 per migratable VM. O(VMs log VMs). Thread-safe. */
std::int64_t default_evaluations(const Problem& problem);

/** The evaluations the annealing schedule is calibrated for, against which a clock-driven run is
 *  starved (RunProgress's `reference`, optimizer/search/progress.h): 1500 per migratable VM,
 *  clamped to [10^6, 2.5 x 10^8] — default_evaluations() without the budget's multiplier. A
 *  longer default run at a large budget buys more search, not a different schedule, so a
 *  time-cut run that reaches this many evaluations still cools to the end temperature.
 *  O(VMs). Thread-safe. */
std::int64_t schedule_reference_evaluations(const Problem& problem);

}  // namespace vmcap

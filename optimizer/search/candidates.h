#pragma once
/**
 * @file candidates.h
 * What the search drivers (annealing.cpp, tabu.cpp) share around the candidate moves of
 * moves/move_list.h: the search score, the validated set-up, the per-move check and best-state
 * bookkeeping, and the synchronisation points. Internal to optimizer/.
 */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "moves/move_list.h"
#include "optimizer/search/annealing.h"

namespace vmcap::search_detail {

/**
 * The search's order on states, exact and lexicographic: the higher objective wins, then the one
 * with fewer migrations. So a plan never trades capacity for fewer migrations, but among equal
 * objectives it prefers fewer migrations.
 */
struct SearchScore {
    Score objective = std::numeric_limits<Score>::min();
    std::int64_t migrations = 0;
    friend bool operator<(const SearchScore& a, const SearchScore& b) {
        return a.objective < b.objective || (a.objective == b.objective && a.migrations > b.migrations);
    }
    friend bool operator==(const SearchScore&, const SearchScore&) = default;
};

/** Does `score` reach params.bound_score (so its state is proven optimal)? */
inline bool meets_bound(const SearchParams& params, const SearchScore& score) {
    return params.bound_score && score.objective >= *params.bound_score;
}

/**
 * The Metropolis rule's view of a move: its delta minus `tie` score units per migration it adds,
 * with `tie` so small that all migrations of a budget together weigh less than half of one unit of
 * the smallest target weight — the same order as SearchScore, so that neutral moves that use
 * budget are not kept at low temperature. Only acceptance probabilities use this double; every
 * comparison of states is exact (SearchScore).
 */
struct Scorer {
    double tie = 0.0;
    double acceptance_delta(Score delta, std::int64_t added_migrations) const {
        return static_cast<double>(delta) - tie * static_cast<double>(added_migrations);
    }
};

/**
 * What both drivers derive from (model, params) before searching: validated parameters (throws
 * std::invalid_argument: SearchParams::validate()), the move-mix
 * thresholds, the migratable VMs and their flavors, the start state, the migration tie-break and
 * the run's length per worker. `nothing_to_search` is set when no move can exist.
 */
struct SearchSetup {
    std::array<double, kKinds> mix{};  ///< cumulative thresholds (MoveMix::cumulative())
    std::vector<int> movable;
    std::vector<char> flavor_used;  ///< [flavor]: has a migratable VM
    SearchState initial;            ///< the snapshot with params.start applied
    double objective_before = 0.0;  ///< of the snapshot, objective units
    double w_min = 0.0;             ///< smallest target weight, score units (score.h)
    Scorer scorer;
    SearchScore start_score;  ///< of the start state
    bool nothing_to_search = false;
    /** The start state already meets params.bound_score: proven optimal, nothing to search. */
    bool proven_at_start = false;
    std::int64_t per_worker = 0, round = 0;
    /** Evaluations per worker the temperature schedule is calibrated for: the instance's default
     *  budget (default_evaluations), or the budget if smaller (RunProgress: a clock-driven run
     *  that can do fewer is starved). */
    std::int64_t reference = 0;

    SearchSetup(const CapacityModel& model, const SearchParams& params) : initial(model) {
        const Problem& p = model.problem();
        params.validate();
        mix = params.mix.cumulative();
        flavor_used.assign(p.flavors.size(), 0);
        for (std::size_t v = 0; v < p.vms.size(); ++v)
            if (p.vms[v].migratable) {
                movable.push_back(static_cast<int>(v));
                flavor_used[p.vms[v].flavor] = 1;
            }
        objective_before = initial.objective_value();
        if (!params.start.empty()) initial.set_placements(params.start);
        nothing_to_search = movable.empty() || p.hosts.size() < 2 || model.num_targets() == 0 || p.constraints.max_migrations == 0;
        for (int j = 0; j < model.num_targets(); ++j)
            if (w_min == 0.0 || static_cast<double>(model.target_weight_units(j)) < w_min)
                w_min = static_cast<double>(model.target_weight_units(j));
        const double max_mig =
            static_cast<double>(std::min<std::int64_t>(p.constraints.max_migrations, static_cast<std::int64_t>(movable.size())));
        scorer = Scorer{0.5 * w_min / (max_mig + 1.0)};
        start_score = SearchScore{initial.objective(), initial.migrations()};
        proven_at_start = !nothing_to_search && meets_bound(params, start_score);
        const std::int64_t total = params.max_evaluations > 0 ? params.max_evaluations : default_evaluations(p);
        per_worker = std::max<std::int64_t>(1, total / params.threads);
        reference = std::max<std::int64_t>(1, std::min(total, schedule_reference_evaluations(p)) / params.threads);
        round = params.round_evaluations > 0 ? params.round_evaluations : std::clamp<std::int64_t>(per_worker / 50, 2000, 20000000);
    }

    /** The result before any search: the snapshot's objective, the start plan (params.start) and
     *  its objective; stopped_by "nothing to search" when nothing_to_search. */
    SearchResult start_result(const SearchParams& params) const {
        SearchResult res;
        res.objective_before = objective_before;
        res.objective_best = initial.objective_value();
        res.score_best = initial.objective();
        res.best = params.start;
        if (nothing_to_search) res.stopped_by = StopReason::NothingToSearch;
        if (proven_at_start) res.stopped_by = StopReason::ProvenOptimal;
        return res;
    }

    /** No search to run: nothing_to_search or proven_at_start (start_result is the result). */
    bool settled() const { return nothing_to_search || proven_at_start; }
};

#ifdef NDEBUG
inline constexpr bool kDebugChecks = false;
#else
inline constexpr bool kDebugChecks = true;
#endif

/** Should every applied move's delta be checked against the objective change (--check, debug)? */
inline bool verify_deltas(std::int64_t check_every) {
    return check_every > 0 || kDebugChecks;
}

/**
 * Applies a feasible evaluation `d` of `c` to `wk.state`. When verify_deltas(check_every): asserts
 * that the objective changed by exactly the delta the search acted on (throws std::logic_error
 * naming the move kind, the delta and the change), and every `check_every` applied moves
 * recomputes every aggregate from scratch (SearchState::check_consistency). Then updates the
 * worker's best state if the score improved; returns whether it did.
 * W has state, since_check, best, best_score.
 */
template <class W>
bool apply_and_check(W& wk, const Candidate& c, const CandidateDelta& d, std::int64_t check_every);

/** apply_and_check() without the best-state update: apply, then the --check / debug checks. */
template <class W>
void apply_verified(W& wk, const Candidate& c, const CandidateDelta& d, std::int64_t check_every) {
    SearchState& s = wk.state;
    const bool verify = verify_deltas(check_every);
    const Score before = verify ? s.objective() : 0;
    apply(c, s, d);
    if (verify) {
        const Score change = s.objective() - before;
        if (change != d.delta) {
            char msg[256];
            std::snprintf(msg, sizeof msg, "%s move: the search acted on delta %lld but the objective changed by %lld (score units)",
                          std::string(Moves::kNames[c.kind]).c_str(), static_cast<long long>(d.delta), static_cast<long long>(change));
            throw std::logic_error(msg);
        }
        if (check_every > 0 && ++wk.since_check >= check_every) {
            wk.since_check = 0;
            s.check_consistency();
        }
    }
}

template <class W>
bool apply_and_check(W& wk, const Candidate& c, const CandidateDelta& d, std::int64_t check_every) {
    apply_verified(wk, c, d, check_every);
    const SearchState& s = wk.state;
    const SearchScore sc{s.objective(), s.migrations()};
    if (!(wk.best_score < sc)) return false;
    wk.best_score = sc;
    wk.best = s.displaced_placements();
    return true;
}

/** Index of the worker with the best score (ties: lowest id). W has best_score. */
template <class W>
int best_worker(const std::vector<W>& workers) {
    int bw = 0;
    for (int w = 1; w < static_cast<int>(workers.size()); ++w)
        if (workers[bw].best_score < workers[w].best_score) bw = w;
    return bw;
}

/**
 * Synchronisation point of the parallel drivers: every worker behind the best (ties: lowest
 * worker id) adopts its best state and restarts from it. Deterministic (worker order only).
 * Returns the best worker's index. W has best, best_score and state.
 */
template <class W>
int share_best(std::vector<W>& workers) {
    const int bw = best_worker(workers);
    for (int w = 0; w < static_cast<int>(workers.size()); ++w)
        if (w != bw && workers[w].best_score < workers[bw].best_score) {
            workers[w].best = workers[bw].best;
            workers[w].best_score = workers[bw].best_score;
            workers[w].state.set_placements(workers[w].best);
        }
    return bw;
}

/** Evaluations of all workers so far. W has evaluations. */
template <class W>
std::int64_t total_evaluations(const std::vector<W>& workers) {
    std::int64_t ev = 0;
    for (const auto& wk : workers) ev += wk.evaluations;
    return ev;
}

/**
 * What every driver does at the end of a round, once it knows the run's best score: a point of
 * res.convergence (seconds since t0, `evaluations` of all workers, the best objective), then a
 * progress line on stderr unless params.quiet, at most every 2 s and at the end of the run
 * (`last_report`: the time of the last line, updated; `driver` names the search in it).
 */
inline void record_round(SearchResult& res, const SearchParams& params, std::chrono::steady_clock::time_point t0,
                         std::chrono::steady_clock::time_point& last_report, std::int64_t done, std::int64_t per_worker,
                         const SearchScore& best, std::int64_t evaluations, const char* driver) {
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - t0).count();
    res.convergence.push_back(ConvergencePoint{seconds, evaluations, to_objective(best.objective)});
    if (params.quiet || (now - last_report <= std::chrono::seconds(2) && done < per_worker)) return;
    last_report = now;
    std::fprintf(stderr, "[%6.1fs] %5.1f%%  objective %.6g (start %.6g)  migrations %lld  %.2f M evals/s (%s)\n", seconds,
                 100.0 * static_cast<double>(done) / static_cast<double>(per_worker), to_objective(best.objective), res.objective_before,
                 static_cast<long long>(best.migrations), static_cast<double>(evaluations) / seconds / 1e6, driver);
}

/**
 * The end of a round of the chain drivers: the synchronisation point (share_best), then
 * record_round with the best worker's score. Returns the best worker's index.
 */
template <class W>
int end_round(std::vector<W>& workers, SearchResult& res, const SearchParams& params, std::chrono::steady_clock::time_point t0,
              std::chrono::steady_clock::time_point& last_report, std::int64_t done, std::int64_t per_worker, const char* driver) {
    const int bw = share_best(workers);
    record_round(res, params, t0, last_report, done, per_worker, workers[bw].best_score, total_evaluations(workers), driver);
    return bw;
}

/** Has the run's time or an outside stop request ended it? Sets `interrupted` on a stop request. */
inline bool should_stop(const SearchParams& params, std::chrono::steady_clock::time_point deadline, std::atomic<bool>& interrupted) {
    if (params.stop != nullptr && params.stop->load(std::memory_order_relaxed)) {
        interrupted.store(true);
        return true;
    }
    return std::chrono::steady_clock::now() > deadline;
}

/** Why a search run ended: an interrupt first (the CLI's exit code follows it), then a best
 *  state proven optimal, the time limit, else the evaluation budget. */
inline StopReason stop_reason(bool interrupted, bool proven, bool out_of_time) {
    return interrupted   ? StopReason::Interrupted
           : proven      ? StopReason::ProvenOptimal
           : out_of_time ? StopReason::TimeLimit
                         : StopReason::EvaluationBudget;
}

/** Fills `res` at the end of a parallel run: the best worker's plan and objective (ties: lowest
 *  id), all workers' evaluations and accepted moves, seconds since t0 and why the run stopped
 *  (stop_reason).
 *  W has best, best_score, evaluations and accepted. */
template <class W>
void finish(SearchResult& res, const std::vector<W>& workers, std::chrono::steady_clock::time_point t0, bool out_of_time, bool interrupted,
            bool proven) {
    const int bw = best_worker(workers);
    res.best = workers[bw].best;
    res.objective_best = to_objective(workers[bw].best_score.objective);
    res.score_best = workers[bw].best_score.objective;
    for (const auto& wk : workers) {
        res.evaluations += wk.evaluations;
        res.accepted += wk.accepted;
    }
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    res.stopped_by = stop_reason(interrupted, proven, out_of_time);
}

}  // namespace vmcap::search_detail

#include "optimizer/annealing.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include "optimizer/candidates.h"
#include "optimizer/fork_join.h"

namespace vmcap {

namespace {

using Clock = std::chrono::steady_clock;

using namespace search_detail;

// Workers sit side by side in a vector and each writes its counters and proposal ring on every
// evaluation: aligned to 128 bytes (two cache lines, the adjacent-line prefetch unit) so that one
// worker's writes never invalidate the lines holding the other's state (false sharing).
struct alignas(128) Worker {
    Worker(const SearchState& start, std::uint64_t seed, int id) : state(start), cache(state), rng(seed, static_cast<std::uint64_t>(id)) {}
    SearchState state;
    MoveCache cache;
    Rng rng;
    std::vector<Placement> best;
    SearchScore best_score;
    std::int64_t evaluations = 0;
    std::int64_t accepted = 0;
    std::int64_t since_check = 0;
    std::int64_t kind_evaluated[kKinds] = {}, kind_accepted[kKinds] = {}, kind_improved[kKinds] = {};
    std::int64_t bounded = 0;           ///< compound moves rejected by upper_bound() without full evaluation
    Proposal proposal;                  ///< sweep position and destination candidate lists (candidates.h)
    std::int64_t last_improvement = 0;  ///< per-worker evaluation count at the last new best (or reheat)
    double boost = 1.0;                 ///< temperature multiplier after a reheat (decays to 1)
    std::int64_t reheats = 0;
};

/**
 * The temperature schedule: geometric from t_start to t_start x t_ratio over the worker's run,
 * times a reheat boost. A worker whose best has not improved for `reheat_after` evaluations
 * multiplies the temperature by `reheat` (capped at the start temperature); the boost decays by
 * 2% per 256-evaluation block, so it fades after ~100k evaluations. Counted work only:
 * deterministic.
 */
struct Schedule {
    double t_start = 1.0, t_ratio = 1.0, reheat = 1.0;
    std::int64_t reheat_after = 0, per_worker = 1;

    /** Temperature for the block starting at the worker's evaluation `at` (called every 256
     *  evaluations: the temperature changes by < 0.1% per block of a run of >= 10^5, so one pow
     *  per block instead of one per evaluation). Updates the worker's reheat state. */
    double temperature(Worker& wk, std::int64_t at) const {
        if (reheat > 1.0 && at - wk.last_improvement > reheat_after) {
            wk.boost = reheat;
            wk.last_improvement = at;
            ++wk.reheats;
        }
        const double progress = static_cast<double>(at) / static_cast<double>(per_worker);
        const double t = std::min(t_start, t_start * std::pow(t_ratio, progress) * wk.boost);
        wk.boost = std::max(1.0, wk.boost * 0.98);
        return t;
    }
};

/**
 * The Metropolis decision for candidate `c` at temperature `temp`, evaluating it into `d` when
 * needed. Simple moves: evaluate, then accept a worsening one with probability exp(ds / temp) and
 * an exactly neutral one (same objective, same migration count) with probability
 * `neutral_acceptance` (plateau steps). Compound moves: the threshold first (accept iff
 * ds >= temp x ln(u)); a move whose cached upper bound (+ the largest migration tie-break refund,
 * 2 tie) is below it is rejected exactly without the full evaluation (counted in wk.bounded).
 */
inline bool accept(const Candidate& c, Worker& wk, CandidateDelta& d, double temp, const Scorer& scorer, double neutral_acceptance) {
    const SearchState& s = wk.state;
    if (!is_compound(c)) {
        evaluate(c, s, wk.cache, d);
        if (!d.feasible) return false;
        const double ds = scorer.acceptance_delta(d.delta, d.migrations_after - s.migrations());
        if (ds < 0 && wk.rng.uniform() >= std::exp(ds / temp)) return false;
        return !(d.delta == 0 && d.migrations_after == s.migrations() && neutral_acceptance < 1.0 &&
                 wk.rng.uniform() >= neutral_acceptance);
    }
    const double threshold = temp * std::log(wk.rng.uniform());
    if (upper_bound(c, s, wk.cache) + 2.0 * scorer.tie < threshold) {
        ++wk.bounded;
        return false;
    }
    evaluate(c, s, wk.cache, d);
    return d.feasible && scorer.acceptance_delta(d.delta, d.migrations_after - s.migrations()) >= threshold;
}

/** Per-kind statistics of a run on stderr: evaluated / accepted / improving moves, moves rejected
 *  by their bound, move-cache hits and misses, reheats. */
void report_moves(const std::vector<Worker>& workers) {
    std::fprintf(stderr, "moves (evaluated / accepted / improving):");
    for (int k = 0; k < kKinds; ++k) {
        std::int64_t ev = 0, acc = 0, imp = 0;
        for (const auto& wk : workers) {
            ev += wk.kind_evaluated[k];
            acc += wk.kind_accepted[k];
            imp += wk.kind_improved[k];
        }
        std::fprintf(stderr, "  %s %lld / %lld / %lld", std::string(Moves::kNames[k]).c_str(), static_cast<long long>(ev),
                     static_cast<long long>(acc), static_cast<long long>(imp));
    }
    std::int64_t bounded = 0, hits = 0, misses = 0, reheats = 0;
    for (const auto& wk : workers) {
        reheats += wk.reheats;
        bounded += wk.bounded;
        hits += wk.cache.hits();
        misses += wk.cache.misses();
    }
    std::fprintf(stderr, "\ncompound moves rejected by their cached bound: %lld; move cache hits %lld, misses %lld; reheats %lld\n",
                 static_cast<long long>(bounded), static_cast<long long>(hits), static_cast<long long>(misses),
                 static_cast<long long>(reheats));
}

}  // namespace

SearchResult anneal(const CapacityModel& model, const SearchParams& params) {
    const auto t0 = Clock::now();
    SearchSetup setup(model, params);
    const auto& mix = setup.mix;
    const std::vector<int>& movable = setup.movable;
    const std::vector<char>& flavor_used = setup.flavor_used;
    const SearchState& initial = setup.initial;
    const double w_min = setup.w_min;
    const Scorer scorer = setup.scorer;
    SearchResult res = setup.start_result(params);
    if (setup.nothing_to_search) return res;

    // Temperature: geometric from T0 (a typical worsening move accepted with probability ~0.3)
    // to T1 (a loss of one smallest-weight unit accepted with probability ~e^-20).
    double t_start = w_min;
    {
        Rng cal(params.seed, 0xC0FFEEULL);
        MoveCache cal_cache(initial);
        Proposal cal_proposal;
        cal_proposal.start(cal, movable.size());
        double sum = 0.0;
        int n = 0;
        ProposalContext ctx{initial, cal_cache, movable, cal_proposal, cal};
        for (int i = 0; i < 4000 && n < 400; ++i) {
            const Candidate mv = propose<Moves>(ctx, mix);
            const CandidateDelta d = evaluate(mv, initial, cal_cache);
            if (d.feasible && d.delta < 0) {
                sum += -d.delta;
                ++n;
            }
        }
        if (n > 0) t_start = std::max(w_min * 0.1, (sum / n) / std::log(1.0 / 0.3));
    }
    // From a given start (the greedy plan) polish instead of re-melting: a loss of one
    // smallest-weight unit is accepted with probability <= e^-3.3 at the start (chosen on the
    // medium snapshots, docs/performance.md).
    if (!params.start.empty()) t_start = std::min(t_start, 0.3 * w_min);
    if (params.initial_temperature > 0) t_start = params.initial_temperature * static_cast<double>(kScoreScale);
    const double t_end = w_min / 20.0;
    const double t_ratio = std::min(1.0, t_end / t_start);

    const int W = params.threads;
    const std::int64_t per_worker = setup.per_worker, round = setup.round;

    // Reheat after a stall of 10% of the run (at least 50,000 evaluations) without a new best.
    const Schedule schedule{t_start, t_ratio, params.reheat_factor, std::max<std::int64_t>(50000, per_worker / 10), per_worker};
    std::vector<Worker> workers;
    workers.reserve(W);
    for (int w = 0; w < W; ++w) {
        workers.emplace_back(initial, params.seed, w + 1);
        workers.back().best = params.start;
        workers.back().proposal.start(workers.back().rng, movable.size());
        workers.back().best_score = setup.start_score;
    }

    std::atomic<bool> out_of_time{false}, interrupted{false};
    const auto deadline = deadline_after(t0, params.time_limit_s);
    tbb::task_arena arena(W);
    std::int64_t done = 0;  // evaluations per worker completed in earlier rounds
    auto last_report = t0;
    while (done < per_worker && !out_of_time.load()) {
        const std::int64_t this_round = std::min(round, per_worker - done);
        run_workers(arena, W, [&](int w) {
            Worker& wk = workers[w];
            SearchState& s = wk.state;
            if (params.destination_lists) wk.proposal.refresh(s, wk.cache, flavor_used);
            double temp = t_start;
            CandidateDelta delta;  // reused by every candidate (see evaluate())
            ProposalContext ctx{s, wk.cache, movable, wk.proposal, wk.rng};
            for (std::int64_t e = 0; e < this_round; ++e) {
                if ((e & 255) == 0) {
                    if ((e & 1023) == 0 && should_stop(params, deadline, interrupted)) {
                        out_of_time.store(true);
                        break;
                    }
                    temp = schedule.temperature(wk, done + e);
                }
                const Candidate mv = propose<Moves>(ctx, mix);
                ++wk.evaluations;
                ++wk.kind_evaluated[mv.kind];
                if (!accept(mv, wk, delta, temp, scorer, params.neutral_acceptance)) continue;
                if (apply_and_check(wk, mv, delta, params.check_every)) wk.last_improvement = done + e;
                ++wk.accepted;
                ++wk.kind_accepted[mv.kind];
                if (delta.delta > 0) ++wk.kind_improved[mv.kind];
            }
        });
        done += this_round;
        // Synchronisation point: share the best state in worker order (ties: lowest worker id).
        end_round(workers, params, t0, last_report, done, per_worker, res.objective_before, "annealing");
    }
    finish(res, workers, t0, out_of_time.load(), interrupted.load());
    for (const auto& wk : workers) res.reheats += wk.reheats;
    if (!params.quiet) report_moves(workers);
    return res;
}

}  // namespace vmcap

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
    std::int64_t early_worsening = 0;  ///< moves with a negative delta accepted in the first tenth of the run
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

/** Start and end temperatures of a run, score units (score.h), and what they were derived from. */
struct Temperatures {
    double start = 1.0, end = 1.0;
    int samples = 0;          ///< worsening moves sampled at the start state
    double small_loss = 0.0;  ///< max(smallest target weight, 5th percentile of their losses), score units
};

/**
 * Calibrates the schedule from the losses of worsening moves sampled at the start state (up to
 * 400 of 4,000 proposals of the run's own move mix, their own RNG stream), so that it follows the
 * instance's scale of deltas rather than the weights': with many weighted targets one migration
 * changes the capacity of many flavors and a typical loss is hundreds of smallest weights.
 *
 * - From the snapshot (melt): a loss of the mean sampled size is accepted with probability 0.3
 *   (at least a tenth of the smallest weight).
 * - From a given start (the greedy plan; polish): a small loss, max(smallest weight, 5th
 *   percentile of the sampled losses), is accepted with probability e^-3.3; never hotter than the
 *   melt temperature. With one target (or weights of one scale) the 5th percentile is one unit of
 *   the smallest weight, so this is the earlier rule of 0.3 x smallest weight (docs/performance.md).
 * - End: the smallest sampled loss (at least the smallest weight) is accepted with probability
 *   e^-20.
 * Without any sampled worsening move, the smallest weight stands for every loss.
 * `params.initial_temperature` > 0 replaces the start temperature. Deterministic (seeded).
 */
Temperatures calibrate_temperatures(const SearchSetup& setup, const SearchParams& params) {
    const double w_min = setup.w_min;
    Rng cal(params.seed, 0xC0FFEEULL);
    MoveCache cal_cache(setup.initial);
    Proposal cal_proposal;
    cal_proposal.start(cal, setup.movable.size());
    std::vector<double> losses;
    double sum = 0.0;
    ProposalContext ctx{setup.initial, cal_cache, setup.movable, cal_proposal, cal};
    for (int i = 0; i < 4000 && losses.size() < 400; ++i) {
        const Candidate mv = propose<Moves>(ctx, setup.mix);
        const CandidateDelta d = evaluate(mv, setup.initial, cal_cache);
        if (d.feasible && d.delta < 0) {
            sum += static_cast<double>(-d.delta);
            losses.push_back(static_cast<double>(-d.delta));
        }
    }
    Temperatures t;
    t.samples = static_cast<int>(losses.size());
    std::sort(losses.begin(), losses.end());
    // The 5th percentile: with one or a few targets it is one smallest-weight unit on every
    // snapshot measured (the earlier rule), while the 10th is already 2 units on the generated
    // 200-host snapshot (hotter: 1956.1 vs 1956.4 over seeds 1-10); with 300 / 500 weighted
    // targets the 10th did better still and the 25th was too hot (docs/performance.md).
    t.small_loss = losses.empty() ? w_min : std::max(w_min, losses[(losses.size() - 1) / 20]);
    const double smallest = losses.empty() ? w_min : std::max(w_min, losses.front());
    t.start = losses.empty() ? w_min : std::max(w_min * 0.1, (sum / static_cast<double>(losses.size())) / std::log(1.0 / 0.3));
    if (!params.start.empty()) t.start = std::min(t.start, 0.3 * t.small_loss);
    if (params.initial_temperature > 0) t.start = params.initial_temperature * static_cast<double>(kScoreScale);
    t.end = smallest / 20.0;
    return t;
}

}  // namespace

SearchResult anneal(const CapacityModel& model, const SearchParams& params) {
    const auto t0 = Clock::now();
    SearchSetup setup(model, params);
    const auto& mix = setup.mix;
    const std::vector<int>& movable = setup.movable;
    const std::vector<char>& flavor_used = setup.flavor_used;
    const SearchState& initial = setup.initial;
    const Scorer scorer = setup.scorer;
    SearchResult res = setup.start_result(params);
    if (setup.nothing_to_search) return res;

    const Temperatures temps = calibrate_temperatures(setup, params);
    const double t_start = temps.start, t_ratio = std::min(1.0, temps.end / temps.start);
    if (!params.quiet)
        std::fprintf(stderr, "temperature %.6g -> %.6g objective units (%s; %d sampled worsening moves, small loss %.6g)\n",
                     temps.start / kScoreScale, temps.end / kScoreScale, params.initial_temperature > 0 ? "given" : "calibrated",
                     temps.samples, temps.small_loss / kScoreScale);

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
                if (delta.delta < 0 && done + e < per_worker / 10) ++wk.early_worsening;
            }
        });
        done += this_round;
        // Synchronisation point: share the best state in worker order (ties: lowest worker id).
        end_round(workers, params, t0, last_report, done, per_worker, res.objective_before, "annealing");
    }
    finish(res, workers, t0, out_of_time.load(), interrupted.load());
    for (const auto& wk : workers) {
        res.reheats += wk.reheats;
        res.early_worsening_accepted += wk.early_worsening;
    }
    res.temperature_start = temps.start / kScoreScale;
    res.temperature_end = temps.end / kScoreScale;
    if (!params.quiet) report_moves(workers);
    return res;
}

}  // namespace vmcap

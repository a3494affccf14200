#include "optimizer/annealing.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "moves/ejection.h"
#include "moves/exchange.h"
#include "moves/migrate.h"
#include "moves/move_cache.h"
#include "moves/remap.h"
#include "moves/swap.h"
#include "optimizer/rng.h"

namespace vmcap {

namespace {

using Clock = std::chrono::steady_clock;

/**
 * Search score: the weighted objective minus a tie-break penalty per migration, small enough that
 * all migrations of a budget together cost less than half of one unit of the smallest target
 * weight. So a plan never trades capacity for fewer migrations, but among equal capacities it
 * prefers fewer migrations (neutral moves that use budget are not kept at low temperature).
 */
struct Scorer {
    double eps = 0.0;
    double score(double objective, std::int64_t migrations) const { return objective - eps * static_cast<double>(migrations); }
};

/** Draws a candidate migrate move: mostly the next migratable VM of the worker's sweep (`cursor`
 *  walks the VM list cyclically from a random start; sequential, so the per-VM data streams
 *  through the CPU caches instead of costing a memory miss each) to a random other host;
 *  sometimes an already migrated VM (back home or elsewhere), so budget can be given back and
 *  reused. */
MigrateMove propose_migrate(const SearchState& s, const std::vector<int>& movable, std::size_t& cursor, Rng& rng) {
    const Problem& p = s.problem();
    const auto H = static_cast<std::uint64_t>(p.hosts.size());
    MigrateMove mv;
    const auto& mig = s.migrated_vms();
    if (!mig.empty() && rng.below(8) == 0) {
        mv.vm = mig[rng.below(mig.size())];
        if (rng.below(2) == 0 && p.vms[mv.vm].host != s.host_of(mv.vm)) {
            mv.host = p.vms[mv.vm].host;
            return mv;
        }
    } else {
        mv.vm = movable[cursor];
        if (++cursor == movable.size()) cursor = 0;
    }
    const int cur = s.host_of(mv.vm);
    int h = static_cast<int>(rng.below(H - 1));
    if (h >= cur) ++h;
    mv.host = h;
    return mv;
}

enum class Kind : int { Migrate = 0, Swap = 1, Remap = 2, Exchange = 3, Ejection = 4 };
constexpr int kKinds = 5;
constexpr const char* kKindName[kKinds] = {"migrate", "swap", "remap", "exchange", "ejection"};

/** One candidate of any move type (small PODs side by side; only the one of `kind` is used). */
struct Candidate {
    Kind kind = Kind::Migrate;
    MigrateMove migrate;
    SwapMove swap;
    RemapMove remap;
    ExchangeMove exchange;
    EjectionMove ejection;
};

/** evaluate() result of a Candidate, with the fields the acceptance test needs in front. */
struct CandidateDelta {
    bool feasible = false;
    double delta = 0.0;
    std::int64_t migrations_after = 0;
    MigrateDelta m;
    SwapDelta sw;
    RemapDelta r;
    ExchangeDelta x;
    EjectionDelta ej;
};

/**
 * Exact evaluation; migrate moves go through the worker's MoveCache (same result as the uncached
 * evaluate, see move_cache.h).
 */
CandidateDelta evaluate(const Candidate& c, const SearchState& s, MoveCache& cache) {
    CandidateDelta d;
    auto take = [&d](const auto& sub) {
        d.feasible = sub.feasible;
        d.delta = sub.delta;
        d.migrations_after = sub.migrations_after;
    };
    switch (c.kind) {
        case Kind::Migrate: d.m = evaluate_cached(c.migrate, s, cache); take(d.m); break;
        case Kind::Swap: d.sw = c.swap.evaluate(s); take(d.sw); break;
        case Kind::Remap: d.r = c.remap.evaluate(s); take(d.r); break;
        case Kind::Exchange: d.x = evaluate_cached(c.exchange, s, cache); take(d.x); break;
        case Kind::Ejection: d.ej = c.ejection.evaluate(s, cache); take(d.ej); break;
    }
    return d;
}

constexpr double kNoBound = std::numeric_limits<double>::infinity();

/**
 * Upper bound on the objective delta of a compound move (swap, exchange, ejection) from cached
 * halves, valid because VMCAP never grows when a VM is added to a host: the delta is at most the
 * sum of the removal deltas of the VMs that leave (when they leave different hosts), plus the
 * best-insertion delta on a destination no other part of the move touches. -infinity: the move is
 * infeasible; kNoBound: no cheap bound (evaluate exactly). Lets the annealing reject a move whose
 * bound is below its acceptance threshold without the full evaluation; the decision is the same
 * as with the exact delta.
 */
double upper_bound(const Candidate& c, const SearchState& s, MoveCache& cache) {
    const Problem& p = s.problem();
    switch (c.kind) {
        case Kind::Swap: {
            const SwapMove& m = c.swap;
            if (s.host_of(m.a) == s.host_of(m.b)) return kNoBound;
            return cache.removal(s, m.a) + cache.removal(s, m.b);
        }
        case Kind::Exchange: {
            const ExchangeMove& m = c.exchange;
            if (!s.is_migrated(m.a) || s.is_migrated(m.b)) return kNoBound;
            const int ha = s.host_of(m.a), hb = s.host_of(m.b), home = p.vms[m.a].host;
            if (ha == hb || m.host == hb) return kNoBound;
            if (ha != home && home != hb && m.host != home) return kNoBound;  // cheap exact evaluation from the cache
            double ub = cache.removal(s, m.a) + cache.removal(s, m.b);
            if (m.host != ha && m.host != home) {
                const Insertion& ins = cache.insertion(s, p.vms[m.b].flavor, m.host);
                if (ins.embedding < 0) return -kNoBound;
                ub += ins.delta;
            }
            return ub;
        }
        case Kind::Ejection: {
            const EjectionMove& m = c.ejection;
            const int ha = s.host_of(m.a), hb = s.host_of(m.b);
            if (ha == hb || m.host == hb) return kNoBound;
            double ub = cache.removal(s, m.a) + cache.removal(s, m.b);
            if (m.host != ha) {
                const Insertion& ins = cache.insertion(s, p.vms[m.b].flavor, m.host);
                if (ins.embedding < 0) return -kNoBound;
                ub += ins.delta;
            }
            return ub;
        }
        default: return kNoBound;
    }
}

void apply(const Candidate& c, SearchState& s, const CandidateDelta& d) {
    switch (c.kind) {
        case Kind::Migrate: c.migrate.apply(s, d.m); break;
        case Kind::Swap: c.swap.apply(s, d.sw); break;
        case Kind::Remap: c.remap.apply(s, d.r); break;
        case Kind::Exchange: c.exchange.apply(s, d.x); break;
        case Kind::Ejection: c.ejection.apply(s, d.ej); break;
    }
}

/** Cumulative move-mix thresholds on one uniform draw. */
struct Mix {
    double swap = 0.0, exchange = 0.0, remap = 0.0, ejection = 0.0;
};

/**
 * Draws a candidate by the mix. Swap: two random migratable VMs of different flavors on different
 * hosts. Exchange: a random migrated VM returns home while a random VM still on its snapshot
 * placement goes to a random host, half the time to the host the first one vacates (the room it
 * leaves is the likeliest use). Remap: a random migratable VM. Ejection: a random migratable VM
 * goes to the host of another, which is ejected to a random third host. A draw that finds no suitable pair
 * in a few tries (or no migrated VM) falls back to a migrate move, so every call yields one candidate.
 */
Candidate propose(const SearchState& s, const std::vector<int>& movable, const Mix& mix, std::size_t& cursor, Rng& rng) {
    const Problem& p = s.problem();
    const auto H = static_cast<std::uint64_t>(p.hosts.size());
    Candidate c;
    const double u = rng.uniform();
    if (u < mix.swap) {
        const int a = movable[rng.below(movable.size())];
        for (int t = 0; t < 4; ++t) {
            const int b = movable[rng.below(movable.size())];
            if (s.host_of(b) != s.host_of(a) && p.vms[b].flavor != p.vms[a].flavor) {
                c.kind = Kind::Swap;
                c.swap = SwapMove{a, b};
                return c;
            }
        }
    } else if (u < mix.exchange) {
        const auto& mig = s.migrated_vms();
        if (!mig.empty()) {
            const int a = mig[rng.below(mig.size())];
            for (int t = 0; t < 4; ++t) {
                const int b = movable[rng.below(movable.size())];
                if (b == a || s.is_migrated(b)) continue;
                const int hb = s.host_of(b);
                int h = s.host_of(a);
                if (rng.below(2) == 0 || h == hb) {
                    h = static_cast<int>(rng.below(H - 1));
                    if (h >= hb) ++h;
                }
                c.kind = Kind::Exchange;
                c.exchange = ExchangeMove{a, b, h};
                return c;
            }
        }
    } else if (u < mix.remap) {
        c.kind = Kind::Remap;
        c.remap = RemapMove{movable[rng.below(movable.size())]};
        return c;
    } else if (u < mix.ejection) {
        const int a = movable[rng.below(movable.size())];
        for (int t = 0; t < 4; ++t) {
            const int b = movable[rng.below(movable.size())];
            const int hb = s.host_of(b);
            if (hb == s.host_of(a)) continue;
            int h = static_cast<int>(rng.below(H - 1));
            if (h >= hb) ++h;
            c.kind = Kind::Ejection;
            c.ejection = EjectionMove{a, b, h};
            return c;
        }
    }
    c.kind = Kind::Migrate;
    c.migrate = propose_migrate(s, movable, cursor, rng);
    return c;
}

struct Worker {
    Worker(const SearchState& start, std::uint64_t seed, int id) : state(start), cache(state), rng(seed, static_cast<std::uint64_t>(id)) {}
    SearchState state;
    MoveCache cache;
    Rng rng;
    std::vector<Placement> best;
    double best_score = 0.0;
    double best_objective = 0.0;
    std::int64_t evaluations = 0;
    std::int64_t accepted = 0;
    std::int64_t since_check = 0;
    std::int64_t kind_evaluated[kKinds] = {}, kind_accepted[kKinds] = {}, kind_improved[kKinds] = {};
    std::int64_t bounded = 0;  ///< compound moves rejected by upper_bound() without full evaluation
    std::size_t cursor = 0;    ///< sweep position in the migratable VM list (propose_migrate)
};

}  // namespace

// 500 per migratable VM: swap / exchange / ejection evaluations cost about two migrate
// evaluations, so this keeps a 1000-host snapshot at ~25-30 s on one thread (stopped by the
// evaluation budget, hence reproducible) while still beating greedy (az1100 795, hw1000 2877).
std::int64_t default_evaluations(const Problem& problem) {
    std::int64_t movable = 0;
    for (const Vm& vm : problem.vms) movable += vm.migratable ? 1 : 0;
    return std::clamp<std::int64_t>(movable * 500, 1000000, 2000000000);
}

SearchResult anneal(const CapacityModel& model, const SearchParams& params) {
    const Problem& p = model.problem();
    if (params.threads < 1) throw std::invalid_argument("threads must be >= 1");
    if (params.time_limit_s <= 0) throw std::invalid_argument("time limit must be > 0 seconds");
    for (double q : {params.mix_swap, params.mix_exchange, params.mix_remap, params.mix_ejection})
        if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument("move mix probabilities must be in [0, 1]");
    if (params.mix_swap + params.mix_exchange + params.mix_remap + params.mix_ejection > 1.0 + 1e-12)
        throw std::invalid_argument("move mix probabilities (swap + exchange + remap + ejection) must sum to at most 1");
    Mix mix;
    mix.swap = params.mix_swap;
    mix.exchange = mix.swap + params.mix_exchange;
    mix.remap = mix.exchange + params.mix_remap;
    mix.ejection = mix.remap + params.mix_ejection;
    const auto t0 = Clock::now();
    SearchResult res;

    std::vector<int> movable;
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        if (p.vms[v].migratable) movable.push_back(static_cast<int>(v));

    SearchState initial(model);
    res.objective_before = initial.objective();
    if (!params.start.empty()) initial.set_placements(params.start);
    res.objective_best = initial.objective();
    res.best = params.start;
    if (movable.empty() || p.hosts.size() < 2 || model.num_targets() == 0 || p.constraints.max_migrations == 0) {
        res.stopped_by = "nothing to search";
        return res;
    }

    double w_min = 0.0;
    for (int j = 0; j < model.num_targets(); ++j)
        if (w_min == 0.0 || model.target_weight(j) < w_min) w_min = model.target_weight(j);
    const double max_mig = static_cast<double>(std::min<std::int64_t>(p.constraints.max_migrations, static_cast<std::int64_t>(movable.size())));
    const Scorer scorer{0.5 * w_min / (max_mig + 1.0)};

    // Temperature: geometric from T0 (a typical worsening move accepted with probability ~0.3)
    // to T1 (a loss of one smallest-weight unit accepted with probability ~e^-20).
    double t_start = w_min;
    {
        Rng cal(params.seed, 0xC0FFEEULL);
        MoveCache cal_cache(initial);
        std::size_t cal_cursor = cal.below(movable.size());
        double sum = 0.0;
        int n = 0;
        for (int i = 0; i < 4000 && n < 400; ++i) {
            const Candidate mv = propose(initial, movable, mix, cal_cursor, cal);
            const CandidateDelta d = evaluate(mv, initial, cal_cache);
            if (d.feasible && d.delta < 0) {
                sum += -d.delta;
                ++n;
            }
        }
        if (n > 0) t_start = std::max(w_min * 0.1, (sum / n) / std::log(1.0 / 0.3));
    }
    // From a given start (the greedy plan) polish instead of re-melting: a loss of one
    // smallest-weight unit is accepted with probability <= e^-3.3 at the start. Measured with the
    // compound moves: hw1000 2868 -> 2890 and az1100 795 -> 797 at the default length, bundled
    // example unchanged (128).
    if (!params.start.empty()) t_start = std::min(t_start, 0.3 * w_min);
    if (params.initial_temperature > 0) t_start = params.initial_temperature;
    const double t_end = w_min / 20.0;
    const double t_ratio = std::min(1.0, t_end / t_start);

    const std::int64_t total = params.max_evaluations > 0 ? params.max_evaluations : default_evaluations(p);
    const int W = params.threads;
    const std::int64_t per_worker = std::max<std::int64_t>(1, total / W);
    const std::int64_t round = params.round_evaluations > 0 ? params.round_evaluations
                                                            : std::clamp<std::int64_t>(per_worker / 50, 2000, 2000000);

    std::vector<Worker> workers;
    workers.reserve(W);
    for (int w = 0; w < W; ++w) {
        workers.emplace_back(initial, params.seed, w + 1);
        workers.back().best = params.start;
        workers.back().cursor = workers.back().rng.below(movable.size());
        workers.back().best_score = scorer.score(initial.objective(), initial.migrations());
        workers.back().best_objective = initial.objective();
    }

    std::atomic<bool> out_of_time{false};
    const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(params.time_limit_s));
    tbb::task_arena arena(W);
    std::int64_t done = 0;  // evaluations per worker completed in earlier rounds
    auto last_report = t0;
    while (done < per_worker && !out_of_time.load()) {
        const std::int64_t this_round = std::min(round, per_worker - done);
        arena.execute([&] {
            tbb::parallel_for(0, W, 1, [&](int w) {
                Worker& wk = workers[w];
                SearchState& s = wk.state;
                double temp = t_start;
                for (std::int64_t e = 0; e < this_round; ++e) {
                    if ((e & 255) == 0) {
                        // The temperature changes by < 0.1% per 256 evaluations of a run of
                        // >= 10^5 per worker; one pow per block instead of one per evaluation.
                        if ((e & 1023) == 0 && Clock::now() > deadline) {
                            out_of_time.store(true);
                            break;
                        }
                        const double progress = static_cast<double>(done + e) / static_cast<double>(per_worker);
                        temp = t_start * std::pow(t_ratio, progress);
                    }
                    const Candidate mv = propose(s, movable, mix, wk.cursor, wk.rng);
                    ++wk.evaluations;
                    const int kind = static_cast<int>(mv.kind);
                    ++wk.kind_evaluated[kind];
                    CandidateDelta d;
                    double ds = 0.0;
                    if (mv.kind == Kind::Migrate || mv.kind == Kind::Remap) {
                        d = evaluate(mv, s, wk.cache);
                        if (!d.feasible) continue;
                        ds = d.delta - scorer.eps * static_cast<double>(d.migrations_after - s.migrations());
                        if (ds < 0 && wk.rng.uniform() >= std::exp(ds / temp)) continue;
                    } else {
                        // Threshold first: accept iff ds >= temp x ln(u). A move whose cached
                        // upper bound (+ the largest possible migration tie-break refund, 2 eps)
                        // is below it is rejected exactly without the full evaluation.
                        const double threshold = temp * std::log(wk.rng.uniform());
                        const double ub = upper_bound(mv, s, wk.cache);
                        if (ub + 2.0 * scorer.eps + 1e-9 < threshold) {
                            ++wk.bounded;
                            continue;
                        }
                        d = evaluate(mv, s, wk.cache);
                        if (!d.feasible) continue;
                        ds = d.delta - scorer.eps * static_cast<double>(d.migrations_after - s.migrations());
                        if (ds < threshold) continue;
                    }
                    apply(mv, s, d);
                    ++wk.accepted;
                    ++wk.kind_accepted[kind];
                    if (d.delta > 0) ++wk.kind_improved[kind];
                    if (params.check_every > 0 && ++wk.since_check >= params.check_every) {
                        wk.since_check = 0;
                        s.check_consistency();
                    }
                    const double sc = scorer.score(s.objective(), s.migrations());
                    if (sc > wk.best_score) {
                        wk.best_score = sc;
                        wk.best_objective = s.objective();
                        wk.best = s.migrated_placements();
                    }
                }
            });
        });
        done += this_round;
        // Synchronisation point: share the best state in worker order (ties: lowest worker id).
        int bw = 0;
        for (int w = 1; w < W; ++w)
            if (workers[w].best_score > workers[bw].best_score) bw = w;
        for (int w = 0; w < W; ++w)
            if (w != bw && workers[w].best_score < workers[bw].best_score) {
                workers[w].best = workers[bw].best;
                workers[w].best_score = workers[bw].best_score;
                workers[w].best_objective = workers[bw].best_objective;
                workers[w].state.set_placements(workers[w].best);
            }
        const auto now = Clock::now();
        if (!params.quiet && (now - last_report > std::chrono::seconds(2) || done >= per_worker)) {
            last_report = now;
            std::int64_t ev = 0;
            for (const auto& wk : workers) ev += wk.evaluations;
            const double secs = std::chrono::duration<double>(now - t0).count();
            std::fprintf(stderr, "[%6.1fs] %5.1f%%  objective %.6g (start %.6g)  migrations %lld  %.2f M evals/s\n", secs,
                         100.0 * static_cast<double>(done) / static_cast<double>(per_worker), workers[bw].best_objective,
                         res.objective_before, static_cast<long long>(workers[bw].best.size()), static_cast<double>(ev) / secs / 1e6);
        }
    }
    int bw = 0;
    for (int w = 1; w < W; ++w)
        if (workers[w].best_score > workers[bw].best_score) bw = w;
    res.best = workers[bw].best;
    res.objective_best = workers[bw].best_objective;
    for (const auto& wk : workers) {
        res.evaluations += wk.evaluations;
        res.accepted += wk.accepted;
    }
    res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!params.quiet) {
        std::fprintf(stderr, "moves (evaluated / accepted / improving):");
        for (int k = 0; k < kKinds; ++k) {
            std::int64_t ev = 0, acc = 0, imp = 0;
            for (const auto& wk : workers) {
                ev += wk.kind_evaluated[k];
                acc += wk.kind_accepted[k];
                imp += wk.kind_improved[k];
            }
            std::fprintf(stderr, "  %s %lld / %lld / %lld", kKindName[k], static_cast<long long>(ev), static_cast<long long>(acc),
                         static_cast<long long>(imp));
        }
        std::int64_t bounded = 0, hits = 0, misses = 0;
        for (const auto& wk : workers) {
            bounded += wk.bounded;
            hits += wk.cache.hits();
            misses += wk.cache.misses();
        }
        std::fprintf(stderr, "\ncompound moves rejected by their cached bound: %lld; move cache hits %lld, misses %lld\n",
                     static_cast<long long>(bounded), static_cast<long long>(hits), static_cast<long long>(misses));
    }
    res.stopped_by = out_of_time.load() ? "time limit" : "evaluation budget";
    return res;
}

}  // namespace vmcap

#pragma once
/**
 * @file candidates.h
 * Candidate moves shared by the search drivers (annealing.cpp, tabu.cpp): one tagged value of
 * any move type, its proposal from the move mix, exact evaluation through the worker's
 * MoveCache, cheap upper bounds for compound moves, and apply. Internal to optimizer/.
 */
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "moves/ejection.h"
#include "moves/exchange.h"
#include "moves/migrate.h"
#include "moves/move_cache.h"
#include "moves/remap.h"
#include "moves/return_move.h"
#include "moves/swap.h"
#include "optimizer/annealing.h"
#include "optimizer/rng.h"

namespace vmcap::search_detail {


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

/**
 * Per-worker proposal state: the sweep position over the migratable VMs and, per flavor, a
 * candidate list of destination hosts: the kDestinations hosts with the largest cached
 * best-insertion delta (the hosts that absorb a VM of the flavor at the least capacity cost),
 * rebuilt at every synchronisation point (counted work, so deterministic). Half of the migrate
 * proposals draw their destination from it, so the search spends its evaluations where moves can
 * pay; the other half stay uniform so every host remains reachable.
 */
struct Proposal {
    static constexpr int kDestinations = 64;
    std::size_t cursor = 0;   ///< migrate sweep: next index into the migratable VMs
    std::vector<std::vector<int>> dest;  ///< [flavor]: candidate destination hosts (may be empty)

    /** Random start position of the sweep over `n` migratable VMs (n > 0). */
    void start(Rng& rng, std::size_t n) { cursor = rng.below(n); }

    /**
     * A uniformly random migratable VM, drawn kAhead calls in advance: its index into `movable` is
     * drawn 2 x kAhead calls before it is returned (and that entry of `movable` prefetched), the
     * VM read kAhead calls before (and its per-VM search data prefetched). On a 300,000-VM
     * snapshot a VM drawn at the moment of use costs several dependent memory misses (the
     * compound moves' partners were ~15% of the run); this way the misses overlap with the
     * work of the calls in between. Deterministic: the draws come from the worker's RNG in call
     * order. Equivalent in distribution to movable[rng.below(n)].
     */
    int random_vm(const SearchState& s, const MoveCache& cache, const std::vector<int>& movable, Rng& rng) {
        const auto n = static_cast<std::uint64_t>(movable.size());
        if (!primed_) {
            for (int i = 0; i < kAhead; ++i) {
                vm_[i] = movable[rng.below(n)];
                idx_[i] = static_cast<std::uint32_t>(rng.below(n));
            }
            primed_ = true;
        }
        const int out = vm_[pos_];
        vm_[pos_] = movable[idx_[pos_]];
        s.prefetch_vm(vm_[pos_]);
        cache.prefetch_removal(vm_[pos_]);
        idx_[pos_] = static_cast<std::uint32_t>(rng.below(n));
        __builtin_prefetch(movable.data() + idx_[pos_]);
        pos_ = (pos_ + 1) % kAhead;
        return out;
    }

    /** Rebuilds `dest` from the cache for every flavor with migratable VMs. O(flavors x hosts). */
    void refresh(const SearchState& s, MoveCache& cache, const std::vector<char>& flavor_used) {
        const Problem& p = s.problem();
        const int H = static_cast<int>(p.hosts.size());
        dest.assign(p.flavors.size(), {});
        std::vector<std::pair<double, int>> v;
        for (std::size_t f = 0; f < p.flavors.size(); ++f) {
            if (!flavor_used[f]) continue;
            v.clear();
            for (int h = 0; h < H; ++h) {
                const Insertion& ins = cache.insertion(s, static_cast<int>(f), h);
                if (ins.embedding >= 0) v.emplace_back(-ins.delta, h);  // ascending = best first; ties: lower host
            }
            const std::size_t k = std::min<std::size_t>(kDestinations, v.size());
            std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
            for (std::size_t i = 0; i < k; ++i) dest[f].push_back(v[i].second);
        }
    }

private:
    static constexpr int kAhead = 8;
    bool primed_ = false;
    int pos_ = 0;
    int vm_[kAhead] = {};               ///< VMs to return, their data prefetched
    std::uint32_t idx_[kAhead] = {};    ///< movable indices drawn ahead, their entry prefetched
};

/** Draws a candidate migrate move: mostly the next migratable VM of the worker's sweep
 *  (`pr.cursor` walks the VM list cyclically from a random start; sequential, so the per-VM data
 *  streams through the CPU caches instead of costing a memory miss each), 1 in 8 an already
 *  migrated VM (half of those to its snapshot host, on the best nodes there, so budget can be
 *  given back and reused); otherwise the destination is half the time from the flavor's
 *  candidate list, else uniform among the other hosts. */
inline MigrateMove propose_migrate(const SearchState& s, const std::vector<int>& movable, Proposal& pr, Rng& rng) {
    const Problem& p = s.problem();
    const auto H = static_cast<std::uint64_t>(p.hosts.size());
    MigrateMove mv;
    const auto& mig = s.migrated_vms();
    if (!mig.empty() && rng.below(8) == 0) {
        mv.vm = mig[rng.below(mig.size())];
        if (rng.below(2) == 0 && s.origin_of(mv.vm) != s.host_of(mv.vm)) {
            mv.host = s.origin_of(mv.vm);  // home, on the best nodes there
            return mv;
        }
    } else {
        mv.vm = movable[pr.cursor];
        if (++pr.cursor == movable.size()) pr.cursor = 0;
    }
    const int cur = s.host_of(mv.vm);
    const int f = s.flavor_of(mv.vm);
    if (static_cast<std::size_t>(f) < pr.dest.size() && !pr.dest[f].empty() && rng.below(2) == 0) {
        const int h = pr.dest[f][rng.below(pr.dest[f].size())];
        if (h != cur) {
            mv.host = h;
            return mv;
        }
    }
    int h = static_cast<int>(rng.below(H - 1));
    if (h >= cur) ++h;
    mv.host = h;
    return mv;
}

enum class Kind : int { Migrate = 0, Swap = 1, Remap = 2, Exchange = 3, Ejection = 4, Return = 5 };
constexpr int kKinds = 6;
constexpr const char* kKindName[kKinds] = {"migrate", "swap", "remap", "exchange", "ejection", "return"};

/** One candidate of any move type (small PODs side by side; only the one of `kind` is used). */
struct Candidate {
    Kind kind = Kind::Migrate;
    MigrateMove migrate;
    SwapMove swap;
    RemapMove remap;
    ExchangeMove exchange;
    EjectionMove ejection;
    ReturnMove ret;
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
    ReturnDelta rt;
};

/**
 * Exact evaluation into `d` (only the common fields and the sub-delta of c.kind are written:
 * the annealing loop reuses one CandidateDelta instead of building and copying the whole struct
 * per candidate, which cost ~15% of a 10k-host run in store-forwarding stalls); migrate,
 * exchange, ejection and return moves go through the worker's MoveCache (same result as the
 * uncached evaluate, see move_cache.h).
 */
inline void evaluate(const Candidate& c, const SearchState& s, MoveCache& cache, CandidateDelta& d) {
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
        case Kind::Return: d.rt = c.ret.evaluate(s, cache); take(d.rt); break;
    }
}

/** evaluate() into a fresh CandidateDelta. */
inline CandidateDelta evaluate(const Candidate& c, const SearchState& s, MoveCache& cache) {
    CandidateDelta d;
    evaluate(c, s, cache, d);
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
inline double upper_bound(const Candidate& c, const SearchState& s, MoveCache& cache) {
    switch (c.kind) {
        case Kind::Swap: {
            const SwapMove& m = c.swap;
            if (s.host_of(m.a) == s.host_of(m.b)) return kNoBound;
            if (!m.budget_admits(s)) return -kNoBound;
            return cache.removal(s, m.a) + cache.removal(s, m.b);
        }
        case Kind::Exchange: {
            const ExchangeMove& m = c.exchange;
            if (!s.is_migrated(m.a) || s.is_migrated(m.b)) return kNoBound;
            const int ha = s.host_of(m.a), hb = s.host_of(m.b), home = s.origin_of(m.a);
            if (ha == hb || m.host == hb) return kNoBound;
            const bool distinct = ha != home && home != hb;
            if (distinct && m.host != home && m.host != ha) return kNoBound;  // exact from the cache anyway
            double ub = cache.removal(s, m.a) + cache.removal(s, m.b);
            if (distinct && m.host != home) {
                // a's snapshot host changes only by a's return: exactly its cached delta.
                const MoveCache::Return& ret = cache.return_home(s, m.a);
                if (!ret.fits) return -kNoBound;
                ub += ret.delta;
            }
            if (m.host != ha && m.host != home) {
                const Insertion& ins = cache.insertion(s, s.flavor_of(m.b), m.host);
                if (ins.embedding < 0) return -kNoBound;
                ub += ins.delta;
            }
            return ub;
        }
        case Kind::Ejection: {
            const EjectionMove& m = c.ejection;
            const int ha = s.host_of(m.a), hb = s.host_of(m.b);
            if (ha == hb || m.host == hb) return kNoBound;
            if (!m.budget_admits(s)) return -kNoBound;
            double ub = cache.removal(s, m.a) + cache.removal(s, m.b);
            if (m.host != ha) {
                const Insertion& ins = cache.insertion(s, s.flavor_of(m.b), m.host);
                if (ins.embedding < 0) return -kNoBound;
                ub += ins.delta;
            }
            return ub;
        }
        default: return kNoBound;
    }
}

inline void apply(const Candidate& c, SearchState& s, const CandidateDelta& d) {
    switch (c.kind) {
        case Kind::Migrate: c.migrate.apply(s, d.m); break;
        case Kind::Swap: c.swap.apply(s, d.sw); break;
        case Kind::Remap: c.remap.apply(s, d.r); break;
        case Kind::Exchange: c.exchange.apply(s, d.x); break;
        case Kind::Ejection: c.ejection.apply(s, d.ej); break;
        case Kind::Return: c.ret.apply(s, d.rt); break;
    }
}

/** Cumulative move-mix thresholds on one uniform draw. */
struct Mix {
    double swap = 0.0, exchange = 0.0, remap = 0.0, ret = 0.0, ejection = 0.0;
};

/**
 * Draws a candidate by the mix. Swap: two random migratable VMs of different flavors on different
 * hosts. Exchange: a random migrated VM returns home while a random VM still on its snapshot
 * placement goes to the host the first one vacates half the time (the room it leaves is the
 * likeliest use), else a quarter each to a host of its flavor's destination list or a uniform one
 * (az1100 seeds 1-6 average 798.3 vs 796.3 all-uniform, hw1000 seeds 1-3 2887.7 vs 2880.3). Random VMs come from Proposal::random_vm (drawn ahead, prefetched);
 * not from a sweep: consecutive VMs share a host, and exchange partners drawn in that order cost
 * quality (az1100: 791 on four seeds vs 797-801). Remap: a random migratable VM. Ejection: a random migratable VM
 * goes to the host of another, which is ejected to a random third host. A draw that finds no suitable pair
 * in a few tries (or no migrated VM) falls back to a migrate move, so every call yields one candidate.
 */
inline Candidate propose(const SearchState& s, const MoveCache& cache, const std::vector<int>& movable, const Mix& mix, Proposal& pr,
                         Rng& rng) {
    const Problem& p = s.problem();
    const auto H = static_cast<std::uint64_t>(p.hosts.size());
    Candidate c;
    const double u = rng.uniform();
    if (u < mix.swap) {
        const int a = pr.random_vm(s, cache, movable, rng);
        for (int t = 0; t < 4; ++t) {
            const int b = pr.random_vm(s, cache, movable, rng);
            if (s.host_of(b) != s.host_of(a) && s.flavor_of(b) != s.flavor_of(a)) {
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
                const int b = pr.random_vm(s, cache, movable, rng);
                if (b == a || s.is_migrated(b)) continue;
                const int hb = s.host_of(b);
                int h = s.host_of(a);
                const std::uint64_t r = rng.below(4);
                if (r >= 2 || h == hb) {
                    const int f = s.flavor_of(b);
                    h = -1;
                    if (r == 2 && static_cast<std::size_t>(f) < pr.dest.size() && !pr.dest[f].empty()) h = pr.dest[f][rng.below(pr.dest[f].size())];
                    if (h < 0 || h == hb) {
                        h = static_cast<int>(rng.below(H - 1));
                        if (h >= hb) ++h;
                    }
                }
                c.kind = Kind::Exchange;
                c.exchange = ExchangeMove{a, b, h};
                return c;
            }
        }
    } else if (u < mix.remap) {
        c.kind = Kind::Remap;
        c.remap = RemapMove{pr.random_vm(s, cache, movable, rng)};
        return c;
    } else if (u < mix.ret) {
        const auto& mig = s.migrated_vms();
        if (!mig.empty()) {
            c.kind = Kind::Return;
            c.ret = ReturnMove{mig[rng.below(mig.size())]};
            return c;
        }
    } else if (u < mix.ejection) {
        const int a = pr.random_vm(s, cache, movable, rng);
        for (int t = 0; t < 4; ++t) {
            const int b = pr.random_vm(s, cache, movable, rng);
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
    c.migrate = propose_migrate(s, movable, pr, rng);
    return c;
}

/**
 * What both drivers derive from (model, params) before searching: validated parameters (throws
 * std::invalid_argument on threads < 1, a non-positive time limit or a bad move mix), the move-mix
 * thresholds, the migratable VMs and their flavors, the start state, the migration tie-break and
 * the run's length per worker. `nothing_to_search` is set when no move can exist.
 */
struct SearchSetup {
    Mix mix;
    std::vector<int> movable;
    std::vector<char> flavor_used;  ///< [flavor]: has a migratable VM
    SearchState initial;            ///< the snapshot with params.start applied
    double objective_before = 0.0;  ///< of the snapshot
    double w_min = 0.0;             ///< smallest target weight
    Scorer scorer;
    bool nothing_to_search = false;
    std::int64_t per_worker = 0, round = 0;

    SearchSetup(const CapacityModel& model, const SearchParams& params) : initial(model) {
        const Problem& p = model.problem();
        if (params.threads < 1) throw std::invalid_argument("threads must be >= 1");
        if (params.time_limit_s <= 0) throw std::invalid_argument("time limit must be > 0 seconds");
        for (double q : {params.mix_swap, params.mix_exchange, params.mix_remap, params.mix_return, params.mix_ejection})
            if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument("move mix probabilities must be in [0, 1]");
        if (params.mix_swap + params.mix_exchange + params.mix_remap + params.mix_return + params.mix_ejection > 1.0 + 1e-12)
            throw std::invalid_argument("move mix probabilities (swap + exchange + remap + return + ejection) must sum to at most 1");
        mix.swap = params.mix_swap;
        mix.exchange = mix.swap + params.mix_exchange;
        mix.remap = mix.exchange + params.mix_remap;
        mix.ret = mix.remap + params.mix_return;
        mix.ejection = mix.ret + params.mix_ejection;
        flavor_used.assign(p.flavors.size(), 0);
        for (std::size_t v = 0; v < p.vms.size(); ++v)
            if (p.vms[v].migratable) {
                movable.push_back(static_cast<int>(v));
                flavor_used[p.vms[v].flavor] = 1;
            }
        objective_before = initial.objective();
        if (!params.start.empty()) initial.set_placements(params.start);
        nothing_to_search = movable.empty() || p.hosts.size() < 2 || model.num_targets() == 0 || p.constraints.max_migrations == 0;
        for (int j = 0; j < model.num_targets(); ++j)
            if (w_min == 0.0 || model.target_weight(j) < w_min) w_min = model.target_weight(j);
        const double max_mig = static_cast<double>(std::min<std::int64_t>(p.constraints.max_migrations, static_cast<std::int64_t>(movable.size())));
        scorer = Scorer{0.5 * w_min / (max_mig + 1.0)};
        const std::int64_t total = params.max_evaluations > 0 ? params.max_evaluations : default_evaluations(p);
        per_worker = std::max<std::int64_t>(1, total / params.threads);
        round = params.round_evaluations > 0 ? params.round_evaluations : std::clamp<std::int64_t>(per_worker / 50, 2000, 20000000);
    }

    /** The result before any search: the snapshot's objective, the start plan (params.start) and
     *  its objective; stopped_by "nothing to search" when nothing_to_search. */
    SearchResult start_result(const SearchParams& params) const {
        SearchResult res;
        res.objective_before = objective_before;
        res.objective_best = initial.objective();
        res.best = params.start;
        if (nothing_to_search) res.stopped_by = "nothing to search";
        return res;
    }
};

/**
 * After a move was applied to `wk.state`: the --check recomputation every `check_every` applied
 * moves (throws std::logic_error on a difference), then the worker's best state if the score
 * improved. Returns whether it did. W has state, since_check, best, best_score, best_objective.
 */
template <class W>
bool after_apply(W& wk, std::int64_t check_every, const Scorer& scorer) {
    SearchState& s = wk.state;
    if (check_every > 0 && ++wk.since_check >= check_every) {
        wk.since_check = 0;
        s.check_consistency();
    }
    const double sc = scorer.score(s.objective(), s.migrations());
    if (sc <= wk.best_score) return false;
    wk.best_score = sc;
    wk.best_objective = s.objective();
    wk.best = s.migrated_placements();
    return true;
}

/** Index of the worker with the best score (ties: lowest id). W has best_score. */
template <class W>
int best_worker(const std::vector<W>& workers) {
    int bw = 0;
    for (int w = 1; w < static_cast<int>(workers.size()); ++w)
        if (workers[w].best_score > workers[bw].best_score) bw = w;
    return bw;
}

/**
 * Synchronisation point of the parallel drivers: every worker behind the best (ties: lowest
 * worker id) adopts its best state and restarts from it. Deterministic (worker order only).
 * Returns the best worker's index. W has best, best_score, best_objective and state.
 */
template <class W>
int share_best(std::vector<W>& workers) {
    const int bw = best_worker(workers);
    for (int w = 0; w < static_cast<int>(workers.size()); ++w)
        if (w != bw && workers[w].best_score < workers[bw].best_score) {
            workers[w].best = workers[bw].best;
            workers[w].best_score = workers[bw].best_score;
            workers[w].best_objective = workers[bw].best_objective;
            workers[w].state.set_placements(workers[w].best);
        }
    return bw;
}

/** One progress line on stderr: elapsed seconds, share of the run done, best objective, its
 *  migrations and the evaluation rate of all workers so far. */
template <class W>
void report_progress(const std::vector<W>& workers, int bw, double seconds, double done_fraction, double objective_before,
                     const char* driver) {
    std::int64_t ev = 0;
    for (const auto& wk : workers) ev += wk.evaluations;
    std::fprintf(stderr, "[%6.1fs] %5.1f%%  objective %.6g (start %.6g)  migrations %lld  %.2f M evals/s (%s)\n", seconds,
                 100.0 * done_fraction, workers[bw].best_objective, objective_before,
                 static_cast<long long>(workers[bw].best.size()), static_cast<double>(ev) / seconds / 1e6, driver);
}

/**
 * The end of a round of the parallel drivers: the synchronisation point (share_best), then a
 * progress line on stderr unless params.quiet, at most every 2 s and at the end of the run.
 * Returns the best worker's index. `last_report` is the time of the last line (updated).
 */
template <class W>
int end_round(std::vector<W>& workers, const SearchParams& params, std::chrono::steady_clock::time_point t0,
              std::chrono::steady_clock::time_point& last_report, std::int64_t done, std::int64_t per_worker, double objective_before,
              const char* driver) {
    const int bw = share_best(workers);
    const auto now = std::chrono::steady_clock::now();
    if (!params.quiet && (now - last_report > std::chrono::seconds(2) || done >= per_worker)) {
        last_report = now;
        report_progress(workers, bw, std::chrono::duration<double>(now - t0).count(),
                        static_cast<double>(done) / static_cast<double>(per_worker), objective_before, driver);
    }
    return bw;
}

/** Fills `res` at the end of a parallel run: the best worker's plan and objective (ties: lowest
 *  id), all workers' evaluations and accepted moves, seconds since t0 and why the run stopped.
 *  W has best, best_score, best_objective, evaluations and accepted. */
template <class W>
void finish(SearchResult& res, const std::vector<W>& workers, std::chrono::steady_clock::time_point t0, bool out_of_time) {
    const int bw = best_worker(workers);
    res.best = workers[bw].best;
    res.objective_best = workers[bw].best_objective;
    for (const auto& wk : workers) {
        res.evaluations += wk.evaluations;
        res.accepted += wk.accepted;
    }
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    res.stopped_by = out_of_time ? "time limit" : "evaluation budget";
}

}  // namespace vmcap::search_detail

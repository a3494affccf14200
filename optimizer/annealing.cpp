#include "optimizer/annealing.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "moves/migrate.h"
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

struct Worker {
    Worker(const SearchState& start, std::uint64_t seed, int id) : state(start), rng(seed, static_cast<std::uint64_t>(id)) {}
    SearchState state;
    Rng rng;
    std::vector<Placement> best;
    double best_score = 0.0;
    double best_objective = 0.0;
    std::int64_t evaluations = 0;
    std::int64_t accepted = 0;
    std::int64_t since_check = 0;
};

/** Draws a candidate migrate move: mostly a random migratable VM to a random other host; sometimes
 *  an already migrated VM (back home or elsewhere), so budget can be given back and reused. */
MigrateMove propose(const SearchState& s, const std::vector<int>& movable, Rng& rng) {
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
        mv.vm = movable[rng.below(movable.size())];
    }
    const int cur = s.host_of(mv.vm);
    int h = static_cast<int>(rng.below(H - 1));
    if (h >= cur) ++h;
    mv.host = h;
    return mv;
}

}  // namespace

std::int64_t default_evaluations(const Problem& problem) {
    std::int64_t movable = 0;
    for (const Vm& vm : problem.vms) movable += vm.migratable ? 1 : 0;
    return std::clamp<std::int64_t>(movable * 1000, 1000000, 2000000000);
}

SearchResult anneal(const CapacityModel& model, const SearchParams& params) {
    const Problem& p = model.problem();
    if (params.threads < 1) throw std::invalid_argument("threads must be >= 1");
    if (params.time_limit_s <= 0) throw std::invalid_argument("time limit must be > 0 seconds");
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
        double sum = 0.0;
        int n = 0;
        for (int i = 0; i < 4000 && n < 400; ++i) {
            MigrateMove mv = propose(initial, movable, cal);
            MigrateDelta d = mv.evaluate(initial);
            if (d.feasible && d.delta < 0) {
                sum += -d.delta;
                ++n;
            }
        }
        if (n > 0) t_start = std::max(w_min * 0.1, (sum / n) / std::log(1.0 / 0.3));
    }
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
                for (std::int64_t e = 0; e < this_round; ++e) {
                    if ((e & 1023) == 0 && Clock::now() > deadline) {
                        out_of_time.store(true);
                        break;
                    }
                    const double progress = static_cast<double>(done + e) / static_cast<double>(per_worker);
                    const double temp = t_start * std::pow(t_ratio, progress);
                    const MigrateMove mv = propose(s, movable, wk.rng);
                    const MigrateDelta d = mv.evaluate(s);
                    ++wk.evaluations;
                    if (!d.feasible) continue;
                    const double ds = d.delta - scorer.eps * static_cast<double>(d.migrations_after - s.migrations());
                    if (ds < 0 && wk.rng.uniform() >= std::exp(ds / temp)) continue;
                    mv.apply(s, d);
                    ++wk.accepted;
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
    res.stopped_by = out_of_time.load() ? "time limit" : "evaluation budget";
    return res;
}

}  // namespace vmcap

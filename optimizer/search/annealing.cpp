#include "optimizer/search/annealing.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include "optimizer/search/candidates.h"
#include "optimizer/search/fork_join.h"
#include "optimizer/search/progress.h"

namespace vmcap {

namespace {

using Clock = std::chrono::steady_clock;

using namespace search_detail;

// Workers sit side by side in a vector and each writes its counters and proposal ring on every
// evaluation: aligned to 128 bytes (two cache lines, the adjacent-line prefetch unit) so that one
// worker's writes never invalidate the lines holding the other's state (false sharing).
struct alignas(128) Worker {
    Worker(const SearchState& start, std::uint64_t seed, int id, bool value_memo)
        : state(start),
          cache(state),
          rng(seed, static_cast<std::uint64_t>(id)),
          memo(value_memo ? HostValueMemo::make_if_useful(start.model()) : nullptr) {
        state.use_value_memo(memo.get());
    }
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
    Proposal proposal;                  ///< sweep position and destination candidate lists (moves/proposal.h)
    std::int64_t last_improvement = 0;  ///< per-worker evaluation count at the last new best (or reheat)
    double boost = 1.0;                 ///< temperature multiplier after a reheat (decays to 1)
    std::int64_t reheats = 0;
    std::int64_t early_worsening = 0;  ///< moves with a negative delta accepted in the first tenth of the run
    std::int64_t round_done = 0;       ///< evaluations of the current round (fewer when it ended early)
    bool proven = false;               ///< chains: the worker's best met SearchParams::bound_score
    // Host regions (anneal_regions) only:
    std::vector<int> movable;     ///< migratable VMs on the worker's region at the round's start
    std::vector<Placement> undo;  ///< placements before each move applied since the round's best (oldest first)
    /** The region's migrated VMs (mig[0]) and those of them whose snapshot host is in the region
     *  too (mig[1]), each with its members' positions ([vm] -> index or -1), kept current. */
    std::vector<int> mig[2];
    std::vector<int> mig_pos[2];
    std::unique_ptr<HostValueMemo> memo;  ///< the state's host-value memo (many targets only); declared last, attached in the constructor
};

/** Puts `vm` in or out of worker list `which` (Worker::mig) in O(1). */
void set_member(Worker& wk, int which, int vm, bool in) {
    std::vector<int>& list = wk.mig[which];
    std::vector<int>& pos = wk.mig_pos[which];
    if (in == (pos[vm] >= 0)) return;
    if (in) {
        pos[vm] = static_cast<int>(list.size());
        list.push_back(vm);
    } else {
        const int i = pos[vm];
        list[i] = list.back();
        pos[list[i]] = i;
        list.pop_back();
        pos[vm] = -1;
    }
}

/**
 * The temperature schedule: geometric from t_start to t_start x t_ratio over the run's progress
 * (RunProgress: the share of the evaluation budget done, or, when the budget is out of reach of
 * the time limit, a share that the clock drives), times a reheat boost. A worker whose best has
 * not improved for a tenth of the run's expected length (at least 50,000 evaluations) multiplies
 * the temperature by `reheat` (capped at the start temperature); the boost decays by 2% per
 * 256-evaluation block, so it fades after ~100k evaluations. Evaluation-driven, counted work
 * only: deterministic. A clock-driven run starved of evaluations (RunProgress::heat() > 1) starts
 * from t_start x heat, at most t_melt (and never below t_start), the whole ladder scaled with it.
 */
struct Schedule {
    double t_start = 1.0, t_ratio = 1.0, reheat = 1.0;
    double t_melt = 1.0;  ///< the hottest start a starved run may use (calibrate_temperatures)

    /** The start temperature of the ladder for the run's current plan. */
    double top(const RunProgress& progress) const { return std::max(t_start, std::min(t_melt, t_start * progress.heat())); }

    /** Evaluations without a new best after which a worker reheats. */
    static std::int64_t reheat_after(const RunProgress& progress) { return std::max<std::int64_t>(50000, progress.run_length() / 10); }

    /** Temperature for the block starting at the worker's evaluation `at` (called every 256
     *  evaluations: the temperature changes by < 0.1% per block of a run of >= 10^5, so one pow
     *  per block instead of one per evaluation). Updates the worker's reheat state. */
    double temperature(Worker& wk, std::int64_t at, const RunProgress& progress) const {
        if (reheat > 1.0 && at - wk.last_improvement > reheat_after(progress)) {
            wk.boost = reheat;
            wk.last_improvement = at;
            ++wk.reheats;
        }
        const double t0 = top(progress);
        const double t = std::min(t0, t0 * std::pow(t_ratio, progress.progress(at)) * wk.boost);
        wk.boost = std::max(1.0, wk.boost * 0.98);
        return t;
    }
};

/**
 * What the workers of a round share of the run's clock: the progress rule (changed only at
 * synchronisation points), the deadline, and the flags by which a worker ends the run (time
 * limit, interrupt) or the round (the budget found out of reach: the clock is to drive from the
 * next synchronisation point, for every worker at once).
 */
struct RunControl {
    RunControl(std::int64_t per_worker, std::int64_t reference, const SearchParams& params, Clock::time_point start)
        : progress(per_worker, params.time_limit_s, reference), t0(start), deadline(deadline_after(start, params.time_limit_s)) {}
    RunProgress progress;
    const Clock::time_point t0, deadline;
    double first_s = 0.0;  ///< seconds from t0 to the first evaluation (begin())
    std::atomic<bool> out_of_time{false}, interrupted{false}, switch_to_clock{false};

    double elapsed() const { return std::chrono::duration<double>(Clock::now() - t0).count(); }
    /** Before the first round. */
    void begin() { first_s = elapsed(); }
    /** A synchronisation point after `done` evaluations per worker: re-plans the progress; records
     *  in res where the clock took over and says so unless quiet. */
    void synchronise(std::int64_t done, SearchResult& res, const SearchParams& params) {
        const bool was = progress.clock_drives();
        progress.synchronise(done, elapsed(), first_s, switch_to_clock.exchange(false));
        if (was || !progress.clock_drives()) return;
        res.clock_driven_from = done;
        if (!params.quiet)
            std::fprintf(stderr,
                         "[%6.1fs] the evaluation budget is out of reach of the time limit: the clock drives the schedule from %.2f%% of "
                         "it; the time allows %.1f%% of the evaluations the schedule is calibrated for (start temperature x%.2f)\n",
                         elapsed(), 100.0 * progress.progress(done), 100.0 * progress.share_of_reference(), progress.heat());
    }
    /** The round's length per worker: SearchParams::round_evaluations, else the run's expected
     *  length divided by `rounds`, clamped to [lo, 2 x 10^7]. */
    std::int64_t round(const SearchParams& params, std::int64_t rounds, std::int64_t lo) const {
        return params.round_evaluations > 0 ? params.round_evaluations
                                            : std::clamp<std::int64_t>(progress.run_length() / rounds, lo, 20000000);
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
[[gnu::always_inline]] inline bool accept(const Candidate& c, Worker& wk, CandidateDelta& d, double temp, const Scorer& scorer,
                                          double neutral_acceptance) {
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

/**
 * The head of every evaluation in both drivers: every 256 evaluations the temperature for the
 * worker's position `at` in its run, and every 1,024 the clock and the stop request, and, while
 * evaluations drive the schedule, whether the budget is out of reach of the time limit (then
 * ctl.switch_to_clock is set and every worker ends the round at its next check). Returns false
 * when the round must end (the run too when ctl.out_of_time is set). `e` counts evaluations
 * within the round.
 */
inline bool tick(Worker& wk, std::int64_t e, std::int64_t at, const Schedule& schedule, const SearchParams& params, RunControl& ctl,
                 double& temp) {
    if ((e & 255) != 0) return true;
    if ((e & 1023) == 0) {
        if (should_stop(params, ctl.deadline, ctl.interrupted)) {
            ctl.out_of_time.store(true);
            return false;
        }
        if (!ctl.progress.clock_drives()) {
            if (ctl.switch_to_clock.load(std::memory_order_relaxed)) return false;
            if (ctl.progress.out_of_reach(at, ctl.elapsed(), ctl.first_s)) {
                ctl.switch_to_clock.store(true);
                return false;
            }
        }
    }
    temp = schedule.temperature(wk, at, ctl.progress);
    return true;
}

/** Statistics of an applied move at the worker's position `at` in a run of `length` expected. */
inline void count_accepted(Worker& wk, const Candidate& mv, const CandidateDelta& delta, std::int64_t at, std::int64_t length) {
    ++wk.accepted;
    ++wk.kind_accepted[mv.kind];
    if (delta.delta > 0) ++wk.kind_improved[mv.kind];
    if (delta.delta < 0 && at < length / 10) ++wk.early_worsening;
}

/** Evaluations per worker that a round of `planned` ran: `planned`, or when a worker ended it
 *  early (the switch to the clock, a proven optimum) the most any worker ran. */
inline std::int64_t round_ran(const std::vector<Worker>& workers, std::int64_t planned, bool ended_early) {
    if (!ended_early) return planned;
    std::int64_t ran = 0;
    for (const auto& wk : workers) ran = std::max(ran, wk.round_done);
    return ran;
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
    if (workers.empty() || !workers[0].memo) return;
    std::int64_t memo_hits = 0, memo_misses = 0, memo_aside = 0;
    for (const auto& wk : workers) {
        memo_hits += wk.memo->hits();
        memo_misses += wk.memo->misses();
        memo_aside += wk.memo->stood_aside();
    }
    std::fprintf(stderr, "host-value memo (%d targets): hits %lld, misses %lld, computed directly (too few hits) %lld\n",
                 workers[0].state.model().num_targets(), static_cast<long long>(memo_hits), static_cast<long long>(memo_misses),
                 static_cast<long long>(memo_aside));
}

/** Start and end temperatures of a run, score units (score.h), and what they were derived from. */
struct Temperatures {
    double start = 1.0, end = 1.0;
    double melt = 1.0;        ///< the melt temperature (below); the start when given
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
 *   percentile of the sampled losses), is accepted with probability e^-3.3 (e^-1 when the
 *   objective has further terms, see below); never hotter than the melt temperature. With one target (or weights of one scale) the 5th percentile is one unit of
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
    t.melt = t.start;
    // From a given start: a small loss accepted with probability e^-3.3; with further objective
    // terms (e.g. ram-cost) with probability e^-1. A term turns the plateau steps of emptying a
    // host (no capacity change) into losses of W per GiB, and capacity-equal states that move
    // less RAM lie behind losses of a capacity unit: at e^-3.3 the chain stayed in the greedy
    // plan's funnel on 5 of 50 quality instances with --ram-cost 0.05; at e^-1 it reaches 46-48 of
    // the 50 optima over seeds 1-3 (docs/performance.md, "Tiny optima the search missed"). Without
    // terms the e^-3.3 rule is unchanged.
    if (!params.start.empty()) t.start = std::min(t.start, (setup.initial.model().has_terms() ? 1.0 : 0.3) * t.small_loss);
    if (params.initial_temperature > 0) t.start = params.initial_temperature * static_cast<double>(kScoreScale);
    if (params.initial_temperature > 0) t.melt = t.start;  // a given temperature is not heated
    t.end = smallest / 20.0;
    return t;
}

/** Annealing with independent chains of the whole cluster (also the one-thread run). */
void anneal_chains(const SearchSetup& setup, const SearchParams& params, const Schedule& schedule, Clock::time_point t0, SearchResult& res);

/** Workers that own host regions in this run, or 0 for chains: SearchParams::regions, more than
 *  one thread, at least kMinRegionHosts hosts per region, and an objective whose move deltas add
 *  up over moves on disjoint hosts (every feasibility filter and objective term separable per host). */
int region_count(const CapacityModel& model, const SearchParams& params) {
    if (!params.regions || params.threads < 2) return 0;
    for (const auto& f : model.filters())
        if (!f->separable_per_host()) return 0;
    for (const auto& t : model.terms())
        if (!t->separable_per_host()) return 0;
    const auto hosts = static_cast<std::int64_t>(model.problem().hosts.size());
    return hosts >= static_cast<std::int64_t>(params.threads) * SearchParams::kMinRegionHosts ? params.threads : 0;
}

bool use_regions(const CapacityModel& model, const SearchParams& params) {
    return region_count(model, params) > 0;
}

/**
 * A partition of the hosts into one region per worker, drawn anew at every synchronisation point
 * from (seed, round). Hosts joined by a migrated VM (its snapshot host and its current one) stay
 * in one region, so that the VM may still go home there (budget exchange, return): with random
 * hosts only 1 in W migrated VMs could, and with a spent budget those moves are how the search
 * progresses. The joined groups (union-find) up to H / W hosts, in random order, largest first,
 * each go to the region with the fewest hosts; a larger group is split into single hosts. So
 * regions hold about H / W hosts each and every pair of unjoined hosts shares one in about one
 * round in W. Deterministic. O(hosts + displaced VMs + groups x log W).
 */
struct Regions {
    std::vector<int> region_of;           ///< [host] -> worker
    std::vector<std::vector<int>> hosts;  ///< [worker] -> its hosts, ascending

    void draw(const Problem& p, const std::vector<Placement>& displaced, int W, std::uint64_t seed, std::int64_t round) {
        const int H = static_cast<int>(p.hosts.size());
        Rng rng(seed, (1ULL << 40) + static_cast<std::uint64_t>(round));
        std::vector<int> parent(static_cast<std::size_t>(H));
        for (int h = 0; h < H; ++h) parent[h] = h;
        const auto find = [&](int x) {
            while (parent[x] != x) x = parent[x] = parent[parent[x]];
            return x;
        };
        for (const Placement& pl : displaced)
            if (const int a = find(p.vms[pl.vm].host), b = find(pl.host); a != b) parent[std::max(a, b)] = std::min(a, b);
        std::vector<std::vector<int>> groups;
        std::vector<int> group_of(static_cast<std::size_t>(H), -1);  // [root] -> group
        for (int h = 0; h < H; ++h) {
            const int r = find(h);
            if (group_of[r] < 0) {
                group_of[r] = static_cast<int>(groups.size());
                groups.emplace_back();
            }
            groups[group_of[r]].push_back(h);
        }
        const std::size_t cap = static_cast<std::size_t>((H + W - 1) / W);
        std::vector<std::vector<int>> units;
        for (auto& g : groups) {
            if (g.size() <= cap) {
                units.push_back(std::move(g));
            } else {
                for (int h : g) units.push_back({h});
            }
        }
        for (std::size_t i = units.size(); i > 1; --i) std::swap(units[i - 1], units[rng.below(i)]);
        std::stable_sort(units.begin(), units.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
        // Least-loaded region first (ties: lowest index): a min-heap of (hosts, region).
        std::vector<std::pair<std::size_t, int>> heap;
        for (int w = 0; w < W; ++w) heap.emplace_back(0, w);
        const auto later = [](const auto& a, const auto& b) { return a > b; };
        std::make_heap(heap.begin(), heap.end(), later);
        region_of.assign(static_cast<std::size_t>(H), 0);
        for (const auto& u : units) {
            std::pop_heap(heap.begin(), heap.end(), later);
            auto& [load, w] = heap.back();
            for (int h : u) region_of[h] = w;
            load += u.size();
            std::push_heap(heap.begin(), heap.end(), later);
        }
        hosts.assign(static_cast<std::size_t>(W), {});
        for (int h = 0; h < H; ++h) hosts[region_of[h]].push_back(h);
    }
};

/** Does candidate c touch only hosts of region r: every VM it moves is on a host of r and goes to
 *  a host of r? (Then moves of different regions commute and their deltas add up.) O(1). */
bool within_region(const Candidate& c, const SearchState& s, const std::vector<int>& region_of, int r) {
    Relocation rel[kMaxRelocations];
    int n = 0;
    visit_kind(c.kind, [&](auto k) { n = c.template get<k()>().host_relocations(s, rel); });
    for (int i = 0; i < n; ++i)
        if (region_of[s.host_of(rel[i].vm)] != r || region_of[rel[i].to_host] != r) return false;
    return true;
}

/** Is `pl` the snapshot placement of its VM (host and pNUMA nodes)? */
bool at_snapshot(const Problem& p, const Placement& pl) {
    const Vm& v = p.vms[pl.vm];
    if (v.host != pl.host) return false;
    const int k = p.flavors[v.flavor].num_vnuma();
    for (int i = 0; i < k; ++i)
        if (v.pnuma[i] != pl.pnuma[i]) return false;
    return true;
}

/**
 * Annealing by domain decomposition (SearchParams::regions). The objective is a sum over hosts
 * (plus per-VM terms), so moves on disjoint hosts commute and their deltas add up exactly: W
 * workers, each owning a region of the hosts and a share of the budget, together run one chain
 * at W times the evaluation rate, where independent chains would each cool W times faster.
 *
 * A round: each worker anneals its copy of the shared state with proposals restricted to its
 * region (VMs on its hosts, destinations among them; a proposal that still leaves it, e.g. a VM
 * sent home to another region, is drawn again, uncounted). Its budget is the state's migrations
 * plus an equal share of the budget left (SearchState::set_budget), so the union stays within
 * the plan's budget. It keeps its best score of the round and an undo log of the placements it
 * changed since then, so no copy of the state is made per new best.
 * The synchronisation point: the regions' current placements are merged into the next round's
 * shared state; the regions' bests, merged the same way, form a state whose score is the sum of
 * their gains (the lexicographic order of SearchScore adds up too) and replace the run's best
 * when higher. New regions are drawn from (seed, round). Every worker checks that the merged
 * state's objective equals the sum of the regions' (an exception names the difference); --check
 * also rebuilds each new best from scratch. Reheats follow the run's best (set at
 * synchronisation points). Deterministic for seed, thread count and evaluation budget.
 */
class RegionAnnealing {
public:
    RegionAnnealing(const SearchSetup& setup, const SearchParams& params, const Schedule& schedule, Clock::time_point t0);
    void run(SearchResult& res);

private:
    void check_merged_state(const SearchState& s) const;
    void start_region(Worker& wk, int w);
    void anneal_region(Worker& wk, int w, std::int64_t steps);
    void collect_region(Worker& wk, int w);
    void synchronise(SearchResult& res);
    void finish(SearchResult& res);

    const SearchSetup& setup;
    const SearchParams& params;
    const Schedule& schedule;
    const Problem& p;
    const Clock::time_point t0;
    const int W;
    const std::int64_t per_worker;
    const bool budget_count, budget_ram;
    RunControl ctl;
    std::vector<Worker> workers;
    std::vector<Placement> merged;  ///< the shared state: placements of its displaced VMs
    SearchScore merged_score;
    std::vector<Placement> best;  ///< the run's best state
    SearchScore best_score;
    bool proven = false;  ///< the run's best met SearchParams::bound_score
    Regions regions;
    /** Merge scratch, [vm] -> index in a list or -1: the workers write it concurrently, but each
     *  only the entries of the VMs of its own region (disjoint), and resets them. */
    std::vector<int> slot;
    std::vector<std::vector<Placement>> current, round_best;  ///< per worker: its region's placements now / at its best
    std::int64_t done = 0, round_index = 0, this_round = 0;
    Clock::time_point last_report;
    double parallel_seconds = 0.0;  ///< in the workers' rounds (the rest: set-up, synchronisation points)
};

// 200 rounds (chains: 50): a synchronisation point also redraws the regions and the destination
// lists, and on the medium snapshots 200 rounds reached higher objectives than 50, 100 or 400 at
// about the same speed (docs/performance.md, "Threads that buy quality"). At least 50,000
// evaluations each: rebuilding a region's destination lists costs flavors x hosts / W insertions,
// which on the bundled example took a third of 2,500-evaluation rounds.
RegionAnnealing::RegionAnnealing(const SearchSetup& setup_, const SearchParams& params_, const Schedule& schedule_, Clock::time_point t0_)
    : setup(setup_),
      params(params_),
      schedule(schedule_),
      p(setup_.initial.problem()),
      t0(t0_),
      W(params_.threads),
      per_worker(setup_.per_worker),
      budget_count(p.constraints.max_migrations != std::numeric_limits<std::int64_t>::max()),
      budget_ram(p.constraints.max_migrated_ram_mib != std::numeric_limits<Amount>::max()),
      ctl(setup_.per_worker, setup_.reference, params_, t0_),
      merged(params_.start),
      merged_score(setup_.start_score),
      best(params_.start),
      best_score(setup_.start_score),
      slot(p.vms.size(), -1),
      current(static_cast<std::size_t>(W)),
      round_best(static_cast<std::size_t>(W)),
      last_report(t0_) {
    workers.reserve(W);
    for (int w = 0; w < W; ++w) workers.emplace_back(setup.initial, params.seed, w + 1, params.value_memo);
}

void RegionAnnealing::run(SearchResult& res) {
    res.regions = W;
    tbb::task_arena arena(W);
    ctl.begin();
    while (done < per_worker && !ctl.out_of_time.load() && !proven) {
        this_round = std::min(ctl.round(params, 200, 50000), per_worker - done);
        regions.draw(p, merged, W, params.seed, round_index);
        const auto sync_end = Clock::now();
        run_workers(arena, W, [&](int w) {
            Worker& wk = workers[w];
            start_region(wk, w);
            // A region without migratable VMs (empty hosts, pinned VMs) sits the round out, but its
            // placements still join the merge.
            if (!wk.movable.empty()) anneal_region(wk, w, this_round);
            collect_region(wk, w);
        });
        parallel_seconds += std::chrono::duration<double>(Clock::now() - sync_end).count();
        done += round_ran(workers, this_round, ctl.switch_to_clock.load());
        ++round_index;
        synchronise(res);
        ctl.synchronise(done, res, params);
    }
    finish(res);
}

/** Throws std::logic_error unless the worker's copy of the merged state has the merged score and
 *  is within the budget: the regions' deltas must add up exactly. */
void RegionAnnealing::check_merged_state(const SearchState& s) const {
    if (s.objective() != merged_score.objective || s.migrations() != merged_score.migrations)
        throw std::logic_error("region decomposition: the merged state's objective " + std::to_string(s.objective()) + " (" +
                               std::to_string(s.migrations()) + " migrations) differs from the sum of the regions' " +
                               std::to_string(merged_score.objective) + " (" + std::to_string(merged_score.migrations) + ")");
    if (s.migrations() > p.constraints.max_migrations || s.migrated_ram_mib() > p.constraints.max_migrated_ram_mib)
        throw std::logic_error("region decomposition: the merged state uses " + std::to_string(s.migrations()) + " migrations and " +
                               std::to_string(s.migrated_ram_mib()) + " MiB, beyond the budget");
}

/** Worker w's round set-up: the merged state, its budget share, its region's movable VMs, its
 *  best (the merged score) and undo log, and its region's migrated-VM lists. */
void RegionAnnealing::start_region(Worker& wk, int w) {
    SearchState& s = wk.state;
    if (round_index > 0) s.set_placements(merged);
    check_merged_state(s);
    // Budget shares: what the merged state leaves of the budget, split evenly (remainders
    // to the lower worker ids), so the regions together stay within it.
    const auto share = [&](auto left) { return left / W + (w < left % W ? 1 : 0); };
    const Constraints& c = p.constraints;
    s.set_budget(budget_count ? s.migrations() + share(std::max<std::int64_t>(0, c.max_migrations - s.migrations()))
                              : std::numeric_limits<std::int64_t>::max(),
                 budget_ram ? s.migrated_ram_mib() + share(std::max<Amount>(0, c.max_migrated_ram_mib - s.migrated_ram_mib()))
                            : std::numeric_limits<Amount>::max());
    wk.movable.clear();
    for (int v : setup.movable)
        if (regions.region_of[s.host_of(v)] == w) wk.movable.push_back(v);
    wk.best_score = merged_score;
    wk.round_done = 0;
    wk.undo.clear();
    for (int which = 0; which < 2; ++which) {
        for (int v : wk.mig[which]) wk.mig_pos[which][v] = -1;
        wk.mig[which].clear();
        if (wk.mig_pos[which].empty()) wk.mig_pos[which].assign(p.vms.size(), -1);
    }
    for (int v : s.migrated_vms()) {
        const bool in = s.is_migrated(v) && regions.region_of[s.host_of(v)] == w;
        set_member(wk, 0, v, in);
        set_member(wk, 1, v, in && regions.region_of[s.origin_of(v)] == w);
    }
}

/** Worker w anneals its region for `steps` evaluations: proposals inside the region, the undo log
 *  of placements changed since its best, its migrated-VM lists kept current. The hot loop. */
void RegionAnnealing::anneal_region(Worker& wk, int w, std::int64_t steps) {
    SearchState& s = wk.state;
    const auto membership = [&](int v) {
        const bool in = s.is_migrated(v) && regions.region_of[s.host_of(v)] == w;
        set_member(wk, 0, v, in);
        set_member(wk, 1, v, in && regions.region_of[s.origin_of(v)] == w);
    };
    wk.proposal.start(wk.rng, wk.movable.size());
    if (params.destination_lists) wk.proposal.refresh(s, wk.cache, setup.flavor_used, &regions.hosts[w]);
    double temp = schedule.t_start;
    const bool verify = verify_deltas(params.check_every);
    const Scorer scorer = setup.scorer;
    CandidateDelta delta;
    ProposalContext ctx{s, wk.cache, wk.movable, wk.proposal, wk.rng, &regions.hosts[w], &regions.region_of, w, &wk.mig[0], &wk.mig[1]};
    Relocation rel[kMaxRelocations];
    std::int64_t e = 0;
    for (; e < steps; ++e) {
        if (!tick(wk, e, done + e, schedule, params, ctl, temp)) break;
        const Candidate mv = propose<Moves>(ctx, setup.mix);
        ++wk.evaluations;
        ++wk.kind_evaluated[mv.kind];
        if (verify && !within_region(mv, s, regions.region_of, w))
            throw std::logic_error(std::string(Moves::kNames[mv.kind]) + " move proposed outside the worker's host region");
        if (!accept(mv, wk, delta, temp, scorer, params.neutral_acceptance)) continue;
        int n = 0;
        visit_kind(mv.kind, [&](auto k) { n = mv.template get<k()>().host_relocations(s, rel); });
        for (int i = 0; i < n; ++i) {
            Placement before{rel[i].vm, s.host_of(rel[i].vm), {}};
            std::copy_n(s.pnuma_of(rel[i].vm), kMaxVNuma, before.pnuma.begin());
            wk.undo.push_back(before);
        }
        apply_verified(wk, mv, delta, params.check_every);
        for (int i = 0; i < n; ++i) membership(rel[i].vm);
        if (const SearchScore sc{s.objective(), s.migrations()}; wk.best_score < sc) {
            wk.best_score = sc;
            wk.undo.clear();
        }
        count_accepted(wk, mv, delta, done + e, ctl.progress.run_length());
    }
    wk.round_done = e;
}

/** Worker w's region's current and best placements (its VMs off their snapshot placement): the
 *  best is the current one with the undo log rolled back, the oldest entry of a VM winning. */
void RegionAnnealing::collect_region(Worker& wk, int w) {
    current[w].clear();
    for (const Placement& pl : wk.state.displaced_placements())
        if (regions.region_of[pl.host] == w) current[w].push_back(pl);
    std::vector<Placement>& rb = round_best[w];
    rb = current[w];
    for (std::size_t i = 0; i < rb.size(); ++i) slot[rb[i].vm] = static_cast<int>(i);
    for (auto it = wk.undo.rbegin(); it != wk.undo.rend(); ++it) {  // the oldest entry of a VM wins
        if (slot[it->vm] < 0) {
            slot[it->vm] = static_cast<int>(rb.size());
            rb.push_back(*it);
        } else {
            rb[slot[it->vm]] = *it;
        }
    }
    for (const Placement& pl : rb) slot[pl.vm] = -1;
    std::erase_if(rb, [&](const Placement& pl) { return at_snapshot(p, pl); });
}

/** The synchronisation point: merge the regions (worker order) into the next shared state, and
 *  their bests into a state that replaces the run's best when higher (rebuilt from scratch and
 *  compared under --check). */
void RegionAnnealing::synchronise(SearchResult& res) {
    SearchScore next = merged_score, combined = merged_score;
    merged.clear();
    std::vector<Placement> combined_best;
    for (int w = 0; w < W; ++w) {
        const Worker& wk = workers[w];
        merged.insert(merged.end(), current[w].begin(), current[w].end());
        combined_best.insert(combined_best.end(), round_best[w].begin(), round_best[w].end());
        next.objective += wk.state.objective() - merged_score.objective;
        next.migrations += wk.state.migrations() - merged_score.migrations;
        combined.objective += wk.best_score.objective - merged_score.objective;
        combined.migrations += wk.best_score.migrations - merged_score.migrations;
    }
    merged_score = next;
    if (best_score < combined) {
        best_score = combined;
        proven = meets_bound(params, best_score);
        best = std::move(combined_best);
        for (auto& wk : workers) wk.last_improvement = done;
        if (params.check_every > 0) {
            SearchState t(setup.initial);
            t.set_placements(best);
            if (t.objective() != best_score.objective || t.migrations() != best_score.migrations)
                throw std::logic_error("region decomposition: the merged best state's objective " + std::to_string(t.objective()) +
                                       " differs from the sum of the regions' " + std::to_string(best_score.objective));
        }
    }
    record_round(res, params, t0, last_report, done, per_worker, best_score, total_evaluations(workers), "annealing, host regions");
}

/** The run's result: its best state and score, the workers' counters, why it stopped. */
void RegionAnnealing::finish(SearchResult& res) {
    res.best = std::move(best);
    res.objective_best = to_objective(best_score.objective);
    res.score_best = best_score.objective;
    for (const auto& wk : workers) {
        res.evaluations += wk.evaluations;
        res.accepted += wk.accepted;
        res.reheats += wk.reheats;
        res.early_worsening_accepted += wk.early_worsening;
    }
    res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    res.stopped_by = stop_reason(ctl.interrupted.load(), proven, ctl.out_of_time.load());
    if (!params.quiet) {
        std::fprintf(stderr, "regions: %d workers, %lld rounds (%.2f s in them, %.2f s at synchronisation points)\n", W,
                     static_cast<long long>(round_index), parallel_seconds, res.seconds - parallel_seconds);
        report_moves(workers);
    }
}

void anneal_regions(const SearchSetup& setup, const SearchParams& params, const Schedule& schedule, Clock::time_point t0,
                    SearchResult& res) {
    RegionAnnealing(setup, params, schedule, t0).run(res);
}

}  // namespace

SearchResult anneal(const CapacityModel& model, const SearchParams& params) {
    const auto t0 = Clock::now();
    SearchSetup setup(model, params);
    SearchResult res = setup.start_result(params);
    if (setup.settled()) return res;

    const Temperatures temps = calibrate_temperatures(setup, params);
    const double t_start = temps.start, t_ratio = std::min(1.0, temps.end / temps.start);
    if (!params.quiet)
        std::fprintf(stderr, "temperature %.6g -> %.6g objective units (%s; %d sampled worsening moves, small loss %.6g, melt %.6g)\n",
                     temps.start / kScoreScale, temps.end / kScoreScale, params.initial_temperature > 0 ? "given" : "calibrated",
                     temps.samples, temps.small_loss / kScoreScale, temps.melt / kScoreScale);

    const Schedule schedule{t_start, t_ratio, params.reheat_factor, std::max(t_start, temps.melt)};
    if (use_regions(model, params))
        anneal_regions(setup, params, schedule, t0, res);
    else
        anneal_chains(setup, params, schedule, t0, res);
    res.temperature_start = temps.start / kScoreScale;
    res.temperature_end = temps.end / kScoreScale;
    return res;
}

namespace {

void anneal_chains(const SearchSetup& setup, const SearchParams& params, const Schedule& schedule, Clock::time_point t0,
                   SearchResult& res) {
    const auto& mix = setup.mix;
    const std::vector<int>& movable = setup.movable;
    const std::vector<char>& flavor_used = setup.flavor_used;
    const SearchState& initial = setup.initial;
    const Scorer scorer = setup.scorer;
    const int W = params.threads;
    const std::int64_t per_worker = setup.per_worker;
    const double t_start = schedule.t_start;
    std::vector<Worker> workers;
    workers.reserve(W);
    for (int w = 0; w < W; ++w) {
        workers.emplace_back(initial, params.seed, w + 1, params.value_memo);
        workers.back().best = params.start;
        workers.back().proposal.start(workers.back().rng, movable.size());
        workers.back().best_score = setup.start_score;
    }

    RunControl ctl(per_worker, setup.reference, params, t0);
    tbb::task_arena arena(W);
    std::int64_t done = 0;  // evaluations per worker completed in earlier rounds
    auto last_report = t0;
    bool proven = false;
    ctl.begin();
    while (done < per_worker && !ctl.out_of_time.load() && !proven) {
        const std::int64_t this_round = std::min(ctl.round(params, 50, 2000), per_worker - done);
        run_workers(arena, W, [&](int w) {
            Worker& wk = workers[w];
            SearchState& s = wk.state;
            if (params.destination_lists) wk.proposal.refresh(s, wk.cache, flavor_used);
            double temp = t_start;
            CandidateDelta delta;  // reused by every candidate (see evaluate())
            ProposalContext ctx{s, wk.cache, movable, wk.proposal, wk.rng};
            std::int64_t e = 0;
            for (; e < this_round && !wk.proven; ++e) {
                if (!tick(wk, e, done + e, schedule, params, ctl, temp)) break;
                const Candidate mv = propose<Moves>(ctx, mix);
                ++wk.evaluations;
                ++wk.kind_evaluated[mv.kind];
                if (!accept(mv, wk, delta, temp, scorer, params.neutral_acceptance)) continue;
                if (apply_and_check(wk, mv, delta, params.check_every)) {
                    wk.last_improvement = done + e;
                    wk.proven = meets_bound(params, wk.best_score);  // ends the worker's round (the loop's test)
                }
                count_accepted(wk, mv, delta, done + e, ctl.progress.run_length());
            }
            wk.round_done = e;
        });
        for (const auto& wk : workers) proven |= wk.proven;
        done += round_ran(workers, this_round, proven || ctl.switch_to_clock.load());
        // Synchronisation point: share the best state in worker order (ties: lowest worker id).
        end_round(workers, res, params, t0, last_report, done, per_worker, "annealing");
        ctl.synchronise(done, res, params);
    }
    finish(res, workers, t0, ctl.out_of_time.load(), ctl.interrupted.load(), proven);
    for (const auto& wk : workers) {
        res.reheats += wk.reheats;
        res.early_worsening_accepted += wk.early_worsening;
    }
    if (!params.quiet) report_moves(workers);
}

}  // namespace

}  // namespace vmcap

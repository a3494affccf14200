#include "optimizer/search/tabu.h"

#include <memory>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <stdexcept>

#include <tbb/task_arena.h>

#include "optimizer/search/candidates.h"
#include "optimizer/search/fork_join.h"

namespace vmcap {

namespace {

using Clock = std::chrono::steady_clock;
using namespace search_detail;

// 128-byte aligned against false sharing between neighbouring workers (see annealing.cpp).
struct alignas(128) TabuWorker {
    TabuWorker(const SearchState& start, std::uint64_t seed, int id, std::size_t vms, bool value_memo)
        : state(start),
          cache(state),
          rng(seed, static_cast<std::uint64_t>(id)),
          tabu_until(vms, 0),
          memo(value_memo ? HostValueMemo::make_if_useful(start.model()) : nullptr) {
        state.use_value_memo(memo.get());
    }
    SearchState state;
    MoveCache cache;
    Rng rng;
    std::vector<std::int64_t> tabu_until;  ///< [vm]: first iteration at which the VM may move again
    std::vector<Placement> best;
    SearchScore best_score;
    std::int64_t evaluations = 0, accepted = 0, iteration = 0, since_check = 0;
    Proposal proposal;
    bool proven = false;                  ///< the worker's best met SearchParams::bound_score
    std::unique_ptr<HostValueMemo> memo;  ///< the state's host-value memo (many targets only)
};

}  // namespace

SearchResult tabu_search(const CapacityModel& model, const SearchParams& params, const TabuParams& tabu) {
    const Problem& p = model.problem();
    if (tabu.tenure < 0) throw std::invalid_argument("tabu tenure must be >= 0");
    if (tabu.candidates < 1) throw std::invalid_argument("tabu candidate list size must be >= 1");
    const auto t0 = Clock::now();
    SearchSetup setup(model, params);
    const auto& mix = setup.mix;
    const std::vector<int>& movable = setup.movable;
    const std::vector<char>& flavor_used = setup.flavor_used;
    const SearchState& initial = setup.initial;
    SearchResult res = setup.start_result(params);
    if (setup.settled()) return res;
    const int W = params.threads;
    const std::int64_t per_worker = setup.per_worker, round = setup.round;
    std::vector<TabuWorker> workers;
    workers.reserve(W);
    for (int w = 0; w < W; ++w) {
        workers.emplace_back(initial, params.seed, w + 1, p.vms.size(), params.value_memo);
        TabuWorker& wk = workers.back();
        wk.best = params.start;
        wk.best_score = setup.start_score;
        wk.proposal.start(wk.rng, movable.size());
    }

    std::atomic<bool> out_of_time{false}, interrupted{false};
    const auto deadline = deadline_after(t0, params.time_limit_s);
    tbb::task_arena arena(W);
    std::int64_t done = 0;
    auto last_report = t0;
    bool proven = false;
    while (done < per_worker && !out_of_time.load() && !proven) {
        const std::int64_t this_round = std::min(round, per_worker - done);
        run_workers(arena, W, [&](int w) {
            TabuWorker& wk = workers[w];
            SearchState& s = wk.state;
            if (params.destination_lists) wk.proposal.refresh(s, wk.cache, flavor_used);
            std::int64_t e = 0;
            ProposalContext ctx{s, wk.cache, movable, wk.proposal, wk.rng};
            while (e < this_round && !wk.proven) {
                if (should_stop(params, deadline, interrupted)) {
                    out_of_time.store(true);
                    break;
                }
                // One iteration: the best admissible move of a sampled candidate list.
                Candidate best_c;
                CandidateDelta best_d;
                SearchScore best_ds;
                bool found = false;
                const Score objective_now = s.objective();
                for (int c = 0; c < tabu.candidates && e < this_round; ++c, ++e) {
                    const Candidate mv = propose<Moves>(ctx, mix);
                    ++wk.evaluations;
                    const CandidateDelta d = evaluate(mv, s, wk.cache);
                    if (!d.feasible) continue;
                    // The best candidate in the search's exact order: delta, then fewer migrations.
                    const SearchScore ds{d.delta, d.migrations_after};
                    if (found && !(best_ds < ds)) continue;
                    int vms[kMaxRelocations];
                    const int nv = moved_vms(mv, s, vms);
                    bool is_tabu = false;
                    for (int i = 0; i < nv; ++i) is_tabu |= wk.tabu_until[vms[i]] > wk.iteration;
                    // Aspiration: a tabu move that reaches a new best of this worker is allowed.
                    if (is_tabu && !(wk.best_score < SearchScore{objective_now + d.delta, d.migrations_after})) continue;
                    best_c = mv;
                    best_d = d;
                    best_ds = ds;
                    found = true;
                }
                ++wk.iteration;
                if (!found) continue;
                if (apply_and_check(wk, best_c, best_d, params.check_every)) wk.proven = meets_bound(params, wk.best_score);
                ++wk.accepted;
                int vms[kMaxRelocations];
                const int nv = moved_vms(best_c, s, vms);
                for (int i = 0; i < nv; ++i)
                    wk.tabu_until[vms[i]] =
                        wk.iteration + tabu.tenure + static_cast<std::int64_t>(wk.rng.below(static_cast<std::uint64_t>(tabu.tenure) + 1));
            }
        });
        done += this_round;
        for (const auto& wk : workers) proven |= wk.proven;
        // Synchronisation point: workers behind the best (ties: lowest worker id) restart from it.
        end_round(workers, res, params, t0, last_report, done, per_worker, "tabu");
    }
    finish(res, workers, t0, out_of_time.load(), interrupted.load(), proven);
    return res;
}

}  // namespace vmcap

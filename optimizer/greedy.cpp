#include "optimizer/greedy.h"

#include <chrono>
#include <limits>

#include "moves/migrate.h"

namespace vmcap {

SearchResult greedy(const CapacityModel& model, const SearchParams& params) {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const Problem& p = model.problem();
    const int H = static_cast<int>(p.hosts.size());
    const int F = static_cast<int>(p.flavors.size());
    SearchState s(model);
    SearchResult res;
    res.objective_before = s.objective_value();
    params.validate();
    res.stopped_by = StopReason::NoImprovingMove;

    // Destination gain of one more VM of flavor f on host h (budget ignored here; the chosen move
    // is re-evaluated exactly before it is applied).
    constexpr Score kNone = std::numeric_limits<Score>::min();  // nothing fits
    std::vector<Score> dst(static_cast<std::size_t>(F) * H, kNone);
    std::vector<Score> src(p.vms.size(), 0);
    std::vector<char> flavor_used(F, 0);
    for (const Vm& vm : p.vms)
        if (vm.migratable) flavor_used[vm.flavor] = 1;
    auto refresh_host = [&](int h) {
        for (int f = 0; f < F; ++f) {
            if (!flavor_used[f]) continue;
            const Insertion ins = best_insertion(s, f, h, -1);
            dst[static_cast<std::size_t>(f) * H + h] = ins.embedding >= 0 ? ins.delta : kNone;
            ++res.evaluations;
        }
    };
    std::vector<std::vector<int>> on_host(H);
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        if (p.vms[v].migratable) on_host[p.vms[v].host].push_back(static_cast<int>(v));
    auto refresh_vms = [&](int h) {
        for (int v : on_host[h]) src[v] = removal_delta(s, v);
    };
    for (int h = 0; h < H; ++h) {
        refresh_host(h);
        refresh_vms(h);
    }
    std::vector<char> banned(p.vms.size(), 0);  // moves whose exact evaluation disagreed (budget)
    std::vector<int> banned_list;
    std::vector<int> movable;
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        if (p.vms[v].migratable) movable.push_back(static_cast<int>(v));
    std::vector<int> top1(F, -1), top2(F, -1);

    while (true) {
        if (params.stop != nullptr && params.stop->load(std::memory_order_relaxed)) {
            res.stopped_by = StopReason::Interrupted;
            break;
        }
        if (std::chrono::duration<double>(Clock::now() - t0).count() > params.time_limit_s) {
            res.stopped_by = StopReason::TimeLimit;
            break;
        }
        // Best (VM, host) pair: per flavor, the best and second-best destination (O(flavors x
        // hosts)); then one pass over the VMs (O(VMs)): a VM's best destination is its flavor's
        // best host unless that is its own host, then the second best.
        Score best = 0;
        int bv = -1, bh = -1;
        const Amount ram_left = p.constraints.max_migrated_ram_mib - s.migrated_ram_mib();
        const bool count_left = s.migrations() < p.constraints.max_migrations;
        for (int f = 0; f < F; ++f) {
            top1[f] = top2[f] = -1;
            if (!flavor_used[f]) continue;
            const Score* d = &dst[static_cast<std::size_t>(f) * H];
            int h1 = -1, h2 = -1;
            for (int h = 0; h < H; ++h) {
                if (h1 < 0 || d[h] > d[h1]) {
                    h2 = h1;
                    h1 = h;
                } else if (h2 < 0 || d[h] > d[h2]) {
                    h2 = h;
                }
            }
            if (h1 < 0 || d[h1] == kNone) continue;
            top1[f] = h1;
            top2[f] = h2;
        }
        for (int v : movable) {
            const int f = p.vms[v].flavor;
            if (top1[f] < 0 || banned[v]) continue;
            if (!s.is_migrated(v) && (!count_left || p.flavors[f].demand[kRamMib] > ram_left)) continue;
            const int to = (s.host_of(v) == top1[f]) ? top2[f] : top1[f];
            if (to < 0) continue;
            if (dst[static_cast<std::size_t>(f) * H + to] == kNone) continue;
            const Score g = src[v] + dst[static_cast<std::size_t>(f) * H + to];
            // Ties go to the VM with less RAM: the cheaper live migration.
            if (g > best || (bv >= 0 && g == best && p.flavors[f].demand[kRamMib] < p.flavors[p.vms[bv].flavor].demand[kRamMib])) {
                best = g;
                bv = v;
                bh = to;
            }
        }
        if (bv < 0) break;
        const MigrateMove mv{bv, bh};
        const MigrateDelta md = score_move(mv, s);  // the complete delta: filters and every objective term
        ++res.evaluations;
        if (!md.feasible || md.delta <= 0) {
            banned[bv] = 1;
            banned_list.push_back(bv);
            continue;
        }
        const int from = s.host_of(bv);
        mv.apply(s, md);
        ++res.accepted;
        for (auto it = on_host[from].begin(); it != on_host[from].end(); ++it)
            if (*it == bv) {
                on_host[from].erase(it);
                break;
            }
        on_host[bh].push_back(bv);
        for (int v : banned_list) banned[v] = 0;
        banned_list.clear();
        refresh_host(from);
        refresh_host(bh);
        refresh_vms(from);
        refresh_vms(bh);
    }
    res.best = s.displaced_placements();
    res.objective_best = s.objective_value();
    res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (res.stopped_by == StopReason::NoImprovingMove && s.migrations() >= p.constraints.max_migrations)
        res.stopped_by = StopReason::BudgetSpent;
    return res;
}

}  // namespace vmcap

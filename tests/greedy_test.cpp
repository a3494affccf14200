// The incremental greedy (tournament trees, two hosts refreshed per round) against the plain
// greedy it replaced: every round scans every (flavor, host) destination and every movable VM.
// Both must apply the same moves in the same order, so their final states are equal.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "instances/generator.h"
#include "moves/insertion.h"
#include "moves/migrate.h"
#include "optimizer/search/greedy.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

/** The greedy of commit 28b495a verbatim (full scans per round), the oracle. */
std::vector<Placement> reference_greedy(const CapacityModel& model, std::int64_t* applied) {
    const Problem& p = model.problem();
    const int H = static_cast<int>(p.hosts.size());
    const int F = static_cast<int>(p.flavors.size());
    SearchState s(model);
    constexpr Score kNone = std::numeric_limits<Score>::min();
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
    std::vector<char> banned(p.vms.size(), 0);
    std::vector<int> banned_list;
    std::vector<int> movable;
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        if (p.vms[v].migratable) movable.push_back(static_cast<int>(v));
    std::vector<int> top1(F, -1), top2(F, -1);
    *applied = 0;
    while (true) {
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
            if (g > best || (bv >= 0 && g == best && p.flavors[f].demand[kRamMib] < p.flavors[p.vms[bv].flavor].demand[kRamMib])) {
                best = g;
                bv = v;
                bh = to;
            }
        }
        if (bv < 0) break;
        const MigrateMove mv{bv, bh};
        const MigrateDelta md = score_move(mv, s);
        if (!md.feasible || md.delta <= 0) {
            banned[bv] = 1;
            banned_list.push_back(bv);
            continue;
        }
        const int from = s.host_of(bv);
        mv.apply(s, md);
        ++*applied;
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
    return s.displaced_placements();
}

void expect_same_as_reference(const Problem& p, const std::string& what) {
    SCOPED_TRACE(what);
    const CapacityModel m(p);
    std::int64_t applied = 0;
    const std::vector<Placement> want = reference_greedy(m, &applied);
    for (int threads : {1, 2}) {
        SearchParams sp;
        sp.quiet = true;
        sp.threads = threads;
        sp.time_limit_s = 1e9;
        const SearchResult r = greedy(m, sp);
        EXPECT_EQ(r.accepted, applied);
        ASSERT_EQ(r.best.size(), want.size());
        for (std::size_t i = 0; i < want.size(); ++i) {
            EXPECT_EQ(r.best[i].vm, want[i].vm);
            EXPECT_EQ(r.best[i].host, want[i].host);
            EXPECT_EQ(r.best[i].pnuma, want[i].pnuma);
        }
    }
}

TEST(Greedy, SameMovesAsFullScanOnRandomClusters) {
    int nonempty = 0;
    for (const char* topo : {"CQ3", "K4", "Q33", "2xK4", "C4", "K2"})
        for (std::uint64_t seed = 1; seed <= 4; ++seed)
            for (std::int64_t budget : {1, 4, 40}) {
                test::RandomCluster rc;
                rc.host_topology = topo;
                rc.hosts = 6 + static_cast<int>(seed) * 3;
                rc.seed = seed;
                rc.fill = 0.55 + 0.08 * static_cast<double>(seed);
                rc.max_migrations = budget;
                rc.max_migrated_ram_mib = seed == 2 ? 24 * 1024 : std::numeric_limits<Amount>::max();
                Problem p = test::make_random_problem(rc);
                nonempty += p.vms.size() > 0;
                expect_same_as_reference(p, std::string(topo) + " seed " + std::to_string(seed) + " budget " + std::to_string(budget));
                // A further objective term: the chosen move is re-scored and may be banned.
                p.objective_terms.emplace_back("ram-cost", 0.4);
                expect_same_as_reference(
                    p, std::string(topo) + " ram-cost seed " + std::to_string(seed) + " budget " + std::to_string(budget));
            }
    EXPECT_GT(nonempty, 60);
}

// Found by a search over 1,080 random clusters (K4, seed 7, budget 3; hosts 5 + seed % 7, fill
// 0.5 + 0.01 x (seed % 40)): once the budget is spent the full scan moves an already migrated VM
// again, the one case the incremental greedy serves from the migrated list instead of the trees.
TEST(Greedy, SameMovesWhenAMigratedVmMovesAgainAfterTheBudget) {
    test::RandomCluster rc;
    rc.host_topology = "K4";
    rc.hosts = 5 + 7 % 7;
    rc.seed = 7;
    rc.fill = 0.5 + 0.01 * 7;
    rc.max_migrations = 3;
    expect_same_as_reference(test::make_random_problem(rc), "K4 seed 7 budget 3");
}

TEST(Greedy, SameMovesAsFullScanOnGeneratedSnapshots) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        GenerateOptions go;
        go.hosts = 80;
        go.vms = 2400;
        go.churn = 0.5;
        go.migration_budget = 0.03;
        go.seed = seed;
        Problem p = generate_cluster(go);
        expect_same_as_reference(p, "generated seed " + std::to_string(seed));
        p.constraints.max_migrated_ram_mib = 200 * 1024;  // the RAM budget ends it before the count
        expect_same_as_reference(p, "generated, RAM budget, seed " + std::to_string(seed));
        // Budgets spent early: the migrated VMs may still move on (restricted flavors).
        for (std::int64_t budget : {2, 5, 12}) {
            p.constraints.max_migrated_ram_mib = std::numeric_limits<Amount>::max();
            p.constraints.max_migrations = budget;
            expect_same_as_reference(p, "generated, budget " + std::to_string(budget) + ", seed " + std::to_string(seed));
            p.constraints.max_migrations = 1000;
            p.constraints.max_migrated_ram_mib = budget * 8 * 1024;
            expect_same_as_reference(p, "generated, RAM budget " + std::to_string(budget * 8) + " GiB, seed " + std::to_string(seed));
        }
    }
}

}  // namespace
}  // namespace vmcap

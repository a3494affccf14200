// Return move (moves/return_move.h): exact delta against a full recomputation, budget given
// back, cached evaluation equal to the uncached one, and infeasible cases.
#include <gtest/gtest.h>

#include <random>

#include "moves/migrate.h"
#include "moves/move_cache.h"
#include "moves/remap.h"
#include "moves/return_move.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

TEST(ReturnMove, ExactDeltaBudgetRefundAndCacheAgree) {
    int checked = 0, remap_backs = 0;
    for (const char* topo : {"CQ3", "K4", "2xK4"}) {
        test::RandomCluster rc;
        rc.host_topology = topo;
        rc.hosts = 8;
        rc.seed = 5;
        rc.max_migrations = 1000;
        const Problem p = test::make_random_problem(rc);
        const CapacityModel m(p);
        SearchState s(m);
        MoveCache cache(s);
        std::mt19937_64 rng(9);
        const int V = static_cast<int>(p.vms.size()), H = static_cast<int>(p.hosts.size());
        for (int it = 0; it < 600; ++it) {
            // Scatter VMs (migrations and remaps), then try to send one home.
            const int v = static_cast<int>(rng() % V);
            if (rng() % 3 == 0) {
                const RemapMove rm{v};
                const RemapDelta d = rm.evaluate(s);
                if (d.feasible) rm.apply(s, d);
            } else {
                const MigrateMove mv{v, static_cast<int>(rng() % H)};
                const MigrateDelta d = mv.evaluate(s);
                if (d.feasible) mv.apply(s, d);
            }
            const auto& mig = s.migrated_vms();
            if (mig.empty()) continue;
            const ReturnMove ret{mig[rng() % mig.size()]};
            const ReturnDelta u = ret.evaluate(s), c = ret.evaluate(s, cache);
            ASSERT_EQ(u.feasible, c.feasible);
            if (!u.feasible) continue;
            EXPECT_EQ(u.delta, c.delta);
            EXPECT_EQ(u.migrations_after, c.migrations_after);
            if (rng() % 2 == 0) continue;
            remap_backs += s.host_of(ret.vm) == p.vms[ret.vm].host ? 1 : 0;
            const Score before = s.objective();
            const std::int64_t mig_before = s.migrations();
            ret.apply(s, u);
            EXPECT_EQ(s.objective() - before, u.delta);
            EXPECT_EQ(s.migrations(), mig_before - 1);
            EXPECT_FALSE(s.is_migrated(ret.vm));
            EXPECT_EQ(s.host_of(ret.vm), p.vms[ret.vm].host);
            ++checked;
        }
        s.check_consistency();
        // Not migrated: infeasible.
        for (int v = 0; v < V; ++v)
            if (!s.is_migrated(v)) {
                EXPECT_FALSE(ReturnMove{v}.evaluate(s).feasible);
                EXPECT_FALSE(ReturnMove{v}.evaluate(s, cache).feasible);
                break;
            }
    }
    EXPECT_GT(checked, 100);
    EXPECT_GT(remap_backs, 5);  // the same-host (remap back) path was exercised
}

}  // namespace
}  // namespace vmcap

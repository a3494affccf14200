// MoveCache (moves/move_cache.h): cached migrate, exchange and ejection evaluations equal the
// uncached evaluate() on every candidate, through long random sequences of applied moves and
// jumps back to earlier states (so stale entries would be caught), on several host topologies
// and budgets.
#include <cstdio>
#include <gtest/gtest.h>

#include <random>

#include "moves/ejection.h"
#include "moves/budget_exchange.h"
#include "moves/migrate.h"
#include "moves/move_cache.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

using test::make_random_problem;
using test::RandomCluster;

struct Counts {
    int migrate = 0, home = 0, exchange = 0, vacated = 0, remapped = 0, ejection = 0, applied = 0;
};

Counts run_sequence(const char* topology, std::uint64_t seed, std::int64_t budget) {
    RandomCluster rc;
    rc.host_topology = topology;
    rc.hosts = 6;
    rc.seed = seed;
    rc.max_migrations = budget;
    const Problem p = make_random_problem(rc);
    const CapacityModel m(p);
    SearchState s(m);
    MoveCache cache(s);
    std::mt19937_64 rng(seed);
    const int V = static_cast<int>(p.vms.size()), H = static_cast<int>(p.hosts.size());
    Counts c;
    std::vector<Placement> saved;
    for (int it = 0; it < 3000; ++it) {
        // Jump back to an earlier state now and then, as workers do at synchronisation points:
        // set_placements keeps the versions of untouched hosts, so cache entries must survive
        // exactly where they are still valid and nowhere else.
        if (it % 500 == 250) saved = s.displaced_placements();
        if (it % 500 == 499) s.set_placements(saved);
        const int a = static_cast<int>(rng() % V), b = static_cast<int>(rng() % V), h = static_cast<int>(rng() % H);
        switch (rng() % 3) {
            case 0: {
                // One in three: a migrated VM back to its snapshot host (the cached return path).
                const auto& mig = s.migrated_vms();
                const bool home = !mig.empty() && rng() % 3 == 0;
                const int vm = home ? mig[rng() % mig.size()] : a;
                const MigrateMove mv{vm, home ? p.vms[vm].host : h};
                const MigrateDelta u = mv.evaluate(s), d = mv.evaluate(s, cache);
                EXPECT_EQ(u.feasible, d.feasible);
                if (u.feasible && d.feasible) {
                    ++c.migrate;
                    if (home && s.host_of(vm) != mv.host) ++c.home;
                    EXPECT_EQ(u.embedding, d.embedding);
                    EXPECT_EQ(u.migrations_after, d.migrations_after);
                    EXPECT_EQ(u.delta, d.delta);  // bit for bit: the same two terms summed
                    if (d.delta >= 0 || rng() % 4 == 0) {
                        mv.apply(s, d);
                        ++c.applied;
                    }
                }
                break;
            }
            case 1: {
                // Exchange needs a migrated a: pick one when there is any.
                const auto& mig = s.migrated_vms();
                const int aa = mig.empty() ? a : mig[rng() % mig.size()];
                // One in three: b takes the room a vacates (the memoised vacated-host path).
                const bool vacated = rng() % 3 == 0;
                const BudgetExchangeMove mv{aa, b, vacated ? s.host_of(aa) : h};
                const BudgetExchangeDelta u = mv.evaluate(s), d = mv.evaluate(s, cache);
                EXPECT_EQ(u.feasible, d.feasible);
                if (u.feasible && d.feasible) {
                    ++c.exchange;
                    if (vacated) ++c.vacated;
                    if (s.host_of(aa) == p.vms[aa].host) ++c.remapped;  // a goes back to its nodes on its own host
                    EXPECT_EQ(u.embedding, d.embedding);
                    EXPECT_EQ(u.migrations_after, d.migrations_after);
                    EXPECT_EQ(u.delta, d.delta);
                    if (d.delta >= 0 || rng() % 4 == 0) {
                        mv.apply(s, d);
                        ++c.applied;
                    }
                }
                break;
            }
            default: {
                const EjectionMove mv{a, b, h};
                const EjectionDelta u = mv.evaluate(s), d = mv.evaluate(s, cache);
                EXPECT_EQ(u.feasible, d.feasible);
                if (u.feasible && d.feasible) {
                    ++c.ejection;
                    EXPECT_EQ(u.embedding_a, d.embedding_a);
                    EXPECT_EQ(u.embedding_b, d.embedding_b);
                    EXPECT_EQ(u.migrations_after, d.migrations_after);
                    EXPECT_EQ(u.delta, d.delta);
                    if (d.delta >= 0 || rng() % 4 == 0) {
                        mv.apply(s, d);
                        ++c.applied;
                    }
                }
                break;
            }
        }
    }
    s.check_consistency();
    EXPECT_GT(cache.hits(), 0);
    return c;
}

TEST(MoveCache, CachedEvaluationsEqualUncachedThroughRandomSequences) {
    int migrate = 0, home = 0, exchange = 0, vacated = 0, remapped = 0, ejection = 0, applied = 0;
    std::uint64_t seed = 11;
    for (const char* topo : {"CQ3", "K4", "2xK4", "Q33", "C4"})
        for (std::int64_t budget : {2, 8, 1000}) {
            const Counts c = run_sequence(topo, seed++, budget);
            migrate += c.migrate;
            home += c.home;
            exchange += c.exchange;
            vacated += c.vacated;
            remapped += c.remapped;
            ejection += c.ejection;
            applied += c.applied;
        }
    // The comparison must have exercised every cached path and many state changes.
    EXPECT_GT(migrate, 1000);
    EXPECT_GT(home, 100);
    EXPECT_GT(exchange, 100);
    EXPECT_GT(vacated, 50);
    EXPECT_GT(remapped, 20);
    std::printf("[          ] compared: %d migrate (%d home), %d exchange (%d vacated, %d remapped), %d ejection\n", migrate, home,
                exchange, vacated, remapped, ejection);
    EXPECT_GT(ejection, 100);
    EXPECT_GT(applied, 1000);
}

}  // namespace
}  // namespace vmcap

namespace vmcap {
namespace {

// Two VMs of one flavor on one host trade pNUMA nodes through set_placements: the host's free
// amounts are unchanged, but each VM's removal delta now concerns other nodes, so the host must
// get a new version and the cache must not serve the old deltas.
TEST(MoveCache, SetPlacementsThatSwapsIdenticalVmsInvalidatesRemovalDeltas) {
    int checked = 0;
    for (std::uint64_t seed = 1; seed <= 40 && checked == 0; ++seed) {
        test::RandomCluster rc;
        rc.host_topology = "CQ3";
        rc.hosts = 6;
        rc.seed = seed;
        rc.max_migrations = 10;
        const Problem p = test::make_random_problem(rc);
        const CapacityModel m(p);
        for (std::size_t x = 0; x < p.vms.size() && checked == 0; ++x)
            for (std::size_t y = x + 1; y < p.vms.size() && checked == 0; ++y) {
                const Vm& vx = p.vms[x];
                const Vm& vy = p.vms[y];
                if (vx.flavor != vy.flavor || vx.host != vy.host || vx.pnuma == vy.pnuma || !vx.migratable || !vy.migratable) continue;
                SearchState s(m);
                MoveCache cache(s);
                const double before = cache.removal(s, static_cast<int>(x));
                s.set_placements({Placement{static_cast<int>(x), vx.host, vy.pnuma}, Placement{static_cast<int>(y), vy.host, vx.pnuma}});
                const double now = removal_delta(s, static_cast<int>(x));
                if (now == before) continue;  // symmetric nodes: the case cannot show staleness
                EXPECT_EQ(cache.removal(s, static_cast<int>(x)), now);
                ++checked;
            }
    }
    ASSERT_EQ(checked, 1) << "no instance with two same-flavor VMs on asymmetric nodes of one host";
}

}  // namespace
}  // namespace vmcap

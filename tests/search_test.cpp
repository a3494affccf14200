// Incremental evaluation vs full recomputation, plan validity, budget, determinism.
#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <random>

#include "moves/migrate.h"
#include "optimizer/search/annealing.h"
#include "optimizer/plan/plan.h"
#include "optimizer/plan/validate.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

using test::make_random_problem;
using test::RandomCluster;

using test::full_objective;

class DeltaTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DeltaTest, EvaluateEqualsFullRecomputationAfterRandomMoveSequences) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        RandomCluster rc;
        rc.host_topology = GetParam();
        rc.hosts = 8;
        rc.seed = seed;
        rc.max_migrations = 1000;
        rc.fill = 0.6 + 0.05 * static_cast<double>(seed);
        const Problem p = make_random_problem(rc);
        const CapacityModel m(p);
        SearchState s(m);
        std::mt19937_64 rng(seed);
        int applied = 0;
        for (int it = 0; it < 3000 && applied < 300; ++it) {
            MigrateMove mv{static_cast<int>(rng() % p.vms.size()), static_cast<int>(rng() % p.hosts.size())};
            const MigrateDelta d = mv.evaluate(s);
            if (!d.feasible) continue;
            SCOPED_TRACE("seed " + std::to_string(seed) + " move " + std::to_string(applied) + " vm " + p.vms[mv.vm].id + " -> " +
                         p.hosts[mv.host].id);
            const Score before = s.objective();
            const SearchState copy = s;
            mv.apply(s, d);
            ASSERT_EQ(s.objective() - before, d.delta);
            ASSERT_EQ(s.migrations(), d.migrations_after);
            // evaluate() must not have mutated anything: the copy taken before apply is unchanged
            // relative to a fresh evaluation.
            const MigrateDelta again = mv.evaluate(copy);
            ASSERT_EQ(again.embedding, d.embedding);
            ++applied;
            if (applied % 25 == 0) {
                ASSERT_NO_THROW(s.check_consistency());
                ASSERT_EQ(s.objective(), full_objective(m, s));
            }
        }
        EXPECT_GT(applied, 20);
        ASSERT_NO_THROW(s.check_consistency());
    }
}

INSTANTIATE_TEST_SUITE_P(Hosts, DeltaTest, ::testing::Values("CQ3", "K4", "Q33", "C4", "2xK4", "Q3", "K2"));

TEST(SearchParams, DeadlineSaturatesInsteadOfOverflowing) {
    // 1e10 s in nanosecond ticks overflows int64: the deadline used to land in the past and the
    // search stopped at once, "by time limit". A huge or infinite limit means none.
    const auto now = std::chrono::steady_clock::now();
    EXPECT_EQ(deadline_after(now, 1e10), std::chrono::steady_clock::time_point::max());
    EXPECT_EQ(deadline_after(now, std::numeric_limits<double>::infinity()), std::chrono::steady_clock::time_point::max());
    EXPECT_GT(deadline_after(now, 9e8), now + std::chrono::hours(24 * 365 * 28));
    EXPECT_EQ(deadline_after(now, 2.5), now + std::chrono::milliseconds(2500));
}

TEST(SearchState, MoveBackRestoresSnapshotAndBudget) {
    RandomCluster rc;
    rc.max_migrations = 100;
    const Problem p = make_random_problem(rc);
    const CapacityModel m(p);
    SearchState s(m);
    const Score obj0 = s.objective();
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        if (!p.vms[v].migratable) continue;
        for (std::size_t h = 0; h < p.hosts.size(); ++h) {
            MigrateMove mv{static_cast<int>(v), static_cast<int>(h)};
            MigrateDelta d = mv.evaluate(s);
            if (!d.feasible) continue;
            mv.apply(s, d);
            EXPECT_EQ(s.migrations(), 1);
            EXPECT_EQ(s.migrated_ram_mib(), p.flavors[p.vms[v].flavor].demand[kRamMib]);
            // Back home: the snapshot's nodes are free again, so the tie-break picks them.
            MigrateMove back{static_cast<int>(v), p.vms[v].host};
            MigrateDelta db = back.evaluate(s);
            ASSERT_TRUE(db.feasible);
            back.apply(s, db);
            EXPECT_EQ(s.host_of(static_cast<int>(v)), p.vms[v].host);
            if (s.migrations() == 0) {
                EXPECT_EQ(s.objective(), obj0);
                EXPECT_EQ(s.migrated_ram_mib(), 0);
            }
            s.set_placements({});
            return;
        }
    }
    FAIL() << "no feasible move in the fixture";
}

TEST(SearchState, BudgetMakesMovesInfeasible) {
    RandomCluster rc;
    rc.max_migrations = 1;
    const Problem p = make_random_problem(rc);
    const CapacityModel m(p);
    SearchState s(m);
    int applied = 0;
    for (std::size_t v = 0; v < p.vms.size() && applied < 1; ++v)
        for (std::size_t h = 0; h < p.hosts.size() && applied < 1; ++h) {
            MigrateMove mv{static_cast<int>(v), static_cast<int>(h)};
            MigrateDelta d = mv.evaluate(s);
            if (d.feasible) {
                mv.apply(s, d);
                ++applied;
            }
        }
    ASSERT_EQ(s.migrations(), 1);
    const int moved = s.migrated_vms()[0];
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        for (std::size_t h = 0; h < p.hosts.size(); ++h) {
            MigrateMove mv{static_cast<int>(v), static_cast<int>(h)};
            MigrateDelta d = mv.evaluate(s);
            if (static_cast<int>(v) != moved && d.feasible) {
                // Only a move that keeps the VM on its snapshot placement could be within budget.
                EXPECT_FALSE(
                    s.differs_from_origin(mv.vm, mv.host, m.evaluator(p.hosts[h].type, p.vms[v].flavor).placements()[d.embedding].mask));
            }
        }
}

struct PlanCase {
    std::string topo;
    std::int64_t budget;
    Amount ram_budget_mib;
};

class PlanTest : public ::testing::TestWithParam<PlanCase> {};

TEST_P(PlanTest, PlanIsValidWithinBudgetAndNotWorse) {
    const PlanCase pc = GetParam();
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        RandomCluster rc;
        rc.host_topology = pc.topo;
        rc.hosts = 10;
        rc.seed = seed;
        rc.max_migrations = pc.budget;
        rc.max_migrated_ram_mib = pc.ram_budget_mib;
        const Problem p = make_random_problem(rc);
        const CapacityModel m(p);
        SearchParams sp;
        sp.max_evaluations = 60000;
        sp.seed = seed;
        sp.quiet = true;
        sp.check_every = 500;
        const SearchResult r = anneal(m, sp);
        const Plan plan = build_plan(m, r.best);
        SCOPED_TRACE(pc.topo + " seed " + std::to_string(seed));
        EXPECT_LE(static_cast<std::int64_t>(plan.steps.size()), pc.budget);
        EXPECT_LE(plan.migrated_ram_mib, pc.ram_budget_mib);
        EXPECT_GE(plan.objective_after, plan.objective_before);
        const auto doc = nlohmann::json::parse(plan_to_json(p, plan, PlanInfo{}).dump());
        const PlanCheck check = validate_plan(m, doc, "<plan>");
        EXPECT_TRUE(check.ok) << check.error;
        EXPECT_DOUBLE_EQ(check.objective_after, plan.objective_after);
    }
}

INSTANTIATE_TEST_SUITE_P(Budgets, PlanTest,
                         ::testing::Values(PlanCase{"CQ3", 3, std::numeric_limits<Amount>::max()}, PlanCase{"CQ3", 12, 200 * 1024},
                                           PlanCase{"K4", 5, std::numeric_limits<Amount>::max()}, PlanCase{"Q33", 8, 100 * 1024},
                                           PlanCase{"2xK4", 4, std::numeric_limits<Amount>::max()}, PlanCase{"CQ3", 0, 0}));

TEST(Annealing, RaisesObjectiveOnFragmentedCluster) {
    RandomCluster rc;
    rc.hosts = 16;
    rc.max_migrations = 20;
    rc.fill = 0.75;
    const Problem p = make_random_problem(rc);
    const CapacityModel m(p);
    SearchParams sp;
    sp.max_evaluations = 200000;
    sp.quiet = true;
    const SearchResult r = anneal(m, sp);
    EXPECT_GT(r.objective_best, r.objective_before);
    const Plan plan = build_plan(m, r.best);
    EXPECT_GT(plan.objective_after, plan.objective_before);
}

TEST(Annealing, DeterministicForSeedAndThreads) {
    RandomCluster rc;
    rc.hosts = 16;
    rc.max_migrations = 15;
    const Problem p = make_random_problem(rc);
    const CapacityModel m(p);
    for (int threads : {1, 2}) {
        SearchParams sp;
        sp.max_evaluations = 80000;
        sp.threads = threads;
        sp.seed = 7;
        sp.quiet = true;
        const Plan a = build_plan(m, anneal(m, sp).best);
        const Plan b = build_plan(m, anneal(m, sp).best);
        ASSERT_EQ(a.steps.size(), b.steps.size());
        for (std::size_t i = 0; i < a.steps.size(); ++i) {
            EXPECT_EQ(a.steps[i].vm, b.steps[i].vm);
            EXPECT_EQ(a.steps[i].to_host, b.steps[i].to_host);
            EXPECT_EQ(a.steps[i].to_pnuma, b.steps[i].to_pnuma);
        }
        EXPECT_EQ(a.objective_after, b.objective_after);
    }
}

TEST(Validate, RejectsTamperedPlans) {
    RandomCluster rc;
    rc.hosts = 12;
    rc.max_migrations = 10;
    const Problem p = make_random_problem(rc);
    const CapacityModel m(p);
    SearchParams sp;
    sp.max_evaluations = 100000;
    sp.quiet = true;
    const Plan plan = build_plan(m, anneal(m, sp).best);
    ASSERT_GE(plan.steps.size(), 2u);
    const auto good = nlohmann::json::parse(plan_to_json(p, plan, PlanInfo{}).dump());
    ASSERT_TRUE(validate_plan(m, good, "p").ok);

    // A step that changes host (a remap keeps it), pointed at the wrong source host.
    std::size_t k = 1;
    while (k < plan.steps.size() && plan.steps[k].from_host == plan.steps[k].to_host) ++k;
    ASSERT_LT(k, plan.steps.size());
    auto wrong_source = good;
    wrong_source["steps"][k]["from_host"] = good["steps"][k]["to_host"];
    auto r = validate_plan(m, wrong_source, "p");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("steps[" + std::to_string(k) + "]"), std::string::npos) << r.error;

    auto bad_objective = good;
    bad_objective["objective_after"] = good["objective_after"].get<double>() + 1.0;
    r = validate_plan(m, bad_objective, "p");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("objective_after"), std::string::npos) << r.error;

    Problem tight = p;
    tight.constraints.max_migrations = 1;
    const CapacityModel mt(tight);
    // The plan's own recorded budget (what it was made for) is what it is checked against...
    EXPECT_TRUE(validate_plan(mt, good, "p").ok);
    // ...unless the caller fixes the budget (vmcap validate --max-migrations).
    r = validate_plan(mt, good, "p", false);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("steps[1]"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("budget"), std::string::npos) << r.error;

    // A plan that exceeds the budget it claims.
    auto claims_less = good;
    claims_less["budget"]["max_migrations"] = 1;
    r = validate_plan(m, claims_less, "p");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("steps[1]"), std::string::npos) << r.error;
    // Every number the plan states is recomputed.
    auto step_objective = good;
    step_objective["steps"][0]["objective_after"] = good["steps"][0]["objective_after"].get<double>() + 1.0;
    r = validate_plan(m, step_objective, "p");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("steps[0]"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("objective_after"), std::string::npos) << r.error;
    auto count = good;
    count["migrations"] = good["migrations"].get<std::int64_t>() + 1;
    r = validate_plan(m, count, "p");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("migrations is"), std::string::npos) << r.error;
    auto gib = good;
    gib["migrated_ram_gib"] = good["migrated_ram_gib"].get<double>() + 0.5;
    EXPECT_FALSE(validate_plan(m, gib, "p").ok);
    auto step_ram = good;
    step_ram["steps"][1]["ram_gib"] = 123456;
    r = validate_plan(m, step_ram, "p");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("ram_gib"), std::string::npos) << r.error;
    auto step_flavor = good;
    step_flavor["steps"][0]["flavor"] = "no-such-flavor";
    EXPECT_FALSE(validate_plan(m, step_flavor, "p").ok);
    auto temporary = good;
    temporary["steps"][plan.steps.size() - 1]["temporary"] = true;  // the last step: its VM never moves again
    r = validate_plan(m, temporary, "p");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("temporary"), std::string::npos) << r.error;

    // Put a VM on nodes that are full: find a step and point it at a full node of its destination.
    auto overload = good;
    const int v0 = plan.steps[0].vm;
    bool made = false;
    for (std::size_t h = 0; h < p.hosts.size() && !made; ++h) {
        const auto usage = compute_node_usage(p);
        for (const Embedding& e : m.evaluator(p.hosts[h].type, p.vms[v0].flavor).placements()) {
            bool full = false;
            const Flavor& fl = p.flavors[p.vms[v0].flavor];
            for (int i = 0; i < fl.num_vnuma(); ++i)
                for (int res = 0; res < 2; ++res)
                    full = full || usage[h][e.map[i] * 2 + res] + fl.node_demand[res] >
                                       p.host_type_of(static_cast<int>(h)).node_capacity[e.map[i] * 2 + res];
            if (full && static_cast<int>(h) != p.vms[v0].host) {
                overload["steps"][0]["to_host"] = p.hosts[h].id;
                overload["steps"][0]["to_pnuma"] = nlohmann::json::array();
                for (int i = 0; i < fl.num_vnuma(); ++i) overload["steps"][0]["to_pnuma"].push_back(e.map[i] + 1);
                made = true;
                break;
            }
        }
    }
    ASSERT_TRUE(made);
    r = validate_plan(m, overload, "p");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("steps[0]"), std::string::npos) << r.error;
}

// The default run length: 1500 evaluations per migratable VM for budgets under 2% of them, times
// s^2 for a budget of s >= 2 percent (s real), at most 25; the budget counted as what the
// migrated-RAM budget lets move (the smallest VMs first). Recounted here from the snapshot itself
// in floating point (an independent formula: the product's integer rounding is within 1).
TEST(SearchParams, DefaultRunLengthGrowsWithTheSquareOfTheBudget) {
    RandomCluster rc;
    rc.hosts = 60;
    rc.fill = 0.9;
    Problem p = make_random_problem(rc);
    std::int64_t n = 0;
    std::vector<Amount> ram;
    for (const Vm& vm : p.vms)
        if (vm.migratable) {
            ++n;
            ram.push_back(p.flavors[vm.flavor].demand[1]);
        }
    ASSERT_GT(n * 1500, 1000000) << "the case needs a snapshot above the 10^6 floor";
    ASSERT_LT(n * 1500 * 25, 250000000) << "the case needs a snapshot below the cap";
    auto at = [&](std::int64_t migrations, Amount ram_mib) {
        p.constraints.max_migrations = migrations;
        p.constraints.max_migrated_ram_mib = ram_mib;
        return default_evaluations(p);
    };
    auto expected = [&](std::int64_t b) {
        const double s = 100.0 * static_cast<double>(std::min(b, n)) / static_cast<double>(n);
        return s < 2.0 ? static_cast<double>(n) * 1500.0 : static_cast<double>(n) * 1500.0 * std::min(25.0, s * s);
    };
    const Amount no_ram = std::numeric_limits<Amount>::max();
    EXPECT_EQ(at(n / 100, no_ram), n * 1500);
    EXPECT_EQ(at((2 * n - 1) / 100, no_ram), n * 1500);  // under 2%
    for (const std::int64_t b : {(2 * n + 99) / 100, (3 * n) / 100 + 1, (4 * n + 50) / 100, (5 * n) / 100 - 1}) {
        SCOPED_TRACE(b);
        EXPECT_NEAR(static_cast<double>(at(b, no_ram)), expected(b), 1.0);
        EXPECT_GE(at(b, no_ram), n * 1500 * 4);  // at least 4x from 2% on
    }
    EXPECT_GT(at((5 * n) / 100 - 1, no_ram), at((4 * n + 50) / 100, no_ram));  // grows within a whole percent
    EXPECT_EQ(at((5 * n + 99) / 100, no_ram), n * 1500 * 25);                  // 5%
    EXPECT_EQ(at(n / 2, no_ram), n * 1500 * 25);                               // at most 25x
    EXPECT_EQ(at(std::numeric_limits<std::int64_t>::max(), no_ram), n * 1500 * 25);
    // A RAM budget holding only the k smallest VMs: the budget counts as k migrations.
    std::sort(ram.begin(), ram.end());
    auto smallest = [&](std::int64_t k) {
        Amount sum = 0;
        for (std::int64_t i = 0; i < k; ++i) sum += ram[static_cast<std::size_t>(i)];
        return sum;
    };
    const std::int64_t one = n / 100, three = (3 * n + 99) / 100;
    at(n, smallest(one));
    EXPECT_EQ(migrations_the_budget_allows(p), one);
    EXPECT_EQ(at(n, smallest(one)), n * 1500);
    EXPECT_NEAR(static_cast<double>(at(n, smallest(three))), expected(three), 1.0);
    EXPECT_EQ(at(one, smallest(three)), n * 1500);  // the count binds first
    // Tiny snapshots keep the floor.
    RandomCluster tiny;
    tiny.hosts = 4;
    Problem q = make_random_problem(tiny);
    q.constraints.max_migrations = 1;
    EXPECT_EQ(default_evaluations(q), 1000000);
}

}  // namespace
}  // namespace vmcap

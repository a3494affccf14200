// Annealing by host regions (optimizer/search/annealing.cpp, anneal_regions): workers
// own disjoint host regions and budget shares, merged at synchronisation points. The oracle is a
// from-scratch state built from the plan the search returns: its objective and migration count
// must equal what the search reports, and the budget (count and RAM) must hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "evaluators/rules/feasibility.h"
#include "fixtures.h"
#include "instances/generator.h"
#include "moves/migrate.h"
#include "optimizer/search/annealing.h"
#include "optimizer/search/greedy.h"
#include "optimizer/plan/plan.h"
#include "optimizer/plan/validate.h"

namespace vmcap {
namespace {

Problem snapshot(int hosts, std::uint64_t seed, double budget = 0.02) {
    GenerateOptions go;
    go.hosts = hosts;
    go.vms = 30 * hosts;
    go.churn = 0.5;
    go.migration_budget = budget;
    go.seed = seed;
    return generate_cluster(go);
}

SearchParams params(int threads, std::int64_t evaluations, std::uint64_t seed = 1) {
    SearchParams sp;
    sp.threads = threads;
    sp.max_evaluations = evaluations;
    sp.time_limit_s = 1e9;
    sp.seed = seed;
    sp.quiet = true;
    return sp;
}

/** The from-scratch oracle: `r.best` rebuilt on a fresh state has exactly the reported objective,
 *  stays within the snapshot's budget, and its plan validates. */
void expect_exact_and_within_budget(const CapacityModel& m, const SearchResult& r) {
    SearchState t(m);
    t.set_placements(r.best);
    t.check_consistency();
    EXPECT_DOUBLE_EQ(t.objective_value(), r.objective_best);
    const Constraints& c = m.problem().constraints;
    EXPECT_LE(t.migrations(), c.max_migrations);
    EXPECT_LE(t.migrated_ram_mib(), c.max_migrated_ram_mib);
    const Plan plan = build_plan(m, r.best);
    const auto doc = nlohmann::json::parse(plan_to_json(m.problem(), plan, PlanInfo{}).dump());
    const PlanCheck ok = validate_plan(m, doc, "plan");
    EXPECT_TRUE(ok.ok) << ok.error;
}

TEST(Regions, BestStateIsExactAndWithinTheBudget) {
    for (int threads : {2, 3}) {
        SCOPED_TRACE(std::string("threads ").append(std::to_string(threads)));
        const Problem p = snapshot(120, 5);
        const CapacityModel m(p);
        const SearchResult r = anneal(m, params(threads, 1500000));
        EXPECT_EQ(r.regions, threads);
        EXPECT_GT(r.objective_best, r.objective_before);
        EXPECT_EQ(r.evaluations, 1500000 / threads * threads);
        expect_exact_and_within_budget(m, r);
    }
}

// The RAM budget is split like the count: a tight GiB budget binds, and the union of the regions'
// moves must still respect it.
TEST(Regions, RamBudgetShares) {
    Problem p = snapshot(96, 8, 0.05);
    p.constraints.max_migrated_ram_mib = 96 * 1024;
    const CapacityModel m(p);
    const SearchResult r = anneal(m, params(2, 1000000));
    ASSERT_EQ(r.regions, 2);
    expect_exact_and_within_budget(m, r);
    SearchState t(m);
    t.set_placements(r.best);
    EXPECT_GT(t.migrated_ram_mib(), 64 * 1024) << "the RAM budget should bind on this snapshot";
}

// From the greedy plan (the pipeline's start), with free remaps and a per-VM objective term
// (ram-cost, separable per host): still exact.
TEST(Regions, GreedyStartFreeRemapsAndRamCost) {
    Problem p = snapshot(100, 11);
    p.constraints.remap_counts_as_migration = false;
    p.objective_terms.emplace_back("ram-cost", 0.01);
    const CapacityModel m(p);
    SearchParams gp = params(1, 0);
    const SearchResult g = greedy(m, gp);
    SearchParams sp = params(2, 1000000);
    sp.start = g.best;
    sp.mix.set("remap", 0.05);
    const SearchResult r = anneal(m, sp);
    ASSERT_EQ(r.regions, 2);
    EXPECT_GE(r.objective_best, g.objective_best);
    expect_exact_and_within_budget(m, r);
}

// Regions without a migratable VM (only host 0's VMs may move, at most 3 of them; 16 hosts a
// region) sit rounds out, and the merged result stays exact (--check on).
TEST(Regions, RegionsWithoutMigratableVms) {
    Problem p = snapshot(64, 12, 0.05);
    for (Vm& v : p.vms) v.migratable = v.host == 0;
    p.constraints.max_migrations = 3;
    const CapacityModel m(p);
    SearchParams sp = params(4, 400000);
    sp.check_every = 100;
    const SearchResult r = anneal(m, sp);
    ASSERT_EQ(r.regions, 4);
    EXPECT_GT(r.objective_best, r.objective_before);
    expect_exact_and_within_budget(m, r);
}

TEST(Regions, DeterministicForSeedAndThreads) {
    const Problem p = snapshot(80, 3);
    const CapacityModel m(p);
    const SearchResult a = anneal(m, params(2, 800000, 7));
    const SearchResult b = anneal(m, params(2, 800000, 7));
    ASSERT_EQ(a.best.size(), b.best.size());
    for (std::size_t i = 0; i < a.best.size(); ++i) {
        EXPECT_EQ(a.best[i].vm, b.best[i].vm);
        EXPECT_EQ(a.best[i].host, b.best[i].host);
        EXPECT_EQ(a.best[i].pnuma, b.best[i].pnuma);
    }
    EXPECT_EQ(a.objective_best, b.objective_best);
    ASSERT_EQ(a.convergence.size(), b.convergence.size());
    for (std::size_t i = 0; i < a.convergence.size(); ++i) EXPECT_EQ(a.convergence[i].objective, b.convergence[i].objective);
}

// --check: every merge checks that the merged state's objective is the sum of the regions', every
// new best is rebuilt from scratch, every proposal is checked to stay in its region, and the
// aggregates are recomputed every 50 applied moves; any difference throws.
TEST(Regions, CheckModeFindsNoDifference) {
    const Problem p = snapshot(64, 4);
    const CapacityModel m(p);
    SearchParams sp = params(2, 300000);
    sp.check_every = 50;
    SearchResult r;
    EXPECT_NO_THROW(r = anneal(m, sp));
    EXPECT_EQ(r.regions, 2);
}

// The convergence trace: one row per synchronisation point, evaluations and best objective never
// decreasing, ending at the result.
TEST(Regions, ConvergenceTrace) {
    const Problem p = snapshot(64, 6);
    const CapacityModel m(p);
    for (bool regions : {true, false}) {
        SearchParams sp = params(2, 400000);
        sp.regions = regions;
        const SearchResult r = anneal(m, sp);
        ASSERT_FALSE(r.convergence.empty());
        for (std::size_t i = 1; i < r.convergence.size(); ++i) {
            EXPECT_GE(r.convergence[i].evaluations, r.convergence[i - 1].evaluations);
            EXPECT_GE(r.convergence[i].objective, r.convergence[i - 1].objective);
        }
        EXPECT_EQ(r.convergence.back().objective, r.objective_best);
        EXPECT_EQ(r.convergence.back().evaluations, r.evaluations);
    }
}

// Regions only where the deltas add up and regions are large enough; otherwise chains.
TEST(Regions, ChainsWhereRegionsDoNotApply) {
    const SearchParams two = params(2, 100000);
    {
        const Problem p = snapshot(31, 2);  // < 2 x 16 hosts
        const CapacityModel m(p);
        EXPECT_EQ(anneal(m, two).regions, 0);
    }
    {
        const Problem p = snapshot(32, 2);
        const CapacityModel m(p);
        EXPECT_EQ(anneal(m, two).regions, 2);
        SearchParams chains = two;
        chains.regions = false;
        EXPECT_EQ(anneal(m, chains).regions, 0);
        EXPECT_EQ(anneal(m, params(1, 100000)).regions, 0);
    }
    for (const bool locality : {false, true}) {
        SCOPED_TRACE(locality ? "vlinks and the locality term" : "vlinks (the link-capacity filter)");
        Problem p = snapshot(40, 2);
        if (locality) p.objective_terms.emplace_back("locality-weight", 0.01);  // a term over vlink pairs: not separable per host
        NetworkOptions no;
        no.kind = "leaf-spine";
        no.vdc_size = 4;
        add_network(p, no);
        const CapacityModel m(p);
        const SearchResult r = anneal(m, two);
        EXPECT_EQ(r.regions, 0);
        expect_exact_and_within_budget(m, r);
    }
}

// A filter that declares itself separable per host (a drain) keeps host regions
// on; the merged best state obeys it (from-scratch validation consults the filter) and is exact.
TEST(Regions, PerHostFilterKeepsRegionsOn) {
    const Problem p = snapshot(40, 3, 0.05);
    const SearchParams two = params(2, 200000);
    const CapacityModel plain(p);
    const SearchResult free_run = anneal(plain, two);
    ASSERT_EQ(free_run.regions, 2);
    std::vector<int> arrivals(p.hosts.size(), 0);
    for (const Placement& pl : free_run.best)
        if (pl.host != p.vms[pl.vm].host) ++arrivals[pl.host];
    const int drained = static_cast<int>(std::max_element(arrivals.begin(), arrivals.end()) - arrivals.begin());
    ASSERT_GT(arrivals[drained], 0);

    CapacityModel m(p);
    m.add_filter(std::make_unique<test::DrainFilter>(drained));
    const SearchResult r = anneal(m, two);
    EXPECT_EQ(r.regions, 2);
    EXPECT_GT(r.objective_best, r.objective_before);
    for (const Placement& pl : r.best)
        EXPECT_FALSE(pl.host == drained && p.vms[pl.vm].host != drained) << "vm " << p.vms[pl.vm].id << " on the drained host";
    expect_exact_and_within_budget(m, r);
}

// A worker's budget share: SearchState::set_budget narrows what moves may spend.
TEST(Regions, SetBudgetLimitsMoves) {
    const Problem p = snapshot(20, 9, 0.05);
    const CapacityModel m(p);
    SearchState s(m);
    // A VM and a host where it fits elsewhere.
    for (int v = 0; v < static_cast<int>(p.vms.size()); ++v) {
        for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h) {
            if (h == s.host_of(v)) continue;
            const MigrateMove mv{v, h};
            if (!mv.evaluate(s).feasible) continue;
            s.set_budget(s.migrations(), p.constraints.max_migrated_ram_mib);
            EXPECT_FALSE(mv.evaluate(s).feasible) << "no migration left in the share";
            s.set_budget(s.migrations() + 1, 0);
            EXPECT_FALSE(mv.evaluate(s).feasible) << "no RAM left in the share";
            s.set_budget(std::numeric_limits<std::int64_t>::max(), std::numeric_limits<Amount>::max());
            EXPECT_EQ(s.max_migrations(), p.constraints.max_migrations) << "clamped to the snapshot's budget";
            EXPECT_TRUE(mv.evaluate(s).feasible);
            return;
        }
    }
    FAIL() << "no feasible migration on the snapshot";
}

}  // namespace
}  // namespace vmcap

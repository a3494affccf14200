// Tabu search (optimizer/search/tabu.h) and the annealing's reheats: never worse than the start,
// deterministic for a seed and thread count, consistent under --check, the exact optimum on small
// instances (optimizer/solvers/exact_bb.h as the oracle); CLI --algorithm tabu, --move-mix, --reheat.
#include <gtest/gtest.h>

#include "evaluators/state/capacity_model.h"
#include "optimizer/solvers/exact_bb.h"
#include "optimizer/search/greedy.h"
#include "optimizer/plan/plan.h"
#include "optimizer/search/annealing.h"
#include "optimizer/search/tabu.h"
#include "tests/cli_run.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

using test::make_random_problem;
using test::RandomCluster;

Problem cluster(const char* topology, std::uint64_t seed, std::int64_t budget, int hosts = 12) {
    RandomCluster rc;
    rc.host_topology = topology;
    rc.hosts = hosts;
    rc.seed = seed;
    rc.max_migrations = budget;
    rc.fill = 0.75;
    return make_random_problem(rc);
}

TEST(Tabu, NeverWorseThanGreedyStartAndDeterministic) {
    for (std::uint64_t seed : {1, 2, 3}) {
        const Problem p = cluster(seed == 2 ? "K4" : "CQ3", seed, 5);
        const CapacityModel m(p);
        SearchParams sp;
        sp.quiet = true;
        sp.seed = seed;
        sp.threads = 2;
        sp.max_evaluations = 200000;
        const SearchResult g = greedy(m, sp);
        sp.start = g.best;
        const SearchResult a = tabu_search(m, sp, TabuParams{});
        const SearchResult b = tabu_search(m, sp, TabuParams{});
        EXPECT_GE(a.objective_best, g.objective_best) << seed;
        EXPECT_EQ(a.objective_best, b.objective_best);
        ASSERT_EQ(a.best.size(), b.best.size());
        for (std::size_t i = 0; i < a.best.size(); ++i) {
            EXPECT_EQ(a.best[i].vm, b.best[i].vm);
            EXPECT_EQ(a.best[i].host, b.best[i].host);
            EXPECT_EQ(a.best[i].pnuma, b.best[i].pnuma);
        }
        // The reported best is the objective of its placements, recomputed from scratch.
        SearchState s(m);
        s.set_placements(a.best);
        EXPECT_DOUBLE_EQ(s.objective_value(), a.objective_best);
        EXPECT_LE(s.migrations(), p.constraints.max_migrations);
    }
}

TEST(Tabu, CheckModeRecomputesEveryMove) {
    const Problem p = cluster("CQ3", 7, 4);
    const CapacityModel m(p);
    SearchParams sp;
    sp.quiet = true;
    sp.max_evaluations = 20000;
    sp.check_every = 1;
    EXPECT_NO_THROW(tabu_search(m, sp, TabuParams{5, 16}));
    EXPECT_THROW(tabu_search(m, sp, TabuParams{-1, 16}), std::invalid_argument);
    EXPECT_THROW(tabu_search(m, sp, TabuParams{5, 0}), std::invalid_argument);
}

TEST(Tabu, ReachesTheProvenOptimumOnSmallInstances) {
    int at_optimum = 0, total = 0;
    for (std::uint64_t seed = 21; seed < 27; ++seed) {
        const Problem p = cluster(seed % 2 ? "K4" : "CQ3", seed, 2, 5);
        const CapacityModel m(p);
        if (m.num_targets() == 0) continue;
        SearchParams sp;
        sp.quiet = true;
        sp.seed = seed;
        sp.max_evaluations = 300000;
        const SearchResult g = greedy(m, sp);
        sp.start = g.best;
        const SearchResult t = tabu_search(m, sp, TabuParams{});
        BranchBoundParams bp;
        bp.warm_start_evaluations = -1;  // the oracle finds the optimum by itself
        const ExactResult ex = solve_exact_bb(m, bp);
        ASSERT_TRUE(ex.proven);
        EXPECT_LE(t.objective_best, ex.objective + 1e-9);  // the oracle is an upper bound
        EXPECT_GE(t.objective_best, g.objective_best);
        ++total;
        at_optimum += t.objective_best >= ex.objective - 1e-9 ? 1 : 0;
    }
    ASSERT_GE(total, 4);
    EXPECT_GE(at_optimum, total - 1) << "tabu reached the optimum on " << at_optimum << " of " << total;
}

TEST(Annealing, ReheatsOnlyWhenEnabledAndStaysDeterministic) {
    const Problem p = cluster("CQ3", 5, 6);
    const CapacityModel m(p);
    SearchParams sp;
    sp.quiet = true;
    sp.max_evaluations = 600000;
    sp.reheat_factor = 1.0;
    EXPECT_EQ(anneal(m, sp).reheats, 0);
    sp.reheat_factor = 3.0;
    const SearchResult a = anneal(m, sp), b = anneal(m, sp);
    EXPECT_GT(a.reheats, 0);  // a 12-host instance stalls long before 600,000 evaluations
    EXPECT_EQ(a.reheats, b.reheats);
    EXPECT_EQ(a.objective_best, b.objective_best);
    sp.reheat_factor = 0.5;
    EXPECT_THROW(anneal(m, sp), std::invalid_argument);
}

TEST(TabuCli, TabuPlanValidatesAndBadSearchOptionsExit2) {
    const std::string plan = (test::tmp_dir() / "tabu-plan.json").string();
    std::filesystem::remove(plan);
    test::CmdResult r = test::run_vmcap("plan --algorithm tabu --max-evaluations 200000 --quiet --out " + plan);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("tabu search"), std::string::npos);
    r = test::run_vmcap("validate --plan " + plan);
    EXPECT_EQ(r.code, 0) << r.err;
    std::filesystem::remove(plan);
    for (const char* bad : {"--algorithm tabu --tabu-candidates 0", "--move-mix swap=2", "--move-mix swap", "--move-mix bogus=0.1",
                            "--move-mix swap=0.6,exchange=0.6", "--reheat 0.5", "--algorithm anneal"}) {
        r = test::run_vmcap(std::string("plan --quiet --out ") + plan + " " + bad);
        EXPECT_EQ(r.code, 2) << bad;
        EXPECT_NE(r.err.find("vmcap plan: "), std::string::npos) << bad << ": " << r.err;
        EXPECT_FALSE(std::filesystem::exists(plan)) << bad;
    }
}

}  // namespace
}  // namespace vmcap

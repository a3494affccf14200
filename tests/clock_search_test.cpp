// A search that uses its clock: the annealing cools by the time limit when its evaluation budget is
// out of reach, and every search stops as soon as its best state meets the upper bound (proven
// optimal). Snapshots shaped like VMR2L's (two-NUMA hosts, the objective counting free 16-vCPU
// single-node slots), where a schedule that never cools ends at greedy's objective.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <fstream>
#include <limits>
#include <random>

#include <nlohmann/json.hpp>

#include "instances/snapshot_io.h"
#include "optimizer/bound/upper_bound.h"
#include "optimizer/search/annealing.h"
#include "optimizer/search/greedy.h"
#include "optimizer/search/tabu.h"
#include "optimizer/solvers/optimize.h"
#include "tests/cli_run.h"
#include "tests/fixtures.h"
#include "tests/sanitizers.h"

namespace vmcap {
namespace {

/** Two-NUMA hosts of 44 vCPU and 128 GiB per node; single-node flavors of 1-16 vCPU and two-node
 *  ones of 32 and 64; only the single-node 16c32g is a target (weight 1). VMs drawn by a fixed mix
 *  at random hosts and nodes, every one migratable, up to `vms`. */
Problem vmr2l_shaped(int hosts, int vms, std::uint64_t seed, std::int64_t max_migrations) {
    Problem p;
    p.resources = {"vcpu", "ram_mib"};
    p.host_types.push_back(test::small_host_type("K2-44c128g", "K2", 44, 128 * 1024));
    for (int h = 0; h < hosts; ++h) p.hosts.push_back(Host{test::name("h", h), 0, test::name("r", h / 20), "p0", ""});
    test::add_flavor(p, "1c2g", 1, 2, "K1", 0.0);
    test::add_flavor(p, "2c4g", 2, 4, "K1", 0.0);
    test::add_flavor(p, "4c8g", 4, 8, "K1", 0.0);
    test::add_flavor(p, "8c16g", 8, 16, "K1", 0.0);
    test::add_flavor(p, "16c32g", 16, 32, "K1", 1.0);
    test::add_flavor(p, "32c64g", 32, 64, "K2", 0.0);
    test::add_flavor(p, "64c128g", 64, 128, "K2", 0.0);
    std::mt19937_64 rng(seed);
    test::RandomPlacing how;
    how.attempts = 200 * vms;
    how.max_vms = vms;
    how.pinned_one_in = std::numeric_limits<int>::max();
    how.flavor = [](std::mt19937_64& r) {
        std::discrete_distribution<int> mix({13, 16, 20, 22, 16, 9, 4});
        return mix(r);
    };
    test::place_at_random(p, rng, how);
    p.constraints.max_migrations = max_migrations;
    finalize_problem(p, "<vmr2l-shaped>");
    return p;
}

OptimizeParams annealing_params(std::int64_t evaluations, double time_limit_s) {
    OptimizeParams op;
    op.search.seed = 1;
    op.search.quiet = true;
    op.search.max_evaluations = evaluations;
    op.search.time_limit_s = time_limit_s;
    return op;
}

// Today's failure: a budget far beyond what the time limit evaluates kept the temperature at its
// start, and the time-cut run ended at greedy's objective, below a run of the same seed with a
// budget it completes. With the clock driving the schedule it cools within the time it has.
TEST(ClockSchedule, ATimeCutRunCoolsAndEndsAtLeastAsHighAsACompletedBudget) {
    const Problem p = vmr2l_shaped(120, 900, 3, 45);
    const CapacityModel m(p);
    // The annealing alone on both sides (no ruin and recreate): a completed run's ruins take it
    // from 153 to 156 here, while a clock-cut run leaves them no time unless the room plan is well
    // ahead (OptimizeParams::kRuinTimeShare), so with them the comparison measured whether the
    // cut annealing happened to reach 156 (155 in 1 of 3 runs on 2026-12-02, after greedy's room
    // candidates were cached and the annealing's trajectory under the clock moved).
    OptimizeParams completed_params = annealing_params(400000, 60.0);
    completed_params.ruin_iterations = 0;
    const OptimizeResult completed = optimize(m, completed_params);
    ASSERT_EQ(completed.search.stopped_by, StopReason::EvaluationBudget);
    EXPECT_EQ(completed.search.clock_driven_from, -1);
    ASSERT_GT(completed.plan.score_after, completed.greedy_score) << "the instance must reward cooling";
    OptimizeParams cut_params = annealing_params(250000000, 3.0);
    cut_params.ruin_iterations = 0;
    const OptimizeResult cut = optimize(m, cut_params);
    ASSERT_EQ(cut.search.stopped_by, StopReason::TimeLimit);
    EXPECT_GE(cut.search.clock_driven_from, 0);
    std::printf("greedy %g; 400,000 evaluations: %g; 250 M evaluations cut at 3 s: %g (%lld evaluations, clock from %lld)\n",
                completed.greedy_objective, completed.plan.objective_after, cut.plan.objective_after,
                static_cast<long long>(cut.search.evaluations), static_cast<long long>(cut.search.clock_driven_from));
#ifndef VMCAP_TEST_UNDER_ASAN
    // What 3 s buy is a Release figure: under AddressSanitizer (scripts/sanitize.sh) the search is
    // much slower (with the ruins on: 154 and 155 against 156 there, after the ruins' floor), so
    // that stage runs the clock-driven path for its memory checks and leaves the comparison to
    // scripts/test.sh (Release, ruins off: 156 against 153 in five runs).
    EXPECT_GE(cut.plan.score_after, completed.plan.score_after)
        << "time-cut " << cut.plan.objective_after << " vs completed " << completed.plan.objective_after << " (greedy "
        << completed.greedy_objective << ")";
#endif
}

// A run that ends by its evaluation budget is untouched by the clock: twice the same plan, and
// never clock-driven (the golden plans pin the exact trajectories).
TEST(ClockSchedule, AnEvaluationBoundedRunIsReproducible) {
    const Problem p = vmr2l_shaped(60, 450, 5, 20);
    const CapacityModel m(p);
    for (int threads : {1, 2}) {
        OptimizeParams op = annealing_params(300000, 60.0);
        op.search.threads = threads;
        const OptimizeResult a = optimize(m, op), b = optimize(m, op);
        std::printf("t%d: %g in %lld evaluations, %.2f s\n", threads, a.plan.objective_after, static_cast<long long>(a.search.evaluations),
                    a.search.seconds);
        EXPECT_EQ(a.search.clock_driven_from, -1);
        EXPECT_EQ(a.search.stopped_by, StopReason::EvaluationBudget);
        EXPECT_EQ(a.plan.score_after, b.plan.score_after);
        EXPECT_EQ(a.search.best.size(), b.search.best.size());
    }
}

/** A VMR2L-shaped snapshot where greedy's plan meets the bound (checked by the test using it). */
Problem greedy_optimal() {
    return vmr2l_shaped(100, 700, 1, 30);
}

TEST(ProvenOptimum, TheSearchEndsWhenGreedyMeetsTheBound) {
    const Problem p = greedy_optimal();
    const CapacityModel m(p);
    const UpperBound ub = compute_upper_bound(m);
    ASSERT_TRUE(ub.complete);
    SearchParams gp;
    gp.quiet = true;
    const SearchResult g = greedy(m, gp);
    ASSERT_EQ(g.score_best, ub.score) << "the fixture must have greedy meet the bound";
    for (Algorithm algorithm : {Algorithm::Annealing, Algorithm::Tabu, Algorithm::Greedy}) {
        OptimizeParams op = annealing_params(250000000, 600.0);
        op.algorithm = algorithm;
        op.bound = UpperBoundParams{};
        const OptimizeResult r = optimize(m, op);
        ASSERT_TRUE(r.bound.has_value());
        EXPECT_EQ(r.bound->score, ub.score);
        EXPECT_EQ(r.search.stopped_by, StopReason::ProvenOptimal);
        EXPECT_EQ(r.plan.score_after, ub.score);
        EXPECT_EQ(r.phase_evaluations, 0) << "no annealing or tabu evaluation after greedy's proven plan";
        EXPECT_LT(r.search.evaluations, 1000000);
    }
    // Without the bound the same run spends its evaluation budget (here a smaller one).
    const OptimizeResult unbounded = optimize(m, annealing_params(2000000, 600.0));
    EXPECT_EQ(unbounded.search.stopped_by, StopReason::EvaluationBudget);
}

// From the snapshot (no greedy start) annealing and tabu stop as soon as their best state reaches
// bound_score. A score halfway from the snapshot to greedy's stands in for the bound, so that every
// driver reaches it within a short test (the contract: a value below the optimum stops the search
// at a state that is not optimal). With two threads the stop waits for the synchronisation point,
// so the run is reproducible.
TEST(ProvenOptimum, AnnealingAndTabuStopAtTheBoundScore) {
    const Problem p = greedy_optimal();
    const CapacityModel m(p);
    SearchParams gp;
    gp.quiet = true;
    const SearchResult g = greedy(m, gp);
    const SearchState snapshot(m);
    const Score target = snapshot.objective() + (g.score_best - snapshot.objective()) / 2;
    struct Run {
        Algorithm algorithm;
        int threads;
        bool regions;
    };
    for (const Run& run : {Run{Algorithm::Annealing, 1, true}, Run{Algorithm::Annealing, 2, true}, Run{Algorithm::Annealing, 2, false},
                           Run{Algorithm::Tabu, 1, true}, Run{Algorithm::Tabu, 2, true}}) {
        const char* name = run.algorithm == Algorithm::Tabu ? "tabu" : "sa";
        SCOPED_TRACE(std::string(name) + " t" + std::to_string(run.threads) + (run.regions ? "" : " chains"));
        SearchParams sp;
        sp.quiet = true;
        sp.seed = 2;
        sp.threads = run.threads;
        sp.regions = run.regions;
        sp.max_evaluations = 50000000;
        sp.time_limit_s = 600.0;
        sp.bound_score = target;
        const auto search = [&] { return run.algorithm == Algorithm::Tabu ? tabu_search(m, sp, TabuParams{}) : anneal(m, sp); };
        const SearchResult a = search();
        std::printf("%s t%d%s: %g (stop at %g) in %lld evaluations, %.3f s, %s\n", name, run.threads, run.regions ? "" : " chains",
                    a.objective_best, to_objective(target), static_cast<long long>(a.evaluations), a.seconds,
                    std::string(to_string(a.stopped_by)).c_str());
        EXPECT_EQ(a.stopped_by, StopReason::ProvenOptimal);
        EXPECT_GE(a.score_best, target);
        EXPECT_LT(a.evaluations, 5000000);
        if (run.algorithm == Algorithm::Annealing) EXPECT_EQ(a.regions, run.threads > 1 && run.regions ? 2 : 0);
        const SearchResult b = search();
        EXPECT_EQ(a.evaluations, b.evaluations);
        EXPECT_EQ(a.score_best, b.score_best);
        EXPECT_EQ(a.best.size(), b.best.size());
    }
}

// The plan file says why the search stopped.
TEST(ProvenOptimum, ThePlanFileSaysProvenOptimal) {
    const std::string snap = (test::tmp_dir() / "greedy-optimal.json").string();
    { std::ofstream(snap) << snapshot_to_json(greedy_optimal()).dump(); }
    const std::string out = (test::tmp_dir() / "greedy-optimal-plan.json").string();
    const auto r = test::run_vmcap("plan --quiet --cluster " + snap + " --max-evaluations 250000000 --out " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto plan = nlohmann::json::parse(read_text_file(out));
    EXPECT_EQ(plan.at("search").at("stopped_by").get<std::string>(), "proven optimal");
    EXPECT_EQ(plan.at("gap").get<double>(), 0.0);
    EXPECT_LT(plan.at("search").at("evaluations").get<std::int64_t>(), 1000000);
    const auto v = test::run_vmcap("validate --cluster " + snap + " --plan " + out);
    EXPECT_EQ(v.code, 0) << v.out << v.err;
    // validate reads the reason back: a stop at the bound needs a bound the search reached.
    auto lower = plan;
    lower["search"]["best_state_objective"] = plan.at("upper_bound").get<double>() - 1.0;
    const std::string bad = (test::tmp_dir() / "greedy-optimal-bad.json").string();
    std::ofstream(bad) << lower.dump();
    const auto w = test::run_vmcap("validate --bound-check consistency --cluster " + snap + " --plan " + bad);
    EXPECT_EQ(w.code, 3) << w.out << w.err;
    EXPECT_NE((w.out + w.err).find("search.stopped_by is \"proven optimal\", but search.best_state_objective"), std::string::npos)
        << w.out << w.err;
}

}  // namespace
}  // namespace vmcap

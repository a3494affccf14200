// Temperature calibration of the annealing (robust defaults): with hundreds of
// weighted targets of any scale the annealing must not freeze at the greedy plan; with one target
// the calibration keeps the earlier polish rule; scaling every weight by a power of two changes no
// decision.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "instances/generator.h"
#include "optimizer/search/annealing.h"
#include "optimizer/search/greedy.h"

namespace vmcap {
namespace {

/** A generated 40-host CQ3 snapshot whose own flavors are no targets, plus `targets` target
 *  flavors from a grid of vCPU x GiB per vCPU (vNUMA by the snapshot rule: one node if it needs
 *  at most half a pNUMA node, else K2, else C4), weights log-uniform in [wmin, wmax], 3 decimals. */
Problem many_target_problem(int targets, double wmin, double wmax, std::uint64_t seed, int hosts = 40) {
    GenerateOptions go;
    go.hosts = hosts;
    go.vms = 35 * hosts;
    go.churn = 0.5;
    go.migration_budget = 0.02;
    go.seed = seed;
    Problem p = generate_cluster(go);
    for (Flavor& f : p.flavors) f.weight = 0.0;
    std::mt19937_64 rng(seed);
    std::vector<std::pair<Amount, Amount>> grid;  // (vcpu, ram_mib)
    for (Amount vcpu = 1; vcpu <= 64; ++vcpu)
        for (Amount ram = 1024 * vcpu; ram <= 8192 * vcpu; ram += 256 * vcpu) grid.emplace_back(vcpu, ram);
    std::shuffle(grid.begin(), grid.end(), rng);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    int added = 0;
    for (const auto& [vcpu, ram] : grid) {
        if (added == targets) break;
        const char* topo = nullptr;
        if (vcpu <= 8 && ram <= 32768)
            topo = "K1";
        else if (vcpu % 2 == 0 && vcpu / 2 <= 8 && ram / 2 <= 32768)
            topo = "K2";
        else if (vcpu % 4 == 0 && vcpu / 4 <= 16 && ram / 4 <= 65536)
            topo = "C4";
        if (topo == nullptr) continue;
        Flavor f;
        // Built by appending: "literal" + string trips a GCC 12 -Wrestrict false positive.
        f.name = "t";
        f.name.append(std::to_string(vcpu)).append("c").append(std::to_string(ram)).append("m");
        f.demand = {vcpu, ram};
        f.vnuma = parse_topology(topo);
        f.weight = std::max(0.001, std::round(1000.0 * wmin * std::pow(wmax / wmin, u(rng))) / 1000.0);
        p.flavors.push_back(f);
        ++added;
    }
    finalize_problem(p, "<many targets>");
    return p;
}

SearchResult greedy_then_anneal(const CapacityModel& m, SearchResult* greedy_out, std::int64_t evaluations) {
    SearchParams gp;
    gp.quiet = true;
    const SearchResult g = greedy(m, gp);
    if (greedy_out != nullptr) *greedy_out = g;
    SearchParams sp;
    sp.quiet = true;
    sp.max_evaluations = evaluations;
    sp.time_limit_s = 1e9;
    sp.start = g.best;
    return anneal(m, sp);
}

// Before the calibration followed the sampled losses, the start temperature from the greedy plan
// was 0.3 x the smallest weight: with 300 targets a migration changes hundreds of capacities, so
// no worsening move was ever accepted and the annealing ended at the greedy plan. (Seed 1 of the
// same generator ends at greedy's objective too at 0.3-3 M evaluations; seeds 2 and 3 gain.)
TEST(Calibration, ManyWeightedTargetsAcceptWorseningMovesAndBeatGreedy) {
    for (std::uint64_t seed : {2, 3}) {
        SCOPED_TRACE(std::string("seed ").append(std::to_string(seed)));
        const Problem p = many_target_problem(300, 0.01, 10.0, seed);
        ASSERT_GE(p.flavors.size(), 300u);
        const CapacityModel m(p);
        ASSERT_EQ(m.num_targets(), 300);
        SearchResult g;
        const SearchResult r = greedy_then_anneal(m, &g, 1000000);
        ASSERT_GT(g.objective_best, g.objective_before);
        EXPECT_GT(r.early_worsening_accepted, 100) << "start temperature " << r.temperature_start;
        EXPECT_GT(r.temperature_start, 0.3 * 0.01 * 100);  // far above the old 0.3 x smallest weight
        EXPECT_GT(r.objective_best, g.objective_best);
        // The old start temperature on the same run: (almost) frozen, no better than greedy's plan.
        SearchParams old;
        old.quiet = true;
        old.max_evaluations = 1000000;
        old.time_limit_s = 1e9;
        old.start = g.best;
        double w_min = 1e9;
        for (const Flavor& f : p.flavors)
            if (f.weight > 0) w_min = std::min(w_min, f.weight);
        old.initial_temperature = 0.3 * w_min;
        const SearchResult cold = anneal(m, old);
        EXPECT_LT(cold.early_worsening_accepted, r.early_worsening_accepted / 10);
    }
}

// One target (weight 1 or 0.125): the 5th percentile of the sampled losses is one unit of the
// weight, so the polish start is the earlier 0.3 x weight and the end 1/20 of the weight.
TEST(Calibration, OneTargetKeepsThePolishRule) {
    for (double w : {1.0, 0.125}) {
        GenerateOptions go;
        go.hosts = 60;
        go.vms = 1500;
        go.churn = 0.5;
        go.migration_budget = 0.02;
        Problem p = generate_cluster(go);
        int kept = 0;
        for (Flavor& f : p.flavors)
            if (f.weight > 0) f.weight = (kept++ == 0) ? w : 0.0;
        finalize_problem(p, "<one target>");
        const CapacityModel m(p);
        ASSERT_EQ(m.num_targets(), 1);
        const SearchResult r = greedy_then_anneal(m, nullptr, 200000);
        EXPECT_DOUBLE_EQ(r.temperature_start, 0.3 * w);
        EXPECT_DOUBLE_EQ(r.temperature_end, w / 20.0);
        EXPECT_GT(r.early_worsening_accepted, 0);
    }
}

// With a further objective term (ram-cost) the polish start accepts the small loss with
// probability e^-1 instead of e^-3.3, never hotter than the melt temperature:
// the same one-target snapshot starts above 0.3 x the weight (the small loss is still one unit of
// the weight: the term's smaller losses fall below the 5th percentile's floor, the weight).
TEST(Calibration, ObjectiveTermsPolishHotter) {
    GenerateOptions go;
    go.hosts = 60;
    go.vms = 1500;
    go.churn = 0.5;
    go.migration_budget = 0.02;
    Problem p = generate_cluster(go);
    int kept = 0;
    for (Flavor& f : p.flavors)
        if (f.weight > 0) f.weight = (kept++ == 0) ? 1.0 : 0.0;
    finalize_problem(p, "<one target>");
    const SearchResult without = greedy_then_anneal(CapacityModel(p), nullptr, 200000);
    EXPECT_DOUBLE_EQ(without.temperature_start, 0.3);
    p.objective_terms.emplace_back("ram-cost", 0.05);
    const SearchResult with = greedy_then_anneal(CapacityModel(p), nullptr, 200000);
    // min(melt temperature, 1 x small loss): here the melt temperature, 0.52 (measured), since
    // the term's many small losses lower the mean loss; the earlier rule gave 0.3 with the term.
    EXPECT_GT(with.temperature_start, 0.3);
    EXPECT_LE(with.temperature_start, 1.0);
    EXPECT_DOUBLE_EQ(with.temperature_end, 1.0 / 20.0);
}

// Every weight times 8 (exact in binary floating point): every delta, loss sample, temperature and
// the migration tie-break scale by 8, so every acceptance decision and the plan are the same.
TEST(Calibration, WeightScaleChangesNoDecision) {
    const Problem p = many_target_problem(120, 0.01, 10.0, 3);
    Problem q = p;
    for (Flavor& f : q.flavors) f.weight *= 8.0;
    const CapacityModel mp(p), mq(q);
    const SearchResult a = greedy_then_anneal(mp, nullptr, 150000);
    const SearchResult b = greedy_then_anneal(mq, nullptr, 150000);
    EXPECT_DOUBLE_EQ(b.temperature_start, 8.0 * a.temperature_start);
    EXPECT_DOUBLE_EQ(b.temperature_end, 8.0 * a.temperature_end);
    EXPECT_EQ(a.accepted, b.accepted);
    EXPECT_DOUBLE_EQ(b.objective_best, 8.0 * a.objective_best);
    ASSERT_EQ(a.best.size(), b.best.size());
    for (std::size_t i = 0; i < a.best.size(); ++i) {
        EXPECT_EQ(a.best[i].vm, b.best[i].vm);
        EXPECT_EQ(a.best[i].host, b.best[i].host);
    }
}

}  // namespace
}  // namespace vmcap

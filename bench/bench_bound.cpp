// Benchmarks of the upper bound (optimizer/bound/upper_bound.h) on generated clusters
// (instances/generator.h, 300 hosts, 9,000 VMs, budget 5% of the VMs, seed 12):
//
//   BM_UpperBound/<Host>                 compute_upper_bound: the removal-only bound (every host's
//                                        table by enumeration, branch and bound, node subsets)
//   BM_LagrangianVectors/<Host>_<arr>    lagrangian_upper_bound, 3 price vectors from pi = the
//                                        landing costs toward 85% of the removal-only bound; items/s
//                                        = price vectors per second (each a table per host and a
//                                        knapsack). <arr>: "pieces" (the generator's targets, of
//                                        different per-node demands: arrivals as one-node pieces)
//                                        or "whole" (only 8c64g/K2 and 16c128g/C4, both 4c32g per
//                                        node: multi-node arrivals whole, the table T of units)
//
// One thread. The price vectors' time is what decides how many fit the plan's time limit
// (docs/performance.md, "Price vectors of the arrivals' Lagrangian").
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include "evaluators/state/capacity_model.h"
#include "instances/generator.h"
#include "optimizer/bound/upper_bound.h"

namespace vmcap {
namespace {

/** A generated cluster and its model, made once per (topology, arrivals). */
struct BoundCase {
    Problem problem;
    std::unique_ptr<CapacityModel> model;
    Score removal_only = 0;
};

const BoundCase& bound_case(const std::string& topology, bool whole) {
    static std::map<std::string, std::unique_ptr<BoundCase>> cases;
    const std::string key = topology + (whole ? "/whole" : "/pieces");
    auto& slot = cases[key];
    if (!slot) {
        slot = std::make_unique<BoundCase>();
        GenerateOptions o;
        o.hosts = 300;
        o.vms = 9000;
        o.host_topology = topology;
        o.migration_budget = 0.05;
        o.seed = 12;
        slot->problem = generate_cluster(o);
        if (whole)
            for (Flavor& f : slot->problem.flavors) f.weight = (f.name == "8c64g" || f.name == "16c128g") ? 1.0 : 0.0;
        slot->model = std::make_unique<CapacityModel>(slot->problem);
        slot->removal_only = compute_upper_bound(*slot->model).score;
    }
    return *slot;
}

void BM_UpperBound(benchmark::State& state, const std::string& topology) {
    const BoundCase& c = bound_case(topology, false);
    for (auto _ : state) {
        const UpperBound ub = compute_upper_bound(*c.model);
        benchmark::DoNotOptimize(ub.score);
    }
    state.SetItemsProcessed(state.iterations());
}

void BM_LagrangianVectors(benchmark::State& state, const std::string& topology, bool whole) {
    const BoundCase& c = bound_case(topology, whole);
    constexpr int kVectors = 3;
    const Score target = c.removal_only / 100 * 85;
    int evaluated = 0;
    for (auto _ : state) {
        const LagrangianBound lb = lagrangian_upper_bound(*c.model, UpperBoundParams{}, target, kVectors, c.removal_only);
        benchmark::DoNotOptimize(lb.score);
        evaluated += lb.steps;
    }
    state.SetItemsProcessed(evaluated);
    state.counters["vectors_per_run"] = static_cast<double>(evaluated) / static_cast<double>(state.iterations());
}

BENCHMARK_CAPTURE(BM_UpperBound, K4, std::string("K4"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_UpperBound, CQ3, std::string("CQ3"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LagrangianVectors, K4_pieces, std::string("K4"), false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LagrangianVectors, CQ3_pieces, std::string("CQ3"), false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LagrangianVectors, CQ3_whole, std::string("CQ3"), true)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vmcap

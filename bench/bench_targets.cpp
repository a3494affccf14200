// Candidate moves per second against the number of weighted target flavors (the search must run
// hundreds of demand-weighted flavors at full speed), and the cost of one host's weighted VMCAP.
//
//   BM_AnnealTargets/K2_4000hosts/<T>    simulated annealing from the snapshot, one thread,
//                                         kEvaluations candidate moves (calibrated temperature,
//                                         default move mix): 4,000 dual-node hosts (generate_cluster,
//                                         K2, 48 vCPU and 192 GiB per pNUMA node, 30,000 VMs, seed 1)
//   BM_AnnealTargets/CQ3_10000hosts/<T>  the same on 10,000 CQ3 hosts (16 vCPU and 64 GiB per node,
//                                         generate_cluster defaults, 60,000 VMs, seed 1)
//   BM_HostValue/<Host>/<T>/lanes        WeightedVmcap::value: one host's sum_j w_j VMCAP_j over T
//                                         targets in one target-parallel pass
//   BM_HostValue/<Host>/<T>/per_target   the same sum per target (node_b and the evaluator), as
//                                         the state computed it before WeightedVmcap
//
// T targets replace the catalog's weights as scripts/many_targets.py does: T distinct flavors, vCPU
// in 1..min(64, 2 x node vCPU), RAM 1..8 GiB per vCPU in 0.5 GiB steps, K1 when within half a
// pNUMA node, else K2 (even split), Zipf-like weights (s = 1.1, largest 1, three decimals, at
// least 0.001). items_per_second is candidate moves (or host values) per second; the annealing
// benchmarks time the search alone (manual time: the search's own clock, without building the
// snapshot, the model and the state). Goal: >= 1 M/s at 1,000 targets on one core, and
// at most 2x the 5-target cost per evaluation. Results: docs/performance.md.
#include <benchmark/benchmark.h>

#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "evaluators/state/capacity_model.h"
#include "instances/generator.h"
#include "optimizer/search/annealing.h"

namespace vmcap {
namespace {

constexpr std::int64_t kEvaluations = 2'000'000;

/** The generated cluster `name` (K2_4000hosts or CQ3_10000hosts), built once. */
const Problem& base_cluster(const std::string& name) {
    static std::map<std::string, Problem> cache;
    auto it = cache.find(name);
    if (it != cache.end()) return it->second;
    GenerateOptions o;
    o.seed = 1;
    if (name == "K2_4000hosts") {
        o.hosts = 4000;
        o.vms = 30000;
        o.host_topology = "K2";
        o.node_vcpu = 48;
        o.node_ram_mib = 192 * 1024;
    } else {
        o.hosts = 10000;
        o.vms = 60000;
        o.host_topology = "CQ3";
    }
    return cache.emplace(name, generate_cluster(o)).first->second;
}

/** The cluster with `targets` Zipf-weighted target flavors (scripts/many_targets.py's rule). */
Problem with_targets(const Problem& base, int targets) {
    Problem p = base;
    const Amount node_vcpu = p.host_types[0].node_capacity[kVcpu], node_ram = p.host_types[0].node_capacity[kRamMib];
    for (Flavor& f : p.flavors) f.weight = 0.0;
    std::mt19937_64 rng(1);
    std::set<std::pair<Amount, Amount>> seen;
    const Amount max_vcpu = std::min<Amount>(64, 2 * node_vcpu);
    for (int rank = 0; rank < targets;) {
        const Amount vcpu = 1 + static_cast<Amount>(rng() % static_cast<std::uint64_t>(max_vcpu));
        const Amount ram = (2 + static_cast<Amount>(rng() % static_cast<std::uint64_t>(16 * vcpu - 1))) * 512;
        const bool k1 = 2 * vcpu <= node_vcpu && 2 * ram <= node_ram;
        if (ram > 2 * node_ram || (!k1 && (vcpu % 2 != 0 || ram % 1024 != 0)) || !seen.insert({vcpu, ram}).second) continue;
        const double w = std::max(0.001, std::round(1000.0 / std::pow(rank + 1, 1.1)) / 1000.0);
        Flavor f;
        f.name = "t";
        f.name += std::to_string(vcpu);
        f.name += "c";
        f.name += std::to_string(ram);
        f.demand = {vcpu, ram};
        f.vnuma = parse_topology(k1 ? "K1" : "K2");
        f.weight = w;
        p.flavors.push_back(f);
        ++rank;
    }
    finalize_problem(p, "<bench targets>");
    return p;
}

void bm_anneal_targets(benchmark::State& st, const char* cluster, int targets) {
    const Problem p = with_targets(base_cluster(cluster), targets);
    const CapacityModel model(p);
    SearchParams prm;
    prm.max_evaluations = kEvaluations;
    prm.time_limit_s = 600;
    prm.quiet = true;
    SearchResult r;
    for (auto _ : st) {
        r = anneal(model, prm);
        st.SetIterationTime(r.seconds);
    }
    st.SetItemsProcessed(st.iterations() * r.evaluations);
    st.counters["targets"] = model.num_targets();
    st.counters["gain"] = r.objective_best - r.objective_before;
}

void bm_host_value(benchmark::State& st, const char* cluster, int targets, int how) {
    const Problem p = with_targets(base_cluster(cluster), targets);
    const CapacityModel model(p);
    const int R = model.num_resources(), n = p.host_types[0].num_nodes();
    // Free amounts of a pool of hosts, uniform within the node.
    std::mt19937_64 rng(3);
    std::vector<Amount> pool(static_cast<std::size_t>(1024) * n * R);
    for (std::size_t a = 0; a < pool.size(); ++a)
        pool[a] = static_cast<Amount>(rng() % static_cast<std::uint64_t>(p.host_types[0].node_capacity[a % (n * R)] + 1));
    std::size_t h = 0;
    for (auto _ : st) {
        const Amount* free = pool.data() + h * n * R;
        h = (h + 1) % 1024;
        Score v = 0;
        if (how == 0) {
            v = model.host_value(0, free);
        } else {
            for (int j = 0; j < model.num_targets(); ++j)
                v += model.target_weight_units(j) * model.host_capacity(0, model.target_flavor(j), free);
        }
        benchmark::DoNotOptimize(v);
    }
    st.SetItemsProcessed(st.iterations());
}

const bool registered = [] {
    for (const char* cluster : {"K2_4000hosts", "CQ3_10000hosts"})
        for (int t : {5, 16, 32, 50, 200, 800, 1000}) {
            const std::string suffix = std::string(cluster) + "/" + std::to_string(t);
            benchmark::RegisterBenchmark(("BM_AnnealTargets/" + suffix).c_str(), bm_anneal_targets, cluster, t)
                ->UseManualTime()
                ->Iterations(1)
                ->Unit(benchmark::kSecond);
            benchmark::RegisterBenchmark(("BM_HostValue/" + suffix + "/lanes").c_str(), bm_host_value, cluster, t, 0);
            benchmark::RegisterBenchmark(("BM_HostValue/" + suffix + "/per_target").c_str(), bm_host_value, cluster, t, 1);
        }
    return true;
}();

}  // namespace
}  // namespace vmcap

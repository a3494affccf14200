// Micro-benchmarks of VMCAP evaluation (evaluators/closed_forms/vmcap.h, evaluators/closed_forms/vmcap_milp.h).
//
//   BM_Vmcap/<Host>_<Guest>           VmcapEvaluator (closed form), the optimizer's inner loop
//   BM_VmcapDirect/<Host>_<Guest>     the free closed-form function, without the method switch
//   BM_VmcapBatch/<Host>_<Guest>      BatchEvaluator (evaluators/closed_forms/vmcap_batch.h): the whole pool,
//                                     transposed to structure-of-arrays before timing, in one call
//                                     per iteration (items = evaluations, 4096 per iteration)
//   BM_VmcapExact/<Host>_<Guest>/b<V> vmcap_exact on the same pairs and on pairs without a closed form
//   BM_VmcapCbc/<Host>_<Guest>        vmcap_cbc (CBC MILP), the external baseline
//   BM_VmcapPlacements/<Host>_<Guest>[/b<V>]  vmcap_placements (evaluators/closed_forms/placements.h): an
//                                     optimal placement set (closed-form constructions, or the
//                                     exact fallback's solution for pairs without a closed form)
//   BM_KnKkAlgorithm1/<Host>_<Guest>/b<V>     the paper's Algorithm 1 (kn_kk_algorithm1), for
//                                     comparison with the wrap-around rule vmcap_placements uses
//
// Each benchmark cycles through a fixed pool of 4096 random capacity vectors (seeded; values
// uniform in 0..V, V = 32 unless the name says otherwise). Items/s = evaluations per second.
// Closed form, exact fallback and CBC of one pair read the same pool (pool(n, 32)), so their
// ratios compare identical inputs; the slower ones see a prefix of it (fewer iterations).
#include <benchmark/benchmark.h>

#include <functional>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "evaluators/closed_forms/placements.h"
#include "evaluators/closed_forms/vmcap.h"
#include "evaluators/closed_forms/vmcap_batch.h"
#include "evaluators/closed_forms/vmcap_milp.h"
#include "instances/topology.h"

namespace vmcap {
namespace {

constexpr std::size_t kPool = 4096;  // power of two: the index wraps with a mask

/** Pool of kPool vectors of n capacities in 0..vmax, contiguous (vector t at [t*n, t*n+n)). */
const std::vector<Count>& pool(int n, Count vmax) {
    static std::map<std::pair<int, Count>, std::vector<Count>> pools;  // filled before timing
    auto& p = pools[{n, vmax}];
    if (p.empty()) {
        std::mt19937_64 rng(42 + static_cast<unsigned>(n) * 1000 + static_cast<unsigned>(vmax));
        std::uniform_int_distribution<Count> d(0, vmax);
        p.resize(kPool * static_cast<std::size_t>(n));
        for (auto& x : p) x = d(rng);
    }
    return p;
}

/** pool(n, vmax) transposed: capacity i of vector t at [i * kPool + t] (stride kPool). */
const std::vector<Count>& soa_pool(int n, Count vmax) {
    static std::map<std::pair<int, Count>, std::vector<Count>> pools;  // filled before timing
    auto& p = pools[{n, vmax}];
    if (p.empty()) {
        p.resize(kPool * static_cast<std::size_t>(n));
        transpose_to_soa(pool(n, vmax).data(), n, kPool, p.data(), kPool);
    }
    return p;
}

struct Pair {
    std::string name;
    Topology host, guest;
};

Topology topo(const char* s) {
    return parse_topology(s);
}

/** Fixed 8-node connected graph with two triangles and no closed form (K2, K3 guests). */
Topology explicit8() {
    return topology_from_edges(8, {{1, 2}, {1, 3}, {2, 3}, {2, 4}, {3, 5}, {4, 5}, {4, 6}, {5, 7}, {6, 7}, {6, 8}, {7, 8}, {1, 8}});
}

std::vector<Pair> closed_pairs() {
    return {{"K4_K2", topo("K4"), topo("K2")},   {"K4_K3", topo("K4"), topo("K3")},   {"C4_K2", topo("C4"), topo("K2")},
            {"Q33_K2", topo("Q33"), topo("K2")}, {"Q33_C4", topo("Q33"), topo("C4")}, {"CQ3_K2", topo("CQ3"), topo("K2")},
            {"CQ3_C4", topo("CQ3"), topo("C4")}, {"K8_K4", topo("K8"), topo("K4")},   {"2xK4_K2", topo("2xK4"), topo("K2")}};
}

std::vector<Pair> exact_only_pairs() {
    return {{"Q3_K2", topo("Q3"), topo("K2")},
            {"Q3_C4", topo("Q3"), topo("C4")},
            {"CQ3_P3", topo("CQ3"), topology_from_edges(3, {{1, 2}, {2, 3}})},
            {"CQ3_K4", topo("CQ3"), topo("K4")},
            {"2xK4_C4", topo("2xK4"), topo("C4")},
            {"K5_C4", topo("K5"), topo("C4")},
            {"Explicit8_K2", explicit8(), topo("K2")},
            {"Explicit8_K3", explicit8(), topo("K3")}};
}

/** Times sum += value(b) once per iteration, b the next capacity vector of pool(n, vmax)
 *  (cycled); an iteration is one item. */
template <class Value>
void time_sum(benchmark::State& st, int n, Count vmax, Value&& value) {
    const Count* data = pool(n, vmax).data();
    std::size_t t = 0;
    Count sum = 0;
    for (auto _ : st) {
        sum += value(data + t * static_cast<std::size_t>(n));
        t = (t + 1) & (kPool - 1);
    }
    benchmark::DoNotOptimize(sum);
    st.SetItemsProcessed(st.iterations());
}

void bm_evaluator(benchmark::State& st, const Pair& p) {
    const VmcapEvaluator ev(p.host, p.guest);
    time_sum(st, p.host.size(), 32, [&](const Count* b) { return ev(b); });
    st.SetLabel(ev.describe());
}

/** BatchEvaluator over the whole pool per iteration; same inputs as bm_evaluator, bm_exact and bm_cbc. */
void bm_batch(benchmark::State& st, const Pair& p) {
    const BatchEvaluator ev(p.host, p.guest);
    const Count* data = soa_pool(p.host.size(), 32).data();
    std::vector<Count> out(kPool);
    for (auto _ : st) {
        ev(data, kPool, kPool, out.data());
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(kPool));
    st.SetLabel(ev.describe());
}

void bm_direct(benchmark::State& st, int n, Count (*f)(const Count*)) {
    time_sum(st, n, 32, f);
}

Count direct_k8_k4(const Count* b) {
    return vmcap_kn_kk(b, 8, 4);
}

void bm_exact(benchmark::State& st, const Pair& p, Count vmax) {
    const auto placements = enumerate_embeddings(p.host.graph, p.guest.graph);
    const int n = p.host.size();
    time_sum(st, n, vmax, [&](const Count* b) { return vmcap_exact(placements, n, b); });
    st.SetLabel(std::to_string(placements.size()) + " placements");
}

void bm_cbc(benchmark::State& st, const Pair& p) {
    const auto placements = enumerate_embeddings(p.host.graph, p.guest.graph);
    const int n = p.host.size();
    time_sum(st, n, 32, [&](const Count* b) { return vmcap_cbc(placements, n, b); });
}

void bm_placements(benchmark::State& st, const Pair& p, Count vmax) {
    const VmcapEvaluator ev(p.host, p.guest);
    const int n = p.host.size();
    const Count* data = pool(n, vmax).data();
    std::size_t t = 0, entries = 0;
    for (auto _ : st) {
        const auto sol = vmcap_placements(ev, data + t * static_cast<std::size_t>(n));
        entries += sol.size();
        benchmark::DoNotOptimize(sol.data());
        t = (t + 1) & (kPool - 1);
    }
    st.SetItemsProcessed(st.iterations());
    st.counters["entries"] = benchmark::Counter(static_cast<double>(entries) / static_cast<double>(st.iterations()));
    st.SetLabel(ev.describe());
}

void bm_algorithm1(benchmark::State& st, int n, int k, Count vmax) {
    const Count* data = pool(n, vmax).data();
    std::size_t t = 0;
    for (auto _ : st) {
        const auto sol = kn_kk_algorithm1(data + t * static_cast<std::size_t>(n), n, k);
        benchmark::DoNotOptimize(sol.data());
        t = (t + 1) & (kPool - 1);
    }
    st.SetItemsProcessed(st.iterations());
}

const bool registered = [] {
    for (const Pair& p : closed_pairs()) benchmark::RegisterBenchmark(("BM_Vmcap/" + p.name).c_str(), bm_evaluator, p);
    for (const Pair& p : closed_pairs()) benchmark::RegisterBenchmark(("BM_VmcapBatch/" + p.name).c_str(), bm_batch, p);
    const std::pair<const char*, std::pair<int, Count (*)(const Count*)>> direct[] = {
        {"K4_K2", {4, vmcap_k4_k2}},   {"K4_K3", {4, vmcap_k4_k3}},   {"CQ3_K2", {8, vmcap_cq3_k2}},
        {"CQ3_C4", {8, vmcap_cq3_c4}}, {"Q33_C4", {8, vmcap_q33_c4}}, {"K8_K4", {8, direct_k8_k4}}};
    for (const auto& [name, f] : direct)
        benchmark::RegisterBenchmark((std::string("BM_VmcapDirect/") + name).c_str(), bm_direct, f.first, f.second);
    for (Count vmax : {32, 64}) {
        std::vector<Pair> all = closed_pairs();
        for (Pair& p : exact_only_pairs()) all.push_back(std::move(p));
        for (const Pair& p : all)
            benchmark::RegisterBenchmark(("BM_VmcapExact/" + p.name + "/b" + std::to_string(vmax)).c_str(), bm_exact, p, vmax);
    }
    for (const Pair& p : closed_pairs()) benchmark::RegisterBenchmark(("BM_VmcapCbc/" + p.name).c_str(), bm_cbc, p);
    for (const Pair& p : exact_only_pairs())
        if (p.name == "Q3_K2" || p.name == "Explicit8_K3") benchmark::RegisterBenchmark(("BM_VmcapCbc/" + p.name).c_str(), bm_cbc, p);
    std::vector<Pair> with_k1 = closed_pairs();
    with_k1.push_back({"CQ3_K1", topo("CQ3"), topo("K1")});
    for (const Pair& p : with_k1) benchmark::RegisterBenchmark(("BM_VmcapPlacements/" + p.name).c_str(), bm_placements, p, Count{32});
    for (const Pair& p : closed_pairs())
        if (p.name == "K8_K4" || p.name == "CQ3_K2" || p.name == "Q33_C4")
            benchmark::RegisterBenchmark(("BM_VmcapPlacements/" + p.name + "/b1000000").c_str(), bm_placements, p, Count{1'000'000});
    for (const Pair& p : exact_only_pairs())
        if (p.name == "Q3_K2" || p.name == "Q3_C4" || p.name == "CQ3_P3" || p.name == "Explicit8_K3")
            benchmark::RegisterBenchmark(("BM_VmcapPlacements/" + p.name).c_str(), bm_placements, p, Count{32});
    for (Count vmax : {32, 1'000'000}) {
        benchmark::RegisterBenchmark(("BM_KnKkAlgorithm1/K8_K4/b" + std::to_string(vmax)).c_str(), bm_algorithm1, 8, 4, vmax);
        benchmark::RegisterBenchmark(("BM_KnKkAlgorithm1/K4_K2/b" + std::to_string(vmax)).c_str(), bm_algorithm1, 4, 2, vmax);
    }
    return true;
}();

}  // namespace
}  // namespace vmcap

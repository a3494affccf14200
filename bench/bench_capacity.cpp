// Micro-benchmarks of capacity vectors (evaluators/closed_forms/capacity_vectors.h) and of a host's capacity
// (capacity vectors plus VMCAP), the work of one full-host recomputation.
//
//   BM_CapacityVectors/<Host>_<F>flavors_<R>res       CapacityVectors::compute: b of F flavors on one
//                                                      host (Eigen columns, magic reciprocals, one
//                                                      quotient per distinct (resource, demand))
//   BM_CapacityVectorsPerFlavor/<Host>_<F>flavors_<R>res  compute_flavor for each flavor (no sharing)
//   BM_CapacityVectorsEigenDiv/<Host>_<F>flavors_<R>res  the same Eigen expression with Eigen's own
//                                                      integer division (hardware IDIV), for comparison
//   BM_CapacityVectorsScalar/<Host>_<F>flavors_<R>res  plain scalar loop with IDIV (CapacityModel::node_b)
//   BM_HostCapacity/<Host>_<Guest>                     b of one flavor plus its VMCAP (closed form)
//   BM_HostCapacity/<Host>_<F>flavors                  b of all F flavors in one pass plus F VMCAPs
//   BM_CapacityVectorsBatch/<Host>_<F>flavors_<R>res   CapacityVectors::compute_batch over the pool in
//                                                      structure-of-arrays form, kChunk hosts per call
//   BM_HostCapacityBatch/<Host>_<F>flavors[_<R>res]    the same plus one BatchEvaluator call per flavor
//                                                      and chunk (evaluators/closed_forms/vmcap_batch.h): how a whole
//                                                      cluster's capacities are recomputed
//
// Items/s counts (host, flavor) capacity vectors (or host capacities) per second: one iteration of an
// F-flavor benchmark is F items. Inputs: a fixed pool of 4096 hosts' free amounts (seeded, uniform in
// 0..node capacity), cycled; the flavors below (realistic Azure-like sizes, per vNUMA node).
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "evaluators/closed_forms/capacity_vectors.h"
#include "evaluators/closed_forms/vmcap.h"
#include "evaluators/closed_forms/vmcap_batch.h"
#include "instances/topology.h"

namespace vmcap {
namespace {

constexpr std::size_t kPool = 4096;

/** Per-node capacity of a 16-core, 64 GiB, 12-way L3 pNUMA node. */
constexpr Amount kNodeCap[3] = {16, 65536, 12};

struct BenchFlavor {
    const char* vnuma;
    Amount node_demand[3];  ///< vcpu, ram_mib, l3_ways of one vNUMA node
};

/** Eight flavors: K1 small/medium, K2 and C4 multi-NUMA (one vNUMA node's demand). */
const std::vector<BenchFlavor>& flavors8() {
    static const std::vector<BenchFlavor> f = {
        {"K1", {2, 4096, 1}},  {"K1", {4, 16384, 1}}, {"K1", {8, 28672, 2}}, {"K2", {4, 8192, 1}},
        {"K2", {8, 32768, 2}}, {"K2", {6, 24576, 2}}, {"C4", {4, 16384, 1}}, {"C4", {8, 28672, 3}},
    };
    return f;
}

std::vector<Amount> demand_matrix(int flavors, int resources) {
    std::vector<Amount> d;
    for (int f = 0; f < flavors; ++f)
        for (int r = 0; r < resources; ++r) d.push_back(flavors8()[f].node_demand[r]);
    return d;
}

/** kPool hosts x nodes x R free amounts, uniform in 0..capacity. */
std::vector<Amount> free_pool(int nodes, int resources) {
    std::mt19937_64 rng(7 + static_cast<unsigned>(nodes) * 10 + static_cast<unsigned>(resources));
    std::vector<Amount> p(kPool * static_cast<std::size_t>(nodes) * resources);
    for (std::size_t i = 0; i < p.size(); ++i) p[i] = std::uniform_int_distribution<Amount>(0, kNodeCap[i % resources])(rng);
    return p;
}

/**
 * Times body(free, b) once per iteration, `free` the next host of the free-amount pool (nodes x
 * resources amounts; the pool cycled) and `b` room for nodes x flavors counts, which the body
 * fills; an iteration is `flavors` items.
 */
template <class Body>
void time_vectors(benchmark::State& st, int nodes, int flavors, int resources, Body&& body) {
    const auto pool = free_pool(nodes, resources);
    const std::size_t stride = static_cast<std::size_t>(nodes) * resources;
    std::vector<Count> b(static_cast<std::size_t>(nodes) * flavors);
    std::size_t t = 0;
    for (auto _ : st) {
        body(pool.data() + t * stride, b.data());
        benchmark::DoNotOptimize(b.data());
        benchmark::ClobberMemory();
        t = (t + 1) & (kPool - 1);
    }
    st.SetItemsProcessed(st.iterations() * flavors);
}

void bm_capacity_vectors(benchmark::State& st, int nodes, int flavors, int resources) {
    const auto d = demand_matrix(flavors, resources);
    const CapacityVectors cv(d.data(), flavors, resources);
    time_vectors(st, nodes, flavors, resources, [&](const Amount* fr, Count* b) { cv.compute(fr, nodes, b); });
}

/** The same b by compute_flavor per flavor: no quotient shared between flavors. */
void bm_capacity_vectors_per_flavor(benchmark::State& st, int nodes, int flavors, int resources) {
    const auto d = demand_matrix(flavors, resources);
    const CapacityVectors cv(d.data(), flavors, resources);
    time_vectors(st, nodes, flavors, resources, [&](const Amount* fr, Count* b) {
        for (int f = 0; f < flavors; ++f) cv.compute_flavor(f, fr, nodes, b + static_cast<std::size_t>(f) * nodes);
    });
}

void bm_capacity_vectors_eigen_div(benchmark::State& st, int nodes, int flavors, int resources) {
    const auto d = demand_matrix(flavors, resources);
    const CapacityVectors cv(d.data(), flavors, resources);
    using FreeMap = Eigen::Map<const Eigen::Array<Amount, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
    using SlotsMap = Eigen::Map<Eigen::Array<Count, Eigen::Dynamic, 1>>;
    time_vectors(st, nodes, flavors, resources, [&](const Amount* free, Count* b) {
        const FreeMap fr(free, nodes, resources);
        for (int f = 0; f < flavors; ++f) {
            SlotsMap col(b + static_cast<std::size_t>(f) * nodes, nodes);
            bool first = true;
            for (int r = 0; r < resources; ++r) {
                const Amount dd = cv.demand()(f, r);
                if (dd == 0) continue;
                if (first)
                    col = fr.col(r) / dd;
                else
                    col = col.min(fr.col(r) / dd);
                first = false;
            }
        }
    });
}

void bm_capacity_vectors_scalar(benchmark::State& st, int nodes, int flavors, int resources) {
    const auto d = demand_matrix(flavors, resources);
    time_vectors(st, nodes, flavors, resources, [&](const Amount* fr, Count* b) {
        for (int f = 0; f < flavors; ++f) {
            const Amount* nd = d.data() + static_cast<std::size_t>(f) * resources;
            for (int i = 0; i < nodes; ++i) {  // CapacityModel::node_b
                Count best = -1;
                for (int r = 0; r < resources; ++r) {
                    if (nd[r] == 0) continue;
                    const Count s = fr[i * resources + r] / nd[r];
                    if (best < 0 || s < best) best = s;
                }
                b[static_cast<std::size_t>(f) * nodes + i] = best;
            }
        }
    });
}

/** One flavor (index `flavor` of flavors8()) on `host`: capacity vector plus VMCAP. */
void bm_host_capacity_one(benchmark::State& st, const char* host, int flavor, int resources) {
    const Topology h = parse_topology(host);
    const int n = h.size();
    const auto d = demand_matrix(static_cast<int>(flavors8().size()), resources);
    const CapacityVectors cv(d.data(), static_cast<int>(flavors8().size()), resources);
    const VmcapEvaluator ev(h, parse_topology(flavors8()[flavor].vnuma));
    const auto pool = free_pool(n, resources);
    const std::size_t stride = static_cast<std::size_t>(n) * resources;
    Count b[kMaxPNuma];
    std::size_t t = 0;
    Count sum = 0;
    for (auto _ : st) {
        cv.compute_flavor(flavor, pool.data() + t * stride, n, b);
        sum += ev(b);
        t = (t + 1) & (kPool - 1);
    }
    benchmark::DoNotOptimize(sum);
    st.SetItemsProcessed(st.iterations());
    st.SetLabel(ev.describe());
}

/** The eight flavors on `host`: their demands, capacity vectors and one evaluator (Ev:
 *  VmcapEvaluator or BatchEvaluator) each. */
template <class Ev>
struct EightFlavors {
    Topology h;
    int n, F;
    std::vector<Amount> d;
    CapacityVectors cv;
    std::vector<Ev> evs;

    EightFlavors(const char* host, int resources)
        : h(parse_topology(host)),
          n(h.size()),
          F(static_cast<int>(flavors8().size())),
          d(demand_matrix(F, resources)),
          cv(d.data(), F, resources) {
        for (const BenchFlavor& f : flavors8()) evs.emplace_back(h, parse_topology(f.vnuma));
    }
};

/** All eight flavors on `host` in one pass: compute() plus eight VMCAPs. */
void bm_host_capacity_all(benchmark::State& st, const char* host, int resources) {
    const EightFlavors<VmcapEvaluator> all(host, resources);
    const auto pool = free_pool(all.n, resources);
    const std::size_t stride = static_cast<std::size_t>(all.n) * resources;
    std::vector<Count> b(static_cast<std::size_t>(all.n) * all.F);
    std::size_t t = 0;
    Count sum = 0;
    for (auto _ : st) {
        all.cv.compute(pool.data() + t * stride, all.n, b.data());
        for (int f = 0; f < all.F; ++f) sum += all.evs[f](b.data() + static_cast<std::size_t>(f) * all.n);
        t = (t + 1) & (kPool - 1);
    }
    benchmark::DoNotOptimize(sum);
    st.SetItemsProcessed(st.iterations() * all.F);
}

/**
 * Hosts per compute_batch / BatchEvaluator call in the batched benchmarks: the chunk's capacity
 * vectors (F x nodes x kChunk Counts, 32 KiB for 8 flavors on 8 nodes) stay in L1/L2 between
 * the two passes.
 */
constexpr std::size_t kChunk = 64;

/** free_pool transposed: amount r of node i of host t at [(i * R + r) * kPool + t]. */
std::vector<Amount> free_pool_soa(int nodes, int resources) {
    const auto aos = free_pool(nodes, resources);
    const std::size_t rows = static_cast<std::size_t>(nodes) * resources;
    std::vector<Amount> p(aos.size());
    for (std::size_t t = 0; t < kPool; ++t)
        for (std::size_t j = 0; j < rows; ++j) p[j * kPool + t] = aos[t * rows + j];
    return p;
}

/** compute_batch only: b of all flavors for the whole pool, kChunk hosts per call. */
void bm_capacity_vectors_batch(benchmark::State& st, int nodes, int flavors, int resources) {
    const auto d = demand_matrix(flavors, resources);
    const CapacityVectors cv(d.data(), flavors, resources);
    const auto pool = free_pool_soa(nodes, resources);
    std::vector<Count> b(static_cast<std::size_t>(nodes) * flavors * kChunk);
    for (auto _ : st) {
        for (std::size_t t0 = 0; t0 < kPool; t0 += kChunk) {
            cv.compute_batch(pool.data() + t0, kPool, kChunk, nodes, b.data(), kChunk);
            benchmark::DoNotOptimize(b.data());
            benchmark::ClobberMemory();
        }
    }
    st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(kPool) * flavors);
}

/** All eight flavors on every host of the pool: compute_batch plus one BatchEvaluator call per flavor, per chunk. */
void bm_host_capacity_batch(benchmark::State& st, const char* host, int resources) {
    const EightFlavors<BatchEvaluator> all(host, resources);
    const auto pool = free_pool_soa(all.n, resources);
    std::vector<Count> b(static_cast<std::size_t>(all.n) * all.F * kChunk);
    std::vector<Count> cap(static_cast<std::size_t>(all.F) * kChunk);
    Count sum = 0;
    for (auto _ : st) {
        for (std::size_t t0 = 0; t0 < kPool; t0 += kChunk) {
            all.cv.compute_batch(pool.data() + t0, kPool, kChunk, all.n, b.data(), kChunk);
            for (int f = 0; f < all.F; ++f)
                all.evs[f](b.data() + static_cast<std::size_t>(f) * all.n * kChunk, kChunk, kChunk,
                           cap.data() + static_cast<std::size_t>(f) * kChunk);
            sum += cap[t0 & (kChunk - 1)];
        }
    }
    benchmark::DoNotOptimize(sum);
    st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(kPool) * all.F);
}

const bool registered = [] {
    for (int res : {2, 3}) {
        const std::string suffix = "CQ3_8flavors_" + std::to_string(res) + "res";
        benchmark::RegisterBenchmark(("BM_CapacityVectors/" + suffix).c_str(), bm_capacity_vectors, 8, 8, res);
        benchmark::RegisterBenchmark(("BM_CapacityVectorsPerFlavor/" + suffix).c_str(), bm_capacity_vectors_per_flavor, 8, 8, res);
        benchmark::RegisterBenchmark(("BM_CapacityVectorsEigenDiv/" + suffix).c_str(), bm_capacity_vectors_eigen_div, 8, 8, res);
        benchmark::RegisterBenchmark(("BM_CapacityVectorsScalar/" + suffix).c_str(), bm_capacity_vectors_scalar, 8, 8, res);
    }
    benchmark::RegisterBenchmark("BM_CapacityVectors/K4_8flavors_2res", bm_capacity_vectors, 4, 8, 2);
    benchmark::RegisterBenchmark("BM_CapacityVectors/CQ3_1flavor_2res", bm_capacity_vectors, 8, 1, 2);
    benchmark::RegisterBenchmark("BM_HostCapacity/CQ3_K2", bm_host_capacity_one, "CQ3", 4, 2);
    benchmark::RegisterBenchmark("BM_HostCapacity/CQ3_C4", bm_host_capacity_one, "CQ3", 6, 2);
    benchmark::RegisterBenchmark("BM_HostCapacity/CQ3_K2_3res", bm_host_capacity_one, "CQ3", 4, 3);
    benchmark::RegisterBenchmark("BM_HostCapacity/CQ3_8flavors", bm_host_capacity_all, "CQ3", 2);
    benchmark::RegisterBenchmark("BM_HostCapacity/CQ3_8flavors_3res", bm_host_capacity_all, "CQ3", 3);
    benchmark::RegisterBenchmark("BM_CapacityVectorsBatch/CQ3_8flavors_2res", bm_capacity_vectors_batch, 8, 8, 2);
    benchmark::RegisterBenchmark("BM_CapacityVectorsBatch/CQ3_8flavors_3res", bm_capacity_vectors_batch, 8, 8, 3);
    benchmark::RegisterBenchmark("BM_HostCapacityBatch/CQ3_8flavors", bm_host_capacity_batch, "CQ3", 2);
    benchmark::RegisterBenchmark("BM_HostCapacityBatch/CQ3_8flavors_3res", bm_host_capacity_batch, "CQ3", 3);
    return true;
}();

}  // namespace
}  // namespace vmcap

// Benchmarks of the room makers of admission (optimizer/solvers/make_room.h) at the cluster's wall:
// the direct search against the consolidation engine it replaced for plans of at most two live
// migrations (issue 42 item 4 asked for 20x on `vmcap simulate --trace azure-test --copies 3
// --hosts 1200 --compare none:mpr=2`).
//
//   BM_AdmissionAtTheWall/direct   arrivals with up to 2 live migrations each, made by
//                                  MakeRoomSearch (make_room_direct with its cache, as simulate)
//   BM_AdmissionAtTheWall/engine   the same arrivals, the migrations made by make_room_engine
//
// Input: the Azure V1 test trace x3 (../shared/data/azure-v1-flavor-traces, lifetimes of seeds
// 1-3 as `vmcap simulate --copies 3 --seed 1`; skipped without it) on 1,200 CQ3 hosts (16 vCPU,
// 64 GiB per node), replayed with best fit and no migrations up to its 20,000th refusal (at the
// wall; not timed), then the next 5,000 arrivals with admission migrations (timed). An
// iteration is the whole window; items: the calls to the room maker in it (its counter `calls`:
// per iteration; `placed`: the window's arrivals placed). The two makers choose different plans,
// so the states, and the calls, part after the first plan: compare the window's time and the
// time per call, not call by call. One thread.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>
#include <vector>

#include "instances/topology.h"
#include "instances/trace.h"
#include "optimizer/solvers/make_room.h"
#include "placement/online_cluster.h"
#include "placement/placer.h"
#include "placement/replay.h"

namespace vmcap {
namespace {

constexpr std::size_t kPrefixRefusals = 20000;
constexpr std::size_t kWindow = 5000;

/** The trace and the problem it replays on, built once for every benchmark. */
struct Replay {
    std::vector<TraceVm> trace;
    std::vector<std::size_t> arrivals;
    Problem problem;
    std::unique_ptr<CapacityModel> model;
    bool ok = false;
};

const Replay& replay() {
    static const Replay r = [] {
        Replay r;
        const std::filesystem::path az = std::filesystem::path(VMCAP_SHARED_DATA_DIR) / "azure-v1-flavor-traces";
        if (!std::filesystem::is_directory(az)) return r;
        std::vector<std::vector<TraceVm>> parts;
        for (std::uint64_t k = 0; k < 3; ++k) {  // --copies 3 --seed 1
            parts.push_back(read_azure_trace((az / "traces/v1.test.txt").string(), (az / "traces/v1.test.c2591400.txt").string(),
                                             (az / "maps/v1.interval_map.txt").string(), (az / "maps/flav_map.txt").string(), 1 + k));
            for (TraceVm& v : parts.back()) v.copy = static_cast<std::int32_t>(k);
        }
        r.trace = merge_traces(std::move(parts));
        SnapshotOptions o;
        o.host_type = uniform_host_type("CQ3", 16, 64 * 1024);
        o.num_hosts = 1200;
        o.time_s = r.trace.back().arrival_s - r.trace.front().arrival_s;
        r.problem = replay_arrivals(r.trace, o, r.arrivals);
        r.model = std::make_unique<CapacityModel>(r.problem);
        r.ok = true;
        return r;
    }();
    return r;
}

void BM_AdmissionAtTheWall(benchmark::State& st, bool engine) {
    const Replay& r = replay();
    if (!r.ok) {
        st.SkipWithError("no ../shared/data/azure-v1-flavor-traces");
        return;
    }
    std::int64_t calls = 0, placed = 0;
    for (auto _ : st) {
        st.PauseTiming();
        auto placer = make_placer("best-fit");
        OnlineCluster c(*r.model, *placer);
        std::size_t a = 0, refused = 0;
        for (; a < r.arrivals.size() && refused < kPrefixRefusals; ++a) {
            const TraceVm& t = r.trace[r.arrivals[a]];
            c.advance_to(t.arrival_s);
            refused += c.arrive(static_cast<int>(a), t.departure_s).placed ? 0 : 1;
        }
        const MakeRoomSearch direct;
        c.set_make_room(2, [&](const OnlineCluster& cl, int vm, int k) {
            ++calls;
            return engine ? make_room_engine(cl.state(), vm, k) : direct(cl, vm, k);
        });
        st.ResumeTiming();
        for (const std::size_t end = std::min(r.arrivals.size(), a + kWindow); a < end; ++a) {
            const TraceVm& t = r.trace[r.arrivals[a]];
            c.advance_to(t.arrival_s);
            placed += c.arrive(static_cast<int>(a), t.departure_s).placed ? 1 : 0;
        }
    }
    st.SetItemsProcessed(calls);
    st.counters["calls"] = benchmark::Counter(static_cast<double>(calls), benchmark::Counter::kAvgIterations);
    st.counters["placed"] = benchmark::Counter(static_cast<double>(placed), benchmark::Counter::kAvgIterations);
}

BENCHMARK_CAPTURE(BM_AdmissionAtTheWall, direct, false)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_AdmissionAtTheWall, engine, true)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace vmcap

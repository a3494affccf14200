// `vmcap simulate` (issue 27, first part; optimizer/solvers/simulate.h), on a synthetic trace (the
// real ones are read by the same trace readers, tested in trace_replay_test.cpp). Oracles: without
// defragmentation the simulation is the replay of `vmcap snapshot` (placement/replay.cpp, its own
// event loop): the same rejections and the same VMs alive at the end; with it, every night's plan
// passes `vmcap validate`'s replay (--check) and the run is deterministic; a nightly budget of 0
// is no defragmentation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "instances/trace.h"
#include "instances/vnuma_rule.h"
#include "optimizer/solvers/simulate.h"

using namespace vmcap;

namespace {

/** A synthetic trace (no data files needed): 4 days of arrivals, a mix of one- and multi-NUMA
 *  flavors, exponential lifetimes (some never depart), sorted by arrival. */
std::vector<TraceVm> synthetic_trace(std::uint64_t seed) {
    struct Kind {
        const char* name;
        Amount vcpu, ram_gib;
        double share;
    };
    const Kind kinds[] = {
        {"2c4g", 2, 4, 0.45}, {"4c16g", 4, 16, 0.25}, {"8c32g", 8, 32, 0.15}, {"16c64g", 16, 64, 0.1}, {"32c128g", 32, 128, 0.05}};
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<TraceVm> trace;
    for (int i = 0; i < 3000; ++i) {
        TraceVm vm;
        vm.arrival_s = u(rng) * 4 * 86400.0;
        double x = u(rng), acc = 0.0;
        const Kind* k = &kinds[0];
        for (const Kind& c : kinds)
            if (x >= acc) {
                k = &c;
                acc += c.share;
            }
        vm.vcpu = k->vcpu;
        vm.ram_mib = k->ram_gib * 1024;
        vm.flavor_name = k->name;
        vm.departure_s = u(rng) < 0.2 ? std::numeric_limits<double>::infinity() : vm.arrival_s - std::log(1.0 - u(rng)) * 86400.0;
        trace.push_back(vm);
    }
    std::sort(trace.begin(), trace.end(), [](const TraceVm& a, const TraceVm& b) { return a.arrival_s < b.arrival_s; });
    return trace;
}

SimulateOptions options(const std::string& defrag) {
    SimulateOptions o;
    o.replay.host_type = uniform_host_type("CQ3", 16, 64 * 1024);
    o.replay.num_hosts = 30;
    o.replay.time_s = 4 * 86400.0;
    o.defrag = defrag;
    o.budget_fraction = 0.02;
    o.evaluations = 50000;
    o.check = true;
    return o;
}

}  // namespace

TEST(Simulate, WithoutDefragmentationItIsTheReplay) {
    const auto trace = synthetic_trace(1);
    const SimulateOptions o = options("none");
    const SimulateResult r = simulate(trace, o);
    ReplayStats st;
    const Problem snap = replay_snapshot(trace, o.replay, &st);
    EXPECT_EQ(r.arrivals, st.arrivals);
    EXPECT_EQ(r.rejected, st.rejected);
    EXPECT_EQ(r.departed, st.departed);
    EXPECT_EQ(r.rejected_by_flavor, st.rejected_by_flavor);
    ASSERT_FALSE(r.days.empty());
    EXPECT_EQ(r.days.back().live_vms, static_cast<std::int64_t>(snap.vms.size()));
    EXPECT_GT(r.rejected, 0) << "the cluster is sized so that some requests are rejected";
    std::int64_t sum = 0;
    for (const SimulateDay& d : r.days) sum += d.rejected;
    EXPECT_EQ(sum, r.rejected);
    EXPECT_EQ(r.migrations, 0);
    EXPECT_EQ(r.days.size(), 5U);  // nights 0..3 (03:00 of days 0-3) and the end
}

TEST(Simulate, NightlyPlansValidateAndRunsRepeat) {
    const auto trace = synthetic_trace(1);
    for (const char* defrag : {"greedy", "sa"}) {
        SCOPED_TRACE(defrag);
        const SimulateOptions o = options(defrag);
        const SimulateResult a = simulate(trace, o);  // --check: every night's plan validated before it is applied
        EXPECT_GT(a.migrations, 0);
        for (const SimulateDay& d : a.days) EXPECT_GE(d.objective_after, d.objective_before);
        const SimulateResult b = simulate(trace, o);
        EXPECT_EQ(a.rejected, b.rejected);
        EXPECT_EQ(a.migrations, b.migrations);
        ASSERT_EQ(a.days.size(), b.days.size());
        for (std::size_t i = 0; i < a.days.size(); ++i) EXPECT_EQ(a.days[i].objective_after, b.days[i].objective_after);
    }
}

TEST(Simulate, ABudgetOfZeroIsNoDefragmentation) {
    const auto trace = synthetic_trace(2);
    SimulateOptions o = options("greedy");
    o.budget_count = 0;
    const SimulateResult zero = simulate(trace, o);
    const SimulateResult none = simulate(trace, options("none"));
    EXPECT_EQ(zero.migrations, 0);
    EXPECT_EQ(zero.rejected, none.rejected);
    EXPECT_EQ(zero.rejected_vcpu, none.rejected_vcpu);
}

TEST(Simulate, StopsOnAnInterruptOrItsTimeLimitWithWhatItSimulated) {
    const auto trace = synthetic_trace(1);
    const SimulateResult full = simulate(trace, options("greedy"));
    EXPECT_EQ(full.stopped_by, "complete");
    std::atomic<bool> stop{true};
    SimulateOptions o = options("greedy");
    o.stop = &stop;
    const SimulateResult interrupted = simulate(trace, o);
    EXPECT_EQ(interrupted.stopped_by, "interrupt");
    EXPECT_EQ(interrupted.arrivals, 0);  // polled before the first arrival
    ASSERT_EQ(interrupted.days.size(), 1U);
    o = options("greedy");
    o.time_limit_s = 0.0;
    const SimulateResult timed = simulate(trace, o);
    EXPECT_EQ(timed.stopped_by, "time limit");
    EXPECT_LT(timed.arrivals, full.arrivals);
}

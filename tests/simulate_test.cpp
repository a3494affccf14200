// `vmcap simulate` (issue 27, first part; optimizer/solvers/simulate.h). Oracles: without
// defragmentation the simulation is the replay of `vmcap snapshot` (placement/replay.cpp, its own
// event loop): the same rejections and the same VMs alive at the end; with it, every night's plan
// passes `vmcap validate`'s replay (--check) and the run is deterministic; a nightly budget of 0
// is no defragmentation.
#include <gtest/gtest.h>

#include <filesystem>

#include "instances/trace.h"
#include "instances/vnuma_rule.h"
#include "optimizer/solvers/simulate.h"

using namespace vmcap;

namespace {

std::vector<TraceVm> azure_test(std::uint64_t seed) {
    const std::filesystem::path d = std::filesystem::path(VMCAP_SHARED_DATA_DIR) / "azure-v1-flavor-traces";
    return read_azure_trace((d / "traces" / "v1.test.txt").string(), (d / "traces" / "v1.test.c2591400.txt").string(),
                            (d / "maps" / "v1.interval_map.txt").string(), (d / "maps" / "flav_map.txt").string(), seed);
}

SimulateOptions options(const std::string& defrag) {
    SimulateOptions o;
    o.replay.host_type = uniform_host_type("CQ3", 16, 64 * 1024);
    o.replay.num_hosts = 20;
    o.replay.sample = 0.05;
    o.replay.time_s = 4 * 86400.0;
    o.defrag = defrag;
    o.budget_fraction = 0.02;
    o.evaluations = 50000;
    o.check = true;
    return o;
}

}  // namespace

TEST(Simulate, WithoutDefragmentationItIsTheReplay) {
    const auto trace = azure_test(1);
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
    const auto trace = azure_test(1);
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
    const auto trace = azure_test(2);
    SimulateOptions o = options("greedy");
    o.budget_count = 0;
    const SimulateResult zero = simulate(trace, o);
    const SimulateResult none = simulate(trace, options("none"));
    EXPECT_EQ(zero.migrations, 0);
    EXPECT_EQ(zero.rejected, none.rejected);
    EXPECT_EQ(zero.rejected_vcpu, none.rejected_vcpu);
}

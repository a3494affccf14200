// `vmcap simulate` (optimizer/solvers/simulate.h), on a synthetic trace (the
// real ones are read by the same trace readers, tested in trace_replay_test.cpp). Oracles: without
// defragmentation the simulation is the replay of `vmcap snapshot` (placement/replay.cpp) and the
// replay of this file's own event loop (independent of placement/online_cluster.h, which both
// products share): the same rejections and the same VMs alive at the end; with it, every night's
// plan passes `vmcap validate`'s replay (--check) and the run is deterministic; a nightly budget of 0
// is no defragmentation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <regex>

#include <nlohmann/json.hpp>

#include "instances/trace.h"
#include "instances/vnuma_rule.h"
#include "evaluators/state/capacity_model.h"
#include "evaluators/state/search_state.h"
#include "optimizer/solvers/hosts_needed.h"
#include "optimizer/solvers/simulate.h"
#include "placement/placer.h"
#include "tests/cli_run.h"

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

/** What the test's own replay counts. */
struct OracleReplay {
    std::int64_t arrivals = 0, rejected = 0, departed = 0, alive = 0;
    std::map<std::string, std::int64_t> rejected_by_flavor;
};

/**
 * The oracle: the trace replayed by a loop of this test, on the problem replay_arrivals builds,
 * with the placer's drivers (place_vm, remove_vm) and nothing of the product's event loop: the
 * departures due by each arrival (times <= its arrival, in (time, VM) order) taken off, then the
 * arrival offered to the placer, every time (no flavor blocked: a complete placer refuses exactly
 * when no host has room, so the product's blocked flavors must change nothing).
 */
OracleReplay oracle_replay(const std::vector<TraceVm>& trace, const SnapshotOptions& o) {
    std::vector<std::size_t> arrivals;
    const Problem placing = replay_arrivals(trace, o, arrivals);
    const CapacityModel model(placing);
    SearchState state(model);
    auto placer = make_placer(o.placer);
    placer->reset(state);
    OracleReplay out;
    std::vector<std::pair<double, int>> leaving;  // (departure, VM), sorted before each use
    const auto depart = [&](double t) {
        std::sort(leaving.begin(), leaving.end());
        std::size_t n = 0;
        for (; n < leaving.size() && leaving[n].first <= t; ++n) {
            remove_vm(state, *placer, leaving[n].second);
            ++out.departed;
            --out.alive;
        }
        leaving.erase(leaving.begin(), leaving.begin() + static_cast<std::ptrdiff_t>(n));
    };
    for (std::size_t a = 0; a < arrivals.size(); ++a) {
        const TraceVm& vm = trace[arrivals[a]];
        depart(vm.arrival_s);
        ++out.arrivals;
        if (!place_vm(state, *placer, static_cast<int>(a)).found()) {
            ++out.rejected;
            ++out.rejected_by_flavor[vm.flavor_name];
            continue;
        }
        ++out.alive;
        if (vm.departure_s != std::numeric_limits<double>::infinity()) leaving.emplace_back(vm.departure_s, static_cast<int>(a));
    }
    depart((trace.empty() ? 0.0 : trace.front().arrival_s) + o.time_s);
    return out;
}

}  // namespace

TEST(Simulate, WithoutDefragmentationItIsTheTestsOwnReplay) {
    for (const char* placer : {"best-fit", "first-fit", "vmcap-fit"}) {
        const auto trace = synthetic_trace(3);
        SimulateOptions o = options("none");
        o.replay.placer = placer;
        const SimulateResult r = simulate(trace, o);
        const OracleReplay want = oracle_replay(trace, o.replay);
        EXPECT_EQ(r.arrivals, want.arrivals) << placer;
        EXPECT_EQ(r.rejected, want.rejected) << placer;
        EXPECT_EQ(r.departed, want.departed) << placer;
        EXPECT_EQ(r.rejected_by_flavor, want.rejected_by_flavor) << placer;
        ASSERT_FALSE(r.days.empty());
        EXPECT_EQ(r.days.back().live_vms, want.alive) << placer;
        EXPECT_GT(want.rejected, 0) << "the cluster is sized so that some requests are rejected";
        ReplayStats st;
        replay_snapshot(trace, o.replay, &st);
        EXPECT_EQ(st.rejected, want.rejected) << placer;
        EXPECT_EQ(st.departed, want.departed) << placer;
        EXPECT_EQ(st.alive_at_end, want.alive) << placer;
        EXPECT_EQ(st.rejected_by_flavor, want.rejected_by_flavor) << placer;
    }
}

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

// The command line's vNUMA rule (--vnuma, --max-node-fraction: shared with `vmcap snapshot`) is
// the replay's: `vmcap simulate --compare none` rejects what `vmcap snapshot` does at the same
// time with the same flags, and keeps as many VMs, on a synthetic Huawei-format trace.
TEST(Simulate, WithoutDefragmentationItIsTheReplayWithTheCommandLinesVnumaRule) {
    namespace fs = std::filesystem;
    const fs::path dir = test::tmp_dir() / "simulate-vnuma";
    fs::create_directories(dir / "huawei-east-1");
    {
        std::ofstream csv(dir / "huawei-east-1" / "Huawei-East-1-lt.csv");
        csv << "vmid,cpu,mem,at,lt\n";
        std::mt19937_64 rng(7);
        const int shapes[][2] = {{8, 16}, {2, 4}, {12, 24}, {4, 8}, {6, 12}};
        for (int i = 0; i < 600; ++i) {
            const auto* sh = shapes[rng() % 5];
            csv << i << ',' << sh[0] << ',' << sh[1] << ',' << i * 300 << ',' << 3600 + rng() % (3 * 86400) << "\n";
        }
    }
    const std::string common = "--trace huawei --data-dir " + dir.string() + " --hosts 2 ";
    const auto run = [&](const std::string& flags) {
        const std::string sim = (dir / "sim.json").string(), snap = (dir / "snap.json").string();
        auto r = test::run_vmcap("simulate " + common + "--compare none --days 1 --out-json " + sim + " " + flags);
        EXPECT_EQ(r.code, 0) << r.err;
        const auto doc = nlohmann::json::parse(read_text_file(sim));
        const auto& one = doc["runs"][0];
        r = test::run_vmcap("snapshot " + common + "--time 86400 --out " + snap + " " + flags);
        EXPECT_EQ(r.code, 0) << r.err;
        std::smatch m;
        EXPECT_TRUE(std::regex_search(r.out, m, std::regex("rejected (\\d+) \\(.*alive (\\d+) "))) << r.out;
        EXPECT_EQ(one["rejected"].get<long long>(), std::stoll(m[1])) << flags;
        EXPECT_EQ(one["days"].back()["live_vms"].get<long long>(), std::stoll(m[2])) << flags;
        return std::pair{one["rejected"].get<long long>(), one["days"].back()["live_vms"].get<long long>()};
    };
    const auto plain = run("");
    EXPECT_GT(plain.first, 0) << "the cluster is sized so that some requests are rejected";
    const auto k2 = run("--vnuma 8c16g=K2 --vnuma 4c8g=K2");
    const auto fraction = run("--max-node-fraction 0.25");
    EXPECT_NE(k2, plain) << "the overrides change the replay";
    EXPECT_NE(fraction, plain) << "the fraction changes the replay";
    // Bad values are refused before any output, as snapshot refuses them.
    for (const std::string bad : {"--max-node-fraction 0", "--vnuma 8c16g", "--vnuma 9c9g=K2", "--vnuma 8c16g=K9"}) {
        const auto r = test::run_vmcap("simulate " + common + "--compare none --days 1 " + bad);
        EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
        EXPECT_TRUE(r.out.empty()) << bad << ": " << r.out;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << bad << ": " << r.err;
    }
}

// The nightly defragmentation runs at --defrag-at on the trace's clock (its timestamps modulo
// 24 h), not at that long after the first arrival.
TEST(Simulate, TheFirstNightIsAtItsTimeOfDayOnTheTracesClock) {
    // Azure V1's test split starts in the bin ending at 2,100,000 s: its first arrival is just
    // after 2,099,700 s = day 24, 07:15. The first 03:00 is that of day 25.
    EXPECT_EQ(first_defragmentation_s(2099700.0 + 2.5, 3 * 3600.0), 25 * 86400.0 + 3 * 3600.0);
    EXPECT_EQ(first_defragmentation_s(2099700.0, 8 * 3600.0), 24 * 86400.0 + 8 * 3600.0);  // later that day
    EXPECT_EQ(first_defragmentation_s(0.0, 3 * 3600.0), 3 * 3600.0);                       // Huawei-East-1: time 0
    EXPECT_EQ(first_defragmentation_s(3 * 3600.0, 3 * 3600.0), 3 * 3600.0);                // at the first arrival itself
    EXPECT_EQ(first_defragmentation_s(3 * 3600.0 + 0.5, 3 * 3600.0), 86400.0 + 3 * 3600.0);

    // A simulation whose first arrival is at 07:15 of day 24: the first day row closes (and the
    // first night runs) at 03:00 of day 25, 19 h 45 min after the first arrival; then every 24 h.
    auto trace = synthetic_trace(1);
    const double shift = 24 * 86400.0 + (7 * 3600.0 + 15 * 60.0) - trace.front().arrival_s;
    for (TraceVm& vm : trace) {
        vm.arrival_s += shift;
        vm.departure_s += shift;
    }
    SimulateOptions o = options("greedy");
    o.check = false;
    const SimulateResult r = simulate(trace, o);
    ASSERT_GE(r.days.size(), 3U);
    EXPECT_DOUBLE_EQ(r.days[0].time_s, 19 * 3600.0 + 45 * 60.0);
    EXPECT_DOUBLE_EQ(r.days[1].time_s - r.days[0].time_s, 86400.0);
    o.defrag_at_s = 8 * 3600.0;  // 08:00: later on the first arrival's day
    EXPECT_DOUBLE_EQ(simulate(trace, o).days[0].time_s, 45 * 60.0);

    // On the real Azure test split (if the data is there): the first night at 03:00 of its clock.
    const std::filesystem::path az = std::filesystem::path(VMCAP_SHARED_DATA_DIR) / "azure-v1-flavor-traces";
    if (!std::filesystem::is_directory(az)) GTEST_SKIP() << "no data directory " << az;
    const auto azure = read_azure_trace((az / "traces/v1.test.txt").string(), (az / "traces/v1.test.c2591400.txt").string(),
                                        (az / "maps/v1.interval_map.txt").string(), (az / "maps/flav_map.txt").string(), 1);
    SimulateOptions a = options("none");
    a.replay.num_hosts = 300;
    a.replay.time_s = 86400.0;
    const SimulateResult ra = simulate(azure, a);
    const double first = azure.front().arrival_s;
    EXPECT_GT(first, 2099700.0);
    EXPECT_LT(first, 2100000.0);
    ASSERT_EQ(ra.days.size(), 2U);  // the night, the end of the day
    EXPECT_NEAR(std::fmod(first + ra.days[0].time_s, 86400.0), 3 * 3600.0, 1e-6);
    EXPECT_NEAR(first + ra.days[0].time_s, 25 * 86400.0 + 3 * 3600.0, 1e-6);
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
    EXPECT_EQ(to_string(full.stopped_by), "complete");
    std::atomic<bool> stop{true};
    SimulateOptions o = options("greedy");
    o.stop = &stop;
    const SimulateResult interrupted = simulate(trace, o);
    EXPECT_EQ(to_string(interrupted.stopped_by), "interrupt");
    EXPECT_EQ(interrupted.arrivals, 0);  // polled before the first arrival
    ASSERT_EQ(interrupted.days.size(), 1U);
    o = options("greedy");
    o.time_limit_s = 0.0;
    const SimulateResult timed = simulate(trace, o);
    EXPECT_EQ(to_string(timed.stopped_by), "time limit");
    EXPECT_LT(timed.arrivals, full.arrivals);
}

TEST(Simulate, DemandWeightsAreTheSharesOfTheWindowsRequests) {
    const auto trace = synthetic_trace(3);
    SimulateOptions o = options("greedy");
    o.replay.targets = "demand";
    o.replay.demand_window_s = 12 * 3600.0;
    const SimulateResult r = simulate(trace, o);
    ASSERT_GE(r.days.size(), 4U);
    const double origin = trace.front().arrival_s;
    for (std::size_t n = 0; n + 1 < r.days.size(); ++n) {  // the nights (the last row is the end of the span)
        const SimulateDay& d = r.days[n];
        const double t = origin + d.time_s;
        // The oracle: every request (placed or not) of the window, counted here from the trace.
        std::map<std::string, int> asked;
        int total = 0;
        for (const TraceVm& vm : trace)
            if (vm.arrival_s > t - o.replay.demand_window_s && vm.arrival_s <= t) {
                ++asked[vm.flavor_name];
                ++total;
            }
        ASSERT_EQ(d.weights.size(), r.flavors.size());
        for (std::size_t f = 0; f < r.flavors.size(); ++f) {
            const double want = total == 0 || !asked.count(r.flavors[f])
                                    ? (total == 0 ? d.weights[f] : 0.0)
                                    : std::max(0.001, std::round(1e6 * asked[r.flavors[f]] / total) / 1000.0);
            EXPECT_NEAR(d.weights[f], want, 1e-9) << "night " << n << " flavor " << r.flavors[f];
        }
    }
    SimulateOptions fixed = options("greedy");
    const SimulateResult f = simulate(trace, fixed);
    EXPECT_NE(f.days[1].weights, r.days[1].weights) << "demand weights differ from the fixed multi-numa ones";
}

TEST(Simulate, OneHostOfOneNodeIsTheOnePoolReference) {
    // One host with one pNUMA node is a pool: the replay's rejections must equal the pool's, which
    // are counted on their own (no state, no placer). 30 eight-node hosts of the same total have the
    // same pool. (The pool's count is a reference, not a bound: a fragmented cluster that rejects a
    // large VM may keep room for several small ones.)
    const auto trace = synthetic_trace(1);
    SimulateOptions o = options("none");
    o.replay.num_hosts = 1;
    o.replay.host_type = uniform_host_type("K1", 30 * 128, 30 * 512 * 1024);
    const SimulateResult one = simulate(trace, o);
    ASSERT_GT(one.rejected, 0);
    EXPECT_EQ(one.rejected, one.rejected_one_pool);
    EXPECT_EQ(one.rejected_vcpu, one.rejected_one_pool_vcpu);
    for (const SimulateDay& d : one.days) EXPECT_EQ(d.rejected, d.rejected_one_pool);
    const SimulateResult many = simulate(trace, options("none"));
    EXPECT_EQ(many.rejected_one_pool, one.rejected_one_pool) << "the same total vCPU and RAM";
    EXPECT_EQ(many.rejected_one_pool_vcpu, one.rejected_one_pool_vcpu);
    EXPECT_NE(many.rejected, many.rejected_one_pool) << "fragmentation changes what is rejected";
}

TEST(Simulate, MigrationsAtAdmissionAdmitRequestsNoHostTook) {
    const auto trace = synthetic_trace(1);
    SimulateOptions o = options("none");
    const SimulateResult plain = simulate(trace, o);
    o.migrations_per_request = 2;
    const SimulateResult moved = simulate(trace, o);  // every migration re-checked for room as it is applied
    EXPECT_EQ(moved.arrivals, plain.arrivals);
    EXPECT_GT(moved.admitted_by_migrations, 0);
    EXPECT_GE(moved.admission_migrations, moved.admitted_by_migrations);
    // The first request admitted by migrations (bisection over the arrival times): until it the
    // runs are the same (a make_room that finds nothing moves nothing), so the replay without
    // migrations up to it rejects the same requests plus that one. (Later, admitting large VMs may
    // cost room small ones would have had: the whole run's count is a measurement, not an
    // invariant.)
    SimulateOptions prefix = o;
    const auto until = [&](std::size_t i, int k) {
        prefix.replay.time_s = trace[i].arrival_s - trace.front().arrival_s;
        prefix.migrations_per_request = k;
        return simulate(trace, prefix);
    };
    std::size_t lo = 0, hi = trace.size() - 1;  // admitted by migrations up to trace[lo]: 0; up to trace[hi]: >= 1
    ASSERT_EQ(until(lo, 2).admitted_by_migrations, 0);
    ASSERT_GT(until(hi, 2).admitted_by_migrations, 0);
    while (hi - lo > 1) (until((lo + hi) / 2, 2).admitted_by_migrations > 0 ? hi : lo) = (lo + hi) / 2;
    const SimulateResult with = until(hi, 2), without = until(hi, 0);
    EXPECT_EQ(with.admitted_by_migrations, 1);
    EXPECT_GE(with.admission_migrations, 1);
    EXPECT_LE(with.admission_migrations, 2);
    EXPECT_EQ(without.rejected, with.rejected + 1);
    EXPECT_EQ(without.days.back().live_vms + 1, with.days.back().live_vms);
    const SimulateResult again = simulate(trace, o);
    EXPECT_EQ(again.rejected, moved.rejected);
    EXPECT_EQ(again.admission_migrations, moved.admission_migrations);
}

TEST(Simulate, PricesAreSeed003sTable42) {
    EXPECT_EQ(vm_price_per_hour(1, 768), 0.018);           // A0 Basic, 0.75 GB
    EXPECT_EQ(vm_price_per_hour(8, 56 * 1024), 0.7);       // D13
    EXPECT_EQ(vm_price_per_hour(16, 112 * 1024), 1.387);   // D14
    EXPECT_EQ(vm_price_per_hour(2, 3584), 0.088);          // A2 Basic, 3.5 GB
    EXPECT_FALSE(vm_price_per_hour(3, 1024).has_value());  // no such shape
    EXPECT_FALSE(vm_price_per_hour(8, 56 * 1024 + 1).has_value());
}

TEST(Simulate, RevenueAndRejectedVdcsByHand) {
    // One host of one 2-vCPU node on a leaf-spine network; one tenant batch of three 1c1.75g VMs
    // ($0.044/h): v0 [0, 2 h), v1 [600 s, 4200 s), v2 [1200 s, 4800 s) — v2 finds the host full.
    // bpc 2: each pair linked with 2 Mbps; only v0-v1 is allocated, for their 1 h overlap.
    std::vector<TraceVm> trace;
    for (const auto& [at, dt] : std::vector<std::pair<double, double>>{{0, 7200}, {600, 4200}, {1200, 4800}}) {
        TraceVm vm;
        vm.arrival_s = at;
        vm.departure_s = dt;
        vm.vcpu = 1;
        vm.ram_mib = 1792;
        vm.flavor_name = "1c1.75g";
        vm.batch = 0;
        vm.batch_in_bin = 0;
        trace.push_back(vm);
    }
    SimulateOptions o;
    o.replay.host_type = uniform_host_type("K1", 2, 8 * 1024);
    o.replay.num_hosts = 1;
    o.replay.hosts_per_rack = 1;
    o.replay.time_s = 3 * 3600.0;
    o.network = DatacenterNetworkOptions{};
    o.bpc_mbps = 2.0;
    const SimulateResult r = simulate(trace, o);
    EXPECT_EQ(r.rejected, 1);
    EXPECT_EQ(r.vdcs, 1);
    EXPECT_EQ(r.rejected_vdcs, 1);
    EXPECT_NEAR(r.base_revenue, 0.044 * 4, 1e-12);     // 2 h + 1 h + 1 h
    EXPECT_NEAR(r.compute_revenue, 0.044 * 3, 1e-12);  // v2 rejected
    EXPECT_NEAR(r.network_revenue, 2 * 1.0 * 0.00058, 1e-12);
    EXPECT_NEAR(r.revenue_gain, (0.044 * 3 + 2 * 0.00058) / (0.044 * 4) - 1.0, 1e-12);
    // The span cuts lifetimes: to 1 h, v0 earns 1 h, v1 and v2 (v2 still rejected) 0.4 h and 0.
    o.replay.time_s = 3600.0;
    const SimulateResult cut = simulate(trace, o);
    EXPECT_NEAR(cut.base_revenue, 0.044 * (1.0 + (3600.0 - 600.0) / 3600.0 + (3600.0 - 1200.0) / 3600.0), 1e-12);
    EXPECT_NEAR(cut.compute_revenue, 0.044 * (1.0 + (3600.0 - 600.0) / 3600.0), 1e-12);
    // A shape without a price makes the gain unknown, not wrong.
    for (TraceVm& vm : trace) {
        vm.vcpu = 2;
        vm.ram_mib = 1024;
        vm.flavor_name = "2c1g";
    }
    o.replay.host_type = uniform_host_type("K1", 4, 8 * 1024);
    EXPECT_TRUE(std::isnan(simulate(trace, o).revenue_gain));
}

TEST(Simulate, AHoldIsAPlacedVmWithoutTheVm) {
    // SearchState::hold: the capacities of a state with a hold equal those of a state where a VM
    // of that flavor sits on those nodes; giving it back restores every capacity exactly.
    const auto trace = synthetic_trace(1);
    SimulateOptions o = options("none");
    std::vector<std::size_t> arrivals;
    const Problem p = replay_arrivals(trace, o.replay, arrivals);
    const CapacityModel model(p);
    SearchState held(model), placed(model);
    const SearchState fresh(model);
    const int big = static_cast<int>(p.flavors.size()) - 1;  // some multi-node flavor when there is one
    int vm = -1;
    for (int v = 0; v < static_cast<int>(p.vms.size()) && vm < 0; ++v)
        if (p.vms[static_cast<std::size_t>(v)].flavor == big) vm = v;
    ASSERT_GE(vm, 0);
    const Embedding emb = model.evaluator(held.type_of(3), big).placements().back();
    held.hold(3, emb, big, +1);
    placed.place(vm, 3, emb);
    EXPECT_EQ(held.totals(), placed.totals());
    EXPECT_EQ(held.capacity_value(), placed.capacity_value());
    for (int n = 0; n < held.nodes_of(3) * p.num_resources(); ++n) EXPECT_EQ(held.free_of(3)[n], placed.free_of(3)[n]);
    held.hold(3, emb, big, -1);
    EXPECT_EQ(held.totals(), fresh.totals());
    EXPECT_EQ(held.capacity_value(), fresh.capacity_value());
    EXPECT_THROW(held.hold(3, emb, big, -1), std::logic_error) << "nothing held there";
    for (int i = 0; i < 100; ++i)
        if (!fits(held, big, 3, emb)) {
            EXPECT_THROW(held.hold(3, emb, big, +1), std::logic_error) << "no room left";
            break;
        } else {
            held.hold(3, emb, big, +1);
        }
}

TEST(Simulate, WavesOfNoDurationAreThePlanAppliedAtOnce) {
    // With (almost) instant migrations every night's steps end within a millisecond of the night,
    // before any arrival of the synthetic trace: the run must equal the one applying plans at
    // once — the holds, the ends and the drops cancel out exactly.
    const auto trace = synthetic_trace(1);
    for (const char* defrag : {"greedy", "sa"}) {
        SCOPED_TRACE(defrag);
        SimulateOptions at_once = options(defrag), waves = options(defrag);
        ScheduleParams sch;
        sch.durations.overhead_s = 0.0;
        sch.durations.mbps = 100'000'000;  // the most allowed: milliseconds per step
        sch.durations.dirty_factor = 1.0;
        at_once.schedule = sch;
        waves.schedule = sch;
        waves.apply_over_duration = true;
        const SimulateResult a = simulate(trace, at_once), w = simulate(trace, waves);
        EXPECT_GT(a.migrations, 0);
        EXPECT_EQ(w.migrations, a.migrations);
        EXPECT_EQ(w.steps_dropped, 0);
        EXPECT_EQ(w.rejected, a.rejected);
        EXPECT_EQ(w.rejected_vcpu, a.rejected_vcpu);
        ASSERT_EQ(w.days.size(), a.days.size());
        for (std::size_t d = 0; d < a.days.size(); ++d) EXPECT_EQ(w.days[d].live_vms, a.days[d].live_vms);
    }
}

TEST(Simulate, WavesOverHoursDropWhatNoLongerFitsAndAccountForEveryStep) {
    // Slow migrations (100 Mbps: a 32 GiB VM takes over an hour) while the trace goes on: every
    // planned step either completes (re-checked for room when it ends) or is dropped, per night.
    // With and without the plan's reservations for its later steps.
    const auto trace = synthetic_trace(1);
    for (const bool reserve : {false, true}) {
        SCOPED_TRACE(reserve ? "reserved" : "not reserved");
        SimulateOptions o = options("greedy");
        o.schedule = ScheduleParams{};
        o.schedule->durations.mbps = 100;
        o.apply_over_duration = true;
        o.reserve_plan = reserve;
        const SimulateResult r = simulate(trace, o);
        std::int64_t planned = 0;
        for (const SimulateDay& d : r.days) {
            EXPECT_EQ(d.migrations + d.steps_dropped, d.planned_migrations) << "day " << d.day;
            EXPECT_GE(d.makespan_s, d.planned_migrations > 0 ? 3600.0 : 0.0);
            planned += d.planned_migrations;
        }
        EXPECT_GT(r.migrations, 0);
        EXPECT_EQ(r.migrations + r.steps_dropped, planned);
        const SimulateResult again = simulate(trace, o);
        EXPECT_EQ(again.rejected, r.rejected);
        EXPECT_EQ(again.steps_dropped, r.steps_dropped);
    }
}

TEST(Simulate, ARamBudgetBoundsWhatANightCopies) {
    const auto trace = synthetic_trace(1);
    SimulateOptions o = options("greedy");
    o.budget_ram_mib = 256 * 1024;  // 256 GiB a night: a few VMs of the synthetic mix
    const SimulateResult r = simulate(trace, o);
    EXPECT_GT(r.migrations, 0);
    for (const SimulateDay& d : r.days) {
        EXPECT_LE(d.planned_ram_mib, o.budget_ram_mib) << "day " << d.day;
        EXPECT_EQ(d.migrations, d.planned_migrations);
    }
    o.budget_ram_mib = 3 * 1024;  // less than the smallest VM (4 GiB): nothing can move
    EXPECT_EQ(simulate(trace, o).migrations, 0);
}

TEST(Simulate, TheTimeLimitEndsANightsSearch) {
    // A night with an evaluation budget that would run for hours: the simulation's time limit
    // stops that search (its best plan so far is applied) and then the simulation.
    const auto trace = synthetic_trace(1);
    SimulateOptions o = options("sa");
    o.evaluations = 1'000'000'000'000;
    o.time_limit_s = 0.5;
    o.check = false;
    const SimulateResult r = simulate(trace, o);
    EXPECT_EQ(to_string(r.stopped_by), "time limit");
    EXPECT_LT(r.seconds, 60.0) << "the search ran past the limit";
}

namespace {

TraceVm request(double at, double until, Amount vcpu, Amount gib) {
    TraceVm vm;
    vm.arrival_s = at;
    vm.departure_s = until;
    vm.vcpu = vcpu;
    vm.ram_mib = gib * 1024;
    vm.flavor_name = std::to_string(vcpu) + "c" + std::to_string(gib) + "g";
    return vm;
}

}  // namespace

TEST(Simulate, RejectedVcpuHoursByHand) {
    // One host of one 4-vCPU node, a span of 3 h. v0 (2c) [0, 2 h) and v1 (2c) [0.5 h, never) fill
    // it; v2 (1c, [1 h, 1.5 h)) is rejected: 0.5 h x 1 vCPU; v3 (2c, from 1.75 h, never departs) is
    // rejected: its lifetime clipped to the span, 1.25 h x 2; v4 (2c at 2.25 h) takes v0's room;
    // v5 (4c, 2.5 h to 4 h) is rejected: 0.5 h x 4 within the span. v6 arrives after the span.
    const double h = 3600.0, inf = std::numeric_limits<double>::infinity();
    const std::vector<TraceVm> trace = {request(0, 2 * h, 2, 2),      request(0.5 * h, inf, 2, 2),  request(1 * h, 1.5 * h, 1, 1),
                                        request(1.75 * h, inf, 2, 2), request(2.25 * h, inf, 2, 2), request(2.5 * h, 4 * h, 4, 4),
                                        request(3.5 * h, inf, 1, 1)};
    SimulateOptions o;
    o.replay.host_type = uniform_host_type("K1", 4, 64 * 1024);
    o.replay.num_hosts = 1;
    o.replay.time_s = 3 * h;
    const SimulateResult r = simulate(trace, o);
    EXPECT_EQ(r.arrivals, 6);
    EXPECT_EQ(r.rejected, 3);
    EXPECT_EQ(r.rejected_vcpu, 1 + 2 + 4);
    EXPECT_DOUBLE_EQ(r.rejected_vcpu_hours, 0.5 * 1 + 1.25 * 2 + 0.5 * 4);
    // With room for all, nothing is rejected and nothing counted.
    o.replay.num_hosts = 3;
    EXPECT_EQ(simulate(trace, o).rejected_vcpu_hours, 0.0);
}

TEST(Simulate, HostsNeededIsTheLinearScansAnswer) {
    // On the synthetic trace, for a few rejected shares and placers: the count hosts_needed finds
    // passes, one host fewer fails, and it is the first count of a linear scan from 1 that passes.
    const std::vector<TraceVm> trace = synthetic_trace(5);
    for (const char* placer : {"best-fit", "worst-fit"})
        for (const double share : {0.0, 0.01, 0.05}) {
            SCOPED_TRACE(std::string(placer) + " share " + std::to_string(share));
            SimulateOptions o = options("none");
            o.check = false;
            o.replay.placer = placer;
            std::map<int, bool> pass;  // the scan's verdicts
            const auto passes = [&](int n) {
                if (!pass.contains(n)) {
                    SimulateOptions q = o;
                    q.replay.num_hosts = n;
                    const SimulateResult r = simulate(trace, q);
                    pass[n] = share == 0.0 ? r.rejected == 0 : static_cast<double>(r.rejected) < share * static_cast<double>(r.arrivals);
                }
                return pass[n];
            };
            int scan = 1;
            while (!passes(scan)) ++scan;
            for (const int guess : {1, scan, 3 * scan}) {
                const HostsNeeded r = hosts_needed(trace, o, share, guess);
                EXPECT_EQ(r.hosts, scan) << "from " << guess;
                for (const HostsProbe& p : r.probes) EXPECT_EQ(p.ok, passes(p.hosts)) << p.hosts;
                EXPECT_LT(r.probes.size(), 20u);
            }
        }
    EXPECT_THROW(hosts_needed(trace, options("none"), 1.5, 10), InputError);
    EXPECT_THROW(hosts_needed(trace, options("none"), 0.0, 0), InputError);
    EXPECT_THROW(hosts_needed(trace, options("none"), 0.0, 2, {}, 3), InputError);  // more than 3 hosts needed
}

TEST(Simulate, LargestOneNodeFlavorIsTheLargestOfOneVnumaNode) {
    const auto flavor = [](const char* name, Amount vcpu, Amount gib, const char* vnuma) {
        Flavor f;
        f.name = name;
        f.demand = {vcpu, gib * 1024};
        f.vnuma = parse_topology(vnuma);
        return f;
    };
    // By vCPU, then RAM, then name; flavors of two or more vNUMA nodes never, however large.
    std::vector<Flavor> fs = {flavor("8c14g", 8, 14, "K1"), flavor("16c112g", 16, 112, "C4"), flavor("8c16g", 8, 16, "K1"),
                              flavor("2c4g", 2, 4, "K1"), flavor("8c56g", 8, 56, "K2")};
    EXPECT_EQ(largest_one_node_flavor(fs), 2);
    fs.push_back(flavor("8c16h", 8, 16, "K1"));  // equal size: the later name
    EXPECT_EQ(largest_one_node_flavor(fs), 5);
    EXPECT_EQ(largest_one_node_flavor({flavor("8c56g", 8, 56, "K2")}), -1);
    EXPECT_EQ(largest_one_node_flavor({}), -1);
}

TEST(Simulate, PlacerOneNodeIsAWeightOnTheLargestOneNodeFlavorForThePlacerAlone) {
    // The oracle is the placer's weight given by hand: without nights, --placer-one-node on is
    // --weight F=1 for F the largest one-node flavor of the placing problem (the nights are the
    // only other reader of --weight), arrival by arrival; and it changes what the placer does here.
    const std::vector<TraceVm> trace = synthetic_trace(7);
    SimulateOptions o = options("none");
    o.check = false;
    o.replay.placer = "vmcap-fit";
    o.replay.num_hosts = 12;
    std::vector<std::size_t> arrivals;
    const Problem placing = replay_arrivals(trace, o.replay, arrivals);
    const int f = largest_one_node_flavor(placing.flavors);
    ASSERT_GE(f, 0);
    const std::string name = placing.flavors[static_cast<std::size_t>(f)].name;
    ASSERT_EQ(placing.flavors[static_cast<std::size_t>(f)].weight, 0.0) << name << " is weighed already";
    SimulateOptions on = o, by_hand = o;
    on.placer_one_node = true;
    by_hand.replay.weights[name] = 1.0;
    const SimulateResult plain = simulate(trace, o), one = simulate(trace, on), hand = simulate(trace, by_hand);
    EXPECT_EQ(one.rejected, hand.rejected);
    EXPECT_EQ(one.rejected_by_flavor, hand.rejected_by_flavor);
    EXPECT_EQ(one.rejected_vcpu_hours, hand.rejected_vcpu_hours);
    EXPECT_NE(one.rejected_by_flavor, plain.rejected_by_flavor) << "the weight changes nothing on this trace: the test cannot fail";
    // A weight the user gave for the flavor stays as given.
    SimulateOptions zero = by_hand, zero_on = by_hand;
    zero.replay.weights[name] = 0.0;
    zero_on.replay.weights[name] = 0.0;
    zero_on.placer_one_node = true;
    EXPECT_EQ(simulate(trace, zero_on).rejected_by_flavor, simulate(trace, zero).rejected_by_flavor);
    // The nights keep the targets' weights: the flavor's night weight is 0 (multi-numa targets).
    SimulateOptions night = on;
    night.defrag = "greedy";
    const SimulateResult n = simulate(trace, night);
    int weighed = 0;
    for (const SimulateDay& d : n.days)
        if (!d.weights.empty()) {
            ++weighed;
            EXPECT_EQ(d.weights[static_cast<std::size_t>(f)], 0.0) << "day " << d.day;
        }
    EXPECT_GE(weighed, 3) << "too few nights with weights: the check says little";
}

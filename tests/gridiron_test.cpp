// Gridiron VDCs from the Azure trace and datacenter networks from flags and presets: tenant batches
// of the trace reader, the rolling-overflow chop (seed 003 digest §7 item 8), the bpc x min(cores)
// bandwidth (Fig. 3.3), preset structures (T1 Jupiter 4-rack, §7 item 9; T3 leaf-spine; T5 trees; a
// Jupiter 4-pod fabric from flags), oversubscription, and `vmcap snapshot` / `vmcap generate` with
// networks, on synthetic and real traces.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "evaluators/network/network_load.h"
#include "instances/datacenter_network.h"
#include "instances/generator.h"
#include "instances/vnuma_rule.h"
#include "placement/replay.h"
#include "instances/snapshot_io.h"
#include "instances/trace.h"
#include "cli/cli.h"
#include "tests/fixtures.h"
#include "tests/test_constants.h"

namespace vmcap {
namespace {

namespace fs = std::filesystem;

/** A fresh temporary directory named after this test file, removed at scope exit. */
struct TempDir : test::TempDir {
    TempDir() : test::TempDir("vmcap_gridiron_test") {}
};

using test::kFlavorMap;
using test::kIntervalMap;

/** `hosts` hosts of one K2 type in racks of `per_rack` ("r1", ...), no VMs. */
Problem bare_hosts(int hosts, int per_rack) {
    Problem p;
    p.resources = {"vcpu", "ram_mib"};
    p.host_types.push_back(uniform_host_type("K2", 30, 128 * 1024));
    for (int h = 0; h < hosts; ++h) {
        Host host;  // append, not "literal" + string: GCC 12 -Wrestrict false positive
        host.id = std::string("h").append(std::to_string(h + 1));
        host.rack = std::string("r").append(std::to_string(h / per_rack + 1));
        p.hosts.push_back(std::move(host));
    }
    return p;
}

/** Counts the links between switch-name prefixes (e.g. "r" and "spine"), with their capacity. */
std::map<std::string, std::map<std::int64_t, int>> link_kinds(const Network& net) {
    auto kind = [&](int s) {
        const std::string& n = net.switches[static_cast<std::size_t>(s)];
        if (n.rfind("spine", 0) == 0) return std::string("spine");
        if (n.rfind("agg", 0) == 0) return std::string("agg");
        if (n == "core") return std::string("core");
        if (n.rfind("sb", 0) == 0) return std::string("sb");
        if (n.find("-mb") != std::string::npos) return std::string("mb");
        return std::string("tor");
    };
    std::map<std::string, std::map<std::int64_t, int>> out;
    for (const NetLink& l : net.links) {
        std::string a = kind(l.a), b = kind(l.b);
        if (b < a) std::swap(a, b);
        ++out[a + "-" + b][l.mbps];
    }
    return out;
}

// ---------------------------------------------------------------- chop and bandwidth

TEST(GridironChop, PeakSixtyOneWithCapThirtyGivesThirtyThirtyOne) {
    // Digest §3.3 step 2 and §7 item 8: a deployment "abc" of peak 61 -> {abc: 30, abc__0: 30, abc__1: 1}.
    const std::vector<ChoppedVdc> v = chop_vdc("abc", 61, 30);
    ASSERT_EQ(v.size(), 3U);
    EXPECT_EQ(v[0].id, "abc");
    EXPECT_EQ(v[0].size, 30);
    EXPECT_EQ(v[1].id, "abc__0");
    EXPECT_EQ(v[1].size, 30);
    EXPECT_EQ(v[2].id, "abc__1");
    EXPECT_EQ(v[2].size, 1);
    EXPECT_EQ(chopped_vdc_id("abc", 29, 30), "abc");
    EXPECT_EQ(chopped_vdc_id("abc", 30, 30), "abc__0");
    EXPECT_EQ(chopped_vdc_id("abc", 60, 30), "abc__1");
    EXPECT_EQ(chop_vdc("abc", 30, 30).size(), 1U);
    EXPECT_TRUE(chop_vdc("abc", 0, 30).empty());
    EXPECT_THROW(chop_vdc("abc", 5, 0), InputError);
    EXPECT_THROW(chopped_vdc_id("abc", -1, 30), InputError);
}

TEST(GridironChop, ATraceBatchOfSixtyOneAliveVmsBecomesVdcsOfThirtyThirtyOne) {
    // 61 VMs of one batch, all alive: 435 + 435 vlinks; the 1-VM child has no vlink, so no VDC.
    std::vector<TraceVm> trace(61);
    for (std::size_t i = 0; i < trace.size(); ++i) {
        trace[i].arrival_s = static_cast<double>(i);
        trace[i].vcpu = 2;
        trace[i].ram_mib = 3584;
        trace[i].flavor_name = "2c3.5g";
        trace[i].batch = 0;
        trace[i].batch_bin_s = 300;
        trace[i].batch_in_bin = 0;
    }
    SnapshotOptions o;
    o.host_type = uniform_host_type("CQ3", 16, 64 * 1024);
    o.num_hosts = 4;
    o.time_s = 100;
    ReplayStats st;
    Problem p = replay_snapshot(trace, o, &st);
    ASSERT_EQ(p.vms.size(), 61U);
    ASSERT_EQ(st.vm_trace_index.size(), 61U);
    for (std::size_t i = 0; i < p.vms.size(); ++i) EXPECT_EQ(p.vms[i].id, "vm" + std::to_string(st.vm_trace_index[i]));
    p.network = Network{};  // vlinks are checked by the loader only with a network; add_trace_vdcs does not need one
    const TraceVdcStats s = add_trace_vdcs(p, trace, st.vm_trace_index, 1.0, 30);
    EXPECT_EQ(s.batches, 1);
    EXPECT_EQ(s.chopped_batches, 1);
    EXPECT_EQ(s.vdcs, 2);
    EXPECT_EQ(s.vlinks, 2 * 435);
    EXPECT_EQ(s.total_mbps, 2 * 435 * 2);
    EXPECT_EQ(s.largest_vdc, 30);
    ASSERT_EQ(p.vdcs, (std::vector<std::string>{"t300-b0", "t300-b0__0"}));
    std::map<int, std::set<int>> members;
    for (const Vlink& v : p.vlinks) {
        members[v.vdc].insert(v.a);
        members[v.vdc].insert(v.b);
    }
    EXPECT_EQ(members[0].size(), 30U);
    EXPECT_EQ(members[1].size(), 30U);
    EXPECT_EQ(*members[0].rbegin(), 29);  // the first 30 creates, in arrival order
    EXPECT_EQ(*members[1].begin(), 30);   // then the next 30; VM 60 (the 61st) is alone in t300-b0__1
    // Chopping counts the whole batch of the trace, not only the VMs of the snapshot: with the
    // first 30 departed, VMs 30..59 stay in the child "__0".
    for (int i = 0; i < 30; ++i) trace[static_cast<std::size_t>(i)].departure_s = 50;
    Problem q = replay_snapshot(trace, o, &st);
    ASSERT_EQ(q.vms.size(), 31U);
    add_trace_vdcs(q, trace, st.vm_trace_index, 1.0, 30);
    EXPECT_EQ(q.vdcs, (std::vector<std::string>{"t300-b0__0"}));
    EXPECT_EQ(q.vlinks.size(), 435U);
}

/** A problem with one VM per entry of `cores` (flavor "<c>c<2c>g"), all on one big host. */
Problem vms_with_cores(const std::vector<Amount>& cores) {
    Problem p;
    p.resources = {"vcpu", "ram_mib"};
    p.host_types.push_back(uniform_host_type("K1", 64, 256 * 1024));
    p.hosts.push_back(Host{"h1", 0, "r1", "", ""});
    for (std::size_t i = 0; i < cores.size(); ++i) {
        Flavor f;
        f.name = std::to_string(cores[i]) + "c" + std::to_string(2 * cores[i]) + "g-" + std::to_string(i);
        f.demand = {cores[i], 2 * 1024 * cores[i]};
        f.vnuma = parse_topology("K1");
        f.weight = 1;
        p.flavors.push_back(f);
        Vm vm;
        vm.id = std::string("v").append(std::to_string(i));
        vm.flavor = static_cast<int>(i);
        vm.host = 0;
        p.vms.push_back(vm);
    }
    finalize_problem(p, "<test>");
    return p;
}

std::map<std::pair<int, int>, std::int64_t> vlink_map(const Problem& p) {
    std::map<std::pair<int, int>, std::int64_t> m;
    for (const Vlink& v : p.vlinks) m[{std::min(v.a, v.b), std::max(v.a, v.b)}] = v.mbps;
    return m;
}

TEST(GridironBandwidth, Figure33ExampleIsBpcTimesTheSmallerVm) {
    // Digest §3.3 step 3 (Fig. 3.3 / 4.4): v0..v3 of 2, 4, 4, 3 cores; v0 alive in ticks 5-42, v3 in
    // 42-50, so v0 and v3 are never alive together: vlinks v0-v1 2, v0-v2 2, v1-v2 4, v1-v3 3,
    // v2-v3 3 (x bpc). A snapshot sees the VMs alive at its time: {v0, v1, v2} at tick 30, {v1, v2,
    // v3} at tick 45; their union is the figure's five vlinks.
    const std::int64_t bpc = 5;
    {
        Problem p = vms_with_cores({2, 4, 4, 3});
        EXPECT_EQ(add_all_to_all_vdc(p, "early", {0, 1, 2}, bpc), 3U);
        EXPECT_EQ(add_all_to_all_vdc(p, "late", {1, 2, 3}, bpc), 3U);
        std::multiset<std::pair<std::pair<int, int>, std::int64_t>> got;
        for (const Vlink& v : p.vlinks) got.insert({{v.a, v.b}, v.mbps});
        const std::multiset<std::pair<std::pair<int, int>, std::int64_t>> want = {{{0, 1}, 2 * bpc}, {{0, 2}, 2 * bpc}, {{1, 2}, 4 * bpc},
                                                                                  {{1, 2}, 4 * bpc}, {{1, 3}, 3 * bpc}, {{2, 3}, 3 * bpc}};
        EXPECT_EQ(got, want);
        EXPECT_EQ(p.vdcs, (std::vector<std::string>{"early", "late"}));
    }
    {
        // All four in one VDC at once: the figure's five plus v0-v3 = min(2, 3) = 2.
        Problem p = vms_with_cores({2, 4, 4, 3});
        add_all_to_all_vdc(p, "all", {0, 1, 2, 3}, bpc);
        const std::map<std::pair<int, int>, std::int64_t> want = {{{0, 1}, 2 * bpc}, {{0, 2}, 2 * bpc}, {{0, 3}, 2 * bpc},
                                                                  {{1, 2}, 4 * bpc}, {{1, 3}, 3 * bpc}, {{2, 3}, 3 * bpc}};
        EXPECT_EQ(vlink_map(p), want);
    }
    // The artifact's int(bpc * min_cores): truncated; 0 Mbps -> no vlink, and no VDC without vlinks.
    EXPECT_EQ(gridiron_vlink_mbps(1.5, 3, 4), 4);
    EXPECT_EQ(gridiron_vlink_mbps(0.5, 1, 16), 0);
    EXPECT_EQ(gridiron_vlink_mbps(6, 16, 16), 96);
    EXPECT_THROW(gridiron_vlink_mbps(-1, 1, 1), InputError);
    EXPECT_THROW(gridiron_vlink_mbps(1e9, 16, 16), InputError);  // above kMaxMbps
    Problem p = vms_with_cores({1, 1, 2});
    EXPECT_EQ(add_all_to_all_vdc(p, "thin", {0, 1}, 0.5), 0U);
    EXPECT_TRUE(p.vdcs.empty());
    EXPECT_EQ(add_all_to_all_vdc(p, "some", {0, 1, 2}, 0.5), 0U);  // min(1, x) x 0.5 = 0 for every pair
    EXPECT_EQ(add_all_to_all_vdc(p, "half", {0, 1, 2}, 1.5), 3U);  // 1, 1, 1
    EXPECT_THROW(add_all_to_all_vdc(p, "bad", {0, 7}, 1.0), InputError);
}

TEST(GridironBandwidth, ReplayedSnapshotsLinkTheVmsAliveAtTheirTime) {
    // The Fig. 3.3 VDC as one trace batch (ticks -> seconds x 300), replayed and cut at ticks 30 and 45.
    auto vm = [](double from, double to, Amount cores) {
        TraceVm v;
        v.arrival_s = from * 300;
        v.departure_s = to * 300;
        v.vcpu = cores;
        v.ram_mib = 2048 * cores;
        v.flavor_name = trace_flavor_name(cores, v.ram_mib);
        v.batch = 0;
        v.batch_bin_s = 1500;
        v.batch_in_bin = 0;
        return v;
    };
    const std::vector<TraceVm> trace = {vm(5, 42, 2), vm(5, 50, 4), vm(20, 50, 4), vm(42, 50, 3)};
    SnapshotOptions o;
    o.host_type = uniform_host_type("K2", 16, 64 * 1024);
    o.num_hosts = 2;
    const double bpc = 2;
    for (const auto& [tick, want] : std::vector<std::pair<double, std::map<std::pair<int, int>, std::int64_t>>>{
             {30, {{{0, 1}, 4}, {{0, 2}, 4}, {{1, 2}, 8}}},     // vm0, vm1, vm2
             {45, {{{0, 1}, 8}, {{0, 2}, 6}, {{1, 2}, 6}}}}) {  // vm1, vm2, vm3 (problem indices 0..2)
        SCOPED_TRACE(tick);
        o.time_s = (tick - 5) * 300;
        ReplayStats st;
        Problem p = replay_snapshot(trace, o, &st);
        ASSERT_EQ(p.vms.size(), 3U);
        add_trace_vdcs(p, trace, st.vm_trace_index, bpc, 30);
        EXPECT_EQ(vlink_map(p), want);
        EXPECT_EQ(p.vdcs, std::vector<std::string>{"t1500-b0"});
    }
    // A trace without batches (Huawei) cannot make VDCs.
    std::vector<TraceVm> plain = trace;
    for (TraceVm& v : plain) v.batch = -1;
    o.time_s = 0;
    ReplayStats st;
    Problem p = replay_snapshot(plain, o, &st);
    EXPECT_THROW(add_trace_vdcs(p, plain, st.vm_trace_index, bpc, 30), InputError);
}

// ---------------------------------------------------------------- trace batches

TEST(TraceBatches, AzureReaderNumbersTenantBatchesInFileOrder) {
    TempDir d;
    const std::string flav = d.write("f.txt", "300 a,b,|,c\n600 c,c,|,|\n900 a\n");
    const std::string dur = d.write("d.txt", "300 C1,U1,|,U2\n600 U3,C2,|,|\n900 U0\n");
    const auto trace = read_azure_trace(flav, dur, d.write("i.txt", kIntervalMap), d.write("m.txt", kFlavorMap), 3);
    ASSERT_EQ(trace.size(), 6U);
    // Sorted by arrival = file order here: batches {a,b} {c} | {c,c} (an empty `|,|` is no batch) | {a} (closed by the line end).
    const std::vector<std::int64_t> batch = {0, 0, 1, 2, 2, 3};
    const std::vector<std::string> names = {"t300-b0", "t300-b0", "t300-b1", "t600-b0", "t600-b0", "t900-b0"};
    for (std::size_t i = 0; i < trace.size(); ++i) {
        EXPECT_EQ(trace[i].batch, batch[i]) << i;
        EXPECT_EQ(trace_batch_name(trace[i]), names[i]) << i;
    }
    TraceVm copy = trace[2];
    copy.copy = 2;
    EXPECT_EQ(trace_batch_name(copy), "c2-t300-b1");
    copy.batch_bin_s = 2100000;
    EXPECT_EQ(trace_batch_name(copy), "c2-t2100000-b1");
}

// ---------------------------------------------------------------- networks and presets

TEST(GridironNetwork, T1IsJupiterFourRackWithFour640GToRLinks) {
    // Digest §7 item 9: 192 servers, 4 ToR links of 640G (one middle block), 40G server-ToR.
    const TopologyPreset& t1 = topology_preset("T1");
    EXPECT_EQ(t1.hosts, 192);
    Problem p = bare_hosts(t1.hosts, t1.hosts_per_rack);
    build_datacenter_network(p, t1.network, "test");
    EXPECT_EQ(p.network.switches, (std::vector<std::string>{"r1", "r2", "r3", "r4", "p1-mb1"}));
    ASSERT_EQ(p.network.links.size(), 4U);
    for (const NetLink& l : p.network.links) {
        EXPECT_EQ(l.mbps, 640'000);
        EXPECT_EQ(p.network.switches[static_cast<std::size_t>(l.b)], "p1-mb1");
    }
    EXPECT_EQ(p.host_types[0].nic_mbps, 40'000);
    EXPECT_EQ(p.hosts[191].pod, "p1");
    EXPECT_EQ(p.network.host_switch[47], 0);
    EXPECT_EQ(p.network.host_switch[48], 1);
    // 48 x 40G : 640G is the 3:1 of the text; --oversubscription 3 gives the same uplink.
    EXPECT_EQ(oversubscribed_tor_uplink_mbps(t1.network, 48, 3.0), 640'000);
    EXPECT_EQ(uniform_host_type(t1.host_topology, t1.node_vcpu, t1.node_ram_mib).name, "K2-30c128g");
}

TEST(GridironNetwork, JupiterFourPodFromFlagsHasTheDigestsLinkCounts) {
    // Digest §2.2 / §7 item 9 (4-pod): 6,144 servers, 1,024 ToR-MB links, 512 MB-SB links, 16 SBs.
    DatacenterNetworkOptions o;
    o.kind = "jupiter";
    o.racks_per_pod = 32;
    o.mbs_per_pod = 8;
    o.spines = 16;
    o.nic_mbps = 40'000;
    o.tor_uplink_mbps = 80'000;
    o.agg_uplink_mbps = 160'000;
    Problem p = bare_hosts(6144, 48);
    build_datacenter_network(p, o, "test");
    EXPECT_EQ(p.network.switches.size(), 128U + 32U + 16U);
    const auto kinds = link_kinds(p.network);
    EXPECT_EQ(kinds.at("mb-tor").at(80'000), 1024);
    EXPECT_EQ(kinds.at("mb-sb").at(160'000), 512);
    EXPECT_EQ(kinds.size(), 2U);
    EXPECT_EQ(p.hosts[6143].pod, "p4");
    // Each MB: 32 ToR-facing links and 16 up.
    std::map<int, int> degree;
    for (const NetLink& l : p.network.links) ++degree[l.a], ++degree[l.b];
    for (int mb = 128; mb < 160; ++mb) EXPECT_EQ(degree[mb], 32 + 16);
    // ECMP across pods splits over 8 MBs and 16 SBs: b/8 per ToR-MB leg, b/128 per MB-SB link.
    Problem small = bare_hosts(8, 2);  // 4 racks, 2 pods of 2, 2 MBs per pod, 2 SBs
    o.racks_per_pod = 2;
    o.mbs_per_pod = 2;
    o.spines = 2;
    build_datacenter_network(small, o, "test");
    small.flavors.push_back(Flavor{"f", {2, 4096}, {}, parse_topology("K1"), 1.0});
    const Problem q = parse_snapshot(nlohmann::json::parse(snapshot_to_json(small).dump()), "jupiter.json");
    const NetworkRoutes routes(q);
    std::int64_t finest = 1;  // the finest share on any arc: b/4 on the MB-SB links
    for (int k = 0; k < routes.num_links(); ++k) finest = std::max(finest, routes.scale(k));
    EXPECT_EQ(finest, 4);
}

TEST(GridironNetwork, T3AndT5Counts) {
    const TopologyPreset& t3 = topology_preset("T3");
    Problem p = bare_hosts(t3.hosts, t3.hosts_per_rack);
    build_datacenter_network(p, t3.network, "test");
    EXPECT_EQ(p.hosts.size(), 800U);
    EXPECT_EQ(p.network.switches.size(), 42U);  // 40 ToRs + 2 spines
    const auto k3 = link_kinds(p.network);
    EXPECT_EQ(k3.at("spine-tor").at(40'000), 80);
    EXPECT_EQ(k3.at("spine-spine").at(40'000), 4);
    EXPECT_EQ(p.network.links.size(), 84U);
    EXPECT_EQ(p.host_types[0].nic_mbps, 20'000);
    EXPECT_TRUE(t3.host_topology.empty());  // 16-core 32 GB servers cannot hold 16c112g: command's host type

    for (const char* name : {"T5", "T5-2000"}) {
        SCOPED_TRACE(name);
        const TopologyPreset& t5 = topology_preset(name);
        Problem q = bare_hosts(t5.hosts, t5.hosts_per_rack);
        build_datacenter_network(q, t5.network, "test");
        const bool big = std::string(name) == "T5-2000";
        const std::size_t racks = big ? 100 : 10, pods = big ? 10 : 2;
        EXPECT_EQ(q.network.switches.size(), racks + pods + 1);
        const auto k5 = link_kinds(q.network);
        EXPECT_EQ(k5.at("agg-tor").at(100'000), static_cast<int>(racks));
        EXPECT_EQ(k5.at("agg-core").at(big ? 500'000 : 250'000), static_cast<int>(pods));
        EXPECT_EQ(q.hosts.back().pod, "p" + std::to_string(pods));
    }
    EXPECT_EQ(topology_presets().size(), 4U);
    EXPECT_THROW(topology_preset("T9"), InputError);
}

TEST(GridironNetwork, OversubscriptionAndBadOptions) {
    DatacenterNetworkOptions o;                                     // leaf-spine, 2 spines, 25G NIC
    EXPECT_EQ(oversubscribed_tor_uplink_mbps(o, 20, 3.0), 83'333);  // 20 x 25G / 3 over 2 uplinks
    o.kind = "tree";
    EXPECT_EQ(oversubscribed_tor_uplink_mbps(o, 20, 2.0), 250'000);
    EXPECT_THROW(oversubscribed_tor_uplink_mbps(o, 20, 0.0), InputError);
    EXPECT_THROW(oversubscribed_tor_uplink_mbps(o, 20, 1e12), InputError);  // below 1 Mbps
    Problem p = bare_hosts(4, 2);
    o.kind = "bcube";
    EXPECT_THROW(build_datacenter_network(p, o, "test"), InputError);
    o.kind = "jupiter";
    o.mbs_per_pod = 0;
    EXPECT_THROW(build_datacenter_network(p, o, "test"), InputError);
    EXPECT_FALSE(p.network.present());  // unchanged after an error
    o.mbs_per_pod = 1;
    p.hosts[0].rack.clear();
    EXPECT_THROW(build_datacenter_network(p, o, "test"), InputError);
}

// ---------------------------------------------------------------- CLI

struct SyntheticAzure {
    TempDir d;
    SyntheticAzure() {
        // Batches: t300-b0 {c, c, c}, t300-b1 {a}, t600-b0 {c, a} (all alive at the end: censored).
        d.write("azure-v1-flavor-traces/traces/v1.dev.txt", "300 c,c,c,|,a,|\n600 c,a,|\n");
        d.write("azure-v1-flavor-traces/traces/v1.dev.c2100000.txt", "300 C1,C1,C1,|,C1,|\n600 C1,C1,|\n");
        d.write("azure-v1-flavor-traces/maps/v1.interval_map.txt", kIntervalMap);
        d.write("azure-v1-flavor-traces/maps/flav_map.txt", kFlavorMap);
    }
    cli::Args args(const std::vector<std::string>& extra) const {
        cli::Args a = {"--trace", "azure-dev", "--data-dir", d.path().string(), "--time", "600", "--out", out()};
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    }
    std::string out() const { return (d.path() / "snap.json").string(); }
};

TEST(GridironSnapshot, SyntheticTraceGetsNetworkAndNamedVdcs) {
    SyntheticAzure s;
    ASSERT_EQ(cli::cmd_snapshot(s.args({"--hosts", "4", "--hosts-per-rack", "2", "--network", "leaf-spine", "--bpc", "3"})), 0);
    const Problem p = load_snapshot(s.out());
    EXPECT_EQ(p.network.switches, (std::vector<std::string>{"r0001", "r0002", "spine1", "spine2"}));
    EXPECT_EQ(p.host_types[0].nic_mbps, 25'000);
    ASSERT_EQ(p.vdcs, (std::vector<std::string>{"t300-b0", "t600-b0"}));
    // t300-b0: three 2-vCPU VMs -> 3 vlinks of 6 Mbps; t600-b0: 2c and 1c -> 3 Mbps.
    std::map<int, std::vector<std::int64_t>> by_vdc;
    for (const Vlink& v : p.vlinks) by_vdc[v.vdc].push_back(v.mbps);
    EXPECT_EQ(by_vdc[0], (std::vector<std::int64_t>{6, 6, 6}));
    EXPECT_EQ(by_vdc[1], (std::vector<std::int64_t>{3}));
    EXPECT_NE(p.source.find("bpc=3"), std::string::npos);
    EXPECT_NE(p.source.find("network=leaf-spine"), std::string::npos);

    // Two copies: copy 1's tenants are separate VDCs named "c1-...". Cap 2 chops t300-b0 into {2, 1}.
    ASSERT_EQ(cli::cmd_snapshot(s.args({"--hosts", "4", "--network", "tree", "--bpc", "1", "--copies", "2", "--vdc-cap", "2"})), 0);
    const Problem q = load_snapshot(s.out());
    std::set<std::string> ids(q.vdcs.begin(), q.vdcs.end());
    EXPECT_EQ(ids, (std::set<std::string>{"t300-b0", "c1-t300-b0", "t600-b0", "c1-t600-b0"}));  // "__0" children hold one VM
    std::multiset<std::int64_t> mbps;
    for (const Vlink& v : q.vlinks) mbps.insert(v.mbps);
    EXPECT_EQ(mbps, (std::multiset<std::int64_t>{1, 1, 2, 2}));  // per copy: one 2c-2c pair, one 2c-1c pair
}

TEST(GridironSnapshot, BadFlagCombinationsAreUsageErrors) {
    SyntheticAzure s;
    auto usage = [&](const std::vector<std::string>& extra, const std::string& needle) {
        try {
            cli::cmd_snapshot(s.args(extra));
            ADD_FAILURE() << "accepted: " << needle;
        } catch (const cli::UsageError& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    usage({"--hosts", "4", "--bpc", "2"}, "--bpc needs --network or --topology-preset");
    usage({"--hosts", "4", "--network", "tree", "--vdc-cap", "10"}, "--vdc-cap needs --bpc");
    usage({"--hosts", "4", "--network", "tree", "--bpc", "-1"}, "--bpc must be");
    usage({"--hosts", "4", "--network", "mesh"}, "--network must be leaf-spine, tree or jupiter");
    usage({"--hosts", "4", "--nic-mbps", "1000"}, "--nic-mbps needs --network");
    usage({"--hosts", "4", "--network", "tree", "--oversubscription", "3", "--tor-uplink-mbps", "5"}, "not both");
    usage({"--topology-preset", "T1", "--hosts", "100"}, "fixes --hosts at 192");
    usage({"--topology-preset", "T3", "--spines", "4"}, "fixes --spines at 2");
    usage({"--topology-preset", "T3", "--network", "tree"}, "fixes --network at leaf-spine");
    usage({"--topology-preset", "T1", "--oversubscription", "2"}, "drop --oversubscription");
    usage({"--topology-preset", "T7"}, "--topology-preset must be one of T1, T3, T5, T5-2000");
    usage({"--network", "tree"}, "--hosts is required");
    // Huawei-East-1 has no tenant batches.
    try {
        cli::cmd_snapshot(
            {"--trace", "huawei", "--data-dir", s.d.path().string(), "--hosts", "3", "--network", "tree", "--bpc", "2", "--out", s.out()});
        ADD_FAILURE() << "--bpc with huawei accepted";
    } catch (const cli::UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("tenant batches"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(s.out()));
    // A value equal to the preset's is no conflict.
    ASSERT_EQ(cli::cmd_snapshot(s.args({"--topology-preset", "T1", "--hosts", "192", "--bpc", "1"})), 0);
    const Problem p = load_snapshot(s.out());
    EXPECT_EQ(p.hosts.size(), 192U);
    EXPECT_EQ(p.host_types[0].name, "K2-30c128g");
    EXPECT_EQ(p.network.links.size(), 4U);
}

TEST(GridironGenerate, PresetsAndJupiterComeToGenerateToo) {
    TempDir d;
    const std::string out = (d.path() / "gen.json").string();
    ASSERT_EQ(cli::cmd_generate({"--topology-preset", "T1", "--vms", "500", "--vdc-size", "10", "--out", out}), 0);
    const Problem p = load_snapshot(out);
    EXPECT_EQ(p.hosts.size(), 192U);
    EXPECT_EQ(p.host_types[0].name, "K2-30c128g");
    EXPECT_EQ(p.host_types[0].nic_mbps, 40'000);
    EXPECT_EQ(p.network.links.size(), 4U);
    EXPECT_EQ(p.vdcs.size(), 50U);
    ASSERT_EQ(cli::cmd_generate({"--hosts", "40", "--vms", "100", "--network", "jupiter", "--racks-per-pod", "1", "--mbs-per-pod", "2",
                                 "--spines", "3", "--oversubscription", "4", "--out", out}),
              0);
    const Problem q = load_snapshot(out);
    // 2 racks = 2 pods of 2 MBs, 3 SBs: 2 x 2 ToR-MB links of 20 x 25G / 4 / 2 = 62.5G, 4 x 3 MB-SB links.
    EXPECT_EQ(q.network.switches.size(), 2U + 4U + 3U);
    const auto kinds = link_kinds(q.network);
    EXPECT_EQ(kinds.at("mb-tor").at(62'500), 4);
    EXPECT_EQ(kinds.at("mb-sb").at(400'000), 12);
    EXPECT_THROW(cli::cmd_generate({"--vms", "10", "--out", out}), cli::UsageError);  // --hosts missing
    EXPECT_THROW(cli::cmd_generate({"--topology-preset", "T5", "--hosts-per-rack", "10", "--vms", "10", "--out", out}), cli::UsageError);
}

// ---------------------------------------------------------------- real trace

TEST(GridironSnapshot, RealAzureTraceVlinksJoinVmsOfOneBatch) {
    const fs::path data = test::shared_data_dir();
    if (!fs::is_directory(data / "azure-v1-flavor-traces")) GTEST_SKIP() << "no data directory " << data;
    TempDir d;
    const std::string out = (d.path() / "real.json").string();
    ASSERT_EQ(cli::cmd_snapshot({"--trace", "azure-test", "--data-dir", data.string(), "--hosts", "300", "--network", "leaf-spine", "--bpc",
                                 "4", "--out", out}),
              0);
    const Problem p = load_snapshot(out);
    const fs::path az = data / "azure-v1-flavor-traces";
    const auto trace = read_azure_trace((az / "traces/v1.test.txt").string(), (az / "traces/v1.test.c2591400.txt").string(),
                                        (az / "maps/v1.interval_map.txt").string(), (az / "maps/flav_map.txt").string(), 1);
    ASSERT_GT(p.vlinks.size(), 1000U);
    auto trace_vm = [&](int v) -> const TraceVm& {
        const std::string& id = p.vms[static_cast<std::size_t>(v)].id;  // "vm<trace index>"
        return trace.at(std::stoul(id.substr(2)));
    };
    std::map<int, std::set<int>> members;
    for (const Vlink& l : p.vlinks) {
        const TraceVm& a = trace_vm(l.a);
        const TraceVm& b = trace_vm(l.b);
        ASSERT_GE(l.vdc, 0);
        EXPECT_EQ(a.batch, b.batch);
        const std::string& vdc = p.vdcs[static_cast<std::size_t>(l.vdc)];
        EXPECT_EQ(vdc.substr(0, vdc.find("__")), trace_batch_name(a));
        EXPECT_EQ(l.mbps, 4 * std::min(a.vcpu, b.vcpu));
        EXPECT_EQ(p.flavors[static_cast<std::size_t>(p.vms[static_cast<std::size_t>(l.a)].flavor)].name, a.flavor_name);
        members[l.vdc].insert(l.a);
        members[l.vdc].insert(l.b);
    }
    std::size_t pairs = 0;
    for (const auto& [vdc, m] : members) {
        EXPECT_LE(m.size(), 30U);
        pairs += m.size() * (m.size() - 1) / 2;
    }
    EXPECT_EQ(pairs, p.vlinks.size());  // all-to-all inside every VDC
    EXPECT_EQ(members.size(), p.vdcs.size());
    EXPECT_TRUE(std::any_of(p.vdcs.begin(), p.vdcs.end(), [](const std::string& id) { return id.find("__") != std::string::npos; }));
}

}  // namespace
}  // namespace vmcap

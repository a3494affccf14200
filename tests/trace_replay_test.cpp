// Tests of instances/trace.h (Azure V1 and Huawei-East-1 importers), instances/replay.h (vNUMA rule,
// trace replay into a snapshot) and the `vmcap snapshot` subcommand.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "evaluators/closed_forms/vmcap.h"
#include "instances/snapshot_io.h"
#include "instances/trace.h"
#include "placement/replay.h"
#include "cli/cli.h"
#include "tests/fixtures.h"
#include "tests/test_constants.h"

namespace vmcap {
namespace {

namespace fs = std::filesystem;
using test::kInf;

/** A fresh temporary directory named after this test file, removed at scope exit. */
struct ReplayDir : test::TempDir {
    ReplayDir() : test::TempDir("vmcap_trace_test") {}
};

/** Expects `f` to throw InputError whose message contains `needle`. */
template <class F>
void expect_input_error(F&& f, const std::string& needle) {
    try {
        f();
        ADD_FAILURE() << "expected InputError containing '" << needle << "'";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
    }
}

// Map: bins 0 (0 s), 1 (300 s), 2 (600, 900, 1200 s), 3 (1500 s); step 300 s.
using test::kFlavorMap;
using test::kIntervalMap;

struct AzureFiles {
    ReplayDir dir;
    std::string flav, dur, imap, fmap;
    AzureFiles(const std::string& flavors, const std::string& durations) {
        flav = dir.write("flav.txt", flavors);
        dur = dir.write("dur.txt", durations);
        imap = dir.write("imap.txt", kIntervalMap);
        fmap = dir.write("fmap.txt", kFlavorMap);
    }
    std::vector<TraceVm> read(std::uint64_t seed = 7) const { return read_azure_trace(flav, dur, imap, fmap, seed); }
};

// ---------------------------------------------------------------- importers

TEST(TraceFlavorName, PrintsRamMinimally) {
    EXPECT_EQ(trace_flavor_name(16, 112 * 1024), "16c112g");
    EXPECT_EQ(trace_flavor_name(1, 768), "1c0.75g");
    EXPECT_EQ(trace_flavor_name(2, 3584), "2c3.5g");
    EXPECT_EQ(trace_flavor_name(64, 1024 * 1024), "64c1024g");
}

TEST(AzureTrace, AlignsTokensSpreadsArrivalsAndReadsUandC) {
    AzureFiles f("300 a,|,b,c,|\n600 a,|\n", "300 U0,|,C5,U2,|\n600 U9,|\n");
    const auto t = f.read();
    ASSERT_EQ(t.size(), 4u);
    // First line: (0, 300] with 3 VMs at 50, 150, 250; second: (300, 600] with 1 VM at 450.
    EXPECT_DOUBLE_EQ(t[0].arrival_s, 50.0);
    EXPECT_DOUBLE_EQ(t[1].arrival_s, 150.0);
    EXPECT_DOUBLE_EQ(t[2].arrival_s, 250.0);
    EXPECT_DOUBLE_EQ(t[3].arrival_s, 450.0);
    EXPECT_EQ(t[0].flavor_name, "1c0.75g");
    EXPECT_EQ(t[0].vcpu, 1);
    EXPECT_EQ(t[0].ram_mib, 768);
    EXPECT_EQ(t[1].flavor_name, "16c112g");
    EXPECT_EQ(t[1].ram_mib, 112 * 1024);
    EXPECT_EQ(t[2].flavor_name, "2c3.5g");
    EXPECT_EQ(t[2].ram_mib, 3584);
    // U0: lifetime in [0, 300).
    EXPECT_GE(t[0].departure_s - t[0].arrival_s, 0.0);
    EXPECT_LT(t[0].departure_s - t[0].arrival_s, 300.0);
    // C5: censored.
    EXPECT_TRUE(t[1].censored());
    // U2: lifetime in [600, 1500).
    EXPECT_GE(t[2].departure_s - t[2].arrival_s, 600.0);
    EXPECT_LT(t[2].departure_s - t[2].arrival_s, 1500.0);
    // U9: beyond the map's largest bin (3): never departs.
    EXPECT_EQ(t[3].departure_s, kInf);
}

TEST(AzureTrace, BinDrawCoversEveryMemberAndStaysInsideTheBin) {
    std::string flav = "300 ", dur = "300 ";
    const int n = 3000;
    for (int i = 0; i < n; ++i) {
        flav += std::string(i ? "," : "") + "a";
        dur += std::string(i ? "," : "") + "U2";
    }
    AzureFiles f(flav + "\n", dur + "\n");
    const auto t = f.read(11);
    ASSERT_EQ(t.size(), static_cast<std::size_t>(n));
    std::map<int, int> member_hits;
    int low_offset = 0;
    for (const auto& vm : t) {
        const double life = vm.departure_s - vm.arrival_s;
        ASSERT_GE(life, 600.0);
        ASSERT_LT(life, 1500.0);
        const int member = static_cast<int>(std::floor(life / 300.0)) * 300;
        ++member_hits[member];
        if (life - member < 150.0) ++low_offset;
    }
    ASSERT_EQ(member_hits.size(), 3u);  // 600, 900 and 1200 s all drawn
    for (const auto& [member, hits] : member_hits) {
        EXPECT_GT(hits, n / 3 - 200) << member;  // uniform: 1000 each, sd ~26
        EXPECT_LT(hits, n / 3 + 200) << member;
    }
    EXPECT_GT(low_offset, n / 2 - 200);  // offset uniform over [0, 300)
    EXPECT_LT(low_offset, n / 2 + 200);
}

TEST(AzureTrace, SameSeedIsIdenticalOtherSeedDiffers) {
    AzureFiles f("300 a,a,a,a,a,a,a,a\n", "300 U2,U2,U2,U2,U2,U2,U2,U2\n");
    const auto a = f.read(5), b = f.read(5), c = f.read(6);
    ASSERT_EQ(a.size(), 8u);
    bool differs = false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].departure_s, b[i].departure_s);
        differs = differs || a[i].departure_s != c[i].departure_s;
    }
    EXPECT_TRUE(differs);
}

TEST(AzureTrace, MalformedInputNamesFileAndLine) {
    {  // one duration token missing on line 2
        AzureFiles f("300 a,|\n600 a,b,|\n", "300 U1,|\n600 U1,|\n");
        expect_input_error([&] { f.read(); }, f.dur + ":2:");
    }
    {  // '|' in different places
        AzureFiles f("300 a,|,b\n", "300 U1,U2,|\n");
        expect_input_error([&] { f.read(); }, f.dur + ":1:");
    }
    {  // timestamps differ
        AzureFiles f("300 a\n600 a\n", "300 U1\n900 U1\n");
        expect_input_error([&] { f.read(); }, f.dur + ":2:");
    }
    {  // duration file shorter
        AzureFiles f("300 a\n600 a\n", "300 U1\n");
        expect_input_error([&] { f.read(); }, f.flav + ":2:");
    }
    {  // unknown flavor letter
        AzureFiles f("300 a\n600 z\n", "300 U1\n600 U1\n");
        expect_input_error([&] { f.read(); }, f.flav + ":2: unknown flavor 'z'");
    }
    {  // bad duration token
        AzureFiles f("300 a\n600 a,a\n", "300 U1\n600 U1,X3\n");
        expect_input_error([&] { f.read(); }, f.dur + ":2: bad duration token 'X3'");
    }
    {  // timestamps not increasing
        AzureFiles f("600 a\n300 a\n", "600 U1\n300 U1\n");
        expect_input_error([&] { f.read(); }, f.flav + ":2:");
    }
    {  // malformed flavor map
        AzureFiles f("300 a\n", "300 U1\n");
        const std::string bad = f.dir.write("badmap.txt", "1,0.75 a\n2;4 b\n");
        expect_input_error([&] { read_azure_trace(f.flav, f.dur, f.imap, bad, 1); }, bad + ":2:");
    }
}

TEST(HuaweiTrace, ParsesAndSortsStably) {
    ReplayDir d;
    const std::string csv = d.write("h.csv",
                                    "vmid,cpu,mem,at,lt\n"
                                    "0,4,16,10.0,5.0\n"
                                    "1,1,2,2.0,498.0\n"
                                    "2,64,128,10.0,0.0\n");
    const auto t = read_huawei_trace(csv);
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(t[0].flavor_name, "1c2g");
    EXPECT_DOUBLE_EQ(t[0].arrival_s, 2.0);
    EXPECT_DOUBLE_EQ(t[0].departure_s, 500.0);
    EXPECT_EQ(t[0].ram_mib, 2048);
    EXPECT_EQ(t[1].flavor_name, "4c16g");  // equal arrival times keep file order
    EXPECT_EQ(t[2].flavor_name, "64c128g");
    EXPECT_EQ(t[2].vcpu, 64);
    EXPECT_EQ(t[2].ram_mib, 128 * 1024);
    EXPECT_DOUBLE_EQ(t[2].departure_s, 10.0);
}

TEST(HuaweiTrace, MalformedInputNamesFileAndLine) {
    ReplayDir d;
    const std::string header = d.write("a.csv", "vmid,cpu,memory,time,type\n0,1,1,0,0\n");
    expect_input_error([&] { read_huawei_trace(header); }, header + ":1: expected header");
    const std::string fields = d.write("b.csv", "vmid,cpu,mem,at,lt\n0,1,1,0.0,1.0\n1,1,1,0.0\n");
    expect_input_error([&] { read_huawei_trace(fields); }, fields + ":3: expected 5 fields");
    const std::string cpu = d.write("c.csv", "vmid,cpu,mem,at,lt\n0,x,1,0.0,1.0\n");
    expect_input_error([&] { read_huawei_trace(cpu); }, cpu + ":2: bad cpu");
    const std::string lt = d.write("e.csv", "vmid,cpu,mem,at,lt\n0,1,1,0.0,-1.0\n");
    expect_input_error([&] { read_huawei_trace(lt); }, lt + ":2: bad lifetime");
    expect_input_error([&] { read_huawei_trace((d.path() / "missing.csv").string()); }, "missing.csv");
}

TEST(RequestLog, ReadsRowsAndNamesFileAndLineOfABadOne) {
    ReplayDir d;
    const auto r = read_request_log(d.write("r.csv", "time_s,flavor\n30,4c8g\n-5.5,1c2g\r\n12,4c8g\n"));
    ASSERT_EQ(r.size(), 3u);
    EXPECT_DOUBLE_EQ(r[1].time_s, -5.5);  // any origin, any order, CRLF tolerated
    EXPECT_EQ(r[1].flavor, "1c2g");
    EXPECT_EQ(r[2].line, 4u);
    const std::string header = d.write("a.csv", "time,flavor\n1,x\n");
    expect_input_error([&] { read_request_log(header); }, header + ":1: expected header 'time_s,flavor'");
    const std::string fields = d.write("b.csv", "time_s,flavor\n1,x\n2,x,y\n");
    expect_input_error([&] { read_request_log(fields); }, fields + ":3: expected 2 fields");
    const std::string time = d.write("c.csv", "time_s,flavor\ninf,x\n");
    expect_input_error([&] { read_request_log(time); }, time + ":2: bad time 'inf'");
    const std::string name = d.write("e.csv", "time_s,flavor\n1,\n");
    expect_input_error([&] { read_request_log(name); }, name + ":2: empty flavor name");
    const std::string empty = d.write("f.csv", "");
    expect_input_error([&] { read_request_log(empty); }, empty + ":1: empty file");
}

// Weights by hand: the window (until - window, until] holds 7 requests: 4 x a, 2 x b, 1 x c
// (1000 x 4/7 = 571.43 -> 571.429, 2/7 -> 285.714, 1/7 -> 142.857); d before it and e after it are
// not requested there; a request exactly at until - window is outside, one at until inside.
TEST(RequestLog, DemandWeightsAreThousandthsOfTheWindowsShares) {
    std::vector<FlavorRequest> r;
    auto add = [&](double t, const char* f) { r.push_back(FlavorRequest{t, f, 0}); };
    add(100.0, "d");  // at until - window: outside
    for (int i = 0; i < 4; ++i) add(101.0 + i, "a");
    add(150.0, "b");
    add(200.0, "b");  // at until: inside
    add(199.5, "c");
    add(200.5, "e");  // after until
    std::int64_t n = 0;
    const auto w = demand_weights(r, 200.0, 100.0, n);
    EXPECT_EQ(n, 7);
    ASSERT_EQ(w.size(), 3u);
    EXPECT_EQ(w.at("a"), 571.429);
    EXPECT_EQ(w.at("b"), 285.714);
    EXPECT_EQ(w.at("c"), 142.857);
    // Shares that are whole thousandths stay exact: 3,999 and 1 of 4,000 requests.
    std::vector<FlavorRequest> many(3999, FlavorRequest{1.0, "x", 0});
    many.push_back(FlavorRequest{1.0, "y", 0});
    const auto w2 = demand_weights(many, 1.0, 10.0, n);
    EXPECT_EQ(n, 4000);
    EXPECT_EQ(w2.at("x"), 999.75);
    EXPECT_EQ(w2.at("y"), 0.25);
    EXPECT_TRUE(demand_weights(r, 50.0, 10.0, n).empty());
    EXPECT_EQ(n, 0);
}

TEST(MergeTraces, StableByArrivalThenTraceOrder) {
    TraceVm a{1.0, 5.0, 1, 1024, "x"}, b{1.0, 6.0, 2, 2048, "y"}, c{0.5, 7.0, 1, 1024, "x"};
    const auto m = merge_traces({{a}, {c, b}});
    ASSERT_EQ(m.size(), 3u);
    EXPECT_DOUBLE_EQ(m[0].arrival_s, 0.5);
    EXPECT_EQ(m[1].flavor_name, "x");  // trace 0 before trace 1 at equal arrival
    EXPECT_EQ(m[2].flavor_name, "y");
}

// ---------------------------------------------------------------- vNUMA rule

struct RuleCase {
    std::string host_topology;
    Amount node_vcpu, node_gib, vcpu, gib;
    std::string expected;  // topology name, or "" for InputError
};

TEST(VnumaRule, Table) {
    const std::vector<RuleCase> cases = {
        {"CQ3", 16, 64, 1, 1, "K1"},   {"CQ3", 16, 64, 8, 16, "K1"},    // exactly half a node
        {"CQ3", 16, 64, 8, 56, "K2"},                                   // 56 GiB > 32: split in two
        {"CQ3", 16, 64, 8, 64, "K2"},  {"CQ3", 16, 64, 16, 112, "C4"},  // k = 4, CQ3 has no K4
        {"CQ3", 16, 64, 48, 96, "C4"},                                  // only with fraction 1.0 (12 vCPU per node)
        {"CQ3", 16, 64, 9, 18, "K1"},                                   // 9 vCPU not divisible: fraction 1.0, one node
        {"Q33", 16, 64, 32, 64, "C4"}, {"K4", 16, 64, 16, 112, "K4"},   // K4 embeds: K4
        {"K8", 16, 64, 32, 64, "K4"},  {"K2", 40, 90, 64, 128, "K2"},   // VMAgent servers: 32c64g per node with fraction 1.0
        {"K2", 40, 90, 16, 32, "K1"},  {"K2", 40, 90, 24, 48, "K2"},   {"K2", 16, 64, 48, 96, ""},  // would need 4 nodes, host has 2
        {"CQ3", 16, 64, 128, 256, ""},                                                              // 32 vCPU per node even when split in 4
        {"2xK1", 16, 64, 32, 64, ""},  // K2 does not embed in two disconnected nodes
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.host_topology + " " + std::to_string(c.vcpu) + "c" + std::to_string(c.gib) + "g");
        const HostType h = uniform_host_type(c.host_topology, c.node_vcpu, c.node_gib * 1024);
        const std::vector<Amount> demand{c.vcpu, c.gib * 1024};
        if (c.expected.empty()) {
            expect_input_error([&] { vnuma_topology_for(h, demand, "flv", VnumaRule{}); }, "flavor 'flv'");
        } else {
            EXPECT_EQ(vnuma_topology_for(h, demand, "flv", VnumaRule{}).name, c.expected);
        }
    }
}

TEST(VnumaRule, FractionAndOverrides) {
    const HostType cq3 = uniform_host_type("CQ3", 16, 64 * 1024);
    VnumaRule one;
    one.max_node_fraction = 1.0;
    EXPECT_EQ(vnuma_topology_for(cq3, {16, 112 * 1024}, "d", one).name, "K2");  // 8c56g fits one node at 100%
    VnumaRule r;
    r.overrides = {{"small", "K2"}, {"bad-embed", "K4"}, {"bad-div", "K3"}, {"bad-name", "Z9"}, {"too-big", "K1"}};
    EXPECT_EQ(vnuma_topology_for(cq3, {8, 16 * 1024}, "small", r).name, "K2");
    expect_input_error([&] { vnuma_topology_for(cq3, {8, 16 * 1024}, "bad-embed", r); }, "does not embed");
    const HostType k4 = uniform_host_type("K4", 16, 64 * 1024);
    EXPECT_EQ(vnuma_topology_for(k4, {9, 3 * 1024}, "bad-div", r).name, "K3");
    expect_input_error([&] { vnuma_topology_for(k4, {8, 16 * 1024}, "bad-div", r); }, "not divisible");
    expect_input_error([&] { vnuma_topology_for(cq3, {9, 3 * 1024}, "bad-div", r); }, "does not embed");  // no triangle
    expect_input_error([&] { vnuma_topology_for(cq3, {8, 16 * 1024}, "bad-name", r); }, "bad-name");
    expect_input_error([&] { vnuma_topology_for(cq3, {32, 16 * 1024}, "too-big", r); }, "exceeds");
    VnumaRule zero;
    zero.max_node_fraction = 0.0;
    expect_input_error([&] { vnuma_topology_for(cq3, {1, 1024}, "x", zero); }, "fraction");
}

TEST(UniformHostType, NamesAndCapacities) {
    const HostType h = uniform_host_type("CQ3", 16, 64 * 1024);
    EXPECT_EQ(h.name, "CQ3-16c64g");
    ASSERT_EQ(h.node_capacity.size(), 16u);
    EXPECT_EQ(h.node_capacity[14], 16);
    EXPECT_EQ(h.node_capacity[15], 65536);
    EXPECT_EQ(uniform_host_type("K2", 40, 92160).name, "K2-40c90g");
    EXPECT_THROW(uniform_host_type("nope", 1, 1), InputError);
}

// ---------------------------------------------------------------- replay

TraceVm trace_vm_at(double arrival, double departure, Amount vcpu, Amount gib) {
    return TraceVm{arrival, departure, vcpu, gib * 1024, trace_flavor_name(vcpu, gib * 1024)};
}

/** Random trace with K1, K2 and C4 flavors (on CQ3-16c64g) and some censored VMs. */
std::vector<TraceVm> random_replay_trace(std::uint64_t seed, int n) {
    std::mt19937_64 g(seed);
    const std::vector<std::pair<Amount, Amount>> sizes = {{1, 2}, {2, 4}, {4, 8}, {8, 32}, {8, 56}, {16, 112}, {1, 1}};
    std::vector<TraceVm> t;
    double now = 0.0;
    for (int i = 0; i < n; ++i) {
        now += static_cast<double>(g() % 100) / 10.0;
        const auto [v, r] = sizes[g() % sizes.size()];
        const double life = (g() % 10 == 0) ? kInf : static_cast<double>(g() % 4000);
        t.push_back(trace_vm_at(now, now + life, v, r));
    }
    return t;
}

SnapshotOptions cq3_options(int hosts, double time_s) {
    SnapshotOptions o;
    o.host_type = uniform_host_type("CQ3", 16, 64 * 1024);
    o.num_hosts = hosts;
    o.time_s = time_s;
    return o;
}

/** Per-node usage summed independently from the snapshot's VMs; checks every node and mapping. */
void expect_within_capacity(const Problem& p) {
    std::vector<std::vector<Amount>> use(p.hosts.size());
    for (std::size_t h = 0; h < p.hosts.size(); ++h) use[h].assign(p.host_type_of(static_cast<int>(h)).node_capacity.size(), 0);
    for (const Vm& vm : p.vms) {
        const Flavor& f = p.flavors[static_cast<std::size_t>(vm.flavor)];
        const int k = f.vnuma.size();
        std::vector<int> map(vm.pnuma.begin(), vm.pnuma.begin() + k);
        ASSERT_TRUE(is_valid_mapping(p.host_type_of(vm.host).topology.graph, f.vnuma.graph, map)) << vm.id;
        for (int v = 0; v < k; ++v)
            for (int r = 0; r < 2; ++r) use[static_cast<std::size_t>(vm.host)][static_cast<std::size_t>(map[v] * 2 + r)] += f.demand[r] / k;
    }
    for (std::size_t h = 0; h < p.hosts.size(); ++h)
        for (std::size_t i = 0; i < use[h].size(); ++i)
            ASSERT_LE(use[h][i], p.host_type_of(static_cast<int>(h)).node_capacity[i]) << p.hosts[h].id << " slot " << i;
}

TEST(Replay, RandomTraceInvariants) {
    const auto trace = random_replay_trace(3, 3000);
    for (const std::string placer : {"best-fit", "first-fit"}) {
        SCOPED_TRACE(placer);
        SnapshotOptions o = cq3_options(6, 10000.0);
        o.placer = placer;
        ReplayStats st;
        const Problem p = replay_snapshot(trace, o, &st);
        expect_within_capacity(p);
        EXPECT_GT(st.rejected, 0);  // the cluster is too small for the load
        EXPECT_GT(st.placed, 0);
        EXPECT_EQ(st.arrivals, st.placed + st.rejected);
        EXPECT_EQ(st.placed, st.departed + st.alive_at_end);
        EXPECT_EQ(static_cast<std::int64_t>(p.vms.size()), st.alive_at_end);
        std::int64_t by_flavor = 0;
        for (const auto& [name, n] : st.rejected_by_flavor) by_flavor += n;
        EXPECT_EQ(by_flavor, st.rejected);
        const double stop = trace.front().arrival_s + o.time_s;
        std::int64_t arrived = 0;
        for (const auto& vm : trace) arrived += vm.arrival_s <= stop;
        EXPECT_EQ(st.arrivals, arrived);
        // Every VM of the snapshot is alive at the stop time and keeps its trace flavor.
        for (const Vm& vm : p.vms) {
            const std::size_t i = std::stoul(vm.id.substr(2));
            ASSERT_LT(i, trace.size());
            EXPECT_LE(trace[i].arrival_s, stop);
            EXPECT_GT(trace[i].departure_s, stop);
            EXPECT_EQ(p.flavors[static_cast<std::size_t>(vm.flavor)].name, trace[i].flavor_name);
        }
        Amount used = 0, cap = 0;
        for (const Vm& vm : p.vms) used += p.flavors[static_cast<std::size_t>(vm.flavor)].demand[kVcpu];
        for (std::size_t h = 0; h < p.hosts.size(); ++h)
            for (int i = 0; i < 8; ++i) cap += p.host_type_of(static_cast<int>(h)).node_capacity[static_cast<std::size_t>(i * 2)];
        EXPECT_DOUBLE_EQ(st.used_vcpu_fraction, static_cast<double>(used) / static_cast<double>(cap));
        // The snapshot survives the JSON round trip with full validation.
        const Problem q = parse_snapshot(nlohmann::json::parse(snapshot_to_json(p).dump()), "<roundtrip>");
        EXPECT_EQ(q.vms.size(), p.vms.size());
    }
}

/**
 * Reference placer written straight from the documented rules, O(hosts x placements) per arrival:
 * returns trace index -> (host, pNUMA node of each vNUMA node) for the VMs alive at the stop.
 */
std::map<std::size_t, std::pair<int, std::vector<int>>> brute_force_replay(const std::vector<TraceVm>& trace, const SnapshotOptions& o) {
    const HostType& ht = o.host_type;
    const int n = ht.num_nodes();
    // vmcap-fit's targets: the multi-NUMA flavors among those arriving by the stop (placer.h),
    // each with every placement; weighted capacity of a host by the exact solver (vmcap_exact),
    // not the closed forms the placer uses.
    struct Target {
        Amount node_vcpu, node_ram;
        std::vector<Embedding> embs;
    };
    std::vector<Target> targets;
    {
        std::set<std::pair<Amount, Amount>> seen;
        for (const TraceVm& vm : trace) {
            if (vm.arrival_s > trace.front().arrival_s + o.time_s) break;
            if (!seen.insert({vm.vcpu, vm.ram_mib}).second) continue;
            const Topology g = vnuma_topology_for(ht, {vm.vcpu, vm.ram_mib}, vm.flavor_name, o.rule);
            if (g.size() >= 2)
                targets.push_back({vm.vcpu / g.size(), vm.ram_mib / g.size(), enumerate_embeddings(ht.topology.graph, g.graph)});
        }
    }
    auto weighted = [&](const std::vector<Amount>& v, const std::vector<Amount>& r) {
        Count sum = 0;
        for (const Target& t : targets) {
            std::vector<Count> b(static_cast<std::size_t>(n));
            for (int i = 0; i < n; ++i)
                b[static_cast<std::size_t>(i)] =
                    std::min(v[static_cast<std::size_t>(i)] / t.node_vcpu, r[static_cast<std::size_t>(i)] / t.node_ram);
            sum += vmcap_exact(t.embs, n, b.data());
        }
        return sum;
    };
    std::vector<std::vector<Amount>> fv(static_cast<std::size_t>(o.num_hosts)), fr(static_cast<std::size_t>(o.num_hosts));
    for (int h = 0; h < o.num_hosts; ++h)
        for (int i = 0; i < n; ++i) {
            fv[static_cast<std::size_t>(h)].push_back(ht.node_capacity[static_cast<std::size_t>(2 * i)]);
            fr[static_cast<std::size_t>(h)].push_back(ht.node_capacity[static_cast<std::size_t>(2 * i + 1)]);
        }
    std::map<std::size_t, std::pair<int, std::vector<int>>> alive;
    std::multimap<double, std::size_t> departures;  // ties by insertion = by trace index (arrival order)
    auto release = [&](std::size_t i) {
        const auto& [h, nodes] = alive.at(i);
        const Amount k = static_cast<Amount>(nodes.size());
        for (int node : nodes) {
            fv[static_cast<std::size_t>(h)][static_cast<std::size_t>(node)] += trace[i].vcpu / k;
            fr[static_cast<std::size_t>(h)][static_cast<std::size_t>(node)] += trace[i].ram_mib / k;
        }
        alive.erase(i);
    };
    const double stop = trace.front().arrival_s + o.time_s;
    for (std::size_t i = 0; i < trace.size() && trace[i].arrival_s <= stop; ++i) {
        while (!departures.empty() && departures.begin()->first <= trace[i].arrival_s) {
            release(departures.begin()->second);
            departures.erase(departures.begin());
        }
        const TraceVm& vm = trace[i];
        const Topology g = vnuma_topology_for(ht, {vm.vcpu, vm.ram_mib}, vm.flavor_name, o.rule);
        const auto embs = enumerate_embeddings(ht.topology.graph, g.graph);
        const Amount k = g.size(), dv = vm.vcpu / k, dr = vm.ram_mib / k;
        int best_h = -1, best_e = -1;
        Amount best_host_key = 0, best_node_key = 0;
        Count best_change = 0;
        for (int h = 0; h < o.num_hosts; ++h) {
            const auto& v = fv[static_cast<std::size_t>(h)];
            const auto& r = fr[static_cast<std::size_t>(h)];
            Amount host_free = 0;
            for (Amount x : v) host_free += x;
            const bool capacity_fit = o.placer == "vmcap-fit" || o.placer == "vmcap-first-fit" || o.placer == "vmcap-rack-fit";
            const Count before = capacity_fit ? weighted(v, r) : 0;
            for (std::size_t e = 0; e < embs.size(); ++e) {
                bool ok = true;
                Amount node_free = 0;
                for (int j = 0; j < k; ++j) {
                    const auto node = static_cast<std::size_t>(embs[e].map[static_cast<std::size_t>(j)]);
                    ok = ok && v[node] >= dv && r[node] >= dr;
                    node_free += v[node];
                }
                if (!ok) continue;
                if (o.placer == "first-fit") {
                    if (best_h < 0) best_h = h, best_e = static_cast<int>(e);
                    continue;
                }
                if (capacity_fit) {  // largest change, then (vmcap-fit) least free vCPU or (vmcap-rack-fit) lowest rack
                                     // (host / hosts_per_rack) and in it least free vCPU, lowest host, lowest placement
                    auto v2 = v, r2 = r;
                    for (int j = 0; j < k; ++j) {
                        v2[static_cast<std::size_t>(embs[e].map[static_cast<std::size_t>(j)])] -= dv;
                        r2[static_cast<std::size_t>(embs[e].map[static_cast<std::size_t>(j)])] -= dr;
                    }
                    const Count change = weighted(v2, r2) - before;
                    const int rack = h / o.hosts_per_rack, best_rack = best_h / o.hosts_per_rack;
                    const bool tie_wins =
                        change == best_change &&
                        ((o.placer == "vmcap-fit" && host_free < best_host_key) ||
                         (o.placer == "vmcap-rack-fit" && (rack < best_rack || (rack == best_rack && host_free < best_host_key))));
                    if (best_h < 0 || change > best_change || tie_wins) {
                        best_h = h;
                        best_e = static_cast<int>(e);
                        best_change = change;
                        best_host_key = host_free;
                    }
                    continue;
                }
                if (o.placer == "worst-fit") {  // most free vCPU on the host, then on the placement's nodes
                    if (best_h < 0 || host_free > best_host_key || (h == best_h && node_free > best_node_key)) {
                        best_h = h;
                        best_e = static_cast<int>(e);
                        best_host_key = host_free;
                        best_node_key = node_free;
                    }
                    continue;
                }
                if (best_h < 0 || host_free < best_host_key || (h == best_h && node_free < best_node_key)) {
                    best_h = h;
                    best_e = static_cast<int>(e);
                    best_host_key = host_free;
                    best_node_key = node_free;
                }
            }
        }
        if (best_h < 0) continue;  // rejected
        std::vector<int> nodes;
        for (int j = 0; j < k; ++j) {
            const int node = embs[static_cast<std::size_t>(best_e)].map[static_cast<std::size_t>(j)];
            nodes.push_back(node);
            fv[static_cast<std::size_t>(best_h)][static_cast<std::size_t>(node)] -= dv;
            fr[static_cast<std::size_t>(best_h)][static_cast<std::size_t>(node)] -= dr;
        }
        alive[i] = {best_h, nodes};
        if (vm.departure_s != kInf) departures.emplace(vm.departure_s, i);
    }
    while (!departures.empty() && departures.begin()->first <= stop) {
        release(departures.begin()->second);
        departures.erase(departures.begin());
    }
    return alive;
}

TEST(Replay, MatchesABruteForcePlacer) {
    struct Case {
        std::string topology;
        int hosts;
        std::uint64_t seed;
    };
    for (const Case& c : {Case{"CQ3", 6, 21}, Case{"CQ3", 3, 22}, Case{"K4", 12, 23}, Case{"Q33", 5, 24}}) {
        for (const std::string placer : {"best-fit", "first-fit", "vmcap-fit", "vmcap-first-fit", "vmcap-rack-fit", "worst-fit"}) {
            SCOPED_TRACE(c.topology + " " + placer + " seed " + std::to_string(c.seed));
            const auto trace = random_replay_trace(c.seed, 2500);
            SnapshotOptions o = cq3_options(c.hosts, 9000.0);
            o.host_type = uniform_host_type(c.topology, 16, 64 * 1024);
            o.placer = placer;
            if (placer == "vmcap-rack-fit") o.hosts_per_rack = 2;  // racks of 2 hosts: its rack order matters
            ReplayStats st;
            const Problem p = replay_snapshot(trace, o, &st);
            EXPECT_GT(st.rejected, 0);
            const auto expected = brute_force_replay(trace, o);
            ASSERT_EQ(p.vms.size(), expected.size());
            for (const Vm& vm : p.vms) {
                const std::size_t i = std::stoul(vm.id.substr(2));
                const auto it = expected.find(i);
                ASSERT_NE(it, expected.end()) << vm.id;
                EXPECT_EQ(vm.host, it->second.first) << vm.id;
                const std::vector<int> nodes(vm.pnuma.begin(), vm.pnuma.begin() + static_cast<long>(it->second.second.size()));
                EXPECT_EQ(nodes, it->second.second) << vm.id;
            }
        }
    }
}

// vmcap-rack-fit lies between its two neighbours: with one host per rack its ties are first fit's
// (vmcap-first-fit), with every host in one rack best fit's (vmcap-fit), and with racks of two
// hosts it places differently from both.
TEST(Replay, RackFitIsFirstFitOverRacksAndBestFitInThem) {
    const auto trace = random_replay_trace(21, 2500);
    const auto hosts_of = [&](const std::string& placer, int hosts_per_rack) {
        SnapshotOptions o = cq3_options(6, 9000.0);
        o.host_type = uniform_host_type("CQ3", 16, 64 * 1024);
        o.placer = placer;
        o.hosts_per_rack = hosts_per_rack;
        std::map<std::string, int> out;
        for (const Vm& vm : replay_snapshot(trace, o).vms) out[vm.id] = vm.host;
        return out;
    };
    EXPECT_EQ(hosts_of("vmcap-rack-fit", 1), hosts_of("vmcap-first-fit", 1));
    EXPECT_EQ(hosts_of("vmcap-rack-fit", 6), hosts_of("vmcap-fit", 6));
    const auto racks_of_two = hosts_of("vmcap-rack-fit", 2);
    EXPECT_NE(racks_of_two, hosts_of("vmcap-first-fit", 2));
    EXPECT_NE(racks_of_two, hosts_of("vmcap-fit", 2));
}

TEST(Replay, WithAmpleHostsTheSnapshotIsExactlyTheAliveSet) {
    const auto trace = random_replay_trace(4, 1500);
    const SnapshotOptions o = cq3_options(400, 5000.0);
    ReplayStats st;
    const Problem p = replay_snapshot(trace, o, &st);
    EXPECT_EQ(st.rejected, 0);
    std::set<std::string> expected, got;
    const double stop = trace.front().arrival_s + o.time_s;
    for (std::size_t i = 0; i < trace.size(); ++i)
        if (trace[i].arrival_s <= stop && stop < trace[i].departure_s) expected.insert("vm" + std::to_string(i));
    for (const Vm& vm : p.vms) got.insert(vm.id);
    EXPECT_EQ(got, expected);
    // Flavors: only those alive, sorted by vCPU, then RAM.
    for (std::size_t f = 1; f < p.flavors.size(); ++f)
        EXPECT_TRUE(std::tie(p.flavors[f - 1].demand[0], p.flavors[f - 1].demand[1]) <
                    std::tie(p.flavors[f].demand[0], p.flavors[f].demand[1]));
}

// --targets demand: every flavor requested in (stop - window, stop] is a target weighted by
// 1000 x its share of those requests (three decimals, at least 0.001), alive or not; flavors
// requested only before the window get 0, and an arrival exactly at stop - window is outside.
// (A share below 0.0005 thousandths, one request in more than two million, is kept at 0.001.)
TEST(Replay, DemandWeightsAreSharesOfTheWindowsRequests) {
    std::vector<TraceVm> t;
    t.push_back(trace_vm_at(0.0, kInf, 8, 32));    // before the window (and at stop - window): weight 0, alive
    t.push_back(trace_vm_at(100.0, 150.0, 2, 4));  // in the window, departed by the stop: still a target
    for (int i = 0; i < 3; ++i) t.push_back(trace_vm_at(101.0 + i, kInf, 1, 2));
    for (int i = 0; i < 2995; ++i) t.push_back(trace_vm_at(110.0 + i * 0.01, kInf, 4, 8));
    t.push_back(trace_vm_at(140.0, kInf, 16, 112));  // 1 of 3,000: 0.333 thousandths
    SnapshotOptions o = cq3_options(400, 200.0);
    o.targets = "demand";
    o.demand_window_s = 200.0;  // (0, 200]: every arrival but the first
    const Problem p = replay_snapshot(t, o, nullptr);
    std::map<std::string, double> w;
    for (const Flavor& f : p.flavors) w[f.name] = f.weight;
    // 3,000 requests in the window: 1 x 2c4g, 3 x 1c2g, 2,995 x 4c8g and 1 x 16c112g.
    EXPECT_EQ(w.at("8c32g"), 0.0);
    EXPECT_EQ(w.at("2c4g"), 0.333);  // not alive at the stop time, listed for its demand
    EXPECT_EQ(w.at("1c2g"), 1.0);
    EXPECT_EQ(w.at("4c8g"), 998.333);
    EXPECT_EQ(w.at("16c112g"), 0.333);
    // A window too short for any arrival is an input error, naming the window.
    o.demand_window_s = 10.0;
    EXPECT_THROW(replay_snapshot(t, o, nullptr), InputError);
}

TEST(Replay, CountsRejectionsAndHonoursDepartures) {
    // One host, one 4-vCPU node; 1c1g VMs.
    SnapshotOptions o;
    o.host_type = uniform_host_type("K1", 4, 64 * 1024);
    o.num_hosts = 1;
    o.time_s = 100.0;
    const std::vector<TraceVm> t = {
        trace_vm_at(0, 10, 1, 1),     // vm0 departs at 10
        trace_vm_at(1, kInf, 1, 1),   // vm1
        trace_vm_at(2, kInf, 1, 1),   // vm2
        trace_vm_at(3, kInf, 1, 1),   // vm3: node full now
        trace_vm_at(4, kInf, 1, 1),   // vm4 rejected
        trace_vm_at(10, kInf, 1, 1),  // vm5: vm0 departs at 10 first, so it fits
        trace_vm_at(11, kInf, 1, 1),  // vm6 rejected
        trace_vm_at(101, kInf, 1, 1)  // after the stop time: not replayed
    };
    ReplayStats st;
    const Problem p = replay_snapshot(t, o, &st);
    EXPECT_EQ(st.arrivals, 7);
    EXPECT_EQ(st.placed, 5);
    EXPECT_EQ(st.rejected, 2);
    EXPECT_EQ(st.departed, 1);
    EXPECT_EQ(st.alive_at_end, 4);
    EXPECT_EQ(st.peak_alive, 4);
    std::vector<std::string> ids;
    for (const Vm& vm : p.vms) ids.push_back(vm.id);
    EXPECT_EQ(ids, (std::vector<std::string>{"vm1", "vm2", "vm3", "vm5"}));
    EXPECT_DOUBLE_EQ(st.used_vcpu_fraction, 1.0);
    EXPECT_EQ(p.constraints.max_migrations, 1);  // ceil(1% of 4)
    EXPECT_EQ(p.constraints.max_migrated_ram_mib, std::numeric_limits<Amount>::max());
    // A VM departing exactly at the stop time is gone.
    o.time_s = 10.0;
    const Problem q = replay_snapshot(t, o, &st);
    EXPECT_EQ(st.departed, 1);
    EXPECT_EQ(q.vms.size(), 4u);
}

TEST(Replay, BestFitAndFirstFitChooseDifferentHostsAndNodes) {
    // Hosts: two single-node hosts of 4 vCPU.
    const std::vector<TraceVm> hosts_trace = {
        trace_vm_at(0, 2, 2, 1),     // vm0 -> h1 (both placers)
        trace_vm_at(1, kInf, 3, 1),  // vm1 -> h2 (h1 has 2 free)
        trace_vm_at(3, kInf, 1, 1),  // vm2: h1 has 4 free, h2 has 1 free
    };
    SnapshotOptions o;
    o.host_type = uniform_host_type("K1", 4, 8 * 1024);
    o.num_hosts = 2;
    o.time_s = 10.0;
    o.placer = "best-fit";
    Problem bf = replay_snapshot(hosts_trace, o);
    o.placer = "first-fit";
    Problem ff = replay_snapshot(hosts_trace, o);
    ASSERT_EQ(bf.vms.size(), 2u);
    ASSERT_EQ(ff.vms.size(), 2u);
    EXPECT_EQ(bf.vms[0].host, 1);
    EXPECT_EQ(ff.vms[0].host, 1);
    EXPECT_EQ(bf.vms[1].host, 1);  // least free vCPU after placement
    EXPECT_EQ(ff.vms[1].host, 0);  // first host that fits

    // Nodes: one host, two 4-vCPU nodes (K2).
    const std::vector<TraceVm> nodes_trace = {
        trace_vm_at(0, 5, 3, 1),     // vm0 -> node 1
        trace_vm_at(1, kInf, 2, 1),  // vm1 -> node 2 (node 1 has 1 free)
        trace_vm_at(6, kInf, 1, 1),  // vm2: node 1 has 4 free, node 2 has 2 free
    };
    o.host_type = uniform_host_type("K2", 4, 8 * 1024);
    o.num_hosts = 1;
    o.placer = "best-fit";
    bf = replay_snapshot(nodes_trace, o);
    o.placer = "first-fit";
    ff = replay_snapshot(nodes_trace, o);
    ASSERT_EQ(bf.vms.size(), 2u);
    EXPECT_EQ(bf.vms[0].pnuma[0], 1);
    EXPECT_EQ(bf.vms[1].pnuma[0], 1);  // leaves 1 free vCPU on node 2
    EXPECT_EQ(ff.vms[1].pnuma[0], 0);  // first feasible placement

    // On a random trace both are valid and they differ.
    const auto trace = random_replay_trace(8, 2000);
    SnapshotOptions r = cq3_options(8, 8000.0);
    const Problem a = replay_snapshot(trace, r);
    r.placer = "first-fit";
    const Problem b = replay_snapshot(trace, r);
    expect_within_capacity(a);
    expect_within_capacity(b);
    EXPECT_NE(snapshot_to_json(a).dump(), snapshot_to_json(b).dump());
}

TEST(Replay, DeterministicForAFixedSeedAndSampleDependsOnSeed) {
    const auto trace = random_replay_trace(5, 2000);
    SnapshotOptions o = cq3_options(5, 7000.0);
    o.sample = 0.5;
    o.seed = 42;
    ReplayStats s1, s2;
    const std::string a = snapshot_to_json(replay_snapshot(trace, o, &s1)).dump();
    const std::string b = snapshot_to_json(replay_snapshot(trace, o, &s2)).dump();
    EXPECT_EQ(a, b);
    EXPECT_EQ(s1.arrivals, s2.arrivals);
    std::int64_t arrived = 0;
    for (const auto& vm : trace) arrived += vm.arrival_s <= trace.front().arrival_s + o.time_s;
    EXPECT_GT(s1.arrivals, arrived * 4 / 10);
    EXPECT_LT(s1.arrivals, arrived * 6 / 10);
    o.seed = 43;
    EXPECT_NE(snapshot_to_json(replay_snapshot(trace, o)).dump(), a);
}

TEST(Replay, TargetsWeightsTopologyAndConstraints) {
    const std::vector<TraceVm> t = {trace_vm_at(0, kInf, 1, 2), trace_vm_at(1, kInf, 8, 56), trace_vm_at(2, kInf, 16, 112),
                                    trace_vm_at(3, kInf, 4, 8), trace_vm_at(4, 5, 2, 4)};
    SnapshotOptions o = cq3_options(5, 10.0);
    o.hosts_per_rack = 2;
    o.racks_per_pod = 2;
    o.max_migrations = 7;
    o.max_migrated_ram_mib = 4096;
    o.source = "unit test";
    Problem p = replay_snapshot(t, o);
    std::vector<std::string> names, topo;
    std::vector<double> weights;
    for (const Flavor& f : p.flavors) {
        names.push_back(f.name);
        topo.push_back(f.vnuma.name);
        weights.push_back(f.weight);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"1c2g", "4c8g", "8c56g", "16c112g"}));  // 2c4g departed
    EXPECT_EQ(topo, (std::vector<std::string>{"K1", "K1", "K2", "C4"}));
    EXPECT_EQ(weights, (std::vector<double>{0, 0, 1, 1}));
    EXPECT_EQ(p.constraints.max_migrations, 7);
    EXPECT_EQ(p.constraints.max_migrated_ram_mib, 4096);
    EXPECT_EQ(p.source, "unit test");
    ASSERT_EQ(p.hosts.size(), 5u);
    EXPECT_EQ(p.hosts[0].id, "h00001");
    EXPECT_EQ(p.hosts[4].id, "h00005");
    EXPECT_EQ(p.hosts[3].rack, "r0002");
    EXPECT_EQ(p.hosts[4].rack, "r0003");
    EXPECT_EQ(p.hosts[3].pod, "p001");
    EXPECT_EQ(p.hosts[4].pod, "p002");
    EXPECT_TRUE(std::all_of(p.vms.begin(), p.vms.end(), [](const Vm& vm) { return vm.migratable; }));

    o.targets = "all";
    o.weights = {{"1c2g", 0.0}, {"8c56g", 2.5}};
    p = replay_snapshot(t, o);
    EXPECT_EQ(p.flavors[0].weight, 0.0);
    EXPECT_EQ(p.flavors[1].weight, 1.0);
    EXPECT_EQ(p.flavors[2].weight, 2.5);

    // No multi-NUMA flavor alive: the largest flavor is the target.
    const std::vector<TraceVm> small = {trace_vm_at(0, kInf, 1, 2), trace_vm_at(1, kInf, 4, 8), trace_vm_at(2, kInf, 4, 4)};
    o = cq3_options(2, 10.0);
    p = replay_snapshot(small, o);
    ASSERT_EQ(p.flavors.size(), 3u);
    EXPECT_EQ(p.flavors[2].name, "4c8g");
    EXPECT_EQ(p.flavors[2].weight, 1.0);
    EXPECT_EQ(p.flavors[1].weight, 0.0);

    // vNUMA override is applied; names absent from the trace are errors.
    o.rule.overrides = {{"4c8g", "K2"}};
    p = replay_snapshot(small, o);
    EXPECT_EQ(p.flavors[2].vnuma.name, "K2");
    EXPECT_EQ(p.flavors[2].weight, 1.0);
    o.rule.overrides = {{"nope", "K2"}};
    expect_input_error([&] { replay_snapshot(small, o); }, "nope");
    o.rule.overrides.clear();
    o.weights = {{"nope", 1.0}};
    expect_input_error([&] { replay_snapshot(small, o); }, "nope");
}

TEST(Replay, RejectsBadOptionsAndTraces) {
    const std::vector<TraceVm> t = {trace_vm_at(0, kInf, 1, 2)};
    auto bad = [&](auto mutate, const std::string& needle) {
        SnapshotOptions o = cq3_options(2, 10.0);
        mutate(o);
        expect_input_error([&] { replay_snapshot(t, o); }, needle);
    };
    bad([](SnapshotOptions& o) { o.num_hosts = 0; }, "hosts");
    bad([](SnapshotOptions& o) { o.placer = "nope-fit"; }, "placer");
    bad([](SnapshotOptions& o) { o.sample = 0.0; }, "sample");
    bad([](SnapshotOptions& o) { o.targets = "some"; }, "targets");
    bad([](SnapshotOptions& o) { o.time_s = -1.0; }, "time");
    bad([](SnapshotOptions& o) { o.host_type.node_capacity.pop_back(); }, "node capacities");
    const std::vector<TraceVm> unsorted = {trace_vm_at(5, kInf, 1, 2), trace_vm_at(1, kInf, 1, 2)};
    expect_input_error([&] { replay_snapshot(unsorted, cq3_options(2, 10.0)); }, "not sorted");
    std::vector<TraceVm> clash = {trace_vm_at(0, kInf, 1, 2), trace_vm_at(1, kInf, 2, 2)};
    clash[1].flavor_name = clash[0].flavor_name;
    expect_input_error([&] { replay_snapshot(clash, cq3_options(2, 10.0)); }, "two different sizes");
    // A flavor the rule cannot split on this host type.
    const std::vector<TraceVm> huge = {trace_vm_at(0, kInf, 256, 2)};
    expect_input_error([&] { replay_snapshot(huge, cq3_options(2, 10.0)); }, "256c2g");
}

// ---------------------------------------------------------------- CLI

TEST(CmdSnapshot, WritesASnapshotFromASyntheticDataDir) {
    ReplayDir d;
    d.write("azure-v1-flavor-traces/traces/v1.dev.txt", "300 a,b,|,c\n600 c,c,|\n900 a\n");
    d.write("azure-v1-flavor-traces/traces/v1.dev.c2100000.txt", "300 C1,U1,|,U2\n600 U9,C2,|\n900 U0\n");
    d.write("azure-v1-flavor-traces/maps/v1.interval_map.txt", kIntervalMap);
    d.write("azure-v1-flavor-traces/maps/flav_map.txt", kFlavorMap);
    const std::string out = (d.path() / "snap.json").string();
    const cli::Args args = {"--trace", "azure-dev", "--data-dir", d.path().string(), "--hosts",    "3",     "--time",
                            "400",     "--seed",    "9",          "--weight",        "2c3.5g=0.5", "--out", out};
    ASSERT_EQ(cli::cmd_snapshot(args), 0);
    const Problem p = load_snapshot(out);
    EXPECT_EQ(p.hosts.size(), 3u);
    EXPECT_EQ(p.host_types[0].name, "CQ3-16c64g");
    EXPECT_NE(p.source.find("azure-dev"), std::string::npos);
    EXPECT_NE(p.source.find("seed=9"), std::string::npos);
    EXPECT_NE(p.source.find("time=400"), std::string::npos);
    EXPECT_NE(p.source.find("CC-BY 4.0"), std::string::npos);
    EXPECT_NE(p.source.find("Cortez"), std::string::npos);
    const auto it = std::find_if(p.flavors.begin(), p.flavors.end(), [](const Flavor& f) { return f.name == "2c3.5g"; });
    ASSERT_NE(it, p.flavors.end());
    EXPECT_EQ(it->weight, 0.5);

    EXPECT_EQ(cli::cmd_snapshot({"--help"}), 0);
    auto with = [&](std::vector<std::string> extra) {
        cli::Args a = {"--trace", "azure-dev", "--data-dir", d.path().string(), "--hosts", "3", "--out", out};
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    };
    EXPECT_THROW(cli::cmd_snapshot(with({"--placer", "nope-fit"})), cli::UsageError);
    EXPECT_THROW(cli::cmd_snapshot(with({"--sample", "1.5"})), cli::UsageError);
    EXPECT_THROW(cli::cmd_snapshot(with({"--vnuma", "2c3.5g"})), cli::UsageError);
    EXPECT_THROW(cli::cmd_snapshot(with({"--host-type", "XYZ"})), cli::UsageError);
    EXPECT_THROW(cli::cmd_snapshot(with({"--bogus"})), cli::UsageError);
    EXPECT_THROW(cli::cmd_snapshot({"--trace", "azure-dev", "--out", out}), cli::UsageError);                 // --hosts missing
    EXPECT_THROW(cli::cmd_snapshot(with({"--data-dir", (d.path() / "nowhere").string()})), cli::UsageError);  // given twice
    EXPECT_THROW(cli::cmd_snapshot({"--trace", "huawei", "--data-dir", d.path().string(), "--hosts", "3", "--out", out}),
                 InputError);  // the CSV is absent
}

// ---------------------------------------------------------------- real traces (smoke)

fs::path shared_data() {
    return test::shared_data_dir();
}

struct RealCase {
    std::string name;
    std::size_t expected_vms;  // VM count documented in the data README
    std::string host_topology;
    Amount node_vcpu, node_gib;
    int hosts;
};

void PrintTo(const RealCase& c, std::ostream* os) {
    *os << c.name;
}

/** Flavor names of the data README's tables (Azure flav_map.txt; Huawei flavor counts). */
std::set<std::string> documented_flavors(const std::string& name) {
    if (name == "huawei")
        return {"1c2g",  "1c1g",   "2c4g",   "4c8g",    "1c4g",   "2c8g",   "8c16g", "4c16g",
                "8c32g", "16c32g", "12c24g", "64c128g", "32c64g", "24c48g", "48c96g"};
    return {"1c0.75g", "1c1.75g", "1c2g", "16c112g", "2c14g", "2c16g", "2c3.5g", "2c4g",
            "4c28g",   "4c32g",   "4c7g", "4c8g",    "8c14g", "8c16g", "8c56g",  "8c64g"};
}

std::vector<TraceVm> read_real(const std::string& name) {
    const fs::path az = shared_data() / "azure-v1-flavor-traces";
    if (name == "azure-dev")
        return read_azure_trace((az / "traces/v1.dev.txt").string(), (az / "traces/v1.dev.c2100000.txt").string(),
                                (az / "maps/v1.interval_map.txt").string(), (az / "maps/flav_map.txt").string(), 1);
    if (name == "azure-test")
        return read_azure_trace((az / "traces/v1.test.txt").string(), (az / "traces/v1.test.c2591400.txt").string(),
                                (az / "maps/v1.interval_map.txt").string(), (az / "maps/flav_map.txt").string(), 1);
    return read_huawei_trace((shared_data() / "huawei-east-1/Huawei-East-1-lt.csv").string());
}

class RealTrace : public ::testing::TestWithParam<RealCase> {};

TEST_P(RealTrace, ReplaysIntoAValidSnapshot) {
    if (!fs::is_directory(shared_data())) GTEST_SKIP() << "no data directory " << shared_data();
    const RealCase& c = GetParam();
    const auto trace = read_real(c.name);
    EXPECT_EQ(trace.size(), c.expected_vms);
    std::set<std::string> flavors;
    for (const auto& vm : trace) flavors.insert(vm.flavor_name);
    const std::set<std::string> documented = documented_flavors(c.name);
    EXPECT_TRUE(std::includes(documented.begin(), documented.end(), flavors.begin(), flavors.end()));
    EXPECT_GE(flavors.size(), documented.size() - 2);
    EXPECT_TRUE(std::is_sorted(trace.begin(), trace.end(), [](const TraceVm& a, const TraceVm& b) { return a.arrival_s < b.arrival_s; }));
    SnapshotOptions o;
    o.host_type = uniform_host_type(c.host_topology, c.node_vcpu, c.node_gib * 1024);
    o.num_hosts = c.hosts;
    o.time_s = std::round((trace.back().arrival_s - trace.front().arrival_s) * 2.0 / 3.0);
    ReplayStats st;
    const Problem p = replay_snapshot(trace, o, &st);
    expect_within_capacity(p);
    EXPECT_EQ(st.arrivals, st.placed + st.rejected);
    EXPECT_GT(st.alive_at_end, 0);
    EXPECT_GT(st.used_vcpu_fraction, 0.2);
    EXPECT_LE(st.used_vcpu_fraction, 1.0);
    EXPECT_TRUE(std::any_of(p.flavors.begin(), p.flavors.end(), [](const Flavor& f) { return f.weight > 0; }));
    const Problem q = parse_snapshot(nlohmann::json::parse(snapshot_to_json(p).dump()), "<roundtrip>");
    EXPECT_EQ(q.vms.size(), p.vms.size());
}

INSTANTIATE_TEST_SUITE_P(Data, RealTrace,
                         ::testing::Values(RealCase{"azure-dev", 259159, "CQ3", 16, 64, 200},
                                           RealCase{"azure-test", 410276, "CQ3", 16, 64, 200},
                                           RealCase{"huawei", 116313, "K2", 40, 90, 30}),
                         [](const auto& info) {
                             std::string n = info.param.name;
                             std::replace(n.begin(), n.end(), '-', '_');
                             return n;
                         });

}  // namespace
}  // namespace vmcap

namespace vmcap {
namespace {

TEST(TimeShiftedCopy, KeepsLifetimesAndWrapsArrivalsIntoTheSpan) {
    std::vector<TraceVm> t;
    for (int i = 0; i < 10; ++i)
        t.push_back(
            TraceVm{100.0 + 10.0 * i, i == 3 ? std::numeric_limits<double>::infinity() : 100.0 + 10.0 * i + 5.0 + i, 1 + i % 2, 1024, "x"});
    const auto c = time_shifted_copy(t, 35.0);  // span 90: arrivals move by 35, wrapping past 190
    ASSERT_EQ(c.size(), t.size());
    std::multiset<double> lifetimes_in, lifetimes_out;
    for (const auto& vm : t) lifetimes_in.insert(vm.departure_s - vm.arrival_s);
    for (std::size_t i = 0; i < c.size(); ++i) {
        EXPECT_GE(c[i].arrival_s, 100.0);
        EXPECT_LT(c[i].arrival_s, 190.0);
        if (i > 0) {
            EXPECT_LE(c[i - 1].arrival_s, c[i].arrival_s);
        }
        lifetimes_out.insert(c[i].departure_s - c[i].arrival_s);
    }
    EXPECT_EQ(lifetimes_in, lifetimes_out);
    EXPECT_DOUBLE_EQ(c.front().arrival_s, 100.0 + std::fmod(60.0 + 35.0, 90.0));  // the VM that arrived at 160 wraps to 105
    // Offset 0: every arrival stays, except the last one, which lands on the first (cyclic span).
    const auto same = time_shifted_copy(t, 0.0);
    EXPECT_DOUBLE_EQ(same[1].arrival_s, 100.0);
    for (std::size_t i = 1; i + 1 < t.size(); ++i) EXPECT_DOUBLE_EQ(same[i + 1].arrival_s, t[i].arrival_s);
}

}  // namespace
}  // namespace vmcap

// Bandwidth-aware flavor capacity (evaluators/objective/bandwidth_capacity.h):
// values and a delta worked out by hand on a two-pod tree, the rule off without a network section
// (exactly today's VMCAP), and the snapshot field. Random moves of every kind against a
// from-scratch re-derivation are in objective_test.cpp (CandidatePropertiesNetwork).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "evaluators/objective/bandwidth_capacity.h"
#include "evaluators/state/search_state.h"
#include "instances/snapshot_io.h"
#include "tests/cli_run.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

/**
 * Hosts h0, h1 under tor0 and h2, h3 under tor1 (pod p0, aggregation switch agg0); h4 under tor2
 * (pod p1, agg1); both aggregations under one core. One pNUMA node of 16 vCPU per host, NIC 2,500
 * Mbps. Flavor f: 4 vCPU, hose 1,000 Mbps; flavor g: 2 vCPU, no bandwidth. v0 (f) on h0 and v1
 * (f) on h2 joined by a 500-Mbps vlink. `agg0_core`: capacity of the agg0-core link.
 */
std::string tree_snapshot(const std::string& agg0_core, bool network = true, bool bandwidth = true) {
    std::string s = R"({"format": "vmcap-snapshot/1",
 "host_types": [{"name": "t", "topology": "K1", "node_capacity": {"vcpu": 16, "ram_mib": 65536}, "nic_mbps": 2500}],
 "hosts": [{"id": "h0", "type": "t", "rack": "tor0", "pod": "p0"}, {"id": "h1", "type": "t", "rack": "tor0", "pod": "p0"},
           {"id": "h2", "type": "t", "rack": "tor1", "pod": "p0"}, {"id": "h3", "type": "t", "rack": "tor1", "pod": "p0"},
           {"id": "h4", "type": "t", "rack": "tor2", "pod": "p1"}],
 "flavors": [{"name": "f", "vcpu": 4, "ram_mib": 4096, "weight": 1)";
    if (bandwidth) s += R"(, "bandwidth_mbps": 1000)";
    s += R"(}, {"name": "g", "vcpu": 2, "ram_mib": 2048, "weight": 1}],
 "vms": [{"id": "v0", "flavor": "f", "host": "h0", "pnuma": [1]}, {"id": "v1", "flavor": "f", "host": "h2", "pnuma": [1]}])";
    if (network)
        s += R"(, "network": {"switches": ["tor0", "tor1", "tor2", "agg0", "agg1", "core"],
   "links": [["tor0", "agg0", 3000], ["tor1", "agg0", 3000], ["agg0", "core", )" +
             agg0_core + R"(], ["tor2", "agg1", 10000], ["agg1", "core", 10000]]},
 "vlinks": [["v0", "v1", 500]])";
    return s + "}";
}

Problem load(const std::string& text) {
    return parse_snapshot(nlohmann::json::parse(text), "tree.json");
}

const BandwidthCapacityTerm& term_of(const CapacityModel& m) {
    for (const auto& t : m.terms())
        if (auto* b = dynamic_cast<const BandwidthCapacityTerm*>(t.get())) return *b;
    throw std::logic_error("no bandwidth-capacity term");
}

TEST(BandwidthCapacity, TwoPodTreeByHand) {
    // VMCAP of f: h0 3, h1 4, h2 3, h3 4, h4 4 = 18; of g: 6 + 8 + 6 + 8 + 8 = 36.
    // Loads: 500 on the uplinks of h0 and h2 and on tor0-agg0, tor1-agg0.
    // Hosts: min(VMCAP, floor(free NIC / 1000)) = 2 each. Racks: tor0 min(4, floor(2500 / 1000)) = 2,
    // tor1 2, tor2 min(2, 10) = 2. Pods: p0 min(4, floor(3000 / 1000)) = 3, p1 2. f: 3 + 2 = 5.
    const Problem p = load(tree_snapshot("3000"));
    EXPECT_TRUE(NetworkRoutes(p).decomposed());  // a two-level tree: up-paths meet at agg0 or the core
    const CapacityModel m(p);
    const SearchState s(m);
    const BandwidthCapacityTerm& t = term_of(m);
    EXPECT_EQ(t.capped_racks(), 3);
    EXPECT_EQ(t.capped_pods(), 2);
    EXPECT_EQ(s.objective(), (5 + 36) * kScoreScale);
    std::vector<int> host;
    std::vector<NodeMask> mask;
    s.placement_arrays(host, mask);
    const auto capped = t.capped_totals(PlacementView{host, mask});
    ASSERT_EQ(capped.size(), 2U);
    EXPECT_EQ(capped[0], 5);
    EXPECT_EQ(capped[1], -1);  // g has no bandwidth: VMCAP
    EXPECT_EQ(s.objective(), test::bandwidth_capped_objective(m, s));
}

TEST(BandwidthCapacity, ColocatingAChattyPairLiftsTheRackCapsByHand) {
    // With a wide agg0-core link no pod cap binds: f = racks 2 + 2 + 2 = 6.
    const Problem p = load(tree_snapshot("100000"));
    const CapacityModel m(p);
    SearchState s(m);
    EXPECT_EQ(s.objective(), (6 + 36) * kScoreScale);
    // v1 joins v0 on h0: no load anywhere. VMCAP of f: h0 3 -> 2, h2 3 -> 4 (same total); hosts
    // min(VMCAP, 2) = 2, 2 | 2, 2 | 2; racks tor0 min(4, 3) = 3, tor1 3, tor2 2: f = 8 (+2).
    const Relocation r{1, 2, 0, 1};
    EXPECT_EQ(term_of(m).delta(s, std::span(&r, 1)), 2 * kScoreScale);
    Embedding e;
    e.mask = 1;
    s.move(1, 0, e);
    EXPECT_EQ(s.objective(), (8 + 36) * kScoreScale);
    EXPECT_EQ(s.objective(), test::bandwidth_capped_objective(m, s));
    EXPECT_NO_THROW(s.check_consistency());
}

TEST(BandwidthCapacity, WithoutANetworkSectionItIsTodaysVmcap) {
    const Problem with = load(tree_snapshot("", false, true));
    const Problem without = load(tree_snapshot("", false, false));
    EXPECT_EQ(with.flavors[0].bandwidth_mbps, 1000);
    const CapacityModel mw(with), mo(without);
    EXPECT_FALSE(mw.has_terms());
    EXPECT_EQ(SearchState(mw).objective(), SearchState(mo).objective());
    EXPECT_EQ(SearchState(mw).objective(), (18 + 36) * kScoreScale);
    // A network without any flavor bandwidth: no term either (the link rule only).
    const Problem net = load(tree_snapshot("3000", true, false));
    const CapacityModel mn(net);
    EXPECT_FALSE(mn.has_terms());
    EXPECT_EQ(SearchState(mn).objective(), (18 + 36) * kScoreScale);
}

TEST(BandwidthCapacity, SnapshotFieldRoundTripsAndIsChecked) {
    const Problem p = load(tree_snapshot("3000"));
    const Problem q = parse_snapshot(nlohmann::json::parse(snapshot_to_json(p).dump()), "again.json");
    EXPECT_EQ(q.flavors[0].bandwidth_mbps, 1000);
    EXPECT_EQ(q.flavors[1].bandwidth_mbps, 0);
    std::string bad = tree_snapshot("3000");
    bad.replace(bad.find("\"bandwidth_mbps\": 1000"), 22, "\"bandwidth_mbps\": -5");
    try {
        load(bad);
        FAIL() << "accepted a negative bandwidth";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("flavors[0].bandwidth_mbps"), std::string::npos) << e.what();
    }
}

TEST(BandwidthCapacity, CapacityCommandReportsItBesideVmcapAndLayers) {
    const auto file = test::tmp_dir() / "bw_tree.json";
    { std::ofstream(file) << tree_snapshot("3000"); }
    const auto r = test::run_vmcap("capacity --format json --cluster " + file.string());
    ASSERT_EQ(r.code, 0) << r.err;
    const auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["flavors"][0]["capacity"], 18);
    EXPECT_EQ(doc["flavors"][0]["bandwidth_limited_capacity"], 5);
    EXPECT_FALSE(doc["flavors"][1].contains("bandwidth_limited_capacity"));
    EXPECT_EQ(doc["objective"], 54.0);
    EXPECT_EQ(doc["objective_bandwidth_limited"], 41.0);
    // Layers: 5 NICs (max 500 / 2,500 = 20%), 3 ToR uplinks (500 / 3,000 twice, 0), 2 aggregation uplinks (idle).
    const auto& layers = doc["network"]["layers"];
    ASSERT_EQ(layers.size(), 3U);
    EXPECT_EQ(layers[0]["layer"], "host NIC uplinks");
    EXPECT_EQ(layers[0]["links"], 5);
    EXPECT_DOUBLE_EQ(layers[0]["max_utilisation_pct"].get<double>(), 20.0);
    EXPECT_DOUBLE_EQ(layers[0]["mean_utilisation_pct"].get<double>(), 8.0);
    EXPECT_EQ(layers[1]["layer"], "ToR uplinks");
    EXPECT_EQ(layers[1]["links"], 3);
    EXPECT_NEAR(layers[1]["p99_utilisation_pct"].get<double>(), 100.0 / 6, 1e-9);
    EXPECT_EQ(layers[2]["layer"], "aggregation uplinks");
    EXPECT_EQ(layers[2]["max_utilisation_pct"], 0.0);
    const auto t = test::run_vmcap("capacity --cluster " + file.string());
    EXPECT_NE(t.out.find("weighted capacity with bandwidth limits: 41"), std::string::npos) << t.out;
}

}  // namespace
}  // namespace vmcap

// End-to-end checks of `vmcap eval --placements` and `vmcap capacity --by host|rack|cluster`
// (optimizer/cmd_capacity.cpp), running the binary like tests/cli_test.cpp. Expected values come
// from hand-worked cases or from in-process recomputation by another code path
// (capacity_by_flavor, CapacityModel::node_b), never from the command itself.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "evaluators/state/capacity_model.h"
#include "evaluators/closed_forms/vmcap.h"
#include "instances/snapshot_io.h"
#include "optimizer/plan/plan.h"
#include "tests/cli_run.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

namespace fs = std::filesystem;

using test::CmdResult;
using test::tmp_dir;

CmdResult run(const std::string& args) {
    return test::run_vmcap(args);
}

std::vector<std::string> lines(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream is(s);
    for (std::string l; std::getline(is, l);) out.push_back(l);
    return out;
}

std::vector<Count> split_counts(const std::string& s) {
    std::vector<Count> out;
    std::istringstream is(s);
    for (std::string t; std::getline(is, t, ',');) out.push_back(std::stoll(t));
    return out;
}

// ---------------------------------------------------------------------------------------------
// vmcap eval --placements
// ---------------------------------------------------------------------------------------------

/**
 * Parses "count" then "n1,n2,... xC" lines (1-based nodes in vNUMA order) and checks them against
 * the graphs: distinct nodes, guest edges on host edges, node usage <= b, copies sum to count.
 * Returns "" if valid.
 */
std::string check_placement_output(const std::string& out, const Topology& host, const Topology& guest, const std::vector<Count>& b) {
    const auto ls = lines(out);
    if (ls.empty()) return "no output";
    const Count count = std::stoll(ls[0]);
    std::vector<Count> used(host.size(), 0);
    Count total = 0;
    for (std::size_t j = 1; j < ls.size(); ++j) {
        const auto x = ls[j].find(" x");
        if (x == std::string::npos) return "line without ' x': " + ls[j];
        const std::vector<Count> nodes = split_counts(ls[j].substr(0, x));
        const Count copies = std::stoll(ls[j].substr(x + 2));
        if (static_cast<int>(nodes.size()) != guest.size()) return "wrong node count: " + ls[j];
        if (copies <= 0) return "non-positive multiplicity: " + ls[j];
        for (std::size_t u = 0; u < nodes.size(); ++u) {
            if (nodes[u] < 1 || nodes[u] > host.size()) return "node out of range: " + ls[j];
            for (std::size_t v = u + 1; v < nodes.size(); ++v) {
                if (nodes[u] == nodes[v]) return "repeated node: " + ls[j];
                if (guest.graph.has_edge(static_cast<int>(u), static_cast<int>(v)) &&
                    !host.graph.has_edge(static_cast<int>(nodes[u] - 1), static_cast<int>(nodes[v] - 1)))
                    return "vNUMA edge not on a pNUMA edge: " + ls[j];
            }
            used[nodes[u] - 1] += copies;
        }
        total += copies;
    }
    for (int i = 0; i < host.size(); ++i)
        if (used[i] > b[i]) return "node " + std::to_string(i + 1) + " over its capacity";
    if (total != count) return "multiplicities sum to " + std::to_string(total) + ", count is " + std::to_string(count);
    return "";
}

TEST(CapacityCli, EvalPlacementsAreValidForClosedFormsAndFallback) {
    const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
        {"CQ3", "K2", "3,1,4,1,5,9,2,6"},  {"CQ3", "C4", "3,1,4,1,5,9,2,6"},  {"Q33", "C4", "7,1,4,1,5,9,2,6"},
        {"K4", "K3", "10,1,1,1"},          {"K8", "K4", "9,9,9,1,2,3,4,100"}, {"2xK4", "K2", "1,2,3,4,5,6,7,8"},
        {"K3,5", "K2", "4,4,4,1,2,3,4,5"}, {"C4", "K2", "1000000,3,7,2"},     {"Q3", "C4", "3,1,4,1,5,9,2,6"},
        {"Q3", "K2", "3,1,4,1,5,9,2,6"},   {"K5", "C4", "5,5,5,5,5"},         {"CQ3", "K1", "0,1,0,2,0,3,0,4"},
    };
    for (const auto& [h, g, b] : cases) {
        SCOPED_TRACE(h + " / " + g + " b=" + b);
        const CmdResult plain = run("eval --host " + h + " --guest " + g + " --b " + b);
        const CmdResult r = run("eval --host " + h + " --guest " + g + " --b " + b + " --placements");
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(lines(r.out)[0] + "\n", plain.out);  // the count line is unchanged
        EXPECT_EQ(check_placement_output(r.out, parse_topology(h), parse_topology(g), split_counts(b)), "");
    }
}

// Inputs whose optimal placement set is unique (worked out by hand).
TEST(CapacityCli, EvalPlacementsHandWorked) {
    // K1 guests: one line per node with capacity, that capacity times.
    EXPECT_EQ(run("eval --host K4 --guest K1 --b 2,0,1,0 --placements").out, "3\n1 x2\n3 x1\n");
    // C4/K2 with b = (5,0,5,0): every edge touches node 2 or 4, so nothing fits and nothing is listed.
    EXPECT_EQ(run("eval --host C4 --guest K2 --b 5,0,5,0 --placements").out, "0\n");
    // CQ3/K2 with capacity only on nodes 1 and 7: the crossing edge (1,7), once.
    EXPECT_EQ(run("eval --host CQ3 --guest K2 --b 1,0,0,0,0,0,1,0 --placements").out, "1\n1,7 x1\n");
    // K4/K2, b = (10,1,1,1): node 1 paired with each of the others once.
    EXPECT_EQ(run("eval --host K4 --guest K2 --b 10,1,1,1 --placements").out, "3\n1,2 x1\n1,3 x1\n1,4 x1\n");
}

TEST(CapacityCli, EvalHelpDocumentsPlacements) {
    const CmdResult r = run("eval --help");
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("--placements"), std::string::npos);
    EXPECT_NE(r.out.find("1,4 x3"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// vmcap capacity --by
// ---------------------------------------------------------------------------------------------

/**
 * Two CQ3 hosts (node: 4 vCPU, 16 GiB) worked by hand. Flavors per vNUMA node: "one" K1 2 vCPU
 * 4 GiB, "pair" K2 2 vCPU 4 GiB, "quad" C4 2 vCPU 4 GiB, so b_i = floor(free vCPU / 2) for all.
 * h1 (rack "a"): nodes 1, 2 full (two "one" each) -> b = (0,0,2,2,2,2,2,2).
 *   pair: nodes 3..8 pair up along rungs (3,4)(5,6)(7,8) twice: 6 = floor(12 / 2), no loss.
 *   quad: the only 4-cycles avoiding rung {1,2} are {3,4,5,6} and {5,6,7,8}, both through rung
 *   {5,6} (capacity 2): 2, bound floor(12 / 4) = 3.   one: 12.
 * h2 (no rack): empty, b = 2 everywhere: pair 8 (bound 8), quad 4 (two disjoint cycles twice; bound 4), one 16.
 * Cluster: one 28/28, pair 14/14, quad 6/7 (1 lost, 14.3%); weights 0, 1, 2: objective 14 + 12 = 26,
 * bound 14 + 14 = 28.
 */
const char* kHandCluster = R"({
  "resources": ["vcpu", "ram_mib"],
  "host_types": [{"name": "cq3", "topology": "CQ3", "node_capacity": {"vcpu": 4, "ram_mib": 16384}}],
  "hosts": [{"id": "h1", "type": "cq3", "rack": "a"}, {"id": "h2", "type": "cq3"}],
  "flavors": [
    {"name": "one", "vcpu": 2, "ram_mib": 4096, "vnuma": "K1", "weight": 0},
    {"name": "pair", "vcpu": 4, "ram_mib": 8192, "vnuma": "K2", "weight": 1},
    {"name": "quad", "vcpu": 8, "ram_mib": 16384, "vnuma": "C4", "weight": 2}
  ],
  "vms": [
    {"id": "v1", "flavor": "one", "host": "h1", "pnuma": [1]}, {"id": "v2", "flavor": "one", "host": "h1", "pnuma": [1]},
    {"id": "v3", "flavor": "one", "host": "h1", "pnuma": [2]}, {"id": "v4", "flavor": "one", "host": "h1", "pnuma": [2]}
  ]
})";

std::string write_hand_cluster() {
    const std::string path = (tmp_dir() / "hand.json").string();
    std::ofstream(path) << kHandCluster;
    return path;
}

/** flavor name -> {capacity, bound} from a "flavors" array. */
std::map<std::string, std::pair<Count, Count>> by_flavor(const nlohmann::json& arr) {
    std::map<std::string, std::pair<Count, Count>> out;
    for (const auto& f : arr) out[f["flavor"].get<std::string>()] = {f["capacity"].get<Count>(), f["topology_free_bound"].get<Count>()};
    return out;
}

TEST(CapacityCli, HandWorkedClusterAllBreakdowns) {
    const std::string c = write_hand_cluster();
    using M = std::map<std::string, std::pair<Count, Count>>;
    CmdResult r = run("capacity --cluster " + c + " --format json");
    ASSERT_EQ(r.code, 0) << r.err;
    auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(by_flavor(doc["flavors"]), (M{{"one", {28, 28}}, {"pair", {14, 14}}, {"quad", {6, 7}}}));
    EXPECT_DOUBLE_EQ(doc["objective"].get<double>(), 26.0);
    EXPECT_DOUBLE_EQ(doc["objective_topology_free_bound"].get<double>(), 28.0);
    for (const auto& f : doc["flavors"])
        if (f["flavor"] == "quad") {
            EXPECT_EQ(f["topology_loss"].get<Count>(), 1);
            EXPECT_NEAR(f["topology_loss_pct"].get<double>(), 100.0 / 7.0, 1e-9);
        }

    r = run("capacity --cluster " + c + " --by rack --format json");
    ASSERT_EQ(r.code, 0) << r.err;
    doc = nlohmann::json::parse(r.out);
    ASSERT_EQ(doc["by_rack"].size(), 2U);
    EXPECT_EQ(doc["by_rack"][0]["rack"], "(none)");  // h2
    EXPECT_EQ(by_flavor(doc["by_rack"][0]["flavors"]), (M{{"one", {16, 16}}, {"pair", {8, 8}}, {"quad", {4, 4}}}));
    EXPECT_EQ(doc["by_rack"][1]["rack"], "a");  // h1
    EXPECT_EQ(by_flavor(doc["by_rack"][1]["flavors"]), (M{{"one", {12, 12}}, {"pair", {6, 6}}, {"quad", {2, 3}}}));

    r = run("capacity --cluster " + c + " --by host --format json");
    ASSERT_EQ(r.code, 0) << r.err;
    doc = nlohmann::json::parse(r.out);
    ASSERT_EQ(doc["by_host"].size(), 2U);
    EXPECT_EQ(doc["by_host"][0]["host"], "h1");
    EXPECT_EQ(doc["by_host"][0]["capacity"], nlohmann::json::parse(R"({"one": 12, "pair": 6, "quad": 2})"));
    EXPECT_EQ(doc["by_host"][0]["topology_free_bound"], nlohmann::json::parse(R"({"one": 12, "pair": 6, "quad": 3})"));
    EXPECT_EQ(doc["by_host"][1]["capacity"], nlohmann::json::parse(R"({"one": 16, "pair": 8, "quad": 4})"));

    // Tables: the rack without a name is shown as (none); the cluster line of quad shows the loss.
    r = run("capacity --cluster " + c + " --by rack");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("(none)"), std::string::npos);
    bool quad_line = false;
    for (const std::string& l : lines(r.out)) {
        std::istringstream is(l);
        std::vector<std::string> w;
        for (std::string t; is >> t;) w.push_back(t);
        if (w.size() == 9 && w[0] == "quad") {  // flavor vCPU RAM vNUMA weight capacity bound lost lost%
            quad_line = true;
            EXPECT_EQ(w[5], "6");
            EXPECT_EQ(w[6], "7");
            EXPECT_EQ(w[7], "1");
            EXPECT_EQ(w[8], "14.3%");
        }
    }
    EXPECT_TRUE(quad_line) << r.out;
    r = run("capacity --cluster " + c + " --by host");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("h1"), std::string::npos);
    EXPECT_NE(r.out.find("h2"), std::string::npos);
}

// On a generated cluster: hosts sum to racks sum to the cluster, the cluster equals the planner's
// capacity_by_flavor (CapacityModel::host_capacity, per-node divisions) and the bound equals a
// recomputation from CapacityModel::node_b; bound >= capacity everywhere.
TEST(CapacityCli, BreakdownsAreConsistentOnGeneratedCluster) {
    for (const char* topo : {"CQ3", "Q3", "2xK4"}) {
        SCOPED_TRACE(topo);
        test::RandomCluster rc;
        rc.host_topology = topo;
        rc.hosts = 23;
        rc.fill = 0.6;
        rc.seed = 17;
        Problem p = test::make_random_problem(rc);
        for (std::size_t h = 0; h < p.hosts.size(); h += 5) p.hosts[h].rack.clear();  // some hosts without a rack
        const std::string c = (tmp_dir() / (std::string("gen_") + topo + ".json")).string();
        write_file_atomic(c, format_json_lines(snapshot_to_json(p)));
        const Problem loaded = load_snapshot(c);
        const CapacityModel model(loaded);
        const auto want_cap = test::capacity_by_flavor(model, compute_node_usage(loaded));
        const auto usage = compute_node_usage(loaded);
        const int F = static_cast<int>(loaded.flavors.size()), R = loaded.num_resources();
        std::vector<Count> want_bound(F, 0);
        for (std::size_t h = 0; h < loaded.hosts.size(); ++h) {
            const HostType& ht = loaded.host_type_of(static_cast<int>(h));
            std::vector<Amount> free(ht.node_capacity.size());
            for (std::size_t i = 0; i < free.size(); ++i) free[i] = ht.node_capacity[i] - usage[h][i];
            for (int f = 0; f < F; ++f) {
                Count s = 0;
                for (int i = 0; i < ht.num_nodes(); ++i) s += model.node_b(f, free.data() + i * R);
                want_bound[f] += s / loaded.flavors[f].num_vnuma();
            }
        }

        const CmdResult rc_ = run("capacity --cluster " + c + " --format json");
        const CmdResult rr = run("capacity --cluster " + c + " --by rack --format json");
        const CmdResult rh = run("capacity --cluster " + c + " --by host --format json");
        ASSERT_EQ(rc_.code, 0) << rc_.err;
        ASSERT_EQ(rr.code, 0) << rr.err;
        ASSERT_EQ(rh.code, 0) << rh.err;
        const auto dc = nlohmann::json::parse(rc_.out), dr = nlohmann::json::parse(rr.out), dh = nlohmann::json::parse(rh.out);
        EXPECT_EQ(dc["flavors"], dr["flavors"]);
        EXPECT_EQ(dc["flavors"], dh["flavors"]);
        ASSERT_EQ(dh["by_host"].size(), loaded.hosts.size());
        bool some_loss = false;
        for (int f = 0; f < F; ++f) {
            const auto& cf = dc["flavors"][f];
            const std::string name = loaded.flavors[f].name;
            const Count cap = cf["capacity"].get<Count>(), bound = cf["topology_free_bound"].get<Count>();
            EXPECT_EQ(cap, want_cap[f]) << name;
            EXPECT_EQ(bound, want_bound[f]) << name;
            EXPECT_GE(bound, cap) << name;
            EXPECT_EQ(cf["topology_loss"].get<Count>(), bound - cap);
            some_loss = some_loss || bound > cap;
            Count host_cap = 0, host_bound = 0, rack_cap = 0, rack_bound = 0;
            for (const auto& h : dh["by_host"]) {
                const Count hc = h["capacity"][name].get<Count>(), hb = h["topology_free_bound"][name].get<Count>();
                EXPECT_GE(hb, hc);
                host_cap += hc;
                host_bound += hb;
            }
            std::size_t rack_hosts = 0;
            for (const auto& r : dr["by_rack"]) {
                const auto& rf = r["flavors"][f];
                EXPECT_EQ(rf["flavor"], name);
                EXPECT_GE(rf["topology_free_bound"].get<Count>(), rf["capacity"].get<Count>());
                rack_cap += rf["capacity"].get<Count>();
                rack_bound += rf["topology_free_bound"].get<Count>();
                if (f == 0) rack_hosts += r["hosts"].get<std::size_t>();
            }
            EXPECT_EQ(host_cap, cap) << name;
            EXPECT_EQ(rack_cap, cap) << name;
            EXPECT_EQ(host_bound, bound) << name;
            EXPECT_EQ(rack_bound, bound) << name;
            if (f == 0) {
                EXPECT_EQ(rack_hosts, loaded.hosts.size());
            }
        }
        EXPECT_TRUE(some_loss) << "no flavor loses capacity to the topology: the bound comparison is vacuous here";
        EXPECT_EQ(dr["by_rack"][0]["rack"], "(none)");
    }
}

TEST(CapacityCli, BadOptionsExit2WithOneLine) {
    for (const char* args :
         {"capacity --by pod", "capacity --format xml", "capacity --by", "eval --host K4 --guest K2 --b 1,2,3 --placements"}) {
        const CmdResult r = run(args);
        EXPECT_EQ(r.code, 2) << args;
        EXPECT_TRUE(r.out.empty()) << args;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
}

}  // namespace
}  // namespace vmcap

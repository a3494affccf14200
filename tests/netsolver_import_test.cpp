// `vmcap import netsolver`: NetSolver .pn/.vn instances into a snapshot with a
// network, vlinks and VDCs. A hand-made pair whose hosts, host types, switches, links, uplinks,
// placements and vlinks are worked out by hand; the bundled NetSolver data (hadoop tree, FatTree)
// imported through the CLI, reloaded and checked from scratch (every link load recomputed with
// NetworkRoutes within capacity, every pNUMA node within capacity); bad inputs (one-line errors
// naming the file and JSON path, exit 2, nothing written), BCube refused.
#include <gtest/gtest.h>

#include <map>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "evaluators/network/network_load.h"
#include "instances/netsolver.h"
#include "placement/admission.h"
#include "placement/netsolver_place.h"
#include "placement/placer.h"
#include "instances/requests.h"
#include "instances/snapshot_io.h"
#include "tests/cli_run.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

namespace fs = std::filesystem;
using test::run_vmcap;
using test::tmp_dir;

std::string write_text(const std::string& name, const std::string& text) {
    const fs::path dir = tmp_dir() / "netsolver";
    fs::create_directories(dir);
    const std::string path = (dir / name).string();
    std::ofstream(path) << text;
    return path;
}

// Four servers: s0, s1, s10 of 8 cores / 16 GB, s2 of 4 cores / 8 GB; s10's NIC is 25 units, the
// others' 10 and 5. tor1-agg is listed in both directions (one link), tor2-agg twice in the same
// direction (two parallel links).
const char* kPn = R"({"Servers": {"s10": [8, 16, 100], "s0": [8, 16, 100], "s2": [4, 8, 100], "s1": [8, 16, 100]},
 "PN": [["s0", "tor1", 10], ["s1", "tor1", 10], ["s2", "tor2", 5], ["s10", "tor2", 25],
        ["tor1", "agg", 40], ["agg", "tor1", 40], ["tor2", "agg", 20], ["tor2", "agg", 20]]})";
// vm0 (4c8g) talks to vm1 (2c4g, 3 units) and vm2 (8c16g, 1 unit); vm1-vm2 has bandwidth 0.
const char* kVnA = R"({"VMs": {"vm2": [8, 16, 0], "vm0": [4, 8, 0], "vm1": [2, 4, 0]},
 "VN": [["vm0", "vm1", 3], ["vm1", "vm2", 0], ["vm0", "vm2", 1]]})";
// Two 4c8g VMs joined by 30 units: more than any NIC, so they must share a host.
const char* kVnB = R"({"VMs": {"x": [4, 8, 0], "y": [4, 8, 0]}, "VN": [["x", "y", 30]]})";

Problem import(const std::vector<std::string>& vn_texts, NetsolverPlacementStats* stats, const NetsolverOptions& o = {}) {
    Problem p = netsolver_cluster(nlohmann::json::parse(kPn), "pn.pn", o);
    std::vector<NetsolverVdc> vdcs;
    const char* names[] = {"a.vn", "b.vn", "a.vn"};
    for (std::size_t i = 0; i < vn_texts.size(); ++i) vdcs.push_back(parse_netsolver_vn(nlohmann::json::parse(vn_texts[i]), names[i]));
    *stats = place_netsolver_vdcs(p, vdcs, o);
    return parse_snapshot(nlohmann::json::parse(snapshot_to_json(p).dump()), "out.json");
}

TEST(NetsolverImport, HandMadeNetworkExactly) {
    NetsolverNetworkInfo info;
    const Problem p = netsolver_cluster(nlohmann::json::parse(kPn), "pn.pn", {}, &info);
    EXPECT_EQ(info.merged_reverse_links, 1);
    EXPECT_EQ(info.server_links, 4);
    // Hosts in natural order; host types by (cores, RAM, NIC), "-nic" only where one size has two NICs.
    ASSERT_EQ(p.hosts.size(), 4U);
    const char* ids[] = {"s0", "s1", "s2", "s10"};
    const char* types[] = {"8c16g-K2-nic10000", "8c16g-K2-nic10000", "4c8g-K2", "8c16g-K2-nic25000"};
    const char* tors[] = {"tor1", "tor1", "tor2", "tor2"};
    for (int h = 0; h < 4; ++h) {
        EXPECT_EQ(p.hosts[h].id, ids[h]);
        EXPECT_EQ(p.host_types[p.hosts[h].type].name, types[h]);
        EXPECT_EQ(p.hosts[h].uplink, tors[h]);
        EXPECT_EQ(p.network.switches[p.network.host_switch[h]], tors[h]);
    }
    ASSERT_EQ(p.host_types.size(), 3U);
    EXPECT_EQ(p.host_types[0].nic_mbps, 10000);
    EXPECT_EQ(p.host_types[1].nic_mbps, 5000);
    EXPECT_EQ(p.host_types[2].nic_mbps, 25000);
    EXPECT_EQ(p.host_types[0].topology.name, "K2");
    EXPECT_EQ(p.host_types[0].node_capacity, (std::vector<Amount>{4, 8192, 4, 8192}));
    EXPECT_EQ(p.host_types[1].node_capacity, (std::vector<Amount>{2, 4096, 2, 4096}));
    EXPECT_EQ(p.network.switches, (std::vector<std::string>{"tor1", "tor2", "agg"}));
    ASSERT_EQ(p.network.links.size(), 3U);
    const int tor1 = 0, tor2 = 1, agg = 2;
    EXPECT_EQ(p.network.links[0].a, tor1);
    EXPECT_EQ(p.network.links[0].b, agg);
    EXPECT_EQ(p.network.links[0].mbps, 40000);
    for (int i : {1, 2}) {
        EXPECT_EQ(p.network.links[i].a, tor2);
        EXPECT_EQ(p.network.links[i].b, agg);
        EXPECT_EQ(p.network.links[i].mbps, 20000);
    }

    // Three pNUMA nodes: 8 cores as 3 + 3 + 2, 16 GiB as 5462 + 5461 + 5461 MiB.
    NetsolverOptions three;
    three.numa_nodes = 3;
    const Problem q = netsolver_cluster(nlohmann::json::parse(kPn), "pn.pn", three);
    EXPECT_EQ(q.host_types[0].name, "8c16g-K3-nic10000");
    EXPECT_EQ(q.host_types[0].node_capacity, (std::vector<Amount>{3, 5462, 3, 5461, 2, 5461}));
}

TEST(NetsolverImport, HandMadePlacementExactly) {
    NetsolverPlacementStats st;
    const Problem p = import({kVnA, kVnB, kVnA}, &st);
    // a#1: vm0 first (most bandwidth). No host holds the VDC's 14 cores, so it anchors on the
    // emptiest host, s0 (8 free, lowest index). 4c8g is K2 (rule asked of the smallest server,
    // 2-core nodes): nodes 1, 2. vm1 (K1) co-locates on s0 node 1 (least free left, lowest mask).
    // vm2 (8c16g, K2) fits no more on s0; s1 under the same ToR adds the least load.
    // b#2: 8 cores with 30 units between them: on the tightest host holding 8 cores, s10.
    // a#3: vm0 on s2 (emptiest, 4 free), vm1 on s0 (2 free), vm2 finds no host: the VDC fails.
    EXPECT_EQ(st.offered, 3);
    EXPECT_EQ(st.allocated, 2);
    EXPECT_EQ(st.failed_vdc, "a#3");
    EXPECT_NE(st.failure.find("vm2 (8 cores, 16 GB, vNUMA K2)"), std::string::npos) << st.failure;
    EXPECT_EQ(st.dropped_zero_vlinks, 1);
    EXPECT_EQ(p.vdcs, (std::vector<std::string>{"a#1", "b#2"}));
    struct Want {
        const char* id;
        const char* flavor;
        const char* host;
        std::vector<int> pnuma;  // 1-based
    };
    const std::vector<Want> want = {{"a#1/vm0", "4c8g", "s0", {1, 2}},
                                    {"a#1/vm1", "2c4g", "s0", {1}},
                                    {"a#1/vm2", "8c16g", "s1", {1, 2}},
                                    {"b#2/x", "4c8g", "s10", {1, 2}},
                                    {"b#2/y", "4c8g", "s10", {1, 2}}};
    ASSERT_EQ(p.vms.size(), want.size());
    for (std::size_t v = 0; v < want.size(); ++v) {
        SCOPED_TRACE(want[v].id);
        EXPECT_EQ(p.vms[v].id, want[v].id);
        EXPECT_EQ(p.flavors[p.vms[v].flavor].name, want[v].flavor);
        EXPECT_EQ(p.hosts[p.vms[v].host].id, want[v].host);
        for (std::size_t k = 0; k < want[v].pnuma.size(); ++k) EXPECT_EQ(p.vms[v].pnuma[k] + 1, want[v].pnuma[k]);
    }
    // Flavors: every size offered (the failed VDC's too), by size; targets: the multi-vNUMA ones.
    ASSERT_EQ(p.flavors.size(), 3U);
    EXPECT_EQ(p.flavors[0].name, "2c4g");
    EXPECT_EQ(p.flavors[0].vnuma.name, "K1");
    EXPECT_EQ(p.flavors[0].weight, 0.0);
    EXPECT_EQ(p.flavors[1].vnuma.name, "K2");
    EXPECT_EQ(p.flavors[1].weight, 1.0);
    EXPECT_EQ(p.flavors[2].demand, (std::vector<Amount>{8, 16384}));
    EXPECT_EQ(p.constraints.max_migrations, 1);  // ceil(1% of 5 VMs)
    // Vlinks: one per VN edge of positive bandwidth, Mbps, in their VDC.
    ASSERT_EQ(p.vlinks.size(), 3U);
    auto vl = [&](std::size_t i) {
        return std::make_tuple(p.vms[p.vlinks[i].a].id, p.vms[p.vlinks[i].b].id, p.vlinks[i].mbps, p.vlinks[i].vdc);
    };
    EXPECT_EQ(vl(0), std::make_tuple(std::string("a#1/vm0"), std::string("a#1/vm1"), std::int64_t{3000}, 0));
    EXPECT_EQ(vl(1), std::make_tuple(std::string("a#1/vm0"), std::string("a#1/vm2"), std::int64_t{1000}, 0));
    EXPECT_EQ(vl(2), std::make_tuple(std::string("b#2/x"), std::string("b#2/y"), std::int64_t{30000}, 1));
    // Loads from scratch: only vm0-vm2 crosses hosts (s0 -> s1, both under tor1).
    const NetworkRoutes routes(p);
    std::vector<int> vm_host;
    for (const Vm& vm : p.vms) vm_host.push_back(vm.host);
    const std::vector<std::int64_t> loads = link_loads(p, routes, vm_host);
    std::vector<std::int64_t> expect(routes.num_links(), 0);
    for (int k = 0; k < 4; ++k) expect[k] = 1000;  // both directions of s0's and s1's uplinks (whole Mbps)
    EXPECT_EQ(loads, expect);

    // --max-vdcs 1 stops after a#1.
    NetsolverOptions one;
    one.max_vdcs = 1;
    const Problem q = import({kVnA, kVnB, kVnA}, &st, one);
    EXPECT_TRUE(st.stopped_by_max);
    EXPECT_EQ(st.allocated, 1);
    EXPECT_EQ(q.vdcs, (std::vector<std::string>{"a#1"}));
}

TEST(NetsolverImport, CliWritesAReloadableSnapshot) {
    const std::string pn = write_text("t.pn", kPn), a = write_text("a.vn", kVnA), b = write_text("b.vn", kVnB);
    // The list names files the way the bundled lists do: a path relative to another directory.
    fs::create_directories(tmp_dir() / "netsolver" / "sub");
    write_text("sub/c.vn", kVnB);
    const std::string list = write_text("list.txt", "# offered in this order\na.vn\n../../../somewhere/netsolver/sub/c.vn\n\na.vn\n");
    const std::string out = (tmp_dir() / "netsolver-out.json").string();
    const test::CmdResult r = run_vmcap("import netsolver --pn " + pn + " --list " + list + " --out " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("allocated 2 of 3 VDCs offered (VDC a#3 did not fit"), std::string::npos) << r.out;
    const Problem p = load_snapshot(out);
    EXPECT_EQ(p.vdcs, (std::vector<std::string>{"a#1", "c#2"}));
    EXPECT_NE(p.source.find("MIT License, Copyright (c) 2019 UBC-NSS"), std::string::npos);
    EXPECT_NE(p.source.find("1 bandwidth unit = 1000 Mbps"), std::string::npos);
    // The same VDCs as plain arguments.
    const test::CmdResult r2 = run_vmcap("import netsolver --pn " + pn + " " + a + " " + b + " --out " + out);
    ASSERT_EQ(r2.code, 0) << r2.err;
    EXPECT_NE(r2.out.find("allocated 2 of 2 VDCs offered (all fitted)"), std::string::npos) << r2.out;
}

/** The message of the InputError `f` throws ("" if none). */
template <class F>
std::string netsolver_error_of(F&& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

std::string pn_error(const std::string& text) {
    return netsolver_error_of([&] { netsolver_cluster(nlohmann::json::parse(text), "bad.pn", {}); });
}
std::string vn_error(const std::string& text) {
    return netsolver_error_of([&] { parse_netsolver_vn(nlohmann::json::parse(text), "bad.vn"); });
}

TEST(NetsolverImport, BadInputsNameFileAndPath) {
    EXPECT_EQ(pn_error(R"({"Servers": {"s0": [4, 8, 0], "s1": [4, 8, 0]}, "PN": [["s0", "sw0", 10]]})"),
              R"(bad.pn: Servers.s1: server "s1" has no link in "PN")");
    EXPECT_EQ(pn_error(R"({"Servers": {"s0": [4, 8, 0]}, "PN": [["s0", "sw0", 10], ["s7", "sw0", 10]]})"),
              R"(bad.pn: PN[1]: node "s7" is named like a server but "Servers" does not list it)");
    EXPECT_EQ(pn_error(R"({"Servers": {"s0": [4, 8, 0]}, "PN": [["s0", "sw0", -10]]})"), "bad.pn: PN[0][2]: must be >= 1");
    EXPECT_EQ(pn_error(R"({"Servers": {"s0": [4, 8, 0]}, "PN": [["s0", "sw0", 1.5]]})"), "bad.pn: PN[0][2]: expected an integer");
    EXPECT_EQ(pn_error(R"({"Servers": {"s0": [0, 8, 0]}, "PN": [["s0", "sw0", 1]]})"), "bad.pn: Servers.s0[0]: must be >= 1");
    EXPECT_EQ(pn_error(R"({"Servers": {"s0": [4]}, "PN": [["s0", "sw0", 1]]})"),
              "bad.pn: Servers.s0: expected [cores, ram, ...] (integers)");
    EXPECT_EQ(pn_error(R"({"Servers": {"s0": [4, 8]}, "PN": [["sw0", "sw0", 1]]})"), R"(bad.pn: PN[0]: joins "sw0" to itself)");
    EXPECT_EQ(pn_error(R"({"Servers": {"s0": [4, 8]}, "PN": [["s0", "sw0"]]})"),
              "bad.pn: PN[0]: expected [node, node, bandwidth] (two names and an integer)");
    EXPECT_EQ(pn_error(R"({"Servers": {"s0": [4, 8]}})"), R"(bad.pn: missing required key "PN")");
    EXPECT_EQ(pn_error(R"({"Servers": {"s0": [4, 8]}, "PN": [], "Extra": 1})"),
              R"(bad.pn: (root): unknown key "Extra" (a physical network has "Servers" and "PN"))");
    EXPECT_EQ(pn_error("[1, 2]"), "bad.pn: expected a JSON object");
    // Found by fuzz_netsolver: empty names became empty host or switch ids, which the snapshot
    // loader refused after the import, naming the --out file.
    EXPECT_EQ(pn_error(R"({"Servers": {"s0": [4, 8]}, "PN": [["s0", "sw0", 1], ["sw0", "", 1]]})"),
              "bad.pn: PN[1][1]: a node name must not be empty");
    EXPECT_EQ(pn_error(R"({"Servers": {"": [4, 8]}, "PN": [["", "sw0", 1]]})"), "bad.pn: Servers: a server name must not be empty");
    // Server-centric networks (BCube): a server on two switches, or two servers linked directly.
    const std::string bcube = pn_error(R"({"Servers": {"s0": [4, 8], "s1": [4, 8]},
        "PN": [["sw0", "s0", 10], ["sw0", "s1", 10], ["sw1", "s0", 10], ["sw1", "s1", 10]]})");
    EXPECT_EQ(bcube,
              R"(bad.pn: PN[2]: server "s0" links to switch "sw1" and to switch "sw0" (PN[0]): a server-centric network (BCube) )"
              R"(needs servers that forward traffic between their links, which vmcap's hosts (one NIC uplink to one switch) cannot; )"
              "not imported");
    EXPECT_NE(
        pn_error(R"({"Servers": {"s0": [4, 8], "s1": [4, 8]}, "PN": [["s0", "s1", 10]]})").find("links servers \"s0\" and \"s1\" directly"),
        std::string::npos);
    // A server with two parallel links to one switch is a bonded NIC, not BCube.
    const Problem bonded = netsolver_cluster(
        nlohmann::json::parse(R"({"Servers": {"s0": [4, 8]}, "PN": [["s0", "sw0", 10], ["s0", "sw0", 10]]})"), "b.pn", {});
    EXPECT_EQ(bonded.host_types[0].nic_mbps, 20000);

    EXPECT_EQ(vn_error(R"({"VMs": {"vm0": [1, 2, 0]}, "VN": [["vm0", "vm9", 1]]})"), R"(bad.vn: VN[0][1]: unknown VM "vm9")");
    EXPECT_EQ(vn_error(R"({"VMs": {"vm0": [1, 2, 0], "vm1": [1, 2, 0]}, "VN": [["vm0", "vm1", -1]]})"), "bad.vn: VN[0][2]: must be >= 0");
    EXPECT_EQ(vn_error(R"({"VMs": {"vm0": [1, 2, 0]}, "VN": [["vm0", "vm0", 1]]})"), R"(bad.vn: VN[0]: joins VM "vm0" to itself)");
    EXPECT_EQ(vn_error(R"({"VMs": {"vm0": [0, 0, 0]}, "VN": []})"), R"(bad.vn: VMs.vm0: VM "vm0" needs no cores and no RAM)");
    EXPECT_EQ(vn_error(R"({"VMs": {"vm0": [1, 2, 0]}, "VN": [], "affinity": []})"),
              R"(bad.vn: (root): unknown key "affinity" (a VDC has "VMs" and "VN"; NetSolver's affinity extensions are not modelled))");
    EXPECT_EQ(vn_error(R"({"VMs": {}, "VN": []})"), "bad.vn: VMs: is empty: a VDC needs at least one VM");
}

TEST(NetsolverImport, CliBadInputsExit2AndWriteNothing) {
    const std::string vn = write_text("ok.vn", kVnB);
    const std::string out = (tmp_dir() / "netsolver-bad-out.json").string();
    struct Case {
        const char* name;
        std::string pn;
        std::string extra;
        const char* message;
    };
    const std::vector<Case> cases = {
        {"bcube.pn", R"({"Servers": {"s0": [4, 8], "s1": [4, 8]}, "PN": [["sw0", "s0", 10], ["sw1", "s0", 10], ["sw0", "s1", 10]]})", "",
         R"(bcube.pn: PN[1]: server "s0" links to switch "sw1" and to switch "sw0" (PN[0]): a server-centric network (BCube))"},
        {"trunc.pn", R"({"Servers": )", "", "trunc.pn: invalid JSON"},
        {"ok.pn", kPn, " --list /nonexistent/list.txt", "/nonexistent/list.txt: cannot open file for reading"},
        {"ok2.pn", kPn, " --mbps-per-unit 0", "--mbps-per-unit must be in 1..1000000"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        const std::string pn = write_text(c.name, c.pn);
        const std::string vns = c.extra.find("--list") == std::string::npos ? " " + vn : "";
        const test::CmdResult r = run_vmcap("import netsolver --pn " + pn + vns + c.extra + " --out " + out);
        EXPECT_EQ(r.code, 2);
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(fs::exists(out));
    }
    const test::CmdResult both = run_vmcap("import netsolver --pn x.pn --list l.txt a.vn --out " + out);
    EXPECT_EQ(both.code, 2);
    EXPECT_NE(both.err.find("either as --list FILE or as .vn files"), std::string::npos) << both.err;
    EXPECT_EQ(run_vmcap("import frob").code, 2);
}

// Servers on switches that cannot reach each other. The import built the ECMP
// routes before any connectivity check, and NetworkRoutes's breadth-first split indexed a bucket
// at distance -1: heap corruption, exit 139 or 134 ("double free or corruption"). Now the .pn is
// refused first (exit 2, the file, the switch and server named, nothing written), and
// NetworkRoutes itself throws InputError on such a network.
TEST(NetsolverImport, DisconnectedSwitchesRefusedBeforeRoutes) {
    EXPECT_EQ(pn_error(R"({"Servers": {"s0": [16, 32, 0], "s1": [16, 32, 0]}, "PN": [["s0", "tor0", 10], ["s1", "tor1", 10]]})"),
              R"(bad.pn: PN: switch "tor1" (server "s1") cannot reach switch "tor0" (server "s0"): the servers' switches must be )"
              "connected (traffic between them would have no route); not imported");
    // A pod whose aggregation switch has no link to the rest; the first unreachable server named.
    EXPECT_NE(pn_error(R"({"Servers": {"s0": [4, 8], "s1": [4, 8], "s2": [4, 8], "s3": [4, 8]},
        "PN": [["s0", "t0", 1], ["s1", "t1", 1], ["s2", "t2", 1], ["s3", "t2", 1], ["t0", "a0", 1], ["t1", "a0", 1], ["t2", "a1", 1]]})")
                  .find(R"(PN: switch "t2" (server "s2") cannot reach switch "t0" (server "s0"))"),
              std::string::npos);
    // Switches no server attaches to may be unreachable, as in a snapshot.
    const Problem island = netsolver_cluster(
        nlohmann::json::parse(R"({"Servers": {"s0": [4, 8], "s1": [4, 8]}, "PN": [["s0", "t0", 1], ["s1", "t0", 1], ["x", "y", 1]]})"),
        "i.pn", {});
    EXPECT_EQ(island.network.switches.size(), 3U);

    // Through the CLI: exit 2, one line, nothing written, also through an --out symlink.
    const std::string pn = write_text("disc.pn", R"({"Servers": {"s0": [16, 32, 0], "s1": [16, 32, 0]},
        "PN": [["s0", "tor0", 10], ["s1", "tor1", 10]]})");
    const std::string vn = write_text("one.vn", R"({"VMs": {"vm0": [2, 4, 0]}, "VN": []})");
    const fs::path dir = tmp_dir() / "netsolver-disc";
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream((dir / "old.json").string()) << "old";
    fs::create_symlink("old.json", dir / "link.json");
    const test::CmdResult r = run_vmcap("import netsolver --pn " + pn + " " + vn + " --out " + (dir / "link.json").string());
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(R"(disc.pn: PN: switch "tor1" (server "s1") cannot reach switch "tor0" (server "s0"))"), std::string::npos)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(read_text_file((dir / "old.json").string()), "old");
    EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2);
}

TEST(NetsolverImport, NetworkRoutesThrowsOnADisconnectedNetwork) {
    // The hand-made network without its switch links: tor1 (s0, s1) and tor2 (s2, s10) apart.
    Problem p = netsolver_cluster(nlohmann::json::parse(kPn), "pn.pn", {});
    p.network.links.clear();
    // (Only the gist is pinned: the full-duplex routing rewrite has a guard of its own inside its
    // breadth-first search, worded differently.)
    const std::string e = netsolver_error_of([&] { const NetworkRoutes routes(p); });
    EXPECT_NE(e.find("cannot reach switch"), std::string::npos) << e;
    EXPECT_NE(e.find("\"tor2\""), std::string::npos) << e;
    // One switch between them is enough again.
    p.network.links.push_back(NetLink{0, 1, 1000});
    EXPECT_EQ(netsolver_error_of([&] { const NetworkRoutes routes(p); }), "");
}

// A NUL byte in an instance list line ended the message early (the CLI prints
// what() as a C string), and a NUL after an existing file's name was silently cut off by the
// file system. Now the line is refused, quoted with its control characters as \xNN.
TEST(NetsolverImport, ListLineWithNulRefusedAndQuotedWhole) {
    write_text("ok.vn", kVnB);
    const std::string list = write_text("nul.txt", std::string("ok.vn\nok.vn\0.bak\n", 17));
    EXPECT_EQ(netsolver_error_of([&] { read_netsolver_instance_list(list); }),
              list + R"(: line 2: no VDC file "ok.vn\x00.bak" (a path cannot contain a NUL byte))");
    const std::string esc = write_text("esc.txt", std::string("ok.vn\nno\x1b[31m\0pe.vn\n", 20));
    EXPECT_EQ(netsolver_error_of([&] { read_netsolver_instance_list(esc); }),
              esc + R"(: line 2: no VDC file "no\x1b[31m\x00pe.vn" (a path cannot contain a NUL byte))");
    const test::CmdResult r = run_vmcap("import netsolver --pn " + write_text("t.pn", kPn) + " --list " + esc + " --out " +
                                        (tmp_dir() / "netsolver-nul-out.json").string());
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find(R"(no VDC file "no\x1b[31m\x00pe.vn" (a path cannot contain a NUL byte))"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(tmp_dir() / "netsolver-nul-out.json"));
    // A VM name with a NUL (JSON "\u0000") in a message: escaped too, the message whole.
    EXPECT_EQ(vn_error(R"({"VMs": {"a\u0000b": [1, 2, 0]}, "VN": [["a\u0000b", "a\u0000b", 1]]})"),
              R"(bad.vn: VN[0]: joins VM "a\x00b" to itself)");
}

// Writing through a symbolic link (docs/cli.md "Commands, exit codes and time", docs/format.md): --out naming a symlink
// writes the file the link points to (replaced atomically, or created), and the link stays.
TEST(NetsolverImport, OutThroughASymlinkWritesItsTargetAndKeepsTheLink) {
    const std::string pn = write_text("t.pn", kPn), vn = write_text("b.vn", kVnB);
    const fs::path dir = tmp_dir() / "netsolver-links";
    fs::remove_all(dir);
    fs::create_directories(dir / "data");
    fs::create_directories(dir / "links");
    auto import_to = [&](const fs::path& out) { return run_vmcap("import netsolver --pn " + pn + " " + vn + " --out " + out.string()); };
    // An existing target, by a relative link from another directory: replaced, the link kept.
    std::ofstream((dir / "data" / "snap.json").string()) << "old";
    fs::create_symlink("../data/snap.json", dir / "links" / "snap.json");
    ASSERT_EQ(import_to(dir / "links" / "snap.json").code, 0);
    EXPECT_TRUE(fs::is_symlink(dir / "links" / "snap.json"));
    EXPECT_EQ(load_snapshot((dir / "data" / "snap.json").string()).vdcs.size(), 1U);
    // A chain of two links.
    fs::create_symlink("snap.json", dir / "links" / "chain.json");
    std::ofstream((dir / "data" / "snap.json").string()) << "old";
    ASSERT_EQ(import_to(dir / "links" / "chain.json").code, 0);
    EXPECT_TRUE(fs::is_symlink(dir / "links" / "chain.json"));
    EXPECT_TRUE(fs::is_symlink(dir / "links" / "snap.json"));
    EXPECT_EQ(load_snapshot((dir / "data" / "snap.json").string()).vdcs.size(), 1U);
    // A link to a file that does not exist yet (dangling): the file is created there, the link kept.
    fs::create_symlink("../data/new.json", dir / "links" / "new.json");
    const test::CmdResult r = import_to(dir / "links" / "new.json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(dir / "links" / "new.json"));
    EXPECT_TRUE(fs::is_regular_file(dir / "data" / "new.json"));
    EXPECT_EQ(load_snapshot((dir / "links" / "new.json").string()).vdcs.size(), 1U);
    // Nothing else was left in either directory (no temporary file).
    EXPECT_EQ(std::distance(fs::directory_iterator(dir / "data"), fs::directory_iterator()), 2);
    EXPECT_EQ(std::distance(fs::directory_iterator(dir / "links"), fs::directory_iterator()), 3);
}

// ---- the bundled NetSolver data (skipped without ../shared/data/netsolver-vdc)

fs::path netsolver_data() {
    return test::shared_data_dir() / "netsolver-vdc" / "instances";
}

/** Imports `pn` with `list` through the CLI, reloads the snapshot and checks it from scratch:
 *  every link's load (NetworkRoutes, all vlinks) within capacity, every pNUMA node within
 *  capacity, one VDC id per allocated VDC. Returns the snapshot. */
Problem import_and_check(const fs::path& pn, const fs::path& list, const std::string& name, int* allocated) {
    const std::string out = (tmp_dir() / (name + ".json")).string();
    const test::CmdResult r = run_vmcap("import netsolver --pn " + pn.string() + " --list " + list.string() + " --out " + out);
    EXPECT_EQ(r.code, 0) << r.err;
    const Problem p = load_snapshot(out);
    const auto at = r.out.find("allocated ");
    EXPECT_NE(at, std::string::npos) << r.out;
    *allocated = std::stoi(r.out.substr(at + 10));
    EXPECT_EQ(static_cast<int>(p.vdcs.size()), *allocated);
    const NetworkRoutes routes(p);
    std::vector<int> vm_host;
    for (const Vm& vm : p.vms) vm_host.push_back(vm.host);
    const std::vector<std::int64_t> loads = link_loads(p, routes, vm_host);
    for (int l = 0; l < routes.num_links(); ++l) EXPECT_LE(loads[l], routes.capacity(l)) << routes.link_name(l);
    const auto usage = compute_node_usage(p);
    for (std::size_t h = 0; h < p.hosts.size(); ++h)
        for (std::size_t i = 0; i < usage[h].size(); ++i) EXPECT_LE(usage[h][i], p.host_type_of(static_cast<int>(h)).node_capacity[i]);
    return p;
}

TEST(NetsolverImport, HadoopTreeFromTheBundledData) {
    const fs::path dir = netsolver_data() / "hadoop";
    if (!fs::is_directory(dir)) GTEST_SKIP() << "no data directory " << dir;
    int allocated = 0;
    const Problem p = import_and_check(dir / "hadoop_extra" / "us-mid1.pn", dir / "instance_list_hadoop_10vm_rnd.txt", "mid1", &allocated);
    // 384 servers of 8 cores: at most 307 VDCs of 10 VMs of >= 1 core; SecondNet placed 48 and
    // NetSolver-ILP 92 (published_allocation_results.csv) before the first failure.
    EXPECT_EQ(p.hosts.size(), 384U);
    EXPECT_EQ(p.network.switches.size(), 33U);
    EXPECT_EQ(p.network.links.size(), 60U);
    EXPECT_GE(allocated, 48);
    EXPECT_LE(allocated, 307);
    EXPECT_EQ(p.vms.size(), static_cast<std::size_t>(allocated) * 10);
    EXPECT_EQ(p.host_types[0].nic_mbps, 20000);
}

// `import netsolver --requests-out` + `vmcap place --strategy link-fit --stop-at-first-failure`
// (the published NetSolver table through the admission command) places exactly what the import
// places itself: the same VDC count, every VM on the same host and pNUMA nodes.
TEST(NetsolverImport, RequestsOutThroughVmcapPlaceEqualTheImport) {
    const fs::path dir = netsolver_data() / "hadoop";
    if (!fs::is_directory(dir)) GTEST_SKIP() << "no data directory " << dir;
    const std::string pn = (dir / "hadoop_extra" / "us-west2.pn").string(), list = (dir / "instance_list_hadoop_4vm_rnd.txt").string();
    const std::string direct = (tmp_dir() / "ro-direct.json").string(), empty = (tmp_dir() / "ro-empty.json").string(),
                      reqs = (tmp_dir() / "ro-requests.json").string(), placed = (tmp_dir() / "ro-placed.json").string();
    ASSERT_EQ(run_vmcap("import netsolver --pn " + pn + " --list " + list + " --out " + direct).code, 0);
    const test::CmdResult ro = run_vmcap("import netsolver --pn " + pn + " --list " + list + " --requests-out " + reqs + " --out " + empty);
    ASSERT_EQ(ro.code, 0) << ro.err;
    EXPECT_TRUE(load_snapshot(empty).vms.empty());
    const test::CmdResult pl =
        run_vmcap("place --cluster " + empty + " --requests " + reqs + " --strategy link-fit --stop-at-first-failure --out " + placed);
    ASSERT_EQ(pl.code, 0) << pl.err;
    const Problem a = load_snapshot(direct), b = load_snapshot(placed);
    ASSERT_GT(a.vdcs.size(), 0U);
    EXPECT_EQ(a.vdcs, b.vdcs);
    ASSERT_EQ(a.vms.size(), b.vms.size());
    std::map<std::string, const Vm*> where;
    for (const Vm& vm : b.vms) where[vm.id] = &vm;
    for (const Vm& vm : a.vms) {
        ASSERT_TRUE(where.count(vm.id)) << vm.id;
        EXPECT_EQ(a.hosts[vm.host].id, b.hosts[where[vm.id]->host].id) << vm.id;
        EXPECT_EQ(vm.pnuma, where[vm.id]->pnuma) << vm.id;
    }
    EXPECT_EQ(a.vlinks.size(), b.vlinks.size());
}

// Every registered strategy on imported NetSolver networks (a hadoop tree and a FatTree): the first
// requests of each list placed all or nothing, going on past failures; the result goes through the
// snapshot loader (pNUMA capacity, vNUMA embeddings) and every arc's load is recomputed from
// scratch over every vlink and held to its capacity (the cluster starts empty).
TEST(NetsolverImport, EveryStrategyPlacesImportedVdcsWithinEveryNodeAndLink) {
    const fs::path root = netsolver_data();
    if (!fs::is_directory(root / "hadoop")) GTEST_SKIP() << "no data directory " << root;
    const std::vector<std::pair<fs::path, fs::path>> cases = {
        {root / "hadoop" / "hadoop_extra" / "us-west2.pn", root / "hadoop" / "instance_list_hadoop_10vm_rnd.txt"},
        {root / "fattree-bcube" / "Fattree_n8_k2_bw10_cpu16.pn", root / "fattree-bcube" / "instance_list_6vm_rnd.txt"}};
    for (const auto& [pn, list] : cases) {
        const std::string empty = (tmp_dir() / "every-empty.json").string(), reqs = (tmp_dir() / "every-requests.json").string();
        const test::CmdResult ro =
            run_vmcap("import netsolver --pn " + pn.string() + " --list " + list.string() + " --requests-out " + reqs + " --out " + empty);
        ASSERT_EQ(ro.code, 0) << ro.err;
        const Problem cluster = load_snapshot(empty);
        std::vector<Request> requests = parse_requests(nlohmann::json::parse(std::ifstream(reqs)), reqs);
        requests.resize(std::min<std::size_t>(requests.size(), 70));  // past the first failure on us-west2
        for (const PlacerInfo& info : registered_placers()) {
            SCOPED_TRACE(pn.filename().string() + " " + std::string(info.name));
            AdmissionOptions o;
            o.strategy = std::string(info.name);
            const AdmissionResult res = admit_requests(cluster, requests, o, reqs);
            EXPECT_GT(res.accepted, 0);
            const Problem back = parse_snapshot(nlohmann::json::parse(snapshot_to_json(res.problem).dump()), "<placed>");
            ASSERT_EQ(back.vms.size(), static_cast<std::size_t>(res.vms_placed));
            const NetworkRoutes routes(back);
            std::vector<int> host;
            for (const Vm& vm : back.vms) host.push_back(vm.host);
            const std::vector<std::int64_t> load = link_loads(back, routes, host);
            for (int a = 0; a < routes.num_links(); ++a) ASSERT_LE(load[a], routes.capacity(a)) << routes.link_name(a);
        }
    }
}

TEST(NetsolverImport, FatTreeFromTheBundledData) {
    const fs::path dir = netsolver_data() / "fattree-bcube";
    if (!fs::is_directory(dir)) GTEST_SKIP() << "no data directory " << dir;
    int allocated = 0;
    const Problem p = import_and_check(dir / "Fattree_n8_k2_bw10_cpu16.pn", dir / "instance_list_9vm_rnd.txt", "fattree8", &allocated);
    // 128 servers of 16 cores, VMs of 1 core: at most 227 VDCs of 9; SecondNet placed 114.
    EXPECT_EQ(p.hosts.size(), 128U);
    EXPECT_EQ(p.network.links.size(), 256U);  // 768 entries, each link listed in both directions, minus the 128 server links
    EXPECT_GE(allocated, 114);
    EXPECT_LE(allocated, 227);
    // BCube is refused with one line, exit 2.
    const test::CmdResult r = run_vmcap("import netsolver --pn " + (dir / "BCube_n8_k2_bw10_cpu16.pn").string() + " --list " +
                                        (dir / "instance_list_6vm_rnd.txt").string() + " --out " + (tmp_dir() / "bcube.json").string());
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("a server-centric network (BCube)"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(tmp_dir() / "bcube.json"));
}

// The published FatTree rows (bw10) on which link-fit without retries stopped short of the vCPU
// bound (n8 9-VM at 209, n12 9-VM at 672, n12 15-VM at 437; docs/performance.md): with its retries
// it allocates, until the first failure, the longest prefix of the list whose vCPU and RAM fit the
// cluster's totals (computed here from the snapshot and the requests), which no placer can exceed.
TEST(NetsolverImport, LinkFitReachesTheVcpuBoundOnTheShortFatTreeRows) {
    const fs::path dir = netsolver_data() / "fattree-bcube";
    if (!fs::is_directory(dir)) GTEST_SKIP() << "no data directory " << dir;
    for (const auto& [n, size] : std::vector<std::pair<int, int>>{{8, 9}, {12, 9}, {12, 15}}) {
        const std::string name = "n" + std::to_string(n) + "-" + std::to_string(size);
        SCOPED_TRACE(name);
        const std::string empty = (tmp_dir() / (name + "-empty.json")).string(), reqs = (tmp_dir() / (name + "-req.json")).string();
        const std::string pn = (dir / ("Fattree_n" + std::to_string(n) + "_k2_bw10_cpu16.pn")).string();
        const std::string list = (dir / ("instance_list_" + std::to_string(size) + "vm_rnd.txt")).string();
        ASSERT_EQ(
            run_vmcap("import netsolver --pn " + pn + " --list " + list + " --numa-nodes 1 --requests-out " + reqs + " --out " + empty)
                .code,
            0);
        const Problem cluster = load_snapshot(empty);
        const std::vector<Request> requests = parse_requests(nlohmann::json::parse(std::ifstream(reqs)), reqs);
        Amount vcpu = 0, ram = 0;  // the cluster's totals
        const std::size_t R = static_cast<std::size_t>(cluster.num_resources());
        for (std::size_t h = 0; h < cluster.hosts.size(); ++h) {
            const std::vector<Amount>& cap = cluster.host_type_of(static_cast<int>(h)).node_capacity;
            for (std::size_t i = 0; i < cap.size(); i += R) {
                vcpu += cap[i + kVcpu];
                ram += cap[i + kRamMib];
            }
        }
        std::map<std::string, const Flavor*> flavor;
        for (const Flavor& f : cluster.flavors) flavor[f.name] = &f;
        int bound = 0;
        for (const Request& r : requests) {
            for (const RequestVm& vm : r.vms) {
                vcpu -= flavor.at(vm.flavor)->demand[kVcpu];
                ram -= flavor.at(vm.flavor)->demand[kRamMib];
            }
            if (vcpu < 0 || ram < 0) break;
            ++bound;
        }
        const test::CmdResult r =
            run_vmcap("place --cluster " + empty + " --requests " + reqs + " --strategy link-fit --stop-at-first-failure");
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(r.out.substr(0, r.out.find(" of ")), "placed " + std::to_string(bound)) << r.out;
    }
}

}  // namespace
}  // namespace vmcap

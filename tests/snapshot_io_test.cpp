// Snapshot loading: every kind of bad input gives one clear line naming file and JSON path; round trip.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include <unistd.h>
#include <csignal>
#include <sys/wait.h>

#include "instances/snapshot_io.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

using nlohmann::json;

json small_doc() {
    return json::parse(R"({
      "format": "vmcap-snapshot/1",
      "resources": ["vcpu", "ram_mib"],
      "host_types": [{"name": "cq3", "topology": "CQ3", "node_capacity": {"vcpu": 16, "ram_mib": 65536}},
                     {"name": "ring", "topology": {"nodes": 4, "edges": [[1,2],[2,3],[3,4],[4,1]]},
                      "node_capacity": [{"vcpu": 8, "ram_mib": 32768}, {"vcpu": 8, "ram_mib": 32768},
                                        {"vcpu": 8, "ram_mib": 32768}, {"vcpu": 4, "ram_mib": 16384}]}],
      "hosts": [{"id": "h1", "type": "cq3", "rack": "r1", "pod": "p1"}, {"id": "h2", "type": "ring"}],
      "flavors": [{"name": "small", "vcpu": 2, "ram_mib": 4096, "vnuma": "K1", "weight": 0},
                  {"name": "big", "vcpu": 8, "ram_mib": 32768, "vnuma": "K2", "weight": 1}],
      "vms": [{"id": "a", "flavor": "big", "host": "h1", "pnuma": [1, 2]},
              {"id": "b", "flavor": "small", "host": "h2", "pnuma": [4], "migratable": false}],
      "constraints": {"max_migrations": 3, "max_migrated_ram_gib": 64}
    })");
}

std::string error_of(const json& doc) {
    try {
        parse_snapshot(doc, "c.json");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

TEST(SnapshotIo, LoadsValidDocument) {
    const Problem p = parse_snapshot(small_doc(), "c.json");
    ASSERT_EQ(p.hosts.size(), 2u);
    EXPECT_EQ(p.host_types[0].topology.kind, TopologyKind::CrossedCube);
    EXPECT_EQ(p.host_types[1].topology.kind, TopologyKind::Explicit);
    EXPECT_EQ(p.host_types[1].node_capacity[3 * 2], 4);
    EXPECT_EQ(p.flavors[1].node_demand[kVcpu], 4);
    EXPECT_EQ(p.vms[1].pnuma[0], 3);  // 1-based in JSON, 0-based inside
    EXPECT_FALSE(p.vms[1].migratable);
    EXPECT_EQ(p.constraints.max_migrated_ram_mib, 64 * 1024);
}

TEST(SnapshotIo, RoundTrip) {
    const Problem p = parse_snapshot(small_doc(), "c.json");
    const Problem q = parse_snapshot(json::parse(format_json_lines(snapshot_to_json(p))), "again.json");
    EXPECT_EQ(snapshot_to_json(p).dump(), snapshot_to_json(q).dump());
    test::RandomCluster rc;
    const Problem r = test::make_random_problem(rc);
    const Problem r2 = parse_snapshot(json::parse(format_json_lines(snapshot_to_json(r))), "r.json");
    EXPECT_EQ(snapshot_to_json(r).dump(), snapshot_to_json(r2).dump());
}

struct SnapshotBadCase {
    const char* name;
    std::function<void(json&)> mutate;
    const char* expect;  // fragment of the one-line message (beside "c.json: ")
};

class SnapshotErrors : public ::testing::TestWithParam<SnapshotBadCase> {};

TEST_P(SnapshotErrors, OneClearLine) {
    json doc = small_doc();
    GetParam().mutate(doc);
    const std::string msg = error_of(doc);
    ASSERT_FALSE(msg.empty()) << "accepted bad input";
    EXPECT_EQ(msg.rfind("c.json: ", 0), 0u) << msg;
    EXPECT_NE(msg.find(GetParam().expect), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SnapshotErrors,
    ::testing::Values(
        SnapshotBadCase{"missing_hosts", [](json& d) { d.erase("hosts"); }, "missing required key \"hosts\""},
        SnapshotBadCase{"unknown_key", [](json& d) { d["vms"][0]["hots"] = "h1"; }, "vms[0]: unknown key \"hots\""},
        SnapshotBadCase{"unknown_topology", [](json& d) { d["host_types"][0]["topology"] = "Q4"; }, "host_types[0].topology"},
        SnapshotBadCase{"unknown_flavor", [](json& d) { d["vms"][0]["flavor"] = "huge"; },
                        "vms[0] (id \"a\").flavor: unknown flavor \"huge\""},
        SnapshotBadCase{"unknown_host", [](json& d) { d["vms"][0]["host"] = "h9"; }, "vms[0] (id \"a\").host: unknown host \"h9\""},
        SnapshotBadCase{"duplicate_vm", [](json& d) { d["vms"][1]["id"] = "a"; }, "duplicate VM id \"a\""},
        SnapshotBadCase{"same_pnuma_twice",
                        [](json& d) {
                            d["vms"][0]["pnuma"] = {1, 1};
                        },
                        "distinct pNUMA nodes"},
        SnapshotBadCase{"edge_not_on_pnuma_edge",
                        [](json& d) {
                            d["vms"][0]["pnuma"] = {1, 3};
                        },
                        "every vNUMA edge on a pNUMA edge"},
        SnapshotBadCase{"pnuma_out_of_range",
                        [](json& d) {
                            d["vms"][0]["pnuma"] = {1, 9};
                        },
                        "pnuma[1]"},
        SnapshotBadCase{"wrong_pnuma_count", [](json& d) { d["vms"][0]["pnuma"] = {1}; }, "expected an array of 2 pNUMA node numbers"},
        SnapshotBadCase{"over_capacity",
                        [](json& d) {
                            d["vms"].push_back(json{{"id", "c"}, {"flavor", "big"}, {"host", "h1"}, {"pnuma", {2, 1}}});
                            d["vms"].push_back(json{{"id", "d"}, {"flavor", "big"}, {"host", "h1"}, {"pnuma", {1, 2}}});
                            d["vms"].push_back(json{{"id", "e"}, {"flavor", "big"}, {"host", "h1"}, {"pnuma", {1, 2}}});
                            d["vms"].push_back(json{{"id", "f"}, {"flavor", "big"}, {"host", "h1"}, {"pnuma", {1, 2}}});
                        },
                        "vms[5] (id \"f\"): pNUMA node 1 of host \"h1\" is over capacity in vcpu (20 > 16)"},
        SnapshotBadCase{"uneven_split", [](json& d) { d["flavors"][1]["vcpu"] = 7; }, "does not split evenly over 2 vNUMA nodes"},
        SnapshotBadCase{"negative_weight", [](json& d) { d["flavors"][1]["weight"] = -1; }, "flavors[1].weight"},
        SnapshotBadCase{"capacity_count", [](json& d) { d["host_types"][1]["node_capacity"].erase(0); }, "has 3 entries"},
        SnapshotBadCase{"string_capacity", [](json& d) { d["host_types"][0]["node_capacity"]["vcpu"] = "16"; }, "expected an integer"},
        SnapshotBadCase{"bad_format", [](json& d) { d["format"] = "other/2"; }, "format"},
        SnapshotBadCase{"negative_budget", [](json& d) { d["constraints"]["max_migrations"] = -1; }, "constraints.max_migrations"},
        SnapshotBadCase{"missing_ram", [](json& d) { d["flavors"][0].erase("ram_mib"); }, "missing required key \"ram_mib\""},
        SnapshotBadCase{"unknown_host_type", [](json& d) { d["hosts"][1]["type"] = "nope"; }, "hosts[1].type: unknown host type"}),
    [](const ::testing::TestParamInfo<SnapshotBadCase>& info) { return std::string(info.param.name); });

TEST(SnapshotIo, FileErrorsNameTheFile) {
    const auto dir = std::filesystem::temp_directory_path() / ("vmcap_io_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string bad = (dir / "bad.json").string();
    std::ofstream(bad) << "{ \"hosts\": [ ";
    try {
        load_snapshot(bad);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(bad + ": invalid JSON"), std::string::npos) << e.what();
    }
    try {
        load_snapshot((dir / "missing.json").string());
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("missing.json: cannot open"), std::string::npos) << e.what();
    }
    std::filesystem::remove_all(dir);
}

TEST(SnapshotIo, AtomicWriteReplacesWholeFile) {
    const auto dir = std::filesystem::temp_directory_path() / ("vmcap_io_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "out.json").string();
    write_file_atomic(path, "first version, long text");
    write_file_atomic(path, "second");
    EXPECT_EQ(read_text_file(path), "second");
    for (const auto& e : std::filesystem::directory_iterator(dir))
        EXPECT_EQ(e.path().filename().string().find(".out.json.tmp"), std::string::npos) << "temporary file left behind";
    EXPECT_THROW(write_file_atomic((dir / "no_such_dir" / "x.json").string(), "x"), std::runtime_error);
    std::filesystem::remove_all(dir);
}

TEST(SnapshotIo, AtomicWriteKilledLeavesNoTemporaryFile) {
    // A child writes 256 MiB and is killed with SIGKILL part-way (no handler can run): the target
    // holds its old content or the complete new one, and no temporary file is left (O_TMPFILE).
    const auto dir = std::filesystem::temp_directory_path() / ("vmcap_kill_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "plan.json").string();
    write_file_atomic(path, "old");
    const std::string big(std::size_t{256} << 20, 'x');
    int killed_while_writing = 0;
    for (int delay_ms : {5, 20, 60}) {
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            write_file_atomic(path, big);
            ::_exit(0);
        }
        ::usleep(static_cast<useconds_t>(delay_ms) * 1000);
        ::kill(child, SIGKILL);
        int status = 0;
        ::waitpid(child, &status, 0);
        killed_while_writing += WIFSIGNALED(status) ? 1 : 0;
        const auto size = std::filesystem::file_size(path);
        EXPECT_TRUE(size == 3 || size == big.size()) << size;
        for (const auto& e : std::filesystem::directory_iterator(dir))
            EXPECT_EQ(e.path().filename().string(), "plan.json") << "left behind after SIGKILL";
    }
    EXPECT_GT(killed_while_writing, 0) << "every child finished before the kill: the test did not test anything";
    std::filesystem::remove_all(dir);
}

TEST(SnapshotIo, OutputPathCheckedByCreatingAFile) {
    // access() says yes to root everywhere; the check must try. /proc refuses new files to anyone.
    EXPECT_THROW(check_output_path("/proc/vmcap-test-plan.json"), InputError);
    EXPECT_THROW(read_text_file("/dev/zero"), InputError);  // a device would be read forever
    EXPECT_THROW(read_text_file("/tmp"), InputError);
}

}  // namespace
}  // namespace vmcap

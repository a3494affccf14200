// Bad input from an unattended nightly run: every case exits 2 with one line on
// stderr naming the file and the JSON path or option, writes nothing, and never reaches undefined
// behaviour (out-of-bounds writes, integer overflow or truncation, unbounded recursion).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/cli_run.h"

namespace vmcap {
namespace {

using test::run_vmcap;
using test::tmp_dir;

/** A small valid snapshot; `patch` replaces the first occurrence of `what` by `with`. */
std::string snapshot(const std::string& what = "", const std::string& with = "") {
    std::string s = R"({"format": "vmcap-snapshot/1",
 "host_types": [{"name": "cq3", "topology": "CQ3", "node_capacity": {"vcpu": 16, "ram_mib": 65536}}],
 "hosts": [{"id": "h1", "type": "cq3"}, {"id": "h2", "type": "cq3"}],
 "flavors": [{"name": "small", "vcpu": 2, "ram_mib": 4096, "weight": 0},
             {"name": "big", "vcpu": 8, "ram_mib": 32768, "vnuma": "K2", "weight": 1}],
 "vms": [{"id": "a", "flavor": "big", "host": "h1", "pnuma": [1, 2]},
         {"id": "b", "flavor": "small", "host": "h2", "pnuma": [4]}],
 "constraints": {"max_migrations": 3}})";
    if (!what.empty()) {
        const auto at = s.find(what);
        EXPECT_NE(at, std::string::npos) << what;
        s.replace(at, what.size(), with);
    }
    return s;
}

/** `text` with the weight of flavor "big" set to `w`. */
std::string with_weight(std::string text, const std::string& w) {
    const std::string key = R"("weight": 1})";
    text.replace(text.find(key), key.size(), "\"weight\": " + w + "}");
    return text;
}

std::string write(const std::string& name, const std::string& text) {
    const std::string path = (tmp_dir() / name).string();
    std::ofstream(path) << text;
    return path;
}

struct BadCase {
    const char* name;
    std::string file;  ///< snapshot text ("" = the valid one)
    std::string args;  ///< after the command; {C} = the snapshot path, {O} = an output path
    const char* command;
    const char* message;  ///< expected in the one-line error
};

void expect_exit2(const BadCase& c) {
    SCOPED_TRACE(c.name);
    const std::string cluster = write(std::string(c.name) + ".json", c.file.empty() ? snapshot() : c.file);
    const std::string out = (tmp_dir() / (std::string(c.name) + "-out.json")).string();
    std::filesystem::remove(out);
    std::string args = c.args;
    for (std::string key : {"{C}", "{O}"})
        for (auto at = args.find(key); at != std::string::npos; at = args.find(key))
            args.replace(at, key.size(), key == "{C}" ? cluster : out);
    const auto r = run_vmcap(std::string(c.command) + " " + args);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "not one line: " << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << "something was written";
}

TEST(BadInput, SnapshotsAndOptionsGetOneLineExit2AndNothingWritten) {
    const std::string big = "18446744073709551615";  // 2^64 - 1: would wrap to -1 as int64
    const BadCase cases[] = {
        {"vnuma9", snapshot(R"("vnuma": "K2")", R"("vnuma": "K9")"), "--cluster {C} --out {O} --quiet", "plan", "at most 8 are supported"},
        {"huge_capacity", snapshot(R"("vcpu": 16,)", R"("vcpu": 4611686018427387904,)"), "--cluster {C}", "capacity",
         "host_types[0].node_capacity.vcpu: must be <= 1099511627776"},
        {"wrapping_demand", snapshot(R"("vcpu": 2,)", "\"vcpu\": " + big + ","), "--cluster {C}", "capacity",
         "flavors[0].vcpu: must be <="},
        {"nodes_2p32", snapshot(R"("topology": "CQ3")", R"("topology": {"nodes": 4294967298, "edges": [[1, 2]]})"), "--cluster {C}",
         "capacity", "host_types[0].topology.nodes: must be <= 16"},
        {"edge_2p32", snapshot(R"("topology": "CQ3")", R"("topology": {"nodes": 8, "edges": [[4294967297, 2]]})"), "--cluster {C}",
         "capacity", "host_types[0].topology.edges[0][0]: must be <= 8"},
        {"weight_precision", snapshot(R"("weight": 1})", R"("weight": 0.0001})"), "--cluster {C} --out {O} --quiet", "plan",
         "at most 3 decimals"},
        {"weight_huge", snapshot(R"("weight": 1})", R"("weight": 1e300})"), "--cluster {C} --out {O} --quiet", "plan", "at most 100000"},
        {"objective_range",
         with_weight(snapshot(R"({"vcpu": 16, "ram_mib": 65536})", R"({"vcpu": 1099511627776, "ram_mib": 1099511627776})"), "100000"),
         "--cluster {C} --out {O} --quiet", "plan", "exact integer range"},
        {"number_beyond_double", snapshot(R"("max_migrations": 3)", R"("max_migrations": 1e400)"), "--cluster {C}", "capacity",
         "invalid JSON"},
        {"empty_hosts", snapshot(R"([{"id": "h1", "type": "cq3"}, {"id": "h2", "type": "cq3"}])", "[]"), "--cluster {C}", "capacity",
         "hosts: is empty"},
        {"id_with_escape", snapshot(R"("id": "b", "flavor": "small")", "\"id\": \"b\\n\\u001b[31m\", \"flavor\": \"nosuch\""),
         "--cluster {C}", "capacity", "(id \"b\\x0a\\x1b[31m\").flavor: unknown flavor"},
        {"seed_negative", "", "--cluster {C} --out {O} --seed -1 --quiet", "plan", "--seed: expected an unsigned 64-bit integer"},
        {"gib_not_finite", "", "--cluster {C} --out {O} --max-migrated-gib inf --quiet", "plan", "--max-migrated-gib"},
        {"out_missing_dir", "", "--cluster {C} --out /nonexistent-dir/p.json --quiet", "plan", "directory /nonexistent-dir does not exist"},
    };
    for (const BadCase& c : cases) expect_exit2(c);
    // duplicate VM ids are rejected as well (kept from the loader's checks); not listed to keep the table about new cases
}

TEST(BadInput, HugeRamBudgetMeansUnlimitedNotOverflow) {
    const std::string cluster = write("ok.json", snapshot());
    const std::string out = (tmp_dir() / "unlimited.json").string();
    const auto r = run_vmcap("plan --cluster " + cluster + " --out " + out + " --max-migrated-gib 1e300 --quiet");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("unlimited GiB"), std::string::npos) << r.out;
    EXPECT_EQ(run_vmcap("validate --cluster " + cluster + " --plan " + out).code, 0);
    const std::string snap =
        write("unlimited-snap.json", snapshot(R"("max_migrations": 3)", R"("max_migrations": 3, "max_migrated_ram_gib": 1e300)"));
    EXPECT_EQ(run_vmcap("capacity --cluster " + snap).code, 0);
}

TEST(BadInput, PlansThatWouldTruncateRecurseOrMistypeGetExit2) {
    const std::string cluster = write("ok2.json", snapshot());
    const std::string out = (tmp_dir() / "good-plan.json").string();
    ASSERT_EQ(run_vmcap("plan --cluster " + cluster + " --out " + out + " --quiet").code, 0);
    std::string good = read_text_file(out);
    auto check = [&](const char* name, const std::string& plan, const char* message) {
        SCOPED_TRACE(name);
        const std::string path = write(std::string(name) + ".json", plan);
        const auto r = run_vmcap("validate --cluster " + cluster + " --plan " + path);
        EXPECT_EQ(r.code, 2) << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    };
    check("format_number", std::string(R"({"format": 5, "steps": []})"), "format: expected");
    check("format_array", std::string(R"({"format": [1], "steps": []})"), "format: expected");
    const std::string nested = std::string(100000, '[') + std::string(100000, ']');
    check("deep_vm",
          R"({"format": "vmcap-plan/1", "steps": [{"vm": )" + nested +
              R"(, "from_host": "h1", "to_host": "h2", "from_pnuma": [1], "to_pnuma": [1]}]})",
          "steps[0].vm: expected a string, got an array");
    // A field of the wrong type is a malformed plan (exit 2), not a wrong value (exit 3).
    check("algorithm_number", std::string(R"({"format": "vmcap-plan/1", "algorithm": 5, "steps": []})"),
          "algorithm: expected a string, got 5");
    check("objective_array", std::string(R"({"format": "vmcap-plan/1", "objective_before": [[1]], "steps": []})"),
          "objective_before: expected a number, got an array");
    check(
        "to_pnuma_2p32",
        R"({"format": "vmcap-plan/1", "steps": [{"vm": "b", "from_host": "h2", "to_host": "h1", "from_pnuma": [4], "to_pnuma": [4294967297]}]})",
        "expected a pNUMA node number 1..8");
    check("beyond_double", R"({"format": "vmcap-plan/1", "objective_after": 1e400, "steps": []})", "invalid JSON");
}

TEST(OutputFile, SymlinkKeptPermissionsKeptDirectoryRefused) {
    const std::string cluster = write("ok3.json", snapshot());
    const auto dir = tmp_dir() / "outdir";
    std::filesystem::create_directories(dir);
    const auto real = dir / "real.json", link = dir / "link.json";
    std::ofstream(real.string()) << "old";
    std::filesystem::permissions(real, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    std::filesystem::remove(link);
    std::filesystem::create_symlink(real, link);
    ASSERT_EQ(run_vmcap("plan --cluster " + cluster + " --out " + link.string() + " --quiet").code, 0);
    EXPECT_TRUE(std::filesystem::is_symlink(link));
    EXPECT_NE(read_text_file(real.string()).find("vmcap-plan/1"), std::string::npos);
    EXPECT_EQ(std::filesystem::status(real).permissions() & std::filesystem::perms::all,
              std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    const auto r = run_vmcap("plan --cluster " + cluster + " --out " + dir.string() + " --quiet");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
    EXPECT_TRUE(std::filesystem::is_directory(dir));
}

}  // namespace
}  // namespace vmcap

namespace vmcap {
namespace {

// SIGINT during a long `vmcap plan`: the search stops at its next check, the best plan so far is
// written atomically (no temporary file left), it validates, and the exit code is 130.
TEST(Signals, InterruptWritesTheBestPlanSoFarAndExits130) {
    const std::string snap = (tmp_dir() / "sig.json").string();
    ASSERT_EQ(run_vmcap("generate --hosts 300 --vms 4000 --seed 3 --budget-fraction 0.05 --out " + snap).code, 0);
    const auto dir = tmp_dir() / "sigout";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string out = (dir / "p.json").string();
    // --foreground: timeout sends SIGINT to vmcap only. Without it, it also signals its whole
    // process group, so vmcap got SIGINT twice at once; when the second came after the handler
    // had run (a loaded machine), it ended the process as documented for a second signal, and the
    // test failed without a plan (seen 3 runs of 3 under load, at 3a0f64d too).
    const std::string cmd = "timeout --foreground --preserve-status -s INT 2 " + std::string(VMCAP_BINARY) + " plan --cluster " + snap +
                            " --time-limit 300 --max-evaluations 4000000000 --quiet --out " + out + " > " + (dir / "o.txt").string() +
                            " 2>&1";
    const int status = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 130) << read_text_file((dir / "o.txt").string());
    EXPECT_NE(read_text_file((dir / "o.txt").string()).find("interrupted"), std::string::npos);
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.path().filename() != "o.txt";
    EXPECT_EQ(files, 1) << "a temporary file was left";
    const auto plan = nlohmann::json::parse(read_text_file(out));
    EXPECT_EQ(plan["search"]["stopped_by"], "interrupt");
    EXPECT_EQ(run_vmcap("validate --cluster " + snap + " --plan " + out).code, 0);
}

}  // namespace
}  // namespace vmcap

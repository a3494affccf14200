// End-to-end checks of the vmcap binary: exit codes, stdout, files written or not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "instances/snapshot_io.h"
#include "tests/cli_run.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

namespace fs = std::filesystem;

using test::CmdResult;

CmdResult run_cli(const std::string& args) {
    return test::run_vmcap(args);
}

fs::path tmp(const std::string& name) {
    return test::tmp_dir() / name;
}

TEST(Cli, EvalPrintsBareInteger) {
    // CQ3/K2 on the README's vector; the value is checked against the exhaustive oracle in vmcap_test.
    CmdResult r = run_cli("eval --host K4 --guest K2 --b 3,1,4,1");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "4\n");  // min(floor(9/2), 9 - 4) = 4
    r = run_cli("eval --host K4 --guest K4 --b 3,1,4,1");
    EXPECT_EQ(r.out, "1\n");
    r = run_cli("eval --host CQ3 --guest K2 --b 3,1,4,1,5,9,2,6");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(r.out.empty());
}

TEST(Cli, EvalBadInputExits2) {
    for (const char* args :
         {"eval --host CQ3 --guest K2 --b 1,2,3", "eval --host X9 --guest K2 --b 1", "eval --host K4 --guest K2 --b 1,-2,3,4",
          "eval --host K4 --guest K9 --b 1,2,3,4", "eval --host K4 --b 1,2,3,4", "eval --bogus"}) {
        const CmdResult r = run_cli(args);
        EXPECT_EQ(r.code, 2) << args;
        EXPECT_NE(r.err.find("vmcap eval: "), std::string::npos) << r.err;
        EXPECT_TRUE(r.out.empty()) << args;
    }
}

TEST(Cli, HelpOnEverySubcommand) {
    for (const char* c : {"eval", "capacity", "plan", "validate", "snapshot"}) {
        const CmdResult r = run_cli(std::string(c) + " --help");
        EXPECT_EQ(r.code, 0) << c;
        std::string lower = r.out;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
        EXPECT_NE(lower.find("usage: vmcap"), std::string::npos) << c;
    }
    EXPECT_EQ(run_cli("frobnicate").code, 2);
}

// Usage and dispatch come from one command table (cli/main.cpp): every command `vmcap --help`
// lists runs its own --help (exit 0, "usage: vmcap <name>"), the list is the twelve commands in
// their usage order, no arguments print the same text on stderr with exit code 2, and an unknown
// command is one line naming it, exit code 2, nothing on stdout.
TEST(Cli, UsageListsExactlyTheCommandsThatDispatch) {
    const CmdResult help = run_cli("--help");
    ASSERT_EQ(help.code, 0) << help.err;
    ASSERT_EQ(help.out.rfind("usage: vmcap <command> [options]", 0), 0u) << help.out;
    std::istringstream lines(help.out.substr(help.out.find("commands:\n") + 10));
    std::vector<std::string> listed;
    for (std::string line; std::getline(lines, line);) {
        ASSERT_EQ(line.rfind("  ", 0), 0u) << line;
        ASSERT_EQ(line[12], ' ') << line;  // one column for the summaries
        listed.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
    const std::vector<std::string> expected = {"plan",   "validate", "capacity", "eval",     "snapshot", "generate",
                                               "import", "export",   "report",   "simulate", "exact",    "place"};
    EXPECT_EQ(listed, expected);
    for (const std::string& c : listed) {
        const CmdResult r = run_cli(c + " --help");
        EXPECT_EQ(r.code, 0) << c;
        std::string lower = r.out;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
        EXPECT_NE(lower.find("usage: vmcap " + c), std::string::npos) << c;
    }
    const CmdResult none = run_cli("");
    EXPECT_EQ(none.code, 2);
    EXPECT_EQ(none.err, help.out);
    EXPECT_TRUE(none.out.empty());
    const CmdResult unknown = run_cli("frobnicate --help");
    EXPECT_EQ(unknown.code, 2);
    EXPECT_EQ(unknown.err, "vmcap: unknown command 'frobnicate' (see vmcap --help)\n");
    EXPECT_TRUE(unknown.out.empty());
}

TEST(Cli, PlanThenValidateOnGeneratedCluster) {
    test::RandomCluster rc;
    rc.hosts = 20;
    rc.max_migrations = 10;
    rc.fill = 0.75;
    const Problem p = test::make_random_problem(rc);
    const std::string cluster = tmp("c.json").string(), plan = tmp("plan.json").string();
    write_file_atomic(cluster, format_json_lines(snapshot_to_json(p)));
    fs::remove(plan);
    CmdResult r = run_cli("plan --cluster " + cluster + " --out " + plan + " --max-evaluations 100000 --quiet --seed 3");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("objective"), std::string::npos);
    const auto doc = nlohmann::json::parse(read_text_file(plan));
    EXPECT_LE(doc["migrations"].get<int>(), 10);
    EXPECT_GE(doc["objective_after"].get<double>(), doc["objective_before"].get<double>());
    r = run_cli("validate --cluster " + cluster + " --plan " + plan);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("plan OK"), std::string::npos);

    // Same seed, same plan.
    const std::string plan2 = tmp("plan2.json").string();
    r = run_cli("plan --cluster " + cluster + " --out " + plan2 + " --max-evaluations 100000 --quiet --seed 3");
    ASSERT_EQ(r.code, 0);
    auto a = nlohmann::json::parse(read_text_file(plan)), b = nlohmann::json::parse(read_text_file(plan2));
    EXPECT_EQ(a["steps"], b["steps"]);

    // Tampered plan: validate names the step and exits 3.
    if (!a["steps"].empty()) {
        a["steps"][0]["from_host"] = a["steps"][0]["to_host"];
        std::ofstream(plan2) << a.dump();
        r = run_cli("validate --cluster " + cluster + " --plan " + plan2);
        EXPECT_EQ(r.code, 3);
        EXPECT_NE(r.err.find("steps[0]"), std::string::npos) << r.err;
    }
}

// --parallel: host regions by default at two threads (the plan says so and validates), chains on
// request, a bad value refused with exit 2 and nothing written.
// Budget 30: at 12 the node-subset bound proves greedy's plan optimal and the search never starts.
TEST(Cli, PlanParallelRegionsAndChains) {
    test::RandomCluster rc;
    rc.hosts = 40;
    rc.max_migrations = 30;
    rc.fill = 0.75;
    const Problem p = test::make_random_problem(rc);
    const std::string cluster = tmp("par.json").string(), plan = tmp("par-plan.json").string();
    write_file_atomic(cluster, format_json_lines(snapshot_to_json(p)));
    for (const std::string kind : {"regions", "chains"}) {
        SCOPED_TRACE(kind);
        fs::remove(plan);
        const std::string extra = kind == "chains" ? " --parallel chains" : "";
        CmdResult r = run_cli("plan --cluster " + cluster + " --out " + plan + " --threads 2 --max-evaluations 200000 --seed 2" + extra);
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.out.find(kind == "regions" ? "2 thread(s) (host regions)" : "2 thread(s) (chains)"), std::string::npos) << r.out;
        const auto doc = nlohmann::json::parse(read_text_file(plan));
        EXPECT_EQ(doc["search"]["parallel"], kind);
        EXPECT_EQ(doc["search"].contains("regions"), kind == "regions");
        const auto& conv = doc["search"]["convergence"];
        ASSERT_GE(conv.size(), 2u);
        EXPECT_EQ(conv.back()[2].get<double>(), doc["search"]["best_state_objective"].get<double>());
        r = run_cli("validate --cluster " + cluster + " --plan " + plan);
        EXPECT_EQ(r.code, 0) << r.err;
    }
    fs::remove(plan);
    const CmdResult bad = run_cli("plan --cluster " + cluster + " --out " + plan + " --threads 2 --parallel islands");
    EXPECT_EQ(bad.code, 2);
    EXPECT_NE(bad.err.find("--parallel must be regions or chains"), std::string::npos) << bad.err;
    EXPECT_FALSE(fs::exists(plan));
}

// When the bound proves the start plan optimal no search phase runs: the plan does not name a
// parallel search that never ran (it said "chains" before).
TEST(Cli, PlanProvenAtStartNamesNoParallelSearch) {
    test::RandomCluster rc;
    rc.hosts = 40;
    rc.max_migrations = 12;
    rc.fill = 0.75;
    const Problem p = test::make_random_problem(rc);
    const std::string cluster = tmp("par12.json").string(), plan = tmp("par12-plan.json").string();
    write_file_atomic(cluster, format_json_lines(snapshot_to_json(p)));
    fs::remove(plan);
    const CmdResult r = run_cli("plan --cluster " + cluster + " --out " + plan + " --threads 2 --max-evaluations 200000 --seed 2");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto doc = nlohmann::json::parse(read_text_file(plan));
    ASSERT_EQ(doc["search"]["stopped_by"], "proven optimal") << "the case needs a start plan the bound proves optimal";
    EXPECT_FALSE(doc["search"].contains("parallel"));
    EXPECT_FALSE(doc["search"].contains("regions"));
    EXPECT_EQ(r.out.find("(chains)"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("(host regions)"), std::string::npos) << r.out;
}

TEST(Cli, BadSnapshotExits2AndWritesNothing) {
    const std::string cluster = tmp("broken.json").string(), plan = tmp("never.json").string();
    std::ofstream(cluster) << R"({"host_types": [], "hosts": [], "flavors": [], "vms": [{"id": 1}]})";
    fs::remove(plan);
    const CmdResult r = run_cli("plan --cluster " + cluster + " --out " + plan + " --quiet");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find(cluster + ": "), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(plan));
}

// No command writes over its own input or writes two outputs onto one file, however the path is
// spelled: a symbolic link, a hard link, "d/../x", "d//x", a dangling link to the other output.
// Each refusal: exit 2, one line naming both options, the inputs byte for byte as they were,
// nothing new in the directory.
TEST(Cli, NoCommandWritesOverItsInput) {
    const fs::path dir = tmp("out-is-input");
    fs::remove_all(dir);
    fs::create_directories(dir / "sub");
    const std::string d = dir.string(), c = d + "/c.json", p = d + "/p.json", r = d + "/r.json";
    fs::copy_file(VMCAP_SOURCE_DIR "/tests/bad_inputs/valid_snapshot.json", c);
    fs::copy_file(VMCAP_SOURCE_DIR "/tests/bad_inputs/valid_plan.json", p);
    fs::copy_file(VMCAP_SOURCE_DIR "/tests/bad_inputs/place_ok.json", r);
    fs::create_symlink("c.json", d + "/link-c.json");
    fs::create_hard_link(p, d + "/hard-p.json");
    fs::create_symlink("x.json", d + "/dangling.json");  // x.json does not exist
    auto listing = [&] {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    };
    const std::vector<std::string> before = listing();
    const std::string c_text = read_text_file(c), p_text = read_text_file(p), r_text = read_text_file(r);
    const struct {
        std::string args, first, second;
    } cases[] = {
        {"plan --cluster " + c + " --quiet --out " + d + "/link-c.json", "--out", "--cluster"},
        {"exact --cluster " + c + " --out " + d + "/sub/../c.json", "--out", "--cluster"},
        {"export --plan " + p + " --cluster " + c + " --format csv --out " + d + "/hard-p.json", "--out", "--plan"},
        {"report --plan " + p + " --cluster " + c + " --out " + d + "//c.json", "--out", "--cluster"},
        {"place --cluster " + c + " --requests " + r + " --out " + d + "/./r.json", "--out", "--requests"},
        {"place --cluster " + c + " --requests " + r + " --out " + d + "/dangling.json --log " + d + "/x.json", "--out", "--log"},
        {"import openstack --hypervisors " VMCAP_SOURCE_DIR "/tests/openstack/hypervisors.json --servers " + r +
             " --flavors " VMCAP_SOURCE_DIR "/tests/openstack/flavors.json --out " + d + "/sub/../r.json",
         "--out", "--servers"},
    };
    for (const auto& k : cases) {
        const CmdResult res = run_cli(k.args);
        EXPECT_EQ(res.code, 2) << k.args << "\n" << res.err;
        EXPECT_EQ(std::count(res.err.begin(), res.err.end(), '\n'), 1) << res.err;
        EXPECT_NE(res.err.find(k.first), std::string::npos) << res.err;
        EXPECT_NE(res.err.find(k.second), std::string::npos) << res.err;
        EXPECT_TRUE(res.out.empty()) << res.out;
    }
    EXPECT_EQ(read_text_file(c), c_text);
    EXPECT_EQ(read_text_file(p), p_text);
    EXPECT_EQ(read_text_file(r), r_text);
    EXPECT_EQ(listing(), before) << "nothing written";
}

}  // namespace
}  // namespace vmcap

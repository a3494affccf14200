// constraints.remap_counts_as_migration = false ("free remaps"): a move to other pNUMA nodes of
// the VM's own host does not use the budget, in the search state, the plan, the independent plan
// validation and the JSON round trip; the exact solvers refuse the option (not modelled).
#include <gtest/gtest.h>

#include "instances/snapshot_io.h"
#include "moves/migrate.h"
#include "moves/remap.h"
#include "optimizer/search/annealing.h"
#include "optimizer/solvers/exact_bb.h"
#include "optimizer/search/greedy.h"
#include "optimizer/plan/plan.h"
#include "optimizer/plan/validate.h"
#include "tests/cli_run.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

Problem cluster(bool remap_counts, std::int64_t budget, std::uint64_t seed = 77) {
    test::RandomCluster rc;
    rc.host_topology = "CQ3";
    rc.hosts = 10;
    rc.seed = seed;
    rc.max_migrations = budget;
    Problem p = test::make_random_problem(rc);
    p.constraints.remap_counts_as_migration = remap_counts;
    return p;
}

TEST(FreeRemaps, JsonRoundTripAndTypeCheck) {
    Problem p = cluster(false, 3);
    const std::string text = format_json_lines(snapshot_to_json(p));
    EXPECT_NE(text.find("\"remap_counts_as_migration\":false"), std::string::npos) << text.substr(text.find("constraints"));
    EXPECT_FALSE(parse_snapshot(nlohmann::json::parse(text), "x.json").constraints.remap_counts_as_migration);
    p.constraints.remap_counts_as_migration = true;  // the default is not written
    const std::string dflt = format_json_lines(snapshot_to_json(p));
    EXPECT_EQ(dflt.find("remap_counts_as_migration"), std::string::npos);
    EXPECT_TRUE(parse_snapshot(nlohmann::json::parse(dflt), "x.json").constraints.remap_counts_as_migration);
    std::string bad = text;
    bad.replace(bad.find("false", bad.find("remap_counts_as_migration")), 5, "0");
    try {
        parse_snapshot(nlohmann::json::parse(bad), "x.json");
        FAIL() << "accepted a non-boolean";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("constraints.remap_counts_as_migration"), std::string::npos) << e.what();
    }
}

TEST(FreeRemaps, RemapUsesNoBudgetOnlyWhenFree) {
    for (bool counts : {true, false}) {
        const Problem p = cluster(counts, 1000);
        const CapacityModel m(p);
        SearchState s(m);
        int remapped = 0;
        for (std::size_t v = 0; v < p.vms.size() && remapped < 5; ++v) {
            const RemapMove mv{static_cast<int>(v)};
            const RemapDelta d = mv.evaluate(s);
            if (!d.feasible) continue;
            mv.apply(s, d);
            ASSERT_EQ(s.host_of(static_cast<int>(v)), p.vms[v].host);
            ++remapped;
        }
        ASSERT_GE(remapped, 3);
        EXPECT_EQ(s.migrations(), counts ? remapped : 0) << "remap counts: " << counts;
        s.check_consistency();
    }
}

TEST(FreeRemaps, PlanBuilderAndValidationCountOnlyHostChanges) {
    // Three non-worsening remaps (same host, other nodes) under a budget of 1: the plan builder
    // keeps them all under free remaps, and the independent validation accepts the same steps
    // only when remaps are free.
    const Problem p = cluster(false, 1);
    const CapacityModel m(p);
    SearchState s(m);
    std::vector<Placement> target;
    nlohmann::json steps = nlohmann::json::array();
    for (std::size_t v = 0; v < p.vms.size() && target.size() < 3; ++v) {
        const RemapMove mv{static_cast<int>(v)};
        const RemapDelta d = mv.evaluate(s);
        if (!d.feasible || d.delta < 0) continue;
        mv.apply(s, d);
        const int k = p.flavors[p.vms[v].flavor].num_vnuma();
        nlohmann::json from = nlohmann::json::array(), to = nlohmann::json::array();
        for (int i = 0; i < k; ++i) {
            from.push_back(p.vms[v].pnuma[i] + 1);
            to.push_back(s.pnuma_of(static_cast<int>(v))[i] + 1);
        }
        steps.push_back({{"vm", p.vms[v].id},
                         {"from_host", p.hosts[p.vms[v].host].id},
                         {"from_pnuma", from},
                         {"to_host", p.hosts[p.vms[v].host].id},
                         {"to_pnuma", to}});
        Placement pl;
        pl.vm = static_cast<int>(v);
        pl.host = p.vms[v].host;
        std::copy_n(s.pnuma_of(static_cast<int>(v)), kMaxVNuma, pl.pnuma.begin());
        target.push_back(pl);
    }
    ASSERT_EQ(steps.size(), 3u) << "fewer than 3 non-worsening remaps on this cluster";
    EXPECT_EQ(s.migrations(), 0);
    const Plan plan = build_plan(m, target);
    EXPECT_EQ(plan.migrations, 0);
    EXPECT_EQ(plan.dropped, 0);
    const nlohmann::json doc = {{"format", "vmcap-plan/1"}, {"steps", steps}};
    const PlanCheck free_check = validate_plan(m, doc, "plan.json");
    EXPECT_TRUE(free_check.ok) << free_check.error;
    const Problem counted = cluster(true, 1);
    const CapacityModel mc(counted);
    const PlanCheck c = validate_plan(mc, doc, "plan.json");
    EXPECT_FALSE(c.ok);
    EXPECT_NE(c.error.find("migration budget"), std::string::npos) << c.error;
}

TEST(FreeRemaps, ExactSolversRefuseThem) {
    const Problem p = cluster(false, 2);
    const CapacityModel m(p);
    EXPECT_THROW(solve_exact_bb(m, BranchBoundParams{}), std::invalid_argument);
    const std::string path = (test::tmp_dir() / "free.json").string(), out = (test::tmp_dir() / "free-plan.json").string();
    write_file_atomic(path, format_json_lines(snapshot_to_json(p)));
    const test::CmdResult r = test::run_vmcap("exact --cluster " + path + " --out " + out);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("remap_counts_as_migration"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace vmcap

namespace vmcap {
namespace {

// With free remaps the annealing's best state on the bundled example cannot be ordered within the
// budget (measured: 39 moves dropped); vmcap plan then writes the greedy plan, so the plan is
// never worse than greedy's, and validate --free-remaps accepts it.
TEST(FreeRemapsCli, PlanIsNeverWorseThanGreedyAndValidates) {
    const std::string sa = (test::tmp_dir() / "fr-sa.json").string(), gr = (test::tmp_dir() / "fr-greedy.json").string();
    test::CmdResult r = test::run_vmcap("plan --free-remaps --quiet --out " + sa);
    ASSERT_EQ(r.code, 0) << r.err;
    r = test::run_vmcap("plan --free-remaps --algorithm greedy --quiet --out " + gr);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto a = nlohmann::json::parse(read_text_file(sa)), g = nlohmann::json::parse(read_text_file(gr));
    EXPECT_GE(a["objective_after"].get<double>(), g["objective_after"].get<double>());
    r = test::run_vmcap("validate --free-remaps --plan " + sa);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
}

// A plan made with --free-remaps records it (budget.remap_counts_as_migration false), so validate
// and export count remaps as the plan did without the flag given again. The record only changes
// what a remap costs: on a snapshot that forbids remaps, the same plan is still refused.
TEST(FreeRemapsCli, PlanRecordsFreeRemapsForValidateAndExport) {
    const std::string dir = (test::tmp_dir() / "fr-record").string();
    std::filesystem::create_directories(dir);
    const std::string snap = dir + "/snap.json", plan = dir + "/plan.json";
    ASSERT_EQ(test::run_vmcap("generate --hosts 12 --vms 60 --seed 3 --out " + snap).code, 0);
    test::CmdResult r = test::run_vmcap("plan --cluster " + snap + " --free-remaps --quiet --max-evaluations 100000 --out " + plan);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto doc = nlohmann::json::parse(read_text_file(plan));
    ASSERT_TRUE(doc["budget"].contains("remap_counts_as_migration"));
    EXPECT_EQ(doc["budget"]["remap_counts_as_migration"], false);
    std::size_t remaps = 0;
    for (const auto& st : doc["steps"]) remaps += st["from_host"] == st["to_host"] ? 1 : 0;
    ASSERT_GT(remaps, 0U) << "no remap in the plan: the record is not exercised";
    EXPECT_EQ(doc["migrations"].get<std::size_t>() + remaps, doc["steps"].size());
    r = test::run_vmcap("validate --cluster " + snap + " --plan " + plan);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    for (const char* format : {"csv", "json"}) {
        r = test::run_vmcap("export --cluster " + snap + " --plan " + plan + " --format " + format + " --out " + dir + "/out." + format);
        EXPECT_EQ(r.code, 0) << r.err;
    }
    // The snapshot forbids remaps: free or not, they stay forbidden.
    auto forbid = nlohmann::json::parse(read_text_file(snap));
    forbid["constraints"]["remaps_allowed"] = false;
    write_file_atomic(dir + "/forbid.json", forbid.dump());
    r = test::run_vmcap("validate --cluster " + dir + "/forbid.json --plan " + plan);
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_NE(r.err.find("a remap, but remaps are not allowed"), std::string::npos) << r.err;
    // A record of another type is bad input.
    auto bad = doc;
    bad["budget"]["remap_counts_as_migration"] = "no";
    write_file_atomic(dir + "/bad.json", bad.dump());
    r = test::run_vmcap("validate --cluster " + snap + " --plan " + dir + "/bad.json");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("bad.json: budget.remap_counts_as_migration: expected true or false"), std::string::npos) << r.err;
}

// The state's snapshot-relative description keeps free remaps: before, displaced_placements()
// listed only budget-counting VMs, so restoring a state (a worker adopting the best one at a
// synchronisation point) put remapped VMs back on nodes others had taken ("set_placements: the
// placement overloads a pNUMA node", exit 1 with 2 threads), and plans never contained remaps.
TEST(FreeRemaps, DisplacedPlacementsRestoreTheStateExactly) {
    const Problem p = cluster(false, 1000, 5);
    const CapacityModel m(p);
    SearchState s(m);
    int remaps = 0, migrations = 0;
    for (int vm = 0; vm < static_cast<int>(p.vms.size()) && remaps < 25; ++vm) {
        const RemapDelta d = RemapMove{vm}.evaluate(s);
        if (!d.feasible) continue;
        RemapMove{vm}.apply(s, d);
        ++remaps;
    }
    for (int vm = 0; vm < static_cast<int>(p.vms.size()) && migrations < 5; vm += 7) {
        const MigrateDelta d = MigrateMove{vm, (s.host_of(vm) + 1) % static_cast<int>(p.hosts.size())}.evaluate(s);
        if (!d.feasible) continue;
        MigrateMove{vm, (s.host_of(vm) + 1) % static_cast<int>(p.hosts.size())}.apply(s, d);
        ++migrations;
    }
    ASSERT_GT(remaps, 10);
    ASSERT_GT(migrations, 0);
    ASSERT_GT(s.displaced_vms().size(), static_cast<std::size_t>(s.migrations()));  // remaps are displaced, not migrated
    SearchState t(m);
    ASSERT_NO_THROW(t.set_placements(s.displaced_placements()));
    EXPECT_EQ(t.objective(), s.objective());
    EXPECT_EQ(t.migrations(), s.migrations());
    for (int vm = 0; vm < static_cast<int>(p.vms.size()); ++vm) {
        ASSERT_EQ(t.host_of(vm), s.host_of(vm));
        ASSERT_EQ(t.mask_of(vm), s.mask_of(vm));
    }
    ASSERT_NO_THROW(t.check_consistency());
    // And back to the snapshot.
    ASSERT_NO_THROW(t.set_placements({}));
    EXPECT_EQ(t.objective(), SearchState(m).objective());
    EXPECT_TRUE(t.displaced_vms().empty());
}

// The parallel free-remap path (it once wrote invalid plans): 2 threads, sa and tabu, seeds 1-3 on the
// bundled example. Each run exits 0, its plan validates, and it is never below the greedy plan.
// One test per algorithm (CTest runs them side by side): under the sanitizers the seven runs of
// one test were the longest test of their stages (98 s under ASan, 148 s under TSan, 2026-12-02).
class FreeRemapsParallel : public ::testing::TestWithParam<const char*> {};

TEST_P(FreeRemapsParallel, SearchOnTheBundledExampleWritesValidPlans) {
    const char* algorithm = GetParam();
    const std::string g_out = (test::tmp_dir() / (std::string("g-") + algorithm + ".json")).string();
    const auto g = test::run_vmcap("plan --quiet --free-remaps --algorithm greedy --out " + g_out);
    ASSERT_EQ(g.code, 0) << g.err;
    const double greedy = nlohmann::json::parse(read_text_file(g_out))["objective_after"].get<double>();
    for (int seed = 1; seed <= 3; ++seed) {
        const std::string out = (test::tmp_dir() / ("fr-" + std::string(algorithm) + std::to_string(seed) + ".json")).string();
        const std::string args = std::string("plan --quiet --free-remaps --threads 2 --max-evaluations 300000 --algorithm ") + algorithm +
                                 " --seed " + std::to_string(seed) + " --out " + out;
        SCOPED_TRACE(args);
        const auto r = test::run_vmcap(args);
        ASSERT_EQ(r.code, 0) << r.err;
        const auto v = test::run_vmcap("validate --free-remaps --plan " + out);
        EXPECT_EQ(v.code, 0) << v.err;
        const auto doc = nlohmann::json::parse(read_text_file(out));
        EXPECT_GE(doc["objective_after"].get<double>(), greedy);
    }
}

INSTANTIATE_TEST_SUITE_P(FreeRemaps, FreeRemapsParallel, ::testing::Values("sa", "tabu"),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

}  // namespace
}  // namespace vmcap

// Golden trajectories: `vmcap plan` at seed 1 with a fixed evaluation budget, on the bundled example
// and on one generated medium snapshot, for every search driver and 1 and 2 threads. The exact
// objective_after and a hash of the plan's steps are pinned, so a refactor that changes what the
// search does is noticed (HGS-CVRP's fixed-seed golden runs). Which changes may move these values,
// and what such a change must show, is stated in README.md ("Golden plans").
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli_run.h"

namespace vmcap {
namespace {

using test::run_vmcap;
using test::tmp_dir;

/** FNV-1a (64-bit) over one line per step: "vm|from_host|to_host|to_pnuma,..|t-if-temporary". */
std::string plan_hash(const nlohmann::json& plan) {
    std::uint64_t x = 0xcbf29ce484222325ULL;
    for (const auto& s : plan.at("steps")) {
        std::string line =
            s.at("vm").get<std::string>() + "|" + s.at("from_host").get<std::string>() + "|" + s.at("to_host").get<std::string>() + "|";
        bool first = true;
        for (const auto& n : s.at("to_pnuma")) {
            if (!first) line += ",";
            line += std::to_string(n.get<int>());
            first = false;
        }
        line += "|";
        if (s.value("temporary", false)) line += "t";
        line += "\n";
        for (unsigned char c : line) {
            x ^= c;
            x *= 0x100000001b3ULL;
        }
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x));
    return buf;
}

struct Golden {
    const char* cluster;    ///< "" = the bundled example; "medium" = the generated snapshot below
    const char* algorithm;  ///< sa, tabu, greedy
    int threads;
    std::int64_t evaluations;
    double objective_after;
    std::size_t steps;
    const char* hash;
    /** The search's stop reason; nullptr: its budget ("budget spent" for greedy, else "evaluation
     *  budget"). "proven optimal" where the bound meets the plan before the budget is spent. */
    const char* stopped_by = nullptr;
};

std::string medium_snapshot() {
    const std::string path = (tmp_dir() / "golden-medium.json").string();
    static bool made = false;
    if (!made) {
        const auto r = run_vmcap("generate --hosts 200 --vms 2400 --seed 11 --budget-fraction 0.03 --out " + path);
        EXPECT_EQ(r.code, 0) << r.err;
        made = true;
    }
    return path;
}

class GoldenPlan : public ::testing::TestWithParam<Golden> {};

TEST_P(GoldenPlan, ObjectiveAndPlanHashPinned) {
    const Golden& g = GetParam();
    std::string args = "plan --quiet --seed 1 --algorithm " + std::string(g.algorithm) + " --threads " + std::to_string(g.threads);
    if (g.evaluations > 0) args += " --max-evaluations " + std::to_string(g.evaluations);
    if (std::string(g.cluster) == "medium") args += " --cluster " + medium_snapshot();
    const std::string out = (tmp_dir() / ("golden-" + std::string(g.cluster) + g.algorithm + std::to_string(g.threads) + ".json")).string();
    const auto r = run_vmcap(args + " --out " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto plan = nlohmann::json::parse(read_text_file(out));
    SCOPED_TRACE("vmcap " + args);
    EXPECT_EQ(plan.at("objective_after").get<double>(), g.objective_after);
    EXPECT_EQ(plan.at("steps").size(), g.steps);
    EXPECT_EQ(plan_hash(plan), g.hash);
    EXPECT_EQ(plan.at("search").at("stopped_by").get<std::string>(), g.stopped_by                           ? g.stopped_by
                                                                     : g.algorithm == std::string("greedy") ? "budget spent"
                                                                                                            : "evaluation budget");
}

// Values measured at commit bc8128b (before the engine was opened to new moves, filters and
// terms); sa at 2 threads re-pinned when host regions became the parallel annealing: bundled
// 126 -> 128, medium 1956 -> 1957 (both now equal to one thread's; before, both were greedy's plan).
// Re-pinned when the default move mix got remap=0.02 (the draws of every
// proposal change): bundled sa t2 128 -> 127, tabu t2 128 -> 126, medium sa t1/t2 1957 -> 1956,
// tabu t2 1957 -> 1956 (greedy unchanged). Seeds 2-6 of these short runs spread as much either way
// (docs/performance.md, "Quality"); the quality suite and the medium table at the default run
// length did not lose. Hashes re-pinned when plans got waves: the steps are written in
// wave order, so the order changed; objectives, step counts and the search are unchanged.
// bundled sa t1 stops as "proven optimal" since the node-subset bound (bundled example at budget 70:
// 144 -> 128, its plan's objective); its objective, steps and hash are unchanged.
// Re-pinned when annealing and tabu also ran greedy with room steps (OptimizeParams::room_steps)
// and kept its state where it is strictly above theirs: it reaches the bound, 128, on the bundled
// example (sa t2 127 -> 128, tabu t1 127 -> 128, tabu t2 126 -> 128, with its plan; sa t1's own
// 128 is kept, unchanged) and 1,957 on the medium snapshot (sa t1/t2 and tabu t2 1956 -> 1957;
// tabu t1's own 1957 is kept, unchanged). Greedy (the baseline) is unchanged. Quality tables
// before and after: docs/performance.md, "Room steps".
INSTANTIATE_TEST_SUITE_P(Pinned, GoldenPlan,
                         ::testing::Values(Golden{"", "greedy", 1, 0, 126, 70, "8520f5537ccb07cb"},
                                           Golden{"", "sa", 1, 1000000, 128, 70, "b9e2f8b376e6ed7d", "proven optimal"},
                                           Golden{"", "sa", 2, 1000000, 128, 70, "2d0e82ece75768e5"},
                                           Golden{"", "tabu", 1, 1000000, 128, 70, "2d0e82ece75768e5"},
                                           Golden{"", "tabu", 2, 1000000, 128, 70, "2d0e82ece75768e5"},
                                           Golden{"medium", "greedy", 1, 0, 1956, 72, "b56c64a04472185c"},
                                           Golden{"medium", "sa", 1, 2000000, 1957, 72, "e8c13c9cdbe1f1f9"},
                                           Golden{"medium", "sa", 2, 2000000, 1957, 72, "e8c13c9cdbe1f1f9"},
                                           Golden{"medium", "tabu", 1, 2000000, 1957, 72, "07af31bac8311732"},
                                           Golden{"medium", "tabu", 2, 2000000, 1957, 72, "e8c13c9cdbe1f1f9"}),
                         [](const ::testing::TestParamInfo<Golden>& i) {
                             return std::string(i.param.cluster[0] ? i.param.cluster : "bundled") + "_" + i.param.algorithm + "_t" +
                                    std::to_string(i.param.threads);
                         });

}  // namespace
}  // namespace vmcap

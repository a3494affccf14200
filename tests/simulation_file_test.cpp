// The vmcap-simulation/1 file (cli/simulation_file.h): what `vmcap simulate --out-json` writes is
// read and written again to the same bytes (a simulation run here on a synthetic trace, and the
// binary's own file on the Azure trace when the data directory is there); every field, mistyped,
// is refused with its JSON path, every required one missing too, and every optional one may be
// absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/simulation_file.h"
#include "instances/snapshot_io.h"
#include "instances/trace.h"
#include "optimizer/solvers/simulate.h"
#include "tests/cli_run.h"

using namespace vmcap;
using namespace vmcap::cli;
using oj = nlohmann::ordered_json;

namespace {

/** 1,000 VMs over two days, one- and multi-NUMA flavors (the nightly search's targets), a fifth
 *  of them never departing. */
std::vector<TraceVm> small_trace() {
    const char* names[] = {"2c4g", "4c16g", "8c32g", "16c64g", "32c128g"};
    const Amount vcpu[] = {2, 4, 8, 16, 32}, ram_gib[] = {4, 16, 32, 64, 128};
    const double share[] = {0.45, 0.25, 0.15, 0.1, 0.05};
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<TraceVm> trace;
    for (int i = 0; i < 1000; ++i) {
        TraceVm vm;
        vm.arrival_s = u(rng) * 2 * 86400.0;
        int k = 0;
        for (double x = u(rng); k < 4 && x >= share[k]; ++k) x -= share[k];
        vm.vcpu = vcpu[k];
        vm.ram_mib = ram_gib[k] * 1024;
        vm.flavor_name = names[k];
        vm.departure_s = u(rng) < 0.2 ? std::numeric_limits<double>::infinity() : vm.arrival_s - std::log(1.0 - u(rng)) * 86400.0;
        trace.push_back(vm);
    }
    std::sort(trace.begin(), trace.end(), [](const TraceVm& a, const TraceVm& b) { return a.arrival_s < b.arrival_s; });
    return trace;
}

/** The file of two configurations (none, greedy) simulated on small_trace, as vmcap simulate fills it. */
SimulationFile simulated_file() {
    SimulationFile f;
    f.trace = "synthetic";
    f.copies = 1;
    f.hosts = 20;
    f.host_type = "CQ3";
    f.placer = "best-fit";
    f.network = "";
    f.bpc = 0.0;
    f.span_s = 2 * 86400.0;
    f.defrag_at_s = 3 * 3600.0;
    f.defrag_every_s = 86400.0;
    f.defrag_budget = "2%";
    f.apply = "at-once";
    f.window_s = 0.0;
    f.reserve_plan = "on";
    f.seed = 1;
    f.seeds = 1;
    f.preset = "recommended";
    f.preset_options = {{"placer", "best-fit"}, {"defrag-budget", "2%"}};
    const std::vector<TraceVm> trace = small_trace();
    for (const char* defrag : {"none", "greedy"}) {
        SimulateOptions o;
        o.replay.host_type = uniform_host_type("CQ3", 16, 64 * 1024);
        o.replay.num_hosts = 20;
        o.replay.time_s = *f.span_s;
        o.defrag = defrag;
        o.budget_fraction = 0.02;
        SimulationRun run = simulation_run(simulate(trace, o));
        run.config = defrag;
        run.seed = 1;
        run.defrag = defrag;
        run.weights = o.replay.targets;
        run.defrag_budget = "2%";
        run.migrations_per_request = 0;
        f.runs.push_back(run);
        if (!f.summary) f.summary.emplace();
        f.summary->push_back({defrag, 1, 100.0 * *run.rejected_fraction, 0.0, static_cast<double>(*run.rejected_vcpu), 0.0,
                              static_cast<double>(run.migrations), 0.0, run.rejected_vcpu_hours, 0.0});
    }
    return f;
}

/** The message of simulation_from_json on `doc` as file "s.json" ("" when it reads). */
std::string refusal(const oj& doc) {
    try {
        simulation_from_json(doc, "s.json");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(SimulationFile, WriteReadWriteIsTheSameBytes) {
    const SimulationFile f = simulated_file();
    ASSERT_GT(f.runs[1].migrations, 0) << "the greedy nights should migrate (weights and plans in the file)";
    ASSERT_FALSE(f.runs[0].days.empty());
    const std::string text = simulation_file_text(f);
    const SimulationFile back = simulation_from_json(oj::parse(text), "s.json");
    EXPECT_TRUE(back == f);
    EXPECT_EQ(simulation_file_text(back), text);
    // The writer's fields, all of them: the optional ones are set.
    EXPECT_TRUE(back.runs[1].days.front().capacity_after && !back.runs[1].days.front().capacity_after->empty());
    EXPECT_NE(text.find("\"revenue_gain\""), std::string::npos);
}

TEST(SimulationFile, WhatVmcapSimulateWritesIsReadAndWrittenToTheSameBytes) {
    const std::filesystem::path data(VMCAP_SHARED_DATA_DIR);
    if (!std::filesystem::is_directory(data / "azure-v1-flavor-traces")) GTEST_SKIP() << "no data directory " << data;
    const std::string sim = (test::tmp_dir() / "simfile.json").string();
    const auto r = test::run_vmcap("simulate --trace azure-dev --data-dir " + data.string() +
                                   " --hosts 40 --days 2 --compare none,greedy --out-json " + sim);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string text = read_text_file(sim);
    const SimulationFile f = read_simulation_file(sim);
    ASSERT_EQ(f.runs.size(), 2u);
    EXPECT_EQ(simulation_file_text(f), text);
}

// Every field of a written file: a value of the wrong type (true is one for every field) is
// refused with the field's JSON path; a required field missing too; an optional one may be absent
// or null.
TEST(SimulationFile, RefusesEveryMistypedFieldWithItsPath) {
    const oj doc = simulation_to_json(simulated_file());
    ASSERT_EQ(refusal(doc), "");
    const std::set<std::string> required = {"format",
                                            "runs",
                                            "runs[0].config",
                                            "runs[0].arrivals",
                                            "runs[0].rejected",
                                            "runs[0].migrations",
                                            "runs[0].days",
                                            "runs[0].days[0].day",
                                            "runs[0].days[0].time_s",
                                            "runs[0].days[0].live_vms",
                                            "runs[0].days[0].used_vcpu_fraction",
                                            "runs[0].days[0].arrivals",
                                            "runs[0].days[0].rejected",
                                            "runs[0].days[0].migrations",
                                            "runs[0].days[0].objective_after",
                                            "summary[0].config",
                                            "summary[0].seeds",
                                            "summary[0].rejected_percent_mean",
                                            "summary[0].rejected_percent_sd",
                                            "summary[0].rejected_vcpu_mean",
                                            "summary[0].rejected_vcpu_sd",
                                            "summary[0].migrations_mean",
                                            "summary[0].migrations_sd"};
    const std::vector<std::pair<std::string, oj::json_pointer>> objects = {{"", oj::json_pointer("")},
                                                                           {"runs[0].", oj::json_pointer("/runs/0")},
                                                                           {"runs[0].days[0].", oj::json_pointer("/runs/0/days/0")},
                                                                           {"summary[0].", oj::json_pointer("/summary/0")}};
    int checked = 0;
    for (const auto& [prefix, at] : objects)
        for (const auto& [key, value] : doc.at(at).items()) {
            const std::string path = prefix + key;
            SCOPED_TRACE(path);
            oj bad = doc;
            bad[at][key] = true;
            EXPECT_EQ(refusal(bad).rfind("s.json: " + path + ": expected ", 0), 0u) << refusal(bad);
            oj absent = doc;
            absent[at].erase(key);
            if (required.contains(path))
                EXPECT_EQ(refusal(absent), "s.json: " + path + ": missing (a required field of vmcap-simulation/1)");
            else
                EXPECT_EQ(refusal(absent), "") << "an optional field may be absent";
            if (!required.contains(path)) {
                oj null = doc;
                null[at][key] = nullptr;
                EXPECT_EQ(refusal(null), "") << "null counts as absent";
            }
            ++checked;
        }
    EXPECT_EQ(checked, 21 + 27 + 20 + 10);  // every field of the header, a run, a day and a summary entry
    // Ranges, and the entries of the flavor maps and arrays.
    const std::vector<std::pair<std::function<void(oj&)>, std::string>> cases = {
        {[](oj& d) { d["runs"][1]["arrivals"] = -1; }, "runs[1].arrivals: expected an integer in 0..2^53"},
        {[](oj& d) { d["runs"][0]["rejected"] = 1.5; }, "runs[0].rejected: expected an integer >= 0"},
        {[](oj& d) { d["hosts"] = std::uint64_t{1} << 60; }, "hosts: expected an integer in 0..2^53"},
        {[](oj& d) { d["seed"] = -1; }, "seed: expected an unsigned 64-bit integer"},
        {[](oj& d) { d["runs"][0]["days"][1]["capacity_after"]["2c4g"] = 2.5; },
         "runs[0].days[1].capacity_after.2c4g: expected an integer >= 0"},
        {[](oj& d) { d["runs"][1]["days"][0]["weights"]["8c32g"] = "x"; }, "runs[1].days[0].weights.8c32g: expected a finite number"},
        {[](oj& d) { d["preset_options"]["placer"] = 1; }, "preset_options.placer: expected a string"},
        {[](oj& d) { d["runs"][1]["rejected_by_flavor"]["4c16g"] = -3; },
         "runs[1].rejected_by_flavor.4c16g: expected an integer in 0..2^53"},
        {[](oj& d) { d["runs"][1]["days"][1] = 3; }, "runs[1].days[1]: expected an object"},
        {[](oj& d) { d["summary"] = oj::object(); }, "summary: expected an array"},
        {[](oj& d) { d["format"] = "vmcap-plan/1"; }, "format: expected \"vmcap-simulation/1\", got \"vmcap-plan/1\""},
    };
    for (const auto& [edit, message] : cases) {
        oj bad = doc;
        edit(bad);
        EXPECT_EQ(refusal(bad), "s.json: " + message);
    }
    EXPECT_EQ(refusal(oj::array()), "s.json: expected a JSON object (vmcap-simulation/1, written by vmcap simulate --out-json)");
}

// `--preset NAME` (cli/presets.h): the preset fills the options the command line left at their
// defaults, an option given on the command line keeps its value wherever it stands (before or
// after --preset, equal to its default or not), `none` changes nothing, an unknown name is one
// line and exit 2; `vmcap simulate`, `place` and `plan` record the preset and the resolved values.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "cli/presets.h"
#include "cli/simulation_file.h"
#include "instances/snapshot_io.h"
#include "tests/cli_run.h"

using namespace vmcap;
using namespace vmcap::cli;
using namespace vmcap::cli::detail;
namespace po = boost::program_options;

namespace {

/** A command's options in miniature: defaults, one without a default, one that is a number. */
struct Mini {
    std::string placer, compare, mpr, daily;
    int evaluations = 0;
    po::options_description desc{"mini"};
    std::vector<Preset> presets = {
        {"none", {}},
        {"recommended",
         {{"placer", "vmcap-fit"}, {"compare", "sa"}, {"migrations-per-request", "2"}, {"daily-budget", "1%"}, {"evaluations", "500"}}}};
    std::vector<ResolvedOption> resolved;
    po::variables_map vm;
    Mini() {
        desc.add_options()("help", "help")("placer", po::value(&placer)->default_value("best-fit"), "placer")(
            "compare", po::value(&compare)->default_value("none,greedy"), "configurations")(
            "migrations-per-request", po::value(&mpr)->default_value("0"), "admission migrations")(
            "daily-budget", po::value(&daily), "daily budget")("evaluations", po::value(&evaluations)->default_value(0), "evaluations");
        add_preset_option(desc, presets);
    }
    void parse(const Args& args) { ASSERT_FALSE(parse_with_preset(args, desc, vm, "usage", presets, &resolved)); }
};

ResolvedOption find(const std::vector<ResolvedOption>& rs, const std::string& option) {
    for (const ResolvedOption& r : rs)
        if (r.option == option) return r;
    ADD_FAILURE() << option << " not resolved";
    return {};
}

}  // namespace

TEST(Presets, RecommendedFillsWhatTheCommandLineLeft) {
    Mini m;
    m.parse({"--preset", "recommended"});
    EXPECT_EQ(m.placer, "vmcap-fit");
    EXPECT_EQ(m.compare, "sa");
    EXPECT_EQ(m.mpr, "2");
    EXPECT_EQ(m.daily, "1%");
    EXPECT_EQ(m.evaluations, 500);
    EXPECT_EQ(m.vm.count("daily-budget"), 1u) << "an option without a default is given by the preset";
    ASSERT_EQ(m.resolved.size(), 5u);
    for (const ResolvedOption& r : m.resolved) EXPECT_FALSE(r.from_command_line) << r.option;
    EXPECT_EQ(resolved_text(m.resolved), "--placer vmcap-fit --compare sa --migrations-per-request 2 --daily-budget 1% --evaluations 500");
}

TEST(Presets, AnOptionOnTheCommandLineKeepsItsValueWhereverItStands) {
    {  // before the preset, the value the preset would replace
        Mini m;
        m.parse({"--migrations-per-request", "0", "--preset", "recommended"});
        EXPECT_EQ(m.mpr, "0");
        EXPECT_EQ(m.placer, "vmcap-fit");
        EXPECT_EQ(find(m.resolved, "migrations-per-request"), (ResolvedOption{"migrations-per-request", "0", true}));
        EXPECT_EQ(resolved_text(m.resolved),
                  "--placer vmcap-fit --compare sa --daily-budget 1% --evaluations 500; from the command line: --migrations-per-request 0");
    }
    {  // after it, equal to the option's own default (a comparison with the default would miss it)
        Mini m;
        m.parse({"--preset=recommended", "--placer=best-fit", "--evaluations", "0", "--daily-budget", "3"});
        EXPECT_EQ(m.placer, "best-fit");
        EXPECT_EQ(m.evaluations, 0);
        EXPECT_EQ(m.daily, "3");
        EXPECT_EQ(m.compare, "sa");
        EXPECT_EQ(find(m.resolved, "placer"), (ResolvedOption{"placer", "best-fit", true}));
        EXPECT_EQ(find(m.resolved, "evaluations"), (ResolvedOption{"evaluations", "0", true}));
        EXPECT_EQ(find(m.resolved, "compare"), (ResolvedOption{"compare", "sa", false}));
    }
}

TEST(Presets, AValueMayDependOnAnotherOptionInForce) {
    // PresetValue::when: the placer's value_when where --migrations-per-request in force (the
    // command line's, else the preset's) is not 0.
    const auto with = [](const std::string& mpr) {
        Mini m;
        m.presets[1].values[0] = PresetValue{"placer", "vmcap-fit", "migrations-per-request", "first-fit"};
        m.presets[1].values[2].value = mpr;
        return m;
    };
    {  // the preset's own 2
        Mini m = with("2");
        m.parse({"--preset", "recommended"});
        EXPECT_EQ(m.placer, "first-fit");
        EXPECT_EQ(find(m.resolved, "placer"), (ResolvedOption{"placer", "first-fit", false}));
    }
    {  // the preset's own 0, the command line's 1 (before or after --preset)
        for (const Args& args : {Args{"--preset", "recommended"}, Args{"--migrations-per-request", "1", "--preset", "recommended"},
                                 Args{"--preset", "recommended", "--migrations-per-request=1"}}) {
            Mini m = with("0");
            m.parse(args);
            EXPECT_EQ(m.placer, args.size() == 2 ? "vmcap-fit" : "first-fit");
        }
    }
    {  // the command line's 0 over the preset's 2; the command line's placer over either value
        Mini m = with("2");
        m.parse({"--preset", "recommended", "--migrations-per-request", "0"});
        EXPECT_EQ(m.placer, "vmcap-fit");
        Mini n = with("2");
        n.parse({"--preset", "recommended", "--placer", "best-fit"});
        EXPECT_EQ(n.placer, "best-fit");
        EXPECT_EQ(find(n.resolved, "placer"), (ResolvedOption{"placer", "best-fit", true}));
    }
}

TEST(Presets, NoneSetsNothing) {
    for (const Args& args : {Args{}, Args{"--preset", "none"}}) {
        Mini m;
        m.parse(args);
        EXPECT_EQ(m.placer, "best-fit");
        EXPECT_EQ(m.compare, "none,greedy");
        EXPECT_EQ(m.mpr, "0");
        EXPECT_EQ(m.vm.count("daily-budget"), 0u);
        EXPECT_TRUE(m.vm["placer"].defaulted());
        EXPECT_TRUE(m.resolved.empty());
    }
}

TEST(Presets, AnUnknownNameIsAUsageError) {
    Mini m;
    try {
        m.parse({"--preset", "fastest"});
        FAIL() << "no error";
    } catch (const UsageError& e) {
        EXPECT_STREQ(e.what(), "--preset: expected none or recommended, got 'fastest'");
    }
}

// The values of `recommended` (docs/cli.md "Presets" gives why): each names an option of its
// command, as that command's --help lists it.
TEST(Presets, RecommendedNamesEachCommandsOwnOptions) {
    const std::vector<PresetValue> simulate = command_presets("simulate").at(1).values;
    std::string text;
    for (const PresetValue& v : simulate) text += "--" + v.option + " " + v.value + " ";
    EXPECT_EQ(text,
              "--placer vmcap-rack-fit --placer-one-node on --compare sa --weights forecast --defrag-when both --forecast-room triggers "
              "--defrag-budget 0.5% "
              "--daily-budget 1% --migrations-per-request 0 --make-room-copies 0 --make-room-second copies ");
    for (const char* command : {"simulate", "place", "plan"}) {
        const std::vector<Preset> presets = command_presets(command);
        ASSERT_EQ(presets.size(), 2u) << command;
        EXPECT_EQ(presets[0].name, "none");
        EXPECT_TRUE(presets[0].values.empty());
        EXPECT_EQ(presets[1].name, "recommended");
        const test::CmdResult help = test::run_vmcap(std::string(command) + " --help");
        ASSERT_EQ(help.code, 0) << help.err;
        EXPECT_NE(help.out.find("--preset"), std::string::npos) << command;
        for (const PresetValue& v : presets[1].values)
            EXPECT_NE(help.out.find("--" + v.option + " "), std::string::npos) << command << " --" << v.option;
    }
    EXPECT_EQ(command_presets("place")[1].values.size(), 4u);
    EXPECT_EQ(command_presets("plan")[1].values.size(), 1u);
}

namespace {

/** `vmcap simulate` on the Azure dev split, 40 hosts, 2 days, with `extra`: exit code, stdout, and
 *  the --out-json file read with every run's seconds set to 0 (the one field that varies). */
struct SimRun {
    test::CmdResult r;
    SimulationFile file;
};
/** `vmcap simulate` on the Azure dev trace with `size` (hosts, days, evaluations) and `extra`,
 *  its --out-json read back with every run's seconds zeroed. */
SimRun simulate(const std::string& extra, const std::string& name, const std::string& size = "--hosts 40 --days 2 --evaluations 20000") {
    const std::filesystem::path data(VMCAP_SHARED_DATA_DIR);
    const std::string out = (test::tmp_dir() / name).string();
    SimRun s;
    s.r = test::run_vmcap("simulate --trace azure-dev --data-dir " + data.string() + " " + size + " --out-json " + out + " " + extra);
    if (s.r.code == 0) {
        s.file = read_simulation_file(out);
        for (SimulationRun& run : s.file.runs) run.seconds = 0.0;
    }
    return s;
}

/** stdout without the seconds column (the table's last field of each run line). */
std::string without_seconds(const std::string& out) {
    std::string s;
    std::size_t at = 0;
    while (at < out.size()) {
        std::size_t end = out.find('\n', at);
        if (end == std::string::npos) end = out.size();
        std::string line = out.substr(at, end - at);
        const std::size_t last = line.find_last_of(' ');
        if (last != std::string::npos && line.find_first_not_of("0123456789.", last + 1) == std::string::npos) line.resize(last);
        s += line + "\n";
        at = end + 1;
    }
    return s;
}

bool no_data() {
    return !std::filesystem::is_directory(std::filesystem::path(VMCAP_SHARED_DATA_DIR) / "azure-v1-flavor-traces");
}

}  // namespace

TEST(Presets, SimulateRecommendedIsItsOptionsSpelledOut) {
    if (no_data()) GTEST_SKIP() << "no data directory " << VMCAP_SHARED_DATA_DIR;
    const std::vector<PresetValue> values = command_presets("simulate").at(1).values;
    std::string spelled;
    for (const PresetValue& v : values) spelled += " --" + v.option + " " + v.value;
    const SimRun preset = simulate("--preset recommended", "preset.json");
    const SimRun explicit_options = simulate(spelled, "spelled.json");
    ASSERT_EQ(preset.r.code, 0) << preset.r.err;
    ASSERT_EQ(explicit_options.r.code, 0) << explicit_options.r.err;
    ASSERT_TRUE(preset.file.preset && preset.file.preset_options);
    EXPECT_EQ(*preset.file.preset, "recommended");
    std::vector<std::pair<std::string, std::string>> expected;
    for (const PresetValue& v : values) expected.emplace_back(v.option, v.value);
    EXPECT_EQ(*preset.file.preset_options, expected);
    EXPECT_EQ(preset.r.out.rfind("preset recommended:" + spelled + "\n", 0), 0u) << preset.r.out;
    // The header records the options in force, with or without the preset.
    EXPECT_EQ(preset.file.forecast_room, "triggers");
    EXPECT_EQ(preset.file.placer_one_node, "on");
    EXPECT_EQ(preset.file.defrag_when, "both");
    EXPECT_EQ(preset.file.daily_budget, "1%");
    EXPECT_EQ(preset.file.trigger_every_s, 3600.0);
    EXPECT_EQ(preset.file.forecast_horizon_s, 86400.0);
    EXPECT_EQ(preset.file.forecast_days, 3);
    EXPECT_EQ(preset.file.forecast_quantile, 1.0);
    EXPECT_EQ(preset.file.make_room_copies, 0);
    EXPECT_EQ(preset.file.make_room_second, "copies");
    EXPECT_EQ(preset.file.placer, "vmcap-rack-fit");
    EXPECT_EQ(preset.file.forecast_burst_s, 0.0);
    SimulationFile a = preset.file;
    a.preset.reset();
    a.preset_options.reset();
    EXPECT_TRUE(a == explicit_options.file) << "the preset runs what its options spelled out run";
    EXPECT_FALSE(explicit_options.file.preset);
}

TEST(Presets, SimulateRecommendedWithAdmissionMigrationsPlacesByVmcapFit) {
    // With --migrations-per-request other than 0 the preset's placer is vmcap-fit (docs/cli.md,
    // "Presets"): printed, recorded, and the run is the one its options spelled out run.
    if (no_data()) GTEST_SKIP() << "no data directory " << VMCAP_SHARED_DATA_DIR;
    const auto run = [](const std::string& extra, const std::string& name) {
        return simulate(extra, name, "--hosts 60 --days 0.5 --evaluations 2000");
    };
    const SimRun preset = run("--preset recommended --migrations-per-request 2", "preset-mpr.json");
    ASSERT_EQ(preset.r.code, 0) << preset.r.err;
    EXPECT_EQ(preset.r.out.rfind("preset recommended: --placer vmcap-fit --placer-one-node off --compare sa", 0), 0u) << preset.r.out;
    EXPECT_EQ(preset.file.placer, "vmcap-fit");
    EXPECT_EQ(preset.file.placer_one_node, "off");
    EXPECT_EQ(preset.file.make_room_second, "copies");
    const std::vector<PresetValue> values = command_presets("simulate").at(1).values;
    std::string spelled;
    for (const PresetValue& v : values)
        spelled += " --" + v.option + " " + (!v.when.empty() ? v.value_when : v.option == "migrations-per-request" ? "2" : v.value);
    const SimRun explicit_options = run(spelled, "spelled-mpr.json");
    ASSERT_EQ(explicit_options.r.code, 0) << explicit_options.r.err;
    ASSERT_FALSE(preset.file.runs.empty());
    EXPECT_GT(preset.file.runs[0].admission_migrations.value_or(0), 0) << "no admission migration: the comparison says little";
    SimulationFile a = preset.file;
    a.preset.reset();
    a.preset_options.reset();
    EXPECT_TRUE(a == explicit_options.file) << "the preset runs what its options spelled out run";
}

// `vmcap place` shares simulate's admission rule (issue 42 item 6): the same placer rule, by the
// same PresetValue::when, and the same make-room values, passed to the same MakeRoomSearch.
TEST(Presets, PlaceRecommendedIsSimulatesAdmissionRule) {
    const std::vector<PresetValue> place = command_presets("place").at(1).values;
    const std::vector<PresetValue> simulate = command_presets("simulate").at(1).values;
    for (const PresetValue& v : place) {
        bool found = false;
        for (const PresetValue& w : simulate)
            if (w.option == v.option) {
                found = true;
                EXPECT_EQ(v.value, w.value) << v.option;
                EXPECT_EQ(v.when, w.when) << v.option;
                EXPECT_EQ(v.value_when, w.value_when) << v.option;
            }
        EXPECT_TRUE(found) << v.option << " is not simulate's";
    }
}

TEST(Presets, PlaceRecommendedWithAdmissionMigrationsPlacesByVmcapFit) {
    // With --migrations-per-request other than 0 the preset's placer is vmcap-fit, as simulate's:
    // printed, and the run (--out, --log without the seconds) is the one its options spelled out
    // run. valid_snapshot.json (four K2 hosts, a small VM on node 1 of each), two whole-host VMs
    // (each admitted by one migration), a small one and a third whole-host VM (no room left for it:
    // 16 vCPU on the 4 x 16 after the 52 placed).
    const std::string req = (test::tmp_dir() / "preset-mpr-requests.json").string();
    write_file_atomic(req, R"({"requests": [{"id": "n1", "flavor": "big"}, {"id": "n2", "flavor": "big"}, {"id": "s1", "flavor": "small"},
                                            {"id": "n3", "flavor": "big"}]})");
    const std::string cluster = VMCAP_SOURCE_DIR "/tests/bad_inputs/valid_snapshot.json";
    struct PlaceRun {
        test::CmdResult r;
        std::string out, log;
    };
    const auto run = [&](const std::string& extra, const std::string& name) {
        const std::string out = (test::tmp_dir() / (name + ".json")).string(), log = (test::tmp_dir() / (name + ".jsonl")).string();
        PlaceRun p;
        p.r = test::run_vmcap("place --cluster " + cluster + " --requests " + req + " --out " + out + " --log " + log + " " + extra);
        if (p.r.code != 0) return p;
        p.out = read_text_file(out);
        std::istringstream in(read_text_file(log));
        for (std::string line; std::getline(in, line);) {
            nlohmann::json j = nlohmann::json::parse(line);
            j.erase("seconds");  // the one field that varies
            p.log += j.dump() + "\n";
        }
        return p;
    };
    const PlaceRun preset = run("--preset recommended --migrations-per-request 2", "place-preset-mpr");
    ASSERT_EQ(preset.r.code, 0) << preset.r.err;
    EXPECT_EQ(preset.r.out.rfind("preset recommended: --placer vmcap-fit --make-room-copies 0 --make-room-second copies; from the command "
                                 "line: --migrations-per-request 2\n",
                                 0),
              0u)
        << preset.r.out;
    EXPECT_NE(preset.r.out.find(" with vmcap-fit, "), std::string::npos) << preset.r.out;
    EXPECT_NE(preset.r.out.find("placed 3 of 4 requests offered"), std::string::npos) << preset.r.out;
    EXPECT_NE(preset.r.out.find("2 live migrations made room for 2 requests"), std::string::npos)
        << "no admission migration: the comparison says little\n"
        << preset.r.out;
    const std::vector<PresetValue> values = command_presets("place").at(1).values;  // a copy: the presets are a temporary
    std::string spelled;
    for (const PresetValue& v : values)
        spelled += " --" + v.option + " " + (v.option == "placer" ? v.value_when : v.option == "migrations-per-request" ? "2" : v.value);
    EXPECT_EQ(spelled, " --placer vmcap-fit --migrations-per-request 2 --make-room-copies 0 --make-room-second copies");
    const PlaceRun explicit_options = run(spelled, "place-spelled-mpr");
    ASSERT_EQ(explicit_options.r.code, 0) << explicit_options.r.err;
    EXPECT_EQ(preset.out, explicit_options.out) << "the preset runs what its options spelled out run";
    EXPECT_EQ(preset.log, explicit_options.log);
    // Without admission migrations the preset keeps vmcap-rack-fit.
    const PlaceRun none = run("--preset recommended", "place-preset-0");
    ASSERT_EQ(none.r.code, 0) << none.r.err;
    EXPECT_NE(none.r.out.find(" with vmcap-rack-fit, "), std::string::npos) << none.r.out;
}

TEST(Presets, SimulateCommandLineOverridesThePreset) {
    if (no_data()) GTEST_SKIP() << "no data directory " << VMCAP_SHARED_DATA_DIR;
    const SimRun s = simulate("--placer best-fit --preset recommended --defrag-budget 3", "override.json");
    ASSERT_EQ(s.r.code, 0) << s.r.err;
    EXPECT_EQ(s.file.placer, "best-fit");
    ASSERT_FALSE(s.file.runs.empty());
    EXPECT_EQ(s.file.runs[0].defrag_budget, "3");
    EXPECT_EQ(s.file.runs[0].config, "sa");
    ASSERT_TRUE(s.file.preset_options);
    for (const auto& [option, value] : *s.file.preset_options) {
        if (option == "placer") {
            EXPECT_EQ(value, "best-fit");
        }
        if (option == "defrag-budget") {
            EXPECT_EQ(value, "3");
        }
    }
    EXPECT_NE(s.r.out.find("; from the command line: --placer best-fit --defrag-budget 3\n"), std::string::npos) << s.r.out;
}

TEST(Presets, SimulatePresetNoneIsTheCommandWithoutIt) {
    if (no_data()) GTEST_SKIP() << "no data directory " << VMCAP_SHARED_DATA_DIR;
    const SimRun plain = simulate("--compare none,greedy", "plain.json");
    const SimRun none = simulate("--compare none,greedy --preset none", "none.json");
    ASSERT_EQ(plain.r.code, 0) << plain.r.err;
    ASSERT_EQ(none.r.code, 0) << none.r.err;
    EXPECT_TRUE(plain.file == none.file);
    EXPECT_FALSE(none.file.preset);
    EXPECT_EQ(without_seconds(plain.r.out), without_seconds(none.r.out));
    EXPECT_EQ(none.r.out.find("preset"), std::string::npos);
}

TEST(Presets, AnUnknownPresetIsOneLineAndExit2) {
    const std::string out = (test::tmp_dir() / "never.json").string();
    for (const std::string& command :
         {"simulate --trace azure-dev --hosts 40 --out-json " + out, std::string("place --cluster x --requests y"), "plan --out " + out}) {
        const test::CmdResult r = test::run_vmcap(command + " --preset fastest");
        EXPECT_EQ(r.code, 2) << command;
        EXPECT_EQ(r.out, "") << command;
        EXPECT_NE(r.err.find(": --preset: expected none or recommended, got 'fastest'"), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(std::filesystem::exists(out)) << command;
    }
}

TEST(Presets, PlaceAndPlanRecordTheResolvedValues) {
    const std::string req = (test::tmp_dir() / "preset-requests.json").string();
    write_file_atomic(req, R"({"requests": [{"id": "w1", "flavor": "big"}, {"id": "s1", "flavor": "small"}]})");
    const std::string cluster = VMCAP_SOURCE_DIR "/tests/bad_inputs/valid_snapshot.json";
    test::CmdResult r = test::run_vmcap("place --cluster " + cluster + " --requests " + req + " --preset recommended");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(
        r.out.rfind(
            "preset recommended: --placer vmcap-rack-fit --migrations-per-request 0 --make-room-copies 0 --make-room-second copies\n", 0),
        0u)
        << r.out;
    EXPECT_NE(r.out.find(" with vmcap-rack-fit, "), std::string::npos) << r.out;
    r = test::run_vmcap("place --cluster " + cluster + " --requests " + req + " --preset recommended --strategy first-fit");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("from the command line: --placer first-fit\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" with first-fit, "), std::string::npos) << r.out;

    const std::string plan = (test::tmp_dir() / "preset-plan.json").string();
    r = test::run_vmcap("plan --max-evaluations 2000 --max-migrations 5 --quiet --preset recommended --algorithm greedy --out " + plan);
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json doc = nlohmann::json::parse(read_text_file(plan));
    EXPECT_EQ(doc["preset"]["name"], "recommended");
    EXPECT_EQ(doc["preset"]["options"]["algorithm"], "greedy");
    EXPECT_NE(r.out.find("preset    recommended: from the command line: --algorithm greedy\n"), std::string::npos) << r.out;
    r = test::run_vmcap("validate --plan " + plan);
    EXPECT_EQ(r.code, 0) << r.err << r.out;
    r = test::run_vmcap("plan --max-evaluations 2000 --max-migrations 5 --quiet --out " + plan);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(nlohmann::json::parse(read_text_file(plan)).contains("preset"));
}

// `vmcap report`: the page is opened in headless Chromium (Debian's chromium,
// which scripts/test.sh installs): every chart must have rendered (the page's own count, set once
// vega-embed has drawn all of them, and one SVG of marks per chart in the DOM), and a screenshot
// must not be blank (scripts/png_stats.py: distinct colours and non-white pixels). The same for
// the page of a simulation (`vmcap report --simulation`, the JSON of `vmcap simulate --out-json`),
// and a malformed simulation file is refused (exit 2, one line naming the file and JSON path,
// nothing written).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <regex>
#include <sstream>
#include <vector>

#include "instances/snapshot_io.h"
#include "tests/cli_run.h"
#include "tests/fixtures.h"

using namespace vmcap;
using vmcap::test::run_vmcap;
using vmcap::test::tmp_dir;

namespace {

std::string shell(const std::string& cmd) {
    const std::string out = (tmp_dir() / "shell.out").string();
    const int rc = std::system((cmd + " >" + out + " 2>/dev/null").c_str());
    EXPECT_EQ(rc, 0) << cmd;
    return read_text_file(out);
}

int count(const std::string& text, const std::string& what) {
    int n = 0;
    for (std::size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
    return n;
}

/** Opens `page` in headless Chromium: every chart of `ids` drawn (the page's own count, no error,
 *  one SVG of marks each), and a 1100-pixel-wide screenshot `png` that is not blank. */
void expect_every_chart_drawn(const std::string& page, const std::string& png, const std::vector<std::string>& ids) {
    const std::string chrome = "timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=20000 ";
    const std::string dom = shell(chrome + "--dump-dom file://" + page);
    EXPECT_NE(dom.find("data-charts-rendered=\"" + std::to_string(ids.size()) + "\""), std::string::npos) << dom.substr(0, 400);
    EXPECT_EQ(dom.find("data-chart-error=\""), std::string::npos);  // the attribute, not the script that sets it
    EXPECT_EQ(count(dom, "class=\"marks\""), static_cast<int>(ids.size()));
    for (const std::string& id : ids) EXPECT_NE(dom.find("id=\"" + id + "\""), std::string::npos) << id;
    // Every chart, legends included, fits the 1100-pixel window beside the page's 24-pixel margins:
    // vega-embed sizes each chart's <svg> to its whole drawing (a wider one is clipped on the right).
    const std::regex svg_width("<svg[^>]*class=\"marks\"[^>]*width=\"([0-9.]+)\"");
    int svgs = 0;
    for (auto it = std::sregex_iterator(dom.begin(), dom.end(), svg_width); it != std::sregex_iterator(); ++it, ++svgs)
        EXPECT_LE(std::stod((*it)[1].str()), 1100.0 - 2 * 24) << "a chart wider than the window: " << it->str();
    EXPECT_EQ(svgs, static_cast<int>(ids.size())) << "every chart's <svg> has a width";
    shell(chrome + "--window-size=1100,2600 --screenshot=" + png + " file://" + page);
    std::istringstream stats(shell("python3 " VMCAP_SOURCE_DIR "/scripts/png_stats.py " + png));
    int w = 0, h = 0, colours = 0;
    double nonwhite = 0;
    stats >> w >> h >> colours >> nonwhite;
    EXPECT_EQ(w, 1100);
    EXPECT_GT(colours, 100) << "a blank or unstyled page";
    EXPECT_GT(nonwhite, 5.0);
}

/** A vmcap-simulation/1 document as `vmcap simulate --out-json` writes it: configurations none and
 *  greedy with seeds 1 and 2, four days each (the last closed at the end, without a night), with
 *  the one-pool reference, admission migrations, dropped steps (--apply waves), VDCs and revenue,
 *  and the summary per configuration; the last run lacks the optional "seconds" and one of its
 *  days "objective_before", the third the one-pool figures (seed 2's reference is then the
 *  fourth's), and the runs without defragmentation have no revenue gain (null). */
nlohmann::ordered_json simulation_doc() {
    using oj = nlohmann::ordered_json;
    oj runs = oj::array();
    for (int seed : {1, 2})
        for (const std::string config : {"none", "greedy"}) {
            const bool defrag = config == "greedy";
            oj days = oj::array();
            std::int64_t rejected = 0, migrations = 0;
            for (int d = 0; d < 4; ++d) {
                const std::int64_t rej = (defrag ? 5 : 12) * d + seed, mig = defrag && d < 3 ? 20 + 3 * d : 0;
                rejected += rej;
                migrations += mig;
                days.push_back({{"day", d},
                                {"time_s", 10800.0 + 86400.0 * d},
                                {"live_vms", 900 + 100 * d},
                                {"used_vcpu_fraction", 0.6 + 0.08 * d},
                                {"arrivals", 1000},
                                {"rejected", rej},
                                {"rejected_vcpu", 4 * rej},
                                {"rejected_one_pool", 3 * d + seed},
                                {"rejected_one_pool_vcpu", 12 * d + seed},
                                {"admission_migrations", defrag ? 2 : 0},
                                {"admitted_by_migrations", defrag ? 1 : 0},
                                {"migrations", mig},
                                {"planned_migrations", mig + (defrag ? 1 : 0)},
                                {"steps_dropped", defrag ? 1 : 0},
                                {"makespan_s", defrag ? 1800.0 : 0.0},
                                {"objective_before", 400.0 - 60.0 * d},
                                {"objective_after", 400.0 - 60.0 * d + 2.0 * static_cast<double>(mig)},
                                {"weights", {{"16c64g", 0.75}, {"2c8g", 0.25}}},
                                {"capacity_after", {{"16c64g", 10 - d}}}});
            }
            runs.push_back({{"config", config},
                            {"seed", seed},
                            {"defrag", config},
                            {"weights", "multi-numa"},
                            {"defrag_budget", "0.5%"},
                            {"migrations_per_request", defrag ? 2 : 0},
                            {"arrivals", 4000},
                            {"rejected", rejected},
                            {"rejected_fraction", static_cast<double>(rejected) / 4000.0},
                            {"rejected_vcpu", 4 * rejected},
                            {"rejected_one_pool", 18 + 4 * seed},
                            {"rejected_one_pool_vcpu", 72 + 4 * seed},
                            {"vdcs", 40},
                            {"rejected_vdcs", defrag ? 7 : 12},
                            {"base_revenue", 1000.0},
                            {"compute_revenue", 900.0},
                            {"network_revenue", 135.0},
                            {"revenue_gain", defrag ? oj(0.035) : oj(nullptr)},
                            {"migrations", migrations},
                            {"steps_dropped", defrag ? 4 : 0},
                            {"admission_migrations", defrag ? 8 : 0},
                            {"admitted_by_migrations", defrag ? 4 : 0},
                            {"seconds", 1.5},
                            {"stopped_by", "complete"},
                            {"rejected_by_flavor", {{"16c64g", rejected - 4}, {"2c8g", 4}}},
                            {"days", days}});
        }
    runs[3].erase("seconds");
    runs[3]["days"][1].erase("objective_before");
    runs[2].erase("rejected_one_pool");
    for (auto& day : runs[2]["days"]) day.erase("rejected_one_pool");
    oj summary = oj::array();
    for (const std::string config : {"none", "greedy"})
        summary.push_back({{"config", config},
                           {"seeds", 2},
                           {"rejected_percent_mean", config == "none" ? 1.925 : 0.825},
                           {"rejected_percent_sd", 0.035},
                           {"rejected_vcpu_mean", config == "none" ? 308.0 : 132.0},
                           {"rejected_vcpu_sd", 5.657},
                           {"migrations_mean", config == "none" ? 0.0 : 77.0},
                           {"migrations_sd", 0.0}});
    return {{"format", "vmcap-simulation/1"},
            {"trace", "azure-dev"},
            {"copies", 1},
            {"hosts", 40},
            {"host_type", "CQ3-16c64g"},
            {"placer", "best-fit"},
            {"network", "leaf-spine 2 racks"},
            {"bpc", 2.5},
            {"span_s", 4 * 86400.0},
            {"defrag_at_s", 10800.0},
            {"defrag_every_s", 86400.0},
            {"defrag_budget", "0.5%"},
            {"apply", "waves"},
            {"window_s", 7200.0},
            {"seed", 1},
            {"seeds", 2},
            {"summary", summary},
            {"runs", runs}};
}

}  // namespace

TEST(Report, EveryChartRendersInHeadlessChromium) {
    ASSERT_EQ(std::system("command -v chromium >/dev/null"), 0) << "chromium is missing: scripts/test.sh installs it";
    const std::string dir = (tmp_dir() / "report").string();
    std::filesystem::create_directories(dir);
    // A cluster with a network and vlinks, so that the page has all five charts.
    test::RandomCluster rc;
    rc.seed = 3;
    rc.fill = 0.8;
    rc.max_migrations = 12;
    Problem p = test::make_random_problem(rc);
    test::add_leaf_spine(p, 3, 2500, 3000, 100, 600);
    for (std::size_t h = 0; h < p.hosts.size(); ++h) p.hosts[h].uplink = p.network.switches[p.network.host_switch[h]];
    const std::string snap = dir + "/snap.json", plan = dir + "/plan.json", page = dir + "/report.html", png = dir + "/report.png";
    write_file_atomic(snap, format_json_lines(snapshot_to_json(p)));
    auto r = run_vmcap("plan --cluster " + snap + " --quiet --max-evaluations 100000 --out " + plan);
    ASSERT_EQ(r.code, 0) << r.err;
    r = run_vmcap("report --cluster " + snap + " --plan " + plan + " --out " + page);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("5 charts"), std::string::npos) << r.out;
    const std::string html = read_text_file(page);
    EXPECT_EQ(html.find("src=\"http"), std::string::npos) << "the page must not load anything from the network";
    expect_every_chart_drawn(page, png, {"chart-capacity", "chart-objective", "chart-occupancy", "chart-timeline", "chart-links"});
}

// The page's summary rounds as the CLI's plan summary does: the gap to one decimal ("11.1%"), the
// makespan in whole seconds ("4m 53s"), not "11.1111%" or "4.87573 min".
TEST(Report, SummaryRoundsAsTheCli) {
    const std::string dir = (tmp_dir() / "report-summary").string();
    std::filesystem::create_directories(dir);
    const std::string snap = dir + "/snap.json", plan = dir + "/plan.json", page = dir + "/report.html";
    ASSERT_EQ(run_vmcap("generate --hosts 20 --vms 120 --seed 5 --out " + snap).code, 0);
    ASSERT_EQ(run_vmcap("plan --cluster " + snap + " --quiet --max-evaluations 50000 --out " + plan).code, 0);
    const auto r = run_vmcap("report --cluster " + snap + " --plan " + plan + " --out " + page);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto doc = nlohmann::json::parse(read_text_file(plan));
    const std::string html = read_text_file(page);
    ASSERT_TRUE(doc.contains("gap") && doc.contains("schedule")) << "the plan should state a gap and a schedule";
    char gap[64];
    std::snprintf(gap, sizeof gap, "(gap %.1f%%)", 100.0 * doc["gap"].get<double>());
    EXPECT_NE(html.find(gap), std::string::npos) << gap;
    const long long t = std::llround(doc["schedule"]["makespan_s"].get<double>());
    char makespan[64];
    if (t >= 3600)
        std::snprintf(makespan, sizeof makespan, "makespan %lldh %02lldm %02llds;", t / 3600, t / 60 % 60, t % 60);
    else if (t >= 60)
        std::snprintf(makespan, sizeof makespan, "makespan %lldm %02llds;", t / 60, t % 60);
    else
        std::snprintf(makespan, sizeof makespan, "makespan %llds;", t);
    EXPECT_NE(html.find(makespan), std::string::npos) << makespan;
}

TEST(Report, RefusesAnInvalidPlanAndWritesNothing) {
    const std::string dir = (tmp_dir() / "report-bad").string();
    std::filesystem::create_directories(dir);
    const std::string snap = dir + "/snap.json", plan = dir + "/plan.json", page = dir + "/report.html";
    ASSERT_EQ(run_vmcap("generate --hosts 10 --vms 50 --seed 4 --out " + snap).code, 0);
    ASSERT_EQ(run_vmcap("plan --cluster " + snap + " --quiet --max-evaluations 50000 --out " + plan).code, 0);
    auto doc = nlohmann::json::parse(read_text_file(plan));
    ASSERT_FALSE(doc["steps"].empty());
    doc["objective_after"] = doc["objective_after"].get<double>() + 1.0;
    doc.erase("score_after");
    write_file_atomic(plan, doc.dump());
    const auto r = run_vmcap("report --cluster " + snap + " --plan " + plan + " --out " + page);
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_FALSE(std::filesystem::exists(page));
}

TEST(Report, SimulationPageRendersEveryChartInHeadlessChromium) {
    ASSERT_EQ(std::system("command -v chromium >/dev/null"), 0) << "chromium is missing: scripts/test.sh installs it";
    const std::string dir = (tmp_dir() / "report-simulation").string();
    std::filesystem::create_directories(dir);
    const std::string sim = dir + "/sim.json", page = dir + "/report.html", png = dir + "/report.png";
    write_file_atomic(sim, format_json_lines(simulation_doc()));
    const auto r = run_vmcap("report --simulation " + sim + " --out " + page);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("6 charts, 4 run(s)"), std::string::npos) << r.out;
    const std::string html = read_text_file(page);
    EXPECT_EQ(html.find("src=\"http"), std::string::npos) << "the page must not load anything from the network";
    // Two seeds: every run labelled with its configuration and seed, in the table and the charts.
    for (const char* label : {"none seed 1", "greedy seed 1", "none seed 2", "greedy seed 2"}) EXPECT_GE(count(html, label), 2) << label;
    // The one-pool reference per seed in the cumulative chart (seed 2's from its second run); the
    // optional columns, the summary per configuration and the header's network and apply mode.
    for (const char* text :
         {"\"one pool, seed 1\"", "\"one pool, seed 2\"", "<th>one pool rejected</th>", "<th>admission migrations</th>",
          "<th>steps dropped</th>", "<th>VDCs rejected</th>", "<th>revenue gain, %</th>", "<td>7 of 40</td>", "<td>12 of 40</td>",
          "<td>+3.50</td>", "<td>22</td>", "Per configuration", "<td>1.925 \u00b1 0.035</td>", "<td>132 \u00b1 6</td>",
          "<td>77.0 \u00b1 0.0</td>", "leaf-spine 2 racks", "2.5 Mbps per vCPU", "in waves", "2 h"})
        EXPECT_NE(html.find(text), std::string::npos) << text;
    EXPECT_EQ(html.find("one pool (reference)"), std::string::npos) << "two seeds: each reference named by its seed";
    expect_every_chart_drawn(
        page, png, {"chart-rejected", "chart-cumulative", "chart-capacity", "chart-occupancy", "chart-migrations", "chart-flavors"});
}

TEST(Report, RefusesAMalformedSimulationAndWritesNothing) {
    const std::string dir = (tmp_dir() / "report-simulation-bad").string();
    std::filesystem::create_directories(dir);
    const std::string sim = dir + "/sim.json", page = dir + "/report.html";
    struct Case {
        const char* what;
        std::function<void(nlohmann::ordered_json&)> edit;
        std::string message;  // after "<file>: "
    };
    const std::vector<Case> cases = {
        {"no runs", [](auto& d) { d.erase("runs"); }, "runs: missing"},
        {"days not an array",
         [](auto& d) {
             d["runs"][1]["days"] = {{"day", 0}};
         },
         "runs[1].days: expected an array"},
        {"a day's count a string", [](auto& d) { d["runs"][0]["days"][2]["rejected"] = "7"; },
         "runs[0].days[2].rejected: expected an integer >= 0"},
        {"a day without its time", [](auto& d) { d["runs"][2]["days"][0].erase("time_s"); }, "runs[2].days[0].time_s: missing"},
        {"a negative total", [](auto& d) { d["runs"][0]["arrivals"] = -1; }, "runs[0].arrivals: expected an integer in 0..2^53"},
        {"another format", [](auto& d) { d["format"] = "vmcap-plan/1"; }, "format: expected \"vmcap-simulation/1\""},
        // Optional fields: checked when present.
        {"a run's one-pool count a string", [](auto& d) { d["runs"][0]["rejected_one_pool"] = "7"; },
         "runs[0].rejected_one_pool: expected an integer >= 0"},
        {"a day's one-pool count negative", [](auto& d) { d["runs"][1]["days"][3]["rejected_one_pool"] = -2; },
         "runs[1].days[3].rejected_one_pool: expected an integer in 0..2^53"},
        {"a revenue gain a string", [](auto& d) { d["runs"][1]["revenue_gain"] = "3.5%"; },
         "runs[1].revenue_gain: expected a finite number"},
        {"a day's weight not a number", [](auto& d) { d["runs"][0]["days"][0]["weights"]["2c8g"] = true; },
         "runs[0].days[0].weights.2c8g: expected a finite number"},
        {"a summary without its sd", [](auto& d) { d["summary"][1].erase("migrations_sd"); }, "summary[1].migrations_sd: missing"},
        {"the window a string", [](auto& d) { d["window_s"] = "2h"; }, "window_s: expected a finite number"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        auto doc = simulation_doc();
        c.edit(doc);
        write_file_atomic(sim, doc.dump());
        const auto r = run_vmcap("report --simulation " + sim + " --out " + page);
        EXPECT_EQ(r.code, 2) << r.err;
        EXPECT_NE(r.err.find(sim + ": " + c.message), std::string::npos) << r.err;
        EXPECT_EQ(count(r.err, "\n"), 1) << r.err;
        EXPECT_FALSE(std::filesystem::exists(page));
    }
    // The optional fields absent or null: the page of the first format's fields, no reference line.
    {
        auto doc = simulation_doc();
        for (const char* key : {"network", "bpc", "apply", "window_s", "seeds"}) doc.erase(key);
        doc["summary"] = nullptr;
        for (auto& run : doc["runs"]) {
            for (const char* key : {"rejected_one_pool", "steps_dropped", "vdcs", "rejected_vdcs", "admission_migrations"}) run.erase(key);
            run["revenue_gain"] = nullptr;
            for (auto& day : run["days"]) day["rejected_one_pool"] = nullptr;
        }
        write_file_atomic(sim, doc.dump());
        const auto r = run_vmcap("report --simulation " + sim + " --out " + page);
        ASSERT_EQ(r.code, 0) << r.err;
        const std::string html = read_text_file(page);
        for (const char* text : {"one pool", "admission migrations", "steps dropped", "VDCs", "revenue gain", "Per configuration"})
            EXPECT_EQ(html.find(text), std::string::npos) << text;
        std::filesystem::remove(page);
    }
    // The two modes exclude each other; one of them is needed.
    write_file_atomic(sim, simulation_doc().dump());
    for (const std::string& args : {"--simulation " + sim + " --plan " + sim, std::string(), "--simulation " + sim + " --cluster " + sim}) {
        const auto r = run_vmcap("report " + args + " --out " + page);
        EXPECT_EQ(r.code, 2) << args << ": " << r.err;
        EXPECT_FALSE(std::filesystem::exists(page)) << args;
    }
}

TEST(Report, ReadsWhatVmcapSimulateWrites) {
    const std::filesystem::path data(VMCAP_SHARED_DATA_DIR);
    if (!std::filesystem::is_directory(data / "azure-v1-flavor-traces")) GTEST_SKIP() << "no data directory " << data;
    const std::string dir = (tmp_dir() / "report-simulate").string();
    std::filesystem::create_directories(dir);
    const std::string sim = dir + "/sim.json", page = dir + "/report.html";
    auto r = run_vmcap("simulate --trace azure-dev --data-dir " + data.string() + " --hosts 40 --days 2 --compare none,greedy --out-json " +
                       sim);
    ASSERT_EQ(r.code, 0) << r.err;
    r = run_vmcap("report --simulation " + sim + " --out " + page);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("6 charts, 2 run(s)"), std::string::npos) << r.out;
    EXPECT_TRUE(std::filesystem::exists(page));
}

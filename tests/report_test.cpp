// `vmcap report` (issue 26 item 4): the page is opened in headless Chromium (Debian's chromium,
// which scripts/test.sh installs): every chart must have rendered (the page's own count, set once
// vega-embed has drawn all of them, and one SVG of marks per chart in the DOM), and a screenshot
// must not be blank (scripts/png_stats.py: distinct colours and non-white pixels).
#include <gtest/gtest.h>

#include <sstream>

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
    const std::string chrome = "timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=20000 ";
    const std::string dom = shell(chrome + "--dump-dom file://" + page);
    EXPECT_NE(dom.find("data-charts-rendered=\"5\""), std::string::npos) << dom.substr(0, 400);
    EXPECT_EQ(dom.find("data-chart-error=\""), std::string::npos);  // the attribute, not the script that sets it
    EXPECT_EQ(count(dom, "class=\"marks\""), 5);
    for (const char* id : {"chart-capacity", "chart-objective", "chart-occupancy", "chart-timeline", "chart-links"})
        EXPECT_NE(dom.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
    shell(chrome + "--window-size=1100,2600 --screenshot=" + png + " file://" + page);
    std::istringstream stats(shell("python3 " VMCAP_SOURCE_DIR "/scripts/png_stats.py " + png));
    int w = 0, h = 0, colours = 0;
    double nonwhite = 0;
    stats >> w >> h >> colours >> nonwhite;
    EXPECT_EQ(w, 1100);
    EXPECT_GT(colours, 100) << "a blank or unstyled page";
    EXPECT_GT(nonwhite, 5.0);
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

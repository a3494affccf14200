#pragma once
/**
 * @file report_page.h
 * The page skeleton `vmcap report` writes for both its modes (cmd_report.cpp: a plan;
 * cmd_report_simulation.cpp: a `vmcap simulate --out-json` file): one self-contained HTML page with
 * the three Vega libraries inlined, a summary table and one Vega-Lite chart per <div>. Once every
 * chart has drawn, the body gets data-charts-rendered="N" (an error: data-chart-error), which
 * tests/report_test.cpp checks in headless Chromium. Internal to cli/ (not part of the public API).
 */
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "instances/problem.h"
#include "instances/snapshot_io.h"
#include "cli/cli_util.h"

namespace vmcap::cli::report {

using oj = nlohmann::ordered_json;

/** The charts of a page, in page order: (id, Vega-Lite spec); each drawn into <div id="chart-<id>">. */
using Charts = std::vector<std::pair<std::string, oj>>;

/** The minified vega, vega-lite and vega-embed builds, inlined into the page. */
struct Assets {
    std::string vega, lite, embed;
};

/** Text for HTML element content and attribute values. */
inline std::string html_escape(const std::string& s) {
    std::string out;
    for (char c : s) out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : c == '"' ? "&quot;" : std::string(1, c);
    return out;
}

/** JSON safe inside a <script> element. */
inline std::string script_json(const oj& j) {
    std::string s = j.dump();
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '<' && i + 1 < s.size() && s[i + 1] == '/') {
            out += "<\\/";
            ++i;
        } else {
            out += s[i];
        }
    }
    return out;
}

/** The file `rel` under the node_modules directory `dir`; InputError naming it when missing. */
inline std::string read_asset(const std::string& dir, const std::string& rel) {
    const std::string path = dir + "/" + rel;
    if (!std::filesystem::exists(path))
        throw InputError(path +
                         ": missing; the report inlines the npm packages of web/package.json (npm ci --prefix web, which "
                         "scripts/setup.sh runs), or give --assets DIR");
    return read_text_file(path);
}

/** The three libraries' files under the node_modules directory (vega, vega-lite, vega-embed). */
inline constexpr const char* kAssetFiles[3] = {"vega/build/vega.min.js", "vega-lite/build/vega-lite.min.js",
                                               "vega-embed/build/vega-embed.min.js"};

/** The three libraries from `dir` (the --assets option; web/node_modules by default). */
inline Assets read_assets(const std::string& dir) {
    return Assets{read_asset(dir, kAssetFiles[0]), read_asset(dir, kAssetFiles[1]), read_asset(dir, kAssetFiles[2])};
}

/** The files read_assets reads, as inputs named by --assets (for check_outputs_distinct). */
inline std::vector<detail::FileOption> asset_inputs(const std::string& dir) {
    std::vector<detail::FileOption> in;
    for (const char* rel : kAssetFiles) in.push_back({"--assets", dir + "/" + rel});
    return in;
}

/** A summary-table row: `key` and `value`, both escaped. */
inline std::string table_row(const std::string& key, const std::string& value) {
    return "<tr><th>" + html_escape(key) + "</th><td>" + html_escape(value) + "</td></tr>\n";
}

/**
 * The whole page: `title` (escaped) as <title> and <h1>, `summary_html` (already HTML, placed right
 * after the heading, e.g. a <table>), one <div class="chart" id="chart-<id>"> per chart (every
 * legend placed below its chart), and the script that embeds them all as SVG and then sets
 * data-charts-rendered on <body>.
 */
inline std::string page(const std::string& title, const std::string& summary_html, const Charts& charts, const Assets& a) {
    std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + html_escape(title) +
                       "</title>\n<style>"
                       "body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse}th{text-align:left;"
                       "padding:2px 12px 2px 0}td{padding:2px 0}.chart{margin:24px 0}</style>\n";
    html += "<script>" + a.vega + "</script>\n<script>" + a.lite + "</script>\n<script>" + a.embed + "</script>\n</head><body>\n";
    html += "<h1>" + html_escape(title) + "</h1>\n" + summary_html;
    for (const auto& [id, spec] : charts) html += "<div class=\"chart\" id=\"chart-" + id + "\"></div>\n";
    html += "<script>\nconst specs = {";
    for (std::size_t i = 0; i < charts.size(); ++i) {
        // Legends below the plot: a chart is then as wide as its plot and y axis, and a 900-pixel
        // plot with its legend to the right (the heat map's colour scale, long run names) no
        // longer runs past the right edge of a window about 1,100 pixels wide.
        oj spec = charts[i].second;
        spec["config"]["legend"]["orient"] = "bottom";
        html += (i ? ",\n" : "\n") + std::string("\"chart-") + charts[i].first + "\": " + script_json(spec);
    }
    html +=
        "};\n"
        "// Every chart as SVG; once all have rendered, the body says how many (checked by the tests).\n"
        "Promise.all(Object.entries(specs).map(([id, spec]) => vegaEmbed('#' + id, spec, {renderer: 'svg', actions: false})))\n"
        "  .then(r => document.body.setAttribute('data-charts-rendered', String(r.length)))\n"
        "  .catch(e => document.body.setAttribute('data-chart-error', String(e)));\n"
        "</script>\n</body></html>\n";
    return html;
}

}  // namespace vmcap::cli::report

namespace vmcap::cli {

/** `vmcap report --simulation F --out P` (cmd_report_simulation.cpp): the charts of a `vmcap
 *  simulate --out-json` file (format vmcap-simulation/1) as one page, written atomically to `out`.
 *  Reads and checks the whole file before anything is written: InputError naming the file and the
 *  JSON path of the first missing or mistyped required field. Returns the exit code (0). */
int report_simulation(const std::string& simulation_file, const std::string& out, const std::string& assets_dir);

}  // namespace vmcap::cli

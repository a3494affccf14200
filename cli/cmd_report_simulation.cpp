/**
 * @file cmd_report_simulation.cpp
 * `vmcap report --simulation S --out report.html` (docs/cli.md "vmcap report"): the page of a
 * `vmcap simulate --out-json` file (format vmcap-simulation/1, written by cmd_simulate.cpp): a
 * header with the trace, cluster, network, placer, nightly budget and how the plans are applied, a
 * table of the runs' totals (with the one-pool reference, admission migrations, dropped steps,
 * rejected VDCs and revenue gain when the file has them), a table of the mean and spread per
 * configuration over the seeds (the file's "summary"), and six Vega-Lite charts with one series
 * per run (configuration, and seed when the runs have several): rejections per day, cumulative
 * rejections (with the one-pool reference as a dashed grey line per seed), the weighted capacity
 * before and after each night, live VMs and vCPU utilisation, migrations per night, rejections per
 * flavor. The file is read and checked whole by simulation_file.h (every error naming the file and
 * JSON path) before anything is written; the page skeleton is report_page.h's.
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "cli/report_page.h"
#include "cli/simulation_file.h"

namespace vmcap::cli {

using namespace detail;
using report::oj;

namespace {

/** Most flavors the rejections-by-flavor chart shows (the most rejected over all runs). */
constexpr std::size_t kMaxFlavors = 30;

/** A run of the file and its label on the page. */
struct Run : SimulationRun {
    std::string label;
};

/** A vmcap-simulation/1 document: its runs and summary, and the header's fields as text ("" when
 *  absent). */
struct Simulation {
    std::string file, trace, host_type, placer, budget, copies, hosts, span, defrag, seed, network, bpc, apply, window;
    std::vector<Run> runs;
    std::vector<SimulationSummary> summary;
};

std::string fmt(const char* format, double x) {
    char b[64];
    std::snprintf(b, sizeof b, format, x);
    return b;
}

template <class T>
std::string opt_text(const std::optional<T>& v) {
    return v ? std::to_string(*v) : "";
}

/** "HH:MM every 24 h" of the defragmentation times (defrag_at_s: the time of day on the trace's clock). */
std::string defrag_times(const SimulationFile& f) {
    if (!f.defrag_at_s) return "";
    const double t = *f.defrag_at_s;
    std::string text = fmt("%g s", t);
    if (t >= 0.0 && t < 86400.0) {
        const long long minutes = std::llround(t / 60.0);
        char b[64];
        std::snprintf(b, sizeof b, "%02lld:%02lld", minutes / 60, minutes % 60);
        text = b;
    }
    if (f.defrag_every_s) text += " every " + fmt("%g h", *f.defrag_every_s / 3600.0);
    return text;
}

/** Labels: the configuration, plus " seed N" when the runs have several seeds; labels still
 *  equal get " #i" (the run's 1-based position) so that no two series merge. */
void label_runs(std::vector<Run>& runs) {
    std::set<std::uint64_t> seeds;
    for (const Run& r : runs)
        if (r.seed) seeds.insert(*r.seed);
    std::map<std::string, int> uses;
    for (Run& r : runs) {
        r.label = r.config;
        if (seeds.size() > 1 && r.seed) r.label += " seed " + std::to_string(*r.seed);
        ++uses[r.label];
    }
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (uses[runs[i].label] > 1) runs[i].label += " #" + std::to_string(i + 1);
}

/** A duration in the unit that reads best: "90 s", "45 min", "2.5 h". */
std::string duration_text(double s) {
    return s < 60.0 ? fmt("%g s", s) : s < 3600.0 ? fmt("%.3g min", s / 60.0) : fmt("%.3g h", s / 3600.0);
}

/** The document of `file`, checked (every error names the file and the JSON path: simulation_file.h). */
Simulation read_simulation(const std::string& file) {
    SimulationFile f = read_simulation_file(file);
    if (f.runs.empty())
        throw InputError(file + ": runs: no run (the simulation stopped before its first configuration): nothing to report");
    Simulation s;
    s.file = file;
    s.trace = f.trace.value_or("");
    s.host_type = f.host_type.value_or("");
    s.placer = f.placer.value_or("");
    s.budget = f.defrag_budget.value_or("");
    s.copies = opt_text(f.copies);
    s.hosts = opt_text(f.hosts);
    s.seed = opt_text(f.seed);
    if (f.span_s) s.span = fmt("%.1f days", *f.span_s / 86400.0);
    s.defrag = defrag_times(f);
    if (f.seeds.value_or(0) > 1) s.seed += " (" + std::to_string(*f.seeds) + " seeds from it)";
    s.network = f.network.value_or("");
    if (f.bpc.value_or(0.0) > 0.0) s.bpc = fmt("%g", *f.bpc) + " Mbps per vCPU between the VMs of a tenant batch (bpc)";
    s.apply = f.apply.value_or("");
    if (f.window_s.value_or(0.0) > 0.0) s.window = duration_text(*f.window_s);
    s.summary = f.summary.value_or(std::vector<SimulationSummary>{});
    for (SimulationRun& r : f.runs) s.runs.push_back({std::move(r), ""});
    label_runs(s.runs);
    return s;
}

// ---- charts ------------------------------------------------------------------------------------

/** Vega's "tableau10", the runs' colours (cycled), and the greys of the one-pool references. */
constexpr const char* kPalette[] = {"#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b",
                                    "#eeca3b", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac"};
constexpr const char* kGreys[] = {"#7f7f7f", "#4d4d4d", "#a6a6a6", "#262626"};

/** The colour of the runs, the same in every chart (domain: the labels in run order), then the
 *  `references` (labels of the one-pool series) in grey. */
oj run_color(const Simulation& s, const std::vector<std::string>& references = {}) {
    oj domain = oj::array(), range = oj::array();
    for (std::size_t i = 0; i < s.runs.size(); ++i) {
        domain.push_back(s.runs[i].label);
        range.push_back(kPalette[i % std::size(kPalette)]);
    }
    for (std::size_t i = 0; i < references.size(); ++i) {
        domain.push_back(references[i]);
        range.push_back(kGreys[i % std::size(kGreys)]);
    }
    return oj{{"field", "run"}, {"type", "nominal"}, {"title", "run"}, {"scale", {{"domain", domain}, {"range", range}}}};
}

oj chart(const std::string& title, oj values, oj mark, oj encoding) {
    return oj{{"$schema", "https://vega.github.io/schema/vega-lite/v5.json"},
              {"title", title},
              {"width", 900},
              {"height", 220},
              {"data", {{"values", std::move(values)}}},
              {"mark", std::move(mark)},
              {"encoding", std::move(encoding)}};
}

oj days_axis() {
    return oj{{"field", "days"}, {"type", "quantitative"}, {"title", "days from the first arrival"}};
}

oj line_mark() {
    return oj{{"type", "line"}, {"point", true}};
}

oj rejected_per_day_chart(const Simulation& s) {
    oj values = oj::array();
    for (const Run& r : s.runs)
        for (const SimulationDay& d : r.days)
            values.push_back({{"run", r.label}, {"day", d.day}, {"rejected", d.rejected}, {"arrivals", d.arrivals}});
    return chart("Rejected requests per day (each day closed just before its night's defragmentation)", values, line_mark(),
                 {{"x", {{"field", "day"}, {"type", "quantitative"}, {"axis", {{"tickMinStep", 1}, {"format", "d"}}}}},
                  {"y", {{"field", "rejected"}, {"type", "quantitative"}, {"title", "rejected requests"}}},
                  {"color", run_color(s)},
                  {"tooltip", oj::array({{{"field", "run"}}, {{"field", "day"}}, {{"field", "rejected"}}, {{"field", "arrivals"}}})}});
}

/** The one-pool reference series: per seed (the runs of a seed share their arrivals, so their
 *  one-pool figures are equal), the first run whose every day has rejected_one_pool; labelled
 *  "one pool (reference)", or "one pool, seed N" when the runs have several seeds. */
std::vector<std::pair<std::string, const Run*>> one_pool_references(const Simulation& s) {
    std::set<std::optional<std::uint64_t>> seeds, taken;
    for (const Run& r : s.runs) seeds.insert(r.seed);
    std::set<std::string> labels;
    for (const Run& r : s.runs) labels.insert(r.label);
    std::vector<std::pair<std::string, const Run*>> out;
    for (const Run& r : s.runs) {
        const bool has = !r.days.empty() &&
                         std::all_of(r.days.begin(), r.days.end(), [](const SimulationDay& d) { return d.rejected_one_pool.has_value(); });
        if (!has || !taken.insert(r.seed).second) continue;
        std::string label = seeds.size() > 1 && r.seed ? "one pool, seed " + std::to_string(*r.seed) : "one pool (reference)";
        if (labels.count(label)) label += " #" + std::to_string(out.size() + 1);  // no two series merge
        labels.insert(label);
        out.emplace_back(label, &r);
    }
    return out;
}

/** The cumulative series of `run` (rejected, or rejected_one_pool with `one_pool`) under `label`. */
void add_cumulative(oj& values, const std::string& label, const Run& run, bool one_pool) {
    double sum = 0.0;  // a double: 2^53 per day over many days would overflow an int64
    values.push_back({{"run", label}, {"days", 0.0}, {"rejected", 0}});
    for (const SimulationDay& d : run.days) {
        sum += static_cast<double>(one_pool ? d.rejected_one_pool.value_or(0) : d.rejected);
        values.push_back({{"run", label}, {"days", d.time_s / 86400.0}, {"rejected", sum}});
    }
}

/** Every run's cumulative rejections, and the one-pool references dashed in grey (one legend:
 *  colour and dash on the same field). */
oj cumulative_rejected_chart(const Simulation& s) {
    oj values = oj::array();
    for (const Run& r : s.runs) add_cumulative(values, r.label, r, false);
    std::vector<std::string> references;
    for (const auto& [label, run] : one_pool_references(s)) {
        add_cumulative(values, label, *run, true);
        references.push_back(label);
    }
    oj color = run_color(s, references);
    oj dash = oj::array();
    for (std::size_t i = 0; i < color["scale"]["domain"].size(); ++i)
        dash.push_back(i < s.runs.size() ? oj::array({1, 0}) : oj::array({6, 4}));
    oj stroke_dash = {
        {"field", "run"}, {"type", "nominal"}, {"title", "run"}, {"scale", {{"domain", color["scale"]["domain"]}, {"range", dash}}}};
    return chart("Rejected requests since the first arrival", values, oj{{"type", "line"}},
                 {{"x", days_axis()},
                  {"y", {{"field", "rejected"}, {"type", "quantitative"}, {"title", "rejected requests, cumulative"}}},
                  {"color", color},
                  {"strokeDash", stroke_dash},
                  {"tooltip", oj::array({{{"field", "run"}}, {{"field", "days"}, {"format", ".2f"}}, {{"field", "rejected"}}})}});
}

/** Σ weight × capacity before (when the file has it) and after each night: a saw-tooth whose
 *  vertical steps are what the defragmentation gained. */
oj capacity_chart(const Simulation& s) {
    oj values = oj::array();
    for (const Run& r : s.runs) {
        int seq = 0;
        for (const SimulationDay& d : r.days) {
            if (d.objective_before)
                values.push_back({{"run", r.label}, {"days", d.time_s / 86400.0}, {"objective", *d.objective_before}, {"seq", seq++}});
            values.push_back({{"run", r.label}, {"days", d.time_s / 86400.0}, {"objective", d.objective_after}, {"seq", seq++}});
        }
    }
    return chart("Weighted capacity of the target flavors (sum of weight x capacity), before and after each night's defragmentation",
                 values, oj{{"type", "line"}, {"point", true}},
                 {{"x", days_axis()},
                  {"y", {{"field", "objective"}, {"type", "quantitative"}, {"title", "weighted capacity"}}},
                  {"order", {{"field", "seq"}}},
                  {"color", run_color(s)},
                  {"tooltip", oj::array({{{"field", "run"}}, {{"field", "days"}, {"format", ".2f"}}, {{"field", "objective"}}})}});
}

/** Live VMs and vCPU used, one panel each (own y scales), one line per run. */
oj occupancy_chart(const Simulation& s) {
    oj values = oj::array();
    for (const Run& r : s.runs)
        for (const SimulationDay& d : r.days) {
            values.push_back({{"run", r.label}, {"days", d.time_s / 86400.0}, {"measure", "live VMs"}, {"value", d.live_vms}});
            values.push_back(
                {{"run", r.label}, {"days", d.time_s / 86400.0}, {"measure", "vCPU used, %"}, {"value", 100.0 * d.used_vcpu_fraction}});
        }
    oj spec = chart("Live VMs and vCPU utilisation of the cluster", values, line_mark(),
                    {{"x", days_axis()},
                     {"y", {{"field", "value"}, {"type", "quantitative"}, {"title", nullptr}}},
                     {"color", run_color(s)},
                     {"tooltip", oj::array({{{"field", "run"}}, {{"field", "days"}, {"format", ".2f"}}, {{"field", "value"}}})}});
    oj inner{{"width", 900}, {"height", 160}, {"mark", spec["mark"]}, {"encoding", spec["encoding"]}};
    for (const char* k : {"width", "height", "mark", "encoding"}) spec.erase(k);
    spec["facet"] = {{"row", {{"field", "measure"}, {"type", "nominal"}, {"title", nullptr}, {"sort", {"live VMs", "vCPU used, %"}}}}};
    spec["spec"] = inner;
    spec["resolve"] = {{"scale", {{"y", "independent"}}}};
    return spec;
}

oj grouped_bars(const Simulation& s, const std::string& title, oj values, const std::string& x, const std::string& y) {
    return chart(title, std::move(values), "bar",
                 {{"x", {{"field", x}, {"type", "nominal"}, {"sort", nullptr}}},
                  {"xOffset", {{"field", "run"}, {"sort", nullptr}}},
                  {"y", {{"field", y}, {"type", "quantitative"}}},
                  {"color", run_color(s)},
                  {"tooltip", oj::array({{{"field", "run"}}, {{"field", x}}, {{"field", y}}})}});
}

oj migrations_chart(const Simulation& s) {
    oj values = oj::array();
    for (const Run& r : s.runs)
        for (const SimulationDay& d : r.days) values.push_back({{"run", r.label}, {"night", d.day}, {"migrations", d.migrations}});
    oj c = grouped_bars(s, "Live migrations per night (the defragmentation closing each day)", values, "night", "migrations");
    c["encoding"]["x"]["axis"] = {{"labelAngle", 0}};
    return c;
}

/** Rejections per flavor and run, the kMaxFlavors most rejected flavors (most first). */
oj flavor_chart(const Simulation& s) {
    std::map<std::string, double> total;
    for (const Run& r : s.runs)
        for (const auto& [f, n] : r.rejected_by_flavor.value_or(FlavorValues<std::int64_t>{})) total[f] += static_cast<double>(n);
    std::vector<std::pair<double, std::string>> order;
    for (const auto& [f, n] : total)
        if (n > 0) order.emplace_back(-n, f);
    std::sort(order.begin(), order.end());
    const bool cut = order.size() > kMaxFlavors;
    if (cut) order.resize(kMaxFlavors);
    oj values = oj::array();
    for (const auto& [minus_n, f] : order)
        for (const Run& r : s.runs) {
            std::int64_t n = 0;
            for (const auto& [g, m] : r.rejected_by_flavor.value_or(FlavorValues<std::int64_t>{})) n += g == f ? m : 0;
            values.push_back({{"run", r.label}, {"flavor", f}, {"rejected", n}});
        }
    const std::string title =
        cut ? "Rejected requests per flavor (the " + std::to_string(kMaxFlavors) + " most rejected)" : "Rejected requests per flavor";
    return grouped_bars(s, title, values, "flavor", "rejected");
}

// ---- summary -----------------------------------------------------------------------------------

std::string header_table(const Simulation& s) {
    const auto row = [](const std::string& k, const std::string& v) { return v.empty() ? std::string() : report::table_row(k, v); };
    std::string trace = s.trace;
    if (!s.copies.empty() && s.copies != "1") trace += " (" + s.copies + " copies superposed)";
    std::string hosts = s.hosts;
    if (!s.host_type.empty()) hosts += (hosts.empty() ? "" : " x ") + s.host_type;
    const std::string apply = s.apply == "at-once" ? "at once, at the night's time"
                              : s.apply == "waves" ? "in waves over their duration, arrivals going on"
                                                   : s.apply;
    return "<table>\n" + row("simulation", s.file) + row("trace", trace) + row("hosts", hosts) + row("network", s.network) +
           row("VDC vlinks", s.bpc) + row("placer", s.placer) + row("defragmentation", s.defrag) + row("budget per night", s.budget) +
           row("plans applied", apply) + row("window per night", s.window) + row("simulated", s.span) + row("seed", s.seed) + "</table>\n";
}

/** A table: one header row, then one row of cells per item. */
struct Table {
    std::string head, rows;
};

const char* const kTableStyle =
    "<style>.runs td,.runs th{padding:2px 16px 2px 0;text-align:right;white-space:nowrap}"
    ".runs td:first-child,.runs th:first-child{text-align:left}</style>\n";

std::string table_html(const std::string& heading, const Table& t) {
    return "<h2>" + report::html_escape(heading) + "</h2>\n<table class=\"runs\">\n<tr>" + t.head + "</tr>\n" + t.rows + "</table>\n";
}

/** Per run: the totals; the columns of optional fields only when a run has them (the dropped
 *  steps when one is not 0 or the plans are applied in waves, the VDCs when a run has some). */
std::string runs_table(const Simulation& s) {
    using Cell = std::function<std::string(const Run&)>;
    std::vector<std::pair<std::string, Cell>> columns = {{"run", [](const Run& r) { return r.label; }}};
    const auto any = [&s](const std::function<bool(const Run&)>& f) { return std::any_of(s.runs.begin(), s.runs.end(), f); };
    const auto add = [&columns](bool shown, const std::string& head, Cell cell) {
        if (shown) columns.emplace_back(head, std::move(cell));
    };
    add(any([](const Run& r) { return !r.weights.value_or("").empty(); }), "weights", [](const Run& r) { return r.weights.value_or(""); });
    add(true, "arrivals", [](const Run& r) { return std::to_string(r.arrivals); });
    add(true, "rejected", [](const Run& r) { return std::to_string(r.rejected); });
    add(true, "%", [](const Run& r) {
        return fmt("%.2f", r.arrivals > 0 ? 100.0 * static_cast<double>(r.rejected) / static_cast<double>(r.arrivals) : 0.0);
    });
    add(true, "rejected vCPU", [](const Run& r) { return std::to_string(r.rejected_vcpu.value_or(0)); });
    add(any([](const Run& r) { return r.rejected_one_pool.has_value(); }), "one pool rejected",
        [](const Run& r) { return opt_text(r.rejected_one_pool); });
    add(true, "nightly migrations", [](const Run& r) { return std::to_string(r.migrations); });
    add(any([](const Run& r) { return r.admission_migrations.has_value(); }), "admission migrations",
        [](const Run& r) { return opt_text(r.admission_migrations); });
    add(any([&s](const Run& r) { return r.steps_dropped && (*r.steps_dropped > 0 || s.apply == "waves"); }), "steps dropped",
        [](const Run& r) { return opt_text(r.steps_dropped); });
    add(any([](const Run& r) { return r.vdcs.value_or(0) > 0; }), "VDCs rejected", [](const Run& r) {
        return r.vdcs ? std::to_string(r.rejected_vdcs.value_or(0)) + " of " + std::to_string(*r.vdcs) : opt_text(r.rejected_vdcs);
    });
    add(any([](const Run& r) { return r.revenue_gain.has_value(); }), "revenue gain, %",
        [](const Run& r) { return r.revenue_gain ? fmt("%+.2f", 100.0 * *r.revenue_gain) : ""; });
    add(true, "seconds", [](const Run& r) { return r.seconds ? fmt("%.1f", *r.seconds) : ""; });
    add(true, "stopped by", [](const Run& r) { return std::string(to_string(r.stopped_by.value_or(StopReason::Complete))); });
    Table t;
    for (const auto& [head, cell] : columns) t.head += "<th>" + report::html_escape(head) + "</th>";
    for (const Run& r : s.runs) {
        t.rows += "<tr>";
        for (const auto& [head, cell] : columns) t.rows += "<td>" + report::html_escape(cell(r)) + "</td>";
        t.rows += "</tr>\n";
    }
    return table_html("Runs", t);
}

/** Per configuration over its seeds (the file's "summary"): mean ± sample sd; "" without one. */
std::string summary_table(const Simulation& s) {
    if (s.summary.empty()) return "";
    const auto pm = [](const char* f, double mean, double sd) { return fmt(f, mean) + " \u00b1 " + fmt(f, sd); };
    Table t{"<th>configuration</th><th>seeds</th><th>rejected %</th><th>rejected vCPU</th><th>migrations (nightly + admission)</th>", ""};
    for (const SimulationSummary& c : s.summary)
        t.rows += "<tr><td>" + report::html_escape(c.config) + "</td><td>" + std::to_string(c.seeds) + "</td><td>" +
                  pm("%.3f", c.rejected_percent_mean, c.rejected_percent_sd) + "</td><td>" +
                  pm("%.0f", c.rejected_vcpu_mean, c.rejected_vcpu_sd) + "</td><td>" + pm("%.1f", c.migrations_mean, c.migrations_sd) +
                  "</td></tr>\n";
    return table_html("Per configuration: mean \u00b1 sd over the seeds", t);
}

}  // namespace

// report_simulation: contract in report_page.h.
int report_simulation(const std::string& simulation_file, const std::string& out, const std::string& assets_dir) {
    check_output_path(out);
    std::vector<detail::FileOption> inputs = report::asset_inputs(assets_dir);
    inputs.push_back({"--simulation", simulation_file});
    detail::check_outputs_distinct({{"--out", out}}, inputs);
    const Simulation s = read_simulation(simulation_file);
    const report::Assets a = report::read_assets(assets_dir);
    const report::Charts charts = {{"rejected", rejected_per_day_chart(s)}, {"cumulative", cumulative_rejected_chart(s)},
                                   {"capacity", capacity_chart(s)},         {"occupancy", occupancy_chart(s)},
                                   {"migrations", migrations_chart(s)},     {"flavors", flavor_chart(s)}};
    write_file_atomic(out,
                      report::page("vmcap simulation report", header_table(s) + kTableStyle + runs_table(s) + summary_table(s), charts, a));
    std::printf("report %s: %zu charts, %zu run(s)\n", out.c_str(), charts.size(), s.runs.size());
    return 0;
}

}  // namespace vmcap::cli

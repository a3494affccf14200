/**
 * @file cmd_report_simulation.cpp
 * `vmcap report --simulation S --out report.html` (docs/cli.md "vmcap report"): the page of a
 * `vmcap simulate --out-json` file (format vmcap-simulation/1, written by cmd_simulate.cpp): a
 * header with the trace, cluster, placer and nightly budget, a table of the runs' totals, and six
 * Vega-Lite charts with one series per run (configuration, and seed when the runs have several):
 * rejections per day, cumulative rejections, the weighted capacity before and after each night,
 * live VMs and vCPU utilisation, migrations per night, rejections per flavor. The whole file is
 * read and checked before anything is written; the page skeleton is report_page.h's.
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "cli/report_page.h"

namespace vmcap::cli {

using namespace detail;
using report::oj;
using json = nlohmann::json;

namespace {

constexpr const char* kFormat = "vmcap-simulation/1";
/** Largest count read (exact in a double, as the charts' JavaScript holds it). */
constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 53;
/** Most flavors the rejections-by-flavor chart shows (the most rejected over all runs). */
constexpr std::size_t kMaxFlavors = 30;

/** One day row of a run: the requests of the day, closed just before its night's defragmentation
 *  (or at the end), and that defragmentation's migrations and weighted capacity. */
struct Day {
    std::int64_t day = 0, live_vms = 0, arrivals = 0, rejected = 0, rejected_vcpu = 0, migrations = 0;
    double time_s = 0.0, used_vcpu_fraction = 0.0, objective_after = 0.0;
    std::optional<double> objective_before;
};

struct Run {
    std::string config, label;
    std::optional<std::uint64_t> seed;
    std::string weights;  ///< the "weights" field as text (a string as is, anything else as JSON); empty when absent
    std::int64_t arrivals = 0, rejected = 0, rejected_vcpu = 0, migrations = 0;
    std::optional<std::int64_t> admission_migrations;  ///< made at admission (vmcap simulate --migrations-per-request)
    std::optional<double> seconds;
    std::string stopped_by = "complete";
    std::vector<std::pair<std::string, std::int64_t>> rejected_by_flavor;  ///< by name
    std::vector<Day> days;
};

/** A vmcap-simulation/1 document: the optional header fields as text ("" when absent). */
struct Simulation {
    std::string file, trace, host_type, placer, budget, copies, hosts, span, defrag, seed;
    std::vector<Run> runs;
};

std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
}

std::string fmt(const char* format, double x) {
    char b[64];
    std::snprintf(b, sizeof b, format, x);
    return b;
}

/** Field access on a vmcap-simulation/1 document: each error an InputError "<file>: <JSON path>: what". */
struct Reader {
    const std::string& file;

    [[noreturn]] void fail(const std::string& path, const std::string& what) const { throw InputError(file + ": " + path + ": " + what); }
    /** The required field `key` of the object `obj` at `path`. */
    const json& need(const json& obj, const std::string& path, const char* key) const {
        const auto it = obj.find(key);
        if (it == obj.end()) fail(join(path, key), std::string("missing (a required field of ") + kFormat + ")");
        return *it;
    }
    /** The optional field `key` (null counts as absent). */
    static const json* opt(const json& obj, const char* key) {
        const auto it = obj.find(key);
        return it == obj.end() || it->is_null() ? nullptr : &*it;
    }
    std::int64_t count(const json& v, const std::string& path) const {
        if (!v.is_number_integer()) fail(path, "expected an integer >= 0");
        if (v.is_number_unsigned() ? v.get<std::uint64_t>() > kMaxCount : v.get<std::int64_t>() < 0)
            fail(path, "expected an integer in 0..2^53");
        return v.get<std::int64_t>();
    }
    double number(const json& v, const std::string& path) const {
        if (!v.is_number() || !std::isfinite(v.get<double>())) fail(path, "expected a finite number");
        return v.get<double>();
    }
    std::string string(const json& v, const std::string& path) const {
        if (!v.is_string()) fail(path, "expected a string");
        return v.get<std::string>();
    }
    const json& array(const json& obj, const std::string& path, const char* key) const {
        const json& a = need(obj, path, key);
        if (!a.is_array()) fail(join(path, key), "expected an array");
        return a;
    }
    std::int64_t count_field(const json& obj, const std::string& path, const char* key) const {
        return count(need(obj, path, key), join(path, key));
    }
    double number_field(const json& obj, const std::string& path, const char* key) const {
        return number(need(obj, path, key), join(path, key));
    }
};

Day read_day(const Reader& r, const json& d, const std::string& path) {
    if (!d.is_object()) r.fail(path, "expected an object");
    Day day;
    day.day = r.count_field(d, path, "day");
    day.time_s = r.number_field(d, path, "time_s");
    day.live_vms = r.count_field(d, path, "live_vms");
    day.used_vcpu_fraction = r.number_field(d, path, "used_vcpu_fraction");
    day.arrivals = r.count_field(d, path, "arrivals");
    day.rejected = r.count_field(d, path, "rejected");
    day.migrations = r.count_field(d, path, "migrations");
    day.objective_after = r.number_field(d, path, "objective_after");
    if (const json* v = Reader::opt(d, "rejected_vcpu")) day.rejected_vcpu = r.count(*v, join(path, "rejected_vcpu"));
    if (const json* v = Reader::opt(d, "objective_before")) day.objective_before = r.number(*v, join(path, "objective_before"));
    return day;
}

Run read_run(const Reader& r, const json& j, const std::string& path) {
    if (!j.is_object()) r.fail(path, "expected an object");
    Run run;
    run.config = r.string(r.need(j, path, "config"), join(path, "config"));
    run.arrivals = r.count_field(j, path, "arrivals");
    run.rejected = r.count_field(j, path, "rejected");
    run.migrations = r.count_field(j, path, "migrations");
    if (const json* v = Reader::opt(j, "rejected_vcpu")) run.rejected_vcpu = r.count(*v, join(path, "rejected_vcpu"));
    if (const json* v = Reader::opt(j, "admission_migrations")) run.admission_migrations = r.count(*v, join(path, "admission_migrations"));
    if (const json* v = Reader::opt(j, "seconds")) run.seconds = r.number(*v, join(path, "seconds"));
    if (const json* v = Reader::opt(j, "stopped_by")) run.stopped_by = r.string(*v, join(path, "stopped_by"));
    if (const json* v = Reader::opt(j, "seed")) {
        if (!v->is_number_unsigned()) r.fail(join(path, "seed"), "expected an unsigned 64-bit integer");
        run.seed = v->get<std::uint64_t>();
    }
    if (const json* v = Reader::opt(j, "weights")) run.weights = v->is_string() ? v->get<std::string>() : v->dump();
    if (const json* v = Reader::opt(j, "rejected_by_flavor")) {
        const std::string fp = join(path, "rejected_by_flavor");
        if (!v->is_object()) r.fail(fp, "expected an object flavor -> rejected requests");
        for (const auto& [name, n] : v->items()) run.rejected_by_flavor.emplace_back(name, r.count(n, join(fp, name)));
    }
    const json& days = r.array(j, path, "days");
    for (std::size_t i = 0; i < days.size(); ++i)
        run.days.push_back(read_day(r, days[i], join(path, "days") + "[" + std::to_string(i) + "]"));
    return run;
}

/** A header field as text: a string as is, a number as written; "" when absent. */
std::string header_text(const Reader& r, const json& doc, const char* key) {
    const json* v = Reader::opt(doc, key);
    if (!v) return "";
    if (v->is_string()) return v->get<std::string>();
    if (v->is_number_integer()) return v->dump();
    return fmt_num(r.number(*v, key));
}

/** "HH:MM every 24 h" of the defragmentation times (seconds after the first arrival's midnight). */
std::string defrag_times(const Reader& r, const json& doc) {
    const json* at = Reader::opt(doc, "defrag_at_s");
    if (!at) return "";
    const double t = r.number(*at, "defrag_at_s");
    std::string text = fmt("%g s", t);
    if (t >= 0.0 && t < 86400.0) {
        const long long minutes = std::llround(t / 60.0);
        char b[64];
        std::snprintf(b, sizeof b, "%02lld:%02lld", minutes / 60, minutes % 60);
        text = b;
    }
    if (const json* every = Reader::opt(doc, "defrag_every_s"))
        text += " every " + fmt("%g h", r.number(*every, "defrag_every_s") / 3600.0);
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

/** The document of `file`, checked (every error names the file and the JSON path). */
Simulation read_simulation(const std::string& file) {
    const json doc = read_json(file);
    const Reader r{file};
    if (!doc.is_object()) throw InputError(file + ": expected a JSON object (" + kFormat + ", written by vmcap simulate --out-json)");
    const std::string format = r.string(r.need(doc, "", "format"), "format");
    if (format != kFormat) r.fail("format", "expected \"" + std::string(kFormat) + "\", got \"" + format + "\"");
    Simulation s;
    s.file = file;
    const std::pair<const char*, std::string*> fields[] = {
        {"trace", &s.trace},   {"host_type", &s.host_type}, {"placer", &s.placer}, {"defrag_budget", &s.budget},
        {"copies", &s.copies}, {"hosts", &s.hosts},         {"seed", &s.seed}};
    for (const auto& [key, field] : fields) *field = header_text(r, doc, key);
    if (const json* v = Reader::opt(doc, "span_s")) s.span = fmt("%.1f days", r.number(*v, "span_s") / 86400.0);
    s.defrag = defrag_times(r, doc);
    if (const json* v = Reader::opt(doc, "seeds"); v && v->is_number_unsigned() && v->get<std::uint64_t>() > 1)
        s.seed += " (" + v->dump() + " seeds from it)";
    const json& runs = r.array(doc, "", "runs");
    if (runs.empty()) r.fail("runs", "no run (the simulation stopped before its first configuration): nothing to report");
    for (std::size_t i = 0; i < runs.size(); ++i) s.runs.push_back(read_run(r, runs[i], "runs[" + std::to_string(i) + "]"));
    label_runs(s.runs);
    return s;
}

// ---- charts ------------------------------------------------------------------------------------

/** The colour of the runs, the same in every chart (domain: the labels in run order). */
oj run_color(const Simulation& s) {
    oj domain = oj::array();
    for (const Run& r : s.runs) domain.push_back(r.label);
    return oj{{"field", "run"}, {"type", "nominal"}, {"title", "run"}, {"scale", {{"domain", domain}}}};
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
        for (const Day& d : r.days)
            values.push_back({{"run", r.label}, {"day", d.day}, {"rejected", d.rejected}, {"arrivals", d.arrivals}});
    return chart("Rejected requests per day (each day closed just before its night's defragmentation)", values, line_mark(),
                 {{"x", {{"field", "day"}, {"type", "quantitative"}, {"axis", {{"tickMinStep", 1}, {"format", "d"}}}}},
                  {"y", {{"field", "rejected"}, {"type", "quantitative"}, {"title", "rejected requests"}}},
                  {"color", run_color(s)},
                  {"tooltip", oj::array({{{"field", "run"}}, {{"field", "day"}}, {{"field", "rejected"}}, {{"field", "arrivals"}}})}});
}

oj cumulative_rejected_chart(const Simulation& s) {
    oj values = oj::array();
    for (const Run& r : s.runs) {
        double sum = 0.0;  // a double: 2^53 per day over many days would overflow an int64
        values.push_back({{"run", r.label}, {"days", 0.0}, {"rejected", 0}});
        for (const Day& d : r.days)
            values.push_back({{"run", r.label}, {"days", d.time_s / 86400.0}, {"rejected", sum += static_cast<double>(d.rejected)}});
    }
    return chart("Rejected requests since the first arrival", values, oj{{"type", "line"}},
                 {{"x", days_axis()},
                  {"y", {{"field", "rejected"}, {"type", "quantitative"}, {"title", "rejected requests, cumulative"}}},
                  {"color", run_color(s)},
                  {"tooltip", oj::array({{{"field", "run"}}, {{"field", "days"}, {"format", ".2f"}}, {{"field", "rejected"}}})}});
}

/** Σ weight × capacity before (when the file has it) and after each night: a saw-tooth whose
 *  vertical steps are what the defragmentation gained. */
oj capacity_chart(const Simulation& s) {
    oj values = oj::array();
    for (const Run& r : s.runs) {
        int seq = 0;
        for (const Day& d : r.days) {
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
        for (const Day& d : r.days) {
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
        for (const Day& d : r.days) values.push_back({{"run", r.label}, {"night", d.day}, {"migrations", d.migrations}});
    oj c = grouped_bars(s, "Live migrations per night (the defragmentation closing each day)", values, "night", "migrations");
    c["encoding"]["x"]["axis"] = {{"labelAngle", 0}};
    return c;
}

/** Rejections per flavor and run, the kMaxFlavors most rejected flavors (most first). */
oj flavor_chart(const Simulation& s) {
    std::map<std::string, double> total;
    for (const Run& r : s.runs)
        for (const auto& [f, n] : r.rejected_by_flavor) total[f] += static_cast<double>(n);
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
            for (const auto& [g, m] : r.rejected_by_flavor) n += g == f ? m : 0;
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
    return "<table>\n" + row("simulation", s.file) + row("trace", trace) + row("hosts", hosts) + row("placer", s.placer) +
           row("defragmentation", s.defrag) + row("budget per night", s.budget) + row("simulated", s.span) + row("seed", s.seed) +
           "</table>\n";
}

/** Per run: the totals; the columns of optional fields only when a run has them. */
std::string runs_table(const Simulation& s) {
    bool weights = false, admission = false;
    for (const Run& r : s.runs) {
        weights = weights || !r.weights.empty();
        admission = admission || r.admission_migrations.has_value();
    }
    const auto cell = [](const std::string& v) { return "<td>" + report::html_escape(v) + "</td>"; };
    std::string h = "<h2>Runs</h2>\n<table class=\"runs\">\n<tr><th>run</th>" + std::string(weights ? "<th>weights</th>" : "") +
                    "<th>arrivals</th><th>rejected</th><th>%</th><th>rejected vCPU</th><th>nightly migrations</th>" +
                    (admission ? "<th>admission migrations</th>" : "") + "<th>seconds</th><th>stopped by</th></tr>\n";
    for (const Run& r : s.runs) {
        const double pct = r.arrivals > 0 ? 100.0 * static_cast<double>(r.rejected) / static_cast<double>(r.arrivals) : 0.0;
        h += "<tr>" + cell(r.label) + (weights ? cell(r.weights) : "") + cell(std::to_string(r.arrivals)) +
             cell(std::to_string(r.rejected)) + cell(fmt("%.2f", pct)) + cell(std::to_string(r.rejected_vcpu)) +
             cell(std::to_string(r.migrations)) +
             (admission ? cell(r.admission_migrations ? std::to_string(*r.admission_migrations) : "") : "") +
             cell(r.seconds ? fmt("%.1f", *r.seconds) : "") + cell(r.stopped_by) + "</tr>\n";
    }
    return "<style>.runs td,.runs th{padding:2px 16px 2px 0;text-align:right;white-space:nowrap}"
           ".runs td:first-child,.runs th:first-child{text-align:left}</style>\n" +
           h + "</table>\n";
}

}  // namespace

// report_simulation: contract in report_page.h.
int report_simulation(const std::string& simulation_file, const std::string& out, const std::string& assets_dir) {
    check_output_path(out);
    const Simulation s = read_simulation(simulation_file);
    const report::Assets a = report::read_assets(assets_dir);
    const report::Charts charts = {{"rejected", rejected_per_day_chart(s)}, {"cumulative", cumulative_rejected_chart(s)},
                                   {"capacity", capacity_chart(s)},         {"occupancy", occupancy_chart(s)},
                                   {"migrations", migrations_chart(s)},     {"flavors", flavor_chart(s)}};
    write_file_atomic(out, report::page("vmcap simulation report", header_table(s) + runs_table(s), charts, a));
    std::printf("report %s: %zu charts, %zu run(s)\n", out.c_str(), charts.size(), s.runs.size());
    return 0;
}

}  // namespace vmcap::cli

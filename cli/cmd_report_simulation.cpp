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
 * flavor. Required fields are checked strictly, optional ones only when present (null counts as
 * absent); the whole file is read and checked before anything is written; the page skeleton is
 * report_page.h's.
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
    std::optional<std::int64_t> rejected_one_pool;  ///< the same arrivals into one pool of the cluster's vCPU and RAM
};

struct Run {
    std::string config, label;
    std::optional<std::uint64_t> seed;
    std::string weights;  ///< the "weights" field as text (a string as is, anything else as JSON); empty when absent
    std::int64_t arrivals = 0, rejected = 0, rejected_vcpu = 0, migrations = 0;
    std::optional<std::int64_t> admission_migrations;  ///< made at admission (vmcap simulate --migrations-per-request)
    std::optional<std::int64_t> rejected_one_pool;     ///< the one-pool reference on the same arrivals
    std::optional<std::int64_t> steps_dropped;         ///< planned steps no longer fitting when due (--apply waves)
    std::optional<std::int64_t> vdcs, rejected_vdcs;   ///< Gridiron VDCs (--bpc)
    std::optional<double> revenue_gain;                ///< a fraction; null in the file when there is no revenue
    std::optional<double> seconds;
    std::string stopped_by = "complete";
    std::vector<std::pair<std::string, std::int64_t>> rejected_by_flavor;  ///< by name
    std::vector<Day> days;
};

/** One configuration over its seeds (the document's "summary"): mean and sample sd. */
struct Summary {
    std::string config;
    std::int64_t seeds = 0;
    double pct_mean = 0, pct_sd = 0, vcpu_mean = 0, vcpu_sd = 0, mig_mean = 0, mig_sd = 0;
};

/** A vmcap-simulation/1 document: the optional header fields as text ("" when absent). */
struct Simulation {
    std::string file, trace, host_type, placer, budget, copies, hosts, span, defrag, seed, network, bpc, apply, window;
    std::vector<Run> runs;
    std::vector<Summary> summary;
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
    /** The optional fields: checked when present, nullopt when absent or null. */
    std::optional<std::int64_t> opt_count(const json& obj, const std::string& path, const char* key) const {
        const json* v = opt(obj, key);
        return v ? std::optional(count(*v, join(path, key))) : std::nullopt;
    }
    std::optional<double> opt_number(const json& obj, const std::string& path, const char* key) const {
        const json* v = opt(obj, key);
        return v ? std::optional(number(*v, join(path, key))) : std::nullopt;
    }
    std::optional<std::string> opt_string(const json& obj, const std::string& path, const char* key) const {
        const json* v = opt(obj, key);
        return v ? std::optional(string(*v, join(path, key))) : std::nullopt;
    }
    /** Checks the optional object `key` of flavor -> finite number (a day's weights, capacity_after). */
    void opt_number_map(const json& obj, const std::string& path, const char* key) const {
        const json* v = opt(obj, key);
        if (!v) return;
        if (!v->is_object()) fail(join(path, key), "expected an object flavor -> number");
        for (const auto& [name, x] : v->items()) number(x, join(join(path, key), name));
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
    day.rejected_vcpu = r.opt_count(d, path, "rejected_vcpu").value_or(0);
    day.objective_before = r.opt_number(d, path, "objective_before");
    day.rejected_one_pool = r.opt_count(d, path, "rejected_one_pool");
    // Checked, not shown.
    for (const char* key :
         {"rejected_one_pool_vcpu", "admission_migrations", "admitted_by_migrations", "planned_migrations", "steps_dropped"})
        r.opt_count(d, path, key);
    r.opt_number(d, path, "makespan_s");
    r.opt_number_map(d, path, "weights");
    r.opt_number_map(d, path, "capacity_after");
    return day;
}

Run read_run(const Reader& r, const json& j, const std::string& path) {
    if (!j.is_object()) r.fail(path, "expected an object");
    Run run;
    run.config = r.string(r.need(j, path, "config"), join(path, "config"));
    run.arrivals = r.count_field(j, path, "arrivals");
    run.rejected = r.count_field(j, path, "rejected");
    run.migrations = r.count_field(j, path, "migrations");
    run.rejected_vcpu = r.opt_count(j, path, "rejected_vcpu").value_or(0);
    run.admission_migrations = r.opt_count(j, path, "admission_migrations");
    run.rejected_one_pool = r.opt_count(j, path, "rejected_one_pool");
    run.steps_dropped = r.opt_count(j, path, "steps_dropped");
    run.vdcs = r.opt_count(j, path, "vdcs");
    run.rejected_vdcs = r.opt_count(j, path, "rejected_vdcs");
    run.revenue_gain = r.opt_number(j, path, "revenue_gain");
    run.seconds = r.opt_number(j, path, "seconds");
    run.stopped_by = r.opt_string(j, path, "stopped_by").value_or("complete");
    // Checked, not shown (the configuration's label names them).
    for (const char* key : {"defrag", "defrag_budget"}) r.opt_string(j, path, key);
    for (const char* key : {"migrations_per_request", "rejected_one_pool_vcpu", "admitted_by_migrations"}) r.opt_count(j, path, key);
    for (const char* key : {"rejected_fraction", "base_revenue", "compute_revenue", "network_revenue"}) r.opt_number(j, path, key);
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

/** "HH:MM every 24 h" of the defragmentation times (defrag_at_s: the time of day on the trace's clock). */
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

/** The optional "summary": per configuration, the mean and sd over its seeds (each entry complete). */
std::vector<Summary> read_summary(const Reader& r, const json& doc) {
    std::vector<Summary> out;
    const json* v = Reader::opt(doc, "summary");
    if (!v) return out;
    if (!v->is_array()) r.fail("summary", "expected an array");
    for (std::size_t i = 0; i < v->size(); ++i) {
        const json& e = (*v)[i];
        const std::string path = "summary[" + std::to_string(i) + "]";
        if (!e.is_object()) r.fail(path, "expected an object");
        out.push_back({r.string(r.need(e, path, "config"), join(path, "config")), r.count_field(e, path, "seeds"),
                       r.number_field(e, path, "rejected_percent_mean"), r.number_field(e, path, "rejected_percent_sd"),
                       r.number_field(e, path, "rejected_vcpu_mean"), r.number_field(e, path, "rejected_vcpu_sd"),
                       r.number_field(e, path, "migrations_mean"), r.number_field(e, path, "migrations_sd")});
    }
    return out;
}

/** A duration in the unit that reads best: "90 s", "45 min", "2.5 h". */
std::string duration_text(double s) {
    return s < 60.0 ? fmt("%g s", s) : s < 3600.0 ? fmt("%.3g min", s / 60.0) : fmt("%.3g h", s / 3600.0);
}

/** The optional header fields of the network, the VDCs and how the nightly plans are applied. */
void read_apply_header(const Reader& r, const json& doc, Simulation& s) {
    s.network = r.opt_string(doc, "", "network").value_or("");
    if (const double bpc = r.opt_number(doc, "", "bpc").value_or(0.0); bpc > 0.0)
        s.bpc = fmt("%g", bpc) + " Mbps per vCPU between the VMs of a tenant batch (bpc)";
    s.apply = r.opt_string(doc, "", "apply").value_or("");
    if (const double w = r.opt_number(doc, "", "window_s").value_or(0.0); w > 0.0) s.window = duration_text(w);
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
    if (const auto seeds = r.opt_count(doc, "", "seeds"); seeds && *seeds > 1) s.seed += " (" + std::to_string(*seeds) + " seeds from it)";
    read_apply_header(r, doc, s);
    s.summary = read_summary(r, doc);
    const json& runs = r.array(doc, "", "runs");
    if (runs.empty()) r.fail("runs", "no run (the simulation stopped before its first configuration): nothing to report");
    for (std::size_t i = 0; i < runs.size(); ++i) s.runs.push_back(read_run(r, runs[i], "runs[" + std::to_string(i) + "]"));
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
        for (const Day& d : r.days)
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
        const bool has =
            !r.days.empty() && std::all_of(r.days.begin(), r.days.end(), [](const Day& d) { return d.rejected_one_pool.has_value(); });
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
    for (const Day& d : run.days) {
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
    const std::string apply = s.apply == "at-once" ? "at once, at the night's time"
                              : s.apply == "waves" ? "in waves over their duration, arrivals going on"
                                                   : s.apply;
    return "<table>\n" + row("simulation", s.file) + row("trace", trace) + row("hosts", hosts) + row("network", s.network) +
           row("VDC vlinks", s.bpc) + row("placer", s.placer) + row("defragmentation", s.defrag) + row("budget per night", s.budget) +
           row("plans applied", apply) + row("window per night", s.window) + row("simulated", s.span) + row("seed", s.seed) + "</table>\n";
}

std::string opt_text(const std::optional<std::int64_t>& v) {
    return v ? std::to_string(*v) : "";
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
    add(any([](const Run& r) { return !r.weights.empty(); }), "weights", [](const Run& r) { return r.weights; });
    add(true, "arrivals", [](const Run& r) { return std::to_string(r.arrivals); });
    add(true, "rejected", [](const Run& r) { return std::to_string(r.rejected); });
    add(true, "%", [](const Run& r) {
        return fmt("%.2f", r.arrivals > 0 ? 100.0 * static_cast<double>(r.rejected) / static_cast<double>(r.arrivals) : 0.0);
    });
    add(true, "rejected vCPU", [](const Run& r) { return std::to_string(r.rejected_vcpu); });
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
    add(true, "stopped by", [](const Run& r) { return r.stopped_by; });
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
    for (const Summary& c : s.summary)
        t.rows += "<tr><td>" + report::html_escape(c.config) + "</td><td>" + std::to_string(c.seeds) + "</td><td>" +
                  pm("%.3f", c.pct_mean, c.pct_sd) + "</td><td>" + pm("%.0f", c.vcpu_mean, c.vcpu_sd) + "</td><td>" +
                  pm("%.1f", c.mig_mean, c.mig_sd) + "</td></tr>\n";
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

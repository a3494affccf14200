/**
 * @file simulation_file.cpp
 * The vmcap-simulation/1 writer and reader (simulation_file.h). Each record's fields are listed
 * once, in file order, in a `fields` function that a writer and a reader both walk: the two
 * directions cannot disagree on a name, an order or whether a field is required.
 */
#include "cli/simulation_file.h"

#include <cmath>
#include <concepts>
#include <type_traits>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "instances/printable.h"
#include "instances/snapshot_io.h"

namespace vmcap::cli {

using oj = nlohmann::ordered_json;

namespace {

/** Largest count read (exact in a double, as the report's JavaScript holds it). */
constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 53;

template <class R, class T>
concept RecordOf = std::same_as<std::remove_const_t<R>, T>;

// The fields of each record, in file order. V is a writer or a reader: req (required), opt
// (written when set; absent or null read as unset) and nullable (always written, null when unset).

template <class V, RecordOf<SimulationDay> D>
void fields(V& v, D& d) {
    v.req("day", d.day);
    v.req("time_s", d.time_s);
    v.req("live_vms", d.live_vms);
    v.req("used_vcpu_fraction", d.used_vcpu_fraction);
    v.req("arrivals", d.arrivals);
    v.req("rejected", d.rejected);
    v.opt("rejected_vcpu", d.rejected_vcpu);
    v.opt("rejected_one_pool", d.rejected_one_pool);
    v.opt("rejected_one_pool_vcpu", d.rejected_one_pool_vcpu);
    v.opt("admission_migrations", d.admission_migrations);
    v.opt("admitted_by_migrations", d.admitted_by_migrations);
    v.req("migrations", d.migrations);
    v.opt("planned_migrations", d.planned_migrations);
    v.opt("planned_ram_mib", d.planned_ram_mib);
    v.opt("steps_dropped", d.steps_dropped);
    v.opt("makespan_s", d.makespan_s);
    v.opt("objective_before", d.objective_before);
    v.req("objective_after", d.objective_after);
    v.opt("weights", d.weights);
    v.opt("capacity_after", d.capacity_after);
}

template <class V, RecordOf<SimulationRun> R>
void fields(V& v, R& r) {
    v.req("config", r.config);
    v.opt("seed", r.seed);
    v.opt("defrag", r.defrag);
    v.opt("weights", r.weights);
    v.opt("defrag_budget", r.defrag_budget);
    v.opt("migrations_per_request", r.migrations_per_request);
    v.req("arrivals", r.arrivals);
    v.req("rejected", r.rejected);
    v.opt("rejected_fraction", r.rejected_fraction);
    v.opt("rejected_vcpu", r.rejected_vcpu);
    v.opt("rejected_vcpu_hours", r.rejected_vcpu_hours);
    v.opt("rejected_one_pool", r.rejected_one_pool);
    v.opt("rejected_one_pool_vcpu", r.rejected_one_pool_vcpu);
    v.opt("vdcs", r.vdcs);
    v.opt("rejected_vdcs", r.rejected_vdcs);
    v.opt("base_revenue", r.base_revenue);
    v.opt("compute_revenue", r.compute_revenue);
    v.opt("network_revenue", r.network_revenue);
    v.nullable("revenue_gain", r.revenue_gain);
    v.req("migrations", r.migrations);
    v.opt("steps_dropped", r.steps_dropped);
    v.opt("admission_migrations", r.admission_migrations);
    v.opt("admitted_by_migrations", r.admitted_by_migrations);
    v.opt("seconds", r.seconds);
    v.opt("stopped_by", r.stopped_by);
    v.opt("rejected_by_flavor", r.rejected_by_flavor);
    v.req("days", r.days);
}

template <class V, RecordOf<SimulationSummary> S>
void fields(V& v, S& s) {
    v.req("config", s.config);
    v.req("seeds", s.seeds);
    v.req("rejected_percent_mean", s.rejected_percent_mean);
    v.req("rejected_percent_sd", s.rejected_percent_sd);
    v.req("rejected_vcpu_mean", s.rejected_vcpu_mean);
    v.req("rejected_vcpu_sd", s.rejected_vcpu_sd);
    v.req("migrations_mean", s.migrations_mean);
    v.req("migrations_sd", s.migrations_sd);
    v.opt("rejected_vcpu_hours_mean", s.rejected_vcpu_hours_mean);
    v.opt("rejected_vcpu_hours_sd", s.rejected_vcpu_hours_sd);
}

/** The header's fields after "format" (checked apart: it is the first thing read). */
template <class V, RecordOf<SimulationFile> F>
void fields(V& v, F& f) {
    v.opt("trace", f.trace);
    v.opt("copies", f.copies);
    v.opt("hosts", f.hosts);
    v.opt("host_type", f.host_type);
    v.opt("placer", f.placer);
    v.opt("placer_one_node", f.placer_one_node);
    v.opt("network", f.network);
    v.opt("bpc", f.bpc);
    v.opt("span_s", f.span_s);
    v.opt("defrag_at_s", f.defrag_at_s);
    v.opt("defrag_every_s", f.defrag_every_s);
    v.opt("defrag_budget", f.defrag_budget);
    v.opt("apply", f.apply);
    v.opt("window_s", f.window_s);
    v.opt("reserve_plan", f.reserve_plan);
    v.opt("defrag_when", f.defrag_when);
    v.opt("trigger_every_s", f.trigger_every_s);
    v.opt("daily_budget", f.daily_budget);
    v.opt("forecast_room", f.forecast_room);
    v.opt("forecast_horizon_s", f.forecast_horizon_s);
    v.opt("forecast_days", f.forecast_days);
    v.opt("forecast_quantile", f.forecast_quantile);
    v.opt("forecast_burst_s", f.forecast_burst_s);
    v.opt("make_room_copies", f.make_room_copies);
    v.opt("make_room_second", f.make_room_second);
    v.opt("seed", f.seed);
    v.opt("seeds", f.seeds);
    v.opt("preset", f.preset);
    v.opt("preset_options", f.preset_options);
    v.opt("summary", f.summary);
    v.req("runs", f.runs);
}

// ---- writer ------------------------------------------------------------------------------------

oj value(std::int64_t x) {
    return x;
}
oj value(std::uint64_t x) {
    return x;
}
oj value(double x) {
    return x;
}
oj value(const std::string& x) {
    return x;
}
oj value(StopReason x) {
    return std::string(to_string(x));
}
template <class T>
oj value(const FlavorValues<T>& xs) {
    oj out = oj::object();
    for (const auto& [name, x] : xs) out[name] = value(x);
    return out;
}
template <class T>
oj value(const std::vector<T>& records);

/** Writes a record's fields into an object, in their order. */
struct Writer {
    oj out = oj::object();
    template <class T>
    void req(const char* key, const T& x) {
        out[key] = value(x);
    }
    template <class T>
    void opt(const char* key, const std::optional<T>& x) {
        if (x) out[key] = value(*x);
    }
    template <class T>
    void nullable(const char* key, const std::optional<T>& x) {
        out[key] = x ? value(*x) : oj(nullptr);
    }
};

template <class T>
oj value(const std::vector<T>& records) {
    oj out = oj::array();
    for (const T& r : records) {
        Writer w;
        fields(w, r);
        out.push_back(std::move(w.out));
    }
    return out;
}

// ---- reader ------------------------------------------------------------------------------------

std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
}

/** Reads a record's fields from the object `obj` at JSON path `path` of the file `file`; every
 *  error an InputError "<file>: <path>: what". */
struct Reader {
    const std::string& file;
    const oj& obj;
    std::string path;

    [[noreturn]] void fail(const std::string& at, const std::string& what) const { throw InputError(file + ": " + at + ": " + what); }

    template <class T>
    void req(const char* key, T& x) const {
        const auto it = obj.find(key);
        if (it == obj.end()) fail(join(path, key), std::string("missing (a required field of ") + kSimulationFormat + ")");
        read(*it, join(path, key), x);
    }
    template <class T>
    void opt(const char* key, std::optional<T>& x) const {
        const auto it = obj.find(key);
        if (it == obj.end() || it->is_null()) return;
        read(*it, join(path, key), x.emplace());
    }
    template <class T>
    void nullable(const char* key, std::optional<T>& x) const {
        opt(key, x);
    }

    void read(const oj& v, const std::string& at, std::int64_t& x) const {
        if (!v.is_number_integer()) fail(at, "expected an integer >= 0");
        if (v.is_number_unsigned() ? v.get<std::uint64_t>() > kMaxCount : v.get<std::int64_t>() < 0)
            fail(at, "expected an integer in 0..2^53");
        x = v.get<std::int64_t>();
    }
    void read(const oj& v, const std::string& at, std::uint64_t& x) const {
        if (!v.is_number_unsigned()) fail(at, "expected an unsigned 64-bit integer");
        x = v.get<std::uint64_t>();
    }
    void read(const oj& v, const std::string& at, double& x) const {
        if (!v.is_number() || !std::isfinite(v.get<double>())) fail(at, "expected a finite number");
        x = v.get<double>();
    }
    void read(const oj& v, const std::string& at, std::string& x) const {
        if (!v.is_string()) fail(at, "expected a string");
        x = v.get<std::string>();
    }
    /** A simulation's stop reason (SimulateResult::stopped_by), in its file words. */
    void read(const oj& v, const std::string& at, StopReason& x) const {
        std::string words;
        read(v, at, words);
        const std::optional<StopReason> r = parse_stop_reason(words);
        if (!r || (*r != StopReason::Complete && *r != StopReason::Interrupted && *r != StopReason::TimeLimit))
            fail(at, "expected \"complete\", \"interrupt\" or \"time limit\", got \"" + printable(words) + "\"");
        x = *r;
    }
    template <class T>
    void read(const oj& v, const std::string& at, FlavorValues<T>& xs) const {
        if (!v.is_object())
            fail(at, std::is_same_v<T, double>        ? "expected an object flavor -> number"
                     : std::is_same_v<T, std::string> ? "expected an object option -> string"
                                                      : "expected an object flavor -> integer >= 0");
        for (const auto& [name, x] : v.items()) read(x, join(at, name), xs.emplace_back(name, T{}).second);
    }
    template <class T>
    void read(const oj& v, const std::string& at, std::vector<T>& records) const {
        if (!v.is_array()) fail(at, "expected an array");
        for (std::size_t i = 0; i < v.size(); ++i) {
            const std::string item = at + "[" + std::to_string(i) + "]";
            if (!v[i].is_object()) fail(item, "expected an object");
            const Reader r{file, v[i], item};
            fields(r, records.emplace_back());
        }
    }
};

}  // namespace

SimulationRun simulation_run(const SimulateResult& r) {
    SimulationRun run;
    run.arrivals = r.arrivals;
    run.rejected = r.rejected;
    run.rejected_fraction = r.arrivals > 0 ? static_cast<double>(r.rejected) / static_cast<double>(r.arrivals) : 0.0;
    run.rejected_vcpu = r.rejected_vcpu;
    run.rejected_vcpu_hours = r.rejected_vcpu_hours;
    run.rejected_one_pool = r.rejected_one_pool;
    run.rejected_one_pool_vcpu = r.rejected_one_pool_vcpu;
    run.vdcs = r.vdcs;
    run.rejected_vdcs = r.rejected_vdcs;
    run.base_revenue = r.base_revenue;
    run.compute_revenue = r.compute_revenue;
    run.network_revenue = r.network_revenue;
    if (!std::isnan(r.revenue_gain)) run.revenue_gain = r.revenue_gain;
    run.migrations = r.migrations;
    run.steps_dropped = r.steps_dropped;
    run.admission_migrations = r.admission_migrations;
    run.admitted_by_migrations = r.admitted_by_migrations;
    run.seconds = r.seconds;
    run.stopped_by = r.stopped_by;
    run.rejected_by_flavor.emplace(r.rejected_by_flavor.begin(), r.rejected_by_flavor.end());
    for (const SimulateDay& d : r.days) {
        SimulationDay& day = run.days.emplace_back();
        day.day = d.day;
        day.time_s = d.time_s;
        day.live_vms = d.live_vms;
        day.used_vcpu_fraction = d.used_vcpu_fraction;
        day.arrivals = d.arrivals;
        day.rejected = d.rejected;
        day.rejected_vcpu = d.rejected_vcpu;
        day.rejected_one_pool = d.rejected_one_pool;
        day.rejected_one_pool_vcpu = d.rejected_one_pool_vcpu;
        day.admission_migrations = d.admission_migrations;
        day.admitted_by_migrations = d.admitted_by_migrations;
        day.migrations = d.migrations;
        day.planned_migrations = d.planned_migrations;
        day.planned_ram_mib = d.planned_ram_mib;
        day.steps_dropped = d.steps_dropped;
        day.makespan_s = d.makespan_s;
        day.objective_before = d.objective_before;
        day.objective_after = d.objective_after;
        day.weights.emplace();
        day.capacity_after.emplace();
        for (std::size_t f = 0; f < r.flavors.size(); ++f) {
            if (f < d.weights.size() && d.weights[f] != 0.0) day.weights->emplace_back(r.flavors[f], d.weights[f]);
            if (f < d.capacity_after.size()) day.capacity_after->emplace_back(r.flavors[f], d.capacity_after[f]);
        }
    }
    return run;
}

oj simulation_to_json(const SimulationFile& file) {
    Writer w;
    w.out["format"] = kSimulationFormat;
    fields(w, file);
    return std::move(w.out);
}

SimulationFile simulation_from_json(const oj& doc, const std::string& file_name) {
    if (!doc.is_object())
        throw InputError(file_name + ": expected a JSON object (" + kSimulationFormat + ", written by vmcap simulate --out-json)");
    const Reader r{file_name, doc, ""};
    std::string format;
    r.req("format", format);
    if (format != kSimulationFormat) r.fail("format", "expected \"" + std::string(kSimulationFormat) + "\", got \"" + format + "\"");
    SimulationFile file;
    fields(r, file);
    return file;
}

SimulationFile read_simulation_file(const std::string& path) {
    return simulation_from_json(detail::read_json<oj>(path), path);
}

std::string simulation_file_text(const SimulationFile& file) {
    return format_json_lines(simulation_to_json(file));
}

}  // namespace vmcap::cli

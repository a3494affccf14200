#include "optimizer/plan/validate_schedule.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

#include "evaluators/network/network_load.h"
#include "evaluators/rules/feasibility.h"
#include "evaluators/state/fit.h"
#include "optimizer/plan/plan.h"

namespace vmcap {

namespace {

/** One step as the schedule check reads it (ids resolved; the replay has checked them). */
struct SchedStep {
    std::size_t index = 0;
    int vm = -1, from = -1, to = -1, wave = 0;
    std::vector<int> from_nodes, to_nodes;
    double start = 0.0, end = 0.0;
    std::int64_t mbps = 0;
};

struct Reader {
    const std::string& file;
    InputError bad(const std::string& path, const std::string& what) const { return InputError(file + ": " + path + ": " + what); }
    const nlohmann::json& field(const nlohmann::json& obj, const std::string& path, const char* key) const {
        if (!obj.is_object() || !obj.contains(key)) throw bad(path, std::string("missing key \"") + key + "\"");
        return obj[key];
    }
    double number(const nlohmann::json& obj, const std::string& path, const char* key) const {
        const auto& v = field(obj, path, key);
        if (!v.is_number() || !std::isfinite(v.get<double>())) throw bad(path + "." + key, "expected a number");
        return v.get<double>();
    }
    std::int64_t integer(const nlohmann::json& obj, const std::string& path, const char* key) const {
        const auto& v = field(obj, path, key);
        if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > (1ULL << 62)))
            throw bad(path + "." + key, "expected an integer");
        return v.get<std::int64_t>();
    }
};

PlanSchedule read_schedule(const Reader& rd, const nlohmann::json& s) {
    if (!s.is_object()) throw rd.bad("schedule", "expected an object");
    PlanSchedule out;
    const auto& lim = rd.field(s, "schedule", "limits");
    const auto small = [&](std::int64_t v, const char* key) {
        if (v < 0 || v > 1'000'000'000) throw rd.bad(std::string("schedule.limits.") + key, "out of range");
        return static_cast<int>(v);
    };
    out.limits.per_host_out = small(rd.integer(lim, "schedule.limits", "per_host_out"), "per_host_out");
    out.limits.per_host_in = small(rd.integer(lim, "schedule.limits", "per_host_in"), "per_host_in");
    out.limits.cluster = small(rd.integer(lim, "schedule.limits", "cluster"), "cluster");
    if (lim.is_object() && lim.contains("per_tenant"))  // absent: no limit
        out.limits.per_tenant = small(rd.integer(lim, "schedule.limits", "per_tenant"), "per_tenant");
    const auto& net = rd.field(lim, "schedule.limits", "copies_on_network");
    if (!net.is_boolean()) throw rd.bad("schedule.limits.copies_on_network", "expected true or false");
    out.limits.copies_on_network = net.get<bool>();
    const auto& dm = rd.field(s, "schedule", "duration_model");
    out.durations.mbps = rd.integer(dm, "schedule.duration_model", "mbps");
    out.durations.dirty_factor = rd.number(dm, "schedule.duration_model", "dirty_factor");
    out.durations.overhead_s = rd.number(dm, "schedule.duration_model", "overhead_s");
    try {
        out.limits.validate();
        out.durations.validate();
    } catch (const std::invalid_argument& e) {
        throw rd.bad("schedule", e.what());
    }
    const std::int64_t waves = rd.integer(s, "schedule", "waves");
    if (waves < 0 || waves > 1'000'000'000) throw rd.bad("schedule.waves", "out of range");
    out.waves = static_cast<int>(waves);
    out.makespan_s = rd.number(s, "schedule", "makespan_s");
    // Steps the searched plan lost to the window or a route without spare: a record of the search,
    // which a replay cannot recompute; its type and sign are checked.
    if (s.contains("cut_steps") && (!s["cut_steps"].is_number_integer() || s["cut_steps"].get<std::int64_t>() < 0))
        throw rd.bad("schedule.cut_steps", "expected an integer >= 0");
    if (s.contains("window_s")) {
        out.window_s = rd.number(s, "schedule", "window_s");
        if (!(out.window_s > 0)) throw rd.bad("schedule.window_s", "expected a number > 0");
    }
    return out;
}

std::vector<SchedStep> read_steps(const Reader& rd, const Problem& p, const nlohmann::json& steps) {
    std::unordered_map<std::string, int> vm_index, host_index;
    for (std::size_t v = 0; v < p.vms.size(); ++v) vm_index.emplace(p.vms[v].id, static_cast<int>(v));
    for (std::size_t h = 0; h < p.hosts.size(); ++h) host_index.emplace(p.hosts[h].id, static_cast<int>(h));
    std::vector<SchedStep> out;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const auto& st = steps[i];
        const std::string path = "steps[" + std::to_string(i) + "]";
        SchedStep x;
        x.index = i;
        x.vm = vm_index.at(st["vm"].get<std::string>());
        x.from = host_index.at(st["from_host"].get<std::string>());
        x.to = host_index.at(st["to_host"].get<std::string>());
        for (const auto& n : st["from_pnuma"]) x.from_nodes.push_back(n.get<int>() - 1);
        for (const auto& n : st["to_pnuma"]) x.to_nodes.push_back(n.get<int>() - 1);
        const std::int64_t wave = rd.integer(st, path, "wave");
        if (wave < 1 || wave > 1'000'000'000) throw rd.bad(path + ".wave", "expected a wave number >= 1");
        x.wave = static_cast<int>(wave);
        x.start = rd.number(st, path, "start_s");
        x.end = rd.number(st, path, "end_s");
        x.mbps = rd.integer(st, path, "mbps");
        out.push_back(std::move(x));
    }
    return out;
}

/** The validator's own usage tables and VM hosts, from the snapshot on. */
struct Usage {
    explicit Usage(const Problem& p) : p(p), R(p.num_resources()), host(p.vms.size()), used(p.hosts.size()) {
        for (std::size_t h = 0; h < p.hosts.size(); ++h) used[h].assign(p.host_type_of(static_cast<int>(h)).node_capacity.size(), 0);
        for (std::size_t v = 0; v < p.vms.size(); ++v) {
            host[v] = p.vms[v].host;
            const Flavor& fl = p.flavors[p.vms[v].flavor];
            for (int i = 0; i < fl.num_vnuma(); ++i)
                for (int r = 0; r < R; ++r) used[host[v]][p.vms[v].pnuma[i] * R + r] += fl.node_demand[r];
        }
    }
    void apply(const SchedStep& x) {
        const Flavor& fl = p.flavors[p.vms[x.vm].flavor];
        for (int n : x.from_nodes)
            for (int r = 0; r < R; ++r) used[x.from][n * R + r] -= fl.node_demand[r];
        for (int n : x.to_nodes)
            for (int r = 0; r < R; ++r) used[x.to][n * R + r] += fl.node_demand[r];
        host[x.vm] = x.to;
    }
    const Problem& p;
    int R;
    std::vector<int> host;
    std::vector<std::vector<Amount>> used;
};

/** The rules that hold in flight (FeasibilityFilter::holds_in_flight) and the wave's boundary
 *  state they read, kept at each wave's start by replaying the steps (only when there is such a
 *  rule: the replay costs a SearchState). */
struct InFlight {
    explicit InFlight(const CapacityModel& model) : wave(model) {
        if (wave.active()) boundary.emplace(model);
    }
    NodeMask mask(const SchedStep& x) const {
        NodeMask m = 0;
        for (int n : x.to_nodes) m |= static_cast<NodeMask>(1U << n);
        return m;
    }
    /** Moves the wave's boundary state past step `x` (the replay has checked its room). */
    void apply(const SchedStep& x) {
        if (!boundary) return;
        Embedding e;
        for (std::size_t i = 0; i < x.to_nodes.size() && i < e.map.size(); ++i) e.map[i] = static_cast<std::uint8_t>(x.to_nodes[i]);
        e.mask = mask(x);
        boundary->move(x.vm, x.to, e);
    }
    InFlightWave wave;
    std::optional<SearchState> boundary;
};

/** One wave's in-flight state, limits and network copies: "" or the first violation. */
std::string check_wave(const CapacityModel& model, const PlanSchedule& sch, const NetworkRoutes* routes, InFlight& flight, const Usage& u,
                       const std::vector<SchedStep>& wave, const std::vector<std::string>& where) {
    const Problem& p = model.problem();
    const int R = u.R;
    std::set<int> vms;
    std::map<int, int> out, in;
    std::map<std::string, int> tenants;
    flight.wave.clear();
    std::map<int, std::vector<Amount>> extra;  // host -> in-flight use beyond the wave's start
    for (std::size_t j = 0; j < wave.size(); ++j) {
        const SchedStep& x = wave[j];
        if (!vms.insert(x.vm).second) return where[j] + ": the VM is already in flight in this wave";
        if (++out[x.from] > sch.limits.per_host_out)
            return where[j] + ": more than " + std::to_string(sch.limits.per_host_out) + " migration(s) out of host \"" +
                   p.hosts[x.from].id + "\" at once";
        if (++in[x.to] > sch.limits.per_host_in)
            return where[j] + ": more than " + std::to_string(sch.limits.per_host_in) + " migration(s) into host \"" + p.hosts[x.to].id +
                   "\" at once";
        const std::string& tenant = p.vms[x.vm].tenant;
        if (sch.limits.per_tenant > 0 && !tenant.empty() && ++tenants[tenant] > sch.limits.per_tenant)
            return where[j] + ": more than " + std::to_string(sch.limits.per_tenant) + " migration(s) of tenant \"" + tenant +
                   "\" in flight";
        if (flight.boundary) {
            const NodeMask to_mask = flight.mask(x);
            if (const FeasibilityFilter* rule = flight.wave.refusal(*flight.boundary, x.vm, x.from, x.to, to_mask))
                return where[j] + ": with the wave in flight (each VM on its source and its destination), " +
                       flight.wave.reason(*flight.boundary, *rule, x.vm, x.to, to_mask);
            flight.wave.join(x.vm, x.from, x.to, to_mask);
        }
        if (sch.limits.cluster > 0 && static_cast<int>(j) + 1 > sch.limits.cluster)
            return where[j] + ": more than " + std::to_string(sch.limits.cluster) + " migration(s) in flight in the cluster";
        if (x.mbps < 1 || x.mbps > sch.durations.mbps)
            return where[j] + ": mbps " + std::to_string(x.mbps) + " is outside 1.." + std::to_string(sch.durations.mbps);
        if (x.mbps < sch.durations.mbps && wave.size() > 1)
            return where[j] + ": a memory copy below the model's bandwidth shares its wave with other steps";
        const Flavor& fl = p.flavors[p.vms[x.vm].flavor];
        auto& e = extra[x.to];
        if (e.empty()) e.assign(u.used[x.to].size(), 0);
        if (model.fixes_nodes() && x.from != x.to) {
            // The destination-node rule when the step starts: its destination at the wave's start
            // less the wave's earlier arrivals there (the departures still hold their nodes).
            const std::vector<Amount>& cap = p.host_type_of(x.to).node_capacity;
            std::vector<Amount> free(cap.size());
            for (std::size_t n = 0; n < free.size(); ++n) free[n] = cap[n] - u.used[x.to][n] - e[n];
            const NodeMask want = assigned_nodes(model, p.vms[x.vm].flavor, x.to, free.data());
            if (want != flight.mask(x)) {
                std::string nodes;
                for (int n = 0; n < kMaxPNuma; ++n)
                    if ((want >> n) & 1U) nodes += (nodes.empty() ? "" : ", ") + std::to_string(n + 1);
                return where[j] + ": with the wave in flight, the destination-node rule \"" + std::string(model.node_rule().name()) +
                       "\" assigns " + (want == 0 ? std::string("no pNUMA nodes") : "pNUMA nodes {" + nodes + "}") + " of host \"" +
                       p.hosts[x.to].id + "\" when the step starts, not its to_pnuma";
            }
        }
        for (int n : x.to_nodes) {
            if (x.from == x.to && std::find(x.from_nodes.begin(), x.from_nodes.end(), n) != x.from_nodes.end()) continue;
            for (int r = 0; r < R; ++r) {
                e[n * R + r] += fl.node_demand[r];
                if (u.used[x.to][n * R + r] + e[n * R + r] > p.host_type_of(x.to).node_capacity[n * R + r])
                    return where[j] + ": with the wave in flight, pNUMA node " + std::to_string(n + 1) + " of host \"" + p.hosts[x.to].id +
                           "\" is over capacity in " + p.resources[r];
            }
        }
    }
    if (routes == nullptr) return "";
    const std::vector<std::int64_t> loads = link_loads(p, *routes, u.host);
    std::map<int, std::int64_t> streams;
    for (const SchedStep& x : wave)
        routes->for_each_flow(x.from, x.to, [&](int arc, std::int64_t units) { streams[arc] += x.mbps * units; });
    for (const auto& [arc, load] : streams)
        if (loads[arc] + load > routes->capacity(arc))
            return where.front() + ": with the wave's memory copies, " + routes->link_name(arc) + " is over capacity";
    return "";
}

}  // namespace

std::string check_schedule(const CapacityModel& model, const nlohmann::json& plan, const std::string& file) {
    if (!plan.contains("schedule")) return "";
    const Problem& p = model.problem();
    const Reader rd{file};
    const PlanSchedule sch = read_schedule(rd, plan["schedule"]);
    const std::vector<SchedStep> steps = read_steps(rd, p, plan["steps"]);
    std::unique_ptr<NetworkRoutes> routes;
    if (p.network.present() && sch.limits.copies_on_network) routes = std::make_unique<NetworkRoutes>(p);
    Usage u(p);
    InFlight flight(model);
    double wave_start = 0.0, makespan = 0.0;
    int waves = 0;
    for (std::size_t i = 0; i < steps.size();) {
        std::size_t j = i;
        while (j < steps.size() && steps[j].wave == steps[i].wave) ++j;
        const std::vector<SchedStep> wave(steps.begin() + static_cast<std::ptrdiff_t>(i), steps.begin() + static_cast<std::ptrdiff_t>(j));
        std::vector<std::string> where;
        for (const SchedStep& x : wave)
            where.push_back("steps[" + std::to_string(x.index) + "] (step " + std::to_string(x.index + 1) + ", wave " +
                            std::to_string(x.wave) + ", vm \"" + p.vms[x.vm].id + "\")");
        if (steps[i].wave != waves + 1)
            return where.front() + ": expected wave " + std::to_string(waves + 1) + " (waves number 1, 2, ... in step order)";
        ++waves;
        if (std::string why = check_wave(model, sch, routes.get(), flight, u, wave, where); !why.empty()) return why;
        double wave_end = wave_start;
        for (std::size_t k = 0; k < wave.size(); ++k) {
            const SchedStep& x = wave[k];
            const double expect = wave_start + sch.durations.seconds(p.flavors[p.vms[x.vm].flavor].demand[kRamMib], x.mbps);
            if (x.start != wave_start)
                return where[k] + ": start_s is " + nlohmann::json(x.start).dump() + ", the wave starts at " +
                       nlohmann::json(wave_start).dump();
            if (x.end != expect)
                return where[k] + ": end_s is " + nlohmann::json(x.end).dump() + ", the duration model gives " +
                       nlohmann::json(expect).dump();
            wave_end = std::max(wave_end, x.end);
            u.apply(x);
            flight.apply(x);
        }
        wave_start = wave_end;
        makespan = wave_end;
        i = j;
    }
    if (sch.waves != waves) return "schedule.waves is " + std::to_string(sch.waves) + ", the steps form " + std::to_string(waves);
    if (sch.makespan_s != makespan)
        return "schedule.makespan_s is " + nlohmann::json(sch.makespan_s).dump() + ", recomputed " + nlohmann::json(makespan).dump();
    if (sch.window_s > 0 && makespan > sch.window_s)
        return "the plan takes " + nlohmann::json(makespan).dump() + " s, beyond its window of " + nlohmann::json(sch.window_s).dump() +
               " s";
    return "";
}

}  // namespace vmcap

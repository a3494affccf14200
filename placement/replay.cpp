#include "placement/replay.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "evaluators/state/capacity_model.h"
#include "evaluators/state/search_state.h"
#include "placement/online_cluster.h"
#include "placement/placer.h"

namespace vmcap {

namespace {

constexpr int kR = 2;  // resources of a replayed snapshot: vcpu, ram_mib

std::string padded(char prefix, long long value, int width) {
    std::string digits = std::to_string(value);
    if (static_cast<int>(digits.size()) < width) digits.insert(0, static_cast<std::size_t>(width) - digits.size(), '0');
    return std::string(1, prefix) + digits;
}

/** splitmix64 finaliser: decorrelates the sampling stream from the importer's stream of the same seed. */
std::uint64_t mix_seed(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

[[noreturn]] void bad_option(const std::string& what) {
    throw InputError("replay: " + what);
}

void validate_options(const SnapshotOptions& o) {
    const int n = o.host_type.num_nodes();
    if (n < 1) bad_option("host type '" + o.host_type.name + "' has no pNUMA nodes");
    if (o.host_type.node_capacity.size() != static_cast<std::size_t>(n) * kR)
        bad_option("host type '" + o.host_type.name + "' needs " + std::to_string(n * kR) +
                   " node capacities (vcpu, ram_mib per node), has " + std::to_string(o.host_type.node_capacity.size()));
    for (Amount c : o.host_type.node_capacity)
        if (c <= 0) bad_option("host type '" + o.host_type.name + "' has a node capacity <= 0");
    if (o.num_hosts < 1) bad_option("number of hosts must be >= 1, got " + std::to_string(o.num_hosts));
    if (!std::isfinite(o.time_s) || o.time_s < 0.0) bad_option("time must be finite and >= 0");
    if (o.hosts_per_rack < 1 || o.racks_per_pod < 1) bad_option("hosts per rack and racks per pod must be >= 1");
    if (!(o.sample > 0.0 && o.sample <= 1.0)) bad_option("sample must be in (0, 1]");
    if (o.targets != "multi-numa" && o.targets != "all" && o.targets != "demand")
        bad_option("targets must be multi-numa, all or demand, got '" + o.targets + "'");
    if (!(o.demand_window_s > 0.0) || !std::isfinite(o.demand_window_s)) bad_option("demand window must be finite and > 0 seconds");
    if (!(o.rule.max_node_fraction > 0.0 && o.rule.max_node_fraction <= 1.0)) bad_option("max node fraction must be in (0, 1]");
    for (const auto& [name, w] : o.weights)
        if (!std::isfinite(w) || w < 0.0) bad_option("weight of '" + name + "' must be finite and >= 0");
    if (o.max_migrations < -1) bad_option("max migrations must be >= 0 (or -1 for 1% of the VMs)");
    if (o.max_migrated_ram_mib < -1) bad_option("max migrated RAM must be >= 0 (or -1 for unlimited)");
}

/** The trace's flavor names (whole trace, first-seen order), checked for consistent sizes. */
struct Catalogue {
    struct Entry {
        std::string name;
        Amount vcpu = 0, ram = 0;
    };
    std::vector<Entry> flavors;
    std::vector<int> of_vm;  ///< [trace index] -> index into flavors
};

Catalogue catalogue(const std::vector<TraceVm>& trace, const SnapshotOptions& options) {
    Catalogue c;
    std::map<std::string, int> id;
    c.of_vm.resize(trace.size());
    for (std::size_t i = 0; i < trace.size(); ++i) {
        const TraceVm& vm = trace[i];
        auto fail = [&](const std::string& what) {
            throw InputError("replay: trace VM " + std::to_string(i) + " ('" + vm.flavor_name + "'): " + what);
        };
        if (i > 0 && vm.arrival_s < trace[i - 1].arrival_s) fail("trace is not sorted by arrival");
        if (!std::isfinite(vm.arrival_s) || !(vm.departure_s >= vm.arrival_s)) fail("arrival must be finite and departure >= arrival");
        if (vm.vcpu <= 0 || vm.ram_mib <= 0) fail("vCPU and RAM must be > 0");
        auto [it, inserted] = id.emplace(vm.flavor_name, static_cast<int>(c.flavors.size()));
        if (inserted) {
            c.flavors.push_back({vm.flavor_name, vm.vcpu, vm.ram_mib});
        } else if (c.flavors[static_cast<std::size_t>(it->second)].vcpu != vm.vcpu ||
                   c.flavors[static_cast<std::size_t>(it->second)].ram != vm.ram_mib) {
            fail("flavor name used with two different sizes");
        }
        c.of_vm[i] = it->second;
    }
    for (const auto& [name, topo] : options.rule.overrides)
        if (!id.contains(name)) throw InputError("replay: vNUMA override names flavor '" + name + "', absent from the trace");
    for (const auto& [name, w] : options.weights)
        if (!id.contains(name)) throw InputError("replay: weight names flavor '" + name + "', absent from the trace");
    return c;
}

/** Trace indices of the sampled arrivals up to `stop`, in trace order. */
std::vector<std::size_t> sampled_arrivals(const std::vector<TraceVm>& trace, const SnapshotOptions& options, double stop) {
    std::vector<std::size_t> out;
    std::mt19937_64 sampler(mix_seed(options.seed));
    for (std::size_t i = 0; i < trace.size(); ++i) {
        if (trace[i].arrival_s > stop) break;
        if (options.sample < 1.0 && static_cast<double>(sampler() >> 11) * 0x1.0p-53 >= options.sample) continue;
        out.push_back(i);
    }
    return out;
}

/** Flavor name -> demand weight (SnapshotOptions::targets "demand"): 1000 x its share of the
 *  sampled arrivals in (stop - demand_window_s, stop], to three decimals, at least 0.001. Throws
 *  InputError when the window holds no arrival. */
std::map<std::string, double> snapshot_demand_weights(const std::vector<TraceVm>& trace, const std::vector<std::size_t>& arrivals,
                                                      const SnapshotOptions& options, double stop) {
    std::vector<FlavorRequest> requests;
    requests.reserve(arrivals.size());
    for (std::size_t i : arrivals) requests.push_back(FlavorRequest{trace[i].arrival_s, trace[i].flavor_name, 0});
    std::int64_t total = 0;
    auto out = demand_weights(requests, stop, options.demand_window_s, total);
    if (total == 0)
        throw InputError("replay: no VM arrives in the demand window of " + std::to_string(options.demand_window_s) +
                         " s before the stop time, so no flavor has a demand weight");
    return out;
}

/** Weights by options.targets ("multi-numa": the flavors of >= 2 vNUMA nodes, else the largest by
 *  vCPU, RAM, name; "all": every flavor; "demand": `demand`, 0 for flavors not in it), then
 *  options.weights. */
void weigh(std::vector<Flavor>& flavors, const SnapshotOptions& options, const std::map<std::string, double>& demand) {
    weigh_multi_numa_targets(flavors);
    if (options.targets == "all")
        for (Flavor& f : flavors) f.weight = 1.0;
    if (options.targets == "demand")
        for (Flavor& f : flavors) {
            const auto it = demand.find(f.name);
            f.weight = it == demand.end() ? 0.0 : it->second;
        }
    for (Flavor& f : flavors)
        if (auto it = options.weights.find(f.name); it != options.weights.end()) f.weight = it->second;
}

/** Resources, the host type and the hosts of a replayed cluster (no flavors or VMs yet). */
Problem empty_cluster(const SnapshotOptions& options) {
    Problem p;
    p.resources = {"vcpu", "ram_mib"};
    p.host_types = {options.host_type};
    p.source = options.source;
    for (int h = 0; h < options.num_hosts; ++h) {
        Host host;
        host.id = padded('h', h + 1, 5);
        host.type = 0;
        const int rack = h / options.hosts_per_rack;
        host.rack = padded('r', rack + 1, 4);
        host.pod = padded('p', rack / options.racks_per_pod + 1, 3);
        p.hosts.push_back(std::move(host));
    }
    return p;
}

/**
 * The problem the placer works on: the arriving flavors (first-arrival order, vNUMA by the rule,
 * which throws for the first flavor in arrival order it cannot split) and one unplaced VM per
 * sampled arrival (VM a = arrivals[a]); no migration budget.
 */
Problem arrivals_problem(const Catalogue& cat, const std::vector<std::size_t>& arrivals, const SnapshotOptions& options,
                         const std::map<std::string, double>& demand) {
    Problem p = empty_cluster(options);
    std::vector<int> index(cat.flavors.size(), -1);
    p.vms.reserve(arrivals.size());
    for (std::size_t i : arrivals) {
        const int c = cat.of_vm[i];
        if (index[static_cast<std::size_t>(c)] < 0) {
            const Catalogue::Entry& e = cat.flavors[static_cast<std::size_t>(c)];
            Flavor f;
            f.name = e.name;
            f.demand = {e.vcpu, e.ram};
            f.vnuma = vnuma_topology_for(options.host_type, f.demand, f.name, options.rule);
            index[static_cast<std::size_t>(c)] = static_cast<int>(p.flavors.size());
            p.flavors.push_back(std::move(f));
        }
        Vm vm;
        vm.flavor = index[static_cast<std::size_t>(c)];
        vm.host = kUnplaced;
        p.vms.push_back(std::move(vm));
    }
    weigh(p.flavors, options, demand);
    finalize_problem(p, "<replay>", true);
    return p;
}

/** The snapshot: the VMs on a host in `state` (VM a is trace[arrivals[a]]), flavors sorted. */
Problem alive_snapshot(const SearchState& state, const std::vector<std::size_t>& arrivals, const SnapshotOptions& options,
                       const std::map<std::string, double>& demand, ReplayStats& st) {
    const Problem& placing = state.problem();
    Problem p = empty_cluster(options);
    std::vector<int> alive_flavors;
    std::vector<char> seen(placing.flavors.size(), 0);
    for (std::size_t a = 0; a < arrivals.size(); ++a)
        if (state.is_placed(static_cast<int>(a)) && !seen[static_cast<std::size_t>(state.flavor_of(static_cast<int>(a)))]) {
            seen[static_cast<std::size_t>(state.flavor_of(static_cast<int>(a)))] = 1;
            alive_flavors.push_back(state.flavor_of(static_cast<int>(a)));
        }
    // Demand targets: every flavor requested in the window, alive or not (its capacity is the point).
    for (std::size_t f = 0; f < placing.flavors.size(); ++f)
        if (!seen[f] && demand.contains(placing.flavors[f].name)) {
            seen[f] = 1;
            alive_flavors.push_back(static_cast<int>(f));
        }
    std::sort(alive_flavors.begin(), alive_flavors.end(), [&](int a, int b) {
        const Flavor& x = placing.flavors[static_cast<std::size_t>(a)];
        const Flavor& y = placing.flavors[static_cast<std::size_t>(b)];
        return std::tie(x.demand[kVcpu], x.demand[kRamMib], x.name) < std::tie(y.demand[kVcpu], y.demand[kRamMib], y.name);
    });
    std::vector<int> index(placing.flavors.size(), -1);
    for (int f : alive_flavors) {
        index[static_cast<std::size_t>(f)] = static_cast<int>(p.flavors.size());
        p.flavors.push_back(placing.flavors[static_cast<std::size_t>(f)]);
    }
    weigh(p.flavors, options, demand);

    Amount used_v = 0, used_r = 0;
    for (std::size_t a = 0; a < arrivals.size(); ++a) {
        const int v = static_cast<int>(a);
        if (!state.is_placed(v)) continue;
        const Flavor& fl = placing.flavors[static_cast<std::size_t>(state.flavor_of(v))];
        Vm vm;
        vm.id = "vm" + std::to_string(arrivals[a]);
        vm.flavor = index[static_cast<std::size_t>(state.flavor_of(v))];
        vm.host = state.host_of(v);
        std::copy(state.pnuma_of(v), state.pnuma_of(v) + fl.num_vnuma(), vm.pnuma.begin());
        p.vms.push_back(std::move(vm));
        st.vm_trace_index.push_back(arrivals[a]);
        used_v += fl.demand[kVcpu];
        used_r += fl.demand[kRamMib];
    }
    const auto nvm = static_cast<std::int64_t>(p.vms.size());
    p.constraints.max_migrations = options.max_migrations >= 0 ? options.max_migrations : (nvm + 99) / 100;
    p.constraints.max_migrated_ram_mib =
        options.max_migrated_ram_mib >= 0 ? options.max_migrated_ram_mib : std::numeric_limits<Amount>::max();

    const HostType& type = options.host_type;
    Amount cap_v = 0, cap_r = 0;
    for (int i = 0; i < type.num_nodes(); ++i) {
        cap_v += type.node_capacity[static_cast<std::size_t>(i * kR + kVcpu)];
        cap_r += type.node_capacity[static_cast<std::size_t>(i * kR + kRamMib)];
    }
    st.used_vcpu_fraction = static_cast<double>(used_v) / (static_cast<double>(cap_v) * options.num_hosts);
    st.used_ram_fraction = static_cast<double>(used_r) / (static_cast<double>(cap_r) * options.num_hosts);
    finalize_problem(p, "<replay>");  // self-check: every placement valid, no node over capacity
    return p;
}

/** Plays the arrivals and departures up to `stop` on `cluster`; fills the counters. */
void play_events(OnlineCluster& cluster, const std::vector<TraceVm>& trace, const std::vector<std::size_t>& arrivals, double stop,
                 ReplayStats& st) {
    for (std::size_t a = 0; a < arrivals.size(); ++a) {
        const TraceVm& vm = trace[arrivals[a]];
        const int v = static_cast<int>(a);
        cluster.advance_to(vm.arrival_s);
        ++st.arrivals;
        if (!cluster.arrive(v, vm.departure_s).placed) {
            ++st.rejected;
            ++st.rejected_by_flavor[cluster.state().problem().flavors[static_cast<std::size_t>(cluster.state().flavor_of(v))].name];
            continue;
        }
        ++st.placed;
        st.peak_alive = std::max(st.peak_alive, cluster.live());
    }
    cluster.advance_to(stop);
    st.departed = cluster.departed();
    st.alive_at_end = cluster.live();
}

}  // namespace

Problem replay_snapshot(const std::vector<TraceVm>& trace, const SnapshotOptions& options, ReplayStats* stats) {
    std::unique_ptr<Placer> placer;
    try {
        placer = make_placer(options.placer);
    } catch (const InputError& e) {
        bad_option(e.what());
    }
    return replay_snapshot(trace, options, *placer, stats);
}

Problem replay_snapshot(const std::vector<TraceVm>& trace, const SnapshotOptions& options, Placer& placer, ReplayStats* stats) {
    validate_options(options);
    if (trace.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        bad_option("the trace has more VMs than a snapshot can index");
    const Catalogue cat = catalogue(trace, options);
    ReplayStats st;
    st.first_arrival_s = trace.empty() ? 0.0 : trace.front().arrival_s;
    st.stop_s = st.first_arrival_s + options.time_s;
    const std::vector<std::size_t> arrivals = sampled_arrivals(trace, options, st.stop_s);
    const std::map<std::string, double> demand =
        options.targets == "demand" ? snapshot_demand_weights(trace, arrivals, options, st.stop_s) : std::map<std::string, double>{};
    const Problem placing = arrivals_problem(cat, arrivals, options, demand);
    const CapacityModel model(placing);
    OnlineCluster cluster(model, placer);
    play_events(cluster, trace, arrivals, st.stop_s, st);
    Problem snapshot = alive_snapshot(cluster.state(), arrivals, options, demand, st);
    if (stats) *stats = std::move(st);
    return snapshot;
}

Problem replay_arrivals(const std::vector<TraceVm>& trace, const SnapshotOptions& given, std::vector<std::size_t>& arrivals) {
    SnapshotOptions options = given;
    if (options.targets == "forecast") options.targets = "multi-numa";  // the caller weighs by the forecast as it goes
    validate_options(options);
    if (trace.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        bad_option("the trace has more VMs than a snapshot can index");
    const Catalogue cat = catalogue(trace, options);
    const double stop = (trace.empty() ? 0.0 : trace.front().arrival_s) + options.time_s;
    arrivals = sampled_arrivals(trace, options, stop);
    SnapshotOptions o = options;
    if (o.targets == "demand") o.targets = "multi-numa";  // the caller weighs by demand as it goes
    return arrivals_problem(cat, arrivals, o, {});
}

}  // namespace vmcap

#include "instances/problem.h"

#include <algorithm>
#include <charconv>
#include <tuple>
#include <unordered_set>

namespace vmcap {

namespace {

std::string vm_where(const std::string& file, std::size_t i, const Vm& vm) {
    return file + ": vms[" + std::to_string(i) + "] (id \"" + vm.id + "\")";
}

/** The shortest text (%g style) that reads back as `x` ("0.0001", "1e+308", "100000.5"), not std::to_string's fixed
 *  six decimals (309 digits for 1e308, "0.000100" for 0.0001). */
std::string short_number(double x) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::general);
    return std::string(buf, r.ptr);
}

}  // namespace

void finalize_problem(Problem& p, const std::string& file, bool allow_unplaced) {
    const int R = p.num_resources();
    if (R < 2 || p.resources[kVcpu] != "vcpu" || p.resources[kRamMib] != "ram_mib")
        throw InputError(file + ": resources: must start with \"vcpu\", \"ram_mib\"");
    if (R > kMaxResources) throw InputError(file + ": resources: at most " + std::to_string(kMaxResources) + " resources are supported");
    {
        std::unordered_set<std::string> seen;
        for (std::size_t r = 0; r < p.resources.size(); ++r)
            if (!seen.insert(p.resources[r]).second)
                throw InputError(file + ": resources[" + std::to_string(r) + "]: duplicate resource \"" + p.resources[r] + "\"");
    }
    if (p.host_types.empty()) throw InputError(file + ": host_types: at least one host type is required");
    for (std::size_t t = 0; t < p.host_types.size(); ++t) {
        const auto& ht = p.host_types[t];
        const std::string where = file + ": host_types[" + std::to_string(t) + "] (name \"" + ht.name + "\")";
        if (static_cast<int>(ht.node_capacity.size()) != ht.num_nodes() * R)
            throw InputError(where + ": node_capacity must give every resource for each of the " + std::to_string(ht.num_nodes()) +
                             " pNUMA nodes");
        for (Amount c : ht.node_capacity)
            if (c < 0) throw InputError(where + ": node_capacity: negative capacity");
    }
    for (std::size_t f = 0; f < p.flavors.size(); ++f) {
        auto& fl = p.flavors[f];
        const std::string where = file + ": flavors[" + std::to_string(f) + "] (name \"" + fl.name + "\")";
        if (static_cast<int>(fl.demand.size()) != R) throw InputError(where + ": demand must give every resource");
        if (!(fl.weight >= 0.0)) throw InputError(where + ": weight must be >= 0");
        if (weight_milli(fl.weight) < 0)
            throw InputError(where + ": weight " + short_number(fl.weight) +
                             " must be at most 100000 with at most 3 decimals (weights are counted in thousandths)");
        if (fl.num_vnuma() < 1 || !fl.vnuma.graph.is_connected()) throw InputError(where + ": vnuma topology must be a connected graph");
        if (fl.num_vnuma() > kMaxVNuma) throw InputError(where + ": vnuma topology has more than " + std::to_string(kMaxVNuma) + " nodes");
        fl.node_demand.assign(R, 0);
        bool any = false;
        for (int r = 0; r < R; ++r) {
            if (fl.demand[r] < 0) throw InputError(where + ": " + p.resources[r] + " demand is negative");
            if (fl.demand[r] % fl.num_vnuma() != 0)
                throw InputError(where + ": " + p.resources[r] + " demand " + std::to_string(fl.demand[r]) +
                                 " does not split evenly over " + std::to_string(fl.num_vnuma()) + " vNUMA nodes");
            fl.node_demand[r] = fl.demand[r] / fl.num_vnuma();
            any = any || fl.demand[r] > 0;
        }
        if (!any) throw InputError(where + ": demand is zero in every resource");
    }
    for (std::size_t h = 0; h < p.hosts.size(); ++h)
        if (p.hosts[h].type < 0 || p.hosts[h].type >= static_cast<int>(p.host_types.size()))
            throw InputError(file + ": hosts[" + std::to_string(h) + "]: host type index out of range");

    auto usage = std::vector<std::vector<Amount>>(p.hosts.size());
    for (std::size_t h = 0; h < p.hosts.size(); ++h) usage[h].assign(p.host_type_of(static_cast<int>(h)).node_capacity.size(), 0);
    for (std::size_t i = 0; i < p.vms.size(); ++i) {
        const Vm& vm = p.vms[i];
        if (vm.flavor < 0 || vm.flavor >= static_cast<int>(p.flavors.size()))
            throw InputError(vm_where(file, i, vm) + ": flavor index out of range");
        if (vm.host == kUnplaced && allow_unplaced) continue;
        if (vm.host < 0 || vm.host >= static_cast<int>(p.hosts.size()))
            throw InputError(vm_where(file, i, vm) + ": host index out of range");
        const Flavor& fl = p.flavors[vm.flavor];
        const HostType& ht = p.host_type_of(vm.host);
        std::vector<int> map(vm.pnuma.begin(), vm.pnuma.begin() + fl.num_vnuma());
        for (int v = 0; v < fl.num_vnuma(); ++v)
            if (map[v] >= ht.num_nodes())
                throw InputError(vm_where(file, i, vm) + ": pnuma[" + std::to_string(v) + "] = " + std::to_string(map[v] + 1) +
                                 " is not a pNUMA node of host type \"" + ht.name + "\" (1.." + std::to_string(ht.num_nodes()) + ")");
        if (!is_valid_mapping(ht.topology.graph, fl.vnuma.graph, map))
            throw InputError(vm_where(file, i, vm) +
                             ": pnuma: vNUMA nodes must sit on distinct pNUMA nodes and every vNUMA edge on a pNUMA edge of \"" +
                             ht.topology.name + "\"");
        for (int v = 0; v < fl.num_vnuma(); ++v)
            for (int r = 0; r < R; ++r) {
                Amount& u = usage[vm.host][map[v] * R + r];
                u += fl.node_demand[r];
                if (u > ht.node_capacity[map[v] * R + r])
                    throw InputError(vm_where(file, i, vm) + ": pNUMA node " + std::to_string(map[v] + 1) + " of host \"" +
                                     p.hosts[vm.host].id + "\" is over capacity in " + p.resources[r] + " (" + std::to_string(u) + " > " +
                                     std::to_string(ht.node_capacity[map[v] * R + r]) + ")");
            }
    }
    if (p.constraints.max_migrations < 0) throw InputError(file + ": constraints.max_migrations must be >= 0");
    if (p.constraints.max_migrated_ram_mib < 0) throw InputError(file + ": constraints.max_migrated_ram_gib must be >= 0");
}

void weigh_multi_numa_targets(std::vector<Flavor>& flavors) {
    bool any_multi = false;
    for (Flavor& f : flavors) {
        f.weight = f.num_vnuma() >= 2 ? 1.0 : 0.0;
        any_multi = any_multi || f.num_vnuma() >= 2;
    }
    if (!any_multi && !flavors.empty())
        std::max_element(flavors.begin(), flavors.end(), [](const Flavor& a, const Flavor& b) {
            return std::tie(a.demand[kVcpu], a.demand[kRamMib], a.name) < std::tie(b.demand[kVcpu], b.demand[kRamMib], b.name);
        })->weight = 1.0;
}

int largest_one_node_flavor(const std::vector<Flavor>& flavors) {
    int best = -1;
    for (int f = 0; f < static_cast<int>(flavors.size()); ++f) {
        const Flavor& x = flavors[static_cast<std::size_t>(f)];
        if (x.num_vnuma() != 1) continue;
        if (best < 0) {
            best = f;
            continue;
        }
        const Flavor& b = flavors[static_cast<std::size_t>(best)];
        if (std::tie(x.demand[kVcpu], x.demand[kRamMib], x.name) > std::tie(b.demand[kVcpu], b.demand[kRamMib], b.name)) best = f;
    }
    return best;
}

std::vector<std::vector<Amount>> compute_node_usage(const Problem& p) {
    const int R = p.num_resources();
    std::vector<std::vector<Amount>> usage(p.hosts.size());
    for (std::size_t h = 0; h < p.hosts.size(); ++h) usage[h].assign(p.host_type_of(static_cast<int>(h)).node_capacity.size(), 0);
    for (const Vm& vm : p.vms) {
        if (vm.host == kUnplaced) continue;
        const Flavor& fl = p.flavors[vm.flavor];
        for (int v = 0; v < fl.num_vnuma(); ++v)
            for (int r = 0; r < R; ++r) usage[vm.host][vm.pnuma[v] * R + r] += fl.node_demand[r];
    }
    return usage;
}

}  // namespace vmcap

#include "instances/nova_numa.h"

#include <algorithm>
#include <cmath>

#include "instances/openstack.h"

namespace vmcap {

namespace {

/** Python's `int <= float` for the amounts here (< 2^53: exact as doubles). */
bool within(Amount used, double limit) {
    return static_cast<double>(used) <= limit;
}

/** _numa_fit_instance_cell for a shared-CPU cell without a page size, with limits. */
bool cell_fits(const NovaCell& c, Amount vcpus, Amount mem, const NovaSettings& s) {
    if (mem > c.memory_mib) return false;  // can_fit_pagesize(smallest, mem, use_free=False)
    if (vcpus > c.pcpus) return false;
    if (!within(c.cpu_usage + vcpus, static_cast<double>(c.pcpus) * s.cpu_allocation_ratio)) return false;
    return within(c.memory_usage + mem, static_cast<double>(c.memory_mib) * s.ram_allocation_ratio);
}

}  // namespace

bool nova_placement_admits(std::span<const NovaCell> host, Amount vcpus, Amount memory_mib, const NovaSettings& s) {
    Amount pcpus = 0, mem = 0, cpu_used = 0, mem_used = 0;
    for (const NovaCell& c : host) {
        pcpus += c.pcpus;
        mem += c.memory_mib;
        cpu_used += c.cpu_usage;
        mem_used += c.memory_usage;
    }
    // placement: capacity = (total - reserved) * allocation_ratio; refused if capacity < used + amount.
    if (!within(cpu_used + vcpus, static_cast<double>(pcpus) * s.cpu_allocation_ratio)) return false;
    return within(mem_used + memory_mib, static_cast<double>(mem - s.reserved_host_memory_mb) * s.ram_allocation_ratio);
}

NovaFit nova_fit_instance(std::span<const NovaCell> host, int k, Amount cell_vcpus, Amount cell_memory_mib, const NovaSettings& s) {
    NovaFit out;
    const int n = static_cast<int>(host.size());
    if (k < 1 || k > n || k > kMaxVNuma || n > kMaxPNuma) return out;
    std::array<int, kMaxPNuma> order{};
    for (int i = 0; i < n; ++i) order[i] = i;
    if (n > k) {
        // sorted(key=avail_memory, reverse=not pack), then sorted(key=cpu_usage, reverse=pack):
        // both stable (reverse keeps ties in order), so one stable sort on the combined key.
        const auto avail = [&](int i) { return host[i].memory_mib - host[i].memory_usage; };
        std::stable_sort(order.begin(), order.begin() + n, [&](int a, int b) {
            if (host[a].cpu_usage != host[b].cpu_usage)
                return s.pack ? host[a].cpu_usage > host[b].cpu_usage : host[a].cpu_usage < host[b].cpu_usage;
            return s.pack ? avail(a) < avail(b) : avail(a) > avail(b);
        });
    }
    // itertools.permutations(order, k), first one whose every pair fits: a depth-first search in
    // permutation order. Every instance cell is the same size, so a cell's fit is one bit.
    std::array<bool, kMaxPNuma> fits{};
    for (int i = 0; i < n; ++i) fits[i] = cell_fits(host[i], cell_vcpus, cell_memory_mib, s);
    int taken = 0;
    for (int pos = 0; pos < n && taken < k; ++pos)
        if (fits[order[pos]]) out.cells[taken++] = static_cast<std::uint8_t>(order[pos]);
    out.found = taken == k;
    if (!out.found) out.cells = {};
    return out;
}

NovaFit nova_place(std::span<const NovaCell> host, int k, Amount cell_vcpus, Amount cell_memory_mib, const NovaSettings& s) {
    if (!nova_placement_admits(host, cell_vcpus * k, cell_memory_mib * k, s)) return {};
    return nova_fit_instance(host, k, cell_vcpus, cell_memory_mib, s);
}

Amount nova_capacity_of(Amount physical, double ratio) {
    return static_cast<Amount>(std::floor(static_cast<double>(physical) * ratio));
}

Amount nova_physical_of(Amount capacity, double ratio) {
    // floor(p * ratio) is non-decreasing in p; start a little below capacity / ratio.
    Amount p = std::max<Amount>(1, static_cast<Amount>(std::floor(static_cast<double>(capacity) / ratio)) - 2);
    for (; nova_capacity_of(p, ratio) <= capacity; ++p)
        if (nova_capacity_of(p, ratio) == capacity) return p;
    return -1;
}

NovaSettings nova_settings(const NodeRuleSpec& spec) {
    NovaSettings s;
    s.cpu_allocation_ratio = spec.cpu_allocation_ratio;
    s.ram_allocation_ratio = spec.ram_allocation_ratio;
    s.reserved_host_memory_mb = spec.reserved_host_memory_mb;
    s.pack = spec.name == kNovaPackRule;
    return s;
}

bool is_nova_rule(std::string_view name) {
    return name == kNovaSpreadRule || name == kNovaPackRule;
}

std::string node_rule_problem_error(const Problem& p) {
    const NodeRuleSpec& r = p.node_rule;
    if (r.name == kFreeNodeRule) return "";
    if (!is_nova_rule(r.name))
        return "node_rule.name: unknown destination-node rule \"" + r.name + "\" (known: free, nova-spread, nova-pack)";
    for (const auto& [key, ratio] :
         {std::pair<const char*, double>{"cpu_allocation_ratio", r.cpu_allocation_ratio}, {"ram_allocation_ratio", r.ram_allocation_ratio}})
        if (!(ratio > 0.0 && ratio <= kMaxAllocationRatio))
            return std::string("node_rule.") + key + ": expected a number in (0, " + std::to_string(static_cast<int>(kMaxAllocationRatio)) +
                   "]";
    if (r.reserved_host_memory_mb < 0 || r.reserved_host_memory_mb > kMaxAmount)
        return "node_rule.reserved_host_memory_mb: expected an integer in 0.." + std::to_string(kMaxAmount);
    if (p.resources.size() != 2)
        return "resources: the node rule \"" + r.name + "\" models Nova's vCPU and RAM only: expected [\"vcpu\", \"ram_mib\"]";
    for (std::size_t t = 0; t < p.host_types.size(); ++t) {
        const HostType& ht = p.host_types[t];
        const std::string where = "host_types[" + std::to_string(t) + "] (name \"" + ht.name + "\")";
        if (!ht.topology.graph.is_complete())
            return where + ".pnuma: the node rule \"" + r.name + "\" needs a complete pNUMA graph (K<n>): Nova checks no links, so its " +
                   "cells may be no placement of the model on " + ht.topology.name;
        for (int i = 0; i < ht.num_nodes(); ++i)
            for (int res = 0; res < 2; ++res) {
                const double ratio = res == kVcpu ? r.cpu_allocation_ratio : r.ram_allocation_ratio;
                const Amount cap = ht.node_capacity[static_cast<std::size_t>(i) * 2 + res];
                if (nova_physical_of(cap, ratio) < 0)
                    return where + ": node " + std::to_string(i + 1) + "'s " + p.resources[res] + " capacity " + std::to_string(cap) +
                           " is floor(amount x " + (res == kVcpu ? "cpu" : "ram") +
                           "_allocation_ratio) of no whole physical amount (the node rule \"" + r.name +
                           "\" reads the physical cell from it)";
            }
    }
    return "";
}

std::vector<NovaCell> nova_cell_sizes(const HostType& type, const NovaSettings& s) {
    std::vector<NovaCell> cells(static_cast<std::size_t>(type.num_nodes()));
    for (int i = 0; i < type.num_nodes(); ++i) {
        cells[i].pcpus = nova_physical_of(type.node_capacity[static_cast<std::size_t>(i) * 2 + kVcpu], s.cpu_allocation_ratio);
        cells[i].memory_mib = nova_physical_of(type.node_capacity[static_cast<std::size_t>(i) * 2 + kRamMib], s.ram_allocation_ratio);
    }
    return cells;
}

}  // namespace vmcap

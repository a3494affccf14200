#include "instances/vnuma_rule.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <stdexcept>

namespace vmcap {

namespace {

std::string gib_text(Amount mib) {
    char buf[64];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<double>(mib) / 1024.0, std::chars_format::fixed);
    return ec == std::errc{} ? std::string(buf, p) : std::to_string(mib) + "MiB";
}

std::string demand_text(const std::vector<Amount>& demand) {
    std::string s = "[";
    for (std::size_t r = 0; r < demand.size(); ++r) {
        if (r) s += ',';
        s += std::to_string(demand[r]);
    }
    return s + "]";
}

bool embeds(const Graph& host, const Graph& guest) {
    return !enumerate_embeddings(host, guest).empty();
}

}  // namespace

Topology vnuma_topology_for(const HostType& host, const std::vector<Amount>& demand, const std::string& flavor_name,
                            const VnumaRule& rule) {
    const int n = host.num_nodes();
    const auto R = demand.size();
    const std::string who = "flavor '" + flavor_name + "' (demand " + demand_text(demand) + ") on host type '" + host.name + "'";
    if (R == 0 || n < 1 || host.node_capacity.size() != static_cast<std::size_t>(n) * R)
        throw InputError(who + ": host type has " + std::to_string(host.node_capacity.size()) + " node capacities, expected " +
                         std::to_string(n) + " nodes x " + std::to_string(R) + " resources");
    if (!(rule.max_node_fraction > 0.0 && rule.max_node_fraction <= 1.0)) throw InputError(who + ": max node fraction must be in (0, 1]");
    for (Amount d : demand)
        if (d < 0) throw InputError(who + ": negative demand");
    std::vector<Amount> cap(R, std::numeric_limits<Amount>::max());  // smallest node per resource
    for (int i = 0; i < n; ++i)
        for (std::size_t r = 0; r < R; ++r) cap[r] = std::min(cap[r], host.node_capacity[static_cast<std::size_t>(i) * R + r]);

    auto divisible = [&](int k) { return std::all_of(demand.begin(), demand.end(), [k](Amount d) { return d % k == 0; }); };
    auto fits = [&](int k, double fraction) {
        for (std::size_t r = 0; r < R; ++r)
            if (static_cast<double>(demand[r] / k) > fraction * static_cast<double>(cap[r])) return false;
        return true;
    };

    if (auto it = rule.overrides.find(flavor_name); it != rule.overrides.end()) {
        Topology t;
        try {
            t = parse_topology(it->second);
        } catch (const std::invalid_argument& e) {
            throw InputError(who + ": vNUMA override: " + e.what());
        }
        const int k = t.size();
        if (k > kMaxVNuma || !embeds(host.topology.graph, t.graph))
            throw InputError(who + ": vNUMA override " + t.name + " does not embed in host topology " + host.topology.name);
        if (!divisible(k)) throw InputError(who + ": vNUMA override " + t.name + ": demand not divisible by " + std::to_string(k));
        if (!fits(k, 1.0)) throw InputError(who + ": vNUMA override " + t.name + ": per-node demand exceeds a pNUMA node");
        return t;
    }

    std::vector<double> passes{rule.max_node_fraction};
    if (rule.max_node_fraction < 1.0) passes.push_back(1.0);
    for (double fraction : passes) {
        for (int k : {1, 2, 4}) {
            if (k > n || !divisible(k) || !fits(k, fraction)) continue;
            Topology t = parse_topology(k == 1 ? "K1" : k == 2 ? "K2" : "K4");
            if (k == 4 && !embeds(host.topology.graph, t.graph)) t = parse_topology("C4");
            if (!embeds(host.topology.graph, t.graph)) continue;
            return t;
        }
    }
    throw InputError(who +
                     ": no vNUMA split into 1, 2 or 4 nodes fits the pNUMA nodes; use a vNUMA override "
                     "or larger nodes");
}

HostType uniform_host_type(const std::string& topology_name, Amount node_vcpu, Amount node_ram_mib) {
    HostType t;
    try {
        t.topology = parse_topology(topology_name);
    } catch (const std::invalid_argument& e) {
        throw InputError(std::string("host type: ") + e.what());
    }
    if (node_vcpu <= 0 || node_ram_mib <= 0) throw InputError("host type: node capacities must be > 0");
    t.name = t.topology.name + "-" + std::to_string(node_vcpu) + "c" + gib_text(node_ram_mib) + "g";
    for (int i = 0; i < t.topology.size(); ++i) {
        t.node_capacity.push_back(node_vcpu);
        t.node_capacity.push_back(node_ram_mib);
    }
    return t;
}

}  // namespace vmcap

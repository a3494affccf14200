#pragma once
/**
 * @file vnuma_rule.h
 * How a flavor from a trace (which carries only vCPU and RAM) is split into vNUMA nodes on a
 * host type, and uniform host types: shared by trace replay (placement/replay.h), the generator
 * and the NetSolver importer.
 *
 * Units: vCPU, MiB of RAM.
 */
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "instances/problem.h"
#include "instances/topology.h"

namespace vmcap {

/**
 * How a flavor is split into vNUMA nodes on a host type.
 *
 * Rule (vnuma_topology_for): the fewest vNUMA nodes k in {1, 2, 4} (k <= the host's pNUMA node
 * count) such that the demand is divisible by k in every resource, the per-node demand is
 * <= max_node_fraction x the pNUMA node capacity in every resource (the smallest node's, if the
 * nodes differ), and the k-node graph embeds in the host graph; if no k qualifies, the same with
 * fraction 1.0; if still none, InputError. Graphs: k = 1 -> K1, k = 2 -> K2, k = 4 -> K4 if K4
 * embeds in the host graph, else C4 (CQ3 and Q33 hosts have no K4, so they get C4, which has a
 * closed form).
 */
struct VnumaRule {
    /** Largest per-vNUMA-node share of a pNUMA node's capacity on the first pass, in (0, 1]. */
    double max_node_fraction = 0.5;
    /**
     * Flavor name -> named topology (parse_topology), replacing the rule for that flavor. Validated
     * when used: the graph must embed in the host graph, the demand must be divisible by its node
     * count, and the per-node demand must fit one pNUMA node.
     */
    std::map<std::string, std::string> overrides;
};

/**
 * The vNUMA topology of a flavor with total `demand` (one entry per resource, in the order of the
 * host type's node_capacity layout [node * R + r], R = demand.size()) on `host`, by `rule` (see
 * VnumaRule). Throws InputError naming `flavor_name` if no split qualifies, an override is
 * invalid (unknown topology, does not embed, demand not divisible, node over capacity), the
 * fraction is outside (0, 1], or the shapes disagree. Cost: a few enumerate_embeddings calls
 * (once per flavor, never on a hot path). Pure, thread-safe.
 */
Topology vnuma_topology_for(const HostType& host, const std::vector<Amount>& demand, const std::string& flavor_name, const VnumaRule& rule);

/**
 * Host type with `topology_name` (parse_topology) and every pNUMA node of capacity (node_vcpu
 * vCPU, node_ram_mib MiB), named "<TOPO>-<V>c<G>g" with G = node RAM in GiB printed minimally
 * (e.g. "CQ3-16c64g", "K2-40c90g"). Throws InputError on an unknown topology or a capacity <= 0.
 */
HostType uniform_host_type(const std::string& topology_name, Amount node_vcpu, Amount node_ram_mib);

}  // namespace vmcap

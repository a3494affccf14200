#pragma once
/**
 * @file problem.h
 * Immutable problem data: resources, host types, hosts, flavors, VMs and migration constraints,
 * exactly as loaded from a cluster snapshot (docs/format.md). Built once, then shared by
 * `const&` across threads; nothing here changes during a search.
 *
 * Units: every capacity and demand is an integer in the unit its resource names (vCPU, MiB of
 * RAM, ...), so `before + delta == after` holds exactly.
 */
#include <array>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>
#include <utility>

#include "instances/network.h"
#include "instances/topology.h"

namespace vmcap {

/** Integer amount of one resource (vCPU, MiB, cache ways, ...). */
using Amount = std::int64_t;

/**
 * Bad user input (snapshot, plan, trace or option). The message is one line and names the file
 * and the JSON path or id at fault. The CLI maps it to exit code 2.
 */
struct InputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/** Most resources a snapshot may declare (fixed-size buffers on the move-evaluation path). */
inline constexpr int kMaxResources = 16;

/** Index of the vCPU resource in Problem::resources (always first). */
inline constexpr int kVcpu = 0;
/** Index of the RAM resource (MiB) in Problem::resources (always second). */
inline constexpr int kRamMib = 1;

/** A server model: pNUMA topology and the capacity of each pNUMA node in each resource. */
struct HostType {
    std::string name;
    Topology topology;
    /** Capacity of pNUMA node i in resource r at [i * R + r], R = Problem::resources.size(). */
    std::vector<Amount> node_capacity;

    /** NIC uplink capacity of every host of this type, Mbps in each direction (full duplex; JSON
     *  `nic_mbps`); 0 when not given, which only a snapshot without a network may leave. */
    std::int64_t nic_mbps = 0;

    int num_nodes() const { return topology.size(); }
};

/** Largest accepted resource amount (capacity or demand, in its unit: vCPU, MiB, ...), 2^40:
 *  keeps every sum of amounts and capacity counts far from int64 overflow. */
inline constexpr std::int64_t kMaxAmount = std::int64_t{1} << 40;

/** Weights (flavor weights, objective-term weights) are fixed-point with this many units per 1:
 *  at most three decimals, so the objective is an exact integer (evaluators/closed_forms/score.h). */
inline constexpr std::int64_t kWeightScale = 1000;
/** Largest accepted weight: keeps weighted sums of cluster capacities far below int64 overflow. */
inline constexpr double kMaxWeight = 100000.0;

/** `w` in thousandths, or -1 if it is negative, above kMaxWeight, or has more than three decimals. */
inline std::int64_t weight_milli(double w) {
    if (!(w >= 0.0 && w <= kMaxWeight)) return -1;
    const double x = w * static_cast<double>(kWeightScale);
    const auto m = static_cast<std::int64_t>(x + 0.5);
    const double err = x - static_cast<double>(m);
    return (err > 1e-6 || err < -1e-6) ? -1 : m;
}

/** A VM size: total demand per resource, split evenly over the vNUMA nodes of `vnuma`. */
struct Flavor {
    std::string name;
    std::vector<Amount> demand;       ///< total demand per resource (size R)
    std::vector<Amount> node_demand;  ///< demand of one vNUMA node = demand / k (exact; checked on load)
    Topology vnuma;                   ///< vNUMA graph: K1, K2, K3, C4, K4 (or another connected graph)
    double weight = 0.0;              ///< in [0, kMaxWeight], at most 3 decimals; weight > 0: a capacity target
    /** Hose bandwidth one VM of this flavor needs to and from the network, Mbps (JSON
     *  `bandwidth_mbps`, 0..kMaxMbps; 0: none). With a network section, capacity for it is also
     *  limited by free uplink bandwidth (evaluators/objective/bandwidth_capacity.h); without one it is ignored. */
    std::int64_t bandwidth_mbps = 0;
    /** Forecast need, VMs (instances/forecast.h): how many more VMs of this flavor the coming
     *  requests will ask for; the objective term `uncovered-need` charges the part the cluster's
     *  capacity does not cover. -1: no forecast (the term ignores the flavor). Set in memory by
     *  `vmcap simulate --weights forecast` and `vmcap plan --requests`, recorded in the plan file
     *  (`flavor_needs`); not a snapshot field. */
    std::int64_t need = -1;

    int num_vnuma() const { return vnuma.size(); }
    bool is_target() const { return weight > 0.0; }
};

/** A server: its host type and its place in the network (rack = ToR, pod = aggregation). */
struct Host {
    std::string id;
    int type = 0;  ///< index into Problem::host_types
    std::string rack;
    std::string pod;
    /** The switch its NIC attaches to, as given (JSON `uplink`); empty: the switch named by
     *  `rack`. Resolved into Network::host_switch by the loader. */
    std::string uplink;
};

/** Vm::host of a VM that is not on any host yet: an arriving VM of an in-memory problem built
 *  for placement (placement/), never in a loaded snapshot. */
inline constexpr int kUnplaced = -1;

/** A running VM and its current placement. */
struct Vm {
    std::string id;
    int flavor = 0;  ///< index into Problem::flavors
    int host = 0;    ///< index into Problem::hosts, or kUnplaced (only with finalize_problem's allow_unplaced)
    /** pNUMA node (0-based) of each vNUMA node; entries past the flavor's vNUMA count are 0. */
    std::array<std::uint8_t, kMaxVNuma> pnuma{};
    bool migratable = true;
    /** The tenant (OpenStack project) that owns the VM, JSON `tenant`; empty: none. Read by the
     *  schedule's per-tenant limit (MigrationLimits::per_tenant). */
    std::string tenant;
};

/** Policy of an OpenStack server group (Nova's names). */
enum class GroupPolicy {
    AntiAffinity,      ///< "anti-affinity": no two members on one host, at every instant of a plan
    Affinity,          ///< "affinity": all members on one host (so a member may only be remapped)
    SoftAntiAffinity,  ///< "soft-anti-affinity": members apart where possible: an objective term
};

/** Nova's name of a policy: "anti-affinity", "affinity", "soft-anti-affinity". */
inline const char* to_string(GroupPolicy p) {
    return p == GroupPolicy::AntiAffinity ? "anti-affinity" : p == GroupPolicy::Affinity ? "affinity" : "soft-anti-affinity";
}

/** An OpenStack server group: a placement policy over some VMs (JSON `server_groups`). */
struct ServerGroup {
    std::string id;
    GroupPolicy policy = GroupPolicy::AntiAffinity;
    std::vector<int> members;  ///< indices into Problem::vms, distinct, each VM in at most one group
};

/** Migration budget of a plan. */
struct Constraints {
    /** Maximum number of live migrations (plan steps). */
    std::int64_t max_migrations = std::numeric_limits<std::int64_t>::max();
    /** Maximum RAM moved by live migration, summed over plan steps, in MiB. */
    Amount max_migrated_ram_mib = std::numeric_limits<Amount>::max();
    /** Does moving a VM to other pNUMA nodes of its own host (a remap) count as a live migration
     *  (budget slot and RAM)? Default yes: hypervisors implement it as a local live migration.
     *  JSON constraints.remap_counts_as_migration. */
    bool remap_counts_as_migration = true;
    /** May a VM move to other pNUMA nodes of its own host (a remap)? JSON constraints.remaps_allowed
     *  (default true; `vmcap plan --no-remaps`). OpenStack Nova cannot re-pin a running VM's NUMA
     *  cells, so `vmcap import openstack` writes false (the no-remaps rule). */
    bool remaps_allowed = true;
    /** Hosts the plan must empty (JSON constraints.drain_hosts, `vmcap plan --drain`): no VM may
     *  move onto one, and every VM on one is migrated off before the plan ends. Indices into
     *  Problem::hosts, sorted, distinct. */
    std::vector<int> drain_hosts;
    /** Hosts closed to incoming VMs (constraints.no_target_hosts, `--no-target`): a VM there may
     *  stay, leave or be remapped, none may arrive. Sorted, distinct. */
    std::vector<int> no_target_hosts;
};

/**
 * The destination-node rule a snapshot asks for (JSON `node_rule`, docs/format.md): which pNUMA
 * nodes a VM gets when it arrives on a host (evaluators/interfaces/seams.h, DestinationNodeRule).
 * "free" (the default: the search chooses), or "nova-spread" / "nova-pack" (OpenStack Nova's NUMA
 * cell fitting, instances/nova_numa.h) with Nova's settings below, which only Nova's rules read.
 */
struct NodeRuleSpec {
    std::string name = "free";
    double cpu_allocation_ratio = 1.0;  ///< Nova's cpu_allocation_ratio: node vCPU capacity = floor(pCPUs x ratio)
    double ram_allocation_ratio = 1.0;  ///< Nova's ram_allocation_ratio: node RAM capacity = floor(MiB x ratio)
    /** Nova's reserved_host_memory_mb: Placement's host-level reserve (default 512, Nova's). */
    std::int64_t reserved_host_memory_mb = 512;
    bool operator==(const NodeRuleSpec&) const = default;
};

/**
 * A whole cluster snapshot. Invariants after load_snapshot(): indices are in range, ids are
 * unique, every VM's mapping is valid on its host, and no pNUMA node is over capacity.
 */
struct Problem {
    std::vector<std::string> resources;  ///< resources[0] == "vcpu", resources[1] == "ram_mib"
    std::vector<HostType> host_types;
    std::vector<Host> hosts;
    std::vector<Flavor> flavors;
    std::vector<Vm> vms;
    Constraints constraints;
    /** Objective terms beyond VMCAP capacity, by registry name (evaluators/registry/registry.h) with their
     *  weight; set by the CLI (`vmcap plan --ram-cost W`). Empty: the objective is VMCAP only. */
    std::vector<std::pair<std::string, double>> objective_terms;
    /** The datacenter network (empty when the snapshot has none: then there are no vlinks and
     *  every bandwidth rule is off). */
    Network network;
    /** Bandwidth reservations between VMs (docs/format.md "Network and vlinks"). */
    std::vector<Vlink> vlinks;
    /** VDC (tenant) ids; Vlink::vdc indexes them. */
    std::vector<std::string> vdcs;
    /** OpenStack server groups (anti-affinity, affinity, soft-anti-affinity). */
    std::vector<ServerGroup> server_groups;
    /** Free-form provenance (trace, seed, time, licence/attribution); copied to outputs. */
    std::string source;
    /** The destination-node rule (JSON `node_rule`; default "free"). */
    NodeRuleSpec node_rule;

    int num_resources() const { return static_cast<int>(resources.size()); }
    const HostType& host_type_of(int host) const { return host_types[hosts[host].type]; }
};

/**
 * Checks the invariants listed on Problem. Throws InputError naming `file` and the JSON path
 * (e.g. "cluster.json: vms[12] (id \"vm-12\"): pNUMA node 3 is over capacity in ram_mib").
 * Also fills Flavor::node_demand. O(VMs * k^2 + hosts * nodes * R). With `allow_unplaced`, a VM
 * whose host is kUnplaced is accepted (its pnuma is ignored): the problems that placement/ builds
 * to place arriving VMs; a loaded snapshot never has one.
 */
void finalize_problem(Problem& problem, const std::string& file, bool allow_unplaced = false);

/**
 * The default capacity targets of the snapshots vmcap builds (trace replay, `generate`, the
 * NetSolver import): weight 1 for every flavor of >= 2 vNUMA nodes (the multi-NUMA flavors whose
 * capacity fragmentation takes), 0 for the rest; if none has two, weight 1 for the largest by
 * (vCPU, RAM, name). O(flavors).
 */
void weigh_multi_numa_targets(std::vector<Flavor>& flavors);

/**
 * Index of the largest flavor of one vNUMA node by (vCPU, RAM, name): the one-node VM that needs
 * the most of one pNUMA node, whose room (held by every smaller one-node flavor too) the
 * multi-NUMA targets do not keep (`vmcap simulate --placer-one-node`); -1 when no flavor has one
 * node. O(flavors).
 */
int largest_one_node_flavor(const std::vector<Flavor>& flavors);

/** Used amount of every pNUMA node of every host, recomputed from the placed VMs: [host][node * R + r]. */
std::vector<std::vector<Amount>> compute_node_usage(const Problem& problem);

}  // namespace vmcap

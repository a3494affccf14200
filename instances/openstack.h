#pragma once
/**
 * @file openstack.h
 * `vmcap import openstack`: a snapshot from the JSON that the standard OpenStack clients print
 * (docs/format.md "vmcap import openstack" lists every field read):
 *   openstack hypervisor list --long -f json       -> hosts ("Hypervisor Hostname", "vCPUs", "Memory MB", "State")
 *   openstack server list --all-projects --long -f json -> VMs ("ID", "Status", "Flavor Name"/"Flavor", "Host", "Project ID")
 *   openstack flavor list --long -f json           -> flavors ("Name", "VCPUs", "RAM", "Properties": hw:numa_nodes)
 *   openstack server group list --long -f json     -> server groups ("ID", "Name", "Policy"/"Policies", "Members")
 * The Nova API does not list a host's NUMA topology or a server's NUMA cells, so the host's pNUMA
 * graph is given (OpenStackOptions::host_topology; its vCPUs and RAM split evenly over the nodes)
 * and each VM's vNUMA nodes are placed on its host's pNUMA nodes. Under a Nova node rule
 * (OpenStackOptions::node_rule, default nova-spread): each host's servers replayed oldest first
 * ("Created" / "created_at" when every row has one, else the order listed), each on the cells
 * Nova's rule picks (instances/nova_numa.h, nova_fit_instance); when that replay leaves a server
 * without room, a depth-first search for an order of the host's arrivals whose rule choices fit
 * them all. Under "free": vmcap's first fit (the first node set, in the host type's placement
 * order, with room), servers in the order listed.
 */
#include <string>

#include <nlohmann/json.hpp>

#include "instances/problem.h"

namespace vmcap {

/** Largest cpu_allocation_ratio / ram_allocation_ratio accepted: Nova's defaults are 16 and 1.5 (4
 *  and 1 for the initial_* options); far beyond is a typing error, and infinity would overflow the
 *  capacities. */
inline constexpr double kMaxAllocationRatio = 1000.0;

struct OpenStackOptions {
    std::string host_topology = "K2";   ///< pNUMA graph of every hypervisor (K<n>, C4, CQ3, ...)
    double cpu_allocation_ratio = 1.0;  ///< vCPUs per physical "vCPUs" of a hypervisor (Nova's cpu_allocation_ratio; pinned NUMA clouds: 1)
    double ram_allocation_ratio = 1.0;  ///< Nova's ram_allocation_ratio
    /** Nova's reserved_host_memory_mb: under a Nova node rule Placement's host-level reserve
     *  (the snapshot's node_rule.reserved_host_memory_mb); under "free" subtracted before the split. */
    std::int64_t reserved_host_memory_mb = 0;
    /** The snapshot's destination-node rule: "nova-spread" (Nova's default cell order), "nova-pack"
     *  or "free" (docs/format.md `node_rule`). */
    std::string node_rule = "nova-spread";
};

/** One input document and the file it came from (for error messages). */
struct OpenStackInput {
    nlohmann::json doc;
    std::string file;
};

/**
 * Builds the snapshot. Hypervisors whose "State" is not "up" are left out (and so are their
 * servers). Servers: "ACTIVE" ones are migratable; other states with a host ("SHUTOFF", "PAUSED",
 * "SUSPENDED", ...) hold their resources but are not live-migratable (migratable false); servers
 * without a host (BUILD, ERROR without a host) are skipped and counted in `skipped`. A flavor's
 * vNUMA node count is hw:numa_nodes (default 1): K1, K2, K3, K4 — C4 when K4 does not embed in the
 * host graph — else K<n>; hw:numa_cpus.N / hw:numa_mem.N (asymmetric nodes) are refused. Target
 * weights: weigh_multi_numa_targets. Server groups with policies anti-affinity, affinity and
 * soft-anti-affinity are kept (soft-affinity is dropped: vmcap has no term for it), members not
 * among the imported servers dropped. Throws InputError naming the file and the JSON path (e.g.
 * "servers.json: [12] (ID \"...\").Host: unknown hypervisor \"c9\"") on a bad field, an unknown
 * flavor or host, a flavor whose demand does not split evenly, a VM that does not fit its host's
 * pNUMA nodes, a duplicate server ID, a server list without hosts (no "Host" column, or an ACTIVE
 * server without one: the list of a non-admin user), a hypervisor list without "vCPUs" and
 * "Memory MB" (Nova API microversion >= 2.88); InputError on an allocation ratio outside (0,
 * kMaxAllocationRatio] (NaN and infinity included) or a negative reserved memory.
 * O(servers x placements + hypervisors).
 */
Problem import_openstack(const OpenStackInput& hypervisors, const OpenStackInput& servers, const OpenStackInput& flavors,
                         const OpenStackInput* server_groups, const OpenStackOptions& options, int* skipped = nullptr);

}  // namespace vmcap

#pragma once
/**
 * @file openstack.h
 * `vmcap import openstack`: a snapshot from the JSON that the standard OpenStack clients print
 * (python3-openstackclient 6.0; docs/format.md "vmcap import openstack" lists every field read and
 * the commands, with their microversion flags):
 *   openstack hypervisor list --long -f json  -> hosts ("ID", "Hypervisor Hostname", "vCPUs", "Memory MB", "State")
 *   openstack server list --all-projects --long [-c ... -c "Created At"] -f json
 *                                             -> VMs ("ID", "Status", "Flavor Name" (< 2.47) or "Flavor" (>= 2.47),
 *                                                "Host", "Project ID", "Created At")
 *   openstack flavor list --all --long -f json -> flavors ("ID", "Name", "VCPUs", "RAM", "Properties": hw:numa_nodes)
 *   openstack server group list --long -f json -> server groups ("ID", "Name", "Policy"/"Policies", "Members")
 *   openstack resource provider inventory list <ID> -f json (optional, microversion >= 2.88: a
 *                                                hypervisor's capacity; one document per hypervisor)
 * The Nova API does not list a host's NUMA topology or a server's NUMA cells, so the host's pNUMA
 * graph is given (OpenStackOptions::host_topology, or host_topology_of for named hypervisors; its
 * vCPUs and RAM split evenly over the nodes)
 * and each VM's vNUMA nodes are placed on its host's pNUMA nodes with the servers replayed in
 * creation order, oldest first, as Nova placed them ("Created At" when listed, else the listing
 * taken as Nova's default order, newest first, and replayed from its end). Under a Nova node rule
 * (OpenStackOptions::node_rule, default nova-spread) each server takes the cells Nova's rule picks
 * (instances/nova_numa.h, nova_fit_instance); when that replay leaves a server of a host without
 * room, a depth-first search for an order of the host's arrivals whose rule choices fit them all.
 * Under "free": vmcap's first fit (the first node set, in the host type's placement order, with
 * room), in the same replay order.
 */
#include <map>
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
    /** Per-hypervisor pNUMA graphs, overriding host_topology for the hypervisor each names: by its
     *  "Hypervisor Hostname" as listed, or by the host id the import gives it (the first label of
     *  that name where unambiguous among the hypervisors that are up). A name of a listed
     *  hypervisor that is not up (its hostname or the hostname's first label) is ignored; one matching no listed hypervisor, or two names of one
     *  hypervisor, throw InputError naming --host-topology. */
    std::map<std::string, std::string> host_topology_of{};
};

/** One input document and the file it came from (for error messages). */
struct OpenStackInput {
    nlohmann::json doc;
    std::string file;
};

/** Placement inventories, for a hypervisor list that has no capacity (Nova API microversion
 *  >= 2.88, where `hypervisor list --long` prints "vCPUs" and "Memory MB" empty): by hypervisor
 *  "ID" (from microversion 2.53 the compute node's UUID, which is its resource provider's UUID),
 *  each the JSON array `openstack resource provider inventory list <ID> -f json` prints (rows
 *  "resource_class", "total", "reserved", "allocation_ratio"). */
struct OpenStackInventories {
    std::string dir;                              ///< where they were read (named in errors about a missing one)
    std::map<std::string, OpenStackInput> by_id;  ///< hypervisor ID -> its inventory list
};

/**
 * Builds the snapshot. Hypervisors whose "State" is not "up" are left out (and so are their
 * servers). One host type per distinct pNUMA graph and per-node capacity (named
 * "<graph>-<vCPUs>c-<MiB>m" per node). A hypervisor's capacity: its "vCPUs" and "Memory MB", or with `inventories` its
 * inventory's VCPU (or PCPU) and MEMORY_MB "total" — whose "allocation_ratio" and MEMORY_MB
 * "reserved" must then equal the options' (else InputError naming the flag to pass). Servers:
 * "ACTIVE" ones are migratable; other states with a host ("SHUTOFF", "PAUSED", "SUSPENDED", ...)
 * hold their resources but are not live-migratable (migratable false); servers without a host
 * (BUILD, ERROR without a host) are skipped and counted in `skipped`. A server's flavor: "Flavor
 * Name" (microversion < 2.47; "Flavor ID" when the name is empty), else "Flavor" (>= 2.47: the
 * flavor's name when the server was created). VMs keep the listed order; their vNUMA nodes are
 * placed replaying the servers oldest first: by "Created At" (ISO 8601; ties: later in the list
 * first, Nova's order) when the list has that column, else from the list's end (Nova lists
 * newest first); each on the cells options.node_rule gives it (nova-spread / nova-pack: Nova's
 * cell fitting, with an order search per host when the replay leaves a server without room, and
 * the rule with its ratios and reserved memory written to Problem::node_rule; free: vmcap's first
 * fit). A flavor's vNUMA node count is hw:numa_nodes (default 1): K1, K2, K3, K4 — C4
 * when K4 does not embed in some host graph of 4 or more nodes — else K<n> (at most the largest
 * host graph's nodes); hw:numa_cpus.N / hw:numa_mem.N
 * (asymmetric nodes) are refused. Target weights: weigh_multi_numa_targets. Server groups with
 * policies anti-affinity, affinity and soft-anti-affinity are kept (soft-affinity is dropped:
 * vmcap has no term for it), members not among the imported servers dropped. Throws InputError
 * naming the file and the JSON path (e.g. "servers.json: [12] (ID \"...\").Host: unknown
 * hypervisor \"c9\"") on a bad field, an unknown flavor or host, a flavor whose demand does not
 * split evenly, a VM that does not fit its host's pNUMA nodes, a duplicate server ID, a bad or
 * partly missing "Created At", a server list without hosts (no "Host" column, or an ACTIVE server
 * without one: the list of a non-admin user), a hypervisor without capacity (microversion >=
 * 2.88) and no inventory for it, what to run instead in the message; InputError on an allocation
 * ratio outside (0, kMaxAllocationRatio] (NaN and infinity included), a negative reserved memory,
 * a node rule other than nova-spread, nova-pack or free, or a Nova rule on a host topology that is
 * not complete (K<n>) (the default's or a named hypervisor's), a host_topology_of graph that does
 * not parse, a name matching no listed hypervisor, or two names of one hypervisor. O(servers x (placements + log servers) + hypervisors), plus, per host whose
 * Nova replay fails, an order search of at most 200000 states.
 */
Problem import_openstack(const OpenStackInput& hypervisors, const OpenStackInput& servers, const OpenStackInput& flavors,
                         const OpenStackInput* server_groups, const OpenStackOptions& options, int* skipped = nullptr,
                         const OpenStackInventories* inventories = nullptr);

}  // namespace vmcap

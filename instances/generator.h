#pragma once
/**
 * @file generator.h
 * Random fragmented cluster snapshots for tests, benchmarks and users trying the tool
 * (`vmcap generate`). Seeded and deterministic: the same options give the same snapshot.
 */
#include <cstdint>
#include <string>

#include "instances/datacenter_network.h"
#include "instances/problem.h"

namespace vmcap {

struct GenerateOptions {
    int hosts = 100;
    int vms = 3000;  ///< target number of VMs in the snapshot (fewer if the hosts fill up)
    std::string host_topology = "CQ3";
    Amount node_vcpu = 16;            ///< per pNUMA node
    Amount node_ram_mib = 64 * 1024;  ///< per pNUMA node
    double churn = 0.3;               ///< fraction of extra VMs placed then deleted, which fragments free space
    double migration_budget = 0.01;   ///< max_migrations = ceil(this x VMs)
    std::uint64_t seed = 1;
    int hosts_per_rack = 20;
};

/**
 * Builds a snapshot: one host type, the flavor catalog 1c2g, 2c4g, 4c8g, 4c16g, 8c32g, 8c64g,
 * 16c64g, 16c128g with vNUMA topologies by the default rule of vnuma_rule.h (weight 1 for the
 * multi-NUMA ones), VMs placed at random feasible (host, placement) pairs with a churn phase
 * that deletes random VMs, so free capacity is scattered. Throws InputError on impossible options
 * (no host can hold any flavor, hosts < 1, vms < 0). O(vms x placements) expected.
 */
Problem generate_cluster(const GenerateOptions& options);

/** A datacenter network and VDC vlinks for a generated cluster (`vmcap generate --network ...`):
 *  the network of DatacenterNetworkOptions (instances/datacenter_network.h), plus random VDCs. */
struct NetworkOptions : DatacenterNetworkOptions {
    int vdc_size = 0;           ///< VMs per VDC, at most 30 (Gridiron's cap); 0: no vlinks
    std::int64_t bpc_mbps = 2;  ///< vlink Mbps per vCPU: bandwidth = bpc x min(vCPU of its two VMs)
    std::uint64_t seed = 1;
};

/**
 * Adds a network to `problem` with build_datacenter_network (hosts keep their racks; every rack
 * becomes a ToR switch named like it; "leaf-spine", "tree" or "jupiter"). With vdc_size > 0, the
 * VMs (shuffled with `seed`) are cut into VDCs of vdc_size with all-to-all vlinks of
 * bpc x min(vCPU) Mbps (add_all_to_all_vdc), as Gridiron builds its workload from Azure tenants
 * (seed 003 digest §3.3). Throws InputError ("generate: ...") on bad options.
 * O(hosts + VMs x vdc_size).
 */
void add_network(Problem& problem, const NetworkOptions& options);

}  // namespace vmcap

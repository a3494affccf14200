#pragma once
/**
 * @file generator.h
 * Random fragmented cluster snapshots for tests, benchmarks and users trying the tool
 * (`vmcap generate`). Seeded and deterministic: the same options give the same snapshot.
 */
#include <cstdint>
#include <string>

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
 * 16c64g, 16c128g with vNUMA topologies by the default rule of replay.h (weight 1 for the
 * multi-NUMA ones), VMs placed at random feasible (host, placement) pairs with a churn phase
 * that deletes random VMs, so free capacity is scattered. Throws InputError on impossible options
 * (no host can hold any flavor, hosts < 1, vms < 0). O(vms x placements) expected.
 */
Problem generate_cluster(const GenerateOptions& options);

}  // namespace vmcap

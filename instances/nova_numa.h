#pragma once
/**
 * @file nova_numa.h
 * OpenStack Nova's choice of a server's NUMA cells (Nova 26 "Zed", nova/virt/hardware.py), as
 * one pure function shared by the OpenStack import's initial placement (instances/openstack.cpp)
 * and the destination-node rules "nova-spread" / "nova-pack" (evaluators/rules/nova_node_rule.h).
 *
 * Scope: instances with shared (unpinned) CPUs, no hugepages, no PCI devices, no emulator-thread
 * isolation, every instance cell of the same size (vmcap splits a flavor evenly, and Nova splits
 * hw:numa_nodes=k without hw:numa_cpus.N / hw:numa_mem.N evenly too). The contract, step by step
 * as Nova does it:
 *  1. Placement (host level, nova's resource provider inventories, placement's
 *     `_check_capacity_exceeded`): VCPU used + new <= (sum of pCPUs) x cpu_allocation_ratio and
 *     MEMORY_MB used + new <= (sum of cell memory - reserved_host_memory_mb) x ram_allocation_ratio.
 *     A host that fails it is not a candidate at all.
 *  2. `numa_fit_instance_to_host`: only when the host has more cells than the instance, the host
 *     cells are sorted by `avail_memory` (memory - memory_usage), most first, then stable-sorted by
 *     `cpu_usage`, least first (spread: `[compute] packing_host_numa_cells_allocation_strategy =
 *     False`, Nova's default); pack (`True`) sorts by avail_memory least first, then by cpu_usage
 *     most first. Python's `sorted(reverse=True)` keeps equal keys in their original order, so the
 *     effective keys are (cpu_usage asc, avail_memory desc, cell id asc) for spread and (cpu_usage
 *     desc, avail_memory asc, cell id asc) for pack. With as many cells as the instance, the cells
 *     stay in id order.
 *  3. `itertools.permutations(cells, k)`: the first permutation (lexicographic in the sorted
 *     order) in which instance cell i fits host cell perm[i] for every i wins.
 *  4. `_numa_fit_instance_cell`, per pair: instance cell memory <= the cell's memory (physical, no
 *     ratio: with `host_cell.mempages` set, as libvirt reports it, the check is
 *     `can_fit_pagesize(smallest page, memory, use_free=False)`, i.e. against the total of the
 *     smallest pages, which is the cell's memory when no hugepages are configured); instance cell
 *     vCPUs <= the cell's pCPUs; cpu_usage + vCPUs <= pCPUs x cpu_allocation_ratio; memory_usage +
 *     memory <= memory x ram_allocation_ratio. The products are IEEE doubles, as in Python.
 *
 * Since the instance cells are identical, whether a host cell fits does not depend on which
 * instance cell it gets, and the first permutation is the first k fitting cells of the sorted
 * order (nova_fit finds it by a depth-first search in permutation order, which is the same thing
 * in general).
 *
 * vmcap's model of such a host: pNUMA node i with pCPUs p_i and memory m_i MiB has capacity
 * floor(p_i x cpu_allocation_ratio) vCPU and floor(m_i x ram_allocation_ratio) MiB (Nova's per-cell
 * limits; a usage within them is what Nova admits), and reserved_host_memory_mb is a host-level
 * limit (Placement), not part of any node's capacity.
 */
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "instances/problem.h"

namespace vmcap {

/** The registry names of Nova's two cell orders (evaluators/rules/nova_node_rule.h). */
inline constexpr std::string_view kNovaSpreadRule = "nova-spread";
inline constexpr std::string_view kNovaPackRule = "nova-pack";
/** The built-in free choice's name (evaluators/rules/free_node_rule.h), the snapshot's default. */
inline constexpr std::string_view kFreeNodeRule = "free";

/** One host NUMA cell as Nova's NUMACell sees it: its size and what its instances use. */
struct NovaCell {
    Amount pcpus = 0;         ///< len(cpuset): physical CPUs of the cell
    Amount memory_mib = 0;    ///< memory, MiB
    Amount cpu_usage = 0;     ///< vCPUs of the instance cells on it
    Amount memory_usage = 0;  ///< MiB of the instance cells on it
};

/** Nova's and Placement's settings the choice depends on. */
struct NovaSettings {
    double cpu_allocation_ratio = 1.0;
    double ram_allocation_ratio = 1.0;
    Amount reserved_host_memory_mb = 512;  ///< Nova's default
    bool pack = false;                     ///< packing_host_numa_cells_allocation_strategy
};

/** Nova's answer for one instance: found, and host cell `cells[i]` (0-based id) for instance cell i < k. */
struct NovaFit {
    bool found = false;
    std::array<std::uint8_t, kMaxVNuma> cells{};
};

/**
 * Placement's host-level check (step 1 of the file's contract) for an instance of `vcpus` vCPUs
 * and `memory_mib` MiB in total on a host whose cells are `host`. O(cells). Pure, thread-safe.
 */
bool nova_placement_admits(std::span<const NovaCell> host, Amount vcpus, Amount memory_mib, const NovaSettings& s);

/**
 * numa_fit_instance_to_host (steps 2-4) for an instance of `k` identical cells of `cell_vcpus`
 * vCPUs and `cell_memory_mib` MiB each on a host whose cells are `host` (cell id = index, at most
 * kMaxPNuma). Not found when k > cells. O(cells log cells + cells x k). Pure, thread-safe.
 */
NovaFit nova_fit_instance(std::span<const NovaCell> host, int k, Amount cell_vcpus, Amount cell_memory_mib, const NovaSettings& s);

/** The host-level check, then the cell fit: the cells Nova gives the instance on this host, or
 *  not found. Pure, thread-safe. */
NovaFit nova_place(std::span<const NovaCell> host, int k, Amount cell_vcpus, Amount cell_memory_mib, const NovaSettings& s);

/** The smallest physical amount p >= 1 with floor(p x ratio) == capacity (the vmcap capacity of a
 *  Nova cell, file comment), or -1 when none has. Ratio in (0, 1000]. O(1). */
Amount nova_physical_of(Amount capacity, double ratio);

/** floor(physical x ratio) as vmcap's capacity of a cell (IEEE double product, as Nova's limit). */
Amount nova_capacity_of(Amount physical, double ratio);

/** The Nova settings a snapshot's node rule names (spread/pack from the name). */
NovaSettings nova_settings(const NodeRuleSpec& spec);

/** True if `name` is one of Nova's rules ("nova-spread", "nova-pack"). */
bool is_nova_rule(std::string_view name);

/**
 * Why `problem` cannot be modelled under its node rule, as one line starting with the JSON path
 * (e.g. "node_rule.cpu_allocation_ratio: ..." or "host_types[1] (name \"x\"): ..."), or "" when it
 * can: the name is "free", "nova-spread" or "nova-pack"; for Nova's rules the ratios are in (0,
 * 1000], reserved_host_memory_mb in [0, 2^40], the resources exactly vcpu and ram_mib, every host
 * type's pNUMA graph complete (Nova checks no links: on another graph its choice may be no
 * placement of the model) and every node capacity floor(p x ratio) of some physical amount p >= 1.
 * O(host types x nodes).
 */
std::string node_rule_problem_error(const Problem& problem);

/** The cells of a host of `type` under a Nova rule, usage 0: pCPUs and memory from the node
 *  capacities (nova_physical_of). Precondition: node_rule_problem_error(problem) == "" (R = 2).
 *  O(nodes); allocates. */
std::vector<NovaCell> nova_cell_sizes(const HostType& type, const NovaSettings& s);

}  // namespace vmcap

#pragma once
/**
 * @file replay.h
 * Builds a cluster snapshot (Problem) by replaying a VM trace (trace.h) into N identical hosts
 * with a NUMA-aware baseline placer and stopping at a chosen time: the VMs alive then, where the
 * placer put them, form the snapshot. This is how realistic fragmented clusters are produced from
 * traces that carry no server, placement or NUMA information.
 *
 * Units: vCPU, MiB of RAM, seconds. Resources of the result: {"vcpu", "ram_mib"}.
 * Deterministic: the same trace, options and seed give an identical Problem.
 */
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "instances/problem.h"
#include "instances/topology.h"
#include "instances/trace.h"

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

/** What and how to replay. Validated by replay_snapshot (InputError "replay: ..."). */
struct SnapshotOptions {
    HostType host_type;  ///< every host has this type; node_capacity laid out for R = 2 (vcpu, ram_mib)
    int num_hosts = 0;   ///< >= 1
    /** Stop time in seconds since the first arrival of the trace (>= 0, finite). */
    double time_s = 0.0;
    /** "best-fit" or "first-fit" (see replay_snapshot). */
    std::string placer = "best-fit";
    int hosts_per_rack = 20;  ///< >= 1; host i is in rack i / hosts_per_rack
    int racks_per_pod = 10;   ///< >= 1; rack j is in pod j / racks_per_pod
    /** Keep each trace VM independently with this probability, in (0, 1]; drawn in trace order
     *  from std::mt19937_64 seeded with a splitmix64 hash of `seed` (independent of the importer). */
    double sample = 1.0;
    std::uint64_t seed = 1;
    VnumaRule rule;
    /** "multi-numa": weight 1 for flavors with >= 2 vNUMA nodes (if none, the largest flavor by
     *  vCPU then RAM), 0 for the rest; "all": weight 1 for every flavor. */
    std::string targets = "multi-numa";
    /** Flavor name -> weight (finite, >= 0), applied after `targets`. Names must occur in the trace. */
    std::map<std::string, double> weights;
    /** Constraints::max_migrations; -1: ceil(1% of the VMs in the snapshot). */
    std::int64_t max_migrations = -1;
    /** Constraints::max_migrated_ram_mib; -1: unlimited. */
    Amount max_migrated_ram_mib = -1;
    /** Copied to Problem::source (provenance and licence attribution). */
    std::string source;
};

/** Counters of one replay. VM counts are after sampling and up to the stop time. */
struct ReplayStats {
    std::int64_t arrivals = 0;                               ///< VMs that arrived by the stop time (placed + rejected)
    std::int64_t placed = 0;                                 ///< arrivals the placer put on a host
    std::int64_t rejected = 0;                               ///< arrivals no host could take
    std::int64_t departed = 0;                               ///< placed VMs that departed by the stop time
    std::int64_t alive_at_end = 0;                           ///< placed VMs alive at the stop time = VMs in the snapshot
    std::int64_t peak_alive = 0;                             ///< most VMs alive at once during the replay
    double used_vcpu_fraction = 0.0;                         ///< vCPU used at the stop time / total vCPU of all hosts
    double used_ram_fraction = 0.0;                          ///< RAM used at the stop time / total RAM of all hosts
    double first_arrival_s = 0.0;                            ///< trace time of the first arrival (the time origin)
    double stop_s = 0.0;                                     ///< trace time of the stop = first_arrival_s + time_s
    std::map<std::string, std::int64_t> rejected_by_flavor;  ///< flavor name -> rejected arrivals
    /** Trace index of each VM of the snapshot: problem.vms[i] is trace[vm_trace_index[i]] (the VMs
     *  alive at the stop time, increasing). What `vmcap snapshot --bpc` links by tenant batch. */
    std::vector<std::size_t> vm_trace_index;
};

/**
 * Replays `trace` (sorted by arrival, as the importers return it) into options.num_hosts hosts of
 * options.host_type and returns the snapshot at options.time_s.
 *
 * Events are processed in time order up to the stop time, departures before arrivals at equal
 * times (a VM is alive at t iff arrival <= t < departure). Each sampled arrival is placed by the
 * placer or rejected (counted; nothing is evicted). The placer works on pNUMA nodes: the flavor's
 * vNUMA graph (vnuma_topology_for, computed at its first arrival) is embedded with
 * enumerate_embeddings (once per flavor), vNUMA node v on pNUMA node embedding.map[v], each node
 * taking demand / k in every resource.
 *  - "best-fit": among all feasible (host, placement) pairs, the host with the least free vCPU
 *    after placement (ties: lowest host index), and within it the placement leaving the least
 *    free vCPU on its nodes (ties: lowest node mask).
 *  - "first-fit": the first host by index with a feasible placement, its first feasible
 *    placement (lowest mask).
 *
 * The result: resources {"vcpu", "ram_mib"}; one host type; hosts "h00001".. in racks "r0001"..
 * and pods "p001"..; flavors = the distinct flavor names of the VMs alive at the stop time,
 * sorted by vCPU, then RAM, then name, weighted per options.targets / options.weights; VMs
 * "vm<trace index>" in trace order, all migratable; constraints from the options; source =
 * options.source. finalize_problem(problem, "<replay>") is run as a self-check.
 *
 * Complexity: O(A (S + log H) + D (F + log A)) for A arrivals, D departures, F flavors and S
 * hosts visited per arrival. Best-fit visits hosts through buckets of equal free vCPU (bitsets
 * in host order), first-fit through a max segment tree over host index; a host whose free
 * totals or largest free node are too small, or that already failed for this flavor and has not
 * changed since, is skipped in O(1) without looking at its nodes; a rejected flavor is rejected
 * in O(1) until a departure frees a host that fits it. Memory O(A + H x nodes + V x H / 64) for
 * V = vCPU per host. Measured (shared 2-core machine, GCC 12 -O3): one Azure test split (297k
 * arrivals) into 400-10,000 CQ3 hosts 0.1-0.5 s; five superposed copies (1.5M arrivals) into
 * 2,000 hosts at 83% vCPU 1.1-2.6 s best-fit, 1.8-3.4 s first-fit; 24 copies (7.1M arrivals)
 * into 10,000 hosts 17 s.
 *
 * Throws InputError on invalid options, an unsorted trace, a VM with non-positive size or
 * departure before arrival, a flavor name used with two sizes, an override or weight naming a
 * flavor absent from the trace, or a flavor the vNUMA rule cannot split; std::logic_error if
 * the placer's bookkeeping disagrees with the alive VMs (a bug). Thread-safe (no shared state);
 * `stats` may be null.
 */
Problem replay_snapshot(const std::vector<TraceVm>& trace, const SnapshotOptions& options, ReplayStats* stats = nullptr);

}  // namespace vmcap

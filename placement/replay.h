#pragma once
/**
 * @file replay.h
 * Builds a cluster snapshot (Problem) by replaying a VM trace (instances/trace.h) into N identical
 * hosts with a placer of the placement seam (placement/placer.h) and stopping at a chosen time:
 * the VMs alive then, where the placer put them, form the snapshot. This is how realistic
 * fragmented clusters are produced from traces that carry no server, placement or NUMA
 * information, and how placers are compared (`vmcap snapshot --placer`).
 *
 * Units: vCPU, MiB of RAM, seconds. Resources of the result: {"vcpu", "ram_mib"}.
 * Deterministic: the same trace, options and seed give an identical Problem.
 */
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "instances/problem.h"
#include "instances/trace.h"
#include "instances/vnuma_rule.h"

namespace vmcap {

class Placer;  // placement/placer.h

/** What and how to replay. Validated by replay_snapshot (InputError "replay: ..."). */
struct SnapshotOptions {
    HostType host_type;  ///< every host has this type; node_capacity laid out for R = 2 (vcpu, ram_mib)
    int num_hosts = 0;   ///< >= 1
    /** Stop time in seconds since the first arrival of the trace (>= 0, finite). */
    double time_s = 0.0;
    /** A registered placer (placement/placer.h: best-fit, first-fit, vmcap-fit); ignored by the
     *  overload of replay_snapshot that takes a Placer. */
    std::string placer = "best-fit";
    int hosts_per_rack = 20;  ///< >= 1; host i is in rack i / hosts_per_rack
    int racks_per_pod = 10;   ///< >= 1; rack j is in pod j / racks_per_pod
    /** Keep each trace VM independently with this probability, in (0, 1]; drawn in trace order
     *  from std::mt19937_64 seeded with a splitmix64 hash of `seed` (independent of the importer). */
    double sample = 1.0;
    std::uint64_t seed = 1;
    VnumaRule rule;
    /** "multi-numa": weight 1 for flavors with >= 2 vNUMA nodes (if none, the largest flavor by
     *  vCPU then RAM), 0 for the rest; "all": weight 1 for every flavor; "demand": every flavor
     *  requested in the demand window, weighted by its share of the window's (sampled) arrivals in
     *  thousandths: w_f = 1000 x requests_f / requests, to three decimals, at least 0.001 (the
     *  snapshot then lists every such flavor, alive or not); 0 for flavors not requested. */
    std::string targets = "multi-numa";
    /** targets "demand": the window is (stop time - demand_window_s, stop time]; > 0. */
    double demand_window_s = 86400.0;
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
 * options.host_type and returns the snapshot at options.time_s, with the placer options.placer.
 *
 * Events are processed in time order up to the stop time, departures before arrivals at equal
 * times (a VM is alive at t iff arrival <= t < departure). Each sampled arrival is placed by the
 * placer or rejected (counted; nothing is evicted). Placement works on pNUMA nodes: the flavor's
 * vNUMA graph (vnuma_topology_for, computed for every flavor that arrives by the stop time) is
 * embedded in the host graph, vNUMA node v on pNUMA node map[v], each node taking demand / k in
 * every resource. The placers see a SearchState of all the sampled arrivals (arriving VMs not
 * on a host until placed) whose target flavors are those that arrive by the stop time, weighted
 * by options.targets and options.weights (what `vmcap-fit` minimises the loss of). A flavor
 * that fits no host is rejected in O(1) until a departure frees a host where it fits (placers
 * are complete, placer.h).
 *
 * The result: resources {"vcpu", "ram_mib"}; one host type; hosts "h00001".. in racks "r0001"..
 * and pods "p001"..; flavors = the distinct flavor names of the VMs alive at the stop time,
 * sorted by vCPU, then RAM, then name, weighted per options.targets / options.weights; VMs
 * "vm<trace index>" in trace order, all migratable; constraints from the options; source =
 * options.source. finalize_problem(problem, "<replay>") is run as a self-check.
 *
 * Complexity: O(A (S + log A) + D (F + log A)) for A arrivals, D departures, F flavors and S the
 * placer's cost per choice (best-fit and first-fit skip most hosts in O(1), vmcap-fit compares
 * every host's memoised best insertion), plus O(targets x VMCAP) per event for the state's
 * capacity cache. Memory O(A + H x (nodes x targets + flavors)).
 *
 * Throws InputError on invalid options (an unknown placer among them), an unsorted trace, a VM
 * with non-positive size or departure before arrival, a flavor name used with two sizes, an
 * override or weight naming a flavor absent from the trace, or a flavor the vNUMA rule cannot
 * split; std::logic_error if a placer breaks its contract (a bug). Thread-safe (no shared
 * state); `stats` may be null.
 */
Problem replay_snapshot(const std::vector<TraceVm>& trace, const SnapshotOptions& options, ReplayStats* stats = nullptr);

/** As above with a caller's `placer` (reset on the replay's state first) instead of options.placer. */
Problem replay_snapshot(const std::vector<TraceVm>& trace, const SnapshotOptions& options, Placer& placer, ReplayStats* stats = nullptr);

/**
 * The problem a replay places on (for `vmcap simulate`, optimizer/solvers/simulate.h): the hosts of
 * `options`, the flavors of the sampled arrivals up to options.time_s after the first arrival (vNUMA
 * by options.rule; weights by options.targets and options.weights, "demand" and "forecast" read
 * as "multi-numa"), and one VM on no host per arrival: VM a is trace[arrivals[a]], `arrivals`
 * filled in trace order. Throws InputError as replay_snapshot. O(trace + arrivals).
 */
Problem replay_arrivals(const std::vector<TraceVm>& trace, const SnapshotOptions& options, std::vector<std::size_t>& arrivals);

}  // namespace vmcap

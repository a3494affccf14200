#pragma once
/**
 * @file hosts_needed.h
 * How many hosts a configuration of `vmcap simulate` needs: the fewest hosts (of the options'
 * uniform host type) with which the simulation rejects no request, or fewer than a given share of
 * them, found by a search over the host count (each probe one simulate() run).
 *
 * Units: hosts; shares of the requests. Deterministic as simulate() is.
 */
#include <cstdint>
#include <functional>
#include <vector>

#include "instances/trace.h"
#include "optimizer/solvers/simulate.h"

namespace vmcap {

/** One simulation of the search: its host count and result. */
struct HostsProbe {
    int hosts = 0;
    std::int64_t arrivals = 0, rejected = 0;
    bool ok = false;  ///< the count passes (HostsNeeded::limit)
};

/** Outcome of hosts_needed. */
struct HostsNeeded {
    /** The count found: it passes, and one host fewer fails (or it is 1). Rejections are not
     *  monotone in the host count in general (a placer may fare worse with one host more), so it
     *  is the smallest passing count of the bracket the search closed in on, which a linear scan
     *  from 1 may find lower. */
    int hosts = 0;
    std::vector<HostsProbe> probes;  ///< every simulation run, in order
};

/**
 * The fewest hosts with which simulate(trace, options with replay.num_hosts = n) passes: rejects
 * no request when max_rejected_share is 0, else rejects fewer than max_rejected_share x its
 * arrivals. Galloping from `guess` (> 0; down while it passes, up while it fails, the step
 * doubling from max(1, guess / 64)), then bisection of the bracket. Every count in the result's
 * probes was simulated; the result passes and result - 1 (when >= 1) was simulated and fails.
 * `on_probe` (may be empty) sees each probe as it ends. Throws InputError on bad options (as
 * simulate), or when no count up to max_hosts passes ("hosts needed: more than N"); a
 * simulation stopped early (options.stop, time_limit_s) throws InputError too, since its
 * figures cannot decide a count. Cost O(log(result) + log(|result - guess|)) simulations.
 */
HostsNeeded hosts_needed(const std::vector<TraceVm>& trace, const SimulateOptions& options, double max_rejected_share, int guess,
                         const std::function<void(const HostsProbe&)>& on_probe = {}, int max_hosts = 1 << 22);

}  // namespace vmcap

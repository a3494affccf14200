#pragma once
/**
 * @file forecast.h
 * A forecast of each flavor's need over the next hours from a request history: how many more VMs
 * of the flavor the cluster should be able to take (its capacity, evaluators/) so that the
 * requests of the coming hours are admitted. The need is the peak of the flavor's net arrivals
 * (arrivals minus departures) over the same hours of the past days, the maximum (or a quantile)
 * over those days. `vmcap simulate --weights forecast` and `vmcap plan --requests` set their
 * targets from it (docs/cli.md); the saturating objective term `uncovered-need`
 * (evaluators/objective/uncovered_need_term.h) values capacity up to it.
 *
 * Units: seconds (any time base shared by the events and `now_s`), VMs. Pure, thread-safe.
 */
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "instances/problem.h"

namespace vmcap {

/** One event of a request history: a VM of flavor `flavor` (an index into the caller's flavor
 *  list) asked for (+1) or leaving (-1) at time_s. A rejected request counts as asked for; its
 *  departure, when the history has one, as the time it would have left. */
struct FlavorEvent {
    double time_s = 0.0;
    int flavor = 0;
    int delta = 1;  ///< +1 arrival, -1 departure
};

/** How a forecast looks back. */
struct ForecastOptions {
    /** H: the hours ahead the need is for, seconds, in (0, 86400]. */
    double horizon_s = 86400.0;
    /** D: how many past days are looked at, >= 1. */
    int days = 3;
    /** q in (0, 1]: the need is the ceil(q x D')-th smallest of the D' daily peaks (1: their
     *  maximum). */
    double quantile = 1.0;
    /** B: the burst floor's interval, seconds, >= 0 (0: no floor). With B > 0 a day's peak is at
     *  least the flavor's most arrivals (gross: its departures not subtracted) within any B
     *  seconds of the day's window. A flavor whose VMs arrive and depart in bursts has net
     *  arrivals near 0 over the window yet takes that many VMs' room before the next check
     *  (`vmcap simulate` checks every --trigger-every); B is meant to be that interval. */
    double burst_s = 0.0;
};

/**
 * The forecast need of each of `flavors` flavors at time `now_s`, from `events` sorted by time
 * (departures before arrivals at equal times, as the simulation replays them).
 *
 * For day d = 1..D, the window is (s_d, s_d + H] with s_d = now_s - d x 86400 s. The flavor's net
 * arrivals at time t in the window are N_d(t) = (its arrivals in (s_d, t]) - (its departures in
 * (s_d, t]), counted from the window's start whatever the VMs that depart arrived; its daily peak
 * is P_d = max(0, max over the window's event times of N_d(t)); with a burst floor B > 0,
 * P_d = max(that, G_d) where G_d = max over the window's arrival times t of the flavor's arrivals
 * in (max(s_d, t - B), t] (its gross arrivals within B seconds). Only days whose window lies within
 * the history, s_d >= history_start_s, count (D' of them); the need is the ceil(q x D')-th
 * smallest P_d. Since H <= 86400 s, every window ends by now_s: the forecast reads no event after
 * it. nullopt when D' = 0 (no full day of history yet).
 *
 * A request log without departures gives the peak of arrivals, i.e. the window's arrival count.
 * Throws std::invalid_argument on options out of range or an event of a flavor outside
 * [0, flavors). O(D x (log n + events in the windows) + D x flavors). Pure, thread-safe.
 */
std::optional<std::vector<std::int64_t>> forecast_need(std::span<const FlavorEvent> events, int flavors, double history_start_s,
                                                       double now_s, const ForecastOptions& options);

/** One flavor's size for needs_the_room_holds: its total vCPU and RAM (MiB). */
struct FlavorSize {
    Amount vcpu = 0, ram_mib = 0;
};

/**
 * The part of each flavor's `need` that a pool of `free_vcpu` and `free_ram_mib` holds when the
 * smaller flavors' needs are served first, each VM counting one request: flavors are taken by
 * increasing vCPU, then RAM, then index, and flavor f keeps min(need_f, the VMs of its size the
 * pool has left), which the pool then loses (smallest first maximises the VM count of a pool of one
 * resource; with two it is the same greedy rule). A night that makes room for a large flavor
 * beyond this part makes it for VMs whose admission would turn away more of the smaller flavors'
 * requests than it admits. Negative needs count as 0; a
 * flavor with a zero size keeps its need. Throws std::invalid_argument when the sizes and needs
 * differ in length or an amount is negative. O(F log F). Pure, thread-safe.
 */
std::vector<std::int64_t> needs_the_room_holds(std::span<const std::int64_t> need, std::span<const FlavorSize> size, Amount free_vcpu,
                                               Amount free_ram_mib);

}  // namespace vmcap

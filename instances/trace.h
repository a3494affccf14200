#pragma once
/**
 * @file trace.h
 * VM arrival/lifetime trace importers: the Azure Public Dataset V1 flavor traces as processed by
 * huaweicloud/trace_generation_rnn (../shared/data/azure-v1-flavor-traces, INPUT.upstream.md) and
 * the Huawei-East-1 lifetime CSV (../shared/data/huawei-east-1, SPANE's Huawei-East-1-lt.csv).
 *
 * Both produce the same neutral form, `std::vector<TraceVm>`, which placement/replay.h turns into a cluster
 * snapshot. Units: seconds (relative to the trace's own origin), vCPU, MiB of RAM.
 *
 * Licences: the Azure data is CC-BY 4.0 (cite Cortez et al., "Resource Central", SOSP 2017, and
 * huaweicloud/trace_generation_rnn for the processing); Huawei-East-1 is CC-BY-NC 4.0,
 * non-commercial use only (cite Sheng et al., VMAgent). Nothing of either is stored in this
 * repository; the importers read the files where they are.
 */
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "instances/problem.h"

namespace vmcap {

/** One VM of a trace: when it arrives, when it leaves and its size. */
struct TraceVm {
    /** Arrival time in seconds, in the trace's own time base (Azure: file timestamps). */
    double arrival_s = 0.0;
    /**
     * Departure time in seconds (>= arrival_s), or +infinity if the VM does not depart within the
     * trace (right-censored, or a lifetime longer than the duration map covers).
     */
    double departure_s = std::numeric_limits<double>::infinity();
    Amount vcpu = 0;     ///< vCPUs, > 0
    Amount ram_mib = 0;  ///< RAM in MiB (GiB * 1024, rounded to the nearest MiB), > 0
    /** "<vcpu>c<ram GiB>g" with RAM printed in the shortest fixed form: "16c112g", "1c0.75g". */
    std::string flavor_name;
    /**
     * Tenant batch of the VM: Azure's `|`-closed group of one line (one tenant, one 300-s bin; the
     * VDC of a Gridiron-style workload, seed 003 digest §3.2-3.3). A 0-based index in file order,
     * unique within one read_azure_trace call; -1 when the trace has no batches (Huawei). The
     * batch's identity is (copy, batch).
     */
    std::int64_t batch = -1;
    /** Timestamp (s, as in the file) of the line holding the batch; meaningful when batch >= 0. */
    double batch_bin_s = 0.0;
    /** 0-based position of the batch among the batches of its line; -1 when batch < 0. */
    std::int32_t batch_in_bin = -1;
    /** Which superposed copy of a trace the VM comes from (set by the caller before merge_traces;
     *  0 for a single trace). Only names and separates batches; nothing else reads it. */
    std::int32_t copy = 0;

    /** True if the VM never departs within the trace. */
    bool censored() const { return departure_s == std::numeric_limits<double>::infinity(); }
};

/**
 * Flavor name "<vcpu>c<ram>g" for a size, RAM printed in GiB in the shortest fixed-point form
 * that round-trips ("16c112g", "1c0.75g", "2c3.5g"). Pure, thread-safe.
 */
std::string trace_flavor_name(Amount vcpu, Amount ram_mib);

/**
 * Name of the VM's tenant batch, "t<bin>-b<k>" (bin = TraceVm::batch_bin_s printed in the
 * shortest fixed form, k = TraceVm::batch_in_bin), prefixed "c<copy>-" when copy > 0: e.g.
 * "t2100000-b3", "c1-t2100000-b3". Unique per (copy, batch) of one file. Precondition:
 * vm.batch >= 0. Pure, thread-safe.
 */
std::string trace_batch_name(const TraceVm& vm);

/**
 * Reads one split of the Azure V1 flavor traces (format of INPUT.upstream.md).
 *
 * - `flavor_file`: lines `<t> tok,tok,|,tok,...`; each non-`|` token is a flavor letter of
 *   `flavor_map_file`; `|` separates tenant batches and is otherwise ignored. The VMs of a line
 *   arrived in (t_prev, t]; the i-th of `count` VMs (file order) gets arrival
 *   t_prev + (i + 0.5) / count * (t - t_prev), with t_prev = t - 300 on the first line.
 *   Timestamps must increase strictly. Every run of flavor tokens closed by `|` (or by the end of
 *   the line) is one tenant batch: TraceVm::batch counts them in file order, batch_bin_s is the
 *   line's timestamp, batch_in_bin the batch's position in the line (an empty run, `|,|`, is no
 *   batch).
 * - `duration_file`: the partner file; line for line the same timestamp and the same token
 *   sequence shape (`|` at the same places, one duration token per flavor token).
 *   `U<k>`: uncensored lifetime in duration bin k of `interval_map_file`. The lifetime is drawn
 *   uniformly among the durations d that map to bin k, plus a uniform offset in [0, step), where
 *   step is the (uniform) spacing of the map's durations (300 s in v1.interval_map.txt); a bin
 *   beyond the map's largest bin (e.g. 46) means "longer than the map covers" and is treated as
 *   never departing. `C<k>`: censored, never departs.
 * - `interval_map_file`: lines `<duration_seconds> <bin>` (e.g. "3900 13"), durations equally
 *   spaced and increasing, bins non-decreasing.
 * - `flavor_map_file`: lines `<vCPU>,<GB> <letter>` (GB read as GiB; RAM MiB = round(GB * 1024)).
 *
 * Randomness: one std::mt19937_64 seeded with `seed`, consumed in file order, two draws per `U`
 * token (bin member by rejection sampling on integers, then a 53-bit offset fraction), so the
 * result is identical on every standard library. Result sorted by arrival (stable; already in
 * file order). Usable splits: dev (v1.dev.txt + v1.dev.c2100000.txt), test (v1.test.txt +
 * v1.test.c2591400.txt).
 *
 * Throws InputError "<file>:<line>: <what>" on an unreadable file, a malformed line, an unknown
 * flavor letter, a bin inside the map with no durations, non-increasing timestamps, or any
 * misalignment between the two trace files (different line count, timestamp or token shape).
 * O(size of the files). Thread-safe (no shared state).
 */
std::vector<TraceVm> read_azure_trace(const std::string& flavor_file, const std::string& duration_file,
                                      const std::string& interval_map_file, const std::string& flavor_map_file, std::uint64_t seed);

/**
 * Reads the Huawei-East-1 lifetime CSV: header exactly `vmid,cpu,mem,at,lt`, then rows of
 * integer vmid, cpu (vCPU) and mem (GiB), and decimal at (arrival, s) and lt (lifetime, s).
 * Produces arrival = at, departure = at + lt, vcpu = cpu, ram_mib = mem * 1024, flavor name
 * "<cpu>c<mem>g". Result stably sorted by arrival. Throws InputError "<file>:<line>: <what>" on
 * a bad header, a wrong field count, a non-numeric field, cpu or mem <= 0, lt < 0 or non-finite
 * times. O(n log n). Thread-safe.
 */
std::vector<TraceVm> read_huawei_trace(const std::string& csv_file);

/**
 * Superposition of several traces (e.g. copies of one Azure split read with different seeds, to
 * multiply the load): all VMs, stably sorted by arrival, ties in the order of `traces` (then file
 * order). Times are used as they are, so the traces should share a time base. O(n log n).
 */
std::vector<TraceVm> merge_traces(std::vector<std::vector<TraceVm>> traces);

/**
 * A copy of `trace` shifted cyclically in time by `offset_s` seconds over its arrival span
 * [first arrival, last arrival): each VM keeps its lifetime, its arrival moves to
 * first + ((arrival - first + offset_s) mod span). Superposing K copies with offsets c * span / K
 * multiplies the load of a trace whose lifetimes are fixed (Huawei-East-1) while keeping its
 * flavor mix and lifetime distribution. Result sorted by arrival (stable). O(n log n).
 */
std::vector<TraceVm> time_shifted_copy(const std::vector<TraceVm>& trace, double offset_s);

/** One VM request of a request log (read_request_log): when it was made and for which flavor. */
struct FlavorRequest {
    double time_s = 0.0;   ///< seconds, in the log's own time base
    std::string flavor;    ///< flavor name, as the snapshot names it
    std::size_t line = 0;  ///< 1-based line of the log (for messages)
};

/**
 * Reads a request log, the neutral form of "what was asked for" that `vmcap plan --weights demand`
 * weights the flavors by (docs/cli.md): a CSV with the header line exactly `time_s,flavor`, then
 * one row per VM request (a boot request of the cloud's API, accepted or not): a finite decimal
 * time in seconds (any origin; rows in any order) and a non-empty flavor name. Throws InputError
 * "<file>:<line>: <what>" on an unreadable or empty file, a bad header, a row without exactly
 * two fields, a bad time or an empty name. O(size of the file). Thread-safe.
 */
std::vector<FlavorRequest> read_request_log(const std::string& file);

/**
 * Demand weights: flavor name -> 1000 x (its requests in the window (until - window_s,
 * until]) / (all requests in the window), rounded half up to thousandths, at least 0.001, for every
 * flavor requested in the window; flavors not requested there are absent. `requests_in_window`
 * receives the window's request count (the map is empty when it is 0). window_s > 0. O(n log F).
 * Pure, thread-safe. Used by `vmcap snapshot --targets demand` (placement/replay.h) and
 * `vmcap plan --weights demand`.
 */
std::map<std::string, double> demand_weights(const std::vector<FlavorRequest>& requests, double until_s, double window_s,
                                             std::int64_t& requests_in_window);

}  // namespace vmcap

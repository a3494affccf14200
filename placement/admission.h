#pragma once
/**
 * @file admission.h
 * Admission: an ordered stream of requests (instances/requests.h: single VMs and VDCs) placed on a
 * cluster snapshot by a strategy of the placement seam (placer.h), as a scheduler would take them
 * one after the other (`vmcap place`). Each request is placed all or nothing (a VDC's VMs together,
 * NetSolver's rule) or best effort per VM; the stream stops at the first request not placed whole
 * (the rule of the published NetSolver table) or goes on. Every VM a strategy places fits its
 * pNUMA nodes and every rule of the model (links); the result goes through finalize_problem's
 * from-scratch checks.
 *
 * Units: vCPU, MiB, Mbps, seconds. Deterministic: the same cluster, requests and options give the
 * same result (the times aside).
 */
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "instances/problem.h"
#include "instances/requests.h"
#include "instances/stop_reason.h"
#include "evaluators/state/search_state.h"
#include "placement/online_cluster.h"

namespace vmcap {

/** How the requests are taken. */
struct AdmissionOptions {
    std::string strategy = "vmcap-fit";  ///< a registered placer (placer.h)
    bool all_or_nothing = true;          ///< a request's VMs all placed or none; false: each VM on its own
    bool stop_at_first_failure = false;  ///< stop at the first request not placed whole
    /** At most this many live migrations per request to make room for a VM no host can take (0:
     *  none); needs a MakeRoom. All or nothing: room for the VDC's VM that failed, then the whole
     *  VDC once more; migrations that did not admit the request are taken back. */
    int migrations_per_request = 0;
    /** Up to this many consecutive single-VM requests are offered together: the strategy orders
     *  them as one batch (Placer::order; `deferred-acceptance` matches them at once), then each is
     *  placed on its own; a batch ends at a VDC. 1: each request alone. A stop at the first failure
     *  comes after the batch that holds it. The time of a batch is shared among its requests. */
    int batch = 1;
    /** Offer no request once this many seconds (wall clock, from the call) have passed; 0: no
     *  limit. The ones not offered are reported as such (RequestOutcome::offered false). */
    double time_limit_s = 0.0;
    /** When set (e.g. by SIGINT), offer no further request; may be null. Polled before each request. */
    const std::atomic<bool>* stop = nullptr;
};

/**
 * One change admission made to the cluster, in the order it was made: a VM placed (from_host -1)
 * or a live migration. Replaying every request's events by `step` on the input cluster (a
 * migration moves its VM from (from_host, from_pnuma) to (to_host, to_pnuma)) gives the result's
 * placement; every intermediate state is within every pNUMA node's capacity.
 */
struct AdmissionEvent {
    std::int64_t step = 0;        ///< 1, 2, ... over the whole run (a batch's requests interleave)
    std::string vm;               ///< the VM's id in the result (AdmissionResult::problem)
    int from_host = -1;           ///< a migration's source host (index into the cluster's hosts); -1: a placement
    std::vector<int> from_pnuma;  ///< its pNUMA nodes there (0-based, in vNUMA order)
    int to_host = -1;             ///< the host it was placed on or migrated to
    std::vector<int> to_pnuma;    ///< its pNUMA nodes there (0-based, in vNUMA order)
};

/** What happened to one request. */
struct RequestOutcome {
    std::string id;
    bool offered = false;   ///< false: after the stop (stop_at_first_failure)
    bool accepted = false;  ///< every VM placed
    int vms = 0, placed = 0;
    /** Per VM of the request, in request order: the result problem's VM index, or -1 (not placed). */
    std::vector<int> result_vm;
    /** Why the first VM not placed was not: "no host has 16 vCPU and 112 GiB free", "pNUMA
     *  fragmentation: ...", "link capacity: ...", or "undone with its VDC" (all or nothing). */
    std::string reason;
    double seconds = 0.0;  ///< wall time of the placement (room-making included)
    int migrations = 0;    ///< live migrations made to admit it (AdmissionOptions::migrations_per_request)
    /** Per VM of the request, in request order: where it was placed when admitted (later requests'
     *  migrations may move it; result_vm says where it ended); step 0 and to_host -1 when not placed. */
    std::vector<AdmissionEvent> admitted;
    /** The live migrations made to admit it, in execution order (`migrations` of them); migrations
     *  taken back are not listed. */
    std::vector<AdmissionEvent> moves;
};

/** The outcome of admit_requests. */
struct AdmissionResult {
    /** The cluster with every placed VM (ids "<request id>" for a single VM, "<request id>/<vm id>"
     *  in a VDC), the vlinks between placed VMs and their VDC names. */
    Problem problem;
    std::vector<RequestOutcome> outcomes;  ///< one per request, in order
    int accepted = 0, rejected = 0;        ///< requests offered and placed whole, or not
    std::int64_t vms_placed = 0;
    Amount vcpu_placed = 0, ram_mib_placed = 0;
    std::int64_t mbps_placed = 0;  ///< sum of the placed vlinks' bandwidth
    /** Why the stream ended early: FirstFailure (stop_at_first_failure), TimeLimit, Interrupted;
     *  Complete when every request was offered. */
    StopReason stopped_by = StopReason::Complete;
    /** The stream ended early (stopped_by is not Complete). */
    bool stopped() const { return stopped_by != StopReason::Complete; }
    std::int64_t migrations = 0;     ///< live migrations made to make room, in all
    int admitted_by_migrations = 0;  ///< requests placed whole only thanks to them
};

/**
 * Places `requests` (read from `requests_path`, named in errors) on `cluster` with the options.
 * Throws InputError "<requests_path>: requests[i].vms[k].flavor: no flavor 'x' in the cluster", a
 * VM id that the cluster already has, vlinks on a cluster without a network, or a strategy that
 * ignores links on a model with links (use `link-fit`); InputError for an unknown strategy (placer.h).
 * With options.migrations_per_request > 0 and `make_room`, a VM no host takes gets the migrations
 * make_room returns applied (the cluster's VMs and earlier arrivals may move), then one more try
 * (for a request of several VMs placed all or nothing, again for the next VM that fails while the
 * budget lasts); the result's VMs stand where they ended; migrations that did not admit their
 * request are taken back (last first).
 * Cost: the strategy's choose per VM plus O(targets x (k x R + VMCAP)) per placement, plus
 * make_room per VM refused.
 */
AdmissionResult admit_requests(const Problem& cluster, const std::vector<Request>& requests, const AdmissionOptions& options,
                               const std::string& requests_path, const MakeRoom& make_room = {});

}  // namespace vmcap

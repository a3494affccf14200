#pragma once
/**
 * @file make_room.h
 * Live migrations that make room for an arriving VM no host can take (`vmcap place
 * --migrations-per-request K`, placement/admission.h; `vmcap simulate --migrations-per-request
 * K`, simulate.h). Two searches: a direct one on the cluster's free amounts for plans of one or
 * two migrations (make_room_direct), and the consolidation engine run on the cluster as it is now
 * with the arriving VM's flavor as the only target (make_room_engine), the fallback where the
 * direct search does not apply. No published placer does this.
 */
#include <cstdint>
#include <memory>
#include <vector>

#include "evaluators/state/search_state.h"
#include "placement/online_cluster.h"

namespace vmcap {

/**
 * The consolidation engine's plan: at most `k` live migrations on `state` (the VMs on a host;
 * arriving VMs not placed yet are left out) after which a VM of the flavor of `vm` fits on some
 * host, in execution order, each step fitting once the ones before it are done (build_plan,
 * optimizer/plan/plan.h); empty when the greedy search (optimizer/search/greedy.h: the move that
 * adds most capacity of that flavor, again until the budget or no gain) finds none. It plans on
 * the VMs' placement alone (cluster_now.h): room held for steps in flight or reserved
 * (SearchState::hold, hold_amounts) is not in its view, nor are the snapshot's destination-node
 * rule, closed hosts, remap ban and server groups; with vlinks, every step keeps every link within
 * capacity (the link rule of the model built from the VMs on a host, their vlinks among them).
 * The cluster's own budget and weights do not apply: this is the scheduler's budget for one
 * request. Deterministic. Cost: a capacity model and greedy on the whole cluster (O(VMs + hosts)
 * set-up, then greedy's rounds).
 */
std::vector<Placement> make_room_engine(const SearchState& state, int vm, int k);

/** Options of make_room_direct (and of the room makers below that use it). */
struct MakeRoomOptions {
    /** Under a placer that values capacity (the ranking by capacity, make_room_direct), with a
     *  budget of 2 or more: when a plan of one migration exists, the best plan of two is taken
     *  instead when it leaves room for at least this many more VMs of the arriving flavor than
     *  the best plan of one (the room term of the ranking: the change of the flavor's VMCAP over
     *  the hosts the plan changes); among such plans the ranking below. 0 (default): fewest
     *  migrations first. Ignored when the placer does not value capacity. */
    int second_for_copies = 0;
    /** A plan of two migrations only as the one second_for_copies takes instead of a plan of one:
     *  when no single migration makes room, no plan (the request is turned away). Why: measured
     *  at the cluster's wall (Azure x3 under vmcap-fit, where such plans admitted 8c14g and 8c56g
     *  VMs), admitting them turned away more requests later than they admitted (docs/
     *  performance.md, "Admission migrations only where one makes room"). Under a placer that does not value capacity, or with
     *  second_for_copies 0, every plan then has one migration. false (default): plans of two
     *  whenever none of one exists. */
    bool second_only_for_copies = false;
};

/** Does make_room_direct apply to `model`: no feasibility filter (no vlinks with the link rule,
 *  closed hosts, remap ban or server groups)? Any destination-node rule is fine. O(1). */
bool make_room_direct_applies(const CapacityModel& model);

/**
 * The direct search, for a model where make_room_direct_applies: the plan of at most min(k, 2)
 * live migrations after which a VM of the flavor of `vm` (on no host) fits on some host, if one
 * exists, else empty. Exact: it finds a plan exactly when one of at most min(k, 2) steps exists.
 *
 * A step may move a migratable VM to another host or (when the destination-node rule leaves the
 * choice free) to other pNUMA nodes of its own host; each step fits on the state the steps before
 * it leave, in the state's free amounts (so room held or reserved for steps in flight is never
 * used), counting its own share free on its own nodes, on the nodes the destination-node rule
 * assigns when it fixes them (step_fits without filters); "fits" for the arriving VM: a placement
 * with room, or under a rule that fixes nodes the one it assigns.
 *
 * The plans searched: one VM off the host h where the VM will fit; two VMs off h; one VM off h
 * and a second, moved first, off h too to give it room to remap; one VM off h onto a host d that a
 * VM moved off d first made room on. These are all plans of two steps that can make room (a step
 * that neither leaves h nor frees the destination of a later one cannot help).
 *
 * Which plan, when the cluster's placer does not value capacity (Placer::values_capacity false,
 * e.g. best fit): fewest migrations; then least RAM migrated; then the lowest index of h, then of
 * the VMs moved (in the order above: the VM off h first). Each VM goes to the host where it fits
 * leaving least free vCPU on the host, then least free RAM, then the lowest index, on its
 * tightest placement there (least free vCPU left on those nodes, then the lowest index; under a
 * rule that fixes nodes, the rule's); to other nodes of its own host (lowest placement index) only
 * when no other host takes it; of two VMs off h, the one listed first moves first when both orders
 * work.
 *
 * When it values capacity (`vmcap-fit`, `vmcap-first-fit`): fewest migrations; then the most room
 * for the arriving flavor (its VMCAP summed over the hosts the plan changes, after the plan and
 * before the VM arrives, less before); then the highest weighted capacity left (the change of
 * sum_f w_f x VMCAP_f over those hosts, the arriving VM placed as the vmcap-fit placer places it:
 * capacity_gain, the kernel of placement_delta); then the order above (least RAM, indices). Each
 * VM goes where the vmcap-fit placer would put it on the state the steps before it leave: the host
 * of the largest weighted capacity change, then least free vCPU and RAM left, then the lowest
 * index, on its placement of the largest change (then the tightest, the lowest index); remaps as
 * above; of two VMs off h, the order that leaves more (the listed first on ties). Every candidate
 * of the fewest migrations is valued (the test's oracle enumerates every sequence of VMs with
 * these destinations); under the free rule they are tried in order of an upper bound on what they
 * leave until it falls below the best found; a single another host takes, and a chain whose
 * first VM another host than h takes, are valued without trying them.
 *
 * With options.second_only_for_copies, a plan of two steps only as below (without a plan of one
 * step: none).
 *
 * With options.second_for_copies = N > 0 (ranking by capacity, k >= 2): when a plan of one step
 * exists, the best plan of two among the pairs, the shuffles whose single no other host takes and
 * the chains (ranked as above) is returned instead when its room for the flavor is at least the
 * best plan of one's plus N; else that plan of one. (Two VMs off h of which one alone makes
 * room, or singles off two hosts, are not among them.)
 *
 * A VM of the flavor that fits somewhere already gets no plan (and `room_already`, when given, is
 * set to true): e.g. the second VM of a request placed all or nothing, with the first taken off
 * again.
 *
 * Cost: per host whose VMs or free amounts changed since the last call on the same
 * MakeRoomCache (every host without one): O(VMs there x the flavor's placements x R) for the
 * VMs whose removal alone makes room; when no plan of one step exists, the pairs of VMs there
 * (and the shuffles) only for the hosts that could hold a plan better than the best sure one
 * found so far: visited in order of a lower bound on their plans' RAM (two VMs' least RAM that
 * covers what the flavor's placements lack), and listed only when the VMs' kinds there (by
 * flavor: able to go to another host, or to be remapped) say they could make room now (that answer
 * kept while the hosts that take those kinds' flavors do not change). After a call for the same
 * flavor and budget that found no plan, with at most 64 hosts changed since (C), only the
 * candidates a host of C could have made work are looked at: those on a host of C, the chains
 * through one, and those moving a VM of a flavor that a host of C takes and fewer than 3 other
 * hosts do (any other such step could land elsewhere, so the candidate worked then too, and none
 * did; a pair off a host outside C with no VM of such a flavor is skipped); the same plan as the
 * whole search. Per call O(hosts) to visit the cached candidates' bounds and one pass over the
 * flavor's singles kept by their own flavor (the first of each kind per host; a chain reads a
 * flavor's only when a VM somewhere could move first to make room for one of them), and per
 * flavor of a VM that might move its best
 * destinations: O(hosts) version reads plus O(placements) per host changed since they were kept
 * (O(hosts x placements) when one of the kept best changed). Within a host, what depends only on
 * the kinds (flavor, node set) of the VMs a pair or shuffle moves is computed once per pair of
 * kinds (ranking by RAM, the first pair and the first shuffle of two kinds are formed from each
 * kind's two least VMs: O(VMs + kinds^2) per host listed; whatever the ranking, a host's shuffles
 * whose first VM has no remap are listed per flavor of that VM, when another host first takes
 * that flavor: until then none of them can move). Most candidates are decided without being tried (one that another host takes surely
 * works; one with nowhere to go surely fails; a pair whose two VMs could each go to another host
 * by where its flavors land, kept per call, and by the remaps on its host; a chain whose first
 * VM would go to the second's host by that host's room with it landed, kept per VM and flavor);
 * the plan is make_room_direct_plain's. No Problem, model or VM copy is built. Ranking by
 * capacity costs more: each changed host's candidates get a bound (O(placements x targets x
 * VMCAP) each), the best destinations carry their capacity change (O(placements x targets x
 * VMCAP) per changed host and flavor), and when no single works but a plan of two steps exists
 * (the ranking by RAM tells, and its plan, the least key that works, starts the pruning), only
 * the pairs, shuffles and chains whose bound (with that key) could be ahead of the best found are
 * listed and tried: a host's listed pairs and shuffle runs, and a single's chains, are skipped
 * whole by their largest bound (chains' bounds cached per host and arriving flavor; a host's pairs
 * judged before they are listed by the largest bound and least RAM of its pairs of VM kinds); the
 * singles' bounds are computed only for the arriving flavor, and a chain's first VMs are chosen
 * per flavor of a host's singles. On the 2-day Azure run (x3, 1,200 hosts, vmcap-fit, K = 2)
 * about 1.6 s of CPU against the consolidation engine's 13.3 s in its place (8.5x; best fit: 1.8 s
 * against 31.2 s, 17.8x; docs/performance.md, "make_room: kept best hosts and pairs judged by VM kinds"). With
 * MakeRoomOptions::second_for_copies and a plan of one step, the plans of two are searched the
 * same way from a floor on their room for the flavor instead of the ranking by RAM's plan.
 */
class MakeRoomCache;
std::vector<Placement> make_room_direct(const OnlineCluster& cluster, int vm, int k, MakeRoomCache* cache = nullptr,
                                        bool* room_already = nullptr, const MakeRoomOptions& options = {});

/** make_room_direct's plan found without its shortcuts (for tests): every candidate plan listed
 *  (a VM whose removal lets the flavor fit; two such, one moved so that another can be remapped,
 *  or a chain), sorted in the order of choice and tried one by one (ranking by capacity: each
 *  tried and valued); no bound, no candidate decided without trying it, no cache. The same plan
 *  as make_room_direct, slower: O(candidates x log). */
std::vector<Placement> make_room_direct_plain(const OnlineCluster& cluster, int vm, int k, const MakeRoomOptions& options = {});

/** Per-host candidates of make_room_direct kept between calls on one cluster (host by host, valid
 *  while the host's SearchState::host_version is unchanged). Bound to the first cluster it is
 *  used with (OnlineCluster::serial; another cluster: it starts afresh). Not thread-safe. */
class MakeRoomCache {
public:
    MakeRoomCache();
    ~MakeRoomCache();
    MakeRoomCache(const MakeRoomCache&) = delete;
    MakeRoomCache& operator=(const MakeRoomCache&) = delete;
    struct Impl;
    std::unique_ptr<Impl> impl;
};

/**
 * The room maker an online cluster uses (OnlineCluster::set_make_room, admit_requests):
 * make_room_direct where it applies (with the search's own cache, kept by this object and its
 * copies, and the options given at construction); make_room_engine on the cluster's state where it does not, with k > 2 when the direct
 * search found no plan of at most 2 steps, and for a flavor that fits somewhere already (the
 * engine adds capacity of it: room for a second VM of a request placed all or nothing). Deterministic: the same cluster history gives the same
 * plans, with or without the cache. Copies share the cache: one per cluster (a copy used on
 * another cluster starts afresh there).
 */
class MakeRoomSearch {
public:
    explicit MakeRoomSearch(const MakeRoomOptions& options = {});
    std::vector<Placement> operator()(const OnlineCluster& cluster, int vm, int k) const;

private:
    MakeRoomOptions options_;
    std::shared_ptr<MakeRoomCache> cache_;
};

/** MakeRoomSearch without a cache: the same plans, each call from scratch. */
std::vector<Placement> make_room(const OnlineCluster& cluster, int vm, int k);

}  // namespace vmcap

#pragma once
/**
 * @file placer.h
 * The placement seam: where does an arriving VM go? A Placer chooses a host and a pNUMA placement
 * for a VM of some flavor on a SearchState as it is now; the drivers here (place_vm, remove_vm)
 * apply the choice and tell the placer which host changed, so a strategy may keep its own index
 * over hosts. Trace replay (placement/replay.h) and the commands built on it go through this
 * seam; the admission strategies of the papers plug in here.
 *
 * Strategies, one file each (registered_placers()):
 *  - `first-fit` (first_fit.cpp): the first host by index with a feasible placement, its first
 *    feasible placement;
 *  - `best-fit` (best_fit.cpp): NUMA-aware best fit: the host with the least free vCPU, and on it
 *    the placement leaving the least free vCPU on its pNUMA nodes;
 *  - `worst-fit` (best_fit.cpp, best fit's mirror): the host with the most free vCPU, and on it
 *    the placement leaving the most free vCPU on its pNUMA nodes (spread);
 *  - `vmagent-best-fit` (vmagent_fit.cpp): VMAgent's "BestFit" copied from its source, a worst
 *    fit: the (host, placement) whose lowest pNUMA node keeps the largest free share of its
 *    scarcer resource, min(free vCPU / vCPU, free RAM / RAM) after the VM; ties: the first;
 *  - `vmcap-fit` (vmcap_fit.cpp): the placement whose weighted capacity loss
 *    sum_f w_f x (VMCAP_f before - VMCAP_f after) is least (the use the VMCAP paper, seed 001,
 *    states for its closed forms), through the engine's best insertion (moves/insertion.h);
 *    ties go to best fit;
 *  - `vmcap-first-fit` (vmcap_fit.cpp): the same loss, ties go to first fit (the lowest host
 *    index; on it the lowest node mask among equal losses);
 *  - `vmcap-rack-fit` (vmcap_fit.cpp): the same loss, ties go to the lowest rack (Host::rack, racks
 *    numbered in the order of their first host), in it to best fit (least free vCPU), then to the
 *    lowest host index: first fit over racks, best fit within one. One rack: `vmcap-fit`; one host
 *    per rack: `vmcap-first-fit`.
 *  With feasibility rules (links) these seven rank every (host, placement) that fits by their
 *  own order and take the first that every rule admits (first_admitted).
 *  - `link-fit` (link_fit.cpp): for groups with vlinks (`vmcap import netsolver`'s VDC rule): the
 *    group heaviest-bandwidth first, its first VM best fit among the hosts that could take the
 *    whole group's vCPU, every later VM where it adds the least link load, within every link's
 *    capacity; on a dead end the group is undone and tried again (retry_group: the next anchor
 *    host, then best-fit's, first-fit's, starnetla's and ctaap's placements of it). Not complete
 *    for a group: a group refused after every attempt may still have a placement.
 *  - `ctaap` (ctaap.cpp): seed 002's CTAAP-Solver for a group: graduated assignment over the best
 *    candidate hosts, a maximum weighted bipartite matching with capacities (Boost.Graph min-cost
 *    flow), then clean-up of link and pNUMA violations; not complete with links.
 *  - `deferred-acceptance` (deferred_acceptance.cpp): a group or batch matched to hosts as in
 *    seed 004's college admissions with typed quotas per pNUMA node and resource: VMs prefer
 *    hosts by weighted capacity cost, hosts rank VMs largest first (one master list), which makes
 *    the matching the serial dictatorship's. Stable without links in this sense: no VM prefers a
 *    host to its match and fits there next to the VMs matched to it that the host ranks higher,
 *    in their matched placements (not: under some other packing of those VMs' pNUMA nodes).
 *  - `exact` (exact_place.cpp): each group (a request) as one MILP solved by CBC, NetSolver-ILP's
 *    model (seed 003 §2.3.1) on vmcap's routes: placed all or nothing exactly when some placement
 *    of the whole group exists (within CBC's time limit per group); for small networks.
 *  - `starnet`, `starnetla` (starnet.cpp): the dissertation's OpenStack heuristics (seed 003
 *    §4.1.2 Alg. 2, §4.1.4 Alg. 3): NovaFilter's hosts (CPU, RAM, uplink), then one random host
 *    (`starnet`) or the host with the most bandwidth to the VM's placed peers (`starnetla`), and
 *    its vlinks end to end; not complete.
 * A new strategy is one .cpp file with a Placer subclass and a factory, plus the factory's
 * declaration and its line in the registry (both in placer.cpp): two files. A placer used only by
 * its caller (e.g. a test's) needs no registry entry at all.
 *
 * Units: the state's (vCPU, MiB, ...). Not thread-safe: one placer per state and thread.
 */
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "evaluators/state/fit.h"
#include "evaluators/state/search_state.h"

namespace vmcap {

/** Where a placer puts a VM: host index and index into
 *  model.evaluator(host type, flavor).placements(); host -1: no host fits. */
struct PlaceChoice {
    int host = -1;
    int embedding = -1;
    bool found() const { return host >= 0; }
};

/**
 * A placement strategy. Contract every implementation keeps (the drivers rely on it):
 *  - choose(state, vm) returns a placement for the arriving VM `vm` (on no host) on which its
 *    flavor fits now (every resource of every pNUMA node it uses has room) and that every
 *    feasibility rule of the model admits (rules_admit), or not-found;
 *  - it is complete on a model without feasibility rules: not-found only if no (host,
 *    placement) fits, so a driver may reject a flavor in O(1) until some host gains room; with
 *    rules (links) every strategy but `starnet`, `starnetla` and `ctaap` (the papers' heuristics,
 *    which try one or N hosts, or a few candidates) is complete too: not-found only if no (host, placement) fits and is admitted;
 *  - it is deterministic: the same sequence of calls gives the same choices;
 *  - reset(state) comes before the first choose; host_changed(state, h) after every change of
 *    host h's VMs made through place_vm / remove_vm / place_group (a strategy that keeps no index
 *    ignores both); order(state, group) at the start of each attempt of place_group, and
 *    retry_group(state) after each attempt that failed.
 * A placer reads only the state; it never changes it.
 */
class Placer {
public:
    virtual ~Placer() = default;
    /** Start (or start again) on `state` as it is now. */
    virtual void reset(const SearchState& state) { (void)state; }
    /** Where the arriving VM `vm` goes now; see the contract. */
    virtual PlaceChoice choose(const SearchState& state, int vm) = 0;
    /** Host `host` of `state` gained or lost a VM since the last call. */
    virtual void host_changed(const SearchState& state, int host) {
        (void)state;
        (void)host;
    }
    /** What the strategy knows of its last not-found choose beyond "nothing fit", for refusal
     *  reasons (e.g. `exact`: "CBC proved that no placement of the request exists" or "no
     *  solution within the time limit"); empty by default. */
    virtual std::string refusal_note() const { return {}; }
    /** The order in which place_group places `group` (a permutation of it), all or nothing.
     *  Default: as given. */
    virtual std::vector<int> order(const SearchState& state, std::span<const int> group) {
        (void)state;
        return {group.begin(), group.end()};
    }
    /** Called by place_group after an attempt at a group failed and was undone (the state is as
     *  before the attempt): true asks for another attempt, which starts with order() again (a
     *  strategy remembers which attempt that is). Default: false, one attempt. A strategy must
     *  return false after finitely many attempts per group. */
    virtual bool retry_group(const SearchState& state) {
        (void)state;
        return false;
    }
    /** The order in which a batch of arriving VMs, each placed on its own (not all or nothing:
     *  `vmcap place --batch`), is placed; a strategy that plans a batch at once (`exact`) plans it
     *  here. Default: order(). */
    virtual std::vector<int> batch_order(const SearchState& state, std::span<const int> vms) { return order(state, vms); }
    /** Does the strategy place by the weighted capacity it leaves (placement_delta: `vmcap-fit`,
     *  `vmcap-first-fit`, `vmcap-rack-fit`)? Live migrations that make room for a VM are then ranked by the capacity
     *  they leave too (optimizer/solvers/make_room.h). Default: false. */
    virtual bool values_capacity() const { return false; }
};

/** Does `choice` (found) still fit for the arriving VM `vm` and does every rule admit it? A
 *  strategy that plans a group ahead re-checks each planned choice with this. O(k x R + rules). */
bool choice_admitted(const SearchState& state, int vm, const PlaceChoice& choice);

/** The choices a strategy planned for a group at once (in order() or batch_order()), each handed
 *  out once by take(). */
class GroupPlan {
public:
    void clear() { plan_.clear(); }
    void set(int vm, PlaceChoice c) { plan_[vm] = c; }
    /** The planned choice of `vm` (not found: planned to stay out), removed from the plan; when
     *  `vm` has none, plan_alone(vm) must plan it first (a group of one). */
    template <class PlanAlone>
    PlaceChoice take(int vm, PlanAlone&& plan_alone) {
        auto it = plan_.find(vm);
        if (it == plan_.end()) {
            plan_alone(vm);
            it = plan_.find(vm);
        }
        const PlaceChoice c = it->second;
        plan_.erase(it);
        return c;
    }

private:
    std::unordered_map<int, PlaceChoice> plan_;
};

/**
 * A strategy that plans a group at once (in order() or batch_order()) into `plan_` and hands each
 * VM its planned choice in choose(): `ctaap`, `deferred-acceptance`, `exact`. choose() takes the
 * VM's planned choice once (a VM with none, placed on its own, is first planned alone: a group of
 * one) and returns it when it is found and still admitted
 * (choice_admitted); otherwise unplanned() decides, so the strategy says what a VM the plan left
 * out, or a stale choice (the state changed since the plan, e.g. live migrations made room),
 * gets. Same contract as Placer; choose() costs plan_group() (when the VM has no plan) plus
 * choice_admitted plus unplanned() when that runs.
 */
class GroupPlanner : public Placer {
public:
    PlaceChoice choose(const SearchState& state, int vm) final {
        const PlaceChoice c = plan_.take(vm, [&](int v) { plan_alone(state, v); });
        if (c.found() && choice_admitted(state, vm, c)) return c;
        return unplanned(state, vm, c);
    }

protected:
    /** Plans the arriving VMs of `group` on the state now into plan_ (clearing it first is the
     *  caller's choice): every VM of the group gets an entry, not found for one planned to stay
     *  out. `whole`: the group is placed all or nothing (order()), else as many as possible
     *  (batch_order()). */
    virtual void plan_group(const SearchState& state, std::span<const int> group, bool whole) = 0;
    /** Plans `vm` on its own: a group of one. */
    void plan_alone(const SearchState& state, int vm) {
        const int one[1] = {vm};
        plan_group(state, one, true);
    }
    /** The choice of `vm` when its planned choice `planned` (already taken from plan_) is not found
     *  or no longer admitted; must keep the placer contract (fits and admitted, or not-found). */
    virtual PlaceChoice unplanned(const SearchState& state, int vm, const PlaceChoice& planned) = 0;

    GroupPlan plan_;  ///< [vm]: its choice in the last group's plan
};

/** Exact weighted capacity change of `host` (score units, <= 0 for VMCAP alone) if a VM of `flavor`
 *  took placement `emb` there now. O(targets x VMCAP). */
Score placement_delta(const SearchState& state, int flavor, int host, const Embedding& emb);

/**
 * Places the arriving VM `vm` (on no host: SearchState::place) where `placer` chooses and tells
 * the placer; returns the choice (not found: the VM stays unplaced). Throws std::logic_error if
 * the placer breaks its contract (a choice that does not fit) and whatever place() throws.
 * Cost: the placer's choose plus O(targets x (k x R + VMCAP)).
 */
PlaceChoice place_vm(SearchState& state, Placer& placer, int vm);

/** Takes the arriving VM `vm` off its host (a departure) and tells the placer. Same cost as place. */
void remove_vm(SearchState& state, Placer& placer, int vm);

/** Outcome of place_group. */
struct GroupPlacement {
    std::vector<int> order;  ///< the placer's order of the group (placer.order) in its last attempt
    int failed_vm = -1;      ///< the first VM no host could take in the first attempt, -1 when the group was placed
    bool placed() const { return failed_vm < 0; }
};

/**
 * Places the arriving VMs of `group` (e.g. a VDC: VMs with vlinks among them) all or nothing: in
 * the placer's order, each with place_vm, so each later VM sees the earlier ones on their hosts
 * (their vlinks' loads included); if one finds no host, the ones placed are taken off again and
 * the state is as before (host versions aside), and while the placer's retry_group asks for it,
 * the group is tried again from its order(). Cost: the group's place_vm calls per attempt.
 */
GroupPlacement place_group(SearchState& state, Placer& placer, std::span<const int> group);

/** Does every feasibility rule of the model (CapacityModel::filters(); the migration budget
 *  does not apply to arrivals) admit putting the arriving VM `vm` on (host, mask)? */
bool rules_admit(const SearchState& state, int vm, int host, NodeMask mask);

/** One registered strategy. */
struct PlacerInfo {
    std::string_view name;     ///< as given to `--placer`
    std::string_view summary;  ///< one line for help texts
    std::unique_ptr<Placer> (*make)();
};

/** Every registered strategy, sorted by name. */
std::span<const PlacerInfo> registered_placers();

/** The strategy called `name`; throws InputError "unknown placer 'x' (known: a, b, c)". */
std::unique_ptr<Placer> make_placer(std::string_view name);

/** The registered names, comma-separated ("best-fit, deferred-acceptance, ..."), for help texts and errors. */
std::string placer_names();

/** Ranking key of a candidate (host, placement index) for first_admitted: smaller is better. */
using CandidateKey = std::array<std::int64_t, 4>;

/**
 * For a model with feasibility rules (links): among every (host, placement) on which the arriving
 * VM `vm` fits, the one with the smallest key(host, placement) that every rule admits
 * (rules_admit), or not found. Complete and deterministic (ties cannot occur when the key ends
 * with the host and placement indices). The capacity strategies' per-host memos assume that a
 * host's fit depends on that host alone, which a link rule breaks (another host's VMs change the
 * loads), so with rules they rank every candidate this way instead. Cost O(H x placements x
 * (k x R + key)) plus one rule check per candidate tried, best first.
 */
PlaceChoice first_admitted(const SearchState& state, int vm, const std::function<CandidateKey(int host, int placement)>& key);

}  // namespace vmcap

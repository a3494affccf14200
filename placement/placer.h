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
 *  - `vmcap-fit` (vmcap_fit.cpp): the placement whose weighted capacity loss
 *    sum_f w_f x (VMCAP_f before - VMCAP_f after) is least (the use the VMCAP paper, seed 001,
 *    states for its closed forms), through the engine's best insertion (moves/insertion.h);
 *    ties go to best fit.
 * A new strategy is one .cpp file with a Placer subclass and a factory, plus its line in the
 * registry (placer.cpp); a placer used only by its caller needs no registry entry at all.
 *
 * Units: the state's (vCPU, MiB, ...). Not thread-safe: one placer per state and thread.
 */
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "evaluators/search_state.h"

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
 *  - choose(state, flavor) returns a placement on which a VM of `flavor` fits now (every
 *    resource of every pNUMA node it uses has room), or not-found;
 *  - it is complete: not-found only if no (host, placement) fits, so a driver may reject a flavor
 *    in O(1) until some host gains room;
 *  - it is deterministic: the same sequence of calls gives the same choices;
 *  - reset(state) comes before the first choose; host_changed(state, h) after every change of
 *    host h's VMs made through place_vm / remove_vm (a strategy that keeps no index ignores both).
 * A placer reads only the state; it never changes it.
 */
class Placer {
public:
    virtual ~Placer() = default;
    /** Start (or start again) on `state` as it is now. */
    virtual void reset(const SearchState& state) { (void)state; }
    /** Where a VM of `flavor` (index into problem().flavors) goes now; see the contract. */
    virtual PlaceChoice choose(const SearchState& state, int flavor) = 0;
    /** Host `host` of `state` gained or lost a VM since the last call. */
    virtual void host_changed(const SearchState& state, int host) {
        (void)state;
        (void)host;
    }
};

/** Does a VM of `flavor` fit on `host` in placement `emb` (room in every resource of each of its
 *  pNUMA nodes)? O(k x R). */
bool fits(const SearchState& state, int flavor, int host, const Embedding& emb);

/** Index of the first placement of `flavor` on `host` that fits, or -1. O(placements x k x R). */
int first_fitting_placement(const SearchState& state, int flavor, int host);

/** Free amounts of one host summed over its pNUMA nodes and of its largest node, in vCPU and RAM
 *  (MiB): necessary conditions a strategy checks before looking at placements. */
struct HostFree {
    Amount vcpu = 0, ram_mib = 0;            ///< sum over the host's pNUMA nodes
    Amount node_vcpu = 0, node_ram_mib = 0;  ///< the most any one node has free (each separately)
};
/** HostFree of `host` now. O(nodes). */
HostFree host_free(const SearchState& state, int host);

/**
 * Places the arriving VM `vm` (on no host: SearchState::place) where `placer` chooses and tells
 * the placer; returns the choice (not found: the VM stays unplaced). Throws std::logic_error if
 * the placer breaks its contract (a choice that does not fit) and whatever place() throws.
 * Cost: the placer's choose plus O(targets x (k x R + VMCAP)).
 */
PlaceChoice place_vm(SearchState& state, Placer& placer, int vm);

/** Takes the arriving VM `vm` off its host (a departure) and tells the placer. Same cost as place. */
void remove_vm(SearchState& state, Placer& placer, int vm);

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

/** "best-fit, first-fit, vmcap-fit": the registered names, for help texts and errors. */
std::string placer_names();

/** Factories of the built-in strategies (one file each). */
std::unique_ptr<Placer> make_first_fit_placer();
std::unique_ptr<Placer> make_best_fit_placer();
std::unique_ptr<Placer> make_vmcap_fit_placer();

}  // namespace vmcap

#pragma once
/**
 * @file host_scratch.h
 * Tentative free amounts of one host, for evaluating compound moves (swap, remap, exchange)
 * without mutating the SearchState: load the host's cached free amounts, release / occupy VM
 * shares on it, then ask for the exact weighted capacity change against the state's cached
 * capacities. Only the pNUMA nodes touched since load() get new capacity entries; the others
 * reuse SearchState::b_of. A value type on the stack, no allocation; O(n x R) to load.
 */
#include <cstdint>

#include "evaluators/rules/feasibility.h"
#include "evaluators/state/search_state.h"

namespace vmcap {

/** The VM's snapshot placement as an Embedding (its own vNUMA -> pNUMA mapping and node mask). */
inline Embedding snapshot_embedding(const Problem& p, int vm) {
    Embedding e;
    const Vm& v = p.vms[vm];
    e.map = v.pnuma;
    e.mask = node_mask(v.pnuma.data(), p.flavors[v.flavor].num_vnuma());
    return e;
}

class HostScratch {
public:
    /** Copies the cached free amounts of `host` and forgets earlier changes. O(nodes x R). */
    void load(const SearchState& s, int host);
    int host() const { return host_; }

    /** Gives back the share of a VM of `fl` on `nodes` (its k pNUMA nodes): free += node demand. */
    void release(const Flavor& fl, const std::uint8_t* nodes);
    /** Takes the share of a VM of `fl` on `nodes`: free -= node demand. Precondition: fits(). */
    void occupy(const Flavor& fl, const std::uint8_t* nodes);
    /** Room for a VM of `fl` on `nodes` in the tentative free amounts. O(k x R). */
    bool fits(const Flavor& fl, const std::uint8_t* nodes) const;

    /**
     * Exact weighted capacity change sum_j w_j (VMCAP_j(tentative) - capacity(host, j)), in score units, of this
     * host, with, if `extra` is given, one more VM of that flavor on `extra_nodes` (which must
     * fit). Does not change the scratch. O(targets x (n + k x R + VMCAP)).
     */
    Score gain(const SearchState& s, const Flavor* extra = nullptr, const std::uint8_t* extra_nodes = nullptr) const;

    /** The destination-node rule's answer for one more VM of `flavor` arriving on the tentative
     *  free amounts (CapacityModel::node_choice): kAnyPlacement when the rule leaves the choice
     *  free, else the placement index it assigns or kNoPlacement. */
    int rule_choice(const SearchState& s, int flavor) const { return s.model().node_choice(flavor, host_, free_); }

    /**
     * Best placement of one more VM of `flavor` among its placements on this host's type
     * (CapacityModel::evaluator): the index of the first placement with room and the largest gain(),
     * and that gain in `best`; -1 if none has room. Under a destination-node rule that fixes
     * nodes, only the placement it assigns on the tentative amounts is considered.
     * O(placements x targets x (n + k x R + VMCAP)).
     */
    int best_placement(const SearchState& s, int flavor, Score& best) const;

private:
    int host_ = -1;
    int type_ = -1;
    int n_ = 0;
    int R_ = 0;
    unsigned dirty_ = 0;  ///< nodes whose free amounts differ from the state's
    Amount free_[kMaxPNuma * kMaxResources];
};

/** May `vm` go back to its snapshot nodes, as the destination-node rule sees it, `home` holding its
 *  snapshot host's tentative free amounts before it arrives? Always when the rule leaves the choice
 *  free; under a rule that fixes nodes only from another host (a remap back arrives nowhere) and
 *  when the rule assigns the snapshot node set there. O(1) or the rule's assign(). */
inline bool rule_admits_return(const SearchState& s, int vm, const HostScratch& home) {
    if (!s.model().fixes_nodes()) return true;
    if (s.host_of(vm) == home.host()) return false;
    const int e = home.rule_choice(s, s.flavor_of(vm));
    return e >= 0 && s.model().evaluator(s.type_of(home.host()), s.flavor_of(vm)).placements()[static_cast<std::size_t>(e)].mask ==
                         snapshot_embedding(s.problem(), vm).mask;
}

}  // namespace vmcap

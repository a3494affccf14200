#include "moves/host_scratch.h"

#include "evaluators/state/capacity_change.h"

#include <algorithm>
#include <bit>

namespace vmcap {

void HostScratch::load(const SearchState& s, int host) {
    const Problem& p = s.problem();
    host_ = host;
    type_ = p.hosts[host].type;
    n_ = p.host_types[type_].num_nodes();
    R_ = s.model().num_resources();
    dirty_ = 0;
    std::copy_n(s.free_of(host), n_ * R_, free_);
}

void HostScratch::release(const Flavor& fl, const std::uint8_t* nodes) {
    for (int i = 0; i < fl.num_vnuma(); ++i) {
        dirty_ |= 1U << nodes[i];
        for (int r = 0; r < R_; ++r) free_[nodes[i] * R_ + r] += fl.node_demand[r];
    }
}

void HostScratch::occupy(const Flavor& fl, const std::uint8_t* nodes) {
    for (int i = 0; i < fl.num_vnuma(); ++i) {
        dirty_ |= 1U << nodes[i];
        for (int r = 0; r < R_; ++r) free_[nodes[i] * R_ + r] -= fl.node_demand[r];
    }
}

bool HostScratch::fits(const Flavor& fl, const std::uint8_t* nodes) const {
    return fits_nodes(free_, R_, fl, nodes);
}

int HostScratch::best_placement(const SearchState& s, int flavor, Score& best) const {
    const Flavor& fl = s.problem().flavors[flavor];
    const auto& placements = s.model().evaluator(type_, flavor).placements();
    int out = -1;
    best = 0;
    const int only = rule_choice(s, flavor);
    if (only == kNoPlacement) return out;
    for (std::size_t e = 0; e < placements.size(); ++e) {
        if (only >= 0 && static_cast<int>(e) != only) continue;
        const Embedding& emb = placements[e];
        if (!fits(fl, emb.map.data())) continue;
        const Score v = gain(s, &fl, emb.map.data());
        if (out < 0 || v > best) {
            out = static_cast<int>(e);
            best = v;
        }
    }
    return out;
}

Score HostScratch::gain(const SearchState& s, const Flavor* extra, const std::uint8_t* extra_nodes) const {
    if (extra == nullptr) return capacity_gain(s, host_, dirty_, free_);
    // One more VM on extra_nodes: the touched nodes' amounts on a local copy.
    unsigned touched = dirty_;
    Amount local[kMaxPNuma * kMaxResources];
    for (unsigned m = dirty_; m != 0; m &= m - 1) {
        const int i = std::countr_zero(m);
        std::copy_n(free_ + i * R_, R_, local + i * R_);
    }
    for (int v = 0; v < extra->num_vnuma(); ++v) {
        const int i = extra_nodes[v];
        if (!((touched >> i) & 1U)) std::copy_n(free_ + i * R_, R_, local + i * R_);
        touched |= 1U << i;
        for (int r = 0; r < R_; ++r) local[i * R_ + r] -= extra->node_demand[r];
    }
    return capacity_gain(s, host_, touched, local);
}

}  // namespace vmcap

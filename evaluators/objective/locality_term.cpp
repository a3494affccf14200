#include "evaluators/objective/locality_term.h"

#include <stdexcept>
#include <unordered_map>

#include "evaluators/state/search_state.h"

namespace vmcap {

LocalityTerm::LocalityTerm(const Problem& p, double w) : problem_(p), w_(w), vlinks_(p.vms.size()) {
    const Score milli = weight_milli(w);
    if (milli < 0) throw std::invalid_argument("locality-weight must be a number in [0, 100000] with at most 3 decimals");
    unit_ = milli * (kScoreScale / kWeightScale);  // W per Mbps in score units
    std::unordered_map<std::string, int> racks, pods;
    for (std::size_t h = 0; h < p.hosts.size(); ++h) {
        // The ToR a host attaches to; without a network, its "rack" (each rack-less host alone).
        rack_.push_back(p.network.present()       ? p.network.host_switch[h]
                        : p.hosts[h].rack.empty() ? -1 - static_cast<int>(h)
                                                  : racks.emplace(p.hosts[h].rack, static_cast<int>(racks.size())).first->second);
        pod_.push_back(p.hosts[h].pod.empty() ? -1 : pods.emplace(p.hosts[h].pod, static_cast<int>(pods.size())).first->second);
    }
    Wide most = 0;
    for (std::size_t e = 0; e < p.vlinks.size(); ++e) {
        vlinks_[p.vlinks[e].a].push_back(static_cast<int>(e));
        vlinks_[p.vlinks[e].b].push_back(static_cast<int>(e));
        most += static_cast<Wide>(2) * p.vlinks[e].mbps * unit_;
    }
    if (most >= (static_cast<Wide>(1) << 61))
        throw std::invalid_argument("locality-weight x vlink bandwidth exceeds the objective's exact integer range");
}

Score LocalityTerm::delta(const SearchState& s, std::span<const Relocation> moves) const {
    auto host_now = [&](int v, std::size_t i) { return host_after(s.host_of(v), moves, v, i); };
    Score d = 0;
    for (std::size_t i = 0; i < moves.size(); ++i) {
        const Relocation& r = moves[i];
        const int from = host_now(r.vm, i);
        for (int e : vlinks_[r.vm]) {
            const Vlink& v = problem_.vlinks[e];
            const int peer = host_now(v.a == r.vm ? v.b : v.a, i);
            d -= unit_ * v.mbps * (crossings(r.to_host, peer) - crossings(from, peer));
        }
    }
    return d;
}

double LocalityTerm::bound(const SearchState& s, std::span<const int> vms) const {
    Score b = 0;
    for (int vm : vms)
        for (int e : vlinks_[vm]) {
            const Vlink& v = problem_.vlinks[e];
            b += unit_ * v.mbps * crossings(s.host_of(v.a), s.host_of(v.b));
        }
    return static_cast<double>(b);
}

Score LocalityTerm::value(const Problem& p, const PlacementView& pl) const {
    Score total = 0;
    for (const Vlink& v : p.vlinks) total += v.mbps * crossings(pl.host[v.a], pl.host[v.b]);
    return -unit_ * total;
}

}  // namespace vmcap

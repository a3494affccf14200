// `starnet` and `starnetla` (placer.h): the dissertation's heuristics for VDCs with bandwidth
// guarantees in OpenStack Nova (seed 003, §4.1.2 Algorithm 2 and §4.1.4 Algorithm 3; digest
// §4.4-4.5), VM at a time.
//
// Both start from NovaFilter (Algorithm 1): the hosts that pass the CPU and RAM filters (here
// NUMA-aware: some placement of the flavor has room on its pNUMA nodes; Nova's NUMA fitting takes
// the first, lowest node mask) and the server-bandwidth filter (line 3: the host's uplink, in each
// direction, has room for the VM's vlinks to peers already on other hosts).
//  - `starnet`: the Weigher picks one of them at random (line 9; "the default OpenStack weigher
//    chooses a random server"), then AllocateEnd2EndNetwork reserves every vlink to a placed peer
//    end to end; if one does not fit, the VM fails: no other host is tried (Alg. 2 line 6).
//  - `starnetla`: the candidates sorted by bandwidth savings, the Mbps of the VM's vlinks to peers
//    already on that host, most first (Alg. 3 Sort, lines 10-13; ties in the random weigher's
//    order, which the text leaves open), tried in that order at most N times (retries, lines
//    3-9). N = 1 is the variant the dissertation analyses first and found as good as any N up to
//    100 (§4.3.3, Fig. 4.19).
//
// One difference, by vmcap's network model (evaluators/network/network_load.h): StarNet routes a
// vlink by bottleneck fill over successive unweighted shortest paths (AllocateVlink, lines
// 10-21); here every vlink takes the network's fixed ECMP split, the same routing the link rule,
// the search and `vmcap validate` check. On the fmcad trees both are the unique path. The hadoop
// networks are not trees: every ToR has uplinks to both aggregation switches, which share a
// lateral link and the gateway, so two racks are joined by two shortest paths; there, as on
// FatTree, ECMP spreads evenly over the shortest paths where StarNet would fill one first.
//
// Randomness: a stream of moves/rng.h per arriving VM (its index), so choose() is a function of
// the state and the VM: a run is reproducible and asking twice gives the same answer.
// Without vlinks (no link rule) these are random fit and, for `starnetla`, random fit too.
// Not complete (placer.h): with a link rule a VM may be refused although another host could take it.
// Cost per VM: O(hosts x (placements + peers)) plus N end-to-end checks.
#include <algorithm>
#include <utility>
#include <vector>

#include "evaluators/rules/link_filter.h"
#include "moves/rng.h"
#include "placement/placer.h"

namespace vmcap {

namespace {

constexpr std::uint64_t kWeigherSeed = 0x53544152'4E455453ULL;  // "STARNETS": the random weigher's streams

class StarNetPlacer final : public Placer {
public:
    StarNetPlacer(bool locality, int retries) : locality_(locality), retries_(retries) {}

    void reset(const SearchState& s) override { savings_.assign(s.problem().hosts.size(), 0); }

    PlaceChoice choose(const SearchState& s, int vm) override {
        if (savings_.size() != s.problem().hosts.size()) reset(s);
        const int flavor = s.flavor_of(vm);
        const std::int64_t band = peer_savings(s, vm);
        const LinkCapacityFilter* links = s.model().find<LinkCapacityFilter>();
        // NovaFilter: CPU and RAM (a placement with room), then the server's own bandwidth.
        passed_.clear();
        for (int h = 0; h < static_cast<int>(s.problem().hosts.size()); ++h) {
            const int e = first_fitting_placement(s, flavor, h);
            if (e < 0) continue;
            const std::int64_t leaving = band - savings_[static_cast<std::size_t>(h)];
            if (links != nullptr && leaving > 0 &&
                (links->allowance_now(s, NetworkRoutes::arc(h, 0)) < leaving ||
                 links->allowance_now(s, NetworkRoutes::arc(h, 1)) < leaving))
                continue;
            passed_.push_back(PlaceChoice{h, e});
        }
        PlaceChoice out;
        if (passed_.empty()) return clear_savings(out);
        Rng rng(kWeigherSeed, static_cast<std::uint64_t>(vm));
        if (!locality_) {  // Weigher: one at random; AllocateEnd2EndNetwork on it only
            const PlaceChoice c = passed_[static_cast<std::size_t>(rng.below(passed_.size()))];
            if (choice_admitted(s, vm, c)) out = c;
            return clear_savings(out);
        }
        // The random weigher's order (Fisher-Yates), then stable by savings, most first.
        for (std::size_t i = passed_.size(); i > 1; --i) std::swap(passed_[i - 1], passed_[static_cast<std::size_t>(rng.below(i))]);
        std::stable_sort(passed_.begin(), passed_.end(), [&](const PlaceChoice& a, const PlaceChoice& b) {
            return savings_[static_cast<std::size_t>(a.host)] > savings_[static_cast<std::size_t>(b.host)];
        });
        const std::size_t tries = std::min(passed_.size(), static_cast<std::size_t>(retries_));
        for (std::size_t i = 0; i < tries && !out.found(); ++i)
            if (choice_admitted(s, vm, passed_[i])) out = passed_[i];
        return clear_savings(out);
    }

private:
    /** savings_[h] = Mbps of `vm`'s vlinks to peers on host h (touched_ lists the hosts set);
     *  returns their sum over every host: the bandwidth the VM's placement reserves now. */
    std::int64_t peer_savings(const SearchState& s, int vm) {
        std::int64_t band = 0;
        const VlinkIndex* vl = s.model().vlink_index();
        if (vl == nullptr) return 0;
        const auto peers = vl->peers_of(vm);
        const auto mbps = vl->mbps_each(vm);
        for (std::size_t k = 0; k < peers.size(); ++k) {
            const int peer = peers[k] >= 0 ? peers[k] : ~peers[k];  // the sign encodes the vlink's orientation
            const int h = s.host_of(peer);
            if (h == kUnplaced) continue;
            if (savings_[static_cast<std::size_t>(h)] == 0) touched_.push_back(h);
            savings_[static_cast<std::size_t>(h)] += mbps[k];
            band += mbps[k];
        }
        return band;
    }

    PlaceChoice clear_savings(PlaceChoice c) {
        for (int h : touched_) savings_[static_cast<std::size_t>(h)] = 0;
        touched_.clear();
        return c;
    }

    bool locality_;
    int retries_;
    std::vector<std::int64_t> savings_;  // [host]: scratch of choose, all zero between calls
    std::vector<int> touched_;           // hosts with savings_ != 0
    std::vector<PlaceChoice> passed_;    // scratch: NovaFilter's hosts with their placement
};

}  // namespace

std::unique_ptr<Placer> make_starnet_placer() {
    return std::make_unique<StarNetPlacer>(false, 1);
}

std::unique_ptr<Placer> make_starnetla_placer() {
    return std::make_unique<StarNetPlacer>(true, 1);
}

}  // namespace vmcap

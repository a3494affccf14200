// `link-fit` (placer.h): the VDC rule of `vmcap import netsolver`, for groups of VMs with vlinks.
// A group is placed heaviest-bandwidth first: the VM with the most vlink bandwidth inside the
// group, then each next the one with the most bandwidth to those already ordered (ties: more
// bandwidth overall, more vCPU, earlier in the group). The first VM goes to the host with the
// least free vCPU that could still hold the whole group's vCPU (else the host with the most free
// vCPU); every later VM to the host where it adds the least link load (micro-units summed over
// arcs, NetworkRoutes::for_each_share, towards its peers already on hosts: co-location first,
// then the same switch, ...), ties to the least free vCPU after it (best fit), then the lowest
// host index. A host qualifies if some placement has room (the one leaving the least free vCPU
// on its nodes is taken, ties lowest node mask) and every rule admits it (the link-capacity rule:
// every arc within capacity). A VM placed on its own (place_vm) is a group of one.
// Cost per VM: O(hosts x (placements + peers x route length)).
#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "evaluators/network/network_load.h"
#include "evaluators/closed_forms/score.h"
#include "placement/placer.h"

namespace vmcap {

namespace {

int peer_vm(int q) {
    return q >= 0 ? q : ~q;  // VlinkIndex::peers_of encodes the vlink's orientation in the sign
}

class LinkFitPlacer final : public Placer {
public:
    std::vector<int> order(const SearchState& s, std::span<const int> group) override {
        const int n = static_cast<int>(group.size());
        if (position_.size() != s.problem().vms.size()) position_.assign(s.problem().vms.size(), -1);
        for (int i = 0; i < n; ++i) position_[static_cast<std::size_t>(group[static_cast<std::size_t>(i)])] = i;
        const VlinkIndex* vl = s.model().vlink_index();
        // Bandwidth inside the group: adjacency by position, and each VM's total.
        std::vector<std::vector<std::pair<int, std::int64_t>>> adj(static_cast<std::size_t>(n));
        std::vector<std::int64_t> weight(static_cast<std::size_t>(n), 0);
        group_vcpu_ = 0;
        for (int i = 0; i < n; ++i) {
            const int vm = group[static_cast<std::size_t>(i)];
            group_vcpu_ += s.problem().flavors[s.flavor_of(vm)].demand[kVcpu];
            if (vl == nullptr) continue;
            const auto peers = vl->peers_of(vm);
            const auto mbps = vl->mbps_each(vm);
            for (std::size_t k = 0; k < peers.size(); ++k) {
                const int j = position_[static_cast<std::size_t>(peer_vm(peers[k]))];
                if (j < 0) continue;
                adj[static_cast<std::size_t>(i)].emplace_back(j, mbps[k]);
                weight[static_cast<std::size_t>(i)] += mbps[k];
            }
        }
        for (int vm : group) position_[static_cast<std::size_t>(vm)] = -1;
        std::vector<int> out;
        std::vector<std::int64_t> attach(static_cast<std::size_t>(n), 0);
        std::vector<char> in(static_cast<std::size_t>(n), 0);
        auto key = [&](int x) {
            return std::make_tuple(attach[static_cast<std::size_t>(x)], weight[static_cast<std::size_t>(x)],
                                   s.problem().flavors[s.flavor_of(group[static_cast<std::size_t>(x)])].demand[kVcpu]);
        };
        for (int k = 0; k < n; ++k) {
            int best = -1;
            for (int v = 0; v < n; ++v)
                if (!in[static_cast<std::size_t>(v)] && (best < 0 || key(v) > key(best))) best = v;
            in[static_cast<std::size_t>(best)] = 1;
            out.push_back(group[static_cast<std::size_t>(best)]);
            for (auto [u, mbps] : adj[static_cast<std::size_t>(best)]) attach[static_cast<std::size_t>(u)] += mbps;
        }
        anchor_ = out.empty() ? -1 : out.front();
        return out;
    }

    PlaceChoice choose(const SearchState& s, int vm) override {
        const int flavor = s.flavor_of(vm);
        const Flavor& fl = s.problem().flavors[flavor];
        const bool anchor = vm == anchor_;  // the group's first VM: no peer on a host to be near yet
        peer_hosts(s, vm);
        const NetworkRoutes* routes = s.model().network_routes().get();
        PlaceChoice best;
        std::tuple<Wide, Amount, int> best_key{};
        for (int h = 0; h < static_cast<int>(s.problem().hosts.size()); ++h) {
            const Amount free_vcpu = host_free(s, h).vcpu;
            if (free_vcpu < fl.demand[kVcpu]) continue;
            const int e = tightest_placement(s, flavor, h);
            if (e < 0) continue;
            const auto& placement = s.model().evaluator(s.type_of(h), flavor).placements()[static_cast<std::size_t>(e)];
            if (!rules_admit(s, vm, h, placement.mask)) continue;
            std::tuple<Wide, Amount, int> key;
            if (anchor) {  // the tightest host that could take the whole group's vCPU, else the emptiest
                const bool whole = free_vcpu >= group_vcpu_;
                key = {whole ? 0 : 1, whole ? free_vcpu : -free_vcpu, h};
            } else {
                Wide cost = 0;
                for (const auto& peer : peers_) {  // not a structured binding: clang 14 cannot capture one
                    const int hq = peer.first;
                    const std::int64_t mbps = peer.second;
                    if (hq != h && routes != nullptr)
                        routes->for_each_share(h, hq, [&](int, std::int64_t units) { cost += static_cast<Wide>(mbps) * units; });
                }
                key = {cost, free_vcpu - fl.demand[kVcpu], h};
            }
            if (!best.found() || key < best_key) {
                best = PlaceChoice{h, e};
                best_key = key;
            }
        }
        return best;
    }

private:
    /** peers_ = (host, Mbps to it) of `vm`'s vlinks to VMs on hosts, summed per host. */
    void peer_hosts(const SearchState& s, int vm) {
        peers_.clear();
        const VlinkIndex* vl = s.model().vlink_index();
        if (vl == nullptr) return;
        const auto peers = vl->peers_of(vm);
        const auto mbps = vl->mbps_each(vm);
        for (std::size_t k = 0; k < peers.size(); ++k) {
            const int hq = s.host_of(peer_vm(peers[k]));
            if (hq == kUnplaced) continue;
            auto it = std::find_if(peers_.begin(), peers_.end(), [hq](const auto& x) { return x.first == hq; });
            if (it == peers_.end())
                peers_.emplace_back(hq, mbps[k]);
            else
                it->second += mbps[k];
        }
    }

    int anchor_ = -1;                                  // first VM of the last group ordered
    Amount group_vcpu_ = 0;                            // its group's vCPU
    std::vector<int> position_;                        // [vm] -> position in the group being ordered, else -1
    std::vector<std::pair<int, std::int64_t>> peers_;  // scratch of choose
};

}  // namespace

std::unique_ptr<Placer> make_link_fit_placer() {
    return std::make_unique<LinkFitPlacer>();
}

}  // namespace vmcap

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
// Retries (retry_group): the rule above goes VM by VM without backtracking, so a group can reach
// a dead end (a later VM with no admitted host) although the group fits. place_group then undoes
// the attempt and link-fit tries again, at most 5 times more: the group's first VM on the next
// host in the anchor order, then the placements of best-fit, first-fit, starnetla and ctaap for
// the whole group in that strategy's order (each choice re-checked: room and every rule). The
// first attempt that places every VM stands. Still not complete for a group: a group refused
// after every attempt may have a placement (`exact` decides that); each choose is complete for
// its VM (placer.h).
// Cost per VM: O(hosts x (placements + peers x route length)) per attempt; a refused group costs
// its six attempts (the last two: starnetla's and ctaap's, ctaap.cpp).
#include <algorithm>
#include <array>
#include <memory>
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
        if (!retrying_) attempt_ = 0;
        retrying_ = false;
        const int n = static_cast<int>(group.size());
        if (position_.size() != s.problem().vms.size()) position_.assign(s.problem().vms.size(), -1);
        for (int vm : group_) in_group_[static_cast<std::size_t>(vm)] = 0;
        in_group_.resize(s.problem().vms.size(), 0);
        group_.assign(group.begin(), group.end());
        for (int vm : group_) in_group_[static_cast<std::size_t>(vm)] = 1;
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
        if (attempt_ >= kAnchorAttempts) return delegates_[static_cast<std::size_t>(attempt_ - kAnchorAttempts)]->order(s, group);
        return out;
    }

    void reset(const SearchState& s) override {
        for (auto& d : delegates_) d->reset(s);
    }

    void host_changed(const SearchState& s, int host) override {
        for (auto& d : delegates_) d->host_changed(s, host);
    }

    bool retry_group(const SearchState& s) override {
        (void)s;
        if (attempt_ + 1 >= kAttempts) return false;
        ++attempt_;
        retrying_ = true;
        return true;
    }

    PlaceChoice choose(const SearchState& s, int vm) override {
        const bool grouped = static_cast<std::size_t>(vm) < in_group_.size() && in_group_[static_cast<std::size_t>(vm)];
        const int attempt = grouped ? attempt_ : 0;
        if (attempt >= kAnchorAttempts) {  // another strategy's choice, held to link-fit's contract
            const PlaceChoice c = delegates_[static_cast<std::size_t>(attempt - kAnchorAttempts)]->choose(s, vm);
            return c.found() && choice_admitted(s, vm, c) ? c : PlaceChoice{};
        }
        const int flavor = s.flavor_of(vm);
        const Flavor& fl = s.problem().flavors[flavor];
        const bool anchor = vm == anchor_;  // the group's first VM: no peer on a host to be near yet
        peer_hosts(s, vm);
        const NetworkRoutes* routes = s.model().network_routes().get();
        PlaceChoice best;
        std::tuple<Wide, Amount, int> best_key{};
        anchors_.clear();
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
                if (attempt > 0) anchors_.emplace_back(key, PlaceChoice{h, e});
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
        if (anchor && attempt > 0) {  // attempt k: the host k-th in that order
            if (static_cast<std::size_t>(attempt) >= anchors_.size()) return {};
            std::nth_element(anchors_.begin(), anchors_.begin() + attempt, anchors_.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
            return anchors_[static_cast<std::size_t>(attempt)].second;
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

    // Attempts at one group (retry_group), each in full after the last was undone: 0 link-fit's
    // own; 1 the same with the group's first VM on the next host in the anchor order; then the
    // choices of best-fit, first-fit (under the link rule: each VM's first admitted candidate in
    // that order), starnetla and ctaap, each in its own order, each choice re-checked here.
    static constexpr int kAnchorAttempts = 2;
    static constexpr int kAttempts = kAnchorAttempts + 4;
    std::vector<std::pair<std::tuple<Wide, Amount, int>, PlaceChoice>> anchors_;  // scratch: the anchor's candidates
    int attempt_ = 0;                                                             // the attempt at the group being placed
    bool retrying_ = false;  // retry_group asked for another attempt: order() keeps attempt_
    std::array<std::unique_ptr<Placer>, kAttempts - kAnchorAttempts> delegates_{make_placer("best-fit"), make_placer("first-fit"),
                                                                                make_placer("starnetla"), make_placer("ctaap")};
    std::vector<int> group_;                           // the group being placed
    std::vector<char> in_group_;                       // [vm]: in group_ (other VMs are groups of one: attempt 0)
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

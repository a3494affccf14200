// `vmagent-best-fit` (placer.h): the rule VMAgent (Sheng et al., the scheduling simulator of
// VMR2L) calls "BestFit", copied from its source: github.com/mail-ecnu/VMAgent at 1ffabd6,
// vmagent/schedgym/sched_env.py (the same text as schedgym/sched_env.py):
//  - Cluster.best_fit_action (lines 173-196) tries every server in index order and on each its
//    NUMA nodes 0 then 1 (line 188), places the request there tentatively and scores it by
//    Server.allo_rate of the node (lines 77-79): min(remain_cpu / tot_cpu, remain_mem / tot_mem)
//    after the placement, the node's free share of its scarcer resource. It keeps the largest
//    score, replaced only by a strictly larger one (lines 183, 192): the first (server, node) in
//    that order wins a tie. The largest free share is a worst fit (spread), not a best fit.
//  - A double request (both nodes, half the request on each; lines 46-60, 86-89) is scored by node
//    0 alone: line 182 writes min(server.allo_rate(0), server.allo_rate(0)).
//  - Only vCPU and RAM are scored; a candidate must fit (Server.usable, lines 115-136).
// On vmcap's hosts: a placement of `flavor` (its vNUMA nodes each on its own pNUMA node) is scored
// by the lowest pNUMA node it uses, after its vNUMA node's demand: on VMAgent's two-node hosts
// that is the node of a one-node request and node 0 of a double one, as there. Candidates in
// (host index, placement index) order, the placements of one host in node-mask order (as VMAgent's
// node 0 then 1); the first of the largest score wins. Scores are IEEE doubles computed as Python
// computes them (each share a correctly rounded quotient, then their min), so ties break as
// VMAgent's do. A resource with no capacity on the node (VMAgent would divide by zero) is left
// out of the min. Other resources than vCPU and RAM count for fitting only.
//
// Index: a max segment tree over host index on the most free vCPU and RAM of one node (each
// separately); a subtree whose bound, min((most vCPU - demand) / least node vCPU, (most RAM -
// demand) / least node RAM), cannot beat the best found is skipped (branch and bound, the higher
// bound first). O(log H) per host change.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "placement/placer.h"

namespace vmcap {

namespace {

class VmagentFitPlacer final : public Placer {
public:
    void reset(const SearchState& s) override {
        rules_ = s.model().has_filters();
        const Problem& p = s.problem();
        const int R = p.num_resources();
        hosts_ = static_cast<int>(p.hosts.size());
        least_vcpu_ = least_ram_ = std::numeric_limits<Amount>::max();
        for (const HostType& t : p.host_types)
            for (int n = 0; n < t.num_nodes(); ++n) {
                least_vcpu_ = std::min(least_vcpu_, t.node_capacity[static_cast<std::size_t>(n * R + kVcpu)]);
                least_ram_ = std::min(least_ram_, t.node_capacity[static_cast<std::size_t>(n * R + kRamMib)]);
            }
        leaves_ = 1;
        while (leaves_ < hosts_) leaves_ *= 2;
        seg_.assign(2 * static_cast<std::size_t>(leaves_), Largest{-1, -1});
        for (int h = 0; h < hosts_; ++h) {
            const HostFree f = host_free(s, h);
            seg_[static_cast<std::size_t>(leaves_ + h)] = Largest{f.node_vcpu, f.node_ram_mib};
        }
        for (int x = leaves_ - 1; x >= 1; --x) pull(static_cast<std::size_t>(x));
    }

    void host_changed(const SearchState& s, int h) override {
        const HostFree f = host_free(s, h);
        std::size_t x = static_cast<std::size_t>(leaves_ + h);
        seg_[x] = Largest{f.node_vcpu, f.node_ram_mib};
        for (x /= 2; x >= 1; x /= 2) pull(x);
    }

    PlaceChoice choose(const SearchState& s, int vm) override {
        const int flavor = s.flavor_of(vm);
        if (rules_)  // the same order: the largest score first, then host and placement index
            return first_admitted(s, vm, [&](int h, int e) {
                // A score in [0, 1] as a key: the order of doubles >= 0 is that of their bits.
                const double score = score_of(s, flavor, h, e);
                return CandidateKey{-std::bit_cast<std::int64_t>(score), h, e, 0};
            });
        Best best;
        search(s, flavor, 1, 0, leaves_, best);
        return best.choice;
    }

private:
    struct Largest {
        Amount vcpu, ram_mib;  // most free on one node (each separately)
    };
    struct Best {
        PlaceChoice choice;
        double score = -1.0;  // VMAgent's bst_allo_rate starts at -1
    };

    void pull(std::size_t x) {
        seg_[x] = Largest{std::max(seg_[2 * x].vcpu, seg_[2 * x + 1].vcpu), std::max(seg_[2 * x].ram_mib, seg_[2 * x + 1].ram_mib)};
    }

    /** Server.allo_rate of `node` of `host` had a vNUMA node of `flavor` been placed on it. */
    static double rate_after(const SearchState& s, int flavor, int host, int node) {
        const Problem& p = s.problem();
        const int R = p.num_resources();
        const Flavor& fl = p.flavors[static_cast<std::size_t>(flavor)];
        const HostType& t = p.host_type_of(host);
        const Amount* free = s.free_of(host);
        double rate = std::numeric_limits<double>::infinity();
        for (const int r : {kVcpu, kRamMib}) {
            const Amount cap = t.node_capacity[static_cast<std::size_t>(node * R + r)];
            if (cap > 0) rate = std::min(rate, static_cast<double>(free[node * R + r] - fl.node_demand[r]) / static_cast<double>(cap));
        }
        return rate;
    }

    /** The score of placement `e` of `flavor` on `host`: rate_after of its lowest pNUMA node. */
    static double score_of(const SearchState& s, int flavor, int host, int e) {
        const Embedding& emb = s.model().evaluator(s.type_of(host), flavor).placements()[static_cast<std::size_t>(e)];
        return rate_after(s, flavor, host, std::countr_zero(static_cast<unsigned>(emb.mask)));
    }

    /** The most a placement of `flavor` may score on the hosts under tree node x (-1: none fits). */
    double bound(const Flavor& fl, std::size_t x) const {
        const Largest& m = seg_[x];
        if (m.vcpu < fl.node_demand[kVcpu] || m.ram_mib < fl.node_demand[kRamMib]) return -1.0;
        double b = std::numeric_limits<double>::infinity();
        if (least_vcpu_ > 0) b = std::min(b, static_cast<double>(m.vcpu - fl.node_demand[kVcpu]) / static_cast<double>(least_vcpu_));
        if (least_ram_ > 0) b = std::min(b, static_cast<double>(m.ram_mib - fl.node_demand[kRamMib]) / static_cast<double>(least_ram_));
        return b;
    }

    /** Improves `best` with the hosts in [lo, hi) under tree node x. */
    void search(const SearchState& s, int flavor, std::size_t x, int lo, int hi, Best& best) const {
        if (lo >= hosts_) return;
        const double b = bound(s.problem().flavors[static_cast<std::size_t>(flavor)], x);
        if (b < 0.0 || b < best.score || (b == best.score && lo > best.choice.host)) return;
        if (hi - lo == 1) {
            const auto& placements = s.model().evaluator(s.type_of(lo), flavor).placements();
            for (int e = 0; e < static_cast<int>(placements.size()); ++e) {
                if (!fits(s, flavor, lo, placements[static_cast<std::size_t>(e)])) continue;
                const double score = score_of(s, flavor, lo, e);
                if (score > best.score || (score == best.score && lo < best.choice.host)) best = Best{PlaceChoice{lo, e}, score};
            }
            return;
        }
        const int mid = (lo + hi) / 2;
        const Flavor& fl = s.problem().flavors[static_cast<std::size_t>(flavor)];
        if (bound(fl, 2 * x + 1) > bound(fl, 2 * x)) {  // the higher bound first (ties: the left half)
            search(s, flavor, 2 * x + 1, mid, hi, best);
            search(s, flavor, 2 * x, lo, mid, best);
        } else {
            search(s, flavor, 2 * x, lo, mid, best);
            search(s, flavor, 2 * x + 1, mid, hi, best);
        }
    }

    bool rules_ = false;  // the model has feasibility rules: rank every candidate (first_admitted)
    int hosts_ = 0;
    int leaves_ = 1;
    Amount least_vcpu_ = 0, least_ram_ = 0;  // the smallest node capacities of the cluster
    std::vector<Largest> seg_;               // max over the hosts below each tree node
};

}  // namespace

std::unique_ptr<Placer> make_vmagent_fit_placer() {
    return std::make_unique<VmagentFitPlacer>();
}

}  // namespace vmcap

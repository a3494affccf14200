// `deferred-acceptance` (placer.h): a batch of arriving VMs (a group: a VDC's VMs, or consecutive
// single-VM requests with `vmcap place --batch N`) matched to hosts as in the college admissions
// problem with multiple typed quotas of seed 004 (§III.A, Alg. 1).
//  - Applicants are the VMs, institutions the hosts. A host's typed quotas are its free amounts
//    per (pNUMA node, resource); a VM fills k of them at once, node_demand on each of the k
//    distinct pNUMA nodes of one placement of vmcap's vNUMA rule (the paper's "slots of different
//    types"; a VM, unlike the paper's elastic jobs, takes its whole demand or nothing).
//  - A VM's preferences: the hosts where its flavor fits at the start of the batch, by the
//    weighted capacity it would cost there (the engine's best insertion, as `vmcap-fit`), then
//    best fit (least free vCPU), then host index; fixed for the batch (the paper's "no
//    externalities").
//  - Hosts' preferences: one master list, as in the paper (L98: every VM "has the same preference
//    ranking of jobs": the one that uses more processors first): more vCPU, more RAM, more vNUMA
//    nodes, then the earlier VM.
//  - The matching: seed 004's Alg. 1 runs deferred acceptance, then fixes the match of the job
//    every institution ranks first (it gets its first choice: Step 3) and repeats on what is left.
//    With one master list that is the serial dictatorship, computed here directly: each VM in the
//    master order takes the first host on its list where it still fits next to the VMs matched
//    before it, in the placement leaving the least free vCPU on that host's nodes.
//    (Proposal rounds in which a host re-packs its held VMs greedily are not equivalent with
//    several nodes and resources: a host that drops a VM regains room that VMs it rejected
//    earlier never ask for again, and the result can be unstable.)
// What is guaranteed (tested by brute force on random multi-node batches): the matching is stable
// in this sense: there is no VM i and host h such that i prefers h to its match (or is unmatched,
// h on its list) and some placement of i fits on h next to the batch's VMs matched to h that h
// ranks above i, in their matched placements. Not guaranteed: that i could not fit on h if those
// VMs were packed onto other pNUMA nodes of h (each takes the tightest placement in turn, not the
// packing best for later VMs), nor anything about links. order() returns the master order, so
// placing the batch VM by VM reproduces the matching. Without feasibility rules it is complete:
// a VM left unmatched fits on no host next to the VMs placed before it. With vlinks (rules) the
// matching ignores the links (they are externalities the paper excludes): a planned choice a
// rule refuses, or no match, is replaced by the first admitted placement in vmcap-fit's order,
// so the result is complete per VM but no longer the matching, and not stable.
// Cost per batch of n VMs: O(n x H x (placements x targets x VMCAP)) for the preferences, then
// O(n x H x placements x k x R) for the matching.
#include <algorithm>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "moves/insertion.h"
#include "placement/placer.h"

namespace vmcap {

namespace {

class DeferredAcceptancePlacer final : public GroupPlanner {
public:
    std::vector<int> order(const SearchState& s, std::span<const int> group) override {
        std::vector<int> master(group.begin(), group.end());
        std::sort(master.begin(), master.end(), [&](int a, int b) { return ranks_before(s, a, b); });
        plan_group(s, master, true);
        return master;
    }

private:
    /** Unmatched, a rule refuses the match, or the state is not the one planned on (a rule moved an
     *  earlier VM, or live migrations made room): the first admitted placement, if any (complete). */
    PlaceChoice unplanned(const SearchState& s, int vm, const PlaceChoice&) override {
        const int f = s.flavor_of(vm);
        return first_admitted(s, vm, [&](int h, int e) {
            const Embedding& em = s.model().evaluator(s.type_of(h), f).placements()[static_cast<std::size_t>(e)];
            return CandidateKey{-placement_delta(s, f, h, em), host_free(s, h).vcpu, h, e};
        });
    }

    /** The hosts' master list: does VM a come before VM b? */
    static bool ranks_before(const SearchState& s, int a, int b) {
        const Flavor& fa = s.problem().flavors[static_cast<std::size_t>(s.flavor_of(a))];
        const Flavor& fb = s.problem().flavors[static_cast<std::size_t>(s.flavor_of(b))];
        return std::make_tuple(-fa.demand[kVcpu], -fa.demand[kRamMib], -fa.num_vnuma(), a) <
               std::make_tuple(-fb.demand[kVcpu], -fb.demand[kRamMib], -fb.num_vnuma(), b);
    }

    /** Each flavor's preference list over the hosts on the state now (computed once per flavor). */
    const std::vector<int>& preferences(const SearchState& s, int flavor) {
        auto [it, fresh] = prefs_.try_emplace(flavor);
        if (!fresh) return it->second;
        std::vector<std::tuple<Score, Amount, int>> keyed;
        for (int h = 0; h < static_cast<int>(s.problem().hosts.size()); ++h) {
            const Insertion ins = best_insertion(s, flavor, h, -1);
            if (ins.embedding >= 0) keyed.emplace_back(-ins.delta, host_free(s, h).vcpu, h);
        }
        std::sort(keyed.begin(), keyed.end());
        for (const auto& k : keyed) it->second.push_back(std::get<2>(k));
        return it->second;
    }

    /** The matching of `master` (the batch in the hosts' order) on the state now: each VM in that
     *  order on the first host of its list where it still fits next to those matched before it
     *  (scratch free amounts per host); fills plan_. The same for a group and a batch. */
    void plan_group(const SearchState& s, std::span<const int> master, bool) override {
        prefs_.clear();
        const int R = s.model().num_resources();
        std::unordered_map<int, std::vector<Amount>> free;  // host -> free amounts after the VMs matched to it so far
        plan_.clear();
        for (const int vm : master) {
            PlaceChoice c;
            for (const int h : preferences(s, s.flavor_of(vm))) {
                auto [it, fresh] = free.try_emplace(h);
                if (fresh) it->second.assign(s.free_of(h), s.free_of(h) + s.nodes_of(h) * R);
                const int e = tightest_placement_on(s, s.flavor_of(vm), h, it->second.data(), true);
                if (e < 0) continue;
                c = PlaceChoice{h, e};
                break;
            }
            plan_.set(vm, c);
        }
    }

    std::unordered_map<int, std::vector<int>> prefs_;  // [flavor]: hosts in preference order, this batch
};

}  // namespace

std::unique_ptr<Placer> make_deferred_acceptance_placer() {
    return std::make_unique<DeferredAcceptancePlacer>();
}

}  // namespace vmcap

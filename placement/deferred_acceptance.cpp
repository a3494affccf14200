// `deferred-acceptance` (placer.h): a batch of arriving VMs (a group: a VDC's VMs, or consecutive
// single-VM requests with `vmcap place --batch N`) matched to hosts by deferred acceptance, the
// college admissions problem with multiple typed quotas of seed 004 (§III.A, Alg. 1).
//  - Applicants are the VMs, institutions the hosts. A host's typed quotas are its free amounts
//    per (pNUMA node, resource); a VM fills k of them at once, node_demand on each of the k
//    distinct pNUMA nodes of one placement of vmcap's vNUMA rule (the paper's "slots of different
//    types"; a VM, unlike the paper's elastic jobs, takes its whole demand or nothing).
//  - A VM's preferences: the hosts where its flavor fits now, by the weighted capacity it would
//    cost there (the engine's best insertion, as `vmcap-fit`), then best fit (least free vCPU),
//    then host index; fixed at the start of the batch (the paper's "no externalities").
//  - Hosts' preferences: one master list, as in the paper (L98: every VM "has the same preference
//    ranking of jobs": the one that uses more processors first): more vCPU, more RAM, more vNUMA
//    nodes, then the earlier VM.
//  - Rounds: every unmatched VM proposes to the next host on its list; a host keeps, among those
//    it holds and the new proposers, in its order, each that still fits on its nodes (the
//    placement leaving the least free vCPU on its nodes) and rejects the rest, who propose again.
// With a master list the result is the serial dictatorship's (each VM, in the master order, takes
// its favourite host that still has room) and it is stable: no VM i and host h where i prefers h
// to its match and fits on h next to the VMs h ranks above i (tested by brute force, with the
// serial dictatorship as a second oracle). order() returns the master order, so placing the batch
// VM by VM reproduces the matching. Without feasibility rules it is complete (a VM left unmatched
// fits on no host next to the VMs placed before it). With vlinks (rules) the matching ignores the
// links (they are externalities the paper excludes): a planned choice a rule refuses is replaced
// by the first admitted placement in vmcap-fit's order.
// Cost per batch of n VMs: O(n x H x (placements x targets x VMCAP)) for the preferences, then at
// most n x H proposals of O(n x placements x k x R) each.
#include <algorithm>
#include <deque>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "moves/insertion.h"
#include "placement/placer.h"

namespace vmcap {

namespace {

class DeferredAcceptancePlacer final : public Placer {
public:
    std::vector<int> order(const SearchState& s, std::span<const int> group) override {
        std::vector<int> master(group.begin(), group.end());
        std::sort(master.begin(), master.end(), [&](int a, int b) { return ranks_before(s, a, b); });
        match(s, master);
        return master;
    }

    PlaceChoice choose(const SearchState& s, int vm) override {
        const PlaceChoice c = plan_.take(vm, [&](int v) {  // a VM on its own: a group of one
            const int one[1] = {v};
            match(s, one);
        });
        if (!c.found()) return c;
        if (choice_admitted(s, vm, c)) return c;
        const int f = s.flavor_of(vm);
        return first_admitted(s, vm, [&](int h, int e) {
            const Embedding& em = s.model().evaluator(s.type_of(h), f).placements()[static_cast<std::size_t>(e)];
            return CandidateKey{-placement_delta(s, f, h, em), host_free(s, h).vcpu, h, e};
        });
    }

private:
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

    /** Deferred acceptance of `master` (the batch in the hosts' order) on the state now; fills plan_. */
    void match(const SearchState& s, std::span<const int> master) {
        prefs_.clear();
        const std::size_t n = master.size();
        std::vector<std::size_t> next(n, 0);                     // [rank] next host to propose to
        std::unordered_map<int, std::vector<std::size_t>> held;  // host -> ranks held, ascending
        std::unordered_map<int, std::vector<int>> embedding_of;  // host -> placement of each held, same order
        std::deque<std::size_t> free_vms;
        for (std::size_t r = 0; r < n; ++r) free_vms.push_back(r);
        while (!free_vms.empty()) {
            const std::size_t r = free_vms.front();
            free_vms.pop_front();
            const std::vector<int>& pref = preferences(s, s.flavor_of(master[r]));
            if (next[r] == pref.size()) continue;  // every acceptable host rejected it: unmatched
            const int h = pref[next[r]++];
            std::vector<std::size_t> proposers = held[h];
            proposers.insert(std::upper_bound(proposers.begin(), proposers.end(), r), r);
            std::vector<Amount> free(s.free_of(h), s.free_of(h) + s.nodes_of(h) * s.model().num_resources());
            std::vector<std::size_t> keep;
            std::vector<int> emb;
            for (std::size_t q : proposers) {  // the host's order: each that still fits
                const int e = tightest_placement_on(s, s.flavor_of(master[q]), h, free.data(), true);
                if (e < 0) {
                    free_vms.push_back(q);  // rejected: proposes to its next host
                    continue;
                }
                keep.push_back(q);
                emb.push_back(e);
            }
            held[h] = std::move(keep);
            embedding_of[h] = std::move(emb);
        }
        plan_.clear();
        for (int vm : master) plan_.set(vm, PlaceChoice{});
        for (const auto& [h, ranks] : held)
            for (std::size_t k = 0; k < ranks.size(); ++k) plan_.set(master[ranks[k]], PlaceChoice{h, embedding_of[h][k]});
    }

    GroupPlan plan_;                                   // [vm]: its match in the last batch (not found: unmatched)
    std::unordered_map<int, std::vector<int>> prefs_;  // [flavor]: hosts in preference order, this batch
};

}  // namespace

std::unique_ptr<Placer> make_deferred_acceptance_placer() {
    return std::make_unique<DeferredAcceptancePlacer>();
}

}  // namespace vmcap

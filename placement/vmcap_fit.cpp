// `vmcap-fit` (placer.h): the placement that loses the least weighted capacity
// sum_f w_f x VMCAP_f over the snapshot's target flavors — the use the VMCAP paper (seed 001)
// states for its closed forms: put a VM where it blocks the fewest future VMs of the flavors that
// matter. On each host the candidate is the engine's best insertion (moves/insertion.h: the
// placement with the largest exact capacity change, ties lowest node mask); across hosts the
// largest change wins, ties go to best fit (least free vCPU), then to the lowest host index. With
// no target flavor every change is 0 and it is best fit. `vmcap-first-fit` is the same placer
// with ties going straight to the lowest host index (first fit among the hosts of least loss),
// which keeps the high-index hosts empty longer; measured against `vmcap-fit` in
// docs/performance.md ("`vmcap-first-fit` and the preset on the Huawei rows").
//
// Cost: each host's best insertion for a flavor is memoised by host version
// (SearchState::host_version), so a choice recomputes only the hosts changed since the flavor's
// last arrival (O(placements x targets x VMCAP) each) and compares H memo entries.
// Memory O(H x flavors seen). With feasibility rules (links) every (host, placement) that fits is
// ranked by its own change (first_admitted, placer.h).
#include <cstdint>
#include <vector>

#include "moves/insertion.h"
#include "placement/placer.h"

namespace vmcap {

namespace {

class VmcapFitPlacer final : public Placer {
public:
    explicit VmcapFitPlacer(bool first_host_ties) : first_host_ties_(first_host_ties) {}

    bool values_capacity() const override { return true; }

    void reset(const SearchState& s) override {
        rules_ = s.model().has_filters();
        memo_.assign(s.problem().flavors.size(), {});
    }

    PlaceChoice choose(const SearchState& s, int vm) override {
        const int flavor = s.flavor_of(vm);
        if (rules_)
            return first_admitted(s, vm, [&](int h, int e) {
                const Embedding& emb = s.model().evaluator(s.type_of(h), flavor).placements()[static_cast<std::size_t>(e)];
                return CandidateKey{-placement_delta(s, flavor, h, emb), first_host_ties_ ? Amount{0} : host_free(s, h).vcpu, h, e};
            });
        std::vector<Entry>& memo = memo_[static_cast<std::size_t>(flavor)];
        const int H = static_cast<int>(s.problem().hosts.size());
        if (memo.empty()) memo.resize(static_cast<std::size_t>(H));  // version 0: never computed (versions start at 1)
        PlaceChoice best;
        const Entry* b = nullptr;
        for (int h = 0; h < H; ++h) {
            Entry& e = memo[static_cast<std::size_t>(h)];
            if (e.version != s.host_version(h)) {
                const Insertion ins = best_insertion(s, flavor, h, -1);
                e = Entry{s.host_version(h), ins.embedding, ins.delta, host_free(s, h).vcpu};
            }
            if (e.embedding < 0) continue;
            if (b == nullptr || e.delta > b->delta || (e.delta == b->delta && !first_host_ties_ && e.free_vcpu < b->free_vcpu)) {
                b = &e;
                best = PlaceChoice{h, e.embedding};
            }
        }
        return best;
    }

private:
    struct Entry {
        std::uint64_t version = 0;  // host version the entry was computed at
        int embedding = -1;         // best insertion's placement, -1: none fits
        Score delta = 0;            // its exact weighted capacity change (score units, <= 0 for VMCAP alone)
        Amount free_vcpu = 0;       // free vCPU of the host before the VM (best-fit tie-break)
    };

    bool first_host_ties_ = false;          // ties go to the lowest host index (first fit), not the least free vCPU
    bool rules_ = false;                    // the model has feasibility rules: rank every candidate (first_admitted)
    std::vector<std::vector<Entry>> memo_;  // [flavor][host]
};

}  // namespace

std::unique_ptr<Placer> make_vmcap_fit_placer() {
    return std::make_unique<VmcapFitPlacer>(false);
}

std::unique_ptr<Placer> make_vmcap_first_fit_placer() {
    return std::make_unique<VmcapFitPlacer>(true);
}

}  // namespace vmcap

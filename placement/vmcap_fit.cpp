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
// `vmcap-rack-fit` sends ties to the lowest rack (Host::rack, racks numbered in the order of their
// first host) and within it to best fit: first fit over racks keeps the later racks empty, as
// first fit keeps the later hosts, while best fit inside a rack lets its lightly loaded hosts
// drain to empty instead of being topped up by small VMs (which is what turns away the large
// two-node VMs on Huawei-East-1 under first fit's ties); docs/performance.md ("Ties by rack").
//
// Cost: each host's best insertion for a flavor is memoised by host version
// (SearchState::host_version), so a choice recomputes only the hosts changed since the flavor's
// last arrival (O(placements x targets x VMCAP) each) and compares H memo entries.
// Memory O(H x flavors seen). With feasibility rules (links) every (host, placement) that fits is
// ranked by its own change (first_admitted, placer.h).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "moves/insertion.h"
#include "placement/placer.h"

namespace vmcap {

namespace {

class VmcapFitPlacer final : public Placer {
public:
    /** How ties of the capacity loss are broken, before the lowest host index. */
    enum class Ties {
        BestFit,      // the least free vCPU
        FirstFit,     // none: the lowest host index
        RackBestFit,  // the lowest rack, then the least free vCPU
    };

    explicit VmcapFitPlacer(Ties ties) : ties_(ties) {}

    bool values_capacity() const override { return true; }

    void reset(const SearchState& s) override {
        rules_ = s.model().has_filters();
        memo_.assign(s.problem().flavors.size(), {});
        rack_.assign(s.problem().hosts.size(), 0);
        if (ties_ == Ties::RackBestFit) {
            std::map<std::string, std::int64_t> index;  // rack name -> its number, in the order of its first host
            for (std::size_t h = 0; h < rack_.size(); ++h)
                rack_[h] = index.emplace(s.problem().hosts[h].rack, static_cast<std::int64_t>(index.size())).first->second;
        }
    }

    PlaceChoice choose(const SearchState& s, int vm) override {
        const int flavor = s.flavor_of(vm);
        if (rules_)
            return first_admitted(s, vm, [&](int h, int e) {
                const Embedding& emb = s.model().evaluator(s.type_of(h), flavor).placements()[static_cast<std::size_t>(e)];
                return CandidateKey{-placement_delta(s, flavor, h, emb), tie_key(h, host_free(s, h).vcpu), h, e};
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
                e = Entry{s.host_version(h), ins.embedding, ins.delta, tie_key(h, host_free(s, h).vcpu)};
            }
            if (e.embedding < 0) continue;
            if (b == nullptr || e.delta > b->delta || (e.delta == b->delta && e.tie < b->tie)) {
                b = &e;
                best = PlaceChoice{h, e.embedding};
            }
        }
        return best;
    }

private:
    /** The tie key of host h with `free_vcpu` free (smaller wins; equal keys: the lower index).
     *  RackBestFit: the rack number above the free vCPU (below 2^40 on any real host). */
    std::int64_t tie_key(int h, Amount free_vcpu) const {
        switch (ties_) {
            case Ties::BestFit: return free_vcpu;
            case Ties::FirstFit: return 0;
            case Ties::RackBestFit: return (rack_[static_cast<std::size_t>(h)] << 40) + free_vcpu;
        }
        return 0;
    }

    struct Entry {
        std::uint64_t version = 0;  // host version the entry was computed at
        int embedding = -1;         // best insertion's placement, -1: none fits
        Score delta = 0;            // its exact weighted capacity change (score units, <= 0 for VMCAP alone)
        std::int64_t tie = 0;       // tie_key of the host before the VM
    };

    Ties ties_ = Ties::BestFit;
    std::vector<std::int64_t> rack_;        // [host]: its rack's number (RackBestFit), else 0
    bool rules_ = false;                    // the model has feasibility rules: rank every candidate (first_admitted)
    std::vector<std::vector<Entry>> memo_;  // [flavor][host]
};

}  // namespace

std::unique_ptr<Placer> make_vmcap_fit_placer() {
    return std::make_unique<VmcapFitPlacer>(VmcapFitPlacer::Ties::BestFit);
}

std::unique_ptr<Placer> make_vmcap_first_fit_placer() {
    return std::make_unique<VmcapFitPlacer>(VmcapFitPlacer::Ties::FirstFit);
}

std::unique_ptr<Placer> make_vmcap_rack_fit_placer() {
    return std::make_unique<VmcapFitPlacer>(VmcapFitPlacer::Ties::RackBestFit);
}

}  // namespace vmcap

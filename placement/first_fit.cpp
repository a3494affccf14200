// `first-fit` (placer.h): the first host by index with a placement that fits, and its first
// placement that fits (lowest node mask). The simplest complete placer; the baseline of
// `vmcap snapshot --placer first-fit`.
//
// Index: a max segment tree over host index on the largest free node (vCPU and RAM separately),
// so the search descends only into ranges where some node could hold one vNUMA node of the
// flavor; a host that did not fit this flavor at its current version (SearchState::host_version)
// is skipped in O(1). O(log H) per host change; memory O(H x (1 + flavors)). With feasibility rules
// (links) every (host, placement) that fits is ranked in the same order (first_admitted, placer.h).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "placement/placer.h"

namespace vmcap {

namespace {

class FirstFitPlacer final : public Placer {
public:
    void reset(const SearchState& s) override {
        rules_ = s.model().has_filters();
        hosts_ = static_cast<int>(s.problem().hosts.size());
        leaves_ = 1;
        while (leaves_ < hosts_) leaves_ *= 2;
        seg_.assign(2 * static_cast<std::size_t>(leaves_), Largest{-1, -1});
        for (int h = 0; h < hosts_; ++h) {
            const HostFree f = host_free(s, h);
            seg_[static_cast<std::size_t>(leaves_ + h)] = Largest{f.node_vcpu, f.node_ram_mib};
        }
        for (int x = leaves_ - 1; x >= 1; --x) pull(static_cast<std::size_t>(x));
        failed_.assign(s.problem().flavors.size(), {});
    }

    void host_changed(const SearchState& s, int h) override {
        const HostFree f = host_free(s, h);
        std::size_t x = static_cast<std::size_t>(leaves_ + h);
        seg_[x] = Largest{f.node_vcpu, f.node_ram_mib};
        for (x /= 2; x >= 1; x /= 2) pull(x);
    }

    PlaceChoice choose(const SearchState& s, int vm) override {
        if (rules_) return first_admitted(s, vm, [](int h, int e) { return CandidateKey{h, e, 0, 0}; });
        const int flavor = s.flavor_of(vm);
        std::vector<std::uint64_t>& failed = failed_[static_cast<std::size_t>(flavor)];
        if (failed.empty()) failed.assign(static_cast<std::size_t>(hosts_), 0);  // host versions start at 1
        return leftmost(s, flavor, failed, 1, 0, leaves_);
    }

private:
    struct Largest {
        Amount vcpu, ram_mib;  // most free on one node (each separately)
    };

    void pull(std::size_t x) {
        seg_[x] = Largest{std::max(seg_[2 * x].vcpu, seg_[2 * x + 1].vcpu), std::max(seg_[2 * x].ram_mib, seg_[2 * x + 1].ram_mib)};
    }

    /** Leftmost host in [lo, hi) under tree node x with a placement of `flavor` that fits. */
    PlaceChoice leftmost(const SearchState& s, int flavor, std::vector<std::uint64_t>& failed, int x, int lo, int hi) const {
        const Largest& m = seg_[static_cast<std::size_t>(x)];
        const Flavor& fl = s.problem().flavors[flavor];
        if (lo >= hosts_ || m.vcpu < fl.node_demand[kVcpu] || m.ram_mib < fl.node_demand[kRamMib]) return {};
        if (hi - lo == 1) {
            std::uint64_t& memo = failed[static_cast<std::size_t>(lo)];
            if (memo == s.host_version(lo)) return {};
            const int e = first_fitting_placement(s, flavor, lo);
            if (e >= 0) return PlaceChoice{lo, e};
            memo = s.host_version(lo);
            return {};
        }
        const int mid = (lo + hi) / 2;
        const PlaceChoice left = leftmost(s, flavor, failed, 2 * x, lo, mid);
        return left.found() ? left : leftmost(s, flavor, failed, 2 * x + 1, mid, hi);
    }

    bool rules_ = false;  // the model has feasibility rules: rank every candidate (first_admitted)
    int hosts_ = 0;
    int leaves_ = 1;
    std::vector<Largest> seg_;                        // max over the hosts below each tree node
    std::vector<std::vector<std::uint64_t>> failed_;  // [flavor][host]: host version at which it did not fit (0: never)
};

}  // namespace

std::unique_ptr<Placer> make_first_fit_placer() {
    return std::make_unique<FirstFitPlacer>();
}

}  // namespace vmcap

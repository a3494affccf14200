// `best-fit`: NUMA-aware best fit (placer.h). Among all (host, placement) pairs that fit, the host
// with the least free vCPU (ties: lowest host index), and on it the placement leaving the least
// free vCPU on its pNUMA nodes (ties: lowest placement index, i.e. lowest node mask). The classic
// consolidating rule of schedulers, and `vmcap snapshot`'s default.
// `worst-fit`: its mirror, the spreading rule: the host with the most free vCPU (ties: lowest host
// index), and on it the placement leaving the most free vCPU on its pNUMA nodes (ties: lowest
// placement index).
//
// Index: one bucket per free-vCPU value, each a two-level bitset of hosts, so hosts are visited in
// (free vCPU, index) order from the flavor's vCPU upwards (worst fit: from the most downwards) and
// moved between buckets in O(1). A host
// whose free totals or largest free node are too small, or that did not fit this flavor at its
// current version (SearchState::host_version), is skipped in O(1) without looking at its nodes.
// Memory O(H x (1 + flavors) + V x H / 64) for V = most vCPU of one host. With feasibility rules
// (links) every (host, placement) that fits is ranked in the same order (first_admitted, placer.h).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <vector>

#include "placement/placer.h"

namespace vmcap {

namespace {

/** Set of host indices: bitset plus a summary bitset of non-zero words; O(1) update, ordered scan. */
class HostSet {
public:
    explicit HostSet(int hosts) : words_((static_cast<std::size_t>(hosts) + 63) / 64, 0), summary_((words_.size() + 63) / 64, 0) {}
    bool empty() const { return count_ == 0; }
    void insert(int h) {
        const auto w = static_cast<std::size_t>(h) / 64;
        words_[w] |= std::uint64_t{1} << (h % 64);
        summary_[w / 64] |= std::uint64_t{1} << (w % 64);
        ++count_;
    }
    void erase(int h) {
        const auto w = static_cast<std::size_t>(h) / 64;
        words_[w] &= ~(std::uint64_t{1} << (h % 64));
        if (words_[w] == 0) summary_[w / 64] &= ~(std::uint64_t{1} << (w % 64));
        --count_;
    }
    /** Calls fn(h) for the members in increasing order while it returns true. */
    template <class Fn>
    void for_each(Fn&& fn) const {
        for (std::size_t s = 0; s < summary_.size(); ++s)
            for (std::uint64_t sw = summary_[s]; sw; sw &= sw - 1) {
                const std::size_t w = s * 64 + static_cast<std::size_t>(std::countr_zero(sw));
                for (std::uint64_t bits = words_[w]; bits; bits &= bits - 1)
                    if (!fn(static_cast<int>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits))))) return;
            }
    }

private:
    std::vector<std::uint64_t> words_, summary_;
    int count_ = 0;
};

class BestFitPlacer final : public Placer {
public:
    /** spread: worst fit (the most free vCPU first) instead of best fit. */
    explicit BestFitPlacer(bool spread) : spread_(spread) {}

    void reset(const SearchState& s) override {
        rules_ = s.model().has_filters();
        const Problem& p = s.problem();
        const int H = static_cast<int>(p.hosts.size());
        Amount most = 0;
        for (const HostType& t : p.host_types) {
            Amount v = 0;
            for (int i = 0; i < t.num_nodes(); ++i) v += t.node_capacity[static_cast<std::size_t>(i * p.num_resources() + kVcpu)];
            most = std::max(most, v);
        }
        free_.resize(static_cast<std::size_t>(H));
        hosts_ = H;
        // One bucket per free vCPU count up to the largest host's; past kDenseBuckets (hosts of
        // absurd size, e.g. a fuzzed input) a bucket per count present instead, so that memory
        // and a scan follow the hosts, not the counts.
        dense_ = most < kDenseBuckets;
        buckets_.assign(dense_ ? static_cast<std::size_t>(most) + 1 : 0, HostSet(H));
        sparse_.clear();
        for (int h = 0; h < H; ++h) {
            free_[static_cast<std::size_t>(h)] = host_free(s, h);
            bucket_insert(free_[static_cast<std::size_t>(h)].vcpu, h);
        }
        failed_.assign(p.flavors.size(), {});
    }

    void host_changed(const SearchState& s, int h) override {
        HostFree& f = free_[static_cast<std::size_t>(h)];
        bucket_erase(f.vcpu, h);
        f = host_free(s, h);
        bucket_insert(f.vcpu, h);
    }

    PlaceChoice choose(const SearchState& s, int vm) override {
        const int flavor = s.flavor_of(vm);
        const Flavor& fl = s.problem().flavors[flavor];
        if (rules_)  // the same order: least (worst fit: most) free vCPU on the host, then on the placement's nodes
            return first_admitted(s, vm, [&](int h, int e) {
                const Embedding& emb = s.model().evaluator(s.type_of(h), flavor).placements()[static_cast<std::size_t>(e)];
                const int R = s.model().num_resources();
                Amount left = 0;
                for (int i = 0; i < fl.num_vnuma(); ++i)
                    left += s.free_of(h)[emb.map[static_cast<std::size_t>(i)] * R + kVcpu] - fl.node_demand[kVcpu];
                const Amount host = host_free(s, h).vcpu;
                return spread_ ? CandidateKey{-host, h, -left, e} : CandidateKey{host, h, left, e};
            });
        std::vector<std::uint64_t>& failed = failed_[static_cast<std::size_t>(flavor)];
        if (failed.empty()) failed.assign(free_.size(), 0);  // host versions start at 1: 0 = never failed
        PlaceChoice found;
        const auto least = static_cast<std::size_t>(std::max<Amount>(fl.demand[kVcpu], 0));
        const auto visit = [&](const HostSet& bucket) {
            bucket.for_each([&](int h) {
                const HostFree& a = free_[static_cast<std::size_t>(h)];
                if (a.node_vcpu < fl.node_demand[kVcpu] || a.node_ram_mib < fl.node_demand[kRamMib] || a.ram_mib < fl.demand[kRamMib])
                    return true;
                std::uint64_t& memo = failed[static_cast<std::size_t>(h)];
                if (memo == s.host_version(h)) return true;
                const int e = spread_ ? loosest_placement(s, flavor, h) : tightest_placement(s, flavor, h);
                if (e >= 0) {
                    found = PlaceChoice{h, e};
                    return false;
                }
                memo = s.host_version(h);
                return true;
            });
        };
        if (dense_) {
            for (std::size_t i = least; i < buckets_.size() && !found.found(); ++i) {
                const std::size_t v = spread_ ? buckets_.size() - 1 - (i - least) : i;  // worst fit: the most free first
                if (!buckets_[v].empty()) visit(buckets_[v]);
            }
        } else if (spread_) {
            for (auto it = sparse_.rbegin(); it != sparse_.rend() && it->first >= static_cast<Amount>(least) && !found.found(); ++it)
                visit(it->second);
        } else {
            for (auto it = sparse_.lower_bound(static_cast<Amount>(least)); it != sparse_.end() && !found.found(); ++it) visit(it->second);
        }
        return found;
    }

private:
    static constexpr Amount kDenseBuckets = Amount{1} << 16;

    void bucket_insert(Amount vcpu, int h) {
        if (dense_)
            buckets_[static_cast<std::size_t>(vcpu)].insert(h);
        else
            sparse_.try_emplace(vcpu, hosts_).first->second.insert(h);
    }
    void bucket_erase(Amount vcpu, int h) {
        if (dense_) {
            buckets_[static_cast<std::size_t>(vcpu)].erase(h);
            return;
        }
        const auto it = sparse_.find(vcpu);
        it->second.erase(h);
        if (it->second.empty()) sparse_.erase(it);
    }

    bool spread_ = false;               // worst fit
    bool rules_ = false;                // the model has feasibility rules: rank every candidate (first_admitted)
    std::vector<HostFree> free_;        // [host], as of the last host_changed
    std::vector<HostSet> buckets_;      // [free vCPU] -> hosts (dense_)
    std::map<Amount, HostSet> sparse_;  // free vCPU -> hosts, the counts present (not dense_)
    bool dense_ = true;
    int hosts_ = 0;
    std::vector<std::vector<std::uint64_t>> failed_;  // [flavor][host]: host version at which it did not fit (0: never)
};

}  // namespace

std::unique_ptr<Placer> make_best_fit_placer() {
    return std::make_unique<BestFitPlacer>(false);
}

std::unique_ptr<Placer> make_worst_fit_placer() {
    return std::make_unique<BestFitPlacer>(true);
}

}  // namespace vmcap

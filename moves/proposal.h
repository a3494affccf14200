#pragma once
/**
 * @file proposal.h
 * Neighbourhood sampling state shared by every move type's propose(): the worker's RNG, the
 * migratable VMs, a prefetching random-VM stream and per-flavor destination candidate lists.
 * Per worker; not thread-safe.
 */
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "evaluators/state/search_state.h"
#include "instances/vlink_index.h"
#include "moves/move_cache.h"
#include "moves/rng.h"

namespace vmcap {

/**
 * Per-worker proposal state: the sweep position over the migratable VMs and, per flavor, a
 * candidate list of destination hosts: the kDestinations hosts with the largest cached
 * best-insertion delta (the hosts that absorb a VM of the flavor at the least capacity cost),
 * rebuilt at every synchronisation point (counted work, so deterministic). Half of the migrate
 * proposals draw their destination from it, so the search spends its evaluations where moves can
 * pay; the other half stay uniform so every host remains reachable.
 */
struct Proposal {
    static constexpr int kDestinations = 64;
    std::size_t cursor = 0;              ///< migrate sweep: next index into the migratable VMs
    std::vector<std::vector<int>> dest;  ///< [flavor]: candidate destination hosts (may be empty)

    /**
     * Vlink-peer draws of the migrate sweep, made kPeerAhead sweep steps before use so that the
     * drawn peer's record is fetched from memory meanwhile (moves/migrate.cpp): slot
     * (sweep step mod kPeerAhead) holds the peer drawn for the VM of that step, or -1.
     */
    static constexpr int kPeerAhead = 4;
    std::uint64_t sweep_steps = 0;
    bool peers_primed = false;
    int peer_ahead[kPeerAhead] = {};

    /** Random start position of the sweep over `n` migratable VMs (n > 0); the random-VM stream
     *  is drawn anew from the next random_vm() call (so `movable` may change between calls). */
    void start(Rng& rng, std::size_t n) {
        cursor = rng.below(n);
        sweep_steps = 0;
        peers_primed = false;
        primed_ = false;
        pos_ = 0;
    }

    /**
     * A uniformly random migratable VM, drawn kAhead calls in advance: its index into `movable` is
     * drawn 2 x kAhead calls before it is returned (and that entry of `movable` prefetched), the
     * VM read kAhead calls before (and its per-VM search data prefetched, with its total vlink
     * bandwidth when the snapshot has vlinks). On a 300,000-VM
     * snapshot a VM drawn at the moment of use costs several dependent memory misses; this way
     * the misses overlap with the work of the calls in between. Deterministic: the draws come
     * from the worker's RNG in call order. Equivalent in distribution to movable[rng.below(n)].
     */
    int random_vm(const SearchState& s, const MoveCache& cache, const std::vector<int>& movable, Rng& rng) {
        const auto n = static_cast<std::uint64_t>(movable.size());
        if (!primed_) {
            for (int i = 0; i < kAhead; ++i) {
                vm_[i] = movable[rng.below(n)];
                idx_[i] = static_cast<std::uint32_t>(rng.below(n));
            }
            primed_ = true;
        }
        const int out = vm_[pos_];
        vm_[pos_] = movable[idx_[pos_]];
        s.prefetch_vm(vm_[pos_]);
        cache.prefetch_removal(vm_[pos_]);
        // The link rule reads the VM's total vlink bandwidth first (its fast path).
        if (const VlinkIndex* vi = s.model().vlink_index(); vi != nullptr) vi->prefetch_total(vm_[pos_]);
        idx_[pos_] = static_cast<std::uint32_t>(rng.below(n));
        __builtin_prefetch(movable.data() + idx_[pos_]);
        pos_ = (pos_ + 1) % kAhead;
        return out;
    }

    /** Rebuilds `dest` from the cache for every flavor with migratable VMs, over the hosts in
     *  `hosts` (a worker's region) or, when it is nullptr, every host. O(flavors x hosts). */
    void refresh(const SearchState& s, MoveCache& cache, const std::vector<char>& flavor_used, const std::vector<int>* hosts = nullptr) {
        const Problem& p = s.problem();
        const int H = hosts != nullptr ? static_cast<int>(hosts->size()) : static_cast<int>(p.hosts.size());
        dest.assign(p.flavors.size(), {});
        std::vector<std::pair<Score, int>> v;
        for (std::size_t f = 0; f < p.flavors.size(); ++f) {
            if (!flavor_used[f]) continue;
            v.clear();
            for (int i = 0; i < H; ++i) {
                const int h = hosts != nullptr ? (*hosts)[i] : i;
                const Insertion& ins = cache.insertion(s, static_cast<int>(f), h);
                if (ins.embedding >= 0) v.emplace_back(-ins.delta, h);  // ascending = best first; ties: lower host
            }
            const std::size_t k = std::min<std::size_t>(kDestinations, v.size());
            std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
            for (std::size_t i = 0; i < k; ++i) dest[f].push_back(v[i].second);
        }
    }

private:
    static constexpr int kAhead = 8;
    bool primed_ = false;
    int pos_ = 0;
    int vm_[kAhead] = {};             ///< VMs to return, their data prefetched
    std::uint32_t idx_[kAhead] = {};  ///< movable indices drawn ahead, their entry prefetched
};

/**
 * A vlink peer of `vm` drawn with probability proportional to its vlink's bandwidth (StarNetLA's
 * "savings" ranking as a distribution, seed 003 digest §4.5, §8.1.6). One draw from `rng`.
 * Precondition: vlinks.mbps_of(vm) > 0. O(deg(vm)).
 */
inline int draw_peer(const VlinkIndex& vlinks, int vm, Rng& rng) {
    auto r = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(vlinks.mbps_of(vm))));
    const auto peers = vlinks.peers_of(vm);
    const auto mbps = vlinks.mbps_each(vm);
    for (std::size_t k = 0; k < peers.size(); ++k)
        if ((r -= mbps[k]) < 0) return peers[k] >= 0 ? peers[k] : ~peers[k];
    return peers.back() >= 0 ? peers.back() : ~peers.back();  // unreachable: the bandwidths sum to mbps_of
}

/** What a move type's propose() may use: the state, the worker's cache (prefetch hints only), the
 *  migratable VMs, the worker's Proposal and RNG, and the hosts it may draw destinations from. */
struct ProposalContext {
    const SearchState& state;
    const MoveCache& cache;
    const std::vector<int>& movable;
    Proposal& proposal;
    Rng& rng;
    /** The worker's host region (at least two hosts) when parallel workers own disjoint regions
     *  (optimizer/search/annealing.cpp): uniform destinations are drawn from it, and a migrated VM is
     *  sent home only if its snapshot host is in it (in_region); nullptr: every host. */
    const std::vector<int>* hosts = nullptr;
    /** With `hosts`: the region of every host ([host] -> region) and this worker's region. */
    const std::vector<int>* region_of = nullptr;
    int region = 0;
    /** With `hosts`: the migrated VMs on the region's hosts, and those of them whose snapshot
     *  host is in the region too (kept current by the driver). */
    const std::vector<int>* region_migrated = nullptr;
    const std::vector<int>* region_migrated_home = nullptr;

    /** Is host h one this worker may touch (its region's, or any without regions)? */
    bool in_region(int h) const { return region_of == nullptr || (*region_of)[h] == region; }
    /**
     * A random migrated VM (uniform over SearchState::migrated_vms(); one draw), or -1 if there is
     * none. With regions: uniform over those on the region's hosts or, if `home`, over those whose
     * snapshot host is in the region too, so that the move kinds that start from a migrated VM
     * keep their share of the proposals and never leave the region.
     */
    int random_migrated(bool home) {
        const std::vector<int>& mig = region_of == nullptr ? state.migrated_vms() : home ? *region_migrated_home : *region_migrated;
        if (mig.empty()) return -1;
        return mig[rng.below(mig.size())];
    }

    /** Proposal::random_vm on this worker's stream. */
    int random_vm() { return proposal.random_vm(state, cache, movable, rng); }
    /** A uniformly random host other than `h`: of every host (at least two), or of the region
     *  (at least two hosts; `h` need not be in it). */
    int random_host_except(int h) {
        if (hosts != nullptr) {
            const auto n = static_cast<std::uint64_t>(hosts->size());
            int x = (*hosts)[rng.below(n)];
            while (x == h) x = (*hosts)[rng.below(n)];
            return x;
        }
        int x = static_cast<int>(rng.below(static_cast<std::uint64_t>(state.problem().hosts.size()) - 1));
        if (x >= h) ++x;
        return x;
    }
    /** Does flavor f have a destination list (at least one host)? */
    bool has_destinations(int f) const { return static_cast<std::size_t>(f) < proposal.dest.size() && !proposal.dest[f].empty(); }
    /** A host from flavor f's destination list, or -1 if it has none (no draw then). */
    int listed_destination(int f) {
        if (static_cast<std::size_t>(f) >= proposal.dest.size() || proposal.dest[f].empty()) return -1;
        return proposal.dest[f][rng.below(proposal.dest[f].size())];
    }
};

}  // namespace vmcap

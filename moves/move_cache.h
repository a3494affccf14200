#pragma once
/**
 * @file move_cache.h
 * Per-worker memo of the per-host parts of move deltas, keyed by host version
 * (SearchState::host_version): the removal delta of every VM (depends only on its host's state),
 * the best insertion of every (flavor, host) pair (depends only on that host's state), every
 * migrated VM's return to its snapshot placement, and the best insertion into the room a VM
 * vacates. An entry is reused only while its host's version is unchanged, so every value it
 * returns is exactly what the uncached evaluation would compute now. After an accepted move only
 * the two touched hosts' entries go stale, which is why a search over 10,000 hosts hits the cache
 * on nearly every evaluation (about 93% of lookups in the 10k-host runs of docs/performance.md).
 *
 * Only per-host primitives live here; each move type owns its cached evaluation (in its own moves/ file,
 * `evaluate(state, cache)`), built from these.
 *
 * Bound to one SearchState for its lifetime (versions are per state). Not thread-safe: one per
 * worker. Memory: 40 bytes per VM + 40 bytes per (flavor, host) + 2 MiB (vacated-host table).
 */
#include <cstdint>
#include <vector>

#include "moves/insertion.h"

namespace vmcap {

class MoveCache {
public:
    /** Empty cache sized for `state`'s problem. O(VMs + flavors x hosts). */
    explicit MoveCache(const SearchState& state);

    /** removal_delta(state, vm), memoised. O(1) on a hit (inline: the annealing's hot path). */
    Score removal(const SearchState& state, int vm) {
        const Removal& r = removal_[vm];
        if (r.version == state.host_version(state.host_of(vm))) [[likely]] {
            ++hits_;
            return r.delta;
        }
        return removal_miss(state, vm);
    }

    /**
     * best_insertion(state, flavor, host, -1) (budget ignored, no snapshot tie-break: every
     * placement on a host other than the VM's snapshot host is a migration), memoised. O(1) on
     * a hit. The reference is valid until the next call.
     */
    const Insertion& insertion(const SearchState& state, int flavor, int host) {
        const Slot& e = insertion_[static_cast<std::size_t>(host) * F_ + flavor];
        if (e.version == state.host_version(host)) [[likely]] {
            ++hits_;
            return e.ins;
        }
        return insertion_miss(state, flavor, host);
    }

    /** Change of the weighted objective when `vm` goes back to its snapshot (host, pNUMA nodes),
     *  or fits == false (no room there, or the destination-node rule does not let it back there:
     *  rule_admits_return, moves/host_scratch.h). From another host: the snapshot host's change as it is
     *  now (the source host's part is removal()); from other nodes of its snapshot host (a remap
     *  counted as a migration): the whole change of that host, its current share released first.
     *  Meaningful only while the VM is migrated. */
    struct Return {
        bool fits = false;
        Score delta = 0;
    };
    /** Return of `vm` to its snapshot placement, memoised by the snapshot host's version. */
    const Return& return_home(const SearchState& state, int vm);

    /** Best placement of one more VM of `flavor` on `vm`'s current host once `vm` has left it
     *  (or, with `returned`, once `vm` has moved back to its snapshot nodes on that host). */
    struct Vacated {
        int embedding = -1;  ///< evaluator(host type, flavor).placements() index; -1: nothing fits
        Score delta = 0;     ///< exact weighted change of that host: vm's departure plus the arrival
    };
    /**
     * HostScratch::best_placement on host_of(vm) without vm (first placement of the largest gain),
     * memoised: the room an exchange's returning VM vacates, offered to its partner. With
     * `returned` (precondition: vm is on other nodes of its snapshot host) vm is moved back to its
     * snapshot nodes there first; embedding -1 if they lack room. Kept in a direct-mapped table of
     * 2^kVacatedBits entries keyed by (vm, flavor, returned) and checked against the host's
     * version, so a collision costs only a recomputation. The reference is valid until the next
     * call.
     */
    const Vacated& vacated_insertion(const SearchState& state, int vm, int flavor, bool returned = false);

    /** Hint: removal(state, vm) will be asked soon; prefetches its entry. O(1). */
    void prefetch_removal(int vm) const { __builtin_prefetch(&removal_[vm]); }

    std::int64_t hits() const { return hits_; }
    std::int64_t misses() const { return misses_; }

private:
    /** The misses of removal() and insertion(): compute, store, count. */
    Score removal_miss(const SearchState& state, int vm);
    const Insertion& insertion_miss(const SearchState& state, int flavor, int host);

    struct Removal {
        std::uint64_t version = 0;  ///< host version it was computed at; 0 = never
        Score delta = 0;
    };
    struct Slot {
        std::uint64_t version = 0;
        Insertion ins;
    };
    int F_ = 0;
    std::vector<Removal> removal_;  ///< [vm]
    std::vector<Slot> insertion_;   ///< [host * F + flavor]
    struct ReturnSlot {
        std::uint64_t version = 0;
        Return ret;
    };
    std::vector<ReturnSlot> return_;  ///< [vm]
    static constexpr int kVacatedBits = 16;
    struct VacatedSlot {
        std::uint64_t version = 0;
        int vm = -1, flavor = -1;  ///< flavor + F when `returned`
        Vacated value;
    };
    std::vector<VacatedSlot> vacated_;  ///< direct-mapped by hash(vm, flavor)
    std::int64_t hits_ = 0, misses_ = 0;
};

}  // namespace vmcap

#pragma once
/**
 * @file move_cache.h
 * Per-worker memo of the two halves of a migrate move's delta, keyed by host version
 * (SearchState::host_version): the removal delta of every VM (depends only on its host's state)
 * and the best insertion of every (flavor, host) pair (depends only on that host's state). An
 * entry is reused only while its host's version is unchanged, so every value it returns is
 * exactly what removal_delta() / best_insertion() would compute now. After an accepted move only
 * the two touched hosts' entries go stale, which is why a search over 10,000 hosts hits the cache
 * on nearly every evaluation.
 *
 * Bound to one SearchState for its lifetime (versions are per state). Not thread-safe: one per
 * worker. Memory: 40 bytes per VM + 48 bytes per (flavor, host).
 */
#include <cstdint>
#include <vector>

#include "moves/exchange.h"
#include "moves/migrate.h"

namespace vmcap {

class MoveCache {
public:
    /** Empty cache sized for `state`'s problem. O(VMs + flavors x hosts). */
    explicit MoveCache(const SearchState& state);

    /** removal_delta(state, vm), memoised. O(1) on a hit. */
    double removal(const SearchState& state, int vm);

    /**
     * best_insertion(state, flavor, host, -1) (budget ignored, no snapshot tie-break: every
     * placement on a host other than the VM's snapshot host is a migration), memoised. O(1) on
     * a hit. The reference is valid until the next call.
     */
    const Insertion& insertion(const SearchState& state, int flavor, int host);

    /** Change of the weighted objective when `vm` is added back on its snapshot (host, pNUMA
     *  nodes) as that host is now, or fits == false. Meaningful only while the VM is elsewhere. */
    struct Return {
        bool fits = false;
        double delta = 0.0;
    };
    /** Return of `vm` to its snapshot placement, memoised by the snapshot host's version. */
    const Return& return_home(const SearchState& state, int vm);

    /** Hint: removal(state, vm) will be asked soon; prefetches its entry. O(1). */
    void prefetch_removal(int vm) const { __builtin_prefetch(&removal_[vm]); }

    std::int64_t hits() const { return hits_; }
    std::int64_t misses() const { return misses_; }

private:
    struct Removal {
        std::uint64_t version = 0;  ///< host version it was computed at; 0 = never
        double delta = 0.0;
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
    std::int64_t hits_ = 0, misses_ = 0;
};

/**
 * MigrateMove::evaluate through the cache: the same result (feasibility, delta, embedding,
 * migrations_after) as the uncached evaluate, bit for bit. A VM going back to its snapshot host
 * from another host takes the better of its cached return (snapshot nodes, budget refunded, wins
 * ties) and the cached best insertion there; only with free remaps
 * (Constraints::remap_counts_as_migration false) does that case take the uncached path.
 */
MigrateDelta evaluate_cached(const MigrateMove& mv, const SearchState& state, MoveCache& cache);

/**
 * ExchangeMove::evaluate through the cache. When the four hosts involved (a's current host, a's
 * snapshot host, b's host, b's destination) are distinct, each changes independently and the
 * delta is exactly the sum of four cached parts (a's removal, a's return, b's removal, b's best
 * insertion); when b's destination is a's current host (b takes the room a leaves) and the
 * other three are distinct, only that host is evaluated; otherwise the uncached evaluate. Same feasibility, embedding and migrations_after
 * as ExchangeMove::evaluate; the delta equals it up to floating-point summation order (< 1e-9).
 */
ExchangeDelta evaluate_cached(const ExchangeMove& mv, const SearchState& state, MoveCache& cache);

}  // namespace vmcap

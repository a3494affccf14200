#pragma once
/**
 * @file host_value_memo.h
 * Per-worker memo of a host's weighted VMCAP, sum_j w_j VMCAP_j in score units, by host type and
 * the free amounts of every pNUMA node of the host. That value is a function of these alone
 * (vmcap-formulas.md, Definition: b depends on the free amounts, VMCAP on b and the topology), so
 * hosts of one type with the same free amounts share an entry, and a host that comes back to an
 * earlier state finds its value again. With hundreds of target flavors one capacity change costs
 * O(targets) (capacity_change.h); a hit costs one hash and one key comparison, whatever the number
 * of targets.
 *
 * Exact: an entry holds a value the capacity-change kernel computed (the host's cached value plus
 * the kernel's exact delta), and a key is compared in full before a value is used, so a hit returns
 * exactly what the kernel would. Direct-mapped with 2^kBits entries: a collision overwrites the old
 * entry (a later miss recomputes it). Only hosts with at most kMaxAmounts free amounts (pNUMA nodes
 * x resources) are memoised; others go straight to the kernel.
 *
 * A lookup that misses costs a hash, a cache miss on the table (9.4 MB) and a fill: ~0.18 us on
 * the 10,000-host CQ3 benchmark, more than half of what it saves on a hit there. So the memo
 * watches itself: after each window of kWindow lookups with fewer than kMinHitPercent % hits it
 * stands aside for the next kStandAside calls (value_or computes directly; counted by
 * stood_aside()), then measures again. Where free vectors repeat (dual-node hosts: ~90% hits) it
 * stays on; where they rarely do (CQ3 hosts of 16 resources: ~15%) the search no longer pays for
 * it (docs/performance.md, "Hundreds of weighted flavors"). Values are the same either way: only
 * speed depends on the switch, and the switch depends only on the sequence of lookups.
 *
 * Bound to one CapacityModel. Not thread-safe: one per worker, attached to that worker's own
 * SearchState (SearchState::use_value_memo). Memory: 144 bytes x 2^kBits (9.4 MB).
 */
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "evaluators/closed_forms/score.h"
#include "evaluators/closed_forms/vmcap.h"
#include "evaluators/state/capacity_model.h"

namespace vmcap {

class HostValueMemo {
public:
    /** Largest key: free amounts of a host (pNUMA nodes x resources), e.g. 8 nodes (CQ3) x 2
     *  resources or 2 nodes x 8 resources. */
    static constexpr int kMaxAmounts = 16;
    /** log2 of the number of entries. */
    static constexpr int kBits = 16;
    /** Fewest target flavors for which a memo pays: below it the kernel is cheaper than a hash
     *  and a key comparison (docs/performance.md, "Hundreds of weighted flavors"). */
    static constexpr int kMinTargets = 16;
    /** Lookups per measurement of the hit rate. */
    static constexpr int kWindow = 1 << 14;
    /** Below this hit rate (percent of a window's lookups) the memo stands aside. */
    static constexpr int kMinHitPercent = 50;
    /** value_or calls computed directly after a window below kMinHitPercent. */
    static constexpr int kStandAside = 1 << 18;

    struct Entry {
        Amount key[kMaxAmounts] = {};
        std::int32_t type = -1;  ///< host type; -1: empty
        std::int32_t count = 0;  ///< amounts in key
        Score value = 0;         ///< sum_j w_j VMCAP_j of a host of `type` with free amounts `key`
    };

    /** An empty memo for `model`'s targets. O(2^kBits). */
    explicit HostValueMemo(const CapacityModel& model) : model_(&model), table_(std::size_t{1} << kBits) {}

    const CapacityModel& model() const { return *model_; }

    /** The entry (type, key[0..count)) maps to; `hit` tells whether it holds that key's value.
     *  count <= kMaxAmounts. O(count). */
    Entry& lookup(int type, const Amount* key, int count, bool& hit) {
        std::uint64_t h = 0x9E3779B97F4A7C15ULL * static_cast<std::uint64_t>(type + 1);
        for (int i = 0; i < count; ++i) {
            h = (h ^ static_cast<std::uint64_t>(key[i])) * 0xFF51AFD7ED558CCDULL;
            h ^= h >> 29;
        }
        Entry& e = table_[h >> (64 - kBits)];
        hit = e.type == type && e.count == count && std::equal(key, key + count, e.key);
        hits_ += hit;
        misses_ += !hit;
        return e;
    }

    /** Stores `value` for (type, key[0..count)) in `e` (the entry lookup returned for that key). */
    static void fill(Entry& e, int type, const Amount* key, int count, Score value) {
        std::copy(key, key + count, e.key);
        e.type = type;
        e.count = count;
        e.value = value;
    }

    /**
     * The value for (type, key[0..count)): from the memo, or `compute()` stored on a miss. With
     * `memo` nullptr or more than kMaxAmounts amounts, compute() alone. The one lookup-or-fill that
     * the capacity-change kernel and SearchState::refresh_host share.
     */
    template <class Compute>
    static Score value_or(HostValueMemo* memo, int type, const Amount* key, int count, Compute&& compute) {
        if (memo == nullptr || count > kMaxAmounts) return compute();
        if (memo->aside_ > 0) {
            --memo->aside_;
            ++memo->stood_aside_;
            return compute();
        }
        bool hit = false;
        Entry& e = memo->lookup(type, key, count, hit);
        memo->measure(hit);
        if (hit) return e.value;
        const Score v = compute();
        fill(e, type, key, count, v);
        return v;
    }

    /** A memo for `model` when it pays (at least kMinTargets targets, or a destination-node rule
     *  that counts capacity by simulation), else nullptr. */
    static std::unique_ptr<HostValueMemo> make_if_useful(const CapacityModel& model) {
        return model.num_targets() >= kMinTargets || model.counts_by_rule() ? std::make_unique<HostValueMemo>(model) : nullptr;
    }

    std::int64_t hits() const { return hits_; }
    std::int64_t misses() const { return misses_; }
    /** value_or calls that computed directly because the hit rate was low (see the file comment). */
    std::int64_t stood_aside() const { return stood_aside_; }

private:
    /** One more lookup of value_or in the current window; at its end, stand aside if it hit too rarely. */
    void measure(bool hit) {
        window_hits_ += hit;
        if (++window_lookups_ < kWindow) return;
        if (window_hits_ * 100 < kMinHitPercent * window_lookups_) aside_ = kStandAside;
        window_lookups_ = window_hits_ = 0;
    }

    const CapacityModel* model_;
    std::vector<Entry> table_;
    std::int64_t hits_ = 0, misses_ = 0, stood_aside_ = 0;
    int window_lookups_ = 0, window_hits_ = 0;  ///< value_or's lookups and hits in the current window
    int aside_ = 0;                             ///< value_or calls left to compute directly
};

}  // namespace vmcap

#pragma once
// Independent exhaustive VMCAP oracle for the tests (tests/vmcap_test.cpp, tests/vmcap_batch_test.cpp).
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "evaluators/closed_forms/vmcap.h"
#include "instances/topology.h"

namespace vmcap::test {

/** Concatenation by append, for the VMCAP tests' failure messages (GCC 12 -O3 warns falsely,
 *  -Wrestrict PR 105651, on "lit" + std::string). */
inline std::string cat(std::initializer_list<std::string> parts) {
    std::string s;
    for (const std::string& p : parts) s += p;
    return s;
}

// ---------------------------------------------------------------------------------------------
// Independent exhaustive oracle. f(b) = best over: never use again the lowest node i that still
// lies on a fitting placement (b_i := 0), or use one fitting placement S containing i
// (1 + f(b - S)). Every optimal multiset falls in one of these branches, so f is exact. Nodes on
// no fitting placement are zeroed before memoisation (they cannot matter). The memo is kept
// across calls for the same placement list, in a flat open-addressing table (linear probing on a
// multiplicative hash; cleared when 3/4 full). Capacities must be <= 63 and n <= 10 (6-bit packing).
// ---------------------------------------------------------------------------------------------
class Oracle {
public:
    Oracle(std::vector<NodeMask> masks, int n) : masks_(std::move(masks)), n_(n) {
        if (n_ > 10) throw std::invalid_argument("oracle supports at most 10 nodes");
    }

    /** From a placement list (the evaluator's placements()). */
    Oracle(const std::vector<Embedding>& placements, int n) : n_(n) {
        if (n_ > 10) throw std::invalid_argument("oracle supports at most 10 nodes");
        for (const Embedding& e : placements) masks_.push_back(e.mask);
    }

    Count operator()(const std::vector<Count>& b) {
        if (static_cast<int>(b.size()) != n_) throw std::invalid_argument("oracle: size mismatch");
        return (*this)(b.data());
    }

    /** VMCAP of the n capacities at b (each in 0..63). */
    Count operator()(const Count* b) {
        std::array<int, 16> a{};
        for (int i = 0; i < n_; ++i) {
            if (b[i] < 0 || b[i] > 63) throw std::invalid_argument("oracle: capacity out of 0..63");
            a[i] = static_cast<int>(b[i]);
        }
        return f(a);
    }

private:
    static constexpr std::size_t kSlots = std::size_t{1} << 21;
    std::vector<NodeMask> masks_;
    int n_;
    std::vector<std::uint64_t> keys_ = std::vector<std::uint64_t>(kSlots, 0);  // key + 1; 0 = empty
    std::vector<Count> values_ = std::vector<Count>(kSlots, 0);
    std::size_t used_ = 0;

    std::size_t slot(std::uint64_t key) const {
        std::size_t h = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> 43);  // 21 bits
        while (keys_[h] != 0 && keys_[h] != key + 1) h = (h + 1) & (kSlots - 1);
        return h;
    }

    Count f(std::array<int, 16> a) {
        unsigned pos = 0;
        for (int i = 0; i < n_; ++i)
            if (a[i] > 0) pos |= 1U << i;
        unsigned live = 0;
        for (NodeMask s : masks_)
            if (s != 0 && (s & ~pos) == 0) live |= s;
        if (live == 0) return 0;
        std::uint64_t key = 0;
        for (int i = 0; i < n_; ++i) {
            if (!((live >> i) & 1U)) a[i] = 0;
            key |= static_cast<std::uint64_t>(a[i]) << (6 * i);
        }
        if (const std::size_t h = slot(key); keys_[h] != 0) return values_[h];
        const int i = std::countr_zero(live);
        std::array<int, 16> closed = a;
        closed[i] = 0;
        Count best = f(closed);
        for (NodeMask s : masks_) {
            if (!((s >> i) & 1U) || (s & ~pos) != 0) continue;
            std::array<int, 16> next = a;
            for (int v = 0; v < n_; ++v)
                if ((s >> v) & 1U) --next[v];
            best = std::max(best, 1 + f(next));
        }
        if (used_ >= kSlots / 4 * 3) {
            std::fill(keys_.begin(), keys_.end(), 0);
            used_ = 0;
        }
        const std::size_t h = slot(key);
        keys_[h] = key + 1;
        values_[h] = best;
        ++used_;
        return best;
    }
};

}  // namespace vmcap::test

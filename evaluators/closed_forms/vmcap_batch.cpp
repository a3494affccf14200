#include "evaluators/closed_forms/vmcap_batch.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "evaluators/closed_forms/capacity_vectors.h"
#include "evaluators/closed_forms/target_clones.h"

namespace vmcap {

namespace {

// ---------------------------------------------------------------------------------------------
// Per-vector formulas in lane type T (std::int32_t when every capacity is < kBatchNarrowLimit,
// else std::int64_t). Branch-free (std::min/std::max on integers become vector min/max or
// compare-and-blend), so the loop over vectors vectorizes. Same algebra as vmcap.cpp.
// ---------------------------------------------------------------------------------------------

template <class T>
inline T f_c4_k2(const T* v) {
    return std::min<T>(v[0] + v[2], v[1] + v[3]);
}

/** min(floor(S/2), S - b_(1)) of v[0], v[a], v[2a], v[3a] (a = 1: K4; a = 2: one part of Q3,3). */
template <class T, int A = 1>
inline T f_k4_k2(const T* v) {
    using U = std::make_unsigned_t<T>;
    const T s = v[0] + v[A] + v[2 * A] + v[3 * A];
    const T mx = std::max<T>(std::max<T>(v[0], v[A]), std::max<T>(v[2 * A], v[3 * A]));
    return std::min<T>(static_cast<T>(static_cast<U>(s) >> 1), s - mx);
}

template <class T>
inline T f_k4_k3(const T* v) {
    using U = std::make_unsigned_t<T>;
    const T s = v[0] + v[1] + v[2] + v[3];
    const T lo01 = std::min<T>(v[0], v[1]), hi01 = std::max<T>(v[0], v[1]);
    const T lo23 = std::min<T>(v[2], v[3]), hi23 = std::max<T>(v[2], v[3]);
    const T m1 = std::max<T>(hi01, hi23);                                        // b_(1)
    const T m2 = std::max<T>(std::min<T>(hi01, hi23), std::max<T>(lo01, lo23));  // b_(2)
    const T t3 = static_cast<T>(static_cast<U>(s) / 3U);
    const T t2 = static_cast<T>(static_cast<U>(s - m1) >> 1);
    return std::min<T>(std::min<T>(t3, t2), s - m1 - m2);
}

template <class T>
inline T f_q33_k2(const T* v) {
    return std::min<T>(v[0] + v[2] + v[4] + v[6], v[1] + v[3] + v[5] + v[7]);
}

template <class T>
inline T f_q33_c4(const T* v) {
    return std::min<T>(f_k4_k2<T, 2>(v), f_k4_k2<T, 2>(v + 1));
}

template <class T>
inline T f_cq3_c4(const T* v) {
    return std::min<T>(std::min<T>(v[0], v[1]) + std::min<T>(v[4], v[5]), std::min<T>(v[2], v[3]) + std::min<T>(v[6], v[7]));
}

template <class T>
inline T f_cq3_k2(const T* v) {
    const T p02 = v[0] + v[2], p46 = v[4] + v[6], p13 = v[1] + v[3], p57 = v[5] + v[7];
    const T o = p02 + p46, e = p13 + p57;
    T d = (o - e) >> 1;  // floor((O - E) / 2): arithmetic shift (C++20)
    d = std::min<T>(d, std::min<T>(v[0], v[6]));
    d = std::max<T>(d, static_cast<T>(-std::min<T>(v[1], v[7])));
    const T t1 = o - v[0] + p13, t2 = o - v[6] + p57, t3 = p46 + e - v[7], t4 = p02 + e - v[1];
    return std::min<T>(std::min<T>(std::min<T>(o - d, e + d), std::min<T>(t1, t2)), std::min<T>(t3, t4));
}

template <class T>
inline T f_twoxk4_k2(const T* v) {
    return f_k4_k2<T>(v) + f_k4_k2<T>(v + 4);
}

template <class T>
inline T f_twoxk4_k3(const T* v) {
    return f_k4_k3<T>(v) + f_k4_k3<T>(v + 4);
}

/**
 * The loop over vectors of a fixed-size form: loads the N capacities of vector t from the N
 * rows, evaluates f in lane type T, stores the (non-negative) result widened to Count. Returns
 * the OR of every value loaded, which the caller compares with kBatchNarrowLimit (a negative
 * value, outside the contract, also fails the check and goes to 64-bit lanes). In 32-bit lanes
 * each value is masked to its low 26 bits: a no-op on blocks that pass the check, and on blocks
 * that fail it (whose results are discarded and recomputed) it keeps int32 arithmetic free of
 * signed overflow, which would be undefined behaviour (and an UBSan report) even though unused.
 */
template <class T, int N, class F>
[[gnu::always_inline]] inline std::uint64_t lanes(const Count* __restrict soa, std::size_t stride, std::size_t count, Count* __restrict out,
                                                  F f) {
    std::uint64_t acc = 0;
    for (std::size_t t = 0; t < count; ++t) {
        T v[N];
        for (int i = 0; i < N; ++i) {
            const Count x = soa[static_cast<std::size_t>(i) * stride + t];
            acc |= static_cast<std::uint64_t>(x);
            if constexpr (sizeof(T) == 4)
                v[i] = static_cast<T>(x & (kBatchNarrowLimit - 1));
            else
                v[i] = x;
        }
        const T r = f(v);
        if constexpr (sizeof(T) == 4)
            out[t] = static_cast<Count>(static_cast<std::uint32_t>(r));  // r >= 0: zero-extend
        else
            out[t] = r;
    }
    return acc;
}

using FixedKernel = std::uint64_t (*)(const Count*, std::size_t, std::size_t, Count*);

// One 32-bit and one 64-bit kernel per fixed-size form, each multiversioned.
#define VMCAP_FIXED_KERNELS(name, N)                                                                                  \
    VMCAP_BATCH_CLONES std::uint64_t name##_32(const Count* soa, std::size_t stride, std::size_t count, Count* out) { \
        return lanes<std::int32_t, N>(soa, stride, count, out, [](const std::int32_t* v) { return f_##name(v); });    \
    }                                                                                                                 \
    VMCAP_BATCH_CLONES std::uint64_t name##_64(const Count* soa, std::size_t stride, std::size_t count, Count* out) { \
        return lanes<std::int64_t, N>(soa, stride, count, out, [](const std::int64_t* v) { return f_##name(v); });    \
    }

VMCAP_FIXED_KERNELS(c4_k2, 4)
VMCAP_FIXED_KERNELS(k4_k2, 4)
VMCAP_FIXED_KERNELS(k4_k3, 4)
VMCAP_FIXED_KERNELS(q33_k2, 8)
VMCAP_FIXED_KERNELS(q33_c4, 8)
VMCAP_FIXED_KERNELS(cq3_c4, 8)
VMCAP_FIXED_KERNELS(cq3_k2, 8)
VMCAP_FIXED_KERNELS(twoxk4_k2, 8)
VMCAP_FIXED_KERNELS(twoxk4_k3, 8)

#undef VMCAP_FIXED_KERNELS

/**
 * sum_t w[t] x f(rows[0][t], ..., rows[N-1][t]) for t < count, the capacities as bytes: f in
 * 16-bit lanes (every fixed-size form adds at most 8 capacities below 2^8, so each intermediate
 * stays below 2^12), then the weighted sum as two 32 x 32 -> 64 products per lane (w = lo + 2^32 hi,
 * PMULUDQ) modulo 2^64, which is the exact sum whenever that fits in a Score.
 */
template <int N, class F>
[[gnu::always_inline]] inline Score bytes_weighted(const std::uint8_t* const* rows, const Score* w, std::size_t count, F f) {
    constexpr std::size_t kChunk = 256;  // the 16-bit results stay in L1
    std::uint64_t lo = 0, hi = 0;
    for (std::size_t t0 = 0; t0 < count; t0 += kChunk) {
        const std::size_t len = std::min(kChunk, count - t0);
        const std::uint8_t* r[N];
        for (int i = 0; i < N; ++i) r[i] = rows[i] + t0;
        std::uint16_t out[kChunk];
        for (std::size_t t = 0; t < len; ++t) {
            std::int16_t v[N];
            for (int i = 0; i < N; ++i) v[i] = static_cast<std::int16_t>(r[i][t]);
            out[t] = static_cast<std::uint16_t>(f(v));
        }
        const Score* wt = w + t0;
        for (std::size_t t = 0; t < len; ++t) {
            const auto wu = static_cast<std::uint64_t>(wt[t]);
            const std::uint64_t c = out[t];
            lo += (wu & 0xffffffffU) * c;
            hi += (wu >> 32) * c;
        }
    }
    return static_cast<Score>(lo + (hi << 32));
}

using BytesKernel = Score (*)(const std::uint8_t* const*, const Score*, std::size_t);

#define VMCAP_BYTES_KERNEL(name, N)                                                                              \
    VMCAP_NARROW_CLONES Score name##_bytes(const std::uint8_t* const* rows, const Score* w, std::size_t count) { \
        return bytes_weighted<N>(rows, w, count, [](const std::int16_t* v) { return f_##name(v); });             \
    }

VMCAP_BYTES_KERNEL(c4_k2, 4)
VMCAP_BYTES_KERNEL(k4_k2, 4)
VMCAP_BYTES_KERNEL(k4_k3, 4)
VMCAP_BYTES_KERNEL(q33_k2, 8)
VMCAP_BYTES_KERNEL(q33_c4, 8)
VMCAP_BYTES_KERNEL(cq3_c4, 8)
VMCAP_BYTES_KERNEL(cq3_k2, 8)
VMCAP_BYTES_KERNEL(twoxk4_k2, 8)
VMCAP_BYTES_KERNEL(twoxk4_k3, 8)

#undef VMCAP_BYTES_KERNEL

/** Blocks of kBatchBlock vectors in 32-bit lanes; a block with a capacity >= kBatchNarrowLimit is redone in 64-bit lanes. */
inline void drive(FixedKernel narrow, FixedKernel wide, const Count* soa, std::size_t stride, std::size_t count, Count* out) {
    for (std::size_t t0 = 0; t0 < count; t0 += kBatchBlock) {
        const std::size_t len = std::min(kBatchBlock, count - t0);
        if (narrow(soa + t0, stride, len, out + t0) >= static_cast<std::uint64_t>(kBatchNarrowLimit)) wide(soa + t0, stride, len, out + t0);
    }
}

// ---------------------------------------------------------------------------------------------
// Forms with a run-time node count: blocks of kLanes vectors copied into local arrays, then one
// vectorized loop over the block per row, comparator or divisor.
// ---------------------------------------------------------------------------------------------
constexpr std::size_t kLanes = 64;

/** Sums in 64-bit lanes (plain adds vectorize on SSE2; no narrowing needed). */
VMCAP_BATCH_CLONES void k1_kernel(const Count* __restrict soa, std::size_t stride, std::size_t count, int n, Count* __restrict out) {
    for (std::size_t t0 = 0; t0 < count; t0 += kLanes) {
        const std::size_t len = std::min(kLanes, count - t0);
        Count s[kLanes] = {};
        for (int i = 0; i < n; ++i) {
            const Count* row = soa + static_cast<std::size_t>(i) * stride + t0;
            for (std::size_t l = 0; l < len; ++l) s[l] += row[l];
        }
        for (std::size_t l = 0; l < len; ++l) out[t0 + l] = s[l];
    }
}

VMCAP_BATCH_CLONES void kmn_kernel(const Count* __restrict soa, std::size_t stride, std::size_t count, int m, int n,
                                   Count* __restrict out) {
    for (std::size_t t0 = 0; t0 < count; t0 += kLanes) {
        const std::size_t len = std::min(kLanes, count - t0);
        Count s1[kLanes] = {}, s2[kLanes] = {};
        for (int i = 0; i < m; ++i) {
            const Count* row = soa + static_cast<std::size_t>(i) * stride + t0;
            for (std::size_t l = 0; l < len; ++l) s1[l] += row[l];
        }
        for (int i = m; i < m + n; ++i) {
            const Count* row = soa + static_cast<std::size_t>(i) * stride + t0;
            for (std::size_t l = 0; l < len; ++l) s2[l] += row[l];
        }
        for (std::size_t l = 0; l < len; ++l) out[t0 + l] = std::min(s1[l], s2[l]);
    }
}

__extension__ typedef unsigned __int128 U128;  // GCC/Clang extension; -Wpedantic-clean spelling

/** What a Kn/Kk block kernel reads from the plan. */
struct KnKkArgs {
    int n, k;
    const Comparator* net;
    std::size_t comparators;
    const std::uint32_t* magic31;  ///< [d], d = 1..k
    const int* shift31;
};

/**
 * One block (len <= kLanes vectors) of Kn/Kk in lane type T. Lanes len..kLanes-1 are zero
 * padding, so every loop has the fixed trip count kLanes (no epilogue). Returns false, without
 * writing, if T is 32-bit and a capacity is >= kBatchNarrowLimit.
 * Division: T = int32: MagicDivisor::divide31 (s < 2^30 here), one 32x32->64 multiply per lane
 * (PMULUDQ); T = int64: scalar ceil(2^64/d) multiply-high, exact for s < 2^59 (vmcap.cpp div_small).
 */
template <class T>
[[gnu::always_inline]] inline bool kn_kk_block(const KnKkArgs& p, const Count* __restrict soa, std::size_t stride, std::size_t len,
                                               Count* __restrict out, bool accumulate) {
    alignas(64) T a[kMaxPNuma][kLanes];
    std::uint64_t acc = 0;
    for (int i = 0; i < p.n; ++i) {
        const Count* row = soa + static_cast<std::size_t>(i) * stride;
        for (std::size_t l = 0; l < len; ++l) {
            acc |= static_cast<std::uint64_t>(row[l]);
            a[i][l] = static_cast<T>(row[l]);
        }
        for (std::size_t l = len; l < kLanes; ++l) a[i][l] = 0;
    }
    if constexpr (sizeof(T) == 4) {
        if (acc >= static_cast<std::uint64_t>(kBatchNarrowLimit)) return false;
    }
    alignas(64) T s[kLanes] = {};
    for (int i = 0; i < p.n; ++i)
        for (std::size_t l = 0; l < kLanes; ++l) s[l] += a[i][l];
    for (std::size_t c = 0; c < p.comparators; ++c) {
        T* x = a[p.net[c].lo];
        T* y = a[p.net[c].hi];
        // Compare-exchange by arithmetic (as sort2 in vmcap.cpp): with std::min/std::max GCC 12
        // leaves a branch in this loop for SSE2 (no PMINSD) and does not vectorize it. u - v
        // cannot overflow (values >= 0 and below 2^26, or below 2^59 in 64-bit lanes).
        for (std::size_t l = 0; l < kLanes; ++l) {
            const T u = x[l], v = y[l];
            const T d = u - v;
            const T m = d & (d >> (8 * sizeof(T) - 1));  // d if u < v, else 0
            x[l] = v + m;
            y[l] = u - m;
        }
    }
    auto divide = [&](T x, int d) -> T {  // [&]: the 64-bit path reads no p (an explicit &p warns there)
        if constexpr (sizeof(T) == 4) {
            const std::uint64_t q = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(x)) * p.magic31[d]) >> p.shift31[d];
            return static_cast<T>(q);
        } else {
            if (d == 1) return x;
            const std::uint64_t recip = ~std::uint64_t{0} / static_cast<std::uint64_t>(d) + 1;  // ceil(2^64/d), d >= 2
            return static_cast<T>((static_cast<U128>(static_cast<std::uint64_t>(x)) * recip) >> 64);
        }
    };
    alignas(64) T best[kLanes];
    for (std::size_t l = 0; l < kLanes; ++l) best[l] = divide(s[l], p.k);
    for (int r = 1; r < p.k; ++r) {
        const T* top = a[p.n - r];  // b_(r)
        const int d = p.k - r;
        for (std::size_t l = 0; l < kLanes; ++l) {
            s[l] -= top[l];
            best[l] = std::min(best[l], divide(s[l], d));
        }
    }
    if (accumulate) {
        for (std::size_t l = 0; l < len; ++l) out[l] += static_cast<Count>(best[l]);
    } else {
        for (std::size_t l = 0; l < len; ++l) out[l] = static_cast<Count>(best[l]);
    }
    return true;
}

VMCAP_BATCH_CLONES void kn_kk_kernel(const KnKkArgs& p, const Count* soa, std::size_t stride, std::size_t count, Count* out,
                                     bool accumulate) {
    for (std::size_t t0 = 0; t0 < count; t0 += kLanes) {
        const std::size_t len = std::min(kLanes, count - t0);
        if (!kn_kk_block<std::int32_t>(p, soa + t0, stride, len, out + t0, accumulate))
            kn_kk_block<std::int64_t>(p, soa + t0, stride, len, out + t0, accumulate);
    }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public kernels.
// ---------------------------------------------------------------------------------------------

void vmcap_batch_k1(const Count* soa, std::size_t stride, std::size_t count, int n, Count* out) {
    k1_kernel(soa, stride, count, n, out);
}
void vmcap_batch_c4_k2(const Count* soa, std::size_t stride, std::size_t count, Count* out) {
    drive(c4_k2_32, c4_k2_64, soa, stride, count, out);
}
void vmcap_batch_kmn_k2(const Count* soa, std::size_t stride, std::size_t count, int m, int n, Count* out) {
    kmn_kernel(soa, stride, count, m, n, out);
}
void vmcap_batch_k4_k2(const Count* soa, std::size_t stride, std::size_t count, Count* out) {
    drive(k4_k2_32, k4_k2_64, soa, stride, count, out);
}
void vmcap_batch_k4_k3(const Count* soa, std::size_t stride, std::size_t count, Count* out) {
    drive(k4_k3_32, k4_k3_64, soa, stride, count, out);
}
void vmcap_batch_q33_k2(const Count* soa, std::size_t stride, std::size_t count, Count* out) {
    drive(q33_k2_32, q33_k2_64, soa, stride, count, out);
}
void vmcap_batch_q33_c4(const Count* soa, std::size_t stride, std::size_t count, Count* out) {
    drive(q33_c4_32, q33_c4_64, soa, stride, count, out);
}
void vmcap_batch_cq3_c4(const Count* soa, std::size_t stride, std::size_t count, Count* out) {
    drive(cq3_c4_32, cq3_c4_64, soa, stride, count, out);
}
void vmcap_batch_cq3_k2(const Count* soa, std::size_t stride, std::size_t count, Count* out) {
    drive(cq3_k2_32, cq3_k2_64, soa, stride, count, out);
}

void vmcap_batch_kn_kk(const Count* soa, std::size_t stride, std::size_t count, int n, int k, Count* out) {
    if (k > n) {
        std::fill(out, out + count, Count{0});
        return;
    }
    if (n == 4 && k == 2) return vmcap_batch_k4_k2(soa, stride, count, out);
    if (n == 4 && k == 3) return vmcap_batch_k4_k3(soa, stride, count, out);
    KnKkBatchPlan(n, k).run(soa, stride, count, out);
}

void vmcap_batch_2xkn_kk(const Count* soa, std::size_t stride, std::size_t count, int n, int k, Count* out) {
    if (n == 4 && k == 2) return drive(twoxk4_k2_32, twoxk4_k2_64, soa, stride, count, out);
    if (n == 4 && k == 3) return drive(twoxk4_k3_32, twoxk4_k3_64, soa, stride, count, out);
    const KnKkBatchPlan plan(n, k);
    plan.run(soa, stride, count, out);
    plan.run(soa + static_cast<std::size_t>(n) * stride, stride, count, out, true);
}

// ---------------------------------------------------------------------------------------------
// Networks and the Kn/Kk plan.
// ---------------------------------------------------------------------------------------------

std::vector<Comparator> top_selection_network(int n, int t) {
    if (n < 1 || n > kMaxPNuma || t < 0 || t > n) throw std::invalid_argument("top_selection_network: need 1 <= n <= 16 and 0 <= t <= n");
    int p2 = 1;
    while (p2 < n) p2 <<= 1;
    // Batcher's odd-even merge sort on p2 inputs; comparators (i, j) with j >= n only ever see
    // +infinity at j (padding), so they never exchange and are left out.
    std::vector<Comparator> all;
    for (int p = 1; p < p2; p <<= 1)
        for (int k = p; k >= 1; k >>= 1)
            for (int j = k % p; j + k < p2; j += 2 * k)
                for (int i = 0; i < std::min(k, p2 - j - k); ++i)
                    if ((i + j) / (2 * p) == (i + j + k) / (2 * p) && i + j + k < n)
                        all.push_back(Comparator{static_cast<std::uint8_t>(i + j), static_cast<std::uint8_t>(i + j + k)});
    // Backward liveness from the output positions n-t..n-1: a comparator touching no live
    // position cannot change them; a kept one makes both its inputs live.
    unsigned live = 0;
    for (int i = n - t; i < n; ++i) live |= 1U << i;
    std::vector<Comparator> kept;
    for (auto c = all.rbegin(); c != all.rend(); ++c) {
        const unsigned m = (1U << c->lo) | (1U << c->hi);
        if ((live & m) == 0) continue;
        live |= m;
        kept.push_back(*c);
    }
    std::reverse(kept.begin(), kept.end());
    return kept;
}

KnKkBatchPlan::KnKkBatchPlan(int n, int k) : n_(n), k_(k) {
    if (k < 1 || k > n || n > kMaxPNuma) throw std::invalid_argument("KnKkBatchPlan: need 1 <= k <= n <= 16");
    network_ = top_selection_network(n, k - 1);
    for (int d = 1; d <= k; ++d) {
        const MagicDivisor m = MagicDivisor::make(d);
        magic31_[d] = static_cast<std::uint32_t>(m.magic31);  // < 2^32 for d <= 2^32
        shift31_[d] = m.shift31;
    }
}

void KnKkBatchPlan::run(const Count* soa, std::size_t stride, std::size_t count, Count* out, bool accumulate) const {
    const KnKkArgs args{n_, k_, network_.data(), network_.size(), magic31_, shift31_};
    kn_kk_kernel(args, soa, stride, count, out, accumulate);
}

// ---------------------------------------------------------------------------------------------
// Dispatcher.
// ---------------------------------------------------------------------------------------------

BatchEvaluator::BatchEvaluator(const Topology& host, const Topology& guest) : BatchEvaluator(VmcapEvaluator(host, guest)) {}

BatchEvaluator::BatchEvaluator(VmcapEvaluator scalar) : scalar_(std::move(scalar)) {
    const int n = scalar_.host_nodes(), k = scalar_.guest_nodes();
    if (method() == VmcapMethod::Kn_Kk) plan_ = KnKkBatchPlan(n, k);
    if (method() == VmcapMethod::TwoKn_Kk && !(scalar_.host_p() == 4 && (k == 2 || k == 3))) plan_ = KnKkBatchPlan(scalar_.host_p(), k);
}

void BatchEvaluator::operator()(const Count* soa, std::size_t stride, std::size_t count, Count* out) const {
    switch (method()) {
        case VmcapMethod::K1: return vmcap_batch_k1(soa, stride, count, host_nodes(), out);
        case VmcapMethod::C4_K2: return vmcap_batch_c4_k2(soa, stride, count, out);
        case VmcapMethod::Kmn_K2: return vmcap_batch_kmn_k2(soa, stride, count, scalar_.host_p(), scalar_.host_q(), out);
        case VmcapMethod::Kn_Kk: return plan_.run(soa, stride, count, out);
        case VmcapMethod::K4_K2: return vmcap_batch_k4_k2(soa, stride, count, out);
        case VmcapMethod::K4_K3: return vmcap_batch_k4_k3(soa, stride, count, out);
        case VmcapMethod::Q33_K2: return vmcap_batch_q33_k2(soa, stride, count, out);
        case VmcapMethod::Q33_C4: return vmcap_batch_q33_c4(soa, stride, count, out);
        case VmcapMethod::CQ3_C4: return vmcap_batch_cq3_c4(soa, stride, count, out);
        case VmcapMethod::CQ3_K2: return vmcap_batch_cq3_k2(soa, stride, count, out);
        case VmcapMethod::TwoKn_Kk: {
            const int p = scalar_.host_p(), k = scalar_.guest_nodes();
            if (p == 4 && (k == 2 || k == 3)) return vmcap_batch_2xkn_kk(soa, stride, count, p, k, out);
            plan_.run(soa, stride, count, out);
            plan_.run(soa + static_cast<std::size_t>(p) * stride, stride, count, out, true);
            return;
        }
        case VmcapMethod::Exact: break;
    }
    // No closed form: the exact fallback per vector (microseconds each; the gather is noise).
    const int n = host_nodes();
    Count b[kMaxPNuma];
    for (std::size_t t = 0; t < count; ++t) {
        for (int i = 0; i < n; ++i) b[i] = soa[static_cast<std::size_t>(i) * stride + t];
        out[t] = scalar_(b);
    }
}

bool BatchEvaluator::weighted_bytes(const std::uint8_t* const* rows, const Score* w, std::size_t count, Score& sum) const {
    BytesKernel kernel = nullptr;
    switch (method()) {
        case VmcapMethod::C4_K2: kernel = c4_k2_bytes; break;
        case VmcapMethod::K4_K2: kernel = k4_k2_bytes; break;
        case VmcapMethod::K4_K3: kernel = k4_k3_bytes; break;
        case VmcapMethod::Q33_K2: kernel = q33_k2_bytes; break;
        case VmcapMethod::Q33_C4: kernel = q33_c4_bytes; break;
        case VmcapMethod::CQ3_C4: kernel = cq3_c4_bytes; break;
        case VmcapMethod::CQ3_K2: kernel = cq3_k2_bytes; break;
        case VmcapMethod::TwoKn_Kk:
            if (scalar_.host_p() == 4 && scalar_.guest_nodes() == 2) kernel = twoxk4_k2_bytes;
            if (scalar_.host_p() == 4 && scalar_.guest_nodes() == 3) kernel = twoxk4_k3_bytes;
            break;
        default: break;
    }
    if (kernel == nullptr) return false;
    sum = kernel(rows, w, count);
    return true;
}

std::string BatchEvaluator::describe() const {
    std::string s("batched ");
    s += scalar_.describe();
    return s;
}

void transpose_to_soa(const Count* aos, int n, std::size_t count, Count* soa, std::size_t stride) {
    for (std::size_t t = 0; t < count; ++t)
        for (int i = 0; i < n; ++i) soa[static_cast<std::size_t>(i) * stride + t] = aos[t * static_cast<std::size_t>(n) + i];
}

}  // namespace vmcap

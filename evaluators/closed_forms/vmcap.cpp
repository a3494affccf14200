#include "evaluators/closed_forms/vmcap.h"

#include "instances/problem.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace vmcap {

// ---------------------------------------------------------------------------------------------
// Closed forms (vmcap-formulas.md, paper Table I). Hot path of the optimizer: no allocation, no
// data-dependent loops except the Kn/Kk drop loop, which runs only on unbalanced inputs.
// ---------------------------------------------------------------------------------------------

Count vmcap_k1(const Count* b, int n) {
    Count s = 0;
    for (int i = 0; i < n; ++i) s += b[i];
    return s;
}

Count vmcap_c4_k2(const Count* b) {
    return std::min(b[0] + b[2], b[1] + b[3]);
}

Count vmcap_kmn_k2(const Count* b, int m, int n) {
    Count s1 = 0, s2 = 0;
    for (int i = 0; i < m; ++i) s1 += b[i];
    for (int i = 0; i < n; ++i) s2 += b[m + i];
    return std::min(s1, s2);
}

namespace {

/**
 * Compare-exchange without a branch (GCC 12 turns paired std::min/std::max into a jump, which
 * mispredicts on random capacities). Precondition: a - b does not overflow (true for b_i >= 0).
 */
inline void sort2(Count a, Count b, Count& lo, Count& hi) {
    const Count d = a - b;
    const Count m = d >> 63;  // all ones iff a < b
    lo = b + (d & m);
    hi = a - (d & m);
}

/** Branch-free compare-exchange of a[i], a[j] (i < j): afterwards a[i] <= a[j]. */
inline void cx(Count* a, int i, int j) {
    sort2(a[i], a[j], a[i], a[j]);
}

__extension__ typedef unsigned __int128 U128;  // GCC/Clang extension; -Wpedantic-clean spelling

/** ceil(2^64 / d) for d = 2..16 (entries 0 and 1 unused). */
constexpr std::array<std::uint64_t, kMaxPNuma + 1> kReciprocal = [] {
    std::array<std::uint64_t, kMaxPNuma + 1> r{};
    for (std::uint64_t d = 2; d <= kMaxPNuma; ++d) r[d] = ~std::uint64_t{0} / d + 1;
    return r;
}();

/**
 * floor(s / d) for 0 <= s < 2^59 and 1 <= d <= 16 by one 64x64->128 multiply instead of a
 * 40-90 cycle hardware divide. With M = ceil(2^64/d) = (2^64 + e)/d, 0 <= e < d, the product
 * s*M/2^64 exceeds s/d by s*e/(d*2^64) < 1/d, which cannot reach the next integer.
 */
inline Count div_small(Count s, int d) {
    if (d == 1) return s;
    return static_cast<Count>((static_cast<U128>(static_cast<std::uint64_t>(s)) * kReciprocal[d]) >> 64);
}

/**
 * Drop phase of the recursive Kn/Kk form, entered when floor(S/k) < b_(1): remove the largest
 * remaining capacity and decrement k until floor(S/k) >= the largest remaining one. Selection of
 * the maximum per round (at most k-1 rounds of O(n)); kept out of line so the balanced path
 * stays small.
 */
[[gnu::noinline]] Count kn_kk_drop(const Count* b, int n, int k, Count s) {
    Count a[kMaxPNuma];
    for (int i = 0; i < n; ++i) a[i] = b[i];
    int len = n;
    for (;;) {
        int at = 0;
        for (int i = 1; i < len; ++i)
            if (a[i] > a[at]) at = i;
        s -= a[at];
        a[at] = a[--len];
        --k;
        Count mx = 0;
        for (int i = 0; i < len; ++i) mx = std::max(mx, a[i]);
        if (s >= k * mx) return div_small(s, k);  // always true once k == 1
    }
}

/**
 * Drop phase for N = 4 or 8 without data-dependent branches: sort by an optimal network (5 and
 * 19 compare-exchanges, Knuth TAOCP 5.3.4), then min over r < k of floor((S - b_(1) - ... -
 * b_(r)) / (k - r)), the closed form the recursive form evaluates.
 */
template <int N>
[[gnu::noinline]] Count kn_kk_drop_sorted(const Count* b, int k, Count s) {
    static_assert(N == 4 || N == 8);
    Count a[N];
    for (int i = 0; i < N; ++i) a[i] = b[i];
    if constexpr (N == 4) {
        cx(a, 0, 1);
        cx(a, 2, 3);
        cx(a, 0, 2);
        cx(a, 1, 3);
        cx(a, 1, 2);
    } else {
        cx(a, 0, 1);
        cx(a, 2, 3);
        cx(a, 4, 5);
        cx(a, 6, 7);
        cx(a, 0, 2);
        cx(a, 1, 3);
        cx(a, 4, 6);
        cx(a, 5, 7);
        cx(a, 1, 2);
        cx(a, 5, 6);
        cx(a, 0, 4);
        cx(a, 1, 5);
        cx(a, 2, 6);
        cx(a, 3, 7);
        cx(a, 2, 4);
        cx(a, 3, 5);
        cx(a, 1, 2);
        cx(a, 3, 4);
        cx(a, 5, 6);
    }
    Count best = div_small(s, k);
    for (int r = 1; r < k; ++r) {
        s -= a[N - r];  // a[N-1] = b_(1)
        best = std::min(best, div_small(s, k - r));
    }
    return best;
}

/** Kn/Kk with the host size N known at compile time (unrolled reductions). */
template <int N>
inline Count kn_kk_fixed(const Count* b, int k) {
    Count s = 0, mx = b[0], mn = b[0];
    for (int i = 0; i < N; ++i) {
        s += b[i];
        mx = std::max(mx, b[i]);
        mn = std::min(mn, b[i]);
    }
    if (k == 1) return s;
    if (k == N) return mn;
    // floor(S/k) >= b_(1) <=> S >= k*b_(1) for integers: no division to decide.
    if (s >= k * mx) return div_small(s, k);
    return kn_kk_drop_sorted<N>(b, k, s);
}

}  // namespace

Count vmcap_kn_kk(const Count* b, int n, int k) {
    if (k > n) return 0;  // no placement (outside the precondition, but cheap to answer)
    switch (n) {
        case 4: return kn_kk_fixed<4>(b, k);
        case 8: return kn_kk_fixed<8>(b, k);
        default: break;
    }
    Count s = 0, mx = b[0], mn = b[0];
    for (int i = 0; i < n; ++i) {
        s += b[i];
        mx = std::max(mx, b[i]);
        mn = std::min(mn, b[i]);
    }
    if (k == 1) return s;
    if (k == n) return mn;
    if (s >= k * mx) return div_small(s, k);
    return kn_kk_drop(b, n, k, s);
}

Count vmcap_k4_k2(const Count* b) {
    const Count s = b[0] + b[1] + b[2] + b[3];
    const Count mx = std::max(std::max(b[0], b[1]), std::max(b[2], b[3]));
    return std::min(static_cast<Count>(static_cast<std::uint64_t>(s) >> 1), s - mx);
}

Count vmcap_k4_k3(const Count* b) {
    const Count s = b[0] + b[1] + b[2] + b[3];
    Count lo01, hi01, lo23, hi23, mid, m1, lo_lo, hi_lo;
    sort2(b[0], b[1], lo01, hi01);
    sort2(b[2], b[3], lo23, hi23);
    sort2(hi01, hi23, mid, m1);                                      // m1 = b_(1); mid = the smaller of the two pair maxima
    sort2(lo01, lo23, lo_lo, hi_lo);                                 // hi_lo = the larger of the two pair minima
    const Count m2 = mid - ((mid - hi_lo) & ((mid - hi_lo) >> 63));  // b_(2) = max(mid, hi_lo)
    const Count t3 = static_cast<Count>(static_cast<std::uint64_t>(s) / 3U);
    const Count t2 = static_cast<Count>(static_cast<std::uint64_t>(s - m1) >> 1);
    return std::min(std::min(t3, t2), s - m1 - m2);
}

Count vmcap_q33_k2(const Count* b) {
    return std::min(b[0] + b[2] + b[4] + b[6], b[1] + b[3] + b[5] + b[7]);
}

Count vmcap_q33_c4(const Count* b) {
    const Count odd[4] = {b[0], b[2], b[4], b[6]};
    const Count even[4] = {b[1], b[3], b[5], b[7]};
    return std::min(vmcap_k4_k2(odd), vmcap_k4_k2(even));
}

Count vmcap_cq3_c4(const Count* b) {
    return std::min(std::min(b[0], b[1]) + std::min(b[4], b[5]), std::min(b[2], b[3]) + std::min(b[6], b[7]));
}

Count vmcap_cq3_k2(const Count* b) {
    // 0-based: the paper's b1..b8 are b[0]..b[7]. Pair sums shared by the six terms.
    const Count p02 = b[0] + b[2], p46 = b[4] + b[6], p13 = b[1] + b[3], p57 = b[5] + b[7];
    const Count o = p02 + p46;  // O = b1+b3+b5+b7
    const Count e = p13 + p57;  // E = b2+b4+b6+b8
    // floor((O - E) / 2): C++20 defines >> on negative values as an arithmetic shift (= floor).
    Count d = (o - e) >> 1;
    d = std::min(d, std::min(b[0], b[6]));
    d = std::max(d, -std::min(b[1], b[7]));
    const Count t1 = o - b[0] + p13;  // b2+b3+b4+b5+b7
    const Count t2 = o - b[6] + p57;  // b1+b3+b5+b6+b8
    const Count t3 = p46 + e - b[7];  // b2+b4+b5+b6+b7
    const Count t4 = p02 + e - b[1];  // b1+b3+b4+b6+b8
    return std::min(std::min(std::min(o - d, e + d), std::min(t1, t2)), std::min(t3, t4));
}

Count vmcap_2xkn_kk(const Count* b, int n, int k) {
    if (n == 4 && k == 2) return vmcap_k4_k2(b) + vmcap_k4_k2(b + 4);  // two-socket 4-NUMA hosts
    if (n == 4 && k == 3) return vmcap_k4_k3(b) + vmcap_k4_k3(b + 4);
    return vmcap_kn_kk(b, n, k) + vmcap_kn_kk(b + n, n, k);
}

// ---------------------------------------------------------------------------------------------
// Exact fallback: LP-based branch and bound.
//
// Integer program: max sum_j x_j  s.t.  sum_{j : i in S_j} x_j <= b_i,  0 <= x_j <= u_j integer.
// Each branch-and-bound node solves the LP relaxation with a bounded-variable revised primal
// simplex (dense n x n basis inverse, n <= 16; columns are node bitmasks, priced through subset-sum
// tables of the duals). Exactness does not rely on floating point: the bound used for pruning is the weak-
// duality value b.y+ + sum_j u_j max(0, 1 - y+.A_j) of the final dual vector y+ = max(y, 0),
// which is a valid upper bound for ANY y+ >= 0, plus a small safety margin before flooring.
// Incumbents are integer vectors checked in integer arithmetic.
// ---------------------------------------------------------------------------------------------
namespace {

constexpr double kCostTol = 1e-9;   // reduced-cost optimality tolerance
constexpr double kPivotTol = 1e-9;  // smallest |alpha| accepted as a pivot
constexpr double kInf = std::numeric_limits<double>::infinity();
// Work units between two clock reads of an evaluation with a deadline: about 0.1-0.5 ms of
// branch and bound (a node costs m + n^2 units and a few microseconds), so a clock read (~25-45 ns)
// adds well under 0.1% and an evaluation stops within about a millisecond of the deadline.
constexpr std::int64_t kPollWork = 1 << 14;

template <class F>
inline void for_bits(unsigned mask, F&& f) {
    for (; mask; mask &= mask - 1U) f(std::countr_zero(mask));
}

class ExactSolver {
public:
    ExactSolver(int n, std::vector<NodeMask> masks, std::int64_t& work_left, std::int64_t work_limit,
                std::chrono::steady_clock::time_point deadline)
        : work_left_(work_left),
          work_limit_(work_limit),
          deadline_(deadline),
          poll_at_(deadline == std::chrono::steady_clock::time_point::max() ? std::numeric_limits<std::int64_t>::min()
                                                                            : work_left - kPollWork),
          n_(n),
          m_(static_cast<int>(masks.size())),
          masks_(std::move(masks)),
          binv_(static_cast<std::size_t>(n) * n),
          xb_(n),
          y_(n),
          alpha_(n),
          x_(m_),
          basis_(n),
          status_(m_ + n),
          xi_(m_),
          r_(n),
          order_(m_) {
        lo_bits_ = std::min(n_, 8);
        sum_lo_.assign(std::size_t{1} << lo_bits_, 0.0);
        sum_hi_.assign(std::size_t{1} << (n_ - lo_bits_), 0.0);
        kmin_ = kMaxPNuma;
        for (NodeMask s : masks_) kmin_ = std::min(kmin_, std::popcount(static_cast<unsigned>(s)));
    }

    /**
     * Optimum for capacities b. With `solution` non-null, also the optimal multiplicity of every
     * placement (solution->size() == m): the incumbent is recorded whenever it improves, as the
     * copies fixed by up-branches on the current path plus the heuristic's completion.
     */
    Count solve(const std::vector<Count>& b, std::vector<Count>* solution = nullptr) {
        best_ = 0;
        record_ = solution != nullptr;
        if (record_) {
            fixed_.assign(m_, 0);
            best_x_.assign(m_, 0);
        }
        std::vector<Count> bb = b, u(m_, std::numeric_limits<Count>::max());
        branch(0, bb, u);
        if (record_) *solution = best_x_;
        return best_;
    }

private:
    // Variables 0..m-1 are placements, m..m+n-1 the slacks of the node rows.
    enum : signed char { kAtLower = 0, kAtUpper = 1, kBasic = 2 };

    std::int64_t& work_left_;                         ///< work units left in this vmcap_exact call (shared by its components)
    std::int64_t work_limit_;                         ///< the call's limit, for the exception
    std::chrono::steady_clock::time_point deadline_;  ///< ExactOptions::deadline (max: none)
    std::int64_t poll_at_;                            ///< read the clock once work_left_ falls below this
    int n_, m_, kmin_;
    std::vector<NodeMask> masks_;
    std::vector<double> binv_, xb_, y_, alpha_, x_;
    // Subset sums of the duals, split into nodes 0..7 and 8..15: y.A_j for a placement is two
    // table loads instead of a serial chain of k additions per column (pricing is the LP's hot loop).
    int lo_bits_ = 0;
    std::vector<double> sum_lo_, sum_hi_;
    std::vector<int> basis_;
    std::vector<signed char> status_;
    std::vector<Count> xi_, r_;
    std::vector<int> order_;
    Count best_ = 0;
    // Solution recording (vmcap_exact_placements only; off on the counting path).
    bool record_ = false;
    std::vector<Count> fixed_;   ///< copies fixed by the up-branches on the current path
    std::vector<Count> best_x_;  ///< incumbent multiplicities

    void compute_duals() {
        std::fill(y_.begin(), y_.end(), 0.0);
        for (int r = 0; r < n_; ++r) {
            if (basis_[r] >= m_) continue;  // slack: cost 0
            const double* row = &binv_[static_cast<std::size_t>(r) * n_];
            for (int i = 0; i < n_; ++i) y_[i] += row[i];
        }
    }

    /** Fills the subset-sum tables from v (y_ for pricing, max(y_, 0) for the bound). */
    template <class F>
    void build_sums(F&& v) {
        // Doubling: the sets containing node i are those without it plus v(i) (vectorisable).
        auto fill = [&](std::vector<double>& t, int first, int bits) {
            double* p = t.data();
            for (int i = 0; i < bits; ++i) {
                const double add = v(first + i);
                const std::size_t half = std::size_t{1} << i;
                for (std::size_t s = 0; s < half; ++s) p[half + s] = p[s] + add;
            }
        };
        fill(sum_lo_, 0, lo_bits_);
        fill(sum_hi_, lo_bits_, n_ - lo_bits_);
    }

    /** Sum of the table's values over the nodes of `mask`. */
    double mask_sum(NodeMask mask) const {
        return sum_lo_[mask & ((1U << lo_bits_) - 1U)] + sum_hi_[static_cast<unsigned>(mask) >> lo_bits_];
    }

    /** Solves the LP relaxation; fills x_ and returns a valid (dual) upper bound. */
    double lp(const Count* b, const Count* u) {
        const int n = n_, m = m_;
        std::fill(binv_.begin(), binv_.end(), 0.0);
        for (int r = 0; r < n; ++r) {
            binv_[static_cast<std::size_t>(r) * n + r] = 1.0;
            basis_[r] = m + r;
            status_[m + r] = kBasic;
            xb_[r] = static_cast<double>(b[r]);
        }
        std::fill(status_.begin(), status_.begin() + m, kAtLower);

        bool bland = false;
        int degenerate = 0;
        const int max_iter = 50 + 20 * (n + m);
        for (int it = 0; it < max_iter; ++it) {
            compute_duals();
            build_sums([&](int i) { return y_[i]; });
            // Pricing (maximisation): at lower with d > 0 may increase, at upper with d < 0 may
            // decrease. Dantzig's rule, Bland's rule after a run of degenerate pivots.
            int q = -1;
            double best_score = kCostTol;
            for (int j = 0; j < m && !(bland && q >= 0); ++j) {
                if (status_[j] == kBasic || u[j] == 0) continue;
                const double d = 1.0 - mask_sum(masks_[j]);
                const double score = status_[j] == kAtLower ? d : -d;
                if (score > best_score) {
                    best_score = score;
                    q = j;
                }
            }
            for (int i = 0; i < n && !(bland && q >= 0); ++i) {
                if (status_[m + i] == kBasic) continue;
                const double score = -y_[i];  // slack at lower (never at upper: unbounded above)
                if (score > best_score) {
                    best_score = score;
                    q = m + i;
                }
            }
            if (q < 0) break;  // optimal

            if (q < m) {
                for (int r = 0; r < n; ++r) {
                    const double* row = &binv_[static_cast<std::size_t>(r) * n];
                    double a = 0.0;
                    for_bits(masks_[q], [&](int i) { a += row[i]; });
                    alpha_[r] = a;
                }
            } else {
                for (int r = 0; r < n; ++r) alpha_[r] = binv_[static_cast<std::size_t>(r) * n + (q - m)];
            }
            const double sigma = status_[q] == kAtLower ? 1.0 : -1.0;
            double t = q < m ? static_cast<double>(u[q]) : kInf;  // bound flip
            int leave = -1;
            bool leave_to_upper = false;
            double leave_abs = 0.0;
            for (int r = 0; r < n; ++r) {
                const double delta = sigma * alpha_[r];
                double lim;
                bool to_upper;
                if (delta > kPivotTol) {
                    lim = std::max(xb_[r], 0.0) / delta;
                    to_upper = false;
                } else if (delta < -kPivotTol) {
                    const int v = basis_[r];
                    if (v >= m) continue;  // basic slack has no upper bound
                    lim = std::max(static_cast<double>(u[v]) - xb_[r], 0.0) / -delta;
                    to_upper = true;
                } else {
                    continue;
                }
                // Ties: keep a bound flip (no basis change); between rows use Bland's smallest
                // index when anti-cycling, else the largest |alpha| for numerical stability.
                const bool take = lim < t - 1e-12 ||
                                  (leave >= 0 && lim <= t + 1e-12 && (bland ? basis_[r] < basis_[leave] : std::abs(delta) > leave_abs));
                if (take) {
                    t = lim;
                    leave = r;
                    leave_to_upper = to_upper;
                    leave_abs = std::abs(delta);
                }
            }
            if (t == kInf) break;  // unbounded cannot happen (every placement is capped); be safe

            for (int r = 0; r < n; ++r) xb_[r] -= t * sigma * alpha_[r];
            if (leave < 0) {
                status_[q] = status_[q] == kAtLower ? kAtUpper : kAtLower;
            } else {
                const int out = basis_[leave];
                status_[out] = leave_to_upper ? kAtUpper : kAtLower;
                xb_[leave] = sigma > 0 ? t : static_cast<double>(u[q]) - t;
                basis_[leave] = q;
                status_[q] = kBasic;
                double* prow = &binv_[static_cast<std::size_t>(leave) * n];
                const double inv = 1.0 / alpha_[leave];
                for (int i = 0; i < n; ++i) prow[i] *= inv;
                for (int r = 0; r < n; ++r) {
                    if (r == leave || alpha_[r] == 0.0) continue;
                    double* row = &binv_[static_cast<std::size_t>(r) * n];
                    const double f = alpha_[r];
                    for (int i = 0; i < n; ++i) row[i] -= f * prow[i];
                }
            }
            if (t <= 1e-12) {
                if (++degenerate > 2 * n + 10) bland = true;
            } else {
                degenerate = 0;
            }
        }
        compute_duals();

        for (int j = 0; j < m; ++j) x_[j] = status_[j] == kAtUpper ? static_cast<double>(u[j]) : 0.0;
        for (int r = 0; r < n; ++r)
            if (basis_[r] < m) x_[basis_[r]] = xb_[r];

        // Weak duality with y+ = max(y, 0) and w_j = max(0, 1 - y+ . A_j): valid for any y.
        double bound = 0.0;
        for (int i = 0; i < n; ++i) bound += static_cast<double>(b[i]) * std::max(y_[i], 0.0);
        build_sums([&](int i) { return std::max(y_[i], 0.0); });
        for (int j = 0; j < m; ++j) {
            const double w = 1.0 - mask_sum(masks_[j]);
            if (w > 0.0) bound += static_cast<double>(u[j]) * w;
        }
        return std::isfinite(bound) ? bound : kInf;
    }

    /** Rounds x_ down, repairs rounding errors, then fills greedily. Returns the count. */
    Count heuristic(const Count* b, const Count* u) {
        for (int i = 0; i < n_; ++i) r_[i] = b[i];
        for (int j = 0; j < m_; ++j) {
            const double f = std::floor(x_[j] + 1e-6);
            Count v = f <= 0.0 ? 0 : (f >= static_cast<double>(u[j]) ? u[j] : static_cast<Count>(f));
            xi_[j] = v;
            for_bits(masks_[j], [&](int i) { r_[i] -= v; });
        }
        for (int i = 0; i < n_; ++i) {
            for (int j = 0; j < m_ && r_[i] < 0; ++j) {
                if (!((masks_[j] >> i) & 1U) || xi_[j] == 0) continue;
                const Count c = std::min(xi_[j], -r_[i]);
                xi_[j] -= c;
                for_bits(masks_[j], [&](int v) { r_[v] += c; });
            }
        }
        for (int j = 0; j < m_; ++j) order_[j] = j;
        std::sort(order_.begin(), order_.end(), [&](int a, int c) {
            const double fa = x_[a] - static_cast<double>(xi_[a]), fc = x_[c] - static_cast<double>(xi_[c]);
            return fa != fc ? fa > fc : a < c;
        });
        Count total = 0;
        for (int j : order_) {
            Count add = u[j] - xi_[j];
            for_bits(masks_[j], [&](int i) { add = std::min(add, r_[i]); });
            if (add > 0) {
                xi_[j] += add;
                for_bits(masks_[j], [&](int i) { r_[i] -= add; });
            }
            total += xi_[j];
        }
        return total;
    }

    void branch(Count base, std::vector<Count>& b, std::vector<Count>& u) {
        // The "down" branch (x_j <= t, same base) is a loop, not a tail call: its depth grows with
        // the capacity values, and recursion there overflowed the stack on large vectors.
        for (;;) {
            // x_j <= min_{i in S_j} b_i is implied; making it explicit keeps every bound finite.
            Count sum_u = 0, sum_b = 0;
            for (int j = 0; j < m_; ++j) {
                for_bits(masks_[j], [&](int i) { u[j] = std::min(u[j], b[i]); });
                sum_u += u[j];
            }
            for (int i = 0; i < n_; ++i) sum_b += b[i];
            Count ub = std::min(sum_u, sum_b / kmin_);
            if (base + ub <= best_) return;

            // One node's work: a pricing pass over the m placements plus a basis update (n^2).
            work_left_ -= m_ + n_ * n_;
            if (work_left_ < 0) throw ExactLimitExceeded(work_limit_);
            if (work_left_ < poll_at_) {  // every kPollWork units: one compare per node otherwise
                poll_at_ = work_left_ - kPollWork;
                if (std::chrono::steady_clock::now() > deadline_) throw TimeLimitReached("");
            }
            const double bound = lp(b.data(), u.data());
            if (bound < static_cast<double>(ub)) {
                // Margin covers the rounding of the double evaluation of the dual bound.
                ub = std::min(ub, static_cast<Count>(std::floor(bound + 1e-6 + 1e-9 * bound)));
            }
            if (base + ub <= best_) return;
            const Count h = heuristic(b.data(), u.data());
            if (base + h > best_) {
                best_ = base + h;
                if (record_)
                    for (int j = 0; j < m_; ++j) best_x_[j] = fixed_[j] + xi_[j];
            }
            if (h >= ub) return;

            // Branch on the most fractional free variable: x_j >= t+1 (up) or x_j <= t (down); both
            // strictly shrink u_j, so the search terminates. If the LP point is integral (the bound
            // margin or the heuristic can leave a gap of 1), the largest free variable is split.
            int bj = -1;
            double best_frac = -1.0;
            for (int j = 0; j < m_; ++j) {
                if (u[j] == 0) continue;
                const double f = x_[j] - std::floor(x_[j]);
                const double score = std::min(f, 1.0 - f) + 1e-12 * x_[j];
                if (score > best_frac) {
                    best_frac = score;
                    bj = j;
                }
            }
            if (bj < 0) return;  // every variable fixed at 0: the heuristic already found the value
            const double fl = std::floor(x_[bj] + 1e-9);
            Count t = fl <= 0.0 ? 0 : static_cast<Count>(fl);
            t = std::min(t, u[bj] - 1);

            {
                std::vector<Count> b2 = b, u2 = u;
                const Count c = t + 1;
                for_bits(masks_[bj], [&](int i) { b2[i] -= c; });
                u2[bj] -= c;
                if (record_) fixed_[bj] += c;
                branch(base + c, b2, u2);
                if (record_) fixed_[bj] -= c;
            }
            u[bj] = t;
        }
    }
};

/** Maps the bits of `mask` through `local` (global node -> local node). */
NodeMask compress(NodeMask mask, const int* local) {
    unsigned out = 0;
    for_bits(mask, [&](int i) { out |= 1U << local[i]; });
    return static_cast<NodeMask>(out);
}

/**
 * vmcap_exact; with `solution` non-null also appends an optimal multiset as (global node mask,
 * copies > 0) pairs, at most one per mask. Kept in one function so both paths share every step.
 */
Count exact_impl(std::span<const Embedding> placements, int n, const Count* b, std::int64_t work_limit,
                 std::vector<std::pair<NodeMask, Count>>* solution, std::int64_t* work_used = nullptr,
                 std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max()) {
    if (work_used) *work_used = 0;
    if (n <= 0 || placements.empty()) return 0;
    const unsigned all = n >= 16 ? 0xFFFFU : ((1U << n) - 1U);
    unsigned positive = 0;
    for (int i = 0; i < n; ++i)
        if (b[i] > 0) positive |= 1U << i;

    // Usable placements: non-empty, inside the host, every node with capacity left.
    std::vector<NodeMask> masks;
    masks.reserve(placements.size());
    for (const Embedding& e : placements) {
        const unsigned s = e.mask;
        if (s != 0 && (s & ~all) == 0 && (s & ~positive) == 0) masks.push_back(e.mask);
    }
    if (masks.empty()) return 0;
    if (!std::is_sorted(masks.begin(), masks.end())) std::sort(masks.begin(), masks.end());
    masks.erase(std::unique(masks.begin(), masks.end()), masks.end());
    // A strict superset of another placement is never needed: swap it for the subset. Only
    // possible when sizes differ (enumerate_embeddings gives equal sizes), so skip the O(m^2) scan.
    const int size0 = std::popcount(static_cast<unsigned>(masks.front()));
    bool mixed_sizes = false;
    for (NodeMask s : masks) mixed_sizes |= std::popcount(static_cast<unsigned>(s)) != size0;
    if (mixed_sizes) {
        std::vector<NodeMask> kept;
        kept.reserve(masks.size());
        for (NodeMask s : masks) {
            bool dominated = false;
            for (NodeMask t : masks)
                if (t != s && (t & s) == t) {
                    dominated = true;
                    break;
                }
            if (!dominated) kept.push_back(s);
        }
        masks.swap(kept);
    }
    if (masks.empty()) return 0;

    // Independent components (no placement spans two) are solved separately: the sum of the
    // floors of their bounds is tighter than the floor of the sum.
    unsigned comps[kMaxPNuma];  // disjoint node sets, at most one per node
    int num_comps = 0;
    for (NodeMask s : masks) {
        unsigned merged = s;
        int kept = 0;
        for (int c = 0; c < num_comps; ++c) {
            if (comps[c] & merged)
                merged |= comps[c];
            else
                comps[kept++] = comps[c];
        }
        comps[kept++] = merged;
        num_comps = kept;
    }

    Count total = 0;
    std::int64_t work_left = work_limit;
    for (int c = 0; c < num_comps; ++c) {
        const unsigned comp = comps[c];
        int local[kMaxPNuma] = {};
        std::vector<Count> lb;
        for_bits(comp, [&](int i) {
            local[i] = static_cast<int>(lb.size());
            lb.push_back(b[i]);
        });
        std::vector<NodeMask> lm, global;
        for (NodeMask s : masks)
            if (s & comp) {
                lm.push_back(compress(s, local));
                if (solution) global.push_back(s);
            }
        if (lm.size() == 1) {  // a single placement: limited by its tightest node
            Count c = std::numeric_limits<Count>::max();
            for_bits(lm[0], [&](int i) { c = std::min(c, lb[i]); });
            total += c;
            if (solution && c > 0) solution->emplace_back(global[0], c);
            continue;
        }
        ExactSolver solver(static_cast<int>(lb.size()), std::move(lm), work_left, work_limit, deadline);
        if (!solution) {
            total += solver.solve(lb);
            continue;
        }
        std::vector<Count> x;
        total += solver.solve(lb, &x);
        for (std::size_t j = 0; j < x.size(); ++j)
            if (x[j] > 0) solution->emplace_back(global[j], x[j]);
    }
    if (work_used) *work_used = work_limit - work_left;
    return total;
}

}  // namespace

ExactLimitExceeded::ExactLimitExceeded(std::int64_t limit)
    : std::runtime_error("the exact VMCAP solver needs more than its work limit of " + std::to_string(limit)), work_limit(limit) {}

Count vmcap_exact(std::span<const Embedding> placements, int n, const Count* b, std::int64_t work_limit) {
    return exact_impl(placements, n, b, work_limit, nullptr);
}

Count vmcap_exact_placements(std::span<const Embedding> placements, int n, const Count* b, std::vector<PlacementCount>& out,
                             std::int64_t work_limit) {
    out.clear();
    std::vector<std::pair<NodeMask, Count>> sol;
    const Count total = exact_impl(placements, n, b, work_limit, &sol);
    std::sort(sol.begin(), sol.end());
    for (const auto& [mask, copies] : sol) {
        // The first embedding with this node set (the solver only keeps masks it was given).
        const auto it = std::find_if(placements.begin(), placements.end(), [m = mask](const Embedding& e) { return e.mask == m; });
        if (it == placements.end()) throw std::logic_error("vmcap_exact_placements: solver returned an unknown placement");
        out.push_back(PlacementCount{*it, copies});
    }
    return total;
}

// ---------------------------------------------------------------------------------------------
// Evaluator: method chosen once per (host, guest) pair.
// ---------------------------------------------------------------------------------------------
namespace {

bool is_cycle4(const Graph& g) {
    if (g.n != 4) return false;
    for (int i = 0; i < 4; ++i)
        if (std::popcount(static_cast<unsigned>(g.adj[i])) != 2) return false;
    return g.is_connected();  // 2-regular and connected on 4 nodes: C4
}

}  // namespace

std::string VmcapEvaluator::exact_refusal(const Count* b) const {
    std::string vec;
    for (int i = 0; i < n_; ++i) vec.append(i ? ", " : "").append(std::to_string(b[i]));
    return (exact_.label.empty() ? std::string("a host/guest topology pair") : exact_.label) +
           " needs the exact VMCAP solver beyond its limit of " + std::to_string(exact_.work_limit) + " work units (b = [" + vec +
           "]); raise --exact-work-limit or give the host type a topology with a closed form";
}

void VmcapEvaluator::enable_memo(std::span<const Count> bmax, std::size_t max_entries) {
    if (method_ != VmcapMethod::Exact || static_cast<int>(bmax.size()) != n_) return;
    std::size_t size = 1;
    std::vector<std::size_t> stride(static_cast<std::size_t>(n_));
    for (int i = 0; i < n_; ++i) {
        if (bmax[i] < 0) return;
        stride[i] = size;
        const auto span = static_cast<std::size_t>(bmax[i]) + 1;
        if (size > max_entries / span) return;  // too large a table
        size *= span;
    }
    memo_.reset(new std::atomic<std::int32_t>[size]);
    for (std::size_t e = 0; e < size; ++e) memo_[e].store(-1, std::memory_order_relaxed);
    memo_size_ = size;
    memo_stride_ = std::move(stride);
    memo_max_.assign(bmax.begin(), bmax.end());
}

Count VmcapEvaluator::exact(const Count* b) const {
    std::size_t slot = memo_size_;  // memo_size_: no memo entry for b
    if (memo_size_ > 0) {
        slot = 0;
        for (int i = 0; i < n_ && slot < memo_size_; ++i) {
            if (b[i] > memo_max_[i])
                slot = memo_size_;
            else
                slot += static_cast<std::size_t>(b[i]) * memo_stride_[i];
        }
        if (slot < memo_size_) {
            const std::int32_t known = memo_[slot].load(std::memory_order_relaxed);
            if (known >= 0) return known;
        }
    }
    const Count value = exact_uncached(b);
    if (slot < memo_size_ && value >= 0 && value <= std::numeric_limits<std::int32_t>::max())
        memo_[slot].store(static_cast<std::int32_t>(value), std::memory_order_relaxed);
    return value;
}

Count VmcapEvaluator::exact_uncached(const Count* b) const {
    // The clock is read every 16th exact evaluation of a thread (a read costs ~25-45 ns, an easy
    // exact evaluation ~300 ns), and at every one after an expensive one (over 2^16 work units,
    // about a millisecond): otherwise 15 slow evaluations past the deadline could run (~1.5 s on
    // 80 hosts of 0.1 s each, ten times that under AddressSanitizer).
    thread_local unsigned calls = 0;
    thread_local std::int64_t last_work = 0;
    if (exact_.deadline != std::chrono::steady_clock::time_point::max() && ((++calls & 15U) == 0 || last_work > (1 << 16)) &&
        std::chrono::steady_clock::now() > exact_.deadline)
        throw TimeLimitReached("time limit reached while evaluating " +
                               (exact_.label.empty() ? std::string("a host/guest topology pair") : exact_.label) +
                               " with the exact VMCAP solver");
    try {
        return exact_impl(placements_, n_, b, exact_.work_limit, nullptr, &last_work, exact_.deadline);
    } catch (const ExactLimitExceeded&) {
        throw InputError(exact_refusal(b));
    } catch (const TimeLimitReached&) {                        // the deadline passed inside this evaluation
        last_work = std::numeric_limits<std::int64_t>::max();  // the next evaluation reads the clock first
        throw TimeLimitReached("time limit reached while evaluating " +
                               (exact_.label.empty() ? std::string("a host/guest topology pair") : exact_.label) +
                               " with the exact VMCAP solver (stopped inside one evaluation)");
    }
}

VmcapEvaluator::VmcapEvaluator(const Topology& host, const Topology& guest, ExactOptions exact) : exact_(std::move(exact)) {
    if (exact_.work_limit < 1) throw std::invalid_argument("exact work limit must be >= 1");
    if (guest.size() > kMaxVNuma)
        throw std::invalid_argument("guest topology '" + guest.name + "' has " + std::to_string(guest.size()) + " vNUMA nodes; at most " +
                                    std::to_string(kMaxVNuma) + " are supported");
    n_ = host.size();
    k_ = guest.size();
    placements_ = enumerate_embeddings(host.graph, guest.graph);
    method_ = VmcapMethod::Exact;
    if (k_ < 1 || k_ > n_) return;  // no placement: the exact path returns 0

    // The guest is recognised from its graph, not its name.
    const bool g_complete = guest.graph.is_complete();
    const bool g_k2 = g_complete && k_ == 2;
    const bool g_c4 = is_cycle4(guest.graph);
    if (k_ == 1) {
        method_ = VmcapMethod::K1;
        return;
    }
    switch (host.kind) {
        case TopologyKind::Complete:
        case TopologyKind::Explicit:
            if (g_complete && host.graph.is_complete()) {
                method_ = n_ == 4 && k_ == 2 ? VmcapMethod::K4_K2 : n_ == 4 && k_ == 3 ? VmcapMethod::K4_K3 : VmcapMethod::Kn_Kk;
            }
            break;
        case TopologyKind::Cycle4:
            if (g_k2) method_ = VmcapMethod::C4_K2;
            break;
        case TopologyKind::CompleteBipartite:
            if (g_k2 && host.p + host.q == n_) {
                method_ = VmcapMethod::Kmn_K2;
                p_ = host.p;
                q_ = host.q;
            }
            break;
        case TopologyKind::EnhancedCube:
            if (g_k2)
                method_ = VmcapMethod::Q33_K2;
            else if (g_c4)
                method_ = VmcapMethod::Q33_C4;
            break;
        case TopologyKind::CrossedCube:
            if (g_k2)
                method_ = VmcapMethod::CQ3_K2;
            else if (g_c4)
                method_ = VmcapMethod::CQ3_C4;
            break;
        case TopologyKind::TwoComplete:
            if (g_complete && k_ <= host.p && 2 * host.p == n_) {
                method_ = VmcapMethod::TwoKn_Kk;
                p_ = host.p;
            }
            break;
        case TopologyKind::Cube: break;
    }
}

std::string VmcapEvaluator::describe() const {
    // Built with append: GCC 12 -O3 warns falsely (-Wrestrict, PR 105651) on "literal" + string.
    auto kn = [](int n) {
        std::string s("K");
        s += std::to_string(n);
        return s;
    };
    std::string s("closed form ");
    switch (method_) {
        case VmcapMethod::K1: return s.append("any/K1");
        case VmcapMethod::C4_K2: return s.append("C4/K2");
        case VmcapMethod::Kmn_K2: return s.append(kn(p_)).append(",").append(std::to_string(q_)).append("/K2");
        case VmcapMethod::Kn_Kk: return s.append(kn(n_)).append("/").append(kn(k_));
        case VmcapMethod::K4_K2: return s.append("K4/K2");
        case VmcapMethod::K4_K3: return s.append("K4/K3");
        case VmcapMethod::Q33_K2: return s.append("Q33/K2");
        case VmcapMethod::Q33_C4: return s.append("Q33/C4");
        case VmcapMethod::CQ3_C4: return s.append("CQ3/C4");
        case VmcapMethod::CQ3_K2: return s.append("CQ3/K2");
        case VmcapMethod::TwoKn_Kk: return s.append("2x").append(kn(p_)).append("/").append(kn(k_));
        case VmcapMethod::Exact: break;
    }
    s = "exact fallback (LP branch and bound over ";
    return s.append(std::to_string(placements_.size())).append(" placements)");
}

}  // namespace vmcap

// Tests of evaluators/closed_forms/vmcap_batch.h: every batched closed form against the scalar closed form of
// vmcap.h and against an independent exhaustive oracle (the memoised search of vmcap_test.cpp,
// restated here because that one is file-local), on >= 10,000 random vectors per pair, with edge
// values (zeros, equal values, one dominant node, values around the 32-bit lane limit and far
// above it), odd batch sizes (1, 7, 4097, ...) and unaligned starts of input and output. The
// Kn/Kk comparator networks are proved by the 0-1 principle, exhaustively.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <numeric>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "evaluators/closed_forms/capacity_vectors.h"
#include "evaluators/closed_forms/vmcap.h"
#include "evaluators/closed_forms/vmcap_batch.h"
#include "instances/topology.h"

#include "tests/oracle.h"

namespace vmcap {
namespace {

using test::cat;
using test::Oracle;

using Vec = std::vector<Count>;

std::string show(const Count* b, int n) {
    std::ostringstream os;
    os << "b=[";
    for (int i = 0; i < n; ++i) os << (i ? "," : "") << b[i];
    os << "]";
    return os.str();
}

// ---------------------------------------------------------------------------------------------
// Inputs: `count` vectors of n capacities, contiguous (aos[t * n + i]). Modes: uniform, many
// zeros, one dominant node, all equal, two levels (as vmcap_test.cpp), plus, when `large`, values
// around the 32-bit lane limit kBatchNarrowLimit, around 2^31, and up to the documented sum limit.
// ---------------------------------------------------------------------------------------------
Vec random_vectors(std::mt19937_64& rng, int n, std::size_t count, Count vmax, Count dominant_max, bool large) {
    auto uni = [&](Count lo, Count hi) { return std::uniform_int_distribution<Count>(lo, hi)(rng); };
    const Count limit = kBatchNarrowLimit;
    const Count top = (Count{1} << 59) / 16 - 1;  // n <= 16 values below this keep sum < 2^59
    Vec out(count * static_cast<std::size_t>(n));
    for (std::size_t t = 0; t < count; ++t) {
        Count* b = out.data() + t * n;
        const int mode = static_cast<int>(t % (large ? 9 : 5));
        switch (mode) {
            case 0:
                for (int i = 0; i < n; ++i) b[i] = uni(0, vmax);
                break;
            case 1:
                for (int i = 0; i < n; ++i) b[i] = uni(0, 1) ? 0 : uni(1, vmax);
                break;
            case 2:
                for (int i = 0; i < n; ++i) b[i] = uni(0, vmax);
                b[uni(0, n - 1)] = uni(std::min(dominant_max, 2 * vmax + 1), dominant_max);
                break;
            case 3: {
                const Count c = uni(0, vmax);
                for (int i = 0; i < n; ++i) b[i] = c;
                break;
            }
            case 4: {
                const Count lo = uni(0, vmax / 3), hi = uni(vmax / 2, vmax);
                for (int i = 0; i < n; ++i) b[i] = uni(0, 1) ? hi : lo;
                break;
            }
            case 5:  // just below / at / above the lane limit
                for (int i = 0; i < n; ++i) b[i] = limit + uni(-3, 1);
                break;
            case 6:  // around the int32 limit: 64-bit lanes, and int32 sums would overflow
                for (int i = 0; i < n; ++i) b[i] = (Count{1} << 31) + uni(-2, 2);
                break;
            case 7:  // anything up to the documented sum limit, one node possibly dominant
                for (int i = 0; i < n; ++i) b[i] = uni(0, top);
                if (uni(0, 1)) b[uni(0, n - 1)] = uni(0, 3);
                break;
            default:  // mostly small with one large node (a wide block among narrow ones)
                for (int i = 0; i < n; ++i) b[i] = uni(0, 1000);
                b[uni(0, n - 1)] = uni(limit - 1, Count{1} << 40);
                break;
        }
    }
    return out;
}

/**
 * Evaluates the vectors in SoA with `eval`, in chunks of the sizes 1, 7, 4097, 13, 512, 64, 3, ...
 * (cycled), each chunk at its own offset, with the SoA buffer and the output shifted by one
 * element from their allocation (unaligned for 16- and 32-byte vectors) and a stride that is not
 * a multiple of anything. Every output not written stays -1, so a missed lane is noticed.
 */
Vec evaluate_batched(const Vec& aos, int n, const std::function<void(const Count*, std::size_t, std::size_t, Count*)>& eval) {
    const std::size_t count = aos.size() / static_cast<std::size_t>(n);
    const std::size_t stride = count + 3;
    Vec soa_buf(static_cast<std::size_t>(n) * stride + 1, -7);
    Count* soa = soa_buf.data() + 1;
    transpose_to_soa(aos.data(), n, count, soa, stride);
    Vec out_buf(count + 1, -1);
    Count* out = out_buf.data() + 1;
    static constexpr std::size_t kSizes[] = {1, 7, 4097, 13, 512, 64, 3, 1000, 2, 65, 511, 31};
    std::size_t t0 = 0, c = 0;
    while (t0 < count) {
        const std::size_t len = std::min(kSizes[c++ % std::size(kSizes)], count - t0);
        eval(soa + t0, stride, len, out + t0);
        t0 += len;
    }
    return Vec(out, out + count);
}

using BatchFn = std::function<void(const Count*, std::size_t, std::size_t, Count*)>;

struct BatchCase {
    std::string host, guest;
    VmcapMethod method;
    BatchFn direct;  ///< the free vmcap_batch_* function of this row
    Count vmax;      ///< capacities of the oracle comparison (0..vmax)
    std::string variant = {};
};

void PrintTo(const BatchCase& c, std::ostream* os) {
    *os << c.host << "/" << c.guest << " " << c.variant;
}

constexpr std::size_t kOracleVectors = 10'000;

std::vector<BatchCase> batch_cases() {
    std::vector<BatchCase> c;
    for (const char* h : {"C4", "CQ3", "Q33", "K2,3", "K4", "K8", "2xK3"}) {
        const int n = parse_topology(h).size();
        c.push_back({h, "K1", VmcapMethod::K1,
                     [n](const Count* s, std::size_t st, std::size_t k, Count* o) { vmcap_batch_k1(s, st, k, n, o); }, n > 6 ? 3 : 6});
    }
    c.push_back({"C4", "K2", VmcapMethod::C4_K2, vmcap_batch_c4_k2, 8});
    for (const auto& mn : std::vector<std::pair<int, int>>{{1, 1}, {1, 3}, {2, 2}, {2, 3}, {3, 4}, {4, 4}}) {
        const int m = mn.first, n = mn.second;  // not a structured binding: Clang 14 cannot capture one
        c.push_back({cat({"K", std::to_string(m), ",", std::to_string(n)}), "K2", VmcapMethod::Kmn_K2,
                     [m, n](const Count* s, std::size_t st, std::size_t k, Count* o) { vmcap_batch_kmn_k2(s, st, k, m, n, o); },
                     m + n > 6 ? 4 : 6});
    }
    for (int n = 2; n <= 6; ++n)
        for (int k = 2; k <= n; ++k) {
            const VmcapMethod meth = n == 4 && k == 2 ? VmcapMethod::K4_K2 : n == 4 && k == 3 ? VmcapMethod::K4_K3 : VmcapMethod::Kn_Kk;
            c.push_back({cat({"K", std::to_string(n)}), cat({"K", std::to_string(k)}), meth,
                         [n, k](const Count* s, std::size_t st, std::size_t cnt, Count* o) { vmcap_batch_kn_kk(s, st, cnt, n, k, o); },
                         n <= 4 ? 8 : 6});
        }
    c.push_back({"K4", "K2", VmcapMethod::K4_K2, vmcap_batch_k4_k2, 10, "kernel"});
    c.push_back({"K4", "K3", VmcapMethod::K4_K3, vmcap_batch_k4_k3, 10, "kernel"});
    c.push_back({"K8", "K4", VmcapMethod::Kn_Kk,
                 [](const Count* s, std::size_t st, std::size_t k, Count* o) { vmcap_batch_kn_kk(s, st, k, 8, 4, o); }, 3});
    c.push_back({"Q33", "K2", VmcapMethod::Q33_K2, vmcap_batch_q33_k2, 4});
    c.push_back({"Q33", "C4", VmcapMethod::Q33_C4, vmcap_batch_q33_c4, 4});
    c.push_back({"CQ3", "C4", VmcapMethod::CQ3_C4, vmcap_batch_cq3_c4, 4});
    c.push_back({"CQ3", "K2", VmcapMethod::CQ3_K2, vmcap_batch_cq3_k2, 4});
    for (int n = 2; n <= 4; ++n)
        for (int k = 2; k <= n; ++k)
            c.push_back({cat({"2xK", std::to_string(n)}), cat({"K", std::to_string(k)}), VmcapMethod::TwoKn_Kk,
                         [n, k](const Count* s, std::size_t st, std::size_t cnt, Count* o) { vmcap_batch_2xkn_kk(s, st, cnt, n, k, o); },
                         n <= 3 ? 6 : 4});
    c.push_back({"2xK5", "K3", VmcapMethod::TwoKn_Kk,
                 [](const Count* s, std::size_t st, std::size_t k, Count* o) { vmcap_batch_2xkn_kk(s, st, k, 5, 3, o); }, 3});
    return c;
}

std::string batch_case_name(const testing::TestParamInfo<BatchCase>& info) {
    std::string s = info.param.host;
    s += "_";
    s += info.param.guest;
    if (!info.param.variant.empty()) {
        s += "_";
        s += info.param.variant;
    }
    for (char& ch : s)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return s;
}

class BatchClosedFormTest : public testing::TestWithParam<BatchCase> {};

TEST_P(BatchClosedFormTest, EqualsScalarAndOracleOnSmallValues) {
    const BatchCase& c = GetParam();
    const Topology host = parse_topology(c.host), guest = parse_topology(c.guest);
    const BatchEvaluator ev(host, guest);
    ASSERT_EQ(ev.method(), c.method) << ev.describe();
    const int n = host.size();
    std::mt19937_64 rng(777 + n * 13 + guest.size());
    const Vec aos = random_vectors(rng, n, kOracleVectors, c.vmax, n <= 6 ? 40 : 16, false);
    const Vec direct = evaluate_batched(aos, n, c.direct);
    const Vec batched = evaluate_batched(aos, n, std::cref(ev));
    Oracle oracle(ev.scalar().placements(), n);
    for (std::size_t t = 0; t < kOracleVectors; ++t) {
        const Count* b = aos.data() + t * n;
        const Count want = oracle(b);
        ASSERT_EQ(ev.scalar()(b), want) << show(b, n);
        ASSERT_EQ(direct[t], want) << show(b, n) << " vector " << t;
        ASSERT_EQ(batched[t], want) << show(b, n) << " vector " << t;
    }
}

TEST_P(BatchClosedFormTest, EqualsScalarOnLargeValuesAndExactOnSome) {
    const BatchCase& c = GetParam();
    const Topology host = parse_topology(c.host), guest = parse_topology(c.guest);
    const BatchEvaluator ev(host, guest);
    const int n = host.size();
    std::mt19937_64 rng(4242 + n * 7 + guest.size());
    const std::size_t count = 12'000;
    const Vec aos = random_vectors(rng, n, count, 1'000'000, 100'000'000, true);
    const Vec direct = evaluate_batched(aos, n, c.direct);
    const Vec batched = evaluate_batched(aos, n, std::cref(ev));
    for (std::size_t t = 0; t < count; ++t) {
        const Count* b = aos.data() + t * n;
        const Count want = ev.scalar()(b);
        ASSERT_EQ(direct[t], want) << show(b, n) << " vector " << t;
        ASSERT_EQ(batched[t], want) << show(b, n) << " vector " << t;
        // Independent check on a sample within the range vmcap_test.cpp compares with CBC
        // (capacities up to 2 x 10^6; the exact solver's time can grow with b on degenerate inputs).
        const bool exact_range = std::all_of(b, b + n, [](Count x) { return x <= 2'000'000; });
        if (exact_range && t % 7 == 0) {
            ASSERT_EQ(vmcap_exact(ev.scalar().placements(), n, b), want) << show(b, n);
        }
    }
}

// The fused path of per-node quotient tables (weighted_vmcap.h): byte capacities, 16-bit lanes,
// weights split into 32-bit halves. Every fixed-size form must give sum_t w_t x VMCAP_t exactly,
// at the byte range's ends (255 everywhere: the largest intermediates) and with weights beyond
// 2^32 (the high half's products); the other methods must decline without computing.
TEST_P(BatchClosedFormTest, WeightedBytesEqualTheScalarSum) {
    const BatchCase& c = GetParam();
    const Topology host = parse_topology(c.host), guest = parse_topology(c.guest);
    const BatchEvaluator ev(host, guest);
    const int n = host.size();
    const VmcapMethod m = ev.method();
    const bool fixed = m == VmcapMethod::C4_K2 || m == VmcapMethod::K4_K2 || m == VmcapMethod::K4_K3 || m == VmcapMethod::Q33_K2 ||
                       m == VmcapMethod::Q33_C4 || m == VmcapMethod::CQ3_C4 || m == VmcapMethod::CQ3_K2 ||
                       (m == VmcapMethod::TwoKn_Kk && ev.scalar().host_p() == 4 && guest.size() >= 2 && guest.size() <= 3);
    std::mt19937_64 rng(99 + n * 5 + guest.size());
    for (const std::size_t count :
         {std::size_t{0}, std::size_t{1}, std::size_t{255}, std::size_t{256}, std::size_t{257}, std::size_t{1000}}) {
        std::vector<std::vector<std::uint8_t>> col(n, std::vector<std::uint8_t>(count));
        std::vector<Score> w(count);
        for (std::size_t t = 0; t < count; ++t) {
            const unsigned kind = static_cast<unsigned>(rng() % 4);  // all 255, all 0, small, any byte
            for (int i = 0; i < n; ++i)
                col[i][t] = static_cast<std::uint8_t>(kind == 0 ? 255 : kind == 1 ? 0 : kind == 2 ? rng() % 4 : rng() % 256);
            w[t] = static_cast<Score>(rng() % (std::uint64_t{1} << (t % 2 == 0 ? 20 : 40)));
        }
        const std::uint8_t* rows[kMaxPNuma];
        for (int i = 0; i < n; ++i) rows[i] = col[i].data();
        Score got = -1;
        ASSERT_EQ(ev.weighted_bytes(rows, w.data(), count, got), fixed) << ev.describe();
        if (!fixed) {
            EXPECT_EQ(got, -1) << "declined, yet wrote a sum";
            continue;
        }
        Score want = 0;
        for (std::size_t t = 0; t < count; ++t) {
            Count b[kMaxPNuma];
            for (int i = 0; i < n; ++i) b[i] = col[i][t];
            want += w[t] * ev.scalar()(b);
        }
        ASSERT_EQ(got, want) << ev.describe() << ", " << count << " vectors";
    }
}

INSTANTIATE_TEST_SUITE_P(TableI, BatchClosedFormTest, testing::ValuesIn(batch_cases()), batch_case_name);

// The network gives the t largest of n values in order at positions n-t..n-1 for all inputs iff
// it does for all 0-1 inputs (0-1 principle, Knuth TAOCP 5.3.4, exercise 36 generalised to
// selection: a comparator network commutes with every monotone map, and for each threshold the
// top positions then hold exactly the ones). So checking all 2^n 0-1 inputs proves it.
TEST(TopSelectionNetwork, ZeroOnePrincipleForEveryNAndT) {
    for (int n = 1; n <= kMaxPNuma; ++n)
        for (int t = 0; t <= n; ++t) {
            const std::vector<Comparator> net = top_selection_network(n, t);
            for (unsigned x = 0; x < (1U << n); ++x) {
                unsigned y = x;
                for (const Comparator& c : net) {
                    const unsigned lo = (y >> c.lo) & 1U, hi = (y >> c.hi) & 1U;
                    if (lo > hi) y ^= (1U << c.lo) | (1U << c.hi);  // exchange
                }
                // Sorted: ones occupy the top popcount(x) positions; check only the top t positions.
                const int ones = std::popcount(x);
                for (int p = n - t; p < n; ++p) {
                    const unsigned want = p >= n - ones ? 1U : 0U;
                    ASSERT_EQ((y >> p) & 1U, want) << "n=" << n << " t=" << t << " input " << x << " position " << p;
                }
            }
        }
    // Full sorting networks of Batcher's size (4 and 8 inputs: 5 and 19; 16: 63 comparators).
    EXPECT_EQ(top_selection_network(4, 4).size(), 5U);
    EXPECT_EQ(top_selection_network(8, 8).size(), 19U);
    EXPECT_EQ(top_selection_network(16, 16).size(), 63U);
    EXPECT_TRUE(top_selection_network(9, 0).empty());
}

// Branch-free batched Kn/Kk (min over r with the network) equals the recursive scalar form and
// the min-over-r form computed here by sorting, for every 1 <= k <= n <= 16, small and large values.
TEST(BatchKnKk, EqualsRecursiveAndSortedFormsForEveryNAndK) {
    std::mt19937_64 rng(31);
    for (int n = 1; n <= kMaxPNuma; ++n)
        for (int k = 1; k <= n; ++k) {
            const std::size_t count = 2'000;
            Vec aos = random_vectors(rng, n, count / 2, 40, 1'000, false);
            const Vec large = random_vectors(rng, n, count / 2, 1'000'000, 100'000'000, true);
            aos.insert(aos.end(), large.begin(), large.end());
            const Vec free_fn = evaluate_batched(
                aos, n, [n, k](const Count* s, std::size_t st, std::size_t c, Count* o) { vmcap_batch_kn_kk(s, st, c, n, k, o); });
            Vec via_eval;  // guests are limited to kMaxVNuma nodes
            if (k <= kMaxVNuma) {
                const BatchEvaluator ev(parse_topology(cat({"K", std::to_string(n)})), parse_topology(cat({"K", std::to_string(k)})));
                via_eval = evaluate_batched(aos, n, std::cref(ev));
            }
            for (std::size_t t = 0; t < count; ++t) {
                const Count* b = aos.data() + t * n;
                Vec s(b, b + n);
                std::sort(s.rbegin(), s.rend());
                Count total = std::accumulate(s.begin(), s.end(), Count{0}), want = total / k;
                for (int r = 1; r < k; ++r) {
                    total -= s[r - 1];
                    want = std::min(want, total / (k - r));
                }
                ASSERT_EQ(vmcap_kn_kk(b, n, k), want) << "n=" << n << " k=" << k << " " << show(b, n);
                ASSERT_EQ(free_fn[t], want) << "n=" << n << " k=" << k << " " << show(b, n);
                if (k <= kMaxVNuma) {
                    ASSERT_EQ(via_eval[t], want) << "n=" << n << " k=" << k << " " << show(b, n);
                }
            }
        }
    // k > n: no placement.
    const Count b[3] = {5, 5, 5};
    Count out[1] = {-1};
    vmcap_batch_kn_kk(b, 1, 1, 3, 4, out);
    EXPECT_EQ(out[0], 0);
}

TEST(BatchTwoKnKk, EqualsScalarForEverySocketSize) {
    std::mt19937_64 rng(32);
    for (int n = 1; n <= 8; ++n)
        for (int k = 1; k <= n; ++k) {
            const Vec aos = random_vectors(rng, 2 * n, 3'000, 1'000'000, 100'000'000, true);
            const Vec got = evaluate_batched(
                aos, 2 * n, [n, k](const Count* s, std::size_t st, std::size_t c, Count* o) { vmcap_batch_2xkn_kk(s, st, c, n, k, o); });
            for (std::size_t t = 0; t < got.size(); ++t) {
                const Count* b = aos.data() + t * 2 * n;
                ASSERT_EQ(got[t], vmcap_2xkn_kk(b, n, k)) << "n=" << n << " k=" << k << " " << show(b, 2 * n);
            }
        }
}

// Pairs without a closed form go through the exact fallback per vector; same answers as the
// scalar evaluator (and the oracle).
TEST(BatchEvaluator, ExactFallbackEqualsScalarAndOracle) {
    const std::pair<const char*, const char*> pairs[] = {{"Q3", "K2"}, {"Q3", "C4"}, {"K5", "C4"}, {"CQ3", "K4"}, {"K2", "K3"}};
    std::mt19937_64 rng(33);
    for (const auto& [h, g] : pairs) {
        const BatchEvaluator ev(parse_topology(h), parse_topology(g));
        ASSERT_FALSE(ev.is_closed_form()) << h << "/" << g;
        EXPECT_EQ(ev.describe().rfind("batched exact fallback", 0), 0U) << ev.describe();
        const int n = ev.host_nodes();
        const Vec aos = random_vectors(rng, n, 2'000, 4, 16, false);
        const Vec got = evaluate_batched(aos, n, std::cref(ev));
        Oracle oracle(ev.scalar().placements(), n);
        for (std::size_t t = 0; t < got.size(); ++t) {
            const Count* b = aos.data() + t * n;
            ASSERT_EQ(got[t], oracle(b)) << h << "/" << g << " " << show(b, n);
        }
    }
}

TEST(BatchEvaluator, EdgeBatches) {
    const BatchEvaluator ev(parse_topology("CQ3"), parse_topology("K2"));
    // count 0 writes nothing.
    Count out[2] = {-1, -1};
    ev(nullptr, 0, 0, out);
    EXPECT_EQ(out[0], -1);
    // All zeros, all equal at the lane limit - 1 (32-bit) and at the limit (64-bit).
    for (Count v : {Count{0}, kBatchNarrowLimit - 1, kBatchNarrowLimit, Count{1} << 31}) {
        std::vector<Count> soa(8 * 5, v);
        std::vector<Count> o(5, -1);
        ev(soa.data(), 5, 5, o.data());
        for (Count x : o) EXPECT_EQ(x, 4 * v) << "v=" << v;  // all equal: O = E = 4v, d = 0
    }
}

// CapacityVectors::compute_batch (SoA over hosts) equals compute() host by host, on amounts
// below 2^31 (32-bit path) and blocks with larger amounts (exact 128-bit path), odd counts.
TEST(CapacityVectorsBatch, EqualsComputePerHost) {
    std::mt19937_64 rng(34);
    const int R = 3;
    const Amount demand[] = {2, 4096, 1, 4, 16384, 0, 8, 28672, 2, 4, 8192, 1, 6, 24576, 2, 3, 5, 7};  // 6 flavors x 3
    const CapacityVectors cv(demand, 6, R);
    for (int nodes : {1, 4, 8, 16})
        for (std::size_t count : {std::size_t{1}, std::size_t{7}, std::size_t{300}, std::size_t{1031}}) {
            const std::size_t rows = static_cast<std::size_t>(nodes) * R;
            std::vector<Amount> aos(count * rows);
            for (std::size_t t = 0; t < count; ++t)
                for (std::size_t j = 0; j < rows; ++j) {
                    const bool huge = t % 97 == 5;  // a few hosts force their block onto the 64-bit path
                    aos[t * rows + j] = std::uniform_int_distribution<Amount>(0, huge ? (Amount{1} << 62) : 70'000)(rng);
                }
            const std::size_t fs = count + 5, bs = count + 2;
            std::vector<Amount> soa(rows * fs + 1, 0);
            for (std::size_t t = 0; t < count; ++t)
                for (std::size_t j = 0; j < rows; ++j) soa[1 + j * fs + t] = aos[t * rows + j];
            std::vector<Count> got(6 * static_cast<std::size_t>(nodes) * bs + 1, -1);
            cv.compute_batch(soa.data() + 1, fs, count, nodes, got.data() + 1, bs);
            std::vector<Count> want(6 * static_cast<std::size_t>(nodes));
            for (std::size_t t = 0; t < count; ++t) {
                cv.compute(aos.data() + t * rows, nodes, want.data());
                for (int f = 0; f < 6; ++f)
                    for (int i = 0; i < nodes; ++i)
                        ASSERT_EQ(got[1 + (static_cast<std::size_t>(f) * nodes + i) * bs + t],
                                  want[static_cast<std::size_t>(f) * nodes + i])
                            << "nodes=" << nodes << " count=" << count << " host " << t << " flavor " << f << " node " << i;
            }
        }
}

}  // namespace
}  // namespace vmcap

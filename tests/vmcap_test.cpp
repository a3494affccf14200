// Tests of evaluators/closed_forms/vmcap.h (closed forms of vmcap-formulas.md, exact fallback, evaluator method
// selection) and evaluators/closed_forms/vmcap_milp.h. Ground truth comes from two sources that share no code
// with the evaluators: an exhaustive memoised search written here (small capacities), and the CBC
// MILP solver (large capacities). The placement lists fed to both are themselves checked against
// a brute force over all node subsets and all guest-vertex permutations.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <functional>
#include <initializer_list>
#include <numeric>
#include <ostream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "evaluators/closed_forms/placements.h"
#include "evaluators/closed_forms/vmcap.h"
#include "evaluators/closed_forms/vmcap_milp.h"
#include "instances/problem.h"
#include "instances/topology.h"

#include "tests/oracle.h"

namespace vmcap {
namespace {

using test::cat;
using test::Oracle;

using Vec = std::vector<Count>;

std::string show(const Vec& b) {
    std::ostringstream os;
    os << "b=[";
    for (std::size_t i = 0; i < b.size(); ++i) os << (i ? "," : "") << b[i];
    os << "]";
    return os.str();
}

std::vector<NodeMask> masks_of(const std::vector<Embedding>& es) {
    std::vector<NodeMask> out;
    for (const Embedding& e : es) out.push_back(e.mask);
    return out;
}

// ---------------------------------------------------------------------------------------------
// Capacity vectors: uniform, many zeros, one dominant node, all equal, two levels.
// ---------------------------------------------------------------------------------------------
Vec random_b(std::mt19937_64& rng, int n, Count vmax, int mode, Count dominant_max) {
    auto uni = [&](Count lo, Count hi) { return std::uniform_int_distribution<Count>(lo, hi)(rng); };
    Vec b(n);
    switch (mode % 5) {
        case 0:
            for (auto& x : b) x = uni(0, vmax);
            break;
        case 1:
            for (auto& x : b) x = uni(0, 1) ? 0 : uni(1, vmax);
            break;
        case 2: {
            for (auto& x : b) x = uni(0, vmax);
            b[uni(0, n - 1)] = uni(std::min(dominant_max, 2 * vmax + 1), dominant_max);
            break;
        }
        case 3: {
            const Count c = uni(0, vmax);
            for (auto& x : b) x = c;
            break;
        }
        default: {
            const Count lo = uni(0, vmax / 3), hi = uni(vmax / 2, vmax);
            for (auto& x : b) x = uni(0, 1) ? hi : lo;
            break;
        }
    }
    return b;
}

/**
 * Largest "dominant node" capacity in oracle comparisons: the oracle's memo holds up to
 * prod_i (b_i + 1) states per vector, so 8-node hosts get a smaller dominant node.
 */
Count oracle_dominant_max(int n) {
    return n <= 6 ? 40 : 16;
}

Topology explicit_topology(int n, const std::vector<std::pair<int, int>>& e) {
    return topology_from_edges(n, e);
}

Topology guest_p3() {
    return explicit_topology(3, {{1, 2}, {2, 3}});
}
Topology guest_star3() {
    return explicit_topology(4, {{1, 2}, {1, 3}, {1, 4}});
}

/** Random connected, non-complete graph on n nodes with edge probability p (1-based edges). */
Topology random_connected(std::mt19937_64& rng, int n, double p) {
    std::bernoulli_distribution coin(p);
    for (;;) {
        std::vector<std::pair<int, int>> e;
        for (int a = 1; a <= n; ++a)
            for (int c = a + 1; c <= n; ++c)
                if (coin(rng)) e.emplace_back(a, c);
        Topology t = topology_from_edges(n, e);
        if (t.kind == TopologyKind::Explicit && t.graph.is_connected()) return t;
    }
}

// ---------------------------------------------------------------------------------------------
// enumerate_embeddings vs a brute force over all k-subsets and all bijections guest -> subset.
// ---------------------------------------------------------------------------------------------
std::vector<NodeMask> brute_force_masks(const Graph& host, const Graph& guest) {
    std::vector<NodeMask> out;
    const int k = guest.n;
    for (unsigned mask = 0; mask < (1U << host.n); ++mask) {
        if (std::popcount(mask) != k) continue;
        std::vector<int> nodes;
        for (int i = 0; i < host.n; ++i)
            if ((mask >> i) & 1U) nodes.push_back(i);
        bool any = false;
        do {
            bool ok = true;
            for (int u = 0; u < k && ok; ++u)
                for (int v = u + 1; v < k && ok; ++v)
                    if (guest.has_edge(u, v) && !host.has_edge(nodes[u], nodes[v])) ok = false;
            any = ok;
        } while (!any && std::next_permutation(nodes.begin(), nodes.end()));
        if (any) out.push_back(static_cast<NodeMask>(mask));
    }
    return out;
}

TEST(EnumerateEmbeddings, MatchesBruteForceOverSubsetsAndPermutations) {
    std::mt19937_64 rng(7);
    std::vector<std::pair<Topology, Topology>> pairs = {
        {parse_topology("Q3"), parse_topology("K2")},
        {parse_topology("Q3"), parse_topology("C4")},
        {parse_topology("Q3"), guest_star3()},
        {parse_topology("CQ3"), parse_topology("K2")},
        {parse_topology("CQ3"), parse_topology("K3")},
        {parse_topology("CQ3"), parse_topology("C4")},
        {parse_topology("CQ3"), guest_p3()},
        {parse_topology("Q33"), parse_topology("C4")},
        {parse_topology("K5"), parse_topology("K3")},
        {parse_topology("K6"), parse_topology("C4")},
        {parse_topology("2xK4"), parse_topology("C4")},
        {parse_topology("K3,4"), parse_topology("C4")},
        {parse_topology("C4"), parse_topology("K3")},
    };
    for (int t = 0; t < 4; ++t) pairs.emplace_back(random_connected(rng, 7, 0.5), parse_topology("K3"));
    for (const auto& [host, guest] : pairs) {
        SCOPED_TRACE(host.name + " / " + guest.name);
        const auto es = enumerate_embeddings(host.graph, guest.graph);
        EXPECT_EQ(masks_of(es), brute_force_masks(host.graph, guest.graph));
        for (const Embedding& e : es) {
            std::vector<int> map(e.map.begin(), e.map.begin() + guest.size());
            EXPECT_TRUE(is_valid_mapping(host.graph, guest.graph, map));
            unsigned image = 0;
            for (int p : map) image |= 1U << p;
            EXPECT_EQ(image, e.mask);
        }
    }
    // Counts that follow from the graphs alone: K2 placements are edges; Q3 has 6 square faces;
    // CQ3 has the four 4-cycles of vmcap-formulas.md and no triangle (every node has degree 3
    // and no two neighbours of a node are adjacent).
    EXPECT_EQ(enumerate_embeddings(parse_topology("Q3").graph, parse_topology("K2").graph).size(), 12U);
    EXPECT_EQ(enumerate_embeddings(parse_topology("Q3").graph, parse_topology("C4").graph).size(), 6U);
    EXPECT_EQ(masks_of(enumerate_embeddings(parse_topology("CQ3").graph, parse_topology("C4").graph)),
              (std::vector<NodeMask>{0x0F, 0x3C, 0xC3, 0xF0}));
}

// ---------------------------------------------------------------------------------------------
// Pair table: every row of vmcap-formulas.md (with several sizes where the row is a family).
// ---------------------------------------------------------------------------------------------
struct ClosedFormCase {
    std::string host, guest;
    VmcapMethod method;
    std::function<Count(const Count*)> direct;  // the free function of vmcap.h for this row
    Count vmax;                                 // capacities for the oracle comparison (0..vmax)
    int cases;                                  // vectors compared with the oracle
    std::string variant = {};                   // distinguishes rows testing another function
};

/** Names the row in gtest messages instead of a byte dump. */
void PrintTo(const ClosedFormCase& c, std::ostream* os) {
    *os << c.host << "/" << c.guest << " " << c.variant;
}

/** Random capacity vectors compared with the exhaustive oracle, per pair (closed forms and fallback). */
constexpr int kOracleCases = 10'000;

std::vector<ClosedFormCase> closed_form_cases() {
    std::vector<ClosedFormCase> c;
    for (const char* h : {"C4", "CQ3", "Q3", "Q33", "2xK3", "K2,3"}) {
        const int n = parse_topology(h).size();
        c.push_back({h, "K1", VmcapMethod::K1, [n](const Count* b) { return vmcap_k1(b, n); }, n > 6 ? 3 : 6, kOracleCases});
    }
    c.push_back({"C4", "K2", VmcapMethod::C4_K2, [](const Count* b) { return vmcap_c4_k2(b); }, 8, kOracleCases});
    for (const auto& mn : std::vector<std::pair<int, int>>{{1, 1}, {1, 3}, {2, 2}, {2, 3}, {3, 4}, {4, 4}}) {
        const int m = mn.first, n = mn.second;  // not a structured binding: Clang 14 cannot capture one
        c.push_back({cat({"K", std::to_string(m), ",", std::to_string(n)}), "K2", VmcapMethod::Kmn_K2,
                     [m, n](const Count* b) { return vmcap_kmn_k2(b, m, n); }, m + n > 6 ? 4 : 6, kOracleCases});
    }
    for (int n = 1; n <= 6; ++n)
        for (int k = 1; k <= n; ++k) {
            VmcapMethod meth = k == 1             ? VmcapMethod::K1
                               : n == 4 && k == 2 ? VmcapMethod::K4_K2
                               : n == 4 && k == 3 ? VmcapMethod::K4_K3
                                                  : VmcapMethod::Kn_Kk;
            c.push_back({cat({"K", std::to_string(n)}), cat({"K", std::to_string(k)}), meth,
                         [n, k](const Count* b) { return vmcap_kn_kk(b, n, k); }, n <= 4 ? 8 : 6, kOracleCases,
                         n == 4 && (k == 2 || k == 3) ? "generic" : ""});
        }
    c.push_back({"K4", "K2", VmcapMethod::K4_K2, [](const Count* b) { return vmcap_k4_k2(b); }, 10, kOracleCases});
    c.push_back({"K4", "K3", VmcapMethod::K4_K3, [](const Count* b) { return vmcap_k4_k3(b); }, 10, kOracleCases});
    c.push_back({"K8", "K4", VmcapMethod::Kn_Kk, [](const Count* b) { return vmcap_kn_kk(b, 8, 4); }, 3, kOracleCases});
    c.push_back({"Q33", "K2", VmcapMethod::Q33_K2, [](const Count* b) { return vmcap_q33_k2(b); }, 4, kOracleCases});
    c.push_back({"Q33", "C4", VmcapMethod::Q33_C4, [](const Count* b) { return vmcap_q33_c4(b); }, 4, kOracleCases});
    c.push_back({"CQ3", "C4", VmcapMethod::CQ3_C4, [](const Count* b) { return vmcap_cq3_c4(b); }, 4, kOracleCases});
    c.push_back({"CQ3", "K2", VmcapMethod::CQ3_K2, [](const Count* b) { return vmcap_cq3_k2(b); }, 4, kOracleCases});
    for (int n = 2; n <= 4; ++n)
        for (int k = 2; k <= n; ++k)
            c.push_back({cat({"2xK", std::to_string(n)}), cat({"K", std::to_string(k)}), VmcapMethod::TwoKn_Kk,
                         [n, k](const Count* b) { return vmcap_2xkn_kk(b, n, k); }, n <= 3 ? 6 : 4, kOracleCases});
    c.push_back({"2xK5", "K3", VmcapMethod::TwoKn_Kk, [](const Count* b) { return vmcap_2xkn_kk(b, 5, 3); }, 3, kOracleCases});
    return c;
}

std::string closed_form_case_name(const testing::TestParamInfo<ClosedFormCase>& info) {
    std::string s = info.param.host + "_" + info.param.guest;
    if (!info.param.variant.empty()) s += "_" + info.param.variant;
    for (char& ch : s)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return s;
}

class ClosedFormTest : public testing::TestWithParam<ClosedFormCase> {};

TEST_P(ClosedFormTest, SelectedByEvaluatorAndMatchesOracle) {
    const ClosedFormCase& c = GetParam();
    const Topology host = parse_topology(c.host), guest = parse_topology(c.guest);
    const VmcapEvaluator ev(host, guest);
    EXPECT_EQ(ev.method(), c.method) << ev.describe();
    EXPECT_TRUE(ev.is_closed_form());
    EXPECT_EQ(ev.describe().rfind("closed form", 0), 0U) << ev.describe();
    EXPECT_EQ(masks_of(ev.placements()), masks_of(enumerate_embeddings(host.graph, guest.graph)));
    Oracle oracle(masks_of(ev.placements()), host.size());
    std::mt19937_64 rng(1234 + host.size() * 17 + guest.size());
    for (int t = 0; t < c.cases && !HasFailure(); ++t) {
        const Vec b = random_b(rng, host.size(), c.vmax, t, oracle_dominant_max(host.size()));
        SCOPED_TRACE(show(b));
        const Count want = oracle(b);
        EXPECT_EQ(c.direct(b.data()), want);
        EXPECT_EQ(ev(b.data()), want);
    }
}

TEST_P(ClosedFormTest, MatchesCbcAndExactOnLargeValues) {
    const ClosedFormCase& c = GetParam();
    const Topology host = parse_topology(c.host), guest = parse_topology(c.guest);
    const VmcapEvaluator ev(host, guest);
    std::mt19937_64 rng(99 + host.size() * 31 + guest.size());
    const int cbc_cases = guest.size() == 1 ? 20 : 200;
    for (int t = 0; t < 600 && !HasFailure(); ++t) {
        // Mostly up to 10^6; every third vector mixes one huge node with small ones.
        const Count vmax = t % 3 == 2 ? 50 : 1'000'000;
        const Vec b = random_b(rng, host.size(), vmax, t, 2'000'000);
        SCOPED_TRACE(show(b));
        const Count got = ev(b.data());
        EXPECT_EQ(c.direct(b.data()), got);
        EXPECT_EQ(vmcap_exact(ev.placements(), host.size(), b.data()), got);
        if (t < cbc_cases) {
            EXPECT_EQ(vmcap_cbc(ev.placements(), host.size(), b.data()), got);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(TableI, ClosedFormTest, testing::ValuesIn(closed_form_cases()), closed_form_case_name);

// Kn/Kk for every k <= n <= 16 on large values: the drop loop, the k == 1 and k == n special
// cases, the unrolled n = 4 and n = 8 paths and the K4 specialisations, against the min-over-r
// form of Table I (computed here by sorting and dividing).
TEST(ClosedForm, KnKkRecursiveFormEqualsMinOverR) {
    std::mt19937_64 rng(5);
    for (int n = 1; n <= 16; ++n)
        for (int k = 1; k <= n; ++k)
            for (int t = 0; t < 200; ++t) {
                // Every fourth vector near the documented limit (sum < 2^59) exercises the
                // reciprocal-multiply division.
                const Count vmax = t % 4 == 3 ? (Count{1} << 54) : 1'000'000;
                const Vec b = random_b(rng, n, vmax, t, t % 4 == 3 ? (Count{1} << 55) : 100'000'000);
                SCOPED_TRACE("n=" + std::to_string(n) + " k=" + std::to_string(k) + " " + show(b));
                Vec s = b;
                std::sort(s.rbegin(), s.rend());
                Count total = std::accumulate(s.begin(), s.end(), Count{0}), want = total / k;
                for (int r = 1; r < k; ++r) {
                    total -= s[r - 1];
                    want = std::min(want, total / (k - r));
                }
                ASSERT_EQ(vmcap_kn_kk(b.data(), n, k), want);
                if (n == 4 && k == 2) {
                    ASSERT_EQ(vmcap_k4_k2(b.data()), want);
                }
                if (n == 4 && k == 3) {
                    ASSERT_EQ(vmcap_k4_k3(b.data()), want);
                }
            }
}

// ---------------------------------------------------------------------------------------------
// Pairs without a closed form: the exact fallback.
// ---------------------------------------------------------------------------------------------
struct ExactCase {
    std::string name;
    Topology host, guest;
    Count vmax;
    int cases;
};

void PrintTo(const ExactCase& c, std::ostream* os) {
    *os << c.name;
}

std::vector<ExactCase> exact_cases() {
    std::vector<ExactCase> c = {
        {"Q3_K2", parse_topology("Q3"), parse_topology("K2"), 4, kOracleCases},
        {"Q3_C4", parse_topology("Q3"), parse_topology("C4"), 4, kOracleCases},
        {"Q3_Star3", parse_topology("Q3"), guest_star3(), 4, kOracleCases},
        {"CQ3_K3", parse_topology("CQ3"), parse_topology("K3"), 6, kOracleCases},
        {"CQ3_K4", parse_topology("CQ3"), parse_topology("K4"), 6, kOracleCases},
        {"CQ3_P3", parse_topology("CQ3"), guest_p3(), 4, kOracleCases},
        {"2xK4_C4", parse_topology("2xK4"), parse_topology("C4"), 4, kOracleCases},
        {"K5_C4", parse_topology("K5"), parse_topology("C4"), 6, kOracleCases},
        {"Q33_K3", parse_topology("Q33"), parse_topology("K3"), 6, kOracleCases},
        {"K2_3_C4", parse_topology("K2,3"), parse_topology("C4"), 6, kOracleCases},
    };
    std::mt19937_64 rng(2024);
    for (int t = 0; t < 6; ++t) {
        const int n = 5 + t % 4;
        c.push_back({cat({"Random", std::to_string(n), "_K2_", std::to_string(t)}), random_connected(rng, n, 0.45), parse_topology("K2"),
                     n <= 6 ? 6 : 4, kOracleCases});
        c.push_back({cat({"Random", std::to_string(n), "_K3_", std::to_string(t)}), random_connected(rng, n, 0.7), parse_topology("K3"),
                     n <= 6 ? 6 : 4, kOracleCases});
    }
    // Three triangles hanging off a centre: the LP bound exceeds the optimum (odd components).
    c.push_back({"TriangleStar_K2",
                 explicit_topology(10, {{1, 2}, {1, 5}, {1, 8}, {2, 3}, {3, 4}, {2, 4}, {5, 6}, {6, 7}, {5, 7}, {8, 9}, {9, 10}, {8, 10}}),
                 parse_topology("K2"), 2, kOracleCases});
    return c;
}

std::string exact_name(const testing::TestParamInfo<ExactCase>& info) {
    return info.param.name;
}

class ExactTest : public testing::TestWithParam<ExactCase> {};

TEST_P(ExactTest, EvaluatorUsesExactAndMatchesOracle) {
    const ExactCase& c = GetParam();
    const VmcapEvaluator ev(c.host, c.guest);
    EXPECT_EQ(ev.method(), VmcapMethod::Exact) << ev.describe();
    EXPECT_FALSE(ev.is_closed_form());
    EXPECT_EQ(ev.describe().rfind("exact", 0), 0U) << ev.describe();
    Oracle oracle(masks_of(ev.placements()), c.host.size());
    std::mt19937_64 rng(77 + c.host.size());
    for (int t = 0; t < c.cases && !HasFailure(); ++t) {
        const Vec b = random_b(rng, c.host.size(), c.vmax, t, oracle_dominant_max(c.host.size()));
        SCOPED_TRACE(show(b));
        const Count want = oracle(b);
        EXPECT_EQ(vmcap_exact(ev.placements(), c.host.size(), b.data()), want);
        EXPECT_EQ(ev(b.data()), want);
    }
}

TEST_P(ExactTest, MatchesCbcUpTo60) {
    const ExactCase& c = GetParam();
    const VmcapEvaluator ev(c.host, c.guest);
    std::mt19937_64 rng(31 + c.host.size());
    for (int t = 0; t < 60 && !HasFailure(); ++t) {
        const Vec b = random_b(rng, c.host.size(), 60, t, 500);
        SCOPED_TRACE(show(b));
        EXPECT_EQ(vmcap_exact(ev.placements(), c.host.size(), b.data()), vmcap_cbc(ev.placements(), c.host.size(), b.data()));
    }
}

INSTANTIATE_TEST_SUITE_P(NoClosedForm, ExactTest, testing::ValuesIn(exact_cases()), exact_name);

TEST(VmcapExact, LargeHostsMatchCbc) {
    std::mt19937_64 rng(11);
    for (int g = 0; g < 6; ++g) {
        const int n = 11 + g;
        const Topology host = random_connected(rng, n, 0.35);
        for (const char* gname : {"K2", "K3", "C4"}) {
            const Topology guest = parse_topology(gname);
            const auto pl = enumerate_embeddings(host.graph, guest.graph);
            for (int t = 0; t < 8 && !HasFailure(); ++t) {
                const Vec b = random_b(rng, n, 60, t, 1000);
                SCOPED_TRACE("n=" + std::to_string(n) + " guest=" + gname + " " + show(b));
                EXPECT_EQ(vmcap_exact(pl, n, b.data()), vmcap_cbc(pl, n, b.data()));
            }
        }
    }
}

// Duplicate placements, strict supersets and nodes outside the host must not change the value.
TEST(VmcapExact, IgnoresDuplicatesSupersetsAndForeignNodes) {
    const Topology host = parse_topology("Q3");
    const auto pl = enumerate_embeddings(host.graph, parse_topology("K2").graph);
    std::vector<Embedding> noisy = pl;
    noisy.insert(noisy.end(), pl.begin(), pl.end());
    noisy.push_back(Embedding{0x07, {}});   // superset of edge {0,1}
    noisy.push_back(Embedding{0x100, {}});  // node 8 is not in an 8-node host
    Oracle oracle(masks_of(pl), 8);
    std::mt19937_64 rng(3);
    for (int t = 0; t < 300 && !HasFailure(); ++t) {
        const Vec b = random_b(rng, 8, 6, t, 20);
        SCOPED_TRACE(show(b));
        EXPECT_EQ(vmcap_exact(noisy, 8, b.data()), oracle(b));
    }
}

// ---------------------------------------------------------------------------------------------
// Evaluator selection table and edge cases.
// ---------------------------------------------------------------------------------------------
TEST(VmcapEvaluator, MethodSelection) {
    struct Row {
        Topology host, guest;
        VmcapMethod want;
    };
    const std::vector<Row> rows = {
        {parse_topology("Q3"), parse_topology("K1"), VmcapMethod::K1},
        {parse_topology("C4"), parse_topology("K2"), VmcapMethod::C4_K2},
        {parse_topology("C4"), parse_topology("C4"), VmcapMethod::Exact},
        {parse_topology("K3,5"), parse_topology("K2"), VmcapMethod::Kmn_K2},
        {parse_topology("K3,5"), parse_topology("C4"), VmcapMethod::Exact},
        {parse_topology("K4"), parse_topology("K2"), VmcapMethod::K4_K2},
        {parse_topology("K4"), parse_topology("K3"), VmcapMethod::K4_K3},
        {parse_topology("K4"), parse_topology("K4"), VmcapMethod::Kn_Kk},
        {parse_topology("K4"), parse_topology("C4"), VmcapMethod::Exact},
        {parse_topology("K16"), parse_topology("K8"), VmcapMethod::Kn_Kk},
        {parse_topology("K4"), parse_topology("K5"), VmcapMethod::Exact},
        {parse_topology("Q33"), parse_topology("K2"), VmcapMethod::Q33_K2},
        {parse_topology("Q33"), parse_topology("C4"), VmcapMethod::Q33_C4},
        {parse_topology("Q33"), parse_topology("K3"), VmcapMethod::Exact},
        {parse_topology("CQ3"), parse_topology("K2"), VmcapMethod::CQ3_K2},
        {parse_topology("CQ3"), parse_topology("C4"), VmcapMethod::CQ3_C4},
        {parse_topology("CQ3"), guest_p3(), VmcapMethod::Exact},
        {parse_topology("Q3"), parse_topology("K2"), VmcapMethod::Exact},
        {parse_topology("2xK4"), parse_topology("K3"), VmcapMethod::TwoKn_Kk},
        {parse_topology("2xK4"), parse_topology("K4"), VmcapMethod::TwoKn_Kk},
        {parse_topology("2xK3"), parse_topology("K4"), VmcapMethod::Exact},
        {parse_topology("2xK4"), parse_topology("C4"), VmcapMethod::Exact},
        // Guests recognised from the graph: an explicit 4-cycle with another labelling, an explicit
        // triangle (returned as K3 by topology_from_edges).
        {parse_topology("CQ3"), explicit_topology(4, {{1, 3}, {3, 2}, {2, 4}, {4, 1}}), VmcapMethod::CQ3_C4},
        {parse_topology("K5"), explicit_topology(3, {{1, 2}, {2, 3}, {1, 3}}), VmcapMethod::Kn_Kk},
        {explicit_topology(4, {{1, 2}, {2, 3}, {3, 4}, {4, 1}, {1, 3}, {2, 4}}), parse_topology("K2"), VmcapMethod::K4_K2},
    };
    for (const Row& r : rows) {
        const VmcapEvaluator ev(r.host, r.guest);
        SCOPED_TRACE(r.host.name + " / " + r.guest.name + ": " + ev.describe());
        EXPECT_EQ(ev.method(), r.want);
        EXPECT_EQ(ev.is_closed_form(), r.want != VmcapMethod::Exact);
        EXPECT_EQ(ev.host_nodes(), r.host.size());
        EXPECT_EQ(ev.guest_nodes(), r.guest.size());
        EXPECT_EQ(masks_of(ev.placements()), brute_force_masks(r.host.graph, r.guest.graph));
    }
}

TEST(VmcapEvaluator, RejectsGuestsAboveMaxVNuma) {
    EXPECT_THROW(VmcapEvaluator(parse_topology("K16"), parse_topology("K9")), std::invalid_argument);
}

TEST(VmcapEdgeCases, AllZerosGiveZero) {
    const Vec zero(16, 0);
    for (const auto& c : closed_form_cases()) {
        SCOPED_TRACE(c.host + " / " + c.guest);
        const VmcapEvaluator ev(parse_topology(c.host), parse_topology(c.guest));
        EXPECT_EQ(ev(zero.data()), 0);
        EXPECT_EQ(vmcap_exact(ev.placements(), ev.host_nodes(), zero.data()), 0);
        EXPECT_EQ(vmcap_cbc(ev.placements(), ev.host_nodes(), zero.data()), 0);
    }
    for (const auto& c : exact_cases()) {
        SCOPED_TRACE(c.name);
        EXPECT_EQ(VmcapEvaluator(c.host, c.guest)(zero.data()), 0);
    }
}

TEST(VmcapEdgeCases, SingleNodeHostAndOversizedGuests) {
    const Count b1[1] = {7};
    EXPECT_EQ(VmcapEvaluator(parse_topology("K1"), parse_topology("K1"))(b1), 7);
    const VmcapEvaluator k1_k2(parse_topology("K1"), parse_topology("K2"));
    EXPECT_EQ(k1_k2.method(), VmcapMethod::Exact);
    EXPECT_TRUE(k1_k2.placements().empty());
    EXPECT_EQ(k1_k2(b1), 0);
    const Vec big(16, 1000);
    for (auto [h, g] : std::vector<std::pair<const char*, const char*>>{
             {"K4", "K5"}, {"C4", "K5"}, {"CQ3", "K8"}, {"2xK3", "K4"}, {"K2,2", "K3"}, {"Q3", "K4"}}) {
        SCOPED_TRACE(std::string(h) + " / " + g);
        const VmcapEvaluator ev(parse_topology(h), parse_topology(g));
        EXPECT_EQ(ev(big.data()), 0);
    }
}

// Values checked by hand (reasoning in the comments), then against every other method.
TEST(VmcapEdgeCases, HandWorkedExamples) {
    // K4/K2, b=(10,1,1,1): every copy uses one of nodes 2..4 (a copy on {1,x} or two of them),
    // whose total is 3, and {1,2},{1,3},{1,4} reach 3.
    const Count k4[4] = {10, 1, 1, 1};
    EXPECT_EQ(vmcap_k4_k2(k4), 3);
    // K4/K3, same b: each copy uses two of nodes 2..4 (total 3) -> at most 1; {1,2,3} works.
    EXPECT_EQ(vmcap_k4_k3(k4), 1);
    // C4/K2, b=(5,0,5,0): every edge of 1-2-3-4-1 touches node 2 or 4.
    const Count c4[4] = {5, 0, 5, 0};
    EXPECT_EQ(vmcap_c4_k2(c4), 0);
    // K<n>/K<n> is the minimum; K1 guests sum.
    const Count k5[5] = {4, 9, 3, 8, 6};
    EXPECT_EQ(vmcap_kn_kk(k5, 5, 5), 3);
    EXPECT_EQ(vmcap_k1(k5, 5), 30);
    // CQ3/C4 with all 2: two disjoint 4-cycles {1,2,3,4},{5,6,7,8} twice each give 4, and every
    // 4-cycle uses both nodes of two of the four rungs, so 4 copies use 16 = all slots.
    const Vec cq2(8, 2);
    EXPECT_EQ(vmcap_cq3_c4(cq2.data()), 4);
}

TEST(VmcapEdgeCases, WorkedExampleCq3K2AgreesEverywhere) {
    const Topology host = parse_topology("CQ3"), guest = parse_topology("K2");
    const VmcapEvaluator ev(host, guest);
    const Vec b = {3, 1, 4, 1, 5, 9, 2, 6};
    SCOPED_TRACE(show(b));
    Oracle oracle(masks_of(ev.placements()), 8);
    const Count want = oracle(b);
    // The one solver-free check: every copy uses two slots, so at most floor(31 / 2).
    EXPECT_LE(want, (3 + 1 + 4 + 1 + 5 + 9 + 2 + 6) / 2);
    EXPECT_EQ(vmcap_cq3_k2(b.data()), want);
    EXPECT_EQ(ev(b.data()), want);
    EXPECT_EQ(vmcap_exact(ev.placements(), 8, b.data()), want);
    EXPECT_EQ(vmcap_cbc(ev.placements(), 8, b.data()), want);
}

// An instance with an integrality gap: LP says 5, only 4 copies fit (removing the centre leaves
// three odd components, Tutte-Berge). Checked with capacity 1 by hand and scaled by the oracle.
TEST(VmcapEdgeCases, ExactClosesIntegralityGap) {
    const Topology host =
        explicit_topology(10, {{1, 2}, {1, 5}, {1, 8}, {2, 3}, {3, 4}, {2, 4}, {5, 6}, {6, 7}, {5, 7}, {8, 9}, {9, 10}, {8, 10}});
    const auto pl = enumerate_embeddings(host.graph, parse_topology("K2").graph);
    const Vec ones(10, 1);
    EXPECT_EQ(vmcap_exact(pl, 10, ones.data()), 4);
    Oracle oracle(masks_of(pl), 10);
    for (Count v : {1, 2, 3, 5, 9}) {
        const Vec b(10, v);
        SCOPED_TRACE(show(b));
        EXPECT_EQ(vmcap_exact(pl, 10, b.data()), oracle(b));
    }
}

// ---------------------------------------------------------------------------------------------
// Placement construction (evaluators/closed_forms/placements.h). Every solution is checked here without the
// library's help: total copies, distinct masks, the map is injective and inside the host, the mask
// is its image, every guest edge lands on a host edge, and no node is used more than b_i times.
// ---------------------------------------------------------------------------------------------

/** The first violation of `sol` as a solution with `want` copies, or "" if it is valid. */
std::string placement_violation(const Graph& host, const Graph& guest, const Vec& b, const std::vector<PlacementCount>& sol, Count want) {
    std::vector<Count> used(host.n, 0);
    Count total = 0;
    for (std::size_t j = 0; j < sol.size(); ++j) {
        const PlacementCount& pc = sol[j];
        const std::string at = "entry " + std::to_string(j) + ": ";
        if (pc.copies <= 0) return at + "copies <= 0";
        if (j > 0 && !(sol[j - 1].placement.mask < pc.placement.mask)) return at + "masks not strictly increasing";
        unsigned image = 0;
        for (int v = 0; v < guest.n; ++v) {
            const int p = pc.placement.map[v];
            if (p < 0 || p >= host.n) return at + "pNUMA node outside the host";
            if ((image >> p) & 1U) return at + "two vNUMA nodes on one pNUMA node";
            image |= 1U << p;
        }
        if (image != pc.placement.mask) return at + "mask is not the image of the map";
        for (int u = 0; u < guest.n; ++u)
            for (int v = u + 1; v < guest.n; ++v)
                if (guest.has_edge(u, v) && !host.has_edge(pc.placement.map[u], pc.placement.map[v]))
                    return at + "vNUMA edge not on a pNUMA edge";
        for (int i = 0; i < host.n; ++i)
            if ((image >> i) & 1U) used[i] += pc.copies;
        total += pc.copies;
    }
    for (int i = 0; i < host.n; ++i)
        if (used[i] > b[i]) return "node " + std::to_string(i + 1) + " used " + std::to_string(used[i]) + " > b=" + std::to_string(b[i]);
    if (total != want) return "total " + std::to_string(total) + " != " + std::to_string(want);
    return "";
}

/**
 * Vectors for placement checks: small values (mode mix of random_b: uniform, zeros, dominant
 * node, all equal, two levels), values up to 1000, values up to `large` with a dominant node up to
 * 10 x large, an all-zero vector and vectors with a single positive node (up to 10^6).
 */
Vec placement_vector(std::mt19937_64& rng, int n, int t, Count large = 1'000'000) {
    if (t % 97 == 0) return Vec(n, 0);
    if (t % 97 == 1) {
        Vec b(n, 0);
        b[std::uniform_int_distribution<int>(0, n - 1)(rng)] = std::uniform_int_distribution<Count>(1, 1'000'000)(rng);
        return b;
    }
    switch (t % 3) {
        case 0: return random_b(rng, n, 8, t / 3, 40);
        case 1: return random_b(rng, n, 1000, t / 3, 20'000);
        default: return random_b(rng, n, large, t / 3, 10 * large);
    }
}

/**
 * Largest values for the exact fallback's placement checks. Its branch and bound (like CBC) needs
 * time linear in b on LP-degenerate instances whose LP bound is not attained (see
 * VmcapExact.DegenerateLpFaceScalesWithValues), so the fallback is checked up to 10^4 here and
 * the closed forms up to 10^6.
 */
constexpr Count kExactLarge = 10'000;

TEST_P(ClosedFormTest, PlacementsAreValidAndReachVmcap) {
    const ClosedFormCase& c = GetParam();
    const Topology host = parse_topology(c.host), guest = parse_topology(c.guest);
    const VmcapEvaluator ev(host, guest);
    std::mt19937_64 rng(555 + host.size() * 13 + guest.size());
    for (int t = 0; t < 3000 && !HasFailure(); ++t) {
        const Vec b = placement_vector(rng, host.size(), t);
        SCOPED_TRACE(show(b));
        EXPECT_EQ(placement_violation(host.graph, guest.graph, b, vmcap_placements(ev, b.data()), ev(b.data())), "");
    }
}

TEST_P(ExactTest, PlacementsAreValidAndReachVmcap) {
    const ExactCase& c = GetParam();
    const VmcapEvaluator ev(c.host, c.guest);
    std::mt19937_64 rng(556 + c.host.size());
    for (int t = 0; t < 1500 && !HasFailure(); ++t) {
        const Vec b = placement_vector(rng, c.host.size(), t, kExactLarge);
        SCOPED_TRACE(show(b));
        const Count want = ev(b.data());
        EXPECT_EQ(placement_violation(c.host.graph, c.guest.graph, b, vmcap_placements(ev, b.data()), want), "");
        std::vector<PlacementCount> sol;
        EXPECT_EQ(vmcap_exact_placements(ev.placements(), c.host.size(), b.data(), sol), want);
        EXPECT_EQ(placement_violation(c.host.graph, c.guest.graph, b, sol, want), "");
    }
}

// The exact solver's solution on closed-form pairs too (its count is checked against the oracle
// and CBC above), including the small-value oracle range.
TEST_P(ClosedFormTest, ExactSolverSolutionIsValid) {
    const ClosedFormCase& c = GetParam();
    const Topology host = parse_topology(c.host), guest = parse_topology(c.guest);
    const VmcapEvaluator ev(host, guest);
    std::mt19937_64 rng(557 + host.size() * 13 + guest.size());
    for (int t = 0; t < 300 && !HasFailure(); ++t) {
        const Vec b = placement_vector(rng, host.size(), t);
        SCOPED_TRACE(show(b));
        std::vector<PlacementCount> sol;
        const Count got = vmcap_exact_placements(ev.placements(), host.size(), b.data(), sol);
        EXPECT_EQ(got, ev(b.data()));
        EXPECT_EQ(placement_violation(host.graph, guest.graph, b, sol, got), "");
    }
}

/** Node-set solutions as PlacementCount (any map onto the set; complete guests only). */
std::vector<PlacementCount> as_complete_placements(const std::vector<NodeSetCount>& sets) {
    std::vector<PlacementCount> out;
    for (const NodeSetCount& s : sets) {
        PlacementCount pc;
        pc.placement.mask = s.nodes;
        int v = 0;
        for (int i = 0; i < kMaxPNuma; ++i)
            if ((s.nodes >> i) & 1U) pc.placement.map[v++] = static_cast<std::uint8_t>(i);
        pc.copies = s.copies;
        out.push_back(pc);
    }
    return out;
}

// The paper's Algorithm 1 and the wrap-around rule both reach the Kn/Kk closed form (whose value
// is checked against the oracle above) for every k <= n <= 8.
TEST(Placements, KnKkAlgorithm1AndWrapAroundReachClosedForm) {
    std::mt19937_64 rng(8);
    int nodes[kMaxPNuma];
    for (int i = 0; i < kMaxPNuma; ++i) nodes[i] = i;
    for (int n = 1; n <= 8; ++n)
        for (int k = 1; k <= n; ++k) {
            const Graph host = parse_topology(cat({"K", std::to_string(n)})).graph;
            const Graph guest = parse_topology(cat({"K", std::to_string(k)})).graph;
            for (int t = 0; t < 400 && !HasFailure(); ++t) {
                // Algorithm 1 runs about S/k rounds on tied inputs: moderate values only.
                const Vec b = random_b(rng, n, t % 2 ? 30 : 300, t, t % 2 ? 200 : 3000);
                SCOPED_TRACE("n=" + std::to_string(n) + " k=" + std::to_string(k) + " " + show(b));
                const Count want = vmcap_kn_kk(b.data(), n, k);
                EXPECT_EQ(placement_violation(host, guest, b, as_complete_placements(kn_kk_algorithm1(b.data(), n, k)), want), "");
                EXPECT_EQ(placement_violation(host, guest, b, as_complete_placements(kn_kk_wraparound(b.data(), nodes, n, k, want)), want),
                          "");
            }
        }
}

// The wrap-around rule fills any c <= VMCAP and refuses c = VMCAP + 1 (the grid cannot be filled).
TEST(Placements, WrapAroundForEveryCountUpToVmcap) {
    std::mt19937_64 rng(9);
    int nodes[kMaxPNuma];
    for (int i = 0; i < kMaxPNuma; ++i) nodes[i] = i;
    for (int t = 0; t < 300 && !HasFailure(); ++t) {
        const int n = 2 + t % 7, k = 1 + (t / 7) % n;
        const Vec b = random_b(rng, n, 12, t, 60);
        SCOPED_TRACE("n=" + std::to_string(n) + " k=" + std::to_string(k) + " " + show(b));
        const Graph host = parse_topology(cat({"K", std::to_string(n)})).graph;
        const Graph guest = parse_topology(cat({"K", std::to_string(k)})).graph;
        const Count v = vmcap_kn_kk(b.data(), n, k);
        for (Count c = 0; c <= v; ++c)
            EXPECT_EQ(placement_violation(host, guest, b, as_complete_placements(kn_kk_wraparound(b.data(), nodes, n, k, c)), c), "");
        EXPECT_THROW(kn_kk_wraparound(b.data(), nodes, n, k, v + 1), std::invalid_argument);
    }
}

// CQ3/K2 from an arbitrary starting shift (not the paper's d) must still reach the closed form:
// this exercises the concave binary search that a wrong guess falls back to.
TEST(Placements, Cq3K2FromAnyStartingShift) {
    const Topology host = parse_topology("CQ3"), guest = parse_topology("K2");
    const VmcapEvaluator ev(host, guest);
    std::mt19937_64 rng(10);
    for (int t = 0; t < 3000 && !HasFailure(); ++t) {
        const Vec b = placement_vector(rng, 8, t);
        const Count shift = std::uniform_int_distribution<Count>(-1'000'000, 1'000'000)(rng) / (t % 2 ? 1 : 100'000);
        SCOPED_TRACE(show(b) + " shift=" + std::to_string(shift));
        std::vector<PlacementCount> sol;
        for (const NodeSetCount& s : cq3_k2_sets(b.data(), shift)) {
            const auto it =
                std::find_if(ev.placements().begin(), ev.placements().end(), [&](const Embedding& e) { return e.mask == s.nodes; });
            ASSERT_NE(it, ev.placements().end());
            sol.push_back(PlacementCount{*it, s.copies});
        }
        EXPECT_EQ(placement_violation(host.graph, guest.graph, b, sol, vmcap_cq3_k2(b.data())), "");
    }
}

/** Mask and copies of each entry, for hand-worked expectations. */
std::vector<std::pair<unsigned, Count>> mask_copies(const std::vector<PlacementCount>& sol) {
    std::vector<std::pair<unsigned, Count>> out;
    for (const PlacementCount& pc : sol) out.emplace_back(pc.placement.mask, pc.copies);
    return out;
}

// Q3 with a K1,3 guest: the placements are the 8 closed neighbourhoods N[c]. On b = H at the
// even-parity nodes {1,4,6,7}, L at the odd ones, summing the node rows by parity class gives
// X_e + 3 X_o <= 4H and X_o + 3 X_e <= 4L (X_e, X_o: copies centred on each class), so the LP
// bound is L + H, attained only with both tight, i.e. X_o = (3H - L)/2, impossible when H + L is
// odd; L + H - 1 is attained (checked against CBC). The LP optimal face is 3-dimensional, so
// branching on single variables needs a number of nodes that grows with b: ~0.4 s here, ~40 s at
// H = 735037, L = 332558 (CBC: > 60 s). A known limitation of the fallback, pinned here.
TEST(VmcapExact, DegenerateLpFaceScalesWithValues) {
    const Topology host = parse_topology("Q3"), guest = guest_star3();
    const VmcapEvaluator ev(host, guest);
    const Count H = 7350, L = 3325;
    const Vec b = {H, L, L, H, L, H, H, L};
    std::vector<PlacementCount> sol;
    EXPECT_EQ(vmcap_exact_placements(ev.placements(), 8, b.data(), sol), H + L - 1);
    EXPECT_EQ(placement_violation(host.graph, guest.graph, b, sol, H + L - 1), "");
    EXPECT_EQ(vmcap_cbc(ev.placements(), 8, b.data()), H + L - 1);
    // With H + 1: 328 copies per even centre and 2341 per odd centre make every row tight
    // (L = 2341 + 3 x 328, H + 1 = 328 + 3 x 2341), so the bound L + H + 1 is attained.
    const Vec even = {H + 1, L, L, H + 1, L, H + 1, H + 1, L};
    EXPECT_EQ(ev(even.data()), H + 1 + L);
}

// The exact fallback's work limit: a refusal, never a wrong answer, and deterministic.
TEST(VmcapExact, WorkLimitRefusesInsteadOfRunningUnbounded) {
    const Topology host = parse_topology("Q3"), guest = guest_star3();
    const Count H = 7350, L = 3325;
    const Vec b = {H, L, L, H, L, H, H, L};
    const VmcapEvaluator unlimited(host, guest, ExactOptions{std::int64_t{1} << 40, "q3/star"});
    EXPECT_EQ(unlimited(b.data()), H + L - 1);
    // The limit is counted in work, not time: the same vector is refused at every call.
    EXPECT_THROW(vmcap_exact(unlimited.placements(), 8, b.data(), 1000), ExactLimitExceeded);
    EXPECT_THROW(vmcap_exact(unlimited.placements(), 8, b.data(), 1000), ExactLimitExceeded);
    const VmcapEvaluator tight(host, guest, ExactOptions{1000, "host type 'q3' with flavor 'star'"});
    try {
        tight(b.data());
        FAIL() << "no refusal";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("host type 'q3' with flavor 'star' needs the exact VMCAP solver beyond its limit of 1000 work units"),
                  std::string::npos)
            << what;
        EXPECT_NE(what.find("b = [7350, 3325, 3325, 7350, 3325, 7350, 7350, 3325]"), std::string::npos) << what;
    }
    std::vector<PlacementCount> sol;
    EXPECT_THROW(vmcap_placements(tight, b.data()), InputError);
    // An easy vector on the same tight evaluator is answered exactly (one node, within 1000 units).
    const Vec easy = {3, 1, 1, 3, 1, 3, 3, 1};
    EXPECT_EQ(tight(easy.data()), vmcap_cbc(tight.placements(), 8, easy.data()));
    EXPECT_THROW(VmcapEvaluator(host, guest, ExactOptions{0, ""}), std::invalid_argument);
}

TEST(VmcapExact, DeadlineStopsExactEvaluationsOnly) {
    const auto past = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    const VmcapEvaluator exact(parse_topology("Q3"), guest_star3(), ExactOptions{kDefaultExactWorkLimit, "q3/star", past});
    const Vec b = {3, 1, 1, 3, 1, 3, 3, 1};
    EXPECT_THROW(
        {
            for (int i = 0; i < 16; ++i) exact(b.data());  // the clock is read every 16th call
        },
        TimeLimitReached);
    // Closed forms cost nanoseconds and never look at the clock.
    const VmcapEvaluator closed(parse_topology("CQ3"), parse_topology("K2"), ExactOptions{kDefaultExactWorkLimit, "cq3/k2", past});
    EXPECT_EQ(closed(b.data()), vmcap_cbc(closed.placements(), 8, b.data()));
}

// The deadline also stops an evaluation already running, whatever the work
// limit. Q3 with a K1,3 guest on this degenerate vector needs tens of seconds of branch and bound
// (DegenerateLpFaceScalesWithValues: ~40 s at H = 735037); with the deadline 0.3 s ahead it must
// stop within about a millisecond of it (2 s allowed for a loaded machine or a sanitizer build).
// Before the fix the deadline was read only before an evaluation started, so this ran to its end.
TEST(VmcapExact, DeadlineStopsAnEvaluationAlreadyRunning) {
    const Count H = 735000, L = 332501;  // H + L odd
    const Vec b = {H, L, L, H, L, H, H, L};
    const auto t0 = std::chrono::steady_clock::now();
    const VmcapEvaluator ev(parse_topology("Q3"), guest_star3(),
                            ExactOptions{std::int64_t{1} << 50, "host type 'q3' with flavor 'star'", t0 + std::chrono::milliseconds(300)});
    try {
        ev(b.data());
        ADD_FAILURE() << "no TimeLimitReached";
    } catch (const TimeLimitReached& e) {
        EXPECT_NE(std::string(e.what()).find("host type 'q3' with flavor 'star'"), std::string::npos) << e.what();
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_GE(s, 0.3);
    EXPECT_LT(s, 2.0);
    // The same evaluator answers easy vectors before its deadline: the poll is per evaluation.
    const VmcapEvaluator later(parse_topology("Q3"), guest_star3(),
                               ExactOptions{kDefaultExactWorkLimit, "q3/star", std::chrono::steady_clock::now() + std::chrono::hours(1)});
    const Vec easy = {3, 1, 1, 3, 1, 3, 3, 1};
    EXPECT_EQ(later(easy.data()), vmcap_cbc(later.placements(), 8, easy.data()));
}

// Cases whose optimal placement set is unique, worked out by hand.
TEST(Placements, HandWorkedUniqueSolutions) {
    // K4/K2, b=(10,1,1,1): 3 copies, each must use node 1 (nodes 2..4 hold 3 slots in total and a
    // copy avoiding node 1 would use two of them): {1,2},{1,3},{1,4} once each.
    const VmcapEvaluator k4k2(parse_topology("K4"), parse_topology("K2"));
    const Vec b1 = {10, 1, 1, 1};
    EXPECT_EQ(mask_copies(vmcap_placements(k4k2, b1.data())), (std::vector<std::pair<unsigned, Count>>{{0x3, 1}, {0x5, 1}, {0x9, 1}}));
    // CQ3/C4 with rungs {1,2} and {7,8} empty: {3,4,5,6} is the only 4-cycle avoiding both, and
    // rung {5,6} (capacity 1) allows it once.
    const VmcapEvaluator cq3c4(parse_topology("CQ3"), parse_topology("C4"));
    const Vec b2 = {0, 0, 5, 5, 1, 1, 0, 0};
    EXPECT_EQ(mask_copies(vmcap_placements(cq3c4, b2.data())), (std::vector<std::pair<unsigned, Count>>{{0x3C, 1}}));
    // CQ3/K2 on b=(1,0,0,0,0,0,1,0): the crossing edge (1,7) is the only placement with capacity.
    const VmcapEvaluator cq3k2(parse_topology("CQ3"), parse_topology("K2"));
    const Vec b3 = {1, 0, 0, 0, 0, 0, 1, 0};
    EXPECT_EQ(mask_copies(vmcap_placements(cq3k2, b3.data())), (std::vector<std::pair<unsigned, Count>>{{0x41, 1}}));
    // Q3/K2 (exact fallback), b = 1 on the 4-cycle 1-2-4-3 (0-based 0,1,3,2) only: two disjoint
    // edges of it, either {1,2}+{3,4} or {1,3}+{2,4}; both are perfect matchings of the cycle.
    const VmcapEvaluator q3k2(parse_topology("Q3"), parse_topology("K2"));
    const Vec b4 = {1, 1, 1, 1, 0, 0, 0, 0};
    const auto got = mask_copies(vmcap_placements(q3k2, b4.data()));
    EXPECT_TRUE(got == (std::vector<std::pair<unsigned, Count>>{{0x3, 1}, {0xC, 1}}) ||
                got == (std::vector<std::pair<unsigned, Count>>{{0x5, 1}, {0xA, 1}}));
}

}  // namespace
}  // namespace vmcap

// Tests of evaluators/closed_forms/capacity_vectors.h: the magic-reciprocal division (both widths) against the
// hardware division over the whole documented range, and the one-pass capacity vectors against a naive
// scalar loop (and CapacityModel::node_b) on random free/demand matrices with 2..6 resources,
// zero demands and values from 0 to 2^63 - 1.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "evaluators/state/capacity_model.h"
#include "evaluators/closed_forms/capacity_vectors.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

constexpr Amount kMax = std::numeric_limits<Amount>::max();  // 2^63 - 1

/** Random value whose magnitude is spread over 0..62 bits. */
Amount random_magnitude(std::mt19937_64& rng) {
    const int bits = std::uniform_int_distribution<int>(0, 63)(rng);
    const auto v = static_cast<Amount>(rng() >> 1);
    return bits == 63 ? v : v & ((Amount{1} << bits) - 1);
}

TEST(MagicDivisor, MatchesHardwareDivisionOnEdgesAndRandomValues) {
    std::vector<Amount> divisors = {1, 2, 3, 5, 7, 10, 12, 1000, 4096, 65536, 1'000'000'007, kMax, kMax - 1, kMax / 2, kMax / 3};
    for (int k = 1; k < 63; ++k) {  // powers of two and their neighbours
        const Amount p = Amount{1} << k;
        divisors.insert(divisors.end(), {p - 1, p, p + 1});
    }
    std::mt19937_64 rng(1);
    for (int t = 0; t < 300; ++t) divisors.push_back(std::max<Amount>(1, random_magnitude(rng)));
    for (const Amount d : divisors) {
        const MagicDivisor m = MagicDivisor::make(d);
        std::vector<Amount> xs = {0, 1, 2, d - 1, d, kMax, kMax - 1, kMax - d};
        if (d <= kMax / 2) xs.insert(xs.end(), {d + 1, 2 * d - 1, 2 * d, 2 * d + 1});
        if (d <= kMax / 1000) xs.insert(xs.end(), {999 * d - 1, 999 * d, 1000 * d - 1, 1000 * d});
        for (const Amount q : {kMax / d, kMax / d - 1}) {  // the largest quotients, and their edges
            if (q < 0) continue;
            xs.push_back(q * d);
            if (q * d <= kMax - (d - 1)) xs.push_back(q * d + (d - 1));  // (no signed overflow past kMax)
            if (q * d > 0) xs.push_back(q * d - 1);
        }
        for (int r = 0; r < 200; ++r) xs.push_back(random_magnitude(rng));
        constexpr Amount k31 = Amount{1} << 31;  // divide31's range: x < 2^31
        xs.insert(xs.end(), {k31 - 1, k31 - 2, (k31 - 1) / d * d, (k31 - 1) / d * d - 1});
        for (int r = 0; r < 200; ++r) xs.push_back(static_cast<Amount>(rng() % k31));
        for (const Amount x : xs) {
            if (x < 0) continue;
            ASSERT_EQ(m.divide(x), x / d) << "x=" << x << " d=" << d;
            if (x < k31) {
                ASSERT_EQ(m.divide31(x), x / d) << "divide31: x=" << x << " d=" << d;
            }
        }
    }
    EXPECT_THROW(MagicDivisor::make(0), std::invalid_argument);
    EXPECT_THROW(MagicDivisor::make(-3), std::invalid_argument);
}

/** The definition, written out: min over resources with positive demand of floor(free / demand). */
std::vector<Count> naive(const std::vector<Amount>& free, int nodes, const std::vector<Amount>& demand, int F, int R) {
    std::vector<Count> b(static_cast<std::size_t>(nodes) * F);
    for (int f = 0; f < F; ++f)
        for (int i = 0; i < nodes; ++i) {
            Count best = std::numeric_limits<Count>::max();
            for (int r = 0; r < R; ++r) {
                const Amount d = demand[static_cast<std::size_t>(f) * R + r];
                if (d > 0) best = std::min(best, free[static_cast<std::size_t>(i) * R + r] / d);
            }
            b[static_cast<std::size_t>(f) * nodes + i] = best;
        }
    return b;
}

TEST(CapacityVectors, MatchesNaiveLoopOnRandomMatrices) {
    std::mt19937_64 rng(2);
    for (int t = 0; t < 4000 && !HasFailure(); ++t) {
        const int R = 2 + t % 5, F = 1 + static_cast<int>(rng() % 10), nodes = 1 + static_cast<int>(rng() % kMaxPNuma);
        // 0: small, 1: realistic (MiB): the 31-bit path; 2: any magnitude, 3: near 2^63: mostly the
        // 128-bit path (one free amount >= 2^31 on the host switches it).
        const int scale = t % 4;
        auto value = [&](bool is_demand) -> Amount {
            switch (scale) {
                case 0: return std::uniform_int_distribution<Amount>(is_demand ? 1 : 0, 20)(rng);
                case 1: return std::uniform_int_distribution<Amount>(is_demand ? 1 : 0, 1 << 20)(rng);
                case 2: return std::max<Amount>(is_demand ? 1 : 0, random_magnitude(rng));
                default: return is_demand ? std::max<Amount>(1, random_magnitude(rng)) : kMax - static_cast<Amount>(rng() % 1000);
            }
        };
        std::vector<Amount> demand(static_cast<std::size_t>(F) * R), free(static_cast<std::size_t>(nodes) * R);
        for (int f = 0; f < F; ++f) {
            for (int r = 0; r < R; ++r) demand[static_cast<std::size_t>(f) * R + r] = rng() % 3 == 0 ? 0 : value(true);
            if (t % 7 == 0) {  // only one limiting resource
                for (int r = 0; r < R; ++r) demand[static_cast<std::size_t>(f) * R + r] = 0;
            }
            bool any = false;
            for (int r = 0; r < R; ++r) any = any || demand[static_cast<std::size_t>(f) * R + r] > 0;
            if (!any) demand[static_cast<std::size_t>(f) * R + rng() % R] = value(true);
        }
        for (auto& x : free) x = rng() % 9 == 0 ? 0 : value(false);
        SCOPED_TRACE("t=" + std::to_string(t) + " R=" + std::to_string(R) + " F=" + std::to_string(F) + " nodes=" + std::to_string(nodes));
        const CapacityVectors cv(demand.data(), F, R);
        std::vector<Count> got(static_cast<std::size_t>(nodes) * F, -7);
        cv.compute(free.data(), nodes, got.data());
        const auto want = naive(free, nodes, demand, F, R);
        ASSERT_EQ(got, want);
        for (int f = 0; f < F; ++f) {
            std::vector<Count> one(nodes, -7);
            cv.compute_flavor(f, free.data(), nodes, one.data());
            ASSERT_EQ(one, std::vector<Count>(want.begin() + static_cast<std::ptrdiff_t>(f) * nodes,
                                              want.begin() + static_cast<std::ptrdiff_t>(f + 1) * nodes));
        }
    }
}

// compute() shares one quotient column per distinct (resource, demand) pair; with more columns
// than its stack buffer holds it computes flavor by flavor. Both against the definition.
TEST(CapacityVectors, SharedColumnsAndBufferOverflowPath) {
    std::mt19937_64 rng(3);
    for (const int F : {8, 40, 400}) {
        for (const int nodes : {4, 8, 16}) {
            const int R = 3;
            std::vector<Amount> demand(static_cast<std::size_t>(F) * R), free(static_cast<std::size_t>(nodes) * R);
            // Few distinct divisors for F = 8 and 40 (shared columns); many for F = 400.
            const Amount dmax = F == 400 ? 5000 : 6;
            for (auto& d : demand) d = std::uniform_int_distribution<Amount>(0, dmax)(rng);
            for (int f = 0; f < F; ++f)
                demand[static_cast<std::size_t>(f) * R] = std::max<Amount>(1, demand[static_cast<std::size_t>(f) * R]);
            for (std::size_t i = 0; i < free.size(); ++i)
                free[i] = std::uniform_int_distribution<Amount>(0, i % 2 ? 100 : (Amount{1} << 40))(rng);
            const CapacityVectors cv(demand.data(), F, R);
            SCOPED_TRACE("F=" + std::to_string(F) + " nodes=" + std::to_string(nodes) +
                         " columns=" + std::to_string(cv.num_quotient_columns()));
            if (F == 8) {
                EXPECT_LT(cv.num_quotient_columns(), 3 * F);  // with at most 7 values per resource, some repeat
            }
            if (F == 400) {
                EXPECT_GT(cv.num_quotient_columns() * nodes, CapacityVectors::kScratch);
            }
            std::vector<Count> got(static_cast<std::size_t>(nodes) * F);
            cv.compute(free.data(), nodes, got.data());
            EXPECT_EQ(got, naive(free, nodes, demand, F, R));
            for (auto& x : free) x &= 0x7FFFFFF;  // below 2^31: the 64-bit path
            cv.compute(free.data(), nodes, got.data());
            EXPECT_EQ(got, naive(free, nodes, demand, F, R));
        }
    }
}

// Hand-worked: 3 resources (vcpu, ram_mib, l3_ways), a flavor that ignores l3 and one that needs it.
TEST(CapacityVectors, HandWorkedThreeResources) {
    const Amount demand[] = {4, 8192, 0,   // f0: 4 vCPU, 8 GiB per vNUMA node, no cache ways
                             2, 4096, 3};  // f1: 2 vCPU, 4 GiB, 3 ways
    const CapacityVectors cv(demand, 2, 3);
    const Amount free[] = {16, 65536, 12,   // node 1: f0 min(4, 8) = 4; f1 min(8, 16, 4) = 4
                           9,  16384, 2,    // node 2: f0 min(2, 2) = 2; f1 min(4, 4, 0) = 0
                           0,  65536, 12};  // node 3: no vCPU left: 0 for both
    Count b[6];
    cv.compute(free, 3, b);
    EXPECT_EQ(std::vector<Count>(b, b + 6), (std::vector<Count>{4, 2, 0, 4, 0, 0}));
    EXPECT_EQ(cv.num_flavors(), 2);
    EXPECT_EQ(cv.num_resources(), 3);
}

TEST(CapacityVectors, RejectsInvalidDemand) {
    const Amount zero[] = {0, 0};
    EXPECT_THROW(CapacityVectors(zero, 1, 2), std::invalid_argument);
    const Amount negative[] = {1, -1};
    EXPECT_THROW(CapacityVectors(negative, 1, 2), std::invalid_argument);
    const Amount ok[] = {1, 1};
    EXPECT_THROW(CapacityVectors(ok, 1, 0), std::invalid_argument);
    EXPECT_THROW(CapacityVectors(ok, 1, kMaxResources + 1), std::invalid_argument);
    const CapacityVectors none(ok, 0, 2);  // no flavors: nothing to compute
    EXPECT_EQ(none.num_flavors(), 0);
}

// From a loaded problem with a third resource: the same b as CapacityModel::node_b (the
// optimizer's per-node path) for every flavor, on the fixture's free amounts and on random ones.
TEST(CapacityVectors, AgreesWithCapacityModelNodeSlots) {
    std::mt19937_64 rng(6);
    for (const char* topo : {"CQ3", "K4", "2xK4", "Q3"}) {
        test::RandomCluster rc;
        rc.host_topology = topo;
        rc.hosts = 15;
        rc.seed = 5;
        Problem p = test::make_random_problem(rc);
        // l3_ways: 64 per node (room for any of the fixture's placements); every other flavor needs
        // none, the others 2 or 4 per vNUMA node.
        p.resources.push_back("l3_ways");
        for (HostType& ht : p.host_types) {
            std::vector<Amount> nc;
            for (int i = 0; i < ht.num_nodes(); ++i) {
                nc.insert(nc.end(), ht.node_capacity.begin() + 2 * i, ht.node_capacity.begin() + 2 * i + 2);
                nc.push_back(64);
            }
            ht.node_capacity = nc;
        }
        for (std::size_t f = 0; f < p.flavors.size(); ++f)
            p.flavors[f].demand.push_back(
                f % 2 ? 0 : static_cast<Amount>(p.flavors[f].num_vnuma()) * (2 + 2 * static_cast<Amount>(f % 4 == 2)));
        finalize_problem(p, "<test>");
        const CapacityModel model(p);
        const CapacityVectors cv = CapacityVectors::for_all_flavors(p);
        const auto usage = compute_node_usage(p);
        const int R = p.num_resources(), F = static_cast<int>(p.flavors.size());
        int l3_binds = 0;
        auto check = [&](const std::vector<Amount>& free, int n, const std::string& where) {
            std::vector<Count> b(static_cast<std::size_t>(n) * F);
            cv.compute(free.data(), n, b.data());
            for (int f = 0; f < F; ++f)
                for (int i = 0; i < n; ++i) {
                    const Count got = b[static_cast<std::size_t>(f) * n + i];
                    ASSERT_EQ(got, model.node_b(f, free.data() + i * R)) << where << " flavor " << f << " node " << i;
                    const auto& nd = p.flavors[f].node_demand;
                    l3_binds += nd[2] > 0 && got < std::min(free[i * R] / nd[0], free[i * R + 1] / nd[1]);
                }
        };
        for (std::size_t h = 0; h < p.hosts.size(); ++h) {
            const HostType& ht = p.host_type_of(static_cast<int>(h));
            std::vector<Amount> free(ht.node_capacity.size());
            for (std::size_t i = 0; i < free.size(); ++i) free[i] = ht.node_capacity[i] - usage[h][i];
            check(free, ht.num_nodes(), std::string(topo) + " host " + std::to_string(h));
            for (std::size_t i = 0; i < free.size(); ++i)  // vcpu 0..40, ram_mib 0..70000, l3_ways 0..40
                free[i] = std::uniform_int_distribution<Amount>(0, i % R == kRamMib ? 70000 : 40)(rng);
            check(free, ht.num_nodes(), std::string(topo) + " random free, host " + std::to_string(h));
        }
        EXPECT_GT(l3_binds, 0) << topo << ": l3_ways never limits b, so ignoring it would go unnoticed";
        const CapacityVectors last = CapacityVectors::for_flavors(p, {F - 1});
        EXPECT_EQ(last.num_flavors(), 1);
        EXPECT_THROW(CapacityVectors::for_flavors(p, {F}), std::out_of_range);
    }
}

}  // namespace
}  // namespace vmcap

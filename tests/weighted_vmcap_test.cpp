// The target-parallel weighted capacity (evaluators/closed_forms/weighted_vmcap.h) against the
// per-target scalar path (CapacityModel::host_capacity: node_b and the flavor's VmcapEvaluator) on
// every host topology the closed forms know and one that needs the exact fallback, with K1, K2,
// K3, K4 and C4 guests, a third resource some flavors do not demand, and free amounts at the
// 2^31 boundary of the 32-bit lanes; and SearchState's target-parallel refresh against a
// from-scratch state after random moves.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "evaluators/closed_forms/weighted_vmcap.h"
#include "evaluators/state/capacity_model.h"
#include "evaluators/state/search_state.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

/** One host type `topology` (vCPU, RAM, L3 ways per node) and `targets` weighted flavors with
 *  every vNUMA shape that fits it; every 7th flavor demands no L3 ways. */
Problem shapes_problem(const std::string& topology, int targets, std::uint64_t seed) {
    Problem p;
    p.resources = {"vcpu", "ram_mib", "l3_ways"};
    HostType ht;
    ht.name = topology;
    ht.topology = parse_topology(topology);
    for (int i = 0; i < ht.num_nodes(); ++i) ht.node_capacity.insert(ht.node_capacity.end(), {64, 256 * 1024, 16});
    p.host_types.push_back(ht);
    Host h;
    h.id = "h0";
    p.hosts.push_back(h);
    std::mt19937_64 rng(seed);
    const char* guests[] = {"K1", "K2", "K3", "K4", "C4"};
    for (int j = 0; j < targets; ++j) {
        Topology g = parse_topology(guests[j % 5]);
        if (g.size() > ht.num_nodes()) g = parse_topology("K1");
        const Amount k = g.size();
        Flavor f;
        f.name = "f";
        f.name += std::to_string(j);
        f.demand = {k * static_cast<Amount>(1 + rng() % 16), k * 512 * static_cast<Amount>(1 + rng() % 64),
                    j % 7 == 0 ? 0 : k * static_cast<Amount>(1 + rng() % 4)};
        f.vnuma = g;
        f.weight = static_cast<double>(1 + rng() % 100000) / 1000.0;
        p.flavors.push_back(f);
    }
    finalize_problem(p, "<shapes>");
    return p;
}

Score scalar_value(const CapacityModel& m, int type, const Amount* free) {
    Score v = 0;
    for (int j = 0; j < m.num_targets(); ++j) v += m.target_weight_units(j) * m.host_capacity(type, m.target_flavor(j), free);
    return v;
}

class WeightedVmcapTopologies : public ::testing::TestWithParam<const char*> {};

TEST_P(WeightedVmcapTopologies, EqualsThePerTargetSum) {
    const Problem p = shapes_problem(GetParam(), 300, 11);
    const CapacityModel m(p);
    const int n = p.host_types[0].num_nodes(), R = m.num_resources(), T = m.num_targets();
    const WeightedVmcap& w = m.weighted_vmcap(0);
    ASSERT_EQ(w.vectorised_targets() + w.scalar_targets(), T);
    // The sum lanes' per-node table is built here (65 x 513 x 17 entries): random amounts within
    // the node read it, the edge amounts beyond the node's capacity take the lanes.
    EXPECT_GT(w.node_table_entries(), 0u);
    std::mt19937_64 rng(5);
    std::vector<Amount> free(static_cast<std::size_t>(n) * R);
    // Random amounts within the node, then amounts around the 2^31 limit of the 32-bit lanes.
    const Amount edges[] = {0, 1, (Amount{1} << 31) - 1, Amount{1} << 31, (Amount{1} << 32) - 3, (Amount{1} << 40) + 3};
    for (int trial = 0; trial < 1000; ++trial) {
        // Beyond the node on an exact-fallback host could exceed the solver's work limit (both sides).
        if (trial >= 400 && trial < 600 && !w.closed_forms_only()) continue;
        for (int a = 0; a < n * R; ++a) {
            const Amount cap_a = p.host_types[0].node_capacity[a];
            // Within the node; just beyond it (an upper bound's relaxation: past the node table);
            // around and above 2^31.
            free[a] = trial < 600      ? static_cast<Amount>(rng() % (cap_a + 1))
                      : trial % 2 == 0 ? edges[rng() % 6] + static_cast<Amount>(rng() % 3)
                                       : (Amount{1} << 31) + static_cast<Amount>(rng() % (Amount{1} << 31));
        }
        if (trial >= 400 && trial < 600) {  // one amount just past its node's capacity
            const auto a = static_cast<std::size_t>(rng() % free.size());
            free[a] = p.host_types[0].node_capacity[a] + 1 + static_cast<Amount>(rng() % 1024);
        }
        ASSERT_EQ(w.value(free.data()), scalar_value(m, 0, free.data())) << "trial " << trial;
    }
}

// K2: dual-node servers (sum and min lanes); K4 and 2xK4: K4 guests on the min lanes, K2/K3 through
// the evaluators; CQ3 and Q33: closed forms off the lanes; Q3: exact fallback (closed_forms_only
// false).
INSTANTIATE_TEST_SUITE_P(Hosts, WeightedVmcapTopologies, ::testing::Values("K2", "K4", "2xK4", "CQ3", "Q33", "Q3"));

/** CQ3 hosts of two resources (`node_vcpu` vCPU and `node_vcpu` x `mib_per_vcpu` MiB a node) and
 *  `targets` K2 and C4 flavors of `min_vcpu`-16 vCPU and 0.5-8 GiB per vCPU a vNUMA node (the
 *  benchmark's shapes); the first one (a C4) of 1 vCPU and 0.5 GiB a vNUMA node. */
Problem cq3_batch_problem(Amount node_vcpu, Amount mib_per_vcpu, Amount min_vcpu, int targets, std::uint64_t seed) {
    Problem p;
    p.resources = {"vcpu", "ram_mib"};
    HostType ht;
    ht.name = "CQ3";
    ht.topology = parse_topology("CQ3");
    for (int i = 0; i < ht.num_nodes(); ++i) ht.node_capacity.insert(ht.node_capacity.end(), {node_vcpu, node_vcpu * mib_per_vcpu});
    p.host_types.push_back(ht);
    Host h;
    h.id = "h0";
    p.hosts.push_back(h);
    std::mt19937_64 rng(seed);
    for (int j = 0; j < targets; ++j) {
        const Amount k = j % 3 == 0 ? 4 : 2;
        const Amount vcpu = j == 0 ? 1 : min_vcpu + static_cast<Amount>(rng() % static_cast<std::uint64_t>(17 - min_vcpu));
        const Amount ram = j == 0 ? 512 : vcpu * 512 * static_cast<Amount>(1 + rng() % 16);
        Flavor f;
        f.name = "g" + std::to_string(j);
        f.demand = {k * vcpu, k * ram};
        f.vnuma = parse_topology(k == 4 ? "C4" : "K2");
        f.weight = static_cast<double>(1 + rng() % 1000) / 1000.0;
        p.flavors.push_back(f);
    }
    finalize_problem(p, "<cq3>");
    return p;
}

TEST(WeightedVmcap, QuotientTablesEqualThePerTargetPath) {
    // Nodes of 16 vCPU and 64 GiB: every K2/C4 quotient fits 8 bits, so both batch groups read
    // per-node rows of quotients; nodes of 300 vCPU and 300 GiB: the one-vCPU C4 flavor's quotient
    // 300 is past 8 bits, so the C4 group has no table, while the K2 group (at least 2 vCPU a
    // node: quotients <= 150; a grid of 301 x 601 entries x 20 lanes) has one.
    for (const Amount node_vcpu : {Amount{16}, Amount{300}}) {
        const bool small = node_vcpu == 16;
        const Problem p = cq3_batch_problem(node_vcpu, small ? 4096 : 1024, small ? 1 : 2, small ? 600 : 30, 4);
        const CapacityModel m(p);
        const WeightedVmcap& w = m.weighted_vmcap(0);
        const int n = 8, R = 2, T = m.num_targets();
        ASSERT_EQ(w.batch_groups(), 2);
        ASSERT_EQ(w.vectorised_targets(), T);
        EXPECT_EQ(w.quotient_tables(), node_vcpu == 16 ? 2 : 1) << node_vcpu;
        std::mt19937_64 rng(8);
        std::vector<Amount> free(static_cast<std::size_t>(n) * R);
        for (int trial = 0; trial < 600; ++trial) {
            for (int a = 0; a < n * R; ++a) free[a] = static_cast<Amount>(rng() % (p.host_types[0].node_capacity[a] + 1));
            if (trial % 3 == 0) {  // one amount past its node (off the grid: the quotients are computed)
                const auto a = static_cast<std::size_t>(rng() % free.size());
                free[a] = p.host_types[0].node_capacity[a] + 1 + static_cast<Amount>(rng() % 4096);
            }
            ASSERT_EQ(w.value(free.data()), scalar_value(m, 0, free.data())) << node_vcpu << " trial " << trial;
        }
    }
}

TEST(WeightedVmcap, SplitsTargetsByCombiningRule) {
    const Problem p = shapes_problem("K2", 100, 3);
    const CapacityModel m(p);
    const WeightedVmcap& w = m.weighted_vmcap(0);
    // On a dual-node host every K1 and K2 flavor demanding all three resources is on the lanes;
    // the ones without L3 demand, and guests larger than the host (value 0), are not.
    int lanes = 0;
    for (int j = 0; j < m.num_targets(); ++j) {
        const Flavor& f = p.flavors[m.target_flavor(j)];
        lanes += f.num_vnuma() <= 2 && f.node_demand[2] > 0;
    }
    EXPECT_EQ(w.vectorised_targets(), lanes);
    EXPECT_TRUE(w.closed_forms_only());
    const Problem q = shapes_problem("Q3", 20, 3);
    const CapacityModel mq(q);
    EXPECT_FALSE(mq.weighted_vmcap(0).closed_forms_only());
}

TEST(WeightedVmcap, StateWithoutPerTargetCachesKeepsExactHostValues) {
    // From kBatchRefreshTargets targets on the state keeps only host values (refresh_host: the
    // memo or one target-parallel pass). After random moves, with and without a memo attached:
    // every host value equals the per-target scalar sum over its free amounts (node_b and each
    // flavor's evaluator), the objective their sum, and check_consistency a fresh state.
    test::RandomCluster rc;
    rc.host_topology = "CQ3";
    rc.hosts = 16;
    rc.seed = 9;
    Problem p = test::make_random_problem(rc);
    std::mt19937_64 rng(2);
    for (int j = 0; j < 80; ++j) {
        Flavor f;
        f.name = "x";
        f.name += std::to_string(j);
        const bool k2 = j % 3 == 0;
        f.demand = {(k2 ? 2 : 1) * static_cast<Amount>(1 + rng() % 4), (k2 ? 2 : 1) * 1024 * static_cast<Amount>(1 + rng() % 8)};
        f.vnuma = parse_topology(k2 ? "K2" : "K1");
        f.weight = 0.5;
        p.flavors.push_back(f);
    }
    finalize_problem(p, "<refresh>");
    const CapacityModel m(p);
    ASSERT_GE(m.num_targets(), SearchState::kBatchRefreshTargets);
    for (const bool with_memo : {false, true}) {
        SearchState s(m);
        ASSERT_FALSE(s.per_target_caches());
        HostValueMemo memo(m);
        if (with_memo) s.use_value_memo(&memo);
        auto try_move = [&](int v, int h, const Embedding& e) {
            const Flavor& fl = p.flavors[p.vms[v].flavor];
            bool room = h != s.host_of(v);
            for (int g = 0; g < fl.num_vnuma() && room; ++g)
                for (int r = 0; r < m.num_resources(); ++r)
                    room = room && s.free_of(h)[e.map[g] * m.num_resources() + r] >= fl.node_demand[r];
            if (room) s.move(v, h, e);
            return room;
        };
        int moved = 0;
        for (int step = 0; step < 4000 && moved < 300; ++step) {
            const int v = static_cast<int>(rng() % p.vms.size());
            const int h = static_cast<int>(rng() % p.hosts.size());
            const auto& places = m.evaluator(s.type_of(h), p.vms[v].flavor).placements();
            if (places.empty() || !try_move(v, h, places[rng() % places.size()])) continue;
            ++moved;
            // A VM back to its snapshot placement: free amounts seen before (memo hits).
            const int back = static_cast<int>(rng() % p.vms.size());
            Embedding home;
            home.map = p.vms[back].pnuma;
            home.mask = node_mask(home.map.data(), p.flavors[p.vms[back].flavor].num_vnuma());
            try_move(back, p.vms[back].host, home);
        }
        ASSERT_GT(moved, 100);
        Score sum = 0;
        for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h) {
            ASSERT_EQ(s.host_value(h), scalar_value(m, s.type_of(h), s.free_of(h))) << "host " << h << " memo " << with_memo;
            sum += s.host_value(h);
        }
        EXPECT_EQ(s.capacity_value(), sum);
        EXPECT_EQ(s.objective(), sum);
        EXPECT_NO_THROW(s.check_consistency());
    }
}

}  // namespace
}  // namespace vmcap

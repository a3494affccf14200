// The gather move (moves/gather.h): two vlinked VMs move together,
// onto one host or into one rack. Exact delta by hand, the link rule on both prefixes, the
// proposal's invariants and no draw without vlinks. (Its exactness against a brute force over
// placement pairs is in moves_test.cpp, its bound and cached evaluation in objective_test.cpp.)
#include <gtest/gtest.h>

#include "moves/move_list.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

/**
 * Three K2 hosts (two pNUMA nodes of 4 vCPU / 16 GiB): h0 and h1 under tor0, h2 under tor1, one
 * spine; NICs of `nic` Mbps, ToR uplinks of 1,000 Mbps. Flavors: small 2c8g (K1, weight 0) and
 * big 8c32g (K2, weight 1: a whole host). a and b (small) fill h0's two nodes halfway and share
 * a vlink of 100 Mbps; e (small) sits on h2's node 0; h1 is empty. Big capacity: h1 only (1).
 * a and b both to h2 frees h0: capacity 2.
 */
Problem pair_instance(std::int64_t nic) {
    Problem p;
    p.resources = {"vcpu", "ram_mib"};
    p.host_types.push_back(test::small_host_type("K2", "K2", 4, 16 * 1024));
    for (int h = 0; h < 3; ++h) p.hosts.push_back(Host{"h" + std::to_string(h), 0, h < 2 ? "tor0" : "tor1", "p0", ""});
    test::add_flavor(p, "small", 2, 8, "K1", 0.0);
    test::add_flavor(p, "big", 8, 32, "K2", 1.0);
    auto vm = [&](const char* id, int host, int node) {
        Vm v;
        v.id = id;
        v.flavor = 0;
        v.host = host;
        v.pnuma[0] = static_cast<std::uint8_t>(node);
        p.vms.push_back(v);
    };
    vm("a", 0, 0);
    vm("b", 0, 1);
    vm("e", 2, 0);
    p.constraints.max_migrations = 2;
    finalize_problem(p, "<pair>");
    for (auto& t : p.host_types) t.nic_mbps = nic;
    p.network.switches = {"tor0", "tor1", "spine"};
    p.network.links = {NetLink{0, 2, 1000}, NetLink{1, 2, 1000}};
    p.network.host_switch = {0, 0, 1};
    p.vlinks = {Vlink{0, 1, 100, -1}};
    return p;
}

TEST(GatherMove, ExactDeltaByHandAndApplyMovesBoth) {
    const Problem p = pair_instance(1000);
    const CapacityModel m(p);
    SearchState s(m);
    ASSERT_EQ(s.objective(), weight_units(1.0));  // h1's big slot
    const GatherMove mv{0, 1, 2, 2};
    const GatherDelta d = score_move(mv, s);
    ASSERT_TRUE(d.feasible);
    EXPECT_EQ(d.delta, weight_units(1.0));  // h0 is freed; h2 had no big slot (e on it)
    EXPECT_EQ(d.migrations_after, 2);
    mv.apply(s, d);
    EXPECT_EQ(s.host_of(0), 2);
    EXPECT_EQ(s.host_of(1), 2);
    EXPECT_EQ(s.objective(), 2 * weight_units(1.0));
    EXPECT_NO_THROW(s.check_consistency());
    // Budget: one slot cannot carry two migrations.
    Problem q = pair_instance(1000);
    q.constraints.max_migrations = 1;
    const CapacityModel mq(q);
    const SearchState sq(mq);
    EXPECT_FALSE(mv.budget_admits(sq));
    EXPECT_FALSE(score_move(mv, sq).feasible);
    // By contract a never goes to b's host (b would have to leave first).
    EXPECT_FALSE((GatherMove{0, 2, 2, 1}.evaluate(SearchState(m)).feasible));
}

// NICs of 50 Mbps: both on h2 is within every capacity (their vlink is free there), but between
// the two live migrations the 100 Mbps vlink crosses h0's and h2's NICs: the move is refused.
TEST(GatherMove, LinkRuleCheckedAfterTheFirstMigrationToo) {
    const Problem p = pair_instance(50);
    const CapacityModel m(p);
    ASSERT_TRUE(m.has_filters());
    const SearchState s(m);
    const GatherMove mv{0, 1, 2, 2};
    Relocation r[2];
    ASSERT_EQ(mv.host_relocations(s, r), 2);
    EXPECT_TRUE(filters_admit(s, std::span(r, 2)));   // the final state is fine
    EXPECT_FALSE(filters_admit(s, std::span(r, 1)));  // the state in between is not
    EXPECT_FALSE(score_move(mv, s).feasible);
    // With NICs of 100 Mbps the state in between fits: feasible.
    const Problem p100 = pair_instance(100);
    const CapacityModel m100(p100);
    EXPECT_TRUE(score_move(mv, SearchState(m100)).feasible);
}

TEST(GatherMove, ProposesVlinkedPairsIntoOneRackAndNothingWithoutVlinks) {
    test::RandomCluster rc;
    rc.hosts = 30;
    rc.seed = 9;
    Problem plain = test::make_random_problem(rc);
    {
        const CapacityModel m(plain);
        const SearchState s(m);
        MoveCache cache(s);
        Proposal pr;
        Rng rng(3, 1), copy(3, 1);
        std::vector<int> movable{0, 1, 2};
        ProposalContext ctx{s, cache, movable, pr, rng};
        GatherMove g;
        EXPECT_FALSE(GatherMove::propose(ctx, g));
        EXPECT_EQ(rng.below(1u << 30), copy.below(1u << 30));  // no draw was taken
    }
    Problem p = plain;
    test::add_leaf_spine(p, 4, 100000, 100000, 10, 90);  // ToR = host mod 3; 2 x VMs random vlinks
    const CapacityModel m(p);
    const SearchState s(m);
    MoveCache cache(s);
    Proposal pr;
    Rng rng(11, 2);
    std::vector<int> movable;
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        if (p.vms[v].migratable) movable.push_back(static_cast<int>(v));
    pr.start(rng, movable.size());
    const VlinkIndex& vi = *m.vlink_index();
    int proposed = 0, same_host = 0;
    for (int i = 0; i < 4000; ++i) {
        ProposalContext ctx{s, cache, movable, pr, rng};
        GatherMove g;
        if (!GatherMove::propose(ctx, g)) continue;
        ++proposed;
        bool peers = false;
        for (int q : vi.peers_of(g.a)) peers = peers || (q >= 0 ? q : ~q) == g.b;
        ASSERT_TRUE(peers) << "b is not a vlink peer of a";
        ASSERT_NE(g.host_a, s.host_of(g.a));
        ASSERT_NE(g.host_a, s.host_of(g.b));
        ASSERT_NE(g.host_b, s.host_of(g.b));
        ASSERT_EQ(p.network.host_switch[g.host_a], p.network.host_switch[g.host_b]);  // one rack
        same_host += g.host_a == g.host_b;
    }
    EXPECT_GT(proposed, 2000);
    EXPECT_GT(same_host, proposed / 3);  // half onto one host, less the cases that fail
    EXPECT_LT(same_host, proposed);
}

}  // namespace
}  // namespace vmcap

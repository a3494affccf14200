// Destinations near vlink peers (moves/migrate.h): migrate
// proposals of a VM with vlinks draw a host near its peers in proportion to bandwidth (the
// StarNetLA "savings" ranking as a distribution), and nothing changes for VMs without vlinks.
#include <gtest/gtest.h>

#include "moves/migrate.h"
#include "moves/move_cache.h"
#include "moves/proposal.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

/** Proposed destinations of `vm` (the only movable VM): how many land on the host or ToR of `peer`. */
struct Near {
    int host = 0, rack = 0;
};

Near count_near(const SearchState& s, int vm, int peer, int draws) {
    MoveCache cache(s);
    Proposal pr;
    Rng rng(7, 1);
    const std::vector<int> movable{vm};
    pr.start(rng, movable.size());
    Near n;
    const Problem& p = s.problem();
    for (int i = 0; i < draws; ++i) {
        ProposalContext ctx{s, cache, movable, pr, rng};
        MigrateMove mv;
        EXPECT_TRUE(MigrateMove::propose(ctx, mv));
        EXPECT_EQ(mv.vm, vm);
        n.host += mv.host == s.host_of(peer);

        n.rack += p.network.host_switch[mv.host] == p.network.host_switch[s.host_of(peer)];
    }
    return n;
}

TEST(PeerProposals, DestinationsNearPeersInProportionToBandwidth) {
    test::RandomCluster rc;
    rc.hosts = 30;
    rc.seed = 5;
    Problem p = test::make_random_problem(rc);
    test::add_leaf_spine(p, 3, 100000, 100000, 1, 1);  // ToR = host mod 3
    // a on a host under tor0, b under tor1 (900 Mbps to a), c under tor2 (100 Mbps to a).
    int a = -1, b = -1, c = -1;
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        const int t = p.vms[v].host % 3;
        if (t == 0 && a < 0) a = static_cast<int>(v);
        if (t == 1 && b < 0) b = static_cast<int>(v);
        if (t == 2 && c < 0) c = static_cast<int>(v);
    }
    ASSERT_GE(std::min({a, b, c}), 0);
    p.vlinks = {Vlink{a, b, 900, -1}, Vlink{c, a, 100, -1}};
    const CapacityModel m(p);
    ASSERT_NE(m.vlink_index(), nullptr);
    const SearchState s(m);
    const int draws = 40000;
    const Near nb = count_near(s, a, b, draws), nc = count_near(s, a, c, draws);
    // 1 in 4 proposals look near a peer, half of those on the peer's host: b's host gets about
    // 0.25 x 0.9 x (0.5 + 0.5 / 10) = 12.4% of the draws (10 hosts per ToR) on top of the uniform
    // 0.75 / 29 = 2.6% of every host; c's host 0.25 x 0.1 x 0.55 = 1.4% on top.
    const int uniform = draws * 3 / 4 / 29;
    EXPECT_GT(nb.host, draws / 8);
    EXPECT_GT(nb.host - uniform, 4 * (nc.host - uniform));  // 900 vs 100 Mbps: about 9x
    EXPECT_GT(nc.host, uniform + draws / 200);
    EXPECT_GT(nb.rack, draws * 2 / 5);  // 26% uniformly (10 of 29 hosts), plus 22.5% near b
    // Without vlinks the same VM's destinations are spread as before.
    Problem q = p;
    q.vlinks.clear();
    q.network = Network{};
    for (auto& ht : q.host_types) ht.nic_mbps = 0;
    const CapacityModel mq(q);
    EXPECT_EQ(mq.vlink_index(), nullptr);
    const SearchState sq(mq);
    MoveCache cache(sq);
    Proposal pr;
    Rng rng(7, 1);
    const std::vector<int> movable{a};
    pr.start(rng, 1);
    int on_b = 0;
    for (int i = 0; i < draws; ++i) {
        ProposalContext ctx{sq, cache, movable, pr, rng};
        MigrateMove mv;
        MigrateMove::propose(ctx, mv);
        on_b += mv.host == sq.host_of(b);
    }
    EXPECT_LT(on_b, draws / 10);
}

}  // namespace
}  // namespace vmcap

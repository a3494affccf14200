// The bandwidth dissertation's small examples with known answers (seed 003 digest §7) through our
// loads and link rule, and a brute-force check that every ECMP route is a feasible splittable
// flow (so loads within capacity are a feasible multi-commodity flow, digest §8.1.3 (c)).
#include <numeric>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "evaluators/rules/link_filter.h"
#include "evaluators/network/network_load.h"
#include "instances/generator.h"
#include "instances/snapshot_io.h"

namespace vmcap {
namespace {

/**
 * One ToR "tor" over hosts h0..h{hosts-1} (NIC `nic` Mbps, one 64-vCPU node each), VMs v0.. of
 * 1 vCPU on the hosts `vm_host`, and `vlinks` ([a, b, mbps] by VM number).
 */
Problem one_tor(int hosts, std::int64_t nic, const std::vector<int>& vm_host, const std::vector<std::array<int, 3>>& vlinks) {
    std::string t = R"({"format": "vmcap-snapshot/1", "host_types": [{"name": "t", "topology": "K1",
      "node_capacity": {"vcpu": 64, "ram_mib": 262144}, "nic_mbps": )" +
                    std::to_string(nic) + R"(}], "hosts": [)";
    for (int h = 0; h < hosts; ++h)
        t.append(h ? ", " : "").append(R"({"id": "h)" + std::to_string(h) + R"(", "type": "t", "rack": "tor"})");
    t.append(R"(], "flavors": [{"name": "f", "vcpu": 1, "ram_mib": 1024, "weight": 1}], "vms": [)");
    for (std::size_t v = 0; v < vm_host.size(); ++v)
        t.append(v ? ", " : "")
            .append(R"({"id": "v)" + std::to_string(v) + R"(", "flavor": "f", "host": "h)" + std::to_string(vm_host[v]) +
                    R"(", "pnuma": [1]})");
    t.append(R"(], "network": {"switches": ["tor"], "links": []}, "vlinks": [)");
    for (std::size_t e = 0; e < vlinks.size(); ++e)
        t.append(e ? ", " : "")
            .append(R"(["v)" + std::to_string(vlinks[e][0]) + R"(", "v)" + std::to_string(vlinks[e][1]) + R"(", )" +
                    std::to_string(vlinks[e][2]) + "]");
    t.append("]}");
    return parse_snapshot(nlohmann::json::parse(t), "digest.json");
}

std::vector<int> hosts_of(const Problem& p) {  // the snapshot placement
    std::vector<int> h;
    for (const Vm& vm : p.vms) h.push_back(vm.host);
    return h;
}

/** All-to-all vlinks of `mbps` among VMs 0..n-1. */
std::vector<std::array<int, 3>> all_to_all(int n, int mbps) {
    std::vector<std::array<int, 3>> e;
    for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b) e.push_back({a, b, mbps});
    return e;
}

TEST(DigestExamples, Fig21CutDemandOnTheUplinksAndColocatedVlinksFree) {
    // §7.1: one ToR, servers p, q, r; x, y on p, z on q; R(y, z) = 3 (and x-y colocated, 5).
    const Problem pr = one_tor(3, 10, {0, 0, 1}, {{1, 2, 3}, {0, 1, 5}});
    const NetworkRoutes routes(pr);
    const auto load = link_loads(pr, routes, hosts_of(pr));
    // Full duplex: the flow y -> z goes up p's uplink and down q's, z -> y the other way.
    for (int d = 0; d < 2; ++d) {
        EXPECT_EQ(load[NetworkRoutes::arc(0, d)], 3);  // p <-> ToR
        EXPECT_EQ(load[NetworkRoutes::arc(1, d)], 3);  // ToR <-> q
        EXPECT_EQ(load[NetworkRoutes::arc(2, d)], 0);  // r idle; x-y inside p costs nothing
    }
}

TEST(DigestExamples, Fig37TwoPlusTwoSplitChargesKTimesNMinusKAndFails) {
    // §7.4: a 4-VM all-to-all VDC of 1-unit vlinks; each server uplink holds 3 units.
    // The rule is that of a snapshot with all four on S1 (no load), checked on other placements.
    const Problem p = one_tor(4, 3, {0, 0, 0, 0}, all_to_all(4, 1));
    const LinkCapacityFilter f(p);
    const std::vector<NodeMask> mask(4, 1);
    const std::vector<int> spread{0, 1, 2, 3}, split{0, 0, 3, 3};
    EXPECT_EQ(f.violation(p, PlacementView{spread, mask}), "");  // 3 per uplink: fits
    EXPECT_EQ(link_loads(p, f.routes(), split)[0], 4);           // 2 x 2 vlinks cross S1's uplink (each way), not 6
    const std::string why = f.violation(p, PlacementView{split, mask});
    EXPECT_NE(why.find("uplink of host \"h0\""), std::string::npos) << why;
}

TEST(DigestExamples, KTimesNMinusKTheoremAndFig39OverPeering) {
    // §7.6: k of an all-to-all VDC of n on one server load its uplink with k (n - k) b, at most (n/2)^2 b.
    const int n = 10, b = 4400;
    for (int k = 0; k <= n; ++k) {
        std::vector<int> host(n, 1);
        for (int v = 0; v < k; ++v) host[v] = 0;
        const Problem p = one_tor(2, 1'000'000, host, all_to_all(n, b));
        const NetworkRoutes routes(p);
        EXPECT_EQ(link_loads(p, routes, hosts_of(p))[0], static_cast<std::int64_t>(k) * (n - k) * b) << k;  // each direction
    }
    // §7.5 (a): C = 40 Gbps, B = 4.4 Gbps, v0..v4 on server0: v5 on server1 fits (22 Gbps), a
    // second VM beside it does not (server0's uplink 2 x 5 x 4.4 = 44 Gbps > 40).
    auto placed = [&](int on_server1) {  // the rule of a snapshot with all 5 + on_server1 on server0
        const int m = 5 + on_server1;
        const Problem p = one_tor(3, 40'000, std::vector<int>(static_cast<std::size_t>(m), 0), all_to_all(m, b));
        const LinkCapacityFilter f(p);
        std::vector<int> host(static_cast<std::size_t>(m), 0);
        for (int v = 5; v < m; ++v) host[static_cast<std::size_t>(v)] = 1;
        const std::vector<NodeMask> mask(host.size(), 1);
        return f.violation(p, PlacementView{host, mask});
    };
    EXPECT_EQ(placed(1), "");
    EXPECT_NE(placed(2), "");
}

TEST(DigestExamples, EveryEcmpRouteIsAFeasibleUnitFlow) {
    // Brute force over every ordered pair of ToRs of generated trees, leaf-spine and Jupiter
    // fabrics: orienting each link by distance to the destination, flow is conserved at every
    // switch, s sends one unit, t receives it, no arc carries more, every arc is crossed in the
    // direction that approaches t.
    GenerateOptions go;
    go.hosts = 40;
    go.vms = 60;
    go.hosts_per_rack = 5;
    for (const char* kind : {"leaf-spine", "tree", "jupiter"}) {
        SCOPED_TRACE(kind);
        Problem p = generate_cluster(go);
        NetworkOptions no;
        no.kind = kind;
        no.racks_per_pod = 2;
        add_network(p, no);
        const NetworkRoutes routes(p);
        const int H = static_cast<int>(p.hosts.size());
        const int S = static_cast<int>(p.network.switches.size());
        std::vector<int> tors(p.network.host_switch.begin(), p.network.host_switch.end());
        std::sort(tors.begin(), tors.end());
        tors.erase(std::unique(tors.begin(), tors.end()), tors.end());
        for (int t : tors) {
            std::vector<int> dist(S, -1), queue{t};
            dist[t] = 0;
            for (std::size_t q = 0; q < queue.size(); ++q)
                for (const NetLink& l : p.network.links)
                    for (auto [u, v] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}})
                        if (u == queue[q] && dist[v] < 0) dist[v] = dist[u] + 1, queue.push_back(v);
            for (int s : tors) {
                if (s == t) continue;
                std::int64_t unit = 1;  // a common denominator of the route's shares
                for (const LinkShare& e : routes.route(s, t)) unit = std::lcm(unit, routes.scale(e.link));
                std::vector<std::int64_t> net(S, 0);  // outflow - inflow, in 1/unit
                for (const LinkShare& e : routes.route(s, t)) {
                    const NetLink& l = p.network.links[e.link / 2 - H];
                    const int from = e.link % 2 == 0 ? l.a : l.b, to = from == l.a ? l.b : l.a;
                    ASSERT_EQ(dist[from], dist[to] + 1) << "flow on an arc that does not approach t";
                    ASSERT_GT(e.share, 0);
                    ASSERT_LE(e.share, routes.scale(e.link));
                    net[from] += e.share * (unit / routes.scale(e.link));
                    net[to] -= e.share * (unit / routes.scale(e.link));
                }
                for (int u = 0; u < S; ++u) ASSERT_EQ(net[u], u == s ? unit : u == t ? -unit : 0) << u;
                // The loads the search adds come from the same routes (per-ToR up-paths where decomposed).
                std::vector<std::int64_t> a(static_cast<std::size_t>(routes.num_links()), 0), b(a);
                int hs = 0, ht = 0;
                while (p.network.host_switch[hs] != s) ++hs;
                while (p.network.host_switch[ht] != t) ++ht;
                routes.add_vlink(a, hs, ht, 7, +1);
                for (int d = 0; d < 2; ++d) b[NetworkRoutes::arc(hs, d)] = b[NetworkRoutes::arc(ht, d)] = 7;  // whole Mbps
                for (const LinkShare& e : routes.route(s, t)) b[e.link] += 7 * e.share;                       // the flow s -> t
                for (const LinkShare& e : routes.route(t, s)) b[e.link] += 7 * e.share;                       // and back
                ASSERT_EQ(a, b);
            }
        }
    }
}

}  // namespace
}  // namespace vmcap

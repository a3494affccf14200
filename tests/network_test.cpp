// Network and vlinks: the snapshot sections load with one-line
// errors, round-trip, and the ECMP routes and link loads are exact -- checked against loads worked
// out by hand on leaf-spine and Clos fabrics, and against an independent oracle that enumerates
// every shortest path on random switch graphs.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "evaluators/network/network_load.h"
#include "evaluators/closed_forms/score.h"
#include "instances/datacenter_network.h"
#include "instances/generator.h"
#include "instances/snapshot_io.h"
#include "tests/cli_run.h"

namespace vmcap {
namespace {

/** A snapshot: hosts "h<i>" on switch `host_switch[i]` (by "uplink"), one VM "v<i>" per host, the
 *  given switches, links and vlinks (JSON fragments). */
std::string net_snapshot(const std::vector<std::string>& host_switch, const std::string& switches, const std::string& links,
                         const std::string& vlinks, const std::string& extra = "") {
    std::string hosts, vms;
    for (std::size_t i = 0; i < host_switch.size(); ++i) {
        hosts +=
            std::string(i ? ", " : "") + R"({"id": "h)" + std::to_string(i) + R"(", "type": "t", "uplink": ")" + host_switch[i] + "\"}";
        vms += std::string(i ? ", " : "") + R"({"id": "v)" + std::to_string(i) + R"(", "flavor": "f", "host": "h)" + std::to_string(i) +
               R"(", "pnuma": [1]})";
    }
    return R"({"format": "vmcap-snapshot/1",
 "host_types": [{"name": "t", "topology": "K2", "node_capacity": {"vcpu": 16, "ram_mib": 65536}, "nic_mbps": 10000}],
 "hosts": [)" +
           hosts + R"(], "flavors": [{"name": "f", "vcpu": 2, "ram_mib": 4096, "weight": 1}], "vms": [)" + vms +
           R"(], "network": {"switches": )" + switches + R"(, "links": )" + links + "}" +
           (vlinks.empty() ? "" : R"(, "vlinks": )" + vlinks) + extra + "}";
}

Problem load_network(const std::string& text) {
    return parse_snapshot(nlohmann::json::parse(text), "net.json");
}

std::vector<int> snapshot_hosts(const Problem& p) {
    std::vector<int> h;
    for (const Vm& vm : p.vms) h.push_back(vm.host);
    return h;
}

// Leaf-spine: two ToRs, two spines, every ToR linked once to every spine.
const char* kLeafSpineSwitches = R"(["tor1", "tor2", "spine1", "spine2"])";
const char* kLeafSpineLinks =
    R"([["tor1", "spine1", 40000], ["tor1", "spine2", 40000], ["tor2", "spine1", 40000], ["tor2", "spine2", 40000]])";

TEST(Network, LeafSpineLoadsByHand) {
    // v0, v1 under tor1 (hosts h0, h1), v2 under tor2; v3 on h0 with v0.
    const Problem p = load_network(net_snapshot({"tor1", "tor1", "tor2", "tor1"}, kLeafSpineSwitches, kLeafSpineLinks, "",
                                                R"(, "vdcs": [{"id": "tenant", "vlinks": [["v0", "v1", 100], ["v0", "v2", 200]]}],
                                        "vlinks": [["v0", "v3", 50]])"));
    ASSERT_EQ(p.vlinks.size(), 3U);
    EXPECT_EQ(p.vdcs, std::vector<std::string>{"tenant"});
    std::vector<int> host = snapshot_hosts(p);
    host[3] = 0;  // v3 next to v0 on h0: that vlink costs nothing
    const NetworkRoutes routes(p);
    EXPECT_TRUE(routes.decomposed());  // served from per-ToR up-paths, checked against the pair table
    const auto loads = link_loads(p, routes, host);
    ASSERT_EQ(loads.size(), 2U * (4U + 4U));                    // two directions of each of 4 uplinks and 4 links
    for (int d = 0; d < 2; ++d) {                               // full duplex: each flow loads one direction
        EXPECT_EQ(loads[NetworkRoutes::arc(0, d)], 100 + 200);  // h0's uplink: v0-v1 and v0-v2, not v0-v3
        EXPECT_EQ(loads[NetworkRoutes::arc(1, d)], 100);
        EXPECT_EQ(loads[NetworkRoutes::arc(2, d)], 200);
        EXPECT_EQ(loads[NetworkRoutes::arc(3, d)], 0);  // h3 holds nothing now
        EXPECT_EQ(routes.scale(NetworkRoutes::arc(0, d)), 1);
    }
    for (int k = 8; k < 16; ++k) {                             // 200 Mbps / 2 spines each way, in half-Mbps units
        EXPECT_EQ(routes.scale(k), 2) << routes.link_name(k);  // each ToR splits over two spines
        EXPECT_EQ(loads[k], 200) << routes.link_name(k);
    }
    EXPECT_EQ(routes.capacity(0), 10000);
    EXPECT_EQ(routes.capacity(8), 2 * 40000);
    EXPECT_EQ(routes.link_name(0), "uplink of host \"h0\" (to its switch)");
    EXPECT_EQ(routes.link_name(1), "uplink of host \"h0\" (from its switch)");
    EXPECT_EQ(routes.link_name(NetworkRoutes::arc(4 + 1, 0)), "link tor1 -> spine2 (network.links[1])");
    EXPECT_EQ(routes.link_name(NetworkRoutes::arc(4 + 1, 1)), "link spine2 -> tor1 (network.links[1])");
}

TEST(Network, ClosAcrossPodsSplitsAsTheDigestSays) {
    // Two pods of (2 ToRs, 2 MBs), 2 SBs; every ToR to every MB of its pod, every MB to every SB.
    // A vlink of b from pod 1 to pod 2: b/2 on each ToR-MB leg, b/4 on each MB-SB link (digest
    // §8.1.3: b/(#MB) then b/(#MB x #SB)).
    const std::string sw = R"(["t1", "t2", "t3", "t4", "m1", "m2", "m3", "m4", "s1", "s2"])";
    std::string links = "[";
    auto link = [&](const std::string& a, const std::string& b) {
        links += (links.size() > 1 ? ", [\"" : "[\"") + a + "\", \"" + b + "\", 100000]";
    };
    for (auto t : {"t1", "t2"})
        for (auto m : {"m1", "m2"}) link(t, m);
    for (auto t : {"t3", "t4"})
        for (auto m : {"m3", "m4"}) link(t, m);
    for (auto m : {"m1", "m2", "m3", "m4"})
        for (auto s : {"s1", "s2"}) link(m, s);
    links += "]";
    const Problem p = load_network(net_snapshot({"t1", "t3"}, sw, links, R"([["v0", "v1", 800]])"));
    const NetworkRoutes routes(p);
    const auto loads = link_loads(p, routes, snapshot_hosts(p));
    const int H = 2;
    std::map<std::string, std::int64_t> by_name;  // "t1 -> m1": Mbps in that direction
    for (int k = 2 * H; k < routes.num_links(); ++k) {
        ASSERT_EQ(loads[k] % routes.scale(k), 0) << routes.link_name(k);
        by_name[routes.link_name(k).substr(5, 8)] = loads[k] / routes.scale(k);
    }
    EXPECT_EQ(routes.scale(2 * H), 2);       // t1 -> m1 carries halves
    EXPECT_EQ(routes.scale(2 * H + 16), 4);  // m1 -> s1 carries quarters
    for (auto k : {"t1 -> m1", "t1 -> m2", "m1 -> t1", "m2 -> t1", "t3 -> m3", "m3 -> t3", "t3 -> m4", "m4 -> t3"})
        EXPECT_EQ(by_name[k], 400) << k;
    for (auto k : {"t2 -> m1", "m1 -> t2", "t4 -> m3", "m3 -> t4"}) EXPECT_EQ(by_name[k], 0) << k;
    // Each flow crosses every MB-SB link once, up on its side and down on the other.
    for (auto k : {"m1 -> s1", "s1 -> m1", "m1 -> s2", "m2 -> s1", "s2 -> m2", "m3 -> s1", "s1 -> m3", "m4 -> s2", "s2 -> m4"})
        EXPECT_EQ(by_name[k], 200) << k;
    for (int k = 0; k < 2 * H; ++k) EXPECT_EQ(loads[k], 800) << routes.link_name(k);
}

TEST(Network, RoutesMatchAnEnumerationOfEveryShortestPath) {
    // Oracle: hop-by-hop equal splitting is a walk that picks a next-hop link uniformly at every
    // switch; a link's share is the summed probability of the shortest paths through it.
    std::mt19937_64 rng(11);
    for (int trial = 0; trial < 60; ++trial) {
        const int S = 3 + static_cast<int>(rng() % 6);
        std::vector<std::pair<int, int>> ls;
        for (int s = 1; s < S; ++s) ls.emplace_back(static_cast<int>(rng() % s), s);  // a spanning tree
        for (int extra = static_cast<int>(rng() % 8); extra > 0; --extra) {
            const int a = static_cast<int>(rng() % S), b = static_cast<int>(rng() % S);
            if (a != b) ls.emplace_back(a, b);  // may repeat a pair: parallel links
        }
        std::string sw = "[", links = "[";
        for (int s = 0; s < S; ++s) sw += std::string(s ? ", " : "") + "\"s" + std::to_string(s) + "\"";
        for (std::size_t i = 0; i < ls.size(); ++i)
            links +=
                std::string(i ? ", " : "") + "[\"s" + std::to_string(ls[i].first) + "\", \"s" + std::to_string(ls[i].second) + "\", 1000]";
        sw += "]";
        links += "]";
        std::vector<std::string> host_sw;
        for (int s = 0; s < S; ++s)
            host_sw.push_back(std::string("s").append(std::to_string(s)));  // append: GCC 12 -Wrestrict false positive
        const Problem p = load_network(net_snapshot(host_sw, sw, links, ""));
        const NetworkRoutes routes(p);
        SCOPED_TRACE(links);
        for (int s = 0; s < S; ++s)
            for (int t = 0; t < S; ++t) {
                if (s == t) continue;
                // BFS distances to t, then every shortest path from s by depth-first search.
                std::vector<int> dist(S, -1);
                std::vector<int> q = {t};
                dist[t] = 0;
                for (std::size_t i = 0; i < q.size(); ++i)
                    for (std::size_t l = 0; l < ls.size(); ++l)
                        for (auto [u, v] : {ls[l], std::pair{ls[l].second, ls[l].first}})
                            if (u == q[i] && dist[v] < 0) {
                                dist[v] = dist[u] + 1;
                                q.push_back(v);
                            }
                std::vector<double> want(2 * ls.size(), 0.0);  // [2 x link + direction]
                std::vector<int> path;
                std::function<void(int, double)> walk = [&](int u, double prob) {
                    if (u == t) {
                        for (int l : path) want[l] += prob;
                        return;
                    }
                    std::vector<std::pair<int, int>> next;  // (arc, switch)
                    for (std::size_t l = 0; l < ls.size(); ++l)
                        for (int d = 0; d < 2; ++d) {
                            const int a = d == 0 ? ls[l].first : ls[l].second, b = d == 0 ? ls[l].second : ls[l].first;
                            if (a == u && dist[b] == dist[u] - 1) next.emplace_back(2 * static_cast<int>(l) + d, b);
                        }
                    for (auto [l, v] : next) {
                        path.push_back(l);
                        walk(v, prob / static_cast<double>(next.size()));
                        path.pop_back();
                    }
                };
                walk(s, 1.0);
                std::vector<double> got(2 * ls.size(), 0.0);
                for (const LinkShare& e : routes.route(s, t)) {
                    ASSERT_GE(e.share, 1);
                    ASSERT_LE(e.share, routes.scale(e.link));
                    got[e.link - 2 * S] += static_cast<double>(e.share) / static_cast<double>(routes.scale(e.link));
                }
                for (std::size_t k = 0; k < got.size(); ++k)
                    EXPECT_NEAR(got[k], want[k], 1e-12) << "s" << s << " -> s" << t << " link " << k / 2 << " direction " << k % 2;
            }
    }
}

TEST(Network, AddingThenRemovingVlinksRestoresEveryLoadExactly) {
    const Problem p = load_network(net_snapshot({"tor1", "tor1", "tor2", "tor2"}, kLeafSpineSwitches, kLeafSpineLinks,
                                                R"([["v0", "v1", 7], ["v0", "v2", 13], ["v1", "v3", 29], ["v2", "v3", 31]])"));
    const NetworkRoutes routes(p);
    std::mt19937_64 rng(3);
    std::vector<std::int64_t> loads(routes.num_links(), 0);
    struct Added {
        int hx, hy;
        std::int64_t mbps;
    };
    std::vector<Added> added;
    for (int step = 0; step < 2000; ++step) {
        const Vlink& v = p.vlinks[rng() % p.vlinks.size()];
        added.push_back({static_cast<int>(rng() % 4), static_cast<int>(rng() % 4), v.mbps});
        routes.add_vlink(loads, added.back().hx, added.back().hy, v.mbps, +1);
    }
    const auto full = loads;
    EXPECT_GT(*std::max_element(full.begin(), full.end()), 0);
    std::shuffle(added.begin(), added.end(), rng);  // removed in another order
    for (const Added& a : added) routes.add_vlink(loads, a.hx, a.hy, a.mbps, -1);
    for (std::int64_t x : loads) EXPECT_EQ(x, 0);
}

// for_each_move (what the link rule's on_move applies) is the two flows from and to the old
// host taken away and those of the new one added, with the common part left out: checked per link
// against for_each_share on generated fabrics (decomposed routes) and on the hand-made leaf-spine.
TEST(Network, MovingOneEndChangesLoadsByTheDifferenceOfTheTwoRoutes) {
    GenerateOptions go;
    go.hosts = 60;
    go.vms = 60;
    go.hosts_per_rack = 5;
    std::vector<Problem> nets;
    for (const char* kind : {"leaf-spine", "tree", "jupiter"}) {
        Problem p = generate_cluster(go);
        NetworkOptions no;
        no.kind = kind;
        no.racks_per_pod = 2;
        add_network(p, no);
        nets.push_back(p);
    }
    nets.push_back(load_network(net_snapshot({"tor1", "tor1", "tor2", "tor2"}, kLeafSpineSwitches, kLeafSpineLinks, "[]")));
    std::mt19937_64 rng(17);
    for (const Problem& p : nets) {
        const NetworkRoutes routes(p);
        const int H = static_cast<int>(p.hosts.size());
        int cancelled = 0;
        for (int i = 0; i < 3000; ++i) {
            const int from = static_cast<int>(rng() % H), to = static_cast<int>(rng() % H);
            const int peer = rng() % 5 == 0 ? (rng() % 2 ? from : to) : static_cast<int>(rng() % H);
            const bool first = rng() % 2 == 0;
            std::vector<std::int64_t> want(routes.num_links(), 0), got(routes.num_links(), 0);
            routes.for_each_share(first ? from : peer, first ? peer : from, [&](int l, std::int64_t u) { want[l] -= u; });
            routes.for_each_share(first ? to : peer, first ? peer : to, [&](int l, std::int64_t u) { want[l] += u; });
            int calls = 0, touched = 0;
            routes.for_each_move(from, to, peer, [&](int l, std::int64_t u) {  // whichever end is first
                got[l] += u;
                ++calls;
            });
            ASSERT_EQ(got, want) << "from " << from << " to " << to << " peer " << peer;
            for (std::int64_t x : want) touched += x != 0;
            if (from != to && calls < 2 * touched + 2) ++cancelled;
        }
        if (routes.decomposed()) {
            EXPECT_GT(cancelled, 1000);  // the peer's uplink and common up-path are left out
        }
    }
}

// On a network whose ECMP routes differ by direction (A reaches D over B and C
// evenly, D reaches A over its three links evenly, two of them to B), a vlink written [a, b] or
// [b, a] loads the same arcs, and plans do not depend on the order either.
const char* kAsymSwitches = R"(["A", "B", "C", "D"])";
std::string asym_links(int ab_mbps) {
    return R"([["A", "B", )" + std::to_string(ab_mbps) +
           R"(], ["A", "C", 100000], ["B", "D", 100000], ["B", "D", 100000], ["C", "D", 100000]])";
}

TEST(Network, VlinkLoadsDoNotDependOnWhichEndIsWrittenFirst) {
    const Problem ab =
        load_network(net_snapshot({"A", "D", "B", "C"}, kAsymSwitches, asym_links(1000), R"([["v0", "v1", 600], ["v2", "v3", 60]])"));
    const Problem ba =
        load_network(net_snapshot({"A", "D", "B", "C"}, kAsymSwitches, asym_links(1000), R"([["v1", "v0", 600], ["v3", "v2", 60]])"));
    const NetworkRoutes ra(ab), rb(ba);
    std::mt19937_64 rng(5);
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<int> host(4);
        for (int& h : host) h = static_cast<int>(rng() % 4);
        ASSERT_EQ(link_loads(ab, ra, host), link_loads(ba, rb, host));
    }
    // By hand, v0 on A and v1 on D: A -> D splits 1/2 to B and to C, then 1/4 on each B-D link;
    // D -> A splits 1/3 over its three links, so B -> A carries 2/3 and C -> A 1/3.
    const auto loads = link_loads(ab, ra, std::vector<int>{0, 1, 0, 0});
    auto mbps = [&](int link, int dir) {
        const int k = NetworkRoutes::arc(4 + link, dir);
        return static_cast<double>(loads[k]) / static_cast<double>(ra.scale(k));
    };
    EXPECT_DOUBLE_EQ(mbps(0, 0), 300.0);  // A -> B
    EXPECT_DOUBLE_EQ(mbps(0, 1), 400.0);  // B -> A
    EXPECT_DOUBLE_EQ(mbps(1, 0), 300.0);  // A -> C
    EXPECT_DOUBLE_EQ(mbps(1, 1), 200.0);  // C -> A
    EXPECT_DOUBLE_EQ(mbps(2, 0), 150.0);  // B -> D, one of two parallel links
    EXPECT_DOUBLE_EQ(mbps(2, 1), 200.0);  // D -> B
    EXPECT_DOUBLE_EQ(mbps(4, 1), 200.0);  // D -> C
    EXPECT_DOUBLE_EQ(mbps(4, 0), 300.0);  // C -> D
    // The rule in its own words: B -> A at 400 Mbps is over a 350 Mbps link, in both orders.
    for (const Problem* p : {&ab, &ba}) {
        Problem q = *p;
        q.network.links[0].mbps = 350;
        const NetworkRoutes r(q);
        const auto l = link_loads(q, r, std::vector<int>{0, 1, 0, 0});
        EXPECT_GT(l[NetworkRoutes::arc(4, 1)], r.capacity(NetworkRoutes::arc(4, 1)));
        EXPECT_LE(l[NetworkRoutes::arc(4, 0)], r.capacity(NetworkRoutes::arc(4, 0)));
    }
}

TEST(Network, PlansDoNotDependOnWhichEndOfAVlinkIsWrittenFirst) {
    // h0 (on A) holds v0 and v1 (20 GiB each: they cannot share a node), vlinked; h1 (on D) holds
    // v2 (not migratable). Moving v0 or v1 beside v2 frees a whole node of h0 for the target
    // flavor (+1) and sends the vlink across A-D: 300 Mbps A -> B, 400 B -> A.
    // With the old rule (one load per link, routed from the vlink's first end, which stays on A)
    // a 350 Mbps A-B link admitted moving the second end only: [v0, v1] moved v1, [v1, v0] moved
    // v0 (3a0f64d, seed 3). Now both orders give the same plan: 0 steps at 350 (B -> A carries
    // 400), the migration at 450.
    auto snapshot = [](const std::string& vlink, int ab_mbps) {
        return std::string(R"({"format": "vmcap-snapshot/1",
 "host_types": [{"name": "t", "topology": "K2", "node_capacity": {"vcpu": 8, "ram_mib": 32768}, "nic_mbps": 10000}],
 "hosts": [{"id": "h0", "type": "t", "uplink": "A"}, {"id": "h1", "type": "t", "uplink": "D"}],
 "flavors": [{"name": "f", "vcpu": 2, "ram_mib": 4096}, {"name": "m", "vcpu": 2, "ram_mib": 20480},
             {"name": "big", "vcpu": 8, "ram_mib": 8192, "vnuma": "K1", "weight": 1}],
 "vms": [{"id": "v0", "flavor": "m", "host": "h0", "pnuma": [1]}, {"id": "v1", "flavor": "m", "host": "h0", "pnuma": [2]},
         {"id": "v2", "flavor": "f", "host": "h1", "pnuma": [1], "migratable": false}],
 "constraints": {"max_migrations": 2},
 "network": {"switches": )") +
               kAsymSwitches + R"(, "links": )" + asym_links(ab_mbps) + R"(}, "vlinks": [)" + vlink + "]}";
    };
    for (int ab : {350, 450}) {
        std::string plans[2];
        int i = 0;
        for (const char* vlink : {R"(["v0", "v1", 600])", R"(["v1", "v0", 600])"}) {
            const auto dir = test::tmp_dir();
            const std::string snap = (dir / ("asym_" + std::to_string(i) + ".json")).string();
            const std::string plan = (dir / ("asym_plan_" + std::to_string(i) + ".json")).string();
            std::ofstream(snap) << snapshot(vlink, ab);
            const auto r = test::run_vmcap("plan --cluster " + snap + " --out " + plan + " --quiet --seed 3 --max-evaluations 20000");
            ASSERT_EQ(r.code, 0) << r.err;
            const auto doc = nlohmann::json::parse(read_text_file(plan));
            plans[i] = doc.at("steps").dump() + " objective " + doc.at("objective_after").dump();
            EXPECT_EQ(doc.at("steps").size(), ab == 350 ? 0U : 1U) << "A-B " << ab << " Mbps, vlink " << vlink;
            const auto v = test::run_vmcap("validate --cluster " + snap + " --plan " + plan);
            EXPECT_EQ(v.code, 0) << v.err;
            ++i;
        }
        EXPECT_EQ(plans[0], plans[1]) << "A-B " << ab << " Mbps";
    }
}

// Leaf-spine fabrics with uneven uplinks (some down) or uneven parallel links
// need fine shares on some arcs; the loads stay exact (a scale per arc) instead of refusing.
TEST(Network, UnevenParallelLinksStayExact) {
    for (const std::vector<int>& uplinks : {std::vector<int>{16, 15, 16, 14, 16, 13}, std::vector<int>{23, 24, 25, 23, 25, 24}}) {
        const bool parallel = uplinks[0] == 23;
        SCOPED_TRACE(parallel ? "parallel 23/24/25" : "16/15/16/14/16/13 of 16 spines");
        const int leaves = static_cast<int>(uplinks.size()), spines = parallel ? 3 : 16;
        std::string sw = "[", links = "[";
        for (int i = 0; i < leaves; ++i) sw += std::string(i ? ", " : "") + "\"leaf" + std::to_string(i) + "\"";
        for (int j = 0; j < spines; ++j) sw += ", \"spine" + std::to_string(j) + "\"";
        sw += "]";
        for (int i = 0; i < leaves; ++i)
            for (int j = 0; j < spines; ++j) {
                // Without parallel links: leaf i loses its last 16 - uplinks[i] spines, shifted by i
                // so that the leaves miss different ones. With: spine j gets uplinks[(i + j) % 6] links.
                const int count = parallel ? uplinks[static_cast<std::size_t>((i + j) % leaves)] : ((j + i) % spines) < uplinks[i] ? 1 : 0;
                for (int c = 0; c < count; ++c)
                    links += std::string(links.size() > 1 ? ", " : "") + "[\"leaf" + std::to_string(i) + "\", \"spine" + std::to_string(j) +
                             "\", 40000]";
            }
        links += "]";
        std::vector<std::string> host_sw;
        std::string vlinks = "[";
        for (int i = 0; i < leaves; ++i) host_sw.push_back("leaf" + std::to_string(i));
        for (int i = 0; i < leaves; ++i)
            for (int k = i + 1; k < leaves; ++k)
                vlinks += std::string(vlinks.size() > 1 ? ", " : "") + "[\"v" + std::to_string(i) + "\", \"v" + std::to_string(k) + "\", " +
                          std::to_string(97 + i * 7 + k) + "]";
        vlinks += "]";
        const Problem p = load_network(net_snapshot(host_sw, sw, links, vlinks));
        const NetworkRoutes routes(p);  // threw "need more than 16777216 parts per Mbps" with one scale for all links
        // Every route is a unit flow out of its source, exactly.
        for (int s = 0; s < leaves; ++s)
            for (int t = 0; t < leaves; ++t) {
                if (s == t) continue;
                Wide out = 0, unit = 1;
                for (const LinkShare& e : routes.route(s, t)) unit = std::lcm(static_cast<std::int64_t>(unit), routes.scale(e.link));
                for (const LinkShare& e : routes.route(s, t)) {
                    const NetLink& l = p.network.links[e.link / 2 - leaves];
                    if ((e.link % 2 == 0 ? l.a : l.b) == s) out += e.share * (unit / routes.scale(e.link));
                }
                ASSERT_TRUE(out == unit) << s << " -> " << t;
            }
        // Adding every vlink at random placements and removing them in another order restores zero.
        std::mt19937_64 rng(9);
        std::vector<std::int64_t> loads(routes.num_links(), 0);
        std::vector<std::tuple<int, int, std::int64_t>> added;
        for (int step = 0; step < 500; ++step) {
            const Vlink& v = p.vlinks[rng() % p.vlinks.size()];
            added.emplace_back(static_cast<int>(rng() % leaves), static_cast<int>(rng() % leaves), v.mbps);
            routes.add_vlink(loads, std::get<0>(added.back()), std::get<1>(added.back()), v.mbps, +1);
        }
        std::shuffle(added.begin(), added.end(), rng);
        for (auto [x, y, m] : added) routes.add_vlink(loads, x, y, m, -1);
        for (std::int64_t x : loads) ASSERT_EQ(x, 0);
    }
}

TEST(Network, SnapshotRoundTripKeepsNetworkVlinksAndVdcs) {
    const Problem p = load_network(net_snapshot({"tor1", "tor2"}, kLeafSpineSwitches, kLeafSpineLinks, R"([["v0", "v1", 5]])",
                                                R"(, "vdcs": [{"id": "a", "vlinks": [["v1", "v0", 9]]}])"));
    const auto text = format_json_lines(snapshot_to_json(p));
    const Problem q = parse_snapshot(nlohmann::json::parse(text), "again.json");
    EXPECT_EQ(format_json_lines(snapshot_to_json(q)), text);
    ASSERT_EQ(q.vlinks.size(), 2U);
    EXPECT_EQ(q.vlinks[1].vdc, 0);
    EXPECT_EQ(q.network.links.size(), 4U);
    EXPECT_EQ(q.host_types[0].nic_mbps, 10000);
}

TEST(Network, BadSectionsGetOneLineErrorsNamingThePath) {
    const std::vector<std::string> tors = {"tor1", "tor2"};
    struct Case {
        std::string text, message;
    };
    const std::string ok_links = kLeafSpineLinks;
    const Case cases[] = {
        {net_snapshot(tors, kLeafSpineSwitches, R"([["tor1", "spine9", 100]])", ""), "network.links[0][1]: unknown switch \"spine9\""},
        {net_snapshot(tors, kLeafSpineSwitches, R"([["tor1", "tor1", 100]])", ""), "network.links[0]: joins switch \"tor1\" to itself"},
        {net_snapshot(tors, kLeafSpineSwitches, R"([["tor1", "spine1", -5]])", ""), "network.links[0][2]: must be >= 1"},
        {net_snapshot(tors, kLeafSpineSwitches, R"([["tor1", "spine1", 1.5]])", ""), "network.links[0][2]: expected an integer"},
        {net_snapshot(tors, R"(["tor1", "tor1"])", "[]", ""), "network.switches[1]: duplicate switch \"tor1\""},
        {net_snapshot({"tor1", "nowhere"}, kLeafSpineSwitches, ok_links, ""), "hosts[1].uplink: unknown switch \"nowhere\""},
        {net_snapshot(tors, kLeafSpineSwitches, R"([["tor1", "spine1", 100]])", ""), "network: switch \"tor2\" (host \"h1\") cannot reach"},
        {net_snapshot(tors, kLeafSpineSwitches, ok_links, R"([["v0", "v9", 5]])"), "vlinks[0][1]: unknown VM \"v9\""},
        {net_snapshot(tors, kLeafSpineSwitches, ok_links, R"([["v0", "v0", 5]])"), "vlinks[0]: joins VM \"v0\" to itself"},
        {net_snapshot(tors, kLeafSpineSwitches, ok_links, R"([["v0", "v1", -1]])"), "vlinks[0][2]: must be >= 1"},
        {net_snapshot(tors, kLeafSpineSwitches, ok_links, R"([["v0", "v1", 2.5]])"), "vlinks[0][2]: expected an integer"},
        {net_snapshot(tors, kLeafSpineSwitches, ok_links, R"([["v0", "v1"]])"), "vlinks[0]: expected [vm_a, vm_b, mbps]"},
        {net_snapshot(tors, kLeafSpineSwitches, ok_links, R"([["v0", "v1", 2000000000]])"), "vlinks[0][2]: must be <= 1000000000"},
    };
    for (const Case& c : cases) {
        try {
            load_network(c.text);
            ADD_FAILURE() << "accepted; expected: " << c.message;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("net.json: " + c.message), std::string::npos) << e.what();
        }
    }
    // Vlinks without a network; a network host type without a NIC capacity.
    std::string no_net = net_snapshot(tors, kLeafSpineSwitches, ok_links, R"([["v0", "v1", 5]])");
    no_net.replace(no_net.find(R"("network")"), 0, R"("network_x": 0, )");
    EXPECT_THROW(load_network(no_net), InputError);  // unknown key
    std::string no_nic = net_snapshot(tors, kLeafSpineSwitches, ok_links, "");
    no_nic.erase(no_nic.find(R"(, "nic_mbps": 10000)"), std::string(R"(, "nic_mbps": 10000)").size());
    try {
        load_network(no_nic);
        ADD_FAILURE() << "no NIC capacity accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("host_types[0].nic_mbps: required when the snapshot has a network"), std::string::npos)
            << e.what();
    }
    const std::string plain = R"({"format": "vmcap-snapshot/1",
 "host_types": [{"name": "t", "topology": "K2", "node_capacity": {"vcpu": 16, "ram_mib": 65536}}],
 "hosts": [{"id": "h0", "type": "t"}], "flavors": [{"name": "f", "vcpu": 2, "ram_mib": 4096, "weight": 1}],
 "vms": [{"id": "a", "flavor": "f", "host": "h0", "pnuma": [1]}, {"id": "b", "flavor": "f", "host": "h0", "pnuma": [2]}],
 "vlinks": [["a", "b", 5]]})";
    try {
        load_network(plain);
        ADD_FAILURE() << "vlinks without a network accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("vlinks: vlinks need a \"network\" section"), std::string::npos) << e.what();
    }
}

TEST(Network, GeneratedLeafSpineAndTreeWithGridironVdcs) {
    GenerateOptions go;
    go.hosts = 50;
    go.vms = 300;
    go.hosts_per_rack = 10;
    for (const char* kind : {"leaf-spine", "tree"}) {
        SCOPED_TRACE(kind);
        Problem p = generate_cluster(go);
        NetworkOptions no;
        no.kind = kind;
        no.racks_per_pod = 2;
        no.vdc_size = 7;
        no.bpc_mbps = 3;
        add_network(p, no);
        // 5 racks -> 5 ToRs; leaf-spine: + 2 spines, 10 links; tree: + 3 aggregation switches + core, 5 + 3 links.
        EXPECT_EQ(p.network.switches.size(), std::string(kind) == "tree" ? 9U : 7U);
        EXPECT_EQ(p.network.links.size(), std::string(kind) == "tree" ? 8U : 10U);
        // VDCs of 7 VMs, all-to-all: 21 vlinks each; the last VDC holds the remainder (300 = 42 x 7 + 6).
        ASSERT_EQ(p.vdcs.size(), 43U);
        EXPECT_EQ(p.vlinks.size(), 42U * 21U + 15U);
        for (const Vlink& v : p.vlinks) {
            const Amount cores = std::min(p.flavors[p.vms[v.a].flavor].demand[kVcpu], p.flavors[p.vms[v.b].flavor].demand[kVcpu]);
            ASSERT_EQ(v.mbps, 3 * cores);
        }
        if (std::string(kind) == "tree") {
            EXPECT_EQ(p.hosts[49].pod, "p3");  // rack 5 of pods of 2 racks
        }
        // What `vmcap generate` writes passes the loader and reads back the same.
        const std::string text = format_json_lines(snapshot_to_json(p));
        const Problem q = parse_snapshot(nlohmann::json::parse(text), "gen.json");
        EXPECT_EQ(format_json_lines(snapshot_to_json(q)), text);
        const NetworkRoutes routes(q);
        std::int64_t finest = 1;
        for (int k = 0; k < routes.num_links(); ++k) finest = std::max(finest, routes.scale(k));
        EXPECT_EQ(finest, std::string(kind) == "tree" ? 1 : 2);
    }
    Problem p = generate_cluster(go);
    NetworkOptions bad;
    bad.kind = "bcube";
    EXPECT_THROW(add_network(p, bad), InputError);
    bad.kind = "tree";
    bad.vdc_size = 31;  // Gridiron caps a VDC at 30 VMs
    EXPECT_THROW(add_network(p, bad), InputError);
}

/** The leaf-spine example of docs/format.md ("Network and vlinks"). */
const char* kFormatExample = R"JSON({
  "format": "vmcap-snapshot/1",
  "host_types": [{"name": "k2", "topology": "K2", "node_capacity": {"vcpu": 16, "ram_mib": 65536}, "nic_mbps": 10000}],
  "hosts": [
    {"id": "h1", "type": "k2", "rack": "tor1"},
    {"id": "h2", "type": "k2", "rack": "tor1"},
    {"id": "h3", "type": "k2", "rack": "tor2"}
  ],
  "flavors": [{"name": "small", "vcpu": 2, "ram_mib": 4096}, {"name": "big", "vcpu": 16, "ram_mib": 65536, "vnuma": "K2", "weight": 1}],
  "vms": [
    {"id": "web1", "flavor": "small", "host": "h1", "pnuma": [1]},
    {"id": "web2", "flavor": "small", "host": "h3", "pnuma": [2]},
    {"id": "db", "flavor": "small", "host": "h2", "pnuma": [1]}
  ],
  "network": {
    "switches": ["tor1", "tor2", "spine1", "spine2"],
    "links": [["tor1", "spine1", 40000], ["tor1", "spine2", 40000], ["tor2", "spine1", 40000], ["tor2", "spine2", 40000]]
  },
  "vdcs": [{"id": "shop", "vlinks": [["web1", "db", 500], ["web2", "db", 500]]}],
  "vlinks": [["web1", "web2", 100]]
})JSON";

TEST(Network, CapacityReportsLinkLoadsAndOverloadedLinks) {
    const std::string path = (test::tmp_dir() / "net-example.json").string();
    std::ofstream(path) << kFormatExample;
    auto r = test::run_vmcap("capacity --cluster " + path);
    ASSERT_EQ(r.code, 0) << r.err;
    // db's host h2 carries both 500-Mbps vlinks each way; tor1 -> spine1 half of the 500 + 100
    // that leave tor1 (full duplex: the same comes back on spine1 -> tor1).
    EXPECT_NE(r.out.find("network: 7 full-duplex links (host uplinks included), 3 vlinks (2 in VDCs, 0 within one host)"),
              std::string::npos)
        << r.out;
    for (const char* dir : {"(to its switch)", "(from its switch)"}) {
        const std::string name = std::string("uplink of host \"h2\" ") + dir;
        const std::size_t at = r.out.find(name);
        ASSERT_NE(at, std::string::npos) << r.out;
        EXPECT_EQ(r.out.substr(at + 44, 40), "     1000.000 /      10000 Mbps    10.0%") << r.out;
    }
    r = test::run_vmcap("capacity --cluster " + path + " --format json");
    ASSERT_EQ(r.code, 0) << r.err;
    bool up = false, down = false;
    const auto report = nlohmann::json::parse(r.out);
    for (const auto& row : report["network"]["loaded_links"]) {
        up = up || (row["link"] == "link tor1 -> spine1 (network.links[0])" && row["load_mbps"] == 300.0);
        down = down || (row["link"] == "link spine1 -> tor1 (network.links[0])" && row["load_mbps"] == 300.0);
    }
    EXPECT_TRUE(up && down) << r.out;
    r = test::run_vmcap("capacity --cluster " + path);
    EXPECT_NE(r.out.find("link directions over capacity: 0"), std::string::npos) << r.out;
    std::string small_nic = kFormatExample;
    const std::string nic = "\"nic_mbps\": 10000";
    small_nic.replace(small_nic.find(nic), nic.size(), "\"nic_mbps\": 800");
    std::ofstream(path) << small_nic;
    r = test::run_vmcap("capacity --cluster " + path + " --format json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto doc = nlohmann::json::parse(r.out);
    ASSERT_EQ(doc["network"]["over_capacity"].size(), 2U) << r.out;  // both directions of h2's uplink
    EXPECT_EQ(doc["network"]["over_capacity"][0]["link"], "uplink of host \"h2\" (to its switch)");
    EXPECT_EQ(doc["network"]["over_capacity"][0]["load_mbps"], 1000.0);
    EXPECT_EQ(doc["network"]["over_capacity"][1]["link"], "uplink of host \"h2\" (from its switch)");
    // plan on the overloaded snapshot: the link may not get worse; the summary and the plan say so.
    const std::string out = (test::tmp_dir() / "net-plan.json").string();
    r = test::run_vmcap("plan --quiet --cluster " + path + " --out " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("network   3 vlink(s); link capacities kept at every step; link directions over capacity: 2 in the snapshot"),
              std::string::npos)
        << r.out;
    std::ifstream in(out);
    const auto plan = nlohmann::json::parse(in);
    EXPECT_EQ(plan["network"]["links_over_capacity_before"],
              nlohmann::json::array({"uplink of host \"h2\" (to its switch)", "uplink of host \"h2\" (from its switch)"}));
    EXPECT_EQ(test::run_vmcap("validate --cluster " + path + " --plan " + out).code, 0);
}

}  // namespace
}  // namespace vmcap

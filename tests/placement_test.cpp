// The placement seam (placement/placer.h): SearchState's arriving VMs (place / unplace keep every
// cache exact, checked from scratch), every registered placer's contract against exhaustive
// search over all (host, placement) pairs, and what a newcomer's placer costs (newcomer
// counts): a worst-fit strategy written in this one file against the seam alone, run
// through trace replay with nothing else touched. A registered strategy is its own .cpp plus one
// line in registered_placers: two files. The replay oracles of best-fit, first-fit and vmcap-fit
// (a brute-force replay with the exact VMCAP solver) are in trace_replay_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "evaluators/state/capacity_model.h"
#include "evaluators/rules/link_filter.h"
#include "evaluators/network/network_load.h"
#include "evaluators/state/fit.h"
#include "evaluators/state/search_state.h"
#include "instances/generator.h"
#include "placement/admission.h"
#include "placement/placer.h"
#include "placement/replay.h"
#include "tests/placer_contract.h"

namespace vmcap {
namespace {

using test::all_fits;
using test::with_arrivals;

TEST(Placement, PlaceAndUnplaceKeepEveryCacheExact) {
    for (std::uint64_t seed : {1, 2, 3}) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const Problem p = with_arrivals(seed, 8, 30, 60);
        const CapacityModel model(p);
        SearchState s(model);
        const int first = 30;
        for (int v = 0; v < first; ++v) EXPECT_TRUE(s.is_placed(v));
        for (int v = first; v < static_cast<int>(p.vms.size()); ++v) EXPECT_FALSE(s.is_placed(v));
        s.check_consistency();  // unplaced VMs take no room
        auto placer = make_placer("best-fit");
        placer->reset(s);
        std::mt19937_64 rng(seed);
        std::vector<int> placed;
        for (int v = first; v < static_cast<int>(p.vms.size()); ++v) {
            if (place_vm(s, *placer, v).found()) placed.push_back(v);
            if (!placed.empty() && rng() % 3 == 0) {
                const std::size_t i = rng() % placed.size();
                remove_vm(s, *placer, placed[i]);
                placed.erase(placed.begin() + static_cast<long>(i));
            }
            s.check_consistency();         // free amounts, b vectors and VMCAP of every target from scratch
            EXPECT_EQ(s.migrations(), 0);  // arrivals and departures are not migrations
        }
        EXPECT_FALSE(placed.empty());
        EXPECT_THROW(s.unplace(0), std::logic_error);                                                       // a snapshot VM cannot depart
        EXPECT_THROW(s.place(placed.front(), 0, model.evaluator(0, 0).placements()[0]), std::logic_error);  // already on a host
    }
}

TEST(Placement, MovingAnArrivalKeepsTheStateConsistentAndIsNoMigration) {
    // A VM that arrived may be live-migrated later (admission's make_room plans do it): the
    // incremental counts must equal rebuild()'s, which never counts an arrival as migrated.
    for (std::uint64_t seed : {1, 2, 3}) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const Problem p = with_arrivals(seed, 8, 30, 60);
        const CapacityModel model(p);
        SearchState s(model);
        auto placer = make_placer("best-fit");
        placer->reset(s);
        std::vector<int> placed;
        for (int v = 30; v < static_cast<int>(p.vms.size()); ++v)
            if (place_vm(s, *placer, v).found()) placed.push_back(v);
        ASSERT_FALSE(placed.empty());
        int moved = 0;
        for (int v : placed) {
            for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h) {
                if (h == s.host_of(v)) continue;
                const int e = first_fitting_placement(s, s.flavor_of(v), h);
                if (e < 0) continue;
                s.move(v, h, model.evaluator(s.type_of(h), s.flavor_of(v)).placements()[static_cast<std::size_t>(e)]);
                ++moved;
                break;
            }
            s.check_consistency();  // threw "VMs off their snapshot placement" / migration count before
            EXPECT_EQ(s.migrations(), 0);
            EXPECT_FALSE(s.is_migrated(v));
        }
        EXPECT_GT(moved, 0);
    }
}

TEST(Placement, EveryRegisteredPlacerKeepsItsContract) {
    std::set<std::string> names;
    for (const PlacerInfo& info : registered_placers()) names.insert(std::string(info.name));
    EXPECT_EQ(names,
              (std::set<std::string>{"best-fit", "ctaap", "deferred-acceptance", "exact", "first-fit", "link-fit", "starnet", "starnetla",
                                     "vmagent-best-fit", "vmcap-first-fit", "vmcap-fit", "vmcap-rack-fit", "worst-fit"}));
    for (const PlacerInfo& info : registered_placers()) {
        for (std::uint64_t seed : {4, 5}) {
            SCOPED_TRACE(std::string(info.name) + " seed " + std::to_string(seed));
            auto placer = info.make();
            test::expect_placer_contract(*placer, seed);
        }
    }
    EXPECT_THROW(make_placer("nope"), InputError);
    try {
        make_placer("nope");
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "unknown placer 'nope' (known: best-fit, ctaap, deferred-acceptance, exact, first-fit, link-fit, starnet, starnetla, "
                  "vmagent-best-fit, vmcap-first-fit, vmcap-fit, vmcap-rack-fit, worst-fit)");
    }
}

TEST(Placement, VmcapFitLosesNoMoreCapacityThanBestFitPerArrival) {
    // One arrival into the same state: vmcap-fit's loss is the least over all placements (the
    // full-recomputation oracle: place, read the objective, take back), so never more than best-fit's.
    const Problem p = with_arrivals(7, 10, 60, 40);
    const CapacityModel model(p);
    SearchState s(model);
    auto vf = make_placer("vmcap-fit"), bf = make_placer("best-fit");
    vf->reset(s);
    bf->reset(s);
    for (int v = 60; v < static_cast<int>(p.vms.size()); ++v) {
        const int f = s.flavor_of(v);
        const Score before = s.objective();
        Score best = 0;
        bool any = false;
        for (auto [h, e] : all_fits(s, f)) {
            s.place(v, h, model.evaluator(p.hosts[h].type, f).placements()[static_cast<std::size_t>(e)]);
            const Score change = s.objective() - before;
            s.unplace(v);
            best = any ? std::max(best, change) : change;
            any = true;
        }
        vf->reset(s);
        bf->reset(s);
        const PlaceChoice a = vf->choose(s, v), b = bf->choose(s, v);
        ASSERT_EQ(a.found(), any);
        if (!any) continue;
        auto change_of = [&](PlaceChoice c) {
            s.place(v, c.host, model.evaluator(p.hosts[c.host].type, f).placements()[static_cast<std::size_t>(c.embedding)]);
            const Score d = s.objective() - before;
            s.unplace(v);
            return d;
        };
        EXPECT_EQ(change_of(a), best);
        EXPECT_GE(change_of(a), change_of(b));
        ASSERT_TRUE(place_vm(s, *vf, v).found());
    }
}

/** A generated leaf-spine cluster whose VMs, in VDCs of 4 with all-to-all vlinks, all arrive
 *  (with `keep_every` > 0, every keep_every-th VM stays where the generator put it: a fragmented
 *  start): narrow NICs and ToR uplinks, so the link-capacity rule refuses some hosts. */
Problem vdc_arrivals(std::uint64_t seed, int keep_every = 0) {
    GenerateOptions g;
    g.hosts = 16;
    g.vms = 160;  // about as many as fit: the VDCs do not all fit again in another order
    g.seed = seed;
    g.hosts_per_rack = 4;
    Problem p = generate_cluster(g);
    NetworkOptions n;
    n.vdc_size = 4;
    n.bpc_mbps = 1'500;
    n.nic_mbps = 6'000;
    n.tor_uplink_mbps = 9'000;
    n.seed = seed;
    add_network(p, n);
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        if (keep_every == 0 || v % static_cast<std::size_t>(keep_every) != 0) p.vms[v].host = kUnplaced;
    p.constraints.max_migrations = 0;
    finalize_problem(p, "<test>", true);
    return p;
}

/** The VMs of each VDC, in VM order. */
std::vector<std::vector<int>> vdc_groups(const Problem& p) {
    std::vector<std::vector<int>> g(p.vdcs.size());
    std::vector<std::set<int>> members(p.vdcs.size());
    for (const Vlink& l : p.vlinks) members[static_cast<std::size_t>(l.vdc)].insert({l.a, l.b});
    for (std::size_t d = 0; d < g.size(); ++d) g[d].assign(members[d].begin(), members[d].end());
    return g;
}

// Every registered placer (the capacity ones through first_admitted) under the link rule.
TEST(Placement, GroupsWithVlinksKeepLinkLoadsExactAndEveryLinkWithinCapacity) {
    std::map<std::string, int> refusals;  // groups refused, per placer
    for (const PlacerInfo& info : registered_placers()) {
        SCOPED_TRACE(std::string(info.name));
        int placed = 0, refused = 0;
        for (std::uint64_t seed : {1, 2, 3}) {
            SCOPED_TRACE("seed " + std::to_string(seed));
            const Problem p = vdc_arrivals(seed);
            const CapacityModel model(p);
            ASSERT_NE(model.find<LinkCapacityFilter>(), nullptr);
            SearchState s(model);
            auto placer = info.make();
            placer->reset(s);
            std::mt19937_64 rng(seed);
            std::vector<std::vector<int>> in;
            for (const auto& group : vdc_groups(p)) {
                const GroupPlacement g = place_group(s, *placer, group);
                if (g.placed()) {
                    ++placed;
                    in.push_back(group);
                } else {  // all or nothing
                    ++refused;
                    for (int v : group) EXPECT_FALSE(s.is_placed(v));
                }
                if (!in.empty() && rng() % 4 == 0) {  // a VDC departs
                    const std::size_t i = rng() % in.size();
                    for (int v : in[i]) remove_vm(s, *placer, v);
                    in.erase(in.begin() + static_cast<long>(i));
                }
                s.check_consistency();  // link loads, free amounts and VMCAP from scratch
                std::vector<int> host;
                std::vector<NodeMask> mask;
                s.placement_arrays(host, mask);
                EXPECT_EQ(model.find<LinkCapacityFilter>()->violation(p, PlacementView{host, mask}), "");  // from scratch
            }
        }
        EXPECT_GT(placed, 20);
        refusals[std::string(info.name)] = refused;
    }
    // The cluster filled: refusals (and their undo) were exercised. starnetla puts a VDC's VMs by
    // their peers, on one host where they fit, exact finds a placement whenever one exists, and
    // link-fit retries a dead end with other anchors and strategies: here they fit every VDC
    // that arrives.
    for (const char* name : {"first-fit", "best-fit", "vmcap-fit", "starnet"}) EXPECT_GT(refusals[name], 0) << name;
}

// starnet / starnetla (seed 003 Alg. 2, 3) against a from-scratch recount: NovaFilter's hosts are
// those where the flavor fits whose uplink, both ways, has room for the VM's vlinks to peers on
// other hosts (loads recomputed from the placement with link_loads); starnet takes one of them
// and starnetla one with the most bandwidth to the VM's placed peers; a refusal means no host
// passed, or one that passed is refused by the link rule (the heuristics try one host only).
TEST(Placement, StarNetChoosesAmongNovaFilterHostsAndLocalityBySavings) {
    std::map<std::string, int> colocated_by;  // VMs placed on a host holding one of their peers
    for (const char* name : {"starnet", "starnetla"}) {
        const bool locality = std::string(name) == "starnetla";
        int placed = 0, colocated = 0;
        for (std::uint64_t seed : {1, 2, 3}) {
            SCOPED_TRACE(std::string(name) + " seed " + std::to_string(seed));
            const Problem p = vdc_arrivals(seed);
            const CapacityModel model(p);
            const NetworkRoutes& routes = model.find<LinkCapacityFilter>()->routes();
            SearchState s(model);
            auto placer = make_placer(name);
            placer->reset(s);
            const int H = static_cast<int>(p.hosts.size());
            for (const auto& group : vdc_groups(p)) {
                for (int v : group) {
                    std::vector<int> host(p.vms.size());
                    for (std::size_t u = 0; u < host.size(); ++u) host[u] = s.host_of(static_cast<int>(u));
                    const std::vector<std::int64_t> load = link_loads(p, routes, host);
                    std::vector<std::int64_t> savings(static_cast<std::size_t>(H), 0);
                    std::int64_t band = 0;
                    for (const Vlink& l : p.vlinks) {
                        const int peer = l.a == v ? l.b : l.b == v ? l.a : -1;
                        if (peer < 0 || host[static_cast<std::size_t>(peer)] == kUnplaced) continue;
                        savings[static_cast<std::size_t>(host[static_cast<std::size_t>(peer)])] += l.mbps;
                        band += l.mbps;
                    }
                    std::vector<int> passed;
                    std::int64_t most = -1;
                    for (int h = 0; h < H; ++h) {
                        const std::int64_t out = band - savings[static_cast<std::size_t>(h)];
                        const auto room = [&](int dir) {
                            const int a = NetworkRoutes::arc(h, dir);
                            return routes.capacity(a) - load[static_cast<std::size_t>(a)] >= out;
                        };
                        if (first_fitting_placement(s, s.flavor_of(v), h) < 0 || (out > 0 && !(room(0) && room(1)))) continue;
                        passed.push_back(h);
                        most = std::max(most, savings[static_cast<std::size_t>(h)]);
                    }
                    const PlaceChoice c = placer->choose(s, v);
                    const PlaceChoice again = placer->choose(s, v);
                    EXPECT_EQ(again.host, c.host);  // a function of the state and the VM
                    if (!c.found()) {
                        bool refused_one = false;
                        for (int h : passed) {
                            const int e = first_fitting_placement(s, s.flavor_of(v), h);
                            const NodeMask mask =
                                model.evaluator(p.hosts[h].type, s.flavor_of(v)).placements()[static_cast<std::size_t>(e)].mask;
                            refused_one =
                                refused_one || ((!locality || savings[static_cast<std::size_t>(h)] == most) && !rules_admit(s, v, h, mask));
                        }
                        EXPECT_TRUE(passed.empty() || refused_one) << "refused although every host it could have tried is admitted";
                        continue;
                    }
                    EXPECT_NE(std::find(passed.begin(), passed.end(), c.host), passed.end())
                        << "host " << c.host << " did not pass NovaFilter";
                    EXPECT_EQ(c.embedding, first_fitting_placement(s, s.flavor_of(v), c.host));  // Nova's NUMA fit: the first
                    if (locality) {
                        EXPECT_EQ(savings[static_cast<std::size_t>(c.host)], most);
                    }
                    colocated += savings[static_cast<std::size_t>(c.host)] > 0 ? 1 : 0;
                    ASSERT_TRUE(place_vm(s, *placer, v).found());
                    ++placed;
                }
            }
            s.check_consistency();
        }
        EXPECT_GT(placed, 100);
        colocated_by[name] = colocated;
    }
    EXPECT_GT(colocated_by["starnetla"], 2 * colocated_by["starnet"]);  // locality puts a VM by its peers where it can
}

/** Can `group[k..]` be placed on the state (every VM on some host and placement with room,
 *  every rule admitting it)? Depth-first over every (host, placement), pruned by the rules after
 *  each VM (a vlink's loads only grow as its ends arrive), with the link loads of each complete
 *  assignment recomputed from scratch. Leaves the state as it found it. */
bool some_group_placement(SearchState& s, std::span<const int> group, std::size_t k = 0) {
    if (k == group.size()) {
        std::vector<int> host;
        std::vector<NodeMask> mask;
        s.placement_arrays(host, mask);
        return s.model().find<LinkCapacityFilter>() == nullptr ||
               s.model().find<LinkCapacityFilter>()->violation(s.problem(), PlacementView{host, mask}).empty();
    }
    const int vm = group[k], f = s.flavor_of(vm);
    for (int h = 0; h < static_cast<int>(s.problem().hosts.size()); ++h) {
        const auto& pl = s.model().evaluator(s.type_of(h), f).placements();
        for (const Embedding& e : pl) {
            if (!fits(s, f, h, e) || !rules_admit(s, vm, h, e.mask)) continue;
            s.place(vm, h, e);
            const bool ok = some_group_placement(s, group, k + 1);
            s.unplace(vm);
            if (ok) return true;
        }
    }
    return false;
}

/** Groups placed and refused by `placer`, and the two ways it can disagree with depth-first
 *  search over every (host, placement) of every VM: a group refused that fits (missed) and a group
 *  placed that does not (spurious). Fragmented leaf-spine clusters, filled group after group. */
struct GroupsAgainstSearch {
    int placed = 0, refused = 0, missed = 0, spurious = 0;
};

GroupsAgainstSearch groups_against_search(const char* placer_name, std::initializer_list<std::uint64_t> seeds) {
    GroupsAgainstSearch out;
    for (std::uint64_t seed : seeds) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const Problem p = vdc_arrivals(seed, 3);
        const CapacityModel model(p);
        SearchState s(model);
        auto placer = make_placer(placer_name);
        placer->reset(s);
        for (const auto& all : vdc_groups(p)) {
            std::vector<int> group;
            for (int v : all)
                if (!s.is_placed(v)) group.push_back(v);
            if (group.empty()) continue;
            const bool exists = some_group_placement(s, group);
            const GroupPlacement g = place_group(s, *placer, group);
            out.missed += exists && !g.placed() ? 1 : 0;
            out.spurious += !exists && g.placed() ? 1 : 0;
            (g.placed() ? out.placed : out.refused) += 1;
            s.check_consistency();
        }
    }
    return out;
}

// `exact` (a MILP per group, CBC) places a VDC exactly when some placement of all its VMs exists.
TEST(Placement, ExactPlacesAGroupIffExhaustiveSearchFindsAPlacement) {
    const GroupsAgainstSearch r = groups_against_search("exact", {1, 2});
    EXPECT_EQ(r.missed, 0);
    EXPECT_EQ(r.spurious, 0);
    EXPECT_GT(r.placed, 10);
    EXPECT_GT(r.refused, 3);
}

// `link-fit` with its retries (a dead end is undone and the group tried again: the first VM on the
// emptiest host, then best-fit's and first-fit's choices) places every VDC that fits. Without the
// retries it refused VDCs that fit.
TEST(Placement, LinkFitPlacesEveryGroupExhaustiveSearchPlacesOnFragmentedLeafSpines) {
    const GroupsAgainstSearch r = groups_against_search("link-fit", {1, 2, 3, 4, 5, 6});
    EXPECT_EQ(r.missed, 0);
    EXPECT_EQ(r.spurious, 0);
    EXPECT_GT(r.placed, 10);
    EXPECT_GT(r.refused, 3);
}

// `deferred-acceptance` (seed 004) on batches of arriving VMs, against two oracles built here
// from their definitions: each VM's preferences (hosts where it fits, by the exact change of the
// objective when placed there, by placing it, best over its placements; then least free vCPU,
// then host index) and the hosts' master list (more vCPU, more RAM, more vNUMA nodes, lower VM
// index). (1) The matching equals the serial dictatorship's: VMs in the master order, each on its
// first preferred host where it still fits, in the placement leaving the least free vCPU on its
// nodes. (2) It is stable: no VM i and host h it prefers to its match on which it fits, by any
// placement, next to the batch's VMs that h ranks above i (from the free amounts, by hand).
// 300 random batches of 12-40 VMs (2 resources, 1-4 vNUMA nodes) on 3-6 fragmented hosts of
// 4 (K4) or 8 (CQ3) pNUMA nodes: proposal rounds in which a host re-packs what it holds left
// blocking pairs on a few of them.
TEST(Placement, DeferredAcceptanceIsStableAndEqualsSerialDictatorship) {
    int not_first_choice = 0, unmatched = 0, checked = 0, blocking = 0;
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const int hosts = 3 + static_cast<int>(seed % 4);
        const Problem p = with_arrivals(seed, hosts, 6 * hosts, 12 + static_cast<int>(seed * 7 % 29));
        const CapacityModel model(p);
        const int H = static_cast<int>(p.hosts.size()), R = p.num_resources();
        std::vector<int> batch;
        for (int v = 0; v < static_cast<int>(p.vms.size()); ++v)
            if (p.vms[static_cast<std::size_t>(v)].host == kUnplaced) batch.push_back(v);
        SearchState s0(model);                 // before the batch
        std::map<int, std::vector<int>> pref;  // vm -> hosts, most preferred first
        for (int v : batch) {
            std::vector<std::tuple<Score, Amount, int>> keyed;
            for (int h = 0; h < H; ++h) {
                bool any = false;
                Score best = 0;
                for (const Embedding& e : model.evaluator(p.hosts[h].type, s0.flavor_of(v)).placements()) {
                    if (!fits(s0, s0.flavor_of(v), h, e)) continue;
                    const Score before = s0.objective();
                    s0.place(v, h, e);
                    const Score change = s0.objective() - before;
                    s0.unplace(v);
                    best = any ? std::max(best, change) : change;
                    any = true;
                }
                if (any) keyed.emplace_back(-best, host_free(s0, h).vcpu, h);
            }
            std::sort(keyed.begin(), keyed.end());
            for (const auto& k : keyed) pref[v].push_back(std::get<2>(k));
        }
        std::vector<int> master = batch;
        auto key = [&](int v) {
            const Flavor& f = p.flavors[static_cast<std::size_t>(s0.flavor_of(v))];
            return std::make_tuple(-f.demand[kVcpu], -f.demand[kRamMib], -f.num_vnuma(), v);
        };
        std::sort(master.begin(), master.end(), [&](int a, int b) { return key(a) < key(b); });

        SearchState s(model);
        auto placer = make_placer("deferred-acceptance");
        placer->reset(s);
        EXPECT_EQ(placer->order(s, batch), master);
        for (int v : master) place_vm(s, *placer, v);
        s.check_consistency();

        // (2) no blocking pair
        int blocking_here = 0;
        for (std::size_t r = 0; r < master.size(); ++r) {
            const int v = master[r], f = s.flavor_of(v);
            const Flavor& fl = p.flavors[static_cast<std::size_t>(f)];
            const auto& list = pref[v];
            const auto mine = std::find(list.begin(), list.end(), s.host_of(v));
            unmatched += s.is_placed(v) ? 0 : 1;
            not_first_choice += (s.is_placed(v) && mine != list.begin()) ? 1 : 0;
            for (auto h = list.begin(); h != mine; ++h) {
                std::vector<Amount> free(s0.free_of(*h), s0.free_of(*h) + s0.nodes_of(*h) * R);
                for (std::size_t q = 0; q < r; ++q) {  // the batch's VMs ranked above v, on h
                    const int u = master[q];
                    if (s.host_of(u) != *h) continue;
                    const Flavor& fu = p.flavors[static_cast<std::size_t>(s.flavor_of(u))];
                    for (int i = 0; i < fu.num_vnuma(); ++i)
                        for (int res = 0; res < R; ++res) free[static_cast<std::size_t>(s.pnuma_of(u)[i] * R + res)] -= fu.node_demand[res];
                }
                bool fits_there = false;
                for (const Embedding& e : model.evaluator(p.hosts[*h].type, f).placements()) {
                    bool ok = true;
                    for (int i = 0; i < fl.num_vnuma(); ++i)
                        for (int res = 0; res < R; ++res)
                            ok = ok && free[static_cast<std::size_t>(e.map[static_cast<std::size_t>(i)] * R + res)] >= fl.node_demand[res];
                    fits_there = fits_there || ok;
                }
                EXPECT_FALSE(fits_there) << "blocking pair: VM " << v << " and host " << *h;
                blocking_here += fits_there ? 1 : 0;
                ++checked;
            }
        }
        blocking += blocking_here;

        SearchState sd(model);  // (1) serial dictatorship
        for (int v : master) {
            for (int h : pref[v]) {
                const int e = tightest_placement(sd, sd.flavor_of(v), h);
                if (e < 0) continue;
                sd.place(v, h, model.evaluator(p.hosts[h].type, sd.flavor_of(v)).placements()[static_cast<std::size_t>(e)]);
                break;
            }
            ASSERT_EQ(s.host_of(v), sd.host_of(v)) << "VM " << v;
            for (int i = 0; s.is_placed(v) && i < p.flavors[static_cast<std::size_t>(s.flavor_of(v))].num_vnuma(); ++i) {
                EXPECT_EQ(s.pnuma_of(v)[i], sd.pnuma_of(v)[i]);
            }
        }
    }
    EXPECT_EQ(blocking, 0);
    EXPECT_GT(not_first_choice, 300);  // VMs competed for hosts
    EXPECT_GT(unmatched, 100);         // and some found no room
    EXPECT_GT(checked, 1000);
}

// `vmcap place --strategy deferred-acceptance --batch N` on clusters without a network: 300
// batches of 50-78 VMs on 3-6 hosts, more than fit. A single-VM request is refused only when its flavor fits on no host as the batch's
// earlier VMs left them, so its reason (why_not, counted over the hosts at its turn) is the
// resource short on every host or pNUMA fragmentation, never link capacity.
TEST(Placement, DeferredAcceptanceBatchRefusesOnlyWhatFitsNowhereAndNeverCitesLinks) {
    int refused = 0;
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const int hosts = 3 + static_cast<int>(seed % 4), arrivals = 50 + static_cast<int>(seed * 7 % 29);
        const Problem p = with_arrivals(seed, hosts, hosts, arrivals);
        Problem cluster = p;
        std::vector<Request> requests;
        for (const Vm& vm : p.vms)
            if (vm.host == kUnplaced)
                requests.push_back(Request{"r" + vm.id, false, {RequestVm{"vm", p.flavors[static_cast<std::size_t>(vm.flavor)].name}}, {}});
        std::erase_if(cluster.vms, [](const Vm& vm) { return vm.host == kUnplaced; });
        finalize_problem(cluster, "<cluster>");
        AdmissionOptions o;
        o.strategy = "deferred-acceptance";
        o.batch = arrivals;
        const AdmissionResult res = admit_requests(cluster, requests, o, "<requests>");
        for (const RequestOutcome& out : res.outcomes) {
            if (out.accepted) continue;
            ++refused;
            EXPECT_EQ(out.reason.find("link"), std::string::npos) << out.id << ": " << out.reason;
            EXPECT_TRUE(out.reason.starts_with("no host has") || out.reason.starts_with("pNUMA fragmentation"))
                << out.id << ": " << out.reason;
        }
    }
    EXPECT_GT(refused, 1000);
}

// first_admitted ranks candidates as each capacity placer's own index does: with vlinks of 1 Mbps
// (a link rule that never refuses) every choice equals the same placer's on the problem without
// vlinks (no rule: the indexed path), VM after VM, from a fragmented start (every third VM stays).
TEST(Placement, RankedPathChoosesAsTheIndexedPath) {
    Problem ruled = vdc_arrivals(2, 3);
    for (Vlink& l : ruled.vlinks) l.mbps = 1;
    Problem free_of_rules = ruled;
    free_of_rules.vlinks.clear();
    free_of_rules.vdcs.clear();
    finalize_problem(ruled, "<ruled>", true);
    finalize_problem(free_of_rules, "<free>", true);
    const CapacityModel mr(ruled), mf(free_of_rules);
    ASSERT_TRUE(mr.has_filters());
    ASSERT_FALSE(mf.has_filters());
    for (const char* name : {"first-fit", "best-fit", "vmcap-fit"}) {
        SearchState sr(mr), sf(mf);
        auto pr = make_placer(name), pf = make_placer(name);
        pr->reset(sr);
        pf->reset(sf);
        int placed = 0;
        for (int v = 0; v < static_cast<int>(ruled.vms.size()); ++v) {
            if (sr.is_placed(v)) continue;  // a VM the start kept
            const PlaceChoice a = place_vm(sr, *pr, v), b = place_vm(sf, *pf, v);
            ASSERT_EQ(a.host, b.host) << name << " vm " << v;
            ASSERT_EQ(a.embedding, b.embedding) << name << " vm " << v;
            placed += a.found() ? 1 : 0;
        }
        EXPECT_GT(placed, 60) << name;
    }
}

TEST(Placement, LinkFitAddsTheLeastLinkLoadByFullRecomputation) {
    // Every VM after a group's first goes where its vlinks add the least load, summed over all
    // arcs, among the hosts with room whose links all stay within capacity; ties least free vCPU,
    // then lowest host. Oracle: link_loads recomputed from scratch with the VM on each host.
    const Problem p = vdc_arrivals(3);
    const CapacityModel model(p);
    SearchState s(model);
    auto placer = make_placer("link-fit");
    placer->reset(s);
    const NetworkRoutes& routes = *model.network_routes();
    int checked = 0;
    for (const auto& group : vdc_groups(p)) {
        const std::vector<int> order = placer->order(s, group);
        std::vector<int> done;
        bool ok = true;
        for (std::size_t i = 0; i < order.size() && ok; ++i) {
            const int v = order[i];
            const PlaceChoice c = placer->choose(s, v);
            if (i > 0) {
                std::vector<int> host;
                std::vector<NodeMask> mask;
                s.placement_arrays(host, mask);
                const auto base = link_loads(p, routes, host);
                bool any = false;
                std::tuple<std::int64_t, Amount, int> best{};
                for (auto [h, e] : all_fits(s, s.flavor_of(v))) {
                    host[static_cast<std::size_t>(v)] = h;
                    const auto with = link_loads(p, routes, host);
                    std::int64_t added = 0;
                    bool within = true;
                    for (int l = 0; l < routes.num_links(); ++l) {
                        added += with[static_cast<std::size_t>(l)] - base[static_cast<std::size_t>(l)];
                        within = within && with[static_cast<std::size_t>(l)] <= routes.capacity(l);
                    }
                    host[static_cast<std::size_t>(v)] = kUnplaced;
                    const std::tuple<std::int64_t, Amount, int> key{added, host_free(s, h).vcpu, h};
                    if (within && (!any || key < best)) best = key, any = true;
                }
                ASSERT_EQ(c.found(), any);
                if (any) {
                    EXPECT_EQ(c.host, std::get<2>(best));
                    ++checked;
                }
            }
            if (!c.found()) {
                ok = false;
                break;
            }
            s.place(v, c.host, model.evaluator(p.hosts[c.host].type, s.flavor_of(v)).placements()[static_cast<std::size_t>(c.embedding)]);
            placer->host_changed(s, c.host);
            done.push_back(v);
        }
        if (!ok)
            for (int v : done) remove_vm(s, *placer, v);
    }
    EXPECT_GT(checked, 20);
}

// ---- A newcomer's placer, in this file only: worst fit (the host with the most free vCPU, its
// first placement that fits). It keeps no index, so it ignores reset and host_changed.
class WorstFitPlacer final : public Placer {
public:
    PlaceChoice choose(const SearchState& s, int vm) override {
        const int flavor = s.flavor_of(vm);
        PlaceChoice best;
        Amount most = -1;
        for (int h = 0; h < static_cast<int>(s.problem().hosts.size()); ++h) {
            const Amount free = host_free(s, h).vcpu;
            if (free <= most) continue;
            if (const int e = first_fitting_placement(s, flavor, h); e >= 0) {
                best = PlaceChoice{h, e};
                most = free;
            }
        }
        return best;
    }
};

TEST(Placement, ANewcomersPlacerRunsThroughReplayWithNothingElseTouched) {
    // Worst fit spreads, best fit packs: on a part-full cluster worst fit touches more hosts.
    WorstFitPlacer worst;
    test::expect_spreads_more_than_best_fit(worst, 11);
}

}  // namespace
}  // namespace vmcap

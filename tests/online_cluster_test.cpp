// Tests of placement/online_cluster.h: the one event loop of replay, admission and simulate.
// Oracles: the test's own bookkeeping of where every VM is and what is held, the pNUMA nodes'
// free amounts recomputed from it from scratch, brute-force room for a flavor over every host
// and placement, and hand-made scenarios whose outcome is known in advance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "evaluators/state/capacity_model.h"
#include "evaluators/state/search_state.h"
#include "instances/trace.h"
#include "instances/vnuma_rule.h"
#include "placement/online_cluster.h"
#include "placement/placer.h"
#include "placement/replay.h"
#include "tests/test_constants.h"

namespace vmcap {
namespace {

using test::kInf;
using Nodes = std::array<std::uint8_t, kMaxVNuma>;

/** A cluster whose VMs all arrive later: the problem replay_arrivals builds from `trace`. */
struct Arriving {
    std::vector<TraceVm> trace;
    std::vector<std::size_t> arrivals;
    Problem problem;
    std::unique_ptr<CapacityModel> model;

    Arriving(std::vector<TraceVm> t, const HostType& type, int hosts) : trace(std::move(t)) {
        SnapshotOptions o;
        o.host_type = type;
        o.num_hosts = hosts;
        o.time_s = trace.empty() ? 0.0 : trace.back().arrival_s - trace.front().arrival_s;
        o.targets = "all";
        problem = replay_arrivals(trace, o, arrivals);
        model = std::make_unique<CapacityModel>(problem);
    }
};

/** A random trace of `n` VMs of one-, two- and four-node flavors on CQ3 hosts of 8 vCPU and
 *  32 GiB per node (16c64g and larger span several nodes). */
std::vector<TraceVm> random_online_trace(std::uint64_t seed, int n) {
    struct Kind {
        const char* name;
        Amount vcpu, ram_gib;
    };
    const Kind kinds[] = {{"2c8g", 2, 8}, {"4c16g", 4, 16}, {"8c32g", 8, 32}, {"16c64g", 16, 64}, {"24c96g", 24, 96}};
    std::mt19937_64 rng(seed);
    std::vector<TraceVm> trace;
    for (int i = 0; i < n; ++i) {
        const Kind& k = kinds[rng() % 5];
        TraceVm vm;
        vm.arrival_s = static_cast<double>(i) * 10.0;
        vm.departure_s = rng() % 4 == 0 ? kInf : vm.arrival_s + 10.0 + static_cast<double>(rng() % 400);
        vm.vcpu = k.vcpu;
        vm.ram_mib = k.ram_gib * 1024;
        vm.flavor_name = k.name;
        trace.push_back(vm);
    }
    return trace;
}

/** The test's own account of the cluster: where every VM is, what is held, what departs when. */
struct Ledger {
    const Problem& p;
    std::vector<int> host;  ///< [vm] -1: on no host
    std::vector<Nodes> at;  ///< [vm] pNUMA nodes when on a host
    std::multimap<double, int> departs;
    struct Hold {
        int flavor, host;
        Nodes nodes;
    };
    std::vector<Hold> holds;
    std::int64_t departed = 0;

    explicit Ledger(const Problem& problem) : p(problem), host(problem.vms.size(), -1), at(problem.vms.size()) {}

    int k(int flavor) const { return p.flavors[static_cast<std::size_t>(flavor)].num_vnuma(); }

    /** Free amounts of every pNUMA node, from scratch: [host][node * R + r]. */
    std::vector<std::vector<Amount>> free() const {
        const int R = p.num_resources();
        std::vector<std::vector<Amount>> f(p.hosts.size());
        for (std::size_t h = 0; h < p.hosts.size(); ++h) f[h] = p.host_type_of(static_cast<int>(h)).node_capacity;
        const auto take = [&](int flavor, int h, const Nodes& nodes) {
            const Flavor& fl = p.flavors[static_cast<std::size_t>(flavor)];
            for (int i = 0; i < fl.num_vnuma(); ++i)
                for (int r = 0; r < R; ++r) f[static_cast<std::size_t>(h)][static_cast<std::size_t>(nodes[i] * R + r)] -= fl.node_demand[r];
        };
        for (std::size_t v = 0; v < host.size(); ++v)
            if (host[v] >= 0) take(p.vms[v].flavor, host[v], at[v]);
        for (const Hold& x : holds) take(x.flavor, x.host, x.nodes);
        return f;
    }

    /** Room for a VM of `flavor` on (h, nodes) in `free`. */
    bool room(const std::vector<std::vector<Amount>>& free, int flavor, int h, const std::uint8_t* nodes) const {
        const int R = p.num_resources();
        const Flavor& fl = p.flavors[static_cast<std::size_t>(flavor)];
        for (int i = 0; i < fl.num_vnuma(); ++i)
            for (int r = 0; r < R; ++r)
                if (free[static_cast<std::size_t>(h)][static_cast<std::size_t>(nodes[i] * R + r)] < fl.node_demand[r]) return false;
        return true;
    }

    /** Brute force: does a VM of `flavor` fit on some host, on some placement of its vNUMA graph? */
    bool fits_anywhere(const CapacityModel& m, int flavor) const {
        const auto f = free();
        for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h)
            for (const Embedding& e : m.evaluator(p.hosts[static_cast<std::size_t>(h)].type, flavor).placements())
                if (room(f, flavor, h, e.map.data())) return true;
        return false;
    }

    /** Room for `vm`'s migration to (h, nodes), its own share counted free first. */
    bool migration_fits(int vm, int h, const Nodes& nodes) {
        const int keep = host[static_cast<std::size_t>(vm)];
        host[static_cast<std::size_t>(vm)] = -1;
        const bool ok = room(free(), p.vms[static_cast<std::size_t>(vm)].flavor, h, nodes.data());
        host[static_cast<std::size_t>(vm)] = keep;
        return ok;
    }
};

/** Every VM where the ledger says, every node's free amount as recomputed, counters equal. */
void expect_matches(const OnlineCluster& c, const Ledger& l) {
    const SearchState& s = c.state();
    std::int64_t live = 0;
    for (int v = 0; v < static_cast<int>(l.host.size()); ++v) {
        ASSERT_EQ(s.is_placed(v) ? s.host_of(v) : -1, l.host[static_cast<std::size_t>(v)]) << "vm " << v;
        if (!s.is_placed(v)) continue;
        ++live;
        for (int i = 0; i < l.k(s.flavor_of(v)); ++i) ASSERT_EQ(s.pnuma_of(v)[i], l.at[static_cast<std::size_t>(v)][i]) << "vm " << v;
    }
    const auto free = l.free();
    const int R = l.p.num_resources();
    for (int h = 0; h < static_cast<int>(free.size()); ++h)
        for (std::size_t i = 0; i < free[static_cast<std::size_t>(h)].size(); ++i) {
            ASSERT_GE(free[static_cast<std::size_t>(h)][i], 0) << "host " << h;
            ASSERT_EQ(s.free_of(h)[i], free[static_cast<std::size_t>(h)][i]) << "host " << h << " node " << i / R;
        }
    EXPECT_EQ(c.live(), live);
    EXPECT_EQ(c.departed(), l.departed);
}

/** The ledger takes the VMs that the cluster's departures up to t took off. */
void depart_in_ledger(Ledger& l, double t) {
    while (!l.departs.empty() && l.departs.begin()->first <= t) {
        l.host[static_cast<std::size_t>(l.departs.begin()->second)] = -1;
        ++l.departed;
        l.departs.erase(l.departs.begin());
    }
}

/** Random arrivals, departures, migrations (some with no room), all-or-none batches of
 *  migrations, some taken back: the state always equals the ledger recomputed from scratch, a
 *  migration moves exactly when the ledger has room for it, and a flavor is blocked exactly when
 *  it was refused and after no single change since (a departure, one migration) had a host room
 *  for it. */
TEST(OnlineCluster, RandomSequencesMatchARecomputationFromScratch) {
    for (const char* placer_name : {"best-fit", "first-fit", "vmcap-fit"}) {
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            SCOPED_TRACE(std::string(placer_name) + " seed " + std::to_string(seed));
            const Arriving a(random_online_trace(seed, 160), uniform_host_type("CQ3", 8, 32 * 1024), 3);
            const Problem& p = a.problem;
            auto placer = make_placer(placer_name);
            OnlineCluster c(*a.model, *placer);
            Ledger l(p);
            std::vector<char> blocked(p.flavors.size(), 0);  // the brute-force account of blocked flavors
            std::mt19937_64 rng(seed * 7919);
            int refused = 0, unblocked = 0, moved = 0, no_room = 0, undone = 0;
            const auto placed_vms = [&] {
                std::vector<int> out;
                for (int v = 0; v < static_cast<int>(l.host.size()); ++v)
                    if (l.host[static_cast<std::size_t>(v)] >= 0) out.push_back(v);
                return out;
            };
            const auto random_step = [&](int vm) {
                Placement m;
                m.vm = vm;
                m.host = static_cast<int>(rng() % p.hosts.size());
                const auto& e =
                    a.model->evaluator(p.hosts[static_cast<std::size_t>(m.host)].type, p.vms[static_cast<std::size_t>(vm)].flavor)
                        .placements();
                m.pnuma = e[rng() % e.size()].map;
                return m;
            };
            // After each single change (a departure, one migration): a blocked flavor that fits
            // somewhere now is no longer blocked (the room may be gone again a step later).
            const auto room_seen = [&](const Ledger& now) {
                for (int f = 0; f < static_cast<int>(p.flavors.size()); ++f)
                    if (blocked[static_cast<std::size_t>(f)] && now.fits_anywhere(*a.model, f)) {
                        blocked[static_cast<std::size_t>(f)] = 0;
                        ++unblocked;
                    }
            };
            const auto check_blocked = [&] {
                room_seen(l);
                for (int f = 0; f < static_cast<int>(p.flavors.size()); ++f) {
                    ASSERT_EQ(c.blocked(f), blocked[static_cast<std::size_t>(f)] != 0)
                        << "flavor " << p.flavors[static_cast<std::size_t>(f)].name;
                }
            };
            for (std::size_t i = 0; i < a.arrivals.size(); ++i) {
                const TraceVm& vm = a.trace[a.arrivals[i]];
                const int v = static_cast<int>(i);
                c.advance_to(vm.arrival_s);
                while (!l.departs.empty() && l.departs.begin()->first <= vm.arrival_s) {
                    depart_in_ledger(l, l.departs.begin()->first);  // one time at a time: room seen in between
                    room_seen(l);
                }
                ASSERT_NO_FATAL_FAILURE(expect_matches(c, l));
                ASSERT_NO_FATAL_FAILURE(check_blocked());
                const int f = p.vms[static_cast<std::size_t>(v)].flavor;
                const bool room = l.fits_anywhere(*a.model, f);
                const OnlineCluster::Arrival r = c.arrive(v, vm.departure_s);
                ASSERT_EQ(r.placed, room) << "complete placer, no rules: placed iff some host has room";
                EXPECT_EQ(r.migrations, 0);
                if (r.placed) {
                    l.host[i] = c.state().host_of(v);
                    std::copy(c.state().pnuma_of(v), c.state().pnuma_of(v) + l.k(f), l.at[i].begin());
                    if (vm.departure_s != kInf) l.departs.emplace(vm.departure_s, v);
                } else {
                    blocked[static_cast<std::size_t>(f)] = 1;
                    ++refused;
                }
                ASSERT_NO_FATAL_FAILURE(expect_matches(c, l));
                ASSERT_NO_FATAL_FAILURE(check_blocked());
                const std::vector<int> on = placed_vms();
                if (on.empty()) continue;
                if (rng() % 2 == 0) {  // one migration, with or without room
                    const Placement m = random_step(on[rng() % on.size()]);
                    const bool fits = l.migration_fits(m.vm, m.host, m.pnuma);
                    ASSERT_EQ(c.migrate(m.vm, m.host, m.pnuma), fits);
                    if (fits) {
                        l.host[static_cast<std::size_t>(m.vm)] = m.host;
                        l.at[static_cast<std::size_t>(m.vm)] = m.pnuma;
                        ++moved;
                    } else {
                        ++no_room;
                    }
                } else {  // a batch of migrations, all or none, then taken back or kept
                    std::vector<Placement> steps;
                    for (int n = 1 + static_cast<int>(rng() % 3); n > 0; --n) steps.push_back(random_step(on[rng() % on.size()]));
                    Ledger trial = l;
                    std::vector<std::pair<int, std::pair<int, Nodes>>> back;  // (vm, where it was), to take back
                    bool all = true;
                    for (const Placement& m : steps) {
                        if (!trial.migration_fits(m.vm, m.host, m.pnuma)) {
                            all = false;
                            break;
                        }
                        back.push_back({m.vm, {trial.host[static_cast<std::size_t>(m.vm)], trial.at[static_cast<std::size_t>(m.vm)]}});
                        trial.host[static_cast<std::size_t>(m.vm)] = m.host;
                        trial.at[static_cast<std::size_t>(m.vm)] = m.pnuma;
                        room_seen(trial);
                    }
                    const auto take_back = [&] {
                        for (auto it = back.rbegin(); it != back.rend(); ++it) {
                            trial.host[static_cast<std::size_t>(it->first)] = it->second.first;
                            trial.at[static_cast<std::size_t>(it->first)] = it->second.second;
                            room_seen(trial);
                        }
                    };
                    std::vector<OnlineCluster::Migration> done = c.migrate_all(steps);
                    ASSERT_EQ(done.size(), all ? steps.size() : 0U);
                    if (!all) {
                        take_back();
                        ASSERT_NO_FATAL_FAILURE(expect_matches(c, l));  // the steps applied were taken back
                    } else if (rng() % 2 == 0) {
                        c.undo(done);
                        EXPECT_TRUE(done.empty());
                        take_back();
                        ++undone;
                        ASSERT_NO_FATAL_FAILURE(expect_matches(c, l));
                    } else {
                        for (std::size_t s = 0; s < steps.size(); ++s) {
                            EXPECT_EQ(done[s].vm, steps[s].vm);
                            EXPECT_EQ(done[s].to_host, steps[s].host);
                            EXPECT_EQ(done[s].from_host, s == 0 || steps[s - 1].vm != steps[s].vm ? done[s].from_host : steps[s - 1].host);
                        }
                        l.host = trial.host;
                        l.at = trial.at;
                        moved += static_cast<int>(steps.size());
                    }
                }
                ASSERT_NO_FATAL_FAILURE(expect_matches(c, l));
                ASSERT_NO_FATAL_FAILURE(check_blocked());
            }
            c.advance_to(kInf);
            depart_in_ledger(l, kInf);
            ASSERT_NO_FATAL_FAILURE(expect_matches(c, l));
            ASSERT_NO_FATAL_FAILURE(check_blocked());
            // The sequence exercised what it is meant to (not a test that cannot fail).
            EXPECT_GT(refused, 0);
            EXPECT_GT(unblocked, 0);
            EXPECT_GT(moved, 0);
            EXPECT_GT(no_room, 0);
            EXPECT_GT(undone, 0);
        }
    }
}

/** A trace VM of `vcpu` vCPU and 4 GiB per vCPU. */
TraceVm vm_of(double arrival_s, double departure_s, Amount vcpu) {
    TraceVm vm;
    vm.arrival_s = arrival_s;
    vm.departure_s = departure_s;
    vm.vcpu = vcpu;
    vm.ram_mib = vcpu * 4 * 1024;
    vm.flavor_name = trace_flavor_name(vcpu, vm.ram_mib);
    return vm;
}

/** Hosts of one pNUMA node of 8 vCPU and 32 GiB: one 8c32g VM fills one. */
struct TwoHosts : Arriving {
    static std::vector<TraceVm> trace_of(int n) {
        std::vector<TraceVm> t;
        for (int i = 0; i < n; ++i) t.push_back(vm_of(static_cast<double>(i), kInf, 8));
        return t;
    }
    TwoHosts(int vms, int hosts) : Arriving(trace_of(vms), uniform_host_type("K1", 8, 32 * 1024), hosts) {}
    TwoHosts(std::vector<TraceVm> t, int hosts) : Arriving(std::move(t), uniform_host_type("K1", 8, 32 * 1024), hosts) {}
};

TEST(OnlineCluster, AStepInFlightHoldsItsDestinationUntilItEnds) {
    const TwoHosts a(3, 2);
    auto placer = make_placer("first-fit");
    OnlineCluster c(*a.model, *placer);
    ASSERT_TRUE(c.arrive(0).placed);
    ASSERT_EQ(c.state().host_of(0), 0);
    std::vector<std::pair<std::size_t, bool>> ended;
    const auto on_step = [&](std::size_t tag, bool moved) { ended.emplace_back(tag, moved); };
    c.launch(0, 1, Nodes{0}, 10.0, 20.0, 7);
    EXPECT_TRUE(c.steps_in_flight());
    c.advance_to(9.0, on_step);
    EXPECT_EQ(c.state().free_of(1)[kVcpu], 8) << "not held before its start";
    c.advance_to(10.0, on_step);
    EXPECT_EQ(c.state().free_of(1)[kVcpu], 0) << "held from its start";
    EXPECT_EQ(c.state().host_of(0), 0) << "the VM still runs on its source";
    EXPECT_FALSE(c.arrive(1).placed) << "the held node takes no arrival";
    EXPECT_TRUE(c.blocked(0));
    c.advance_to(19.5, on_step);
    EXPECT_TRUE(c.blocked(0));
    EXPECT_TRUE(ended.empty());
    c.advance_to(20.0, on_step);
    ASSERT_EQ(ended.size(), 1U);
    EXPECT_EQ(ended[0], std::make_pair(std::size_t{7}, true));
    EXPECT_EQ(c.state().host_of(0), 1);
    EXPECT_FALSE(c.blocked(0)) << "the source gained room at the end";
    EXPECT_FALSE(c.steps_in_flight());
    ASSERT_TRUE(c.arrive(2).placed);
    EXPECT_EQ(c.state().host_of(2), 0);
    // A step with no room at its start is dropped and holds nothing.
    c.launch(2, 1, Nodes{0}, 30.0, 40.0, 8);
    c.advance_to(30.0, on_step);
    ASSERT_EQ(ended.size(), 2U);
    EXPECT_EQ(ended[1], std::make_pair(std::size_t{8}, false));
    EXPECT_EQ(c.state().host_of(2), 0);
    EXPECT_EQ(c.state().free_of(0)[kVcpu], 0);
    EXPECT_EQ(c.state().free_of(1)[kVcpu], 0);
}

TEST(OnlineCluster, DeparturesComeFirstOnTiesAndAStepWhoseVmLeftIsDropped) {
    const TwoHosts a(2, 2);
    auto placer = make_placer("first-fit");
    OnlineCluster c(*a.model, *placer);
    ASSERT_TRUE(c.arrive(0, 15.0).placed);
    ASSERT_TRUE(c.arrive(1).placed);
    EXPECT_EQ(c.next_departure(), 15.0);
    std::vector<std::pair<std::size_t, bool>> ended;
    const auto on_step = [&](std::size_t tag, bool moved) { ended.emplace_back(tag, moved); };
    // VM 1 (host 1) to host 0 from 15 s: VM 0 departs at 15 s first, so the step finds room.
    c.launch(1, 0, Nodes{0}, 15.0, 16.0, 1);
    // VM 0 to host 1 from 15 s: it has departed by then: dropped.
    c.launch(0, 1, Nodes{0}, 15.0, 16.0, 2);
    c.advance_to(15.0, on_step);
    EXPECT_EQ(c.departed(), 1);
    EXPECT_FALSE(c.state().is_placed(0));
    ASSERT_EQ(ended.size(), 1U);
    EXPECT_EQ(ended[0], std::make_pair(std::size_t{2}, false));
    c.finish_steps(on_step);
    ASSERT_EQ(ended.size(), 2U);
    EXPECT_EQ(ended[1], std::make_pair(std::size_t{1}, true));
    EXPECT_EQ(c.state().host_of(1), 0);
    EXPECT_EQ(c.live(), 1);
}

TEST(OnlineCluster, MakeRoomMigrationsAdmitAnArrivalAndAFlavorWithoutRoomIsNotRetriedUntilAChange) {
    // VMs 0-2 of 4 vCPU (VM 0 departs at 5 s), VMs 3 and 4 of 8 vCPU; first-fit: 0 and 1 on host 0, 2 on host 1.
    const TwoHosts a({vm_of(0, 5, 4), vm_of(1, kInf, 4), vm_of(2, kInf, 4), vm_of(6, kInf, 8), vm_of(7, kInf, 8)}, 2);
    auto placer = make_placer("first-fit");
    OnlineCluster c(*a.model, *placer);
    int calls = 0;
    // The make_room of this cluster: VM 2 from host 1 to host 0 when host 0 has its room.
    c.set_make_room(2, [&](const OnlineCluster& cl, int, int k) {
        const SearchState& s = cl.state();
        ++calls;
        EXPECT_EQ(k, 2);
        std::vector<Placement> out;
        if (s.host_of(2) == 1 && s.free_of(0)[kVcpu] >= 4) out.push_back(Placement{2, 0, Nodes{0}});
        return out;
    });
    for (int v = 0; v < 3; ++v) ASSERT_TRUE(c.arrive(v, a.trace[static_cast<std::size_t>(v)].departure_s).placed);
    EXPECT_EQ(c.state().host_of(2), 1);
    c.advance_to(6.0);  // VM 0 departs: 4 vCPU free on each host, none takes 8
    const int big = c.state().flavor_of(3);
    const OnlineCluster::Arrival r = c.arrive(3);
    EXPECT_TRUE(r.placed);
    EXPECT_EQ(r.migrations, 1);
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(c.state().host_of(2), 0);
    EXPECT_EQ(c.state().host_of(3), 1);
    EXPECT_FALSE(c.blocked(big)) << "refused by the placer first, unblocked when the migration freed its source";
    // Both hosts full: make_room finds nothing; asked again only after a departure or migration.
    EXPECT_FALSE(c.arrive(4).placed);
    EXPECT_EQ(calls, 2);
    EXPECT_FALSE(c.arrive(4).placed);
    EXPECT_EQ(calls, 2);
    ASSERT_TRUE(c.migrate(2, 0, Nodes{0}));  // a remap on its own node: a change
    EXPECT_FALSE(c.arrive(4).placed);
    EXPECT_EQ(calls, 3);
    EXPECT_EQ(c.live(), 3);
}

/** Per host, every node's free amounts as recomputed from the VMs on it, less `held` (the test's
 *  account of the in-flight holds: host -> vCPU of a 4 GiB-per-vCPU share on node 0) and what the
 *  cluster says is reserved there: equal to the state's, and never below zero (no node over its
 *  capacity, reservations counted). */
void expect_room(const OnlineCluster& c, const std::map<int, Amount>& held) {
    const SearchState& s = c.state();
    const Problem& p = s.problem();
    const int R = p.num_resources();
    for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h) {
        std::vector<Amount> f = p.host_type_of(h).node_capacity;
        for (int v = 0; v < static_cast<int>(p.vms.size()); ++v)
            if (s.is_placed(v) && s.host_of(v) == h) {
                const Flavor& fl = p.flavors[static_cast<std::size_t>(s.flavor_of(v))];
                for (int i = 0; i < fl.num_vnuma(); ++i)
                    for (int r = 0; r < R; ++r) f[static_cast<std::size_t>(s.pnuma_of(v)[i] * R + r)] -= fl.node_demand[r];
            }
        if (const auto it = held.find(h); it != held.end()) {
            f[kVcpu] -= it->second;
            f[kRamMib] -= it->second * 4 * 1024;
        }
        const std::vector<Amount> reserved = c.reserved_on(h);
        for (std::size_t i = 0; i < f.size(); ++i) {
            EXPECT_GE(reserved[i], 0) << "host " << h;
            EXPECT_EQ(s.free_of(h)[i], f[i] - reserved[i]) << "host " << h << " entry " << i;
            EXPECT_GE(s.free_of(h)[i], 0) << "host " << h << " entry " << i;
        }
    }
}

/** Four one-node hosts of 8 vCPU: VM 0 (8 vCPU) on host 0, VM 1 (4 vCPU) on host 1 by first fit,
 *  then a plan launched at 2 s: A moves VM 1 to host 2 over [10, 20] s, B moves VM 0 into the
 *  room A frees on host 1 over [25, 35] s (4 vCPU free there from the start, 4 more from A's end). */
struct PlanRace {
    TwoHosts a;
    std::unique_ptr<Placer> placer = make_placer("first-fit");
    OnlineCluster c;
    std::vector<std::pair<std::size_t, bool>> ended;
    OnlineCluster::StepEnded on_step = [this](std::size_t tag, bool moved) { ended.emplace_back(tag, moved); };

    PlanRace(std::vector<TraceVm> later, bool reserve, double reserve_until = kInf, double vm0_departs = kInf)
        : a(trace_of(std::move(later), vm0_departs), 4), c(*a.model, *placer) {
        c.set_reserve_steps(reserve);
        for (int v = 0; v < 2; ++v) EXPECT_TRUE(c.arrive(v, a.trace[static_cast<std::size_t>(v)].departure_s).placed);
        EXPECT_EQ(c.state().host_of(0), 0);
        EXPECT_EQ(c.state().host_of(1), 1);
        c.advance_to(2.0, on_step);
        c.launch(1, 2, Nodes{0}, 10.0, 20.0, 0, reserve_until);
        c.launch(0, 1, Nodes{0}, 25.0, 35.0, 1, reserve_until);
    }
    static std::vector<TraceVm> trace_of(std::vector<TraceVm> later, double vm0_departs) {
        std::vector<TraceVm> t{vm_of(0, vm0_departs, 8), vm_of(1, kInf, 4)};
        t.insert(t.end(), later.begin(), later.end());
        return t;
    }
    /** Arrival v at its trace time (events before it first). */
    OnlineCluster::Arrival arrive(int v) {
        const TraceVm& vm = a.trace[static_cast<std::size_t>(v)];
        c.advance_to(vm.arrival_s, on_step);
        return c.arrive(v, vm.departure_s);
    }
};

TEST(OnlineCluster, AReservationKeepsTheRoomALaterStepNeedsFromArrivals) {
    for (const bool reserve : {false, true}) {
        SCOPED_TRACE(reserve ? "reserved" : "not reserved");
        // VM 2 (4 vCPU) at 5 s, VM 3 (8 vCPU) at 22 s.
        PlanRace r({vm_of(5, kInf, 4), vm_of(22, kInf, 8)}, reserve);
        expect_room(r.c, {});
        EXPECT_EQ(r.c.reserved_on(1)[kVcpu], reserve ? 4 : 0) << "what is free of B's room is reserved at once";
        EXPECT_EQ(r.c.reserved_on(2)[kVcpu], reserve ? 4 : 0) << "A's room";
        ASSERT_TRUE(r.arrive(2).placed);
        EXPECT_EQ(r.c.state().host_of(2), reserve ? 2 : 1) << "first fit takes host 1's free half unless it is reserved";
        expect_room(r.c, {});
        r.c.advance_to(10.0, r.on_step);
        expect_room(r.c, {{2, 4}});  // A in flight: its reservation became its hold
        EXPECT_EQ(r.c.reserved_on(2)[kVcpu], 0);
        r.c.advance_to(20.0, r.on_step);
        ASSERT_EQ(r.ended.size(), 1U);
        EXPECT_EQ(r.ended[0], std::make_pair(std::size_t{0}, true));
        EXPECT_EQ(r.c.reserved_on(1)[kVcpu], reserve ? 8 : 0) << "the room A freed went to B at once";
        expect_room(r.c, {});
        ASSERT_TRUE(r.arrive(3).placed);
        EXPECT_EQ(r.c.state().host_of(3), 3) << "no host but the empty one has 8 vCPU free";
        r.c.advance_to(25.0, r.on_step);
        expect_room(r.c, reserve ? std::map<int, Amount>{{1, 8}} : std::map<int, Amount>{});
        r.c.advance_to(35.0, r.on_step);
        ASSERT_EQ(r.ended.size(), 2U);
        EXPECT_EQ(r.ended[1], std::make_pair(std::size_t{1}, reserve)) << "without the reservation B no longer fits when due";
        EXPECT_EQ(r.c.state().host_of(0), reserve ? 1 : 0);
        expect_room(r.c, {});
        EXPECT_FALSE(r.c.steps_in_flight());
    }
}

TEST(OnlineCluster, AReservationIsGivenBackWhenItsVmDeparts) {
    // VM 2 (4 vCPU) at 5 s; VM 0 departs at 22 s, before B starts; VM 3 (8 vCPU) at 23 s.
    PlanRace r({vm_of(5, kInf, 4), vm_of(23, kInf, 8)}, true, kInf, 22.0);
    ASSERT_TRUE(r.arrive(2).placed);
    r.c.advance_to(21.0, r.on_step);
    EXPECT_EQ(r.c.reserved_on(1)[kVcpu], 8);
    r.c.advance_to(22.0, r.on_step);
    EXPECT_EQ(r.c.departed(), 1);
    EXPECT_EQ(r.c.reserved_on(1)[kVcpu], 0) << "B's VM left: its room is given back at once";
    EXPECT_EQ(r.c.state().free_of(1)[kVcpu], 8);
    expect_room(r.c, {});
    // Host 0 (VM 0's) is free too: half fill it so that first fit must come to host 1.
    ASSERT_TRUE(r.c.migrate(2, 0, Nodes{0}));
    ASSERT_TRUE(r.arrive(3).placed);
    EXPECT_EQ(r.c.state().host_of(3), 1) << "the room B no longer needs takes an arrival";
    r.c.finish_steps(r.on_step);
    ASSERT_EQ(r.ended.size(), 2U);
    EXPECT_EQ(r.ended[1], std::make_pair(std::size_t{1}, false)) << "B is dropped: its VM left";
    expect_room(r.c, {});
}

TEST(OnlineCluster, ReservationsEndWithThePlansWindow) {
    // The window ends at 21 s, before B starts at 25 s: B's room is kept from 20 s (A's end) to
    // 21 s only; VM 2 (8 vCPU) at 22 s takes it (first fit: host 1 is the first with 8 free).
    PlanRace r({vm_of(22, kInf, 8)}, true, 21.0);
    r.c.advance_to(20.0, r.on_step);
    EXPECT_EQ(r.c.reserved_on(1)[kVcpu], 8);
    expect_room(r.c, {});
    r.c.advance_to(21.0, r.on_step);
    EXPECT_EQ(r.c.reserved_on(1)[kVcpu], 0);
    EXPECT_EQ(r.c.state().free_of(1)[kVcpu], 8);
    ASSERT_TRUE(r.arrive(2).placed);
    EXPECT_EQ(r.c.state().host_of(2), 1);
    r.c.advance_to(40.0, r.on_step);
    ASSERT_EQ(r.ended.size(), 2U);
    EXPECT_EQ(r.ended[1], std::make_pair(std::size_t{1}, false));
    expect_room(r.c, {});
}

/** Random arrivals and departures on three CQ3 hosts with random plans launched over them, their
 *  steps reserving room: after every event no node is over its capacity counting what is held
 *  and reserved (the free amounts never below zero, and free + reserved never above what the VMs
 *  leave), and once every step has ended nothing is held or reserved any more. */
TEST(OnlineCluster, ReservationsNeverOverfillANodeAndAllEnd) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const Arriving a(random_online_trace(seed, 200), uniform_host_type("CQ3", 8, 32 * 1024), 3);
        const Problem& p = a.problem;
        const int R = p.num_resources();
        auto placer = make_placer("best-fit");
        OnlineCluster c(*a.model, *placer);
        c.set_reserve_steps(true);
        std::mt19937_64 rng(seed);
        int moved = 0, dropped = 0, reserved_seen = 0;
        const auto on_step = [&](std::size_t, bool m) { ++(m ? moved : dropped); };
        const auto check = [&](bool none_held) {
            for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h) {
                std::vector<Amount> used(p.host_type_of(h).node_capacity.size(), 0);
                for (int v = 0; v < static_cast<int>(p.vms.size()); ++v)
                    if (c.state().is_placed(v) && c.state().host_of(v) == h) {
                        const Flavor& fl = p.flavors[static_cast<std::size_t>(c.state().flavor_of(v))];
                        for (int i = 0; i < fl.num_vnuma(); ++i)
                            for (int r = 0; r < R; ++r)
                                used[static_cast<std::size_t>(c.state().pnuma_of(v)[i] * R + r)] += fl.node_demand[r];
                    }
                const std::vector<Amount> res = c.reserved_on(h);
                for (std::size_t i = 0; i < used.size(); ++i) {
                    const Amount cap = p.host_type_of(h).node_capacity[i], f = c.state().free_of(h)[i];
                    reserved_seen += res[i] > 0 ? 1 : 0;
                    ASSERT_GE(f, 0) << "host " << h << " entry " << i;
                    ASSERT_LE(used[i] + res[i] + f, cap) << "host " << h << " entry " << i << ": holds below zero";
                    if (none_held) {
                        ASSERT_EQ(used[i] + f, cap) << "host " << h << " entry " << i << ": something still held";
                    }
                }
            }
        };
        for (std::size_t i = 0; i < a.arrivals.size(); ++i) {
            const TraceVm& vm = a.trace[a.arrivals[i]];
            c.advance_to(vm.arrival_s, on_step);
            ASSERT_NO_FATAL_FAILURE(check(false));
            c.arrive(static_cast<int>(i), vm.departure_s);
            ASSERT_NO_FATAL_FAILURE(check(false));
            if (i % 15 != 0) continue;
            std::vector<int> on;  // a plan: steps of random placed VMs to random nodes, over the next 300 s
            for (int v = 0; v <= static_cast<int>(i); ++v)
                if (c.state().is_placed(v)) on.push_back(v);
            for (int n = 0; n < 6 && !on.empty(); ++n) {
                const int v = on[rng() % on.size()];
                const int h = static_cast<int>(rng() % p.hosts.size());
                const auto& e = a.model->evaluator(p.hosts[static_cast<std::size_t>(h)].type, c.state().flavor_of(v)).placements();
                const double start = vm.arrival_s + static_cast<double>(rng() % 300);
                c.launch(v, h, e[rng() % e.size()].map, start, start + static_cast<double>(rng() % 60), 0,
                         rng() % 4 == 0 ? vm.arrival_s + 100.0 : kInf);
            }
            ASSERT_NO_FATAL_FAILURE(check(false));
        }
        c.finish_steps(on_step);
        ASSERT_NO_FATAL_FAILURE(check(true));
        c.advance_to(kInf, on_step);
        ASSERT_NO_FATAL_FAILURE(check(true));
        EXPECT_GT(moved, 0);
        EXPECT_GT(dropped, 0);
        EXPECT_GT(reserved_seen, 0);
    }
}

}  // namespace
}  // namespace vmcap

// Tests of optimizer/solvers/make_room.h: the direct search against an exhaustive oracle (every
// plan of at most K live migrations, K = 1 and 2, on small random clusters replayed through an
// online cluster, with steps in flight holding room, VMs that may not migrate, and under the free
// and nova-spread destination-node rules); its plans checked step by step; its cache against no
// cache; the rules it keeps (room held for steps in flight, non-migratable VMs) each on a case the
// consolidation engine, which does not see them, gets wrong; the link rule left to that engine;
// and determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "evaluators/rules/feasibility.h"
#include "evaluators/state/capacity_model.h"
#include "evaluators/state/fit.h"
#include "instances/trace.h"
#include "instances/vnuma_rule.h"
#include "optimizer/solvers/make_room.h"
#include "placement/online_cluster.h"
#include "placement/placer.h"
#include "placement/replay.h"
#include "tests/test_constants.h"

namespace vmcap {

/** Equal steps (for comparing plans; in vmcap, where the lookup from std::vector finds it). */
bool operator==(const Placement& a, const Placement& b) {
    return a.vm == b.vm && a.host == b.host && a.pnuma == b.pnuma;
}

namespace {

using test::kInf;

/** Does a VM of `flavor` arrive somewhere on `s` (a placement with room; under a rule that fixes
 *  nodes, the rule's)? */
bool arrives(const SearchState& s, int flavor) {
    for (int h = 0; h < static_cast<int>(s.problem().hosts.size()); ++h)
        if (s.model().fixes_nodes() ? s.model().node_choice(flavor, h, s.free_of(h)) >= 0 : first_fitting_placement(s, flavor, h) >= 0)
            return true;
    return false;
}

/** The oracle: is there a plan of at most k live migrations (each a migratable VM to any other
 *  (host, placement) where step_fits, in order) after which a VM of `flavor` arrives? Brute force
 *  on `s`, moved and moved back. */
bool plan_exists(SearchState& s, int flavor, int k) {
    if (arrives(s, flavor)) return true;
    if (k == 0) return false;
    const Problem& p = s.problem();
    for (int v = 0; v < static_cast<int>(p.vms.size()); ++v) {
        if (!s.is_placed(v) || !s.migratable(v)) continue;
        const int from = s.host_of(v);
        const int nv = p.flavors[static_cast<std::size_t>(s.flavor_of(v))].num_vnuma();
        std::array<std::uint8_t, kMaxVNuma> was{};
        std::copy(s.pnuma_of(v), s.pnuma_of(v) + nv, was.begin());
        const NodeMask mask = s.mask_of(v);
        for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h)
            for (const Embedding& e : s.model().evaluator(s.type_of(h), s.flavor_of(v)).placements()) {
                if (h == from && e.mask == mask) continue;
                if (!step_fits(s, v, h, e.map)) continue;
                s.move(v, h, e);
                const bool found = plan_exists(s, flavor, k - 1);
                s.move(v, from, embedding_of(was, nv));
                if (found) return true;
            }
    }
    return false;
}

/** `s` after `plan`'s steps (each VM moved to its step's host and pNUMA nodes; no check). */
SearchState after_plan(const SearchState& s, const std::vector<Placement>& plan) {
    SearchState after = s;
    for (const Placement& m : plan)
        after.move(m.vm, m.host, embedding_of(m.pnuma, s.problem().flavors[static_cast<std::size_t>(after.flavor_of(m.vm))].num_vnuma()));
    return after;
}

/** `plan` on a copy of `s`: each step fits (step_fits, the destination-node rule included) when
 *  the ones before it are done, distinct VMs, at most k; a VM of `flavor` arrives after it. */
void expect_valid(const SearchState& s, const std::vector<Placement>& plan, int flavor, int k) {
    SearchState after = s;
    std::set<int> moved;
    for (const Placement& m : plan) {
        ASSERT_TRUE(after.is_placed(m.vm));
        ASSERT_TRUE(after.migratable(m.vm));
        ASSERT_TRUE(step_fits(after, m.vm, m.host, m.pnuma)) << "VM " << m.vm << " to host " << m.host;
        after.move(m.vm, m.host, embedding_of(m.pnuma, s.problem().flavors[static_cast<std::size_t>(after.flavor_of(m.vm))].num_vnuma()));
        moved.insert(m.vm);
    }
    EXPECT_EQ(moved.size(), plan.size());
    EXPECT_LE(static_cast<int>(plan.size()), k);
    EXPECT_TRUE(arrives(after, flavor));
}

/** A random trace of `n` VMs on nodes of 8 vCPU, 32 GiB (one- and two-node flavors). */
std::vector<TraceVm> random_trace(std::uint64_t seed, int n) {
    struct Kind {
        const char* name;
        Amount vcpu, ram_gib;
    };
    const Kind kinds[] = {{"1c2g", 1, 2}, {"2c4g", 2, 4},   {"2c8g", 2, 8},    {"4c16g", 4, 16},
                          {"4c8g", 4, 8}, {"6c12g", 6, 12}, {"12c24g", 12, 24}};
    std::mt19937_64 rng(seed);
    std::vector<TraceVm> trace;
    for (int i = 0; i < n; ++i) {
        const Kind& k = kinds[rng() % 7];
        TraceVm vm;
        vm.arrival_s = static_cast<double>(i) * 10.0;
        vm.departure_s = rng() % 6 == 0 ? kInf : vm.arrival_s + 10.0 + static_cast<double>(rng() % 300);
        vm.vcpu = k.vcpu;
        vm.ram_mib = k.ram_gib * 1024;
        vm.flavor_name = k.name;
        trace.push_back(vm);
    }
    return trace;
}

/** A random trace of `n` VMs of 1 to 8 vCPU (two-node flavors from 6) and 1 to 6 GiB per vCPU
 *  (at most a node's 32 GiB per node), on nodes of 8 vCPU, 32 GiB: many flavors, RAM seldom tied. */
std::vector<TraceVm> varied_trace(std::uint64_t seed, int n) {
    std::mt19937_64 rng(seed);
    std::vector<TraceVm> trace;
    for (int i = 0; i < n; ++i) {
        TraceVm vm;
        vm.arrival_s = static_cast<double>(i) * 10.0;
        vm.departure_s = rng() % 6 == 0 ? kInf : vm.arrival_s + 10.0 + static_cast<double>(rng() % 400);
        const Amount vcpus[] = {1, 2, 3, 4, 5, 6, 8};
        vm.vcpu = vcpus[rng() % 7];
        vm.ram_mib = std::min<Amount>(vm.vcpu * (1 + static_cast<Amount>(rng() % 6)), vm.vcpu >= 6 ? 48 : 32) * 1024;
        vm.flavor_name = std::to_string(vm.vcpu) + "c" + std::to_string(vm.ram_mib / 1024) + "g";
        trace.push_back(vm);
    }
    return trace;
}

/** A replay of a random trace on `hosts` dual-node hosts; some VMs not migratable, under `rule`. */
struct Replay {
    std::vector<TraceVm> trace;
    std::vector<std::size_t> arrivals;
    Problem p;
    std::unique_ptr<CapacityModel> model;
    Replay(std::uint64_t seed, int hosts, int vms, const char* rule, std::vector<TraceVm> given = {})
        : trace(given.empty() ? random_trace(seed, vms) : std::move(given)) {
        SnapshotOptions o;
        o.host_type = uniform_host_type("K2", 8, 32 * 1024);
        o.num_hosts = hosts;
        o.time_s = trace.back().arrival_s - trace.front().arrival_s;
        o.targets = "all";
        p = replay_arrivals(trace, o, arrivals);
        std::mt19937_64 rng(seed + 99);
        for (Vm& v : p.vms) v.migratable = rng() % 8 != 0;
        p.node_rule.name = rule;
        model = std::make_unique<CapacityModel>(p);
    }
    /** Per flavor, its first VM of the trace (-1: none). */
    std::vector<int> of_flavor() const {
        std::vector<int> out(p.flavors.size(), -1);
        for (int v = static_cast<int>(p.vms.size()) - 1; v >= 0; --v)
            out[static_cast<std::size_t>(p.vms[static_cast<std::size_t>(v)].flavor)] = v;
        return out;
    }
    /** The trace's arrivals on `c` (its make_room called on each refusal), and after every
     *  `every`-th a step in flight of the VM that arrived `back` before, `shift` hosts on, from 5 s
     *  to `end` s after the arrival: its destination held or reserved (room the search must not
     *  use). */
    void run(OnlineCluster& c, std::size_t every, int back, int shift, double end) const {
        const int hosts = static_cast<int>(p.hosts.size());
        int launched = 0;
        for (std::size_t a = 0; a < arrivals.size(); ++a) {
            const TraceVm& t = trace[arrivals[a]];
            c.advance_to(t.arrival_s);
            c.arrive(static_cast<int>(a), t.departure_s);
            if (a % every == every - 1 && a >= every) {
                const int v = static_cast<int>(a) - back;
                if (!c.state().is_placed(v)) continue;
                const int to = (c.state().host_of(v) + shift) % hosts;
                const int e = first_fitting_placement(c.state(), c.state().flavor_of(v), to);
                if (e < 0) continue;
                const auto& pl = model->evaluator(c.state().type_of(to), c.state().flavor_of(v)).placements();
                c.launch(v, to, pl[static_cast<std::size_t>(e)].map, t.arrival_s + 5.0, t.arrival_s + end,
                         static_cast<std::size_t>(launched++));
            }
        }
    }
};

/** An oracle test compared enough searches, and enough of them with plans of one and of two
 *  steps, to say something (`found[n]`: searches whose plan has n steps); prints the counts. */
void expect_enough(int compared, const int (&found)[3]) {
    EXPECT_GT(compared, 300);
    EXPECT_GT(found[1], 30) << "too few one-step plans: the comparison says little";
    EXPECT_GT(found[2], 10) << "too few two-step plans: the comparison says little";
    std::printf("compared %d searches: %d without a plan, %d of one step, %d of two\n", compared, found[0], found[1], found[2]);
}

TEST(MakeRoom, TheDirectSearchFindsAPlanExactlyWhenOneExists) {
    int compared = 0, found[3] = {0, 0, 0};
    for (const char* rule : {"free", "nova-spread"})
        for (const int hosts : {3, 4})
            for (std::uint64_t seed = 1; seed <= 6; ++seed) {
                SCOPED_TRACE(std::string(rule) + " hosts " + std::to_string(hosts) + " seed " + std::to_string(seed));
                const Replay r(seed * 7 + static_cast<std::uint64_t>(hosts), hosts, hosts * 10, rule);
                auto placer = make_placer("best-fit");
                OnlineCluster c(*r.model, *placer);
                c.set_reserve_steps(true);
                const std::vector<int> of_flavor = r.of_flavor();
                const MakeRoomSearch cached;
                c.set_make_room(2, [&](const OnlineCluster& cl, int vm, int k) {
                    for (const int v : of_flavor) {
                        if (v < 0 || cl.state().is_placed(v) || arrives(cl.state(), cl.state().flavor_of(v))) continue;
                        SearchState s = cl.state();
                        for (int budget = 1; budget <= 2; ++budget) {
                            const std::vector<Placement> got = make_room_direct(cl, v, budget);
                            const bool exists = plan_exists(s, s.flavor_of(v), budget);
                            EXPECT_EQ(!got.empty(), exists) << "flavor " << s.flavor_of(v) << " k " << budget;
                            if (!got.empty()) expect_valid(cl.state(), got, s.flavor_of(v), budget);
                            if (got.size() == 2) EXPECT_TRUE(make_room_direct(cl, v, 1).empty()) << "fewest migrations";
                            ++compared;
                            found[got.size()]++;
                        }
                    }
                    const std::vector<Placement> plan = cached(cl, vm, k);
                    EXPECT_EQ(plan, make_room_direct(cl, vm, k)) << "the cache changes nothing";
                    return plan;
                });
                // Now and then a step in flight of a VM placed earlier.
                r.run(c, 5, 3, 1, 60.0);
            }
    expect_enough(compared, found);
}

/** Weighted capacity (score units) a VM of `flavor` arriving on `s` leaves as the vmcap-fit
 *  placer places it: the largest placement_delta over the (host, placement)s where it arrives;
 *  `found` false when it arrives nowhere. */
Score arrival_value(const SearchState& s, int flavor, bool& found) {
    found = false;
    Score best = 0;
    for (int h = 0; h < static_cast<int>(s.problem().hosts.size()); ++h) {
        const auto& pl = s.model().evaluator(s.type_of(h), flavor).placements();
        for (int e = 0; e < static_cast<int>(pl.size()); ++e) {
            if (s.model().fixes_nodes() ? s.model().node_choice(flavor, h, s.free_of(h)) != e
                                        : !fits(s, flavor, h, pl[static_cast<std::size_t>(e)]))
                continue;
            const Score d = placement_delta(s, flavor, h, pl[static_cast<std::size_t>(e)]);
            if (!found || d > best) best = d;
            found = true;
        }
    }
    return best;
}

/** VMCAP of `flavor` summed over the hosts of `s` (its closed forms on each host's free amounts). */
Count flavor_capacity(const SearchState& s, int flavor) {
    Count total = 0;
    for (int h = 0; h < static_cast<int>(s.problem().hosts.size()); ++h) {
        Count b[kMaxPNuma];
        s.model().capacity_vector(flavor, s.nodes_of(h), s.free_of(h), b);
        total += s.model().evaluator(s.type_of(h), flavor)(b);
    }
    return total;
}

/** What a plan leaves (for ranking by capacity), larger better: the change of the arriving
 *  flavor's VMCAP over the cluster from `before` to `after`; then the weighted capacity of `after`
 *  (SearchState::capacity_value) less that of `before`, plus arrival_value on `after`. */
std::pair<Count, Score> left_value(const SearchState& before, const SearchState& after, int flavor) {
    bool found = false;
    const Score arrive = arrival_value(after, flavor, found);
    EXPECT_TRUE(found);
    return {flavor_capacity(after, flavor) - flavor_capacity(before, flavor), after.capacity_value() - before.capacity_value() + arrive};
}

/** Where the ranking by capacity sends a VM `vm` of `s`, in the order it tries them: the other
 *  hosts where it fits (step_fits), each on its placement of the largest placement_delta (ties:
 *  the least free vCPU on its nodes, then the lowest index; under a rule that fixes nodes, the
 *  rule's), by that delta (largest first), then the least free vCPU and RAM the host keeps, then
 *  the lowest index; then, under the free rule, the other placements of its own host in index
 *  order. Written from the contract, independently of the search. */
std::vector<std::pair<int, Embedding>> ranked_options(const SearchState& s, int vm) {
    const Problem& p = s.problem();
    const int flavor = s.flavor_of(vm), from = s.host_of(vm), R = p.num_resources();
    const Flavor& fl = p.flavors[static_cast<std::size_t>(flavor)];
    struct Option {
        Score delta;
        Amount vcpu_left, ram_left;
        int host;
        Embedding e;
    };
    std::vector<Option> other;
    for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h) {
        if (h == from) continue;
        const auto& pl = s.model().evaluator(s.type_of(h), flavor).placements();
        int best = -1;
        Score best_delta = 0;
        Amount best_nodes = 0;
        for (int e = 0; e < static_cast<int>(pl.size()); ++e) {
            const Embedding& emb = pl[static_cast<std::size_t>(e)];
            if (s.model().fixes_nodes() && s.model().node_choice(flavor, h, s.free_of(h)) != e) continue;
            if (!step_fits(s, vm, h, emb.map)) continue;
            const Score d = placement_delta(s, flavor, h, emb);
            Amount nodes = 0;
            for (int i = 0; i < fl.num_vnuma(); ++i) nodes += s.free_of(h)[emb.map[static_cast<std::size_t>(i)] * R + kVcpu];
            if (best < 0 || d > best_delta || (d == best_delta && nodes < best_nodes)) {
                best = e;
                best_delta = d;
                best_nodes = nodes;
            }
        }
        if (best < 0) continue;
        Amount vcpu = -fl.demand[kVcpu], ram = -fl.demand[kRamMib];
        for (int n = 0; n < s.nodes_of(h); ++n) {
            vcpu += s.free_of(h)[n * R + kVcpu];
            ram += s.free_of(h)[n * R + kRamMib];
        }
        other.push_back(Option{best_delta, vcpu, ram, h, pl[static_cast<std::size_t>(best)]});
    }
    std::sort(other.begin(), other.end(), [](const Option& a, const Option& b) {
        return std::make_tuple(-a.delta, a.vcpu_left, a.ram_left, a.host) < std::make_tuple(-b.delta, b.vcpu_left, b.ram_left, b.host);
    });
    std::vector<std::pair<int, Embedding>> out;
    for (const Option& o : other) out.emplace_back(o.host, o.e);
    if (!s.model().fixes_nodes())
        for (const Embedding& e : s.model().evaluator(s.type_of(from), flavor).placements())
            if (e.mask != s.mask_of(vm) && step_fits(s, vm, from, e.map)) out.emplace_back(from, e);
    return out;
}

/** The capacity oracle's answer: the largest left_value of a plan of the fewest migrations and,
 *  of those, the least RAM moved; `steps` 0 when no plan of at most k exists. */
struct BestPlan {
    int steps = 0;
    std::pair<Count, Score> value{0, 0};
    Amount ram = 0;
};

/** The capacity oracle: every sequence of one, then two, distinct migratable VMs, each sent to
 *  the first of its ranked_options with which the sequence lets a VM of `flavor` arrive; of the
 *  sequences that do, with the fewest VMs, the most capacity left (left_value), then the least
 *  RAM. Brute force on copies of `s`; it knows nothing of singles, pairs, shuffles or chains. */
BestPlan best_plan(const SearchState& s, int flavor, int k) {
    const Problem& p = s.problem();
    BestPlan best;
    const auto offer = [&](int steps, const SearchState& after, Amount ram) {
        const std::pair<Count, Score> v = left_value(s, after, flavor);
        if (best.steps == 0 || v > best.value || (v == best.value && ram < best.ram)) best = BestPlan{steps, v, ram};
    };
    const auto ram_of = [&](int v) { return p.flavors[static_cast<std::size_t>(s.flavor_of(v))].demand[kRamMib]; };
    const auto moved = [&](const SearchState& t, int v, const std::pair<int, Embedding>& o) {
        SearchState u = t;
        u.move(v, o.first, o.second);
        return u;
    };
    std::vector<int> vms;
    for (int v = 0; v < static_cast<int>(p.vms.size()); ++v)
        if (s.is_placed(v) && s.migratable(v)) vms.push_back(v);
    for (const int v : vms)
        for (const auto& o : ranked_options(s, v)) {
            const SearchState after = moved(s, v, o);
            if (!arrives(after, flavor)) continue;
            offer(1, after, ram_of(v));
            break;
        }
    if (best.steps > 0 || k < 2) return best;
    for (const int a : vms)
        for (const int b : vms) {
            if (a == b) continue;
            bool done = false;
            for (const auto& oa : ranked_options(s, a)) {
                const SearchState mid = moved(s, a, oa);
                for (const auto& ob : ranked_options(mid, b)) {
                    const SearchState after = moved(mid, b, ob);
                    if (!arrives(after, flavor)) continue;
                    offer(2, after, ram_of(a) + ram_of(b));
                    done = true;
                    break;
                }
                if (done) break;
            }
        }
    return best;
}

TEST(MakeRoom, RankedByCapacityItLeavesTheMostCapacity) {
    // Under a placer that values capacity (vmcap-fit), the plan of the fewest migrations that
    // leaves the most room for the flavor, then the most weighted capacity, then moves the least
    // RAM (left_value): against the capacity oracle on every
    // call of random replays, for every flavor not placed, budgets 1 and 2.
    int compared = 0, found[3] = {0, 0, 0};
    for (const char* rule : {"free", "nova-spread"})
        for (const int hosts : {3, 4})
            for (std::uint64_t seed = 1; seed <= 6; ++seed) {
                SCOPED_TRACE(std::string(rule) + " hosts " + std::to_string(hosts) + " seed " + std::to_string(seed));
                const std::uint64_t sd = seed * 7 + static_cast<std::uint64_t>(hosts);
                const Replay r(sd, hosts, hosts * 10, rule, seed % 2 == 0 ? varied_trace(sd, hosts * 14) : std::vector<TraceVm>{});
                auto placer = make_placer("vmcap-fit");
                OnlineCluster c(*r.model, *placer);
                c.set_reserve_steps(true);
                const std::vector<int> of_flavor = r.of_flavor();
                const MakeRoomSearch cached;
                c.set_make_room(2, [&](const OnlineCluster& cl, int vm, int k) {
                    for (const int v : of_flavor) {
                        if (v < 0 || cl.state().is_placed(v) || arrives(cl.state(), cl.state().flavor_of(v))) continue;
                        const int flavor = cl.state().flavor_of(v);
                        for (int budget = 1; budget <= 2; ++budget) {
                            const std::vector<Placement> got = make_room_direct(cl, v, budget);
                            const BestPlan want = best_plan(cl.state(), flavor, budget);
                            ++compared;
                            found[got.size()]++;
                            EXPECT_EQ(static_cast<int>(got.size()), want.steps) << "flavor " << flavor << " k " << budget;
                            if (got.empty() || static_cast<int>(got.size()) != want.steps) continue;
                            expect_valid(cl.state(), got, flavor, budget);
                            Amount ram = 0;
                            for (const Placement& m : got)
                                ram += cl.state().problem().flavors[static_cast<std::size_t>(cl.state().flavor_of(m.vm))].demand[kRamMib];
                            EXPECT_EQ(left_value(cl.state(), after_plan(cl.state(), got), flavor), want.value)
                                << "flavor " << flavor << " k " << budget;
                            EXPECT_EQ(ram, want.ram) << "flavor " << flavor << " k " << budget;
                        }
                    }
                    const std::vector<Placement> plan = cached(cl, vm, k);
                    EXPECT_EQ(plan, make_room_direct(cl, vm, k)) << "the cache changes nothing";
                    return plan;
                });
                r.run(c, 5, 3, 1, 60.0);
            }
    expect_enough(compared, found);
}

TEST(MakeRoom, ItsShortcutsChooseThePlanTheyWouldWithout) {
    // make_room_direct decides most candidates without trying them, visits the hosts in order of a
    // bound on their plans' RAM and keeps per-host candidates between calls (cached by host
    // version); make_room_direct_plain lists every candidate and tries them in order, from scratch.
    // The same plan on every call of random replays (arrivals, departures, the plans applied,
    // steps in flight holding room), for every flavor not placed, budgets 1 and 2.
    // Under vmcap-fit the plans are ranked by the capacity they leave.
    int compared = 0, found[3] = {0, 0, 0};
    for (const char* placer_name : {"best-fit", "vmcap-fit"})
        for (const char* rule : {"free", "nova-spread"})
            for (const int hosts : {5, 8})
                for (std::uint64_t seed = 1; seed <= 16; ++seed) {
                    SCOPED_TRACE(std::string(placer_name) + " " + rule + " hosts " + std::to_string(hosts) + " seed " +
                                 std::to_string(seed));
                    const std::uint64_t s = seed * 13 + static_cast<std::uint64_t>(hosts);
                    const Replay r(s, hosts, hosts * 12, rule, seed % 4 != 0 ? varied_trace(s, hosts * 16) : std::vector<TraceVm>{});
                    auto placer = make_placer(placer_name);
                    OnlineCluster c(*r.model, *placer);
                    c.set_reserve_steps(true);
                    const std::vector<int> of_flavor = r.of_flavor();
                    MakeRoomCache cache;
                    c.set_make_room(2, [&](const OnlineCluster& cl, int vm, int k) {
                        for (const int v : of_flavor) {
                            if (v < 0 || cl.state().is_placed(v)) continue;
                            for (int budget = 1; budget <= 2; ++budget) {
                                const std::vector<Placement> plain = make_room_direct_plain(cl, v, budget);
                                EXPECT_EQ(make_room_direct(cl, v, budget, &cache), plain)
                                    << "flavor " << cl.state().flavor_of(v) << " k " << budget;
                                ++compared;
                                found[plain.size()]++;
                            }
                        }
                        return make_room_direct(cl, vm, k, &cache);
                    });
                    r.run(c, 7, 4, 2, 90.0);
                }
    EXPECT_GT(compared, 2000);
    EXPECT_GT(found[1], 200) << "too few one-step plans: the comparison says little";
    EXPECT_GT(found[2], 30) << "too few two-step plans: the comparison says little";
    std::printf("compared %d plans: %d none, %d of one step, %d of two\n", compared, found[0], found[1], found[2]);
}

TEST(MakeRoom, ASecondMigrationWhenItLeavesRoomForMoreCopies) {
    // MakeRoomOptions::second_for_copies = 1 under vmcap-fit: where the best plan of one migration
    // exists, a plan of two is taken instead only when it leaves room for at least one more VM of
    // the flavor (left_value's first term); where none of one exists, the plan is the default's;
    // and the shortcuts choose what make_room_direct_plain does with the option. On random replays,
    // every flavor not placed, budget 2.
    MakeRoomOptions more;
    more.second_for_copies = 1;
    int compared = 0, upgraded = 0;
    for (const char* rule : {"free", "nova-spread"})
        for (const int hosts : {5, 8})
            for (std::uint64_t seed = 1; seed <= 6; ++seed) {
                SCOPED_TRACE(std::string(rule) + " hosts " + std::to_string(hosts) + " seed " + std::to_string(seed));
                const std::uint64_t s = seed * 11 + static_cast<std::uint64_t>(hosts);
                const Replay r(s, hosts, hosts * 12, rule, seed % 3 != 0 ? varied_trace(s, hosts * 16) : std::vector<TraceVm>{});
                auto placer = make_placer("vmcap-fit");
                OnlineCluster c(*r.model, *placer);
                c.set_reserve_steps(true);
                const std::vector<int> of_flavor = r.of_flavor();
                MakeRoomCache cache;
                const MakeRoomSearch search(more);
                c.set_make_room(2, [&](const OnlineCluster& cl, int vm, int k) {
                    for (const int v : of_flavor) {
                        if (v < 0 || cl.state().is_placed(v) || arrives(cl.state(), cl.state().flavor_of(v))) continue;
                        const int flavor = cl.state().flavor_of(v);
                        const std::vector<Placement> one = make_room_direct(cl, v, 2);
                        const std::vector<Placement> got = make_room_direct(cl, v, 2, &cache, nullptr, more);
                        EXPECT_EQ(got, make_room_direct_plain(cl, v, 2, more)) << "flavor " << flavor;
                        ++compared;
                        if (one.size() != 1 || got == one) {
                            EXPECT_EQ(got, one) << "flavor " << flavor << ": only a plan of one step may give way";
                            continue;
                        }
                        if (got.size() != 2) {
                            ADD_FAILURE() << "flavor " << flavor << ": " << got.size() << " steps";
                            continue;
                        }
                        expect_valid(cl.state(), got, flavor, 2);
                        EXPECT_GE(left_value(cl.state(), after_plan(cl.state(), got), flavor).first,
                                  left_value(cl.state(), after_plan(cl.state(), one), flavor).first + 1)
                            << "flavor " << flavor;
                        ++upgraded;
                    }
                    return search(cl, vm, k);
                });
                r.run(c, 7, 4, 2, 90.0);
            }
    EXPECT_GT(compared, 300);
    EXPECT_GT(upgraded, 10) << "too few plans of two steps taken over one: the comparison says little";
    std::printf("compared %d searches, %d took a second migration\n", compared, upgraded);
}

TEST(MakeRoom, TwoMigrationsOnlyForMoreCopies) {
    // MakeRoomOptions::second_only_for_copies: where the brute-force oracle finds no plan of one
    // migration, no plan (although plans of two may exist: counted, so that the test says
    // something); where it finds one, the plan second_for_copies alone gives. Under vmcap-fit with
    // second_for_copies 1, and under best fit (no ranking by capacity: every plan then has one
    // step, the plan of budget 1). The shortcut-free search with the options agrees. Random replays,
    // every flavor not placed, budget 2.
    MakeRoomOptions copies;
    copies.second_for_copies = 1;
    MakeRoomOptions only = copies;
    only.second_only_for_copies = true;
    int compared = 0, refused = 0, kept = 0;
    for (const char* placer_name : {"vmcap-fit", "best-fit"})
        for (const char* rule : {"free", "nova-spread"})
            for (const int hosts : {5, 8})
                for (std::uint64_t seed = 1; seed <= 5; ++seed) {
                    SCOPED_TRACE(std::string(placer_name) + " " + rule + " hosts " + std::to_string(hosts) + " seed " +
                                 std::to_string(seed));
                    const std::uint64_t s = seed * 7 + static_cast<std::uint64_t>(hosts);
                    const Replay r(s, hosts, hosts * 12, rule, seed % 3 != 0 ? varied_trace(s, hosts * 16) : std::vector<TraceVm>{});
                    auto placer = make_placer(placer_name);
                    const bool cap = placer->values_capacity();
                    OnlineCluster c(*r.model, *placer);
                    c.set_reserve_steps(true);
                    const std::vector<int> of_flavor = r.of_flavor();
                    MakeRoomCache cache;
                    const MakeRoomSearch search(only);
                    c.set_make_room(2, [&](const OnlineCluster& cl, int vm, int k) {
                        for (const int v : of_flavor) {
                            if (v < 0 || cl.state().is_placed(v) || arrives(cl.state(), cl.state().flavor_of(v))) continue;
                            const int flavor = cl.state().flavor_of(v);
                            const std::vector<Placement> got = make_room_direct(cl, v, 2, &cache, nullptr, only);
                            EXPECT_EQ(got, make_room_direct_plain(cl, v, 2, only)) << "flavor " << flavor;
                            SearchState probe = cl.state();
                            if (!plan_exists(probe, flavor, 1)) {
                                EXPECT_TRUE(got.empty()) << "flavor " << flavor << ": no plan of one migration, yet " << got.size();
                                refused += make_room_direct(cl, v, 2).size() == 2 ? 1 : 0;
                            } else {
                                EXPECT_EQ(got, cap ? make_room_direct(cl, v, 2, nullptr, nullptr, copies) : make_room_direct(cl, v, 1))
                                    << "flavor " << flavor;
                                kept += got.empty() ? 0 : 1;
                            }
                            ++compared;
                        }
                        return search(cl, vm, k);
                    });
                    r.run(c, 7, 4, 2, 90.0);
                }
    EXPECT_GT(refused, 20) << "too few requests only two migrations admit: the comparison says little";
    EXPECT_GT(kept, 100) << "too few plans kept: the comparison says little";
    std::printf("compared %d searches: %d refused that two migrations would admit, %d plans kept\n", compared, refused, kept);
}

/** Three single-node hosts of 8 vCPU, 32 GiB and the VMs `vcpu` (4 GiB per vCPU) arrived by first
 *  fit, then each moved to `host_of[i]`; the last VM of the trace is the request (not placed). */
struct Small {
    std::vector<TraceVm> trace;
    std::vector<std::size_t> arrivals;
    Problem p;
    std::unique_ptr<CapacityModel> model;
    std::unique_ptr<Placer> placer = make_placer("first-fit");
    std::unique_ptr<OnlineCluster> c;
    /** VM i: `vcpu[i]` vCPU and 4 GiB per vCPU (the vNUMA rule splits it), placed on host
     *  host_of[i] (on the pNUMA nodes nodes[i] when given) of 3 hosts of `topology` with
     *  `node_vcpu` vCPU per node; the VMs after host_of's last are not placed. */
    Small(const std::vector<Amount>& vcpu, const std::vector<int>& host_of, const std::vector<bool>& migratable,
          const std::vector<std::vector<int>>& nodes = {}, const char* topology = "K1", Amount node_vcpu = 8) {
        for (std::size_t i = 0; i < vcpu.size(); ++i) {
            TraceVm vm;
            vm.arrival_s = static_cast<double>(i);
            vm.vcpu = vcpu[i];
            vm.ram_mib = vcpu[i] * 4 * 1024;
            vm.flavor_name = std::to_string(vcpu[i]) + "c";
            trace.push_back(vm);
        }
        SnapshotOptions o;
        o.host_type = uniform_host_type(topology, node_vcpu, node_vcpu * 4 * 1024);
        o.num_hosts = 3;
        o.time_s = 100.0;
        o.targets = "all";
        p = replay_arrivals(trace, o, arrivals);
        for (std::size_t i = 0; i < migratable.size(); ++i) p.vms[i].migratable = migratable[i];
        model = std::make_unique<CapacityModel>(p);
        c = std::make_unique<OnlineCluster>(*model, *placer);
        for (std::size_t i = 0; i < host_of.size(); ++i) {
            EXPECT_TRUE(c->place(static_cast<int>(i)).found());
            std::array<std::uint8_t, kMaxVNuma> pnuma{};
            if (i < nodes.size())
                for (std::size_t j = 0; j < nodes[i].size(); ++j) pnuma[j] = static_cast<std::uint8_t>(nodes[i][j]);
            if (i < nodes.size() || c->state().host_of(static_cast<int>(i)) != host_of[i])
                EXPECT_TRUE(c->migrate(static_cast<int>(i), host_of[i], pnuma)) << "VM " << i;
        }
    }
};

TEST(MakeRoom, RoomHeldForAStepInFlightIsNotUsed) {
    // 4c on host 0, 4c on host 1, 8c on host 2; the request is 8c. One plan: the 4c of host 0 to
    // host 1. With a step in flight holding host 1's free half, there is none.
    Small s({4, 4, 8, 8}, {0, 1, 2}, {true, true, true});
    const std::vector<Placement> free_plan = make_room(*s.c, 3, 1);
    ASSERT_EQ(free_plan.size(), 1U);
    expect_valid(s.c->state(), free_plan, s.c->state().flavor_of(3), 1);
    s.c->launch(0, 1, {}, 1.0, 100.0, 0);  // VM 0 to host 1: from t = 1 its node there is held
    s.c->advance_to(1.0);
    ASSERT_EQ(s.c->state().free_of(1)[kVcpu], 0);
    SearchState st = s.c->state();
    EXPECT_FALSE(plan_exists(st, st.flavor_of(3), 2));
    EXPECT_TRUE(make_room(*s.c, 3, 2).empty());
    // The engine plans on the VMs' placement alone: it proposes a step that has no room.
    const std::vector<Placement> engine = make_room_engine(s.c->state(), 3, 1);
    ASSERT_FALSE(engine.empty());
    EXPECT_FALSE(step_fits(s.c->state(), engine[0].vm, engine[0].host, engine[0].pnuma));
}

TEST(MakeRoom, NonMigratableVmsStay) {
    // As above without the step in flight; the two 4c VMs may not migrate: no plan (the search
    // without the check would move one of them).
    Small s({4, 4, 8, 8}, {0, 1, 2}, {false, false, true});
    SearchState st = s.c->state();
    EXPECT_FALSE(plan_exists(st, st.flavor_of(3), 2));
    EXPECT_TRUE(make_room(*s.c, 3, 2).empty());
    Small one({4, 4, 8, 8}, {0, 1, 2}, {false, true, true});  // only the 4c of host 1 may move: to host 0
    const std::vector<Placement> plan = make_room(*one.c, 3, 2);
    ASSERT_EQ(plan.size(), 1U);
    EXPECT_EQ(plan[0].vm, 1);
    EXPECT_EQ(plan[0].host, 0);
}

TEST(MakeRoom, TwoStepsOffOneHostOrAChain) {
    // Host 0: 6c (2 free); host 1: 4c + 2c (2 free); host 2: 4c (4 free). The request is 8c. No
    // single move: the 6c and the 4c of host 2 fit nowhere else. Two steps: both VMs off host 1
    // (the 4c to host 2, then the 2c to host 0), 6c of RAM, the least.
    Small s({6, 4, 2, 4, 8}, {0, 1, 1, 2}, {true, true, true, true});
    EXPECT_TRUE(make_room(*s.c, 4, 1).empty());
    std::vector<Placement> plan = make_room(*s.c, 4, 2);
    ASSERT_EQ(plan.size(), 2U);
    expect_valid(s.c->state(), plan, s.c->state().flavor_of(4), 2);
    EXPECT_EQ(plan[0].vm, 1);
    EXPECT_EQ(plan[0].host, 2);
    EXPECT_EQ(plan[1].vm, 2);
    EXPECT_EQ(plan[1].host, 0);
    // The 2c may not migrate: a chain, the 4c of host 1 to host 2, then the 6c to host 1.
    Small t({6, 4, 2, 4, 8}, {0, 1, 1, 2}, {true, true, false, true});
    plan = make_room(*t.c, 4, 2);
    ASSERT_EQ(plan.size(), 2U);
    expect_valid(t.c->state(), plan, t.c->state().flavor_of(4), 2);
    EXPECT_EQ(plan[0].vm, 1);
    EXPECT_EQ(plan[0].host, 2);
    EXPECT_EQ(plan[1].vm, 0);
    EXPECT_EQ(plan[1].host, 1);
}

TEST(MakeRoom, AChainWhoseFirstVmCanOnlyBeRemapped) {
    // K4 hosts, 16 vCPU per node. The request is 8c (one node). Host 0: x (6c) and 8c on node 0
    // (2 free), the other nodes full. Host 1: z (10c: 5c on nodes 0 and 1) with 8c + 2c on node
    // 0 (1 free) and 8c + 3c on node 1; 8c + 3c on node 2 (5 free); node 3 full. Host 2 full.
    // Only x and z may migrate. No host takes 6c or 10c (no node has 6 free, no two have 5), so
    // neither can leave its host; but z can be remapped on host 1 to nodes 1 and 2 (its own 5c
    // on node 1 counted free), which frees 6c on node 0 for x; then the request fits where x
    // was. The only plan: that chain, whose first VM moves by a remap alone.
    const std::vector<Amount> vcpu = {6,  8, 8, 8, 8, 8, 8, 8,     // host 0: x, then the fillers
                                      10, 8, 2, 8, 3, 8, 3, 8, 8,  // host 1: z, then the fillers
                                      8,  8, 8, 8, 8, 8, 8, 8,     // host 2
                                      8};                          // the request
    const std::vector<int> host_of = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2};
    const std::vector<std::vector<int>> nodes = {{0},    {0}, {1}, {1}, {2}, {2}, {3}, {3},       //
                                                 {0, 1}, {0}, {0}, {1}, {1}, {2}, {2}, {3}, {3},  //
                                                 {0},    {0}, {1}, {1}, {2}, {2}, {3}, {3}};
    std::vector<bool> migratable(host_of.size(), false);
    migratable[0] = migratable[8] = true;
    Small s(vcpu, host_of, migratable, nodes, "K4", 16);
    const int request = static_cast<int>(host_of.size());
    const SearchState& st = s.c->state();
    ASSERT_EQ(s.p.flavors[static_cast<std::size_t>(st.flavor_of(8))].num_vnuma(), 2) << "z spans 2 nodes";
    EXPECT_TRUE(make_room(*s.c, request, 1).empty());
    const std::vector<Placement> plan = make_room(*s.c, request, 2);
    ASSERT_EQ(plan.size(), 2U);
    expect_valid(st, plan, st.flavor_of(request), 2);
    EXPECT_EQ(plan[0].vm, 8);
    EXPECT_EQ(plan[0].host, 1);
    EXPECT_EQ(plan[1].vm, 0);
    EXPECT_EQ(plan[1].host, 1);
    EXPECT_EQ(plan, make_room_direct_plain(*s.c, request, 2));
}

TEST(MakeRoom, SameHistorySamePlans) {
    const auto run = [] {
        const Replay r(5, 4, 60, "free");
        auto placer = make_placer("best-fit");
        OnlineCluster c(*r.model, *placer);
        std::vector<std::vector<Placement>> plans;
        const MakeRoomSearch search;
        c.set_make_room(2, [&](const OnlineCluster& cl, int vm, int k) {
            plans.push_back(search(cl, vm, k));
            return plans.back();
        });
        for (std::size_t a = 0; a < r.arrivals.size(); ++a) {
            const TraceVm& t = r.trace[r.arrivals[a]];
            c.advance_to(t.arrival_s);
            c.arrive(static_cast<int>(a), t.departure_s);
        }
        return plans;
    };
    const auto a = run();
    EXPECT_GT(a.size(), 3U);
    EXPECT_EQ(a, run());
}

TEST(MakeRoom, ItsCacheFollowsEveryChangeOfTheCluster) {
    // make_room_direct keeps per host and flavor what it found between calls on one MakeRoomCache
    // (the singles, pairs and shuffles, their bounds, could_move's answer for the pairs) and per
    // flavor the best hosts that take it (top(): only the hosts whose version changed are re-read
    // and merged into the kept ones). On random replays with more hosts than top() keeps
    // (arrivals, departures, the plans applied, steps in flight holding and reserving room),
    // after every refusal, for every flavor not placed and budgets 1 and 2: the plan with the
    // long-lived cache is the plan without one (each call from scratch), and, on every third
    // call, make_room_direct_plain's.
    int compared = 0, found[3] = {0, 0, 0};
    for (const char* placer_name : {"vmcap-fit", "best-fit"})
        for (const int hosts : {12, 20})
            for (std::uint64_t seed = 1; seed <= 4; ++seed) {
                SCOPED_TRACE(std::string(placer_name) + " hosts " + std::to_string(hosts) + " seed " + std::to_string(seed));
                const std::uint64_t s = seed * 31 + static_cast<std::uint64_t>(hosts);
                const Replay r(s, hosts, hosts * 12, "free", varied_trace(s, hosts * 17));
                auto placer = make_placer(placer_name);
                OnlineCluster c(*r.model, *placer);
                c.set_reserve_steps(true);
                const std::vector<int> of_flavor = r.of_flavor();
                MakeRoomCache cache;
                MakeRoomOptions copies;
                copies.second_for_copies = 1;
                MakeRoomCache copies_cache;
                int calls = 0;
                c.set_make_room(2, [&](const OnlineCluster& cl, int vm, int k) {
                    ++calls;
                    for (const int v : of_flavor) {
                        if (v < 0 || cl.state().is_placed(v)) continue;
                        for (int budget = 1; budget <= 2; ++budget) {
                            const std::vector<Placement> fresh = make_room_direct(cl, v, budget);
                            EXPECT_EQ(make_room_direct(cl, v, budget, &cache), fresh)
                                << "flavor " << cl.state().flavor_of(v) << " k " << budget;
                            EXPECT_EQ(make_room_direct(cl, v, budget, &copies_cache, nullptr, copies),
                                      make_room_direct(cl, v, budget, nullptr, nullptr, copies))
                                << "second_for_copies, flavor " << cl.state().flavor_of(v) << " k " << budget;
                            if (calls % 3 == 0) EXPECT_EQ(fresh, make_room_direct_plain(cl, v, budget));
                            ++compared;
                            found[fresh.size()]++;
                        }
                    }
                    return make_room_direct(cl, vm, k, &cache);
                });
                r.run(c, 5, 3, 2, 80.0);
            }
    expect_enough(compared, found);
}

}  // namespace
}  // namespace vmcap

#pragma once
// The placement contract (placement/placer.h) as a test: a placer's every choice against
// exhaustive search over all (host, placement) pairs. Used for every registered placer
// (placement_test.cpp) and for the newcomers' placers (worst fit there, toy_placer_test.cpp) alike;
// and a newcomer's placer run through trace replay with nothing else touched.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "evaluators/state/capacity_model.h"
#include "evaluators/state/search_state.h"
#include "instances/generator.h"
#include "instances/trace.h"
#include "instances/vnuma_rule.h"
#include "placement/placer.h"
#include "placement/replay.h"

namespace vmcap::test {

/** A generated cluster plus `arrivals` unplaced VMs of random flavors (VM ids "new<i>"). */
inline Problem with_arrivals(std::uint64_t seed, int hosts, int vms, int arrivals) {
    GenerateOptions g;
    g.hosts = hosts;
    g.vms = vms;
    g.seed = seed;
    g.host_topology = seed % 2 ? "CQ3" : "K4";
    Problem p = generate_cluster(g);
    std::mt19937_64 rng(seed);
    for (int i = 0; i < arrivals; ++i) {
        Vm vm;
        vm.id = "new" + std::to_string(i);
        vm.flavor = static_cast<int>(rng() % p.flavors.size());
        vm.host = kUnplaced;
        p.vms.push_back(vm);
    }
    finalize_problem(p, "<test>", true);
    return p;
}

/** Every (host, placement index) where a VM of `flavor` fits now, by a plain loop over free amounts. */
inline std::vector<std::pair<int, int>> all_fits(const SearchState& s, int flavor) {
    const Problem& p = s.problem();
    const Flavor& fl = p.flavors[flavor];
    const int R = p.num_resources();
    std::vector<std::pair<int, int>> out;
    for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h) {
        const auto& pl = s.model().evaluator(p.hosts[h].type, flavor).placements();
        for (std::size_t e = 0; e < pl.size(); ++e) {
            bool ok = true;
            for (int v = 0; v < fl.num_vnuma(); ++v)
                for (int r = 0; r < R; ++r) ok = ok && s.free_of(h)[pl[e].map[v] * R + r] >= fl.node_demand[r];
            if (ok) out.emplace_back(h, static_cast<int>(e));
        }
    }
    return out;
}

/**
 * Holds `placer` to the contract on with_arrivals(seed, 6, 40, 80) (no rules), placing the 80
 * arrivals one by one until the cluster is full: each choice fits (it is among all_fits); a
 * refusal only when nothing fits (complete); the same choice when asked twice (deterministic, no
 * hidden state change); place_vm applies it. Expects at least one refusal, so completeness is
 * tested on both sides, and every cache exact at the end.
 */
inline void expect_placer_contract(Placer& placer, std::uint64_t seed) {
    const Problem p = with_arrivals(seed, 6, 40, 80);
    const CapacityModel model(p);
    SearchState s(model);
    placer.reset(s);
    int rejected = 0;
    for (int v = 40; v < static_cast<int>(p.vms.size()); ++v) {
        const auto fits_now = all_fits(s, s.flavor_of(v));
        const PlaceChoice c = placer.choose(s, v);
        if (!c.found()) {  // complete: nothing fits anywhere
            EXPECT_TRUE(fits_now.empty()) << "rejected although " << fits_now.size() << " placements fit";
            ++rejected;
            continue;
        }
        EXPECT_NE(std::find(fits_now.begin(), fits_now.end(), std::pair{c.host, c.embedding}), fits_now.end());
        const PlaceChoice again = placer.choose(s, v);  // deterministic, no hidden state change
        EXPECT_EQ(again.host, c.host);
        EXPECT_EQ(again.embedding, c.embedding);
        ASSERT_TRUE(place_vm(s, placer, v).found());
        EXPECT_EQ(s.host_of(v), c.host);
    }
    EXPECT_GT(rejected, 0);  // the cluster filled up: completeness was tested on both sides
    s.check_consistency();
}

/**
 * Replays a small trace (400 arrivals of 1 to 8 vCPU over 400 s, three in four leaving within
 * 300 s; drawn from `seed`) onto 12 CQ3 hosts through trace replay, once with `placer` and once
 * with best fit, and expects both to see every arrival, `placer` to place some, and `placer` to
 * use more hosts than best fit: on a part-full cluster a strategy that spreads touches more hosts
 * than one that packs. replay_snapshot finalizes each snapshot (a valid one, or it throws).
 */
inline void expect_spreads_more_than_best_fit(Placer& placer, std::uint64_t seed) {
    std::vector<TraceVm> trace;
    std::mt19937_64 rng(seed);
    const std::pair<Amount, Amount> sizes[] = {{1, 2048}, {2, 4096}, {4, 8192}, {8, 57344}};
    for (int i = 0; i < 400; ++i) {
        const auto [v, r] = sizes[rng() % 4];
        TraceVm vm;
        vm.arrival_s = i;
        vm.departure_s = rng() % 4 ? i + static_cast<double>(rng() % 300) : std::numeric_limits<double>::infinity();
        vm.vcpu = v;
        vm.ram_mib = r;
        vm.flavor_name = std::to_string(v) + "c" + std::to_string(r);
        trace.push_back(vm);
    }
    SnapshotOptions o;
    o.host_type = uniform_host_type("CQ3", 16, 64 * 1024);
    o.num_hosts = 12;
    o.time_s = 399;
    ReplayStats ps, bs;
    const Problem spread = replay_snapshot(trace, o, placer, &ps);
    const Problem packed = replay_snapshot(trace, o, &bs);  // best-fit
    EXPECT_EQ(ps.arrivals, bs.arrivals);
    EXPECT_GT(ps.placed, 0);
    auto hosts_used = [](const Problem& p) {
        std::set<int> used;
        for (const Vm& vm : p.vms) used.insert(vm.host);
        return used.size();
    };
    EXPECT_GT(hosts_used(spread), hosts_used(packed));
}

}  // namespace vmcap::test

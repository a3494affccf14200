// The host-value memo (evaluators/state/host_value_memo.h) with many target flavors: every gain it
// returns equals the capacity-change kernel's and a from-scratch recomputation of the host's
// weighted VMCAP, hits across hosts of one type included; the searches give the same results with
// and without it, their state checked against a full recomputation as they go (--check).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "evaluators/state/capacity_change.h"
#include "evaluators/state/host_value_memo.h"
#include "optimizer/search/annealing.h"
#include "optimizer/search/greedy.h"
#include "optimizer/search/tabu.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {
using namespace test;

/** Dual-node hosts (K2, 24 vCPU and 96 GiB per node) with `targets` extra weighted flavors:
 *  vCPU 1..32, RAM 1..8 GiB per vCPU, K1 when within half a node, else K2 (even demand). */
Problem many_target_problem(int targets, std::uint64_t seed) {
    RandomCluster rc;
    rc.host_topology = "K2";
    rc.hosts = 24;
    rc.node_vcpu = 24;
    rc.node_ram_mib = 96 * 1024;
    rc.fill = 0.75;
    rc.max_migrations = 10;
    rc.seed = seed;
    Problem p = make_random_problem(rc);
    std::mt19937_64 rng(seed);
    for (int added = 0; added < targets;) {
        const Amount vcpu = 1 + static_cast<Amount>(rng() % 32);
        const Amount ram = (2 + static_cast<Amount>(rng() % (16 * vcpu - 1))) * 512;
        const bool k1 = 2 * vcpu <= rc.node_vcpu && 2 * ram <= rc.node_ram_mib;
        if (ram > 2 * rc.node_ram_mib || (!k1 && (vcpu % 2 != 0 || ram % 1024 != 0))) continue;
        Flavor f;
        f.name = "t";
        f.name += std::to_string(added);
        f.demand = {vcpu, ram};
        f.vnuma = parse_topology(k1 ? "K1" : "K2");
        f.weight = static_cast<double>(1 + rng() % 1000) / 1000.0;
        p.flavors.push_back(f);
        ++added;
    }
    finalize_problem(p, "<many targets>");
    return p;
}

/** sum_j w_j VMCAP_j of a host of `type` with free amounts `free`, from scratch. */
Score host_value_from_scratch(const CapacityModel& m, int type, const Amount* free) {
    Score v = 0;
    for (int j = 0; j < m.num_targets(); ++j) v += m.target_weight_units(j) * m.host_capacity(type, m.target_flavor(j), free);
    return v;
}

TEST(HostValueMemo, GainsEqualTheKernelAndAFullRecomputationAcrossHosts) {
    const Problem p = many_target_problem(120, 3);
    const CapacityModel m(p);
    ASSERT_GE(m.num_targets(), HostValueMemo::kMinTargets);
    SearchState s(m);
    HostValueMemo memo(m);
    s.use_value_memo(&memo);
    const int R = m.num_resources();
    std::mt19937_64 rng(7);
    for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h)
        ASSERT_EQ(s.host_value(h), host_value_from_scratch(m, s.type_of(h), s.free_of(h)));
    // Random free amounts on one or both nodes of random hosts, each asked twice (a miss, then a
    // hit) and once more on another host whose unchanged node holds the same amounts.
    int hits_across = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        const int h = static_cast<int>(rng() % p.hosts.size());
        const unsigned touched = 1U + static_cast<unsigned>(rng() % 3);
        Amount local[kMaxPNuma * kMaxResources];
        const Amount* f = s.free_of(h);
        for (int i = 0; i < 2; ++i)
            for (int r = 0; r < R; ++r)
                local[i * R + r] = (touched >> i & 1U) != 0 ? static_cast<Amount>(rng() % (p.host_types[0].node_capacity[r] + 1)) : 0;
        Amount after[kMaxPNuma * kMaxResources];
        for (int i = 0; i < 2; ++i)
            for (int r = 0; r < R; ++r) after[i * R + r] = (touched >> i & 1U) != 0 ? local[i * R + r] : f[i * R + r];
        const Score want = host_value_from_scratch(m, s.type_of(h), after) - s.host_value(h);
        if (s.per_target_caches()) {
            ASSERT_EQ(capacity_gain_direct(s, h, s.type_of(h), 2, touched, local), want);
        }
        ASSERT_EQ(capacity_gain(s, h, touched, local), want) << "trial " << trial;
        ASSERT_EQ(capacity_gain(s, h, touched, local), want) << "trial " << trial << " (hit)";
        // Another host reaching the same free amounts (both nodes given): the entry is shared.
        const int g = static_cast<int>((h + 1 + rng() % (p.hosts.size() - 1)) % p.hosts.size());
        const std::int64_t before = memo.hits();
        const Score other = capacity_gain(s, g, 3U, after);
        hits_across += memo.hits() > before;
        ASSERT_EQ(other, host_value_from_scratch(m, s.type_of(g), after) - s.host_value(g)) << "trial " << trial;
    }
    EXPECT_GT(memo.hits(), 3000);
    EXPECT_GT(hits_across, 0);
}

// The memo's self-measurement: a window of lookups that rarely hit makes it compute directly for
// kStandAside calls (no lookup: hits and misses stand still), then it measures again; keys that
// repeat keep it on. Every call returns the value of its own key either way.
TEST(HostValueMemo, StandsAsideWhenItRarelyHitsAndStaysOnWhenKeysRepeat) {
    const Problem p = many_target_problem(20, 3);
    const CapacityModel m(p);
    auto value_of = [](const Amount* key) { return key[0] * 1'000'003 + key[1] * 1'009 + key[2] * 17 + key[3]; };
    auto call = [&](HostValueMemo& memo, const Amount* key) {
        return HostValueMemo::value_or(&memo, 0, key, 4, [&] { return value_of(key); });
    };
    std::int64_t serial = 0;
    auto fresh_key = [&](Amount* key) {  // a key never asked before
        ++serial;
        key[0] = serial % 25, key[1] = serial / 25 % 97, key[2] = serial / (25 * 97) % 25, key[3] = serial / (25 * 97 * 25);
    };
    HostValueMemo rare(m);
    Amount key[4];
    for (int c = 0; c < HostValueMemo::kWindow; ++c) {
        fresh_key(key);
        ASSERT_EQ(call(rare, key), value_of(key));
    }
    EXPECT_EQ(rare.misses(), HostValueMemo::kWindow);
    EXPECT_EQ(rare.stood_aside(), 0);
    for (int c = 0; c < HostValueMemo::kStandAside; ++c) {
        fresh_key(key);
        ASSERT_EQ(call(rare, key), value_of(key));
    }
    EXPECT_EQ(rare.stood_aside(), HostValueMemo::kStandAside);
    EXPECT_EQ(rare.hits() + rare.misses(), HostValueMemo::kWindow) << "no lookup while standing aside";
    fresh_key(key);
    ASSERT_EQ(call(rare, key), value_of(key));
    EXPECT_EQ(rare.misses(), HostValueMemo::kWindow + 1) << "measures again after kStandAside calls";

    // 64 keys in turn: all but the first 64 calls hit; three windows and the memo never stood aside.
    HostValueMemo often(m);
    Amount keys[64][4];
    for (auto& k : keys) fresh_key(k);
    for (int c = 0; c < 3 * HostValueMemo::kWindow; ++c) ASSERT_EQ(call(often, keys[c % 64]), value_of(keys[c % 64]));
    EXPECT_EQ(often.stood_aside(), 0);
    EXPECT_EQ(often.misses(), 64);
    EXPECT_EQ(often.hits(), 3 * HostValueMemo::kWindow - 64);
}

TEST(HostValueMemo, SearchesGiveTheSameResultsWithAndWithoutItUnderCheck) {
    const Problem p = many_target_problem(80, 5);
    const CapacityModel m(p);
    ASSERT_GE(m.num_targets(), HostValueMemo::kMinTargets);
    for (int threads : {1, 2}) {
        SearchParams sp;
        sp.max_evaluations = 60000;
        sp.threads = threads;
        sp.seed = 11;
        sp.quiet = true;
        sp.check_every = 997;  // the state recomputed from scratch (host values included) as the search goes
        SearchParams off = sp;
        off.value_memo = false;
        const SearchResult a = anneal(m, sp), b = anneal(m, off);
        EXPECT_EQ(a.score_best, b.score_best) << threads << " thread(s)";
        EXPECT_EQ(a.best.size(), b.best.size());
        EXPECT_EQ(a.evaluations, b.evaluations);
        EXPECT_EQ(a.accepted, b.accepted);
        const SearchResult ta = tabu_search(m, sp, TabuParams{}), tb = tabu_search(m, off, TabuParams{});
        EXPECT_EQ(ta.score_best, tb.score_best) << threads << " thread(s)";
        EXPECT_EQ(ta.accepted, tb.accepted);
        const SearchResult ga = greedy(m, sp), gb = greedy(m, off);
        EXPECT_EQ(ga.score_best, gb.score_best);
        EXPECT_EQ(ga.accepted, gb.accepted);
        EXPECT_EQ(full_objective(m,
                                 [&] {
                                     SearchState t(m);
                                     t.set_placements(a.best);
                                     return t;
                                 }()),
                  a.score_best);
    }
}

}  // namespace
}  // namespace vmcap

// The exact-fallback memo (VmcapEvaluator::enable_memo, against the throughput
// cliff of snapshots with many empty hosts): every value read from the table equals what an evaluator
// without the table computes (the independent oracle), from one thread and from several at once.
#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

#include "evaluators/state/capacity_model.h"
#include "evaluators/closed_forms/vmcap.h"
#include "instances/generator.h"
#include "instances/topology.h"

namespace vmcap {
namespace {

std::vector<Count> random_b(std::mt19937_64& rng, int n, Count most) {
    std::uniform_int_distribution<Count> d(0, most);
    std::vector<Count> b(static_cast<std::size_t>(n));
    for (auto& x : b) x = d(rng);
    return b;
}

TEST(VmcapMemo, EqualsTheSolverOnNoClosedFormPairs) {
    for (const auto& [host, guest] : {std::pair{"Q3", "K2"}, std::pair{"Q3", "C4"}, std::pair{"K5", "C4"}}) {
        SCOPED_TRACE(std::string(host) + "/" + guest);
        const Topology h = parse_topology(host), g = parse_topology(guest);
        const VmcapEvaluator plain(h, g);
        VmcapEvaluator memo(h, g);
        ASSERT_FALSE(memo.is_closed_form());
        const std::vector<Count> bmax(static_cast<std::size_t>(h.size()), 4);
        memo.enable_memo(bmax, 1 << 20);
        ASSERT_GT(memo.memo_entries(), 0u);
        std::mt19937_64 rng(7);
        for (int t = 0; t < 3000; ++t) {
            const auto b = random_b(rng, h.size(), 6);  // also beyond bmax: evaluated without the table
            EXPECT_EQ(memo(b.data()), plain(b.data()));
            EXPECT_EQ(memo(b.data()), plain(b.data()));  // the second read comes from the table
        }
    }
}

TEST(VmcapMemo, OnlyForTheExactFallbackAndBoundedTables) {
    VmcapEvaluator closed(parse_topology("CQ3"), parse_topology("K2"));
    ASSERT_TRUE(closed.is_closed_form());
    closed.enable_memo(std::vector<Count>(8, 4), 1 << 20);
    EXPECT_EQ(closed.memo_entries(), 0u);
    VmcapEvaluator big(parse_topology("Q3"), parse_topology("K2"));
    big.enable_memo(std::vector<Count>(8, 9), 1 << 20);  // 10^8 entries: too large
    EXPECT_EQ(big.memo_entries(), 0u);
    big.enable_memo(std::vector<Count>(8, 3), 1 << 20);  // 4^8 = 65,536
    EXPECT_EQ(big.memo_entries(), 65536u);
}

// Workers share the table without a lock: four threads evaluate the same vectors at once (also
// run under ThreadSanitizer by scripts/tsan.sh) and every value equals the solver's.
TEST(VmcapMemo, ConcurrentReadersAgree) {
    const Topology h = parse_topology("Q3"), g = parse_topology("K2");
    const VmcapEvaluator plain(h, g);
    VmcapEvaluator memo(h, g);
    memo.enable_memo(std::vector<Count>(8, 3), 1 << 20);
    std::mt19937_64 rng(11);
    std::vector<std::vector<Count>> bs;
    std::vector<Count> want;
    for (int t = 0; t < 2000; ++t) {
        bs.push_back(random_b(rng, 8, 3));
        want.push_back(plain(bs.back().data()));
    }
    std::vector<int> wrong(4, 0);
    std::vector<std::thread> threads;
    for (int w = 0; w < 4; ++w)
        threads.emplace_back([&, w] {
            for (int rep = 0; rep < 2; ++rep)
                for (std::size_t t = 0; t < bs.size(); ++t)
                    if (memo(bs[(t * 7 + static_cast<std::size_t>(w) * 13) % bs.size()].data()) !=
                        want[(t * 7 + static_cast<std::size_t>(w) * 13) % bs.size()])
                        ++wrong[w];
        });
    for (auto& t : threads) t.join();
    for (int w = 0; w < 4; ++w) EXPECT_EQ(wrong[w], 0) << "thread " << w;
}

// The model turns the table on for its exact-fallback pairs, sized by an empty node's b.
TEST(VmcapMemo, ModelEnablesItForExactPairs) {
    GenerateOptions go;
    go.hosts = 8;
    go.vms = 40;
    go.host_topology = "Q3";
    const Problem p = generate_cluster(go);
    const CapacityModel m(p);
    int exact_pairs = 0;
    for (std::size_t f = 0; f < p.flavors.size(); ++f) {
        const VmcapEvaluator& ev = m.evaluator(0, static_cast<int>(f));
        if (ev.is_closed_form()) continue;
        ++exact_pairs;
        EXPECT_GT(ev.memo_entries(), 0u) << p.flavors[f].name;
        // The empty host: every node at its most, a table entry.
        const std::vector<Amount> empty(p.host_types[0].node_capacity.begin(), p.host_types[0].node_capacity.end());
        const VmcapEvaluator plain(p.host_types[0].topology, p.flavors[f].vnuma);
        Count b[kMaxPNuma];
        for (int i = 0; i < 8; ++i) b[i] = m.node_b(static_cast<int>(f), empty.data() + i * m.num_resources());
        EXPECT_EQ(m.host_capacity(0, static_cast<int>(f), empty.data()), plain(b));
    }
    EXPECT_GT(exact_pairs, 0);
}

}  // namespace
}  // namespace vmcap

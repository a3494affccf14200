// Newcomer cost of a move kind, counted: a 3-cycle move (a -> b's host, b -> c's host, c -> a's
// host) written in this one file with the MoveType surface (moves/move.h) runs through the generic
// dispatch of moves/move_list.h — proposal by the mix, complete evaluation with the cache, bound,
// apply, tabu attributes — by adding it to a MoveList, with no edit anywhere else. To put it in
// the search: its two files in moves/ and one entry in `Moves`. It declares only what differs from
// the surface's defaults (no default share, no cached evaluation). Its exact delta is checked
// against a brute force over every placement triple applied to a copy of the state.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "moves/host_scratch.h"
#include "moves/move_list.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

/** Result of CycleMove::evaluate: the chosen placement of a, b, c on their destinations. */
struct CycleDelta : DeltaHead {
    int emb[3] = {-1, -1, -1};
};

/**
 * 3-cycle: a -> host of b, b -> host of c, c -> host of a (three distinct hosts), executed as the
 * live migrations a, b, c in that order: a must fit on b's host while b is still there, b on c's
 * host while c is still there, c on a's host once a has left. Each destination takes its best
 * placement (hosts are distinct, so the three choices are independent); the budget counts each VM
 * that ends off its snapshot placement.
 */
struct CycleMove {
    static constexpr std::string_view kName = "cycle";
    static constexpr bool kCompound = true;
    using Delta = CycleDelta;

    int v[3] = {-1, -1, -1};

    Delta evaluate(const SearchState& s) const {
        Delta out;
        const Problem& p = s.problem();
        int h[3];
        for (int i = 0; i < 3; ++i) {
            if (v[i] < 0 || !s.migratable(v[i])) return out;
            h[i] = s.host_of(v[i]);
        }
        if (h[0] == h[1] || h[1] == h[2] || h[0] == h[2]) return out;
        Score total = 0;
        std::int64_t migrations = s.migrations();
        Amount ram = s.migrated_ram_mib();
        for (int i = 0; i < 3; ++i) {
            const int in = v[i], leave = v[(i + 1) % 3];  // v[i] arrives where v[i+1] leaves
            const int host = h[(i + 1) % 3];
            const Flavor& fin = p.flavors[s.flavor_of(in)];
            HostScratch before, after;
            before.load(s, host);  // as it is when `in` arrives: for i < 2 its VM is still there
            if (i == 2) before.release(p.flavors[s.flavor_of(v[0])], s.pnuma_of(v[0]));  // c arrives after a left
            after = before;
            if (i < 2) after.release(p.flavors[s.flavor_of(leave)], s.pnuma_of(leave));
            const auto& pl = s.model().evaluator(s.type_of(host), s.flavor_of(in)).placements();
            Score best = 0;
            for (std::size_t e = 0; e < pl.size(); ++e) {
                if (!before.fits(fin, pl[e].map.data())) continue;
                const Score g = after.gain(s, &fin, pl[e].map.data());
                if (out.emb[i] < 0 || g > best) {
                    out.emb[i] = static_cast<int>(e);
                    best = g;
                }
            }
            if (out.emb[i] < 0) return Delta{};
            total += best;
            const bool was = s.is_migrated(in), now = s.differs_from_origin(in, host, pl[out.emb[i]].mask);
            migrations += (now ? 1 : 0) - (was ? 1 : 0);
            ram += ((now ? 1 : 0) - (was ? 1 : 0)) * fin.demand[kRamMib];
        }
        if (!within_budget(s, migrations, ram)) return Delta{};
        out.feasible = true;
        out.delta = total;
        out.migrations_after = migrations;
        return out;
    }
    /** VMCAP never grows when a VM is added: at most the three removal deltas (distinct hosts). */
    double upper_bound(const SearchState& s, MoveCache& cache) const {
        if (s.host_of(v[0]) == s.host_of(v[1]) || s.host_of(v[1]) == s.host_of(v[2]) || s.host_of(v[0]) == s.host_of(v[2])) return kNoBound;
        return static_cast<double>(cache.removal(s, v[0]) + cache.removal(s, v[1]) + cache.removal(s, v[2]));
    }
    int host_relocations(const SearchState& s, Relocation* out) const {
        // Three VMs: more than kMaxRelocations (2); a real move kind would raise that constant.
        (void)s;
        (void)out;
        return 0;
    }
    int relocations(const SearchState&, const Delta&, Relocation*) const { return 0; }
    void apply(SearchState& s, const Delta& d) const {
        const int h[3] = {s.host_of(v[0]), s.host_of(v[1]), s.host_of(v[2])};
        for (int i = 0; i < 3; ++i) {
            const int host = h[(i + 1) % 3];
            s.move(v[i], host, s.model().evaluator(s.type_of(host), s.flavor_of(v[i])).placements()[d.emb[i]]);
        }
    }
    static bool propose(ProposalContext& ctx, CycleMove& out) {
        for (int i = 0; i < 3; ++i) out.v[i] = ctx.random_vm();
        return true;
    }
};
static_assert(MoveType<CycleMove>);
// The defaults it relies on (moves/move.h): share 0, score_move without a cache path.
static_assert(!HasCachedEvaluate<CycleMove> && HasUpperBound<CycleMove> && move_compound<CycleMove>);
static_assert(move_default_share<CycleMove> == 0.0);
// A move whose optional part is declared with the wrong type is no MoveType (on GCC and Clang alike).
struct MistypedShareMove : CycleMove {
    static constexpr const char* kDefaultShare = "often";
};
static_assert(MoveType<CycleMove> && !MoveType<MistypedShareMove>);

using WithCycle = MoveList<MigrateMove, SwapMove, BudgetExchangeMove, RemapMove, ReturnMove, EjectionMove, CycleMove>;

/** Brute force: every placement triple, applied in order to a copy of the state. */
Score brute_cycle(const SearchState& s, const CycleMove& m, bool& feasible) {
    feasible = false;
    Score best = 0;
    for (int vm : m.v)
        if (!s.migratable(vm)) return best;
    const int h[3] = {s.host_of(m.v[0]), s.host_of(m.v[1]), s.host_of(m.v[2])};
    const auto& p0 = s.model().evaluator(s.type_of(h[1]), s.flavor_of(m.v[0])).placements();
    const auto& p1 = s.model().evaluator(s.type_of(h[2]), s.flavor_of(m.v[1])).placements();
    const auto& p2 = s.model().evaluator(s.type_of(h[0]), s.flavor_of(m.v[2])).placements();
    const Problem& p = s.problem();
    auto fits = [&](const SearchState& t, int vm, int host, const Embedding& e) {
        return fits_nodes(t.free_of(host), p.num_resources(), p.flavors[t.flavor_of(vm)], e.map.data());
    };
    for (const Embedding& e0 : p0)
        for (const Embedding& e1 : p1)
            for (const Embedding& e2 : p2) {
                SearchState t = s;
                if (!fits(t, m.v[0], h[1], e0)) continue;
                t.move(m.v[0], h[1], e0);
                if (!fits(t, m.v[1], h[2], e1)) continue;
                t.move(m.v[1], h[2], e1);
                if (!fits(t, m.v[2], h[0], e2)) continue;
                t.move(m.v[2], h[0], e2);
                if (!within_budget(t, t.migrations(), t.migrated_ram_mib())) continue;
                const Score d = t.objective() - s.objective();
                if (!feasible || d > best) best = d;
                feasible = true;
            }
    return best;
}

TEST(ToyMove, ThreeCycleThroughTheGenericDispatchMatchesBruteForce) {
    constexpr int kCycle = WithCycle::index("cycle");
    static_assert(kCycle == 6);
    int evaluated = 0, feasible = 0, applied = 0;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        test::RandomCluster rc;
        rc.hosts = 8;
        rc.seed = seed;
        rc.max_migrations = 1000;  // never binding: the toy picks placements by gain, not by budget
        rc.fill = 0.6;
        const Problem p = test::make_random_problem(rc);
        const CapacityModel m(p);
        SearchState s(m);
        MoveCache cache(s);
        Proposal pr;
        Rng rng(seed, 5);
        std::vector<int> movable;
        for (std::size_t vm = 0; vm < p.vms.size(); ++vm) movable.push_back(static_cast<int>(vm));
        pr.start(rng, movable.size());
        BasicMoveMix<WithCycle> mix;
        mix.set("cycle", 0.5);  // parsed by name, like --move-mix
        const auto cum = mix.cumulative();
        std::mt19937_64 coin(seed);
        for (int it = 0; it < 1500; ++it) {
            ProposalContext ctx{s, cache, movable, pr, rng};
            const auto c = propose<WithCycle>(ctx, cum);
            if (c.kind != kCycle) continue;
            ++evaluated;
            const double ub = upper_bound(c, s, cache);
            const auto d = evaluate(c, s, cache);
            bool bf_feasible = false;
            const Score bf = brute_cycle(s, c.get<kCycle>(), bf_feasible);
            SCOPED_TRACE("cycle #" + std::to_string(it) + " seed " + std::to_string(seed));
            const int h0 = s.host_of(c.get<kCycle>().v[0]), h1 = s.host_of(c.get<kCycle>().v[1]), h2 = s.host_of(c.get<kCycle>().v[2]);
            if (h0 == h1 || h1 == h2 || h0 == h2) {
                ASSERT_FALSE(d.feasible);
                continue;
            }
            ASSERT_EQ(d.feasible, bf_feasible);
            if (!d.feasible) continue;
            ++feasible;
            ASSERT_EQ(d.delta, bf);
            ASSERT_GE(ub, static_cast<double>(d.delta));
            if (coin() % 2) continue;
            const Score before = s.objective();
            apply(c, s, d);
            ++applied;
            ASSERT_EQ(s.objective() - before, d.delta);
            ASSERT_EQ(s.migrations(), d.migrations_after);
        }
        ASSERT_NO_THROW(s.check_consistency());
    }
    EXPECT_GT(evaluated, 1000);
    EXPECT_GT(feasible, 20);
    EXPECT_GT(applied, 10);
}

// The surface's defaults (moves/move.h) on the moves that use them: migrate and return declare no
// kCompound and no kDefaultShare (false, 0), remap, swap and gather no cached evaluation
// (score_move through a cache equals the exact evaluate(state), delta and decision), migrate,
// remap and return no upper bound (score_bound is kNoBound).
TEST(ToyMove, MovesThatOmitAPartGetItsDefault) {
    static_assert(!move_compound<MigrateMove> && !move_compound<RemapMove> && !move_compound<ReturnMove>);
    static_assert(move_compound<SwapMove> && move_compound<BudgetExchangeMove> && move_compound<EjectionMove> && move_compound<GatherMove>);
    static_assert(move_default_share<MigrateMove> == 0.0 && move_default_share<ReturnMove> == 0.0 && move_default_share<RemapMove> == 0.02);
    static_assert(!HasCachedEvaluate<RemapMove> && !HasCachedEvaluate<SwapMove> && !HasCachedEvaluate<GatherMove>);
    static_assert(HasCachedEvaluate<MigrateMove> && HasCachedEvaluate<ReturnMove> && HasCachedEvaluate<BudgetExchangeMove> &&
                  HasCachedEvaluate<EjectionMove>);
    static_assert(!HasUpperBound<MigrateMove> && !HasUpperBound<RemapMove> && !HasUpperBound<ReturnMove>);
    test::RandomCluster rc;
    rc.hosts = 8;
    rc.seed = 2;
    rc.max_migrations = 6;
    rc.fill = 0.6;
    const Problem p = test::make_random_problem(rc);
    const CapacityModel m(p);
    SearchState s(m);
    MoveCache cache(s);
    const int n = static_cast<int>(p.vms.size()), hosts = static_cast<int>(p.hosts.size());
    int feasible = 0;
    for (int v = 0; v < n; ++v) {
        const RemapMove rm{v};
        const RemapDelta r = score_move(rm, s, &cache), re = rm.evaluate(s);
        ASSERT_EQ(r.feasible, re.feasible);
        ASSERT_EQ(r.delta, re.delta);
        ASSERT_EQ(r.embedding, re.embedding);
        ASSERT_EQ(score_bound(rm, s, cache), kNoBound);
        const SwapMove sw{v, (v * 7 + 3) % n};
        const SwapDelta d = score_move(sw, s, &cache), de = sw.evaluate(s);
        ASSERT_EQ(d.feasible, de.feasible);
        ASSERT_EQ(d.delta, de.delta);
        ASSERT_EQ(d.embedding_a, de.embedding_a);
        ASSERT_EQ(d.embedding_b, de.embedding_b);
        feasible += d.feasible + r.feasible;
        const MigrateMove mv{v, (s.host_of(v) + 1) % hosts};
        ASSERT_EQ(score_bound(mv, s, cache), kNoBound);
        ASSERT_EQ(score_bound(ReturnMove{v}, s, cache), kNoBound);
        // The one-argument path and the cached one agree for the moves that declare both.
        ASSERT_EQ(score_move(mv, s, &cache).delta, score_move(mv, s).delta);
    }
    EXPECT_GT(feasible, 0);
}

// The repair rounds of optimize() run sequential moves only (BasicMoveMix::sequential_only): a
// compound kind is switched off by what it declares (kCompound), so the toy cycle, added to a list
// with no other edit, is off too, while the single-VM kinds keep their shares; and no proposal of
// the resulting mix is compound.
TEST(ToyMove, SequentialOnlySwitchesOffEveryCompoundKindByItsTrait) {
    BasicMoveMix<WithCycle> mix;
    for (int k = 1; k < WithCycle::kSize; ++k) mix.share[k] = 0.1;
    const auto before = mix.share;
    mix.sequential_only();
    for (int k = 1; k < WithCycle::kSize; ++k) {
        SCOPED_TRACE(std::string(WithCycle::kNames[k]));
        EXPECT_EQ(mix.share[k], WithCycle::kCompound[k] ? 0.0 : before[k]);
    }
    EXPECT_EQ(mix.share[WithCycle::index("cycle")], 0.0);

    test::RandomCluster rc;
    rc.hosts = 6;
    rc.seed = 4;
    rc.max_migrations = 10;
    const Problem p = test::make_random_problem(rc);
    const CapacityModel m(p);
    SearchState s(m);
    MoveCache cache(s);
    Proposal pr;
    Rng rng(4, 1);
    std::vector<int> movable;
    for (std::size_t vm = 0; vm < p.vms.size(); ++vm) movable.push_back(static_cast<int>(vm));
    pr.start(rng, movable.size());
    const auto cum = mix.cumulative();
    int drawn[WithCycle::kSize] = {};
    for (int it = 0; it < 2000; ++it) {
        ProposalContext ctx{s, cache, movable, pr, rng};
        const auto c = propose<WithCycle>(ctx, cum);
        ASSERT_FALSE(is_compound(c)) << WithCycle::kNames[c.kind];
        ++drawn[c.kind];
    }
    EXPECT_GT(drawn[WithCycle::index("remap")], 0);
}

}  // namespace
}  // namespace vmcap

// Swap, remap, budget-exchange and ejection-chain moves: exact and pure evaluate(), best choice vs brute force,
// budget semantics, consistency after random sequences; annealing with them started from greedy.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "instances/generator.h"
#include "instances/snapshot_io.h"
#include "moves/ejection.h"
#include "moves/budget_exchange.h"
#include "moves/migrate.h"
#include "moves/remap.h"
#include "moves/swap.h"
#include "optimizer/search/annealing.h"
#include "optimizer/search/greedy.h"
#include "optimizer/plan/plan.h"
#include "optimizer/plan/validate.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

using test::make_random_problem;
using test::RandomCluster;

/** Everything evaluate() could disturb: objective, totals, budget use, and a hash of the free
 *  amounts, capacity vectors, capacities and placements of every host and VM. */
struct Fingerprint {
    Score objective = 0;
    std::vector<Count> totals;
    std::int64_t migrations = 0;
    Amount ram = 0;
    std::uint64_t hash = 0;
    bool operator==(const Fingerprint&) const = default;
};

Fingerprint fingerprint(const SearchState& s) {
    const Problem& p = s.problem();
    const int R = s.model().num_resources(), T = s.model().num_targets();
    std::uint64_t h = 1469598103934665603ULL;
    auto mix = [&h](std::int64_t x) {
        h ^= static_cast<std::uint64_t>(x);
        h *= 1099511628211ULL;
    };
    for (std::size_t host = 0; host < p.hosts.size(); ++host) {
        const int n = p.host_type_of(static_cast<int>(host)).num_nodes();
        for (int i = 0; i < n * R; ++i) mix(s.free_of(static_cast<int>(host))[i]);
        mix(s.host_value(static_cast<int>(host)));
        for (int j = 0; s.per_target_caches() && j < T; ++j) {
            for (int i = 0; i < n; ++i) mix(s.b_of(static_cast<int>(host), j)[i]);
            mix(s.capacity(static_cast<int>(host), j));
        }
    }
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        mix(s.host_of(static_cast<int>(v)));
        for (int i = 0; i < kMaxVNuma; ++i) mix(s.pnuma_of(static_cast<int>(v))[i]);
    }
    return Fingerprint{s.objective(), s.totals(), s.migrations(), s.migrated_ram_mib(), h};
}

using test::full_objective;

/** Room for `vm` on (host, e) in `s`, its own share counted as free (a live migration step). */
bool room(const SearchState& s, int vm, int host, const Embedding& e) {
    const Problem& p = s.problem();
    const Flavor& fl = p.flavors[p.vms[vm].flavor];
    const int R = s.model().num_resources();
    for (int i = 0; i < fl.num_vnuma(); ++i) {
        bool own = false;
        if (s.host_of(vm) == host)
            for (int c = 0; c < fl.num_vnuma(); ++c) own = own || s.pnuma_of(vm)[c] == e.map[i];
        for (int r = 0; r < R; ++r)
            if (s.free_of(host)[e.map[i] * R + r] + (own ? fl.node_demand[r] : 0) < fl.node_demand[r]) return false;
    }
    return true;
}

bool within(const SearchState& s) {
    const Constraints& c = s.problem().constraints;
    return s.migrations() <= c.max_migrations && s.migrated_ram_mib() <= c.max_migrated_ram_mib;
}

const std::vector<Embedding>& placements_of(const SearchState& s, int vm, int host) {
    return s.model().evaluator(s.problem().hosts[host].type, s.problem().vms[vm].flavor).placements();
}

constexpr Score kNone = std::numeric_limits<Score>::min();

/** Best objective change over every executable (order, placement pair) of a swap; kNone if none. */
Score brute_swap(const SearchState& s, int a, int b) {
    Score best = kNone;
    const int ha = s.host_of(a), hb = s.host_of(b);
    for (const Embedding& ea : placements_of(s, a, hb))
        for (const Embedding& eb : placements_of(s, b, ha))
            for (int order = 0; order < 2; ++order) {
                SearchState t = s;
                const int x = order == 0 ? a : b, y = order == 0 ? b : a;
                const Embedding& ex = order == 0 ? ea : eb;
                const Embedding& ey = order == 0 ? eb : ea;
                const int hx = order == 0 ? hb : ha, hy = order == 0 ? ha : hb;
                if (!room(t, x, hx, ex)) continue;
                t.move(x, hx, ex);
                if (!room(t, y, hy, ey)) continue;
                t.move(y, hy, ey);
                if (within(t)) best = std::max(best, t.objective() - s.objective());
            }
    return best;
}

Score brute_remap(const SearchState& s, int vm) {
    Score best = kNone;
    const int h = s.host_of(vm);
    for (const Embedding& e : placements_of(s, vm, h)) {
        if (e.mask == s.mask_of(vm) || !room(s, vm, h, e)) continue;
        SearchState t = s;
        t.move(vm, h, e);
        if (within(t)) best = std::max(best, t.objective() - s.objective());
    }
    return best;
}

Score brute_exchange(const SearchState& s, const BudgetExchangeMove& x) {
    const Problem& p = s.problem();
    Embedding home;
    home.map = p.vms[x.a].pnuma;
    unsigned m = 0;
    for (int i = 0; i < p.flavors[p.vms[x.a].flavor].num_vnuma(); ++i) m |= 1U << home.map[i];
    home.mask = static_cast<NodeMask>(m);
    if (!room(s, x.a, p.vms[x.a].host, home)) return kNone;
    SearchState t = s;
    t.move(x.a, p.vms[x.a].host, home);
    Score best = kNone;
    for (const Embedding& e : placements_of(t, x.b, x.host)) {
        if (!room(t, x.b, x.host, e)) continue;
        SearchState u = t;
        u.move(x.b, x.host, e);
        if (within(u)) best = std::max(best, u.objective() - s.objective());
    }
    return best;
}

/** Best objective change over every placement pair of a depth-2 ejection chain; kNone if none. */
Score brute_ejection(const SearchState& s, const EjectionMove& x) {
    Score best = kNone;
    const int h2 = s.host_of(x.b);
    for (const Embedding& eb : placements_of(s, x.b, x.host)) {
        if (!room(s, x.b, x.host, eb)) continue;
        SearchState t = s;
        t.move(x.b, x.host, eb);
        for (const Embedding& ea : placements_of(t, x.a, h2)) {
            if (!room(t, x.a, h2, ea)) continue;
            SearchState u = t;
            u.move(x.a, h2, ea);
            if (within(u)) best = std::max(best, u.objective() - s.objective());
        }
    }
    return best;
}

/** Best objective change over every placement pair of a gather (a -> host_a, then b -> host_b,
 *  as two live migrations); kNone if none or host_a is b's host (the contract: a never waits). */
Score brute_gather(const SearchState& s, const GatherMove& g) {
    Score best = kNone;
    if (g.host_a == s.host_of(g.b)) return kNone;
    for (const Embedding& ea : placements_of(s, g.a, g.host_a)) {
        if (!room(s, g.a, g.host_a, ea)) continue;
        SearchState t = s;
        t.move(g.a, g.host_a, ea);
        for (const Embedding& eb : placements_of(t, g.b, g.host_b)) {
            if (!room(t, g.b, g.host_b, eb)) continue;
            SearchState u = t;
            u.move(g.b, g.host_b, eb);
            if (within(u)) best = std::max(best, u.objective() - s.objective());
        }
    }
    return best;
}

enum class Kind { Swap, Remap, Exchange, Ejection, Gather };

struct MovesCase {
    std::string topo;
    Kind kind;
};

void PrintTo(const MovesCase& c, std::ostream* os) {
    *os << c.topo << " kind " << static_cast<int>(c.kind);
}

std::string moves_case_name(const ::testing::TestParamInfo<MovesCase>& info) {
    const char* k = info.param.kind == Kind::Swap       ? "Swap"
                    : info.param.kind == Kind::Remap    ? "Remap"
                    : info.param.kind == Kind::Exchange ? "Exchange"
                    : info.param.kind == Kind::Gather   ? "Gather"
                                                        : "Ejection";
    std::string t = info.param.topo;
    for (char& c : t)
        if (c == ',') c = '_';
    return k + std::string("_") + t;
}

class MovesTest : public ::testing::TestWithParam<MovesCase> {};

/**
 * Random sequences mixing the tested move with migrate moves (which fill and churn the budget):
 * each evaluate() leaves the state untouched, equals the objective change of apply(), equals the
 * brute-force best over all executable alternatives (on every 7th candidate), keeps the budget and
 * its documented migration count; the incremental state matches a recomputation throughout.
 */
TEST_P(MovesTest, EvaluateIsExactPureBestAndWithinBudget) {
    const MovesCase mc = GetParam();
    int applied_total = 0, brute_checked = 0, budget_rejected = 0;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        RandomCluster rc;
        rc.host_topology = mc.topo;
        rc.hosts = 8;
        rc.seed = seed;
        rc.max_migrations = 4 + static_cast<std::int64_t>(seed);
        if (seed % 2 == 0) rc.max_migrated_ram_mib = 96 * 1024;
        rc.fill = 0.6 + 0.05 * static_cast<double>(seed);
        const Problem p = make_random_problem(rc);
        const CapacityModel m(p);
        SearchState s(m);
        std::mt19937_64 rng(seed * 977);
        const int V = static_cast<int>(p.vms.size()), H = static_cast<int>(p.hosts.size());
        int applied = 0;
        for (int it = 0; it < 4000 && applied < 150; ++it) {
            if (rng() % 2 == 0) {  // churn: a migrate move (or back home)
                const int vm = static_cast<int>(rng() % V);
                MigrateMove mv{vm, static_cast<int>(rng() % 3 == 0 ? p.vms[vm].host : static_cast<int>(rng() % H))};
                const MigrateDelta d = mv.evaluate(s);
                if (d.feasible && (d.delta >= 0 || rng() % 4 == 0)) mv.apply(s, d);
                continue;
            }
            const Fingerprint before = fingerprint(s);
            const std::int64_t mig_before = s.migrations();
            SCOPED_TRACE(mc.topo + " seed " + std::to_string(seed) + " it " + std::to_string(it));
            const bool brute = it % 7 == 0;
            bool feasible = false;
            double delta = 0.0;
            std::int64_t mig_after = 0;
            if (mc.kind == Kind::Swap) {
                const SwapMove mv{static_cast<int>(rng() % V), static_cast<int>(rng() % V)};
                const SwapDelta d = mv.evaluate(s);
                ASSERT_EQ(fingerprint(s), before);
                if (brute && p.vms[mv.a].migratable && p.vms[mv.b].migratable && mv.a != mv.b && s.host_of(mv.a) != s.host_of(mv.b)) {
                    const double bf = brute_swap(s, mv.a, mv.b);
                    ASSERT_EQ(d.feasible, bf != kNone);
                    if (!mv.budget_admits(s)) {  // the O(1) pre-check never rejects a feasible swap
                        ASSERT_EQ(bf, kNone);
                        ++budget_rejected;
                    }
                    if (d.feasible) {
                        ASSERT_EQ(d.delta, bf);
                    }
                    ++brute_checked;
                }
                if (!d.feasible) continue;
                const int ha = s.host_of(mv.a), hb = s.host_of(mv.b);
                mv.apply(s, d);
                ASSERT_EQ(s.host_of(mv.a), hb);
                ASSERT_EQ(s.host_of(mv.b), ha);
                feasible = true, delta = d.delta, mig_after = d.migrations_after;
            } else if (mc.kind == Kind::Remap) {
                const RemapMove mv{static_cast<int>(rng() % V)};
                const RemapDelta d = mv.evaluate(s);
                ASSERT_EQ(fingerprint(s), before);
                if (brute && p.vms[mv.vm].migratable) {
                    const double bf = brute_remap(s, mv.vm);
                    ASSERT_EQ(d.feasible, bf != kNone);
                    if (d.feasible) {
                        ASSERT_EQ(d.delta, bf);
                    }
                    ++brute_checked;
                }
                if (!d.feasible) continue;
                const int h = s.host_of(mv.vm);
                const NodeMask mask = s.mask_of(mv.vm);
                mv.apply(s, d);
                ASSERT_EQ(s.host_of(mv.vm), h);
                ASSERT_NE(s.mask_of(mv.vm), mask);
                ASSERT_EQ(s.is_migrated(mv.vm), s.differs_from_origin(mv.vm, h, s.mask_of(mv.vm)));
                feasible = true, delta = d.delta, mig_after = d.migrations_after;
            } else if (mc.kind == Kind::Ejection) {
                const EjectionMove mv{static_cast<int>(rng() % V), static_cast<int>(rng() % V), static_cast<int>(rng() % H)};
                const EjectionDelta d = mv.evaluate(s);
                ASSERT_EQ(fingerprint(s), before);
                if (brute && p.vms[mv.a].migratable && p.vms[mv.b].migratable && mv.a != mv.b && s.host_of(mv.a) != s.host_of(mv.b) &&
                    mv.host != s.host_of(mv.b)) {
                    const double bf = brute_ejection(s, mv);
                    ASSERT_EQ(d.feasible, bf != kNone);
                    if (!mv.budget_admits(s)) {  // the O(1) pre-check never rejects a feasible ejection
                        ASSERT_EQ(bf, kNone);
                        ++budget_rejected;
                    }
                    if (d.feasible) {
                        ASSERT_EQ(d.delta, bf);
                    }
                    ++brute_checked;
                }
                if (!d.feasible) continue;
                const int h2 = s.host_of(mv.b);
                mv.apply(s, d);
                ASSERT_EQ(s.host_of(mv.a), h2);
                ASSERT_EQ(s.host_of(mv.b), mv.host);
                feasible = true, delta = d.delta, mig_after = d.migrations_after;
            } else if (mc.kind == Kind::Gather) {
                // Destinations that interact: one host for both half of the time, b to a's host
                // a quarter of the time (room only once a has left), a to b's host sometimes
                // (infeasible by contract).
                GatherMove mv{static_cast<int>(rng() % V), static_cast<int>(rng() % V), static_cast<int>(rng() % H), -1};
                if (rng() % 8 == 0) mv.host_a = s.host_of(mv.b);
                const auto r4 = rng() % 4;
                mv.host_b = r4 < 2 ? mv.host_a : r4 == 2 ? s.host_of(mv.a) : static_cast<int>(rng() % H);
                const GatherDelta d = mv.evaluate(s);
                ASSERT_EQ(fingerprint(s), before);
                if (brute && p.vms[mv.a].migratable && p.vms[mv.b].migratable && mv.a != mv.b && mv.host_a != s.host_of(mv.a) &&
                    mv.host_b != s.host_of(mv.b)) {
                    const double bf = brute_gather(s, mv);
                    ASSERT_EQ(d.feasible, bf != kNone);
                    if (!mv.budget_admits(s)) {  // the O(1) pre-check never rejects a feasible gather
                        ASSERT_EQ(bf, kNone);
                        ++budget_rejected;
                    }
                    if (d.feasible) {
                        ASSERT_EQ(d.delta, bf);
                    }
                    ++brute_checked;
                }
                if (!d.feasible) continue;
                mv.apply(s, d);
                ASSERT_EQ(s.host_of(mv.a), mv.host_a);
                ASSERT_EQ(s.host_of(mv.b), mv.host_b);
                feasible = true, delta = d.delta, mig_after = d.migrations_after;
            } else {
                const auto& mig = s.migrated_vms();
                if (mig.empty()) continue;
                const BudgetExchangeMove mv{mig[rng() % mig.size()], static_cast<int>(rng() % V), static_cast<int>(rng() % H)};
                const BudgetExchangeDelta d = mv.evaluate(s);
                ASSERT_EQ(fingerprint(s), before);
                if (brute && !s.is_migrated(mv.b) && p.vms[mv.b].migratable && mv.host != s.host_of(mv.b)) {
                    const double bf = brute_exchange(s, mv);
                    ASSERT_EQ(d.feasible, bf != kNone);
                    if (d.feasible) {
                        ASSERT_EQ(d.delta, bf);
                    }
                    ++brute_checked;
                }
                if (!d.feasible) continue;
                mv.apply(s, d);
                ASSERT_FALSE(s.is_migrated(mv.a));
                ASSERT_EQ(s.host_of(mv.a), p.vms[mv.a].host);
                ASSERT_TRUE(s.is_migrated(mv.b));
                ASSERT_EQ(s.host_of(mv.b), mv.host);
                ASSERT_EQ(s.migrations(), mig_before);  // the budget slot changes hands
                feasible = true, delta = d.delta, mig_after = d.migrations_after;
            }
            ASSERT_TRUE(feasible);
            ASSERT_EQ(s.objective() - before.objective, delta);
            ASSERT_EQ(s.migrations(), mig_after);
            ASSERT_LE(s.migrations(), p.constraints.max_migrations);
            ASSERT_LE(s.migrated_ram_mib(), p.constraints.max_migrated_ram_mib);
            ++applied;
            if (applied % 20 == 0) {
                ASSERT_NO_THROW(s.check_consistency());
                ASSERT_EQ(s.objective(), full_objective(m, s));
            }
        }
        ASSERT_NO_THROW(s.check_consistency());
        ASSERT_EQ(s.objective(), full_objective(m, s));
        applied_total += applied;
    }
    EXPECT_GT(applied_total, 25) << "too few feasible moves to test anything";
    EXPECT_GT(brute_checked, 25);
    if (mc.kind == Kind::Swap || mc.kind == Kind::Ejection || mc.kind == Kind::Gather) {
        EXPECT_GT(budget_rejected, 0) << "the budget pre-check was never exercised";
    }
}

std::vector<MovesCase> all_cases() {
    std::vector<MovesCase> out;
    for (const char* t : {"CQ3", "K4", "Q33", "C4", "2xK4", "K2"})
        for (Kind k : {Kind::Swap, Kind::Remap, Kind::Exchange, Kind::Ejection, Kind::Gather}) out.push_back(MovesCase{t, k});
    return out;
}

INSTANTIATE_TEST_SUITE_P(Hosts, MovesTest, ::testing::ValuesIn(all_cases()), moves_case_name);

TEST(Moves, InfeasibleCasesAreRejected) {
    RandomCluster rc;
    rc.max_migrations = 1;
    const Problem p = make_random_problem(rc);
    const CapacityModel m(p);
    SearchState s(m);
    int v0 = -1, v1 = -1;  // two migratable VMs on different hosts
    for (std::size_t v = 0; v < p.vms.size() && v1 < 0; ++v) {
        if (!p.vms[v].migratable) continue;
        if (v0 < 0)
            v0 = static_cast<int>(v);
        else if (p.vms[v].host != p.vms[v0].host)
            v1 = static_cast<int>(v);
    }
    ASSERT_GE(v1, 0);
    EXPECT_FALSE((SwapMove{v0, v0}.evaluate(s).feasible));
    // Two snapshot VMs swapping need two migrations; the budget is one.
    EXPECT_FALSE((SwapMove{v0, v1}.evaluate(s).feasible));
    // Nothing is migrated yet, so nothing can give a slot back.
    const int other = (p.vms[v1].host + 1) % static_cast<int>(p.hosts.size());
    EXPECT_FALSE((BudgetExchangeMove{v0, v1, other}.evaluate(s).feasible));
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        if (!p.vms[v].migratable) {
            EXPECT_FALSE((RemapMove{static_cast<int>(v)}.evaluate(s).feasible));
        }
}

TEST(Moves, ExchangeReusesTheSlotOfAFullBudget) {
    RandomCluster rc;
    rc.max_migrations = 1;
    rc.hosts = 10;
    const Problem p = make_random_problem(rc);
    const CapacityModel m(p);
    SearchState s(m);
    // Fill the one-slot budget with any feasible migration.
    int a = -1;
    for (std::size_t v = 0; v < p.vms.size() && a < 0; ++v)
        for (std::size_t h = 0; h < p.hosts.size() && a < 0; ++h) {
            const MigrateMove mv{static_cast<int>(v), static_cast<int>(h)};
            const MigrateDelta d = mv.evaluate(s);
            if (d.feasible && s.differs_from_origin(mv.vm, mv.host, placements_of(s, mv.vm, mv.host)[d.embedding].mask)) {
                mv.apply(s, d);
                a = mv.vm;
            }
        }
    ASSERT_GE(a, 0);
    ASSERT_EQ(s.migrations(), 1);
    // Every other migration is now over budget, but an exchange with `a` is not.
    int feasible_exchanges = 0;
    for (std::size_t b = 0; b < p.vms.size(); ++b) {
        if (static_cast<int>(b) == a || !p.vms[b].migratable) continue;
        for (std::size_t h = 0; h < p.hosts.size(); ++h) {
            if (static_cast<int>(h) == p.vms[b].host) continue;
            EXPECT_FALSE((MigrateMove{static_cast<int>(b), static_cast<int>(h)}.evaluate(s).feasible));
            const BudgetExchangeDelta d = BudgetExchangeMove{a, static_cast<int>(b), static_cast<int>(h)}.evaluate(s);
            feasible_exchanges += d.feasible ? 1 : 0;
            if (d.feasible) {
                EXPECT_EQ(d.migrations_after, 1);
            }
        }
    }
    EXPECT_GT(feasible_exchanges, 0);
}

/**
 * Tight budget (1% of VMs) on generated clusters: annealing with the new moves started from the
 * greedy plan ends at least as good as greedy, and its plan is valid, within budget and at least
 * as good as greedy's plan. How often it is strictly better is printed.
 */
TEST(Annealing, WithCompoundMovesFromGreedyIsNeverWorse) {
    int better = 0, instances = 0;
    for (const char* topo : {"CQ3", "Q33"})
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            GenerateOptions go;
            go.hosts = 40;
            go.vms = 900;
            go.host_topology = topo;
            go.seed = seed;
            go.migration_budget = 0.01;
            const Problem p = generate_cluster(go);
            const CapacityModel m(p);
            SearchParams sp;
            sp.quiet = true;
            const SearchResult g = greedy(m, sp);
            sp.start = g.best;
            sp.max_evaluations = 60000;
            sp.seed = seed;
            sp.check_every = 200;
            const SearchResult r = anneal(m, sp);
            SCOPED_TRACE(std::string(topo) + " seed " + std::to_string(seed));
            EXPECT_GE(r.objective_best, g.objective_best);
            const Plan plan = build_plan(m, r.best);
            EXPECT_LE(static_cast<std::int64_t>(plan.steps.size()), p.constraints.max_migrations);
            const auto doc = nlohmann::json::parse(plan_to_json(p, plan, PlanInfo{}).dump());
            const PlanCheck check = validate_plan(m, doc, "<plan>");
            EXPECT_TRUE(check.ok) << check.error;
            EXPECT_GE(plan.objective_after, build_plan(m, g.best).objective_after);
            ++instances;
            better += r.objective_best > g.objective_best ? 1 : 0;
            std::printf("[          ] %s seed %llu: greedy %.0f -> annealing %.0f (budget %lld)\n", topo,
                        static_cast<unsigned long long>(seed), g.objective_best, r.objective_best,
                        static_cast<long long>(p.constraints.max_migrations));
        }
    RecordProperty("strictly_better", better);
    std::printf("[          ] annealing strictly better than greedy on %d of %d instances\n", better, instances);
}

/**
 * The bundled example (Azure replay, 160 CQ3 hosts, budget 70) has greedy spend its whole budget.
 * Annealing started there with the budget exchange / swap / ejection moves beats greedy on at
 * least one of two seeds (migrate-only annealing of the same length stayed at greedy's 126 at
 * both seeds when measured). Pins the reason the moves exist; deterministic (fixed seeds and evaluation counts).
 */
TEST(Annealing, CompoundMovesImproveOnGreedyWithFullBudgetOnBundledExample) {
    const Problem p = load_snapshot(VMCAP_SOURCE_DIR "/instances/examples/azure-cq3-160.json");
    const CapacityModel m(p);
    SearchParams sp;
    sp.quiet = true;
    const SearchResult g = greedy(m, sp);
    ASSERT_EQ(static_cast<std::int64_t>(g.best.size()), p.constraints.max_migrations) << "greedy should fill the budget here";
    sp.start = g.best;  // default run length (what `vmcap plan` does): 500 evaluations per migratable VM
    int better = 0;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        sp.seed = seed;
        const SearchResult r = anneal(m, sp);
        EXPECT_GE(r.objective_best, g.objective_best);
        const Plan plan = build_plan(m, r.best);
        EXPECT_DOUBLE_EQ(plan.objective_after, r.objective_best);
        EXPECT_LE(static_cast<std::int64_t>(plan.steps.size()), p.constraints.max_migrations);
        better += r.objective_best > g.objective_best ? 1 : 0;
        std::printf("[          ] seed %llu: greedy %.0f -> annealing %.0f\n", static_cast<unsigned long long>(seed), g.objective_best,
                    r.objective_best);
    }
    EXPECT_EQ(better, 3) << "annealing at the default length should beat greedy on every seed";
}

}  // namespace
}  // namespace vmcap

// The migration budget as one rule (evaluators/state/migration_budget.h): every move kind's inline
// budget bookkeeping (BudgetUse, per candidate placement) agrees with the rule computed once from
// the move's relocations (MigrationBudget::after / admits), with the state after apply, and with
// the from-scratch count over the placement (MigrationBudget::tally / violation), under count and
// RAM budgets that bind, with remaps counting and free.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "evaluators/rules/feasibility.h"
#include "moves/move_list.h"
#include "optimizer/search/candidates.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

BudgetTally from_scratch(const SearchState& s) {
    std::vector<int> host;
    std::vector<NodeMask> mask;
    s.placement_arrays(host, mask);
    return MigrationBudget::tally(s.problem(), PlacementView{host, mask});
}

struct BudgetCase {
    std::uint64_t seed;
    bool remap_counts;
    bool ram_budget;
};

class MigrationBudgetTest : public ::testing::TestWithParam<BudgetCase> {};

TEST_P(MigrationBudgetTest, EveryMoveAgreesWithTheRuleOverItsRelocations) {
    const BudgetCase c = GetParam();
    test::RandomCluster rc;
    rc.seed = c.seed;
    rc.hosts = 10;
    rc.fill = 0.75;
    rc.max_migrations = 4;  // binds within a few applied moves
    Problem p = test::make_random_problem(rc);
    p.constraints.remap_counts_as_migration = c.remap_counts;
    if (c.ram_budget) p.constraints.max_migrated_ram_mib = 40 * 1024;
    const CapacityModel m(p);
    ASSERT_EQ(m.rules().size(), 1u);
    ASSERT_EQ(m.rules()[0], &m.budget());
    SearchState s(m);
    MoveCache cache(s);
    Proposal pr;
    Rng rng(c.seed, 7);
    std::vector<int> movable;
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        if (p.vms[v].migratable) movable.push_back(static_cast<int>(v));
    pr.start(rng, movable.size());
    MoveMix mix;
    for (int k = 1; k < kKinds; ++k) mix.share[k] = 1.0 / kKinds;
    const auto cum = mix.cumulative();
    std::mt19937_64 coin(c.seed);
    int feasible[kKinds] = {}, refused_at_full_budget = 0;
    for (int it = 0; it < 4000; ++it) {
        ProposalContext ctx{s, cache, movable, pr, rng};
        const Candidate cand = propose<Moves>(ctx, cum);
        SCOPED_TRACE(std::string(Moves::kNames[cand.kind]) + " #" + std::to_string(it));
        visit_kind(cand.kind, [&](auto k) {
            const auto& mv = cand.get<k()>();
            Relocation host_level[kMaxRelocations];
            const auto nh = static_cast<std::size_t>(mv.host_relocations(s, host_level));
            const auto d = score_move(mv, s);
            if (!d.feasible) {
                if (!m.budget().admits(s, std::span<const Relocation>(host_level, nh))) ++refused_at_full_budget;
                return;
            }
            ++feasible[cand.kind];
            // The cheapest outcome (host level, nodes not chosen) is admitted whenever the move is.
            ASSERT_TRUE(m.budget().admits(s, std::span<const Relocation>(host_level, nh)));
            Relocation r[kMaxRelocations];
            const auto n = static_cast<std::size_t>(mv.relocations(s, d, r));
            const BudgetTally t = MigrationBudget::after(s, std::span<const Relocation>(r, n));
            ASSERT_EQ(t.migrations, d.migrations_after);
            ASSERT_TRUE(m.budget().admits(s, std::span<const Relocation>(r, n)));
            if (coin() % 2 != 0) return;
            mv.apply(s, d);
            ASSERT_EQ(s.migrations(), d.migrations_after);
            ASSERT_EQ(s.migrated_ram_mib(), t.ram_mib);
            const BudgetTally fresh = from_scratch(s);
            ASSERT_EQ(fresh.migrations, s.migrations());
            ASSERT_EQ(fresh.ram_mib, s.migrated_ram_mib());
            std::vector<int> host;
            std::vector<NodeMask> mask;
            s.placement_arrays(host, mask);
            ASSERT_EQ(m.budget().violation(p, PlacementView{host, mask}), "");
            ASSERT_EQ(first_rule_violation(m, s), "");
        });
        if (HasFatalFailure()) return;
    }
    for (int k = 0; k < kKinds; ++k)
        if (Moves::kNames[k] != "gather") {  // gather proposes only along vlinks (none here)
            EXPECT_GT(feasible[k], 0) << Moves::kNames[k];
        }
    EXPECT_GT(s.migrations(), 0);
    EXPECT_GT(refused_at_full_budget, 0) << "the budget never bound";
}

INSTANTIATE_TEST_SUITE_P(Seeds, MigrationBudgetTest,
                         ::testing::Values(BudgetCase{1, true, false}, BudgetCase{2, false, false}, BudgetCase{3, true, true},
                                           BudgetCase{4, false, true}, BudgetCase{5, true, false}, BudgetCase{6, false, true}));

/** The from-scratch rule names the limit a placement exceeds, and first_rule_violation the rule. */
TEST(MigrationBudget, ViolationNamesTheLimit) {
    test::RandomCluster rc;
    rc.seed = 3;
    Problem p = test::make_random_problem(rc);
    p.constraints.max_migrations = 1;
    const CapacityModel m(p);
    SearchState s(m);
    // Move two VMs anywhere they fit, beyond the count budget of 1 (SearchState::move does not
    // enforce the budget: the moves do).
    int moved = 0;
    for (std::size_t v = 0; v < p.vms.size() && moved < 2; ++v) {
        const int vm = static_cast<int>(v);
        for (std::size_t h = 0; h < p.hosts.size(); ++h) {
            if (static_cast<int>(h) == s.host_of(vm)) continue;
            const auto& pl = m.evaluator(s.type_of(static_cast<int>(h)), s.flavor_of(vm)).placements();
            bool done = false;
            for (const Embedding& e : pl)
                if (fits_nodes(s.free_of(static_cast<int>(h)), m.num_resources(), p.flavors[s.flavor_of(vm)], e.map.data())) {
                    s.move(vm, static_cast<int>(h), e);
                    done = true;
                    break;
                }
            if (done) {
                ++moved;
                break;
            }
        }
    }
    ASSERT_EQ(moved, 2);
    const std::string why = first_rule_violation(m, s);
    EXPECT_EQ(why, "migration-budget rule: 2 VMs differ from the snapshot, beyond the migration budget of 1");
    p.constraints.max_migrations = 2;
    p.constraints.max_migrated_ram_mib = from_scratch(s).ram_mib - 1;
    std::vector<int> host;
    std::vector<NodeMask> mask;
    s.placement_arrays(host, mask);
    EXPECT_NE(m.budget().violation(p, PlacementView{host, mask}).find("MiB of migrated RAM, beyond the budget"), std::string::npos);
}

}  // namespace
}  // namespace vmcap

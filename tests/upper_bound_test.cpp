// The upper bound of optimizer/bound/upper_bound.h: never below the proven optimum (an independent
// brute force over every final state within the budget, free remaps and the ram-cost term
// included, cross-checked with the branch and bound where it applies) on many tiny instances of
// several host topologies, budgets, RAM budgets and non-migratable VMs; never below any plan the
// pipeline writes; equal to the objective at budget 0; a hand-checked table; the plan file and the
// CLI report it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <functional>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "evaluators/state/search_state.h"
#include "instances/generator.h"
#include "instances/snapshot_io.h"
#include "optimizer/solvers/exact.h"
#include "optimizer/solvers/exact_bb.h"
#include "optimizer/solvers/optimize.h"
#include "optimizer/plan/plan.h"
#include "optimizer/bound/upper_bound.h"
#include "tests/cli_run.h"
#include "tests/fixtures.h"
#include "tests/sanitizers.h"

namespace vmcap {
namespace {

using test::name;

/**
 * A tiny snapshot: `hosts` hosts of topology `topo`, 4 vCPU / 16 GiB per pNUMA node; flavors
 * 1c4g (K1, weight 0), 2c8g (K1, weight 1), 4c16g (K2, weight 1.5, hosts of >= 2 nodes), 8c32g
 * (K4 where K4 embeds, else C4, weight 2, hosts of >= 4 nodes); up to `vms` VMs at random
 * feasible placements, one in six not migratable.
 */
Problem tiny(const std::string& topo, int hosts, int vms, std::uint64_t seed) {
    Problem p;
    p.resources = {"vcpu", "ram_mib"};
    p.host_types.push_back(test::small_host_type(topo, topo, 4, 16 * 1024));
    for (int h = 0; h < hosts; ++h) p.hosts.push_back(Host{name("h", h), 0, "r0", "p0", ""});
    test::add_flavor(p, "1c4g", 1, 4, "K1", 0.0);
    test::add_flavor(p, "2c8g", 2, 8, "K1", 1.0);
    const HostType& ht = p.host_types[0];
    const int n = ht.num_nodes();
    if (n >= 2) test::add_flavor(p, "4c16g", 4, 16, "K2", 1.5);
    const bool k4 = !enumerate_embeddings(ht.topology.graph, parse_topology("K4").graph).empty();
    if (n >= 4) test::add_flavor(p, "8c32g", 8, 32, k4 ? "K4" : "C4", 2.0);
    std::mt19937_64 rng(seed);
    test::RandomPlacing how;
    how.max_vms = vms;
    how.pinned_one_in = 6;
    // Small flavors more often, so that hosts hold several VMs.
    how.flavor = [&](std::mt19937_64& g) { return static_cast<int>(g() % 6) < 3 ? 0 : static_cast<int>(g() % p.flavors.size()); };
    test::place_at_random(p, rng, how);
    finalize_problem(p, "<tiny>");
    return p;
}

/**
 * Best objective (score units) over every final state within the budget, by exhaustive search:
 * each migratable VM either keeps its snapshot placement, or takes any other (host, placement of
 * its flavor); it counts against max_migrations and max_migrated_ram_mib when it leaves its host,
 * or when it changes nodes on its host and remaps count. States are built by adding VMs one at a
 * time (capacity only shrinks, so an overloaded node prunes). Objective: sum_j w_j x VMCAP
 * (CapacityModel::host_capacity) minus `ram_milli` per MiB migrated (the ram-cost term). Uses
 * nothing of SearchState, the solvers or the bound.
 */
Score brute_force_score(const CapacityModel& m, Score ram_milli = 0) {
    const Problem& p = m.problem();
    const int R = p.num_resources(), H = static_cast<int>(p.hosts.size());
    const bool remap_counts = p.constraints.remap_counts_as_migration;
    std::vector<std::vector<Amount>> free(H);
    for (int h = 0; h < H; ++h) free[h] = p.host_type_of(h).node_capacity;
    auto shift = [&](int h, int flavor, NodeMask mask, Amount sign) {
        for (int i = 0; i < p.host_type_of(h).num_nodes(); ++i)
            if ((mask >> i) & 1U)
                for (int r = 0; r < R; ++r) free[h][i * R + r] += sign * p.flavors[flavor].node_demand[r];
    };
    auto fits = [&](int h) {
        for (Amount a : free[h])
            if (a < 0) return false;
        return true;
    };
    std::vector<int> movable;
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        const Vm& vm = p.vms[v];
        const NodeMask mask = node_mask(vm.pnuma.data(), p.flavors[vm.flavor].num_vnuma());
        if (vm.migratable)
            movable.push_back(static_cast<int>(v));
        else
            shift(vm.host, vm.flavor, mask, -1);
    }
    Score best = std::numeric_limits<Score>::min();
    std::function<void(std::size_t, std::int64_t, Amount)> rec = [&](std::size_t i, std::int64_t moves, Amount ram) {
        if (i == movable.size()) {
            Score s = -ram_milli * ram;
            for (int h = 0; h < H; ++h)
                for (int j = 0; j < m.num_targets(); ++j)
                    s += m.target_weight_units(j) * m.host_capacity(p.hosts[h].type, m.target_flavor(j), free[h].data());
            best = std::max(best, s);
            return;
        }
        const Vm& vm = p.vms[movable[i]];
        const NodeMask home = node_mask(vm.pnuma.data(), p.flavors[vm.flavor].num_vnuma());
        const Amount vm_ram = p.flavors[vm.flavor].demand[kRamMib];
        for (int h = 0; h < H; ++h)
            for (const Embedding& e : m.evaluator(p.hosts[h].type, vm.flavor).placements()) {
                const bool stays = h == vm.host && e.mask == home;
                const bool counts = !stays && (h != vm.host || remap_counts);
                if (counts && (moves + 1 > p.constraints.max_migrations || ram + vm_ram > p.constraints.max_migrated_ram_mib)) continue;
                shift(h, vm.flavor, e.mask, -1);
                if (fits(h)) rec(i + 1, moves + (counts ? 1 : 0), ram + (counts ? vm_ram : 0));
                shift(h, vm.flavor, e.mask, +1);
            }
    };
    rec(0, 0, 0);
    return best;
}

/** Snapshot objective in score units (VMCAP part plus terms), through SearchState. */
Score snapshot_score(const CapacityModel& m) {
    return SearchState(m).objective();
}

struct BoundCase {
    const char* topo;
    int hosts, vms;
};

TEST(UpperBound, NodeSubsetBoundNeverBelowTheExactOptimumOfSmallClusters) {
    // Random 4-host clusters (CQ3, K4, 2xK4, K2 hosts) at budgets 3 and 4, beyond the tiny
    // instances' reach: the combinatorial branch and bound over final states (an independent
    // search: placements of the moved VMs, not removal tables) proves the optimum, and the bound
    // with the node-subset bound alone beyond depth 0 (no enumeration, no branch and bound) must
    // be at least it, and equal to the default bound (both exact tables).
    int proven = 0, tight = 0;
    for (const char* topo : {"CQ3", "K4", "2xK4", "K2"}) {
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            test::RandomCluster rc;
            rc.host_topology = topo;
            rc.hosts = 4;
            rc.seed = 40 + seed;
            rc.max_migrations = 3 + static_cast<std::int64_t>(seed % 2);
            const Problem p = test::make_random_problem(rc);
            const CapacityModel m(p);
            SCOPED_TRACE(std::string(topo) + " seed " + std::to_string(rc.seed) + " budget " + std::to_string(rc.max_migrations));
            BranchBoundParams bp;
            bp.orderable_only = false;  // final states, as the bound's model
            bp.time_limit_s = 600.0;
            bp.max_nodes = 200000;  // a node cap, not the clock: the same instances are proven on any machine
            const ExactResult ex = solve_exact_bb(m, bp);
            if (!ex.proven) continue;
            ++proven;
            const Score opt = static_cast<Score>(std::llround(ex.objective * kScoreScale));
            UpperBoundParams subsets;
            subsets.max_exact_removals = 0;
            subsets.max_search_per_host = 0;
            const UpperBound n = compute_upper_bound(m, subsets), d = compute_upper_bound(m);
            EXPECT_GE(n.score, opt);
            EXPECT_EQ(n.score, d.score);
            tight += n.score == opt;
        }
    }
    EXPECT_GE(proven, 8);
    EXPECT_GE(tight, 1);
    std::printf("node-subset bound on %d proven small clusters: equal to the optimum on %d\n", proven, tight);
}

TEST(UpperBound, NeverBelowTheOptimumOnTinyInstances) {
    // Host topologies with 1, 2, 4 and 8 pNUMA nodes; more hosts and VMs where the brute force
    // stays fast (free remaps multiply its branching).
    const BoundCase cases[] = {{"K1", 3, 7}, {"K2", 3, 7}, {"K4", 3, 6}, {"C4", 3, 6}, {"CQ3", 2, 5}, {"2xK4", 2, 5}};
    int compared = 0, binding_ram = 0, lagrangian = 0, tight = 0, above = 0, remap_cases = 0, landing_tighter = 0, priced = 0;
    int arrivals_applied = 0, arrivals_tighter = 0, envelope_applied = 0;
    for (int i = 0; i < 120; ++i) {
        const BoundCase& c = cases[i % 6];
        Problem p = tiny(c.topo, c.hosts, c.vms, 500 + static_cast<std::uint64_t>(i));
        const int budget = (i / 6) % 4;
        p.constraints.max_migrations = budget;
        const bool ram_budget = i % 5 == 3;
        if (ram_budget) p.constraints.max_migrated_ram_mib = 12 * 1024;  // at most one 8 GiB VM and one 4 GiB VM
        const bool free_remaps = i % 3 == 2;
        p.constraints.remap_counts_as_migration = !free_remaps;
        const bool ram_cost = i % 7 == 5 && !free_remaps;
        if (ram_cost) p.objective_terms = {{"ram-cost", 0.125}};  // 1 objective unit per 8 GiB
        const CapacityModel m(p);
        SCOPED_TRACE(std::string(c.topo) + " case " + std::to_string(i) + " budget " + std::to_string(budget) +
                     (ram_budget ? " ram-budget" : "") + (free_remaps ? " free-remaps" : "") + (ram_cost ? " ram-cost" : ""));
        const Score opt = brute_force_score(m, ram_cost ? weight_milli(0.125) : 0);
        const UpperBound ub = compute_upper_bound(m);
        EXPECT_TRUE(ub.covers_objective);
        EXPECT_GE(ub.score, opt);
        EXPECT_GE(opt, snapshot_score(m));  // the brute force sees the snapshot itself
        for (int depth : {0, 1, 2}) {
            // Shallow exact depths lean on the branch and bound, the node-subset bound, the
            // allocation bound and the tail bound, alone and together: still valid, never tighter.
            for (int variant = 0; variant < 5; ++variant) {
                UpperBoundParams shallow;
                shallow.max_exact_removals = depth;
                if (variant == 1 || variant >= 3) shallow.max_search_per_host = 0;      // no branch and bound
                if (variant == 2 || variant == 3) shallow.max_allocation_per_host = 0;  // no node-subset nor allocation bound
                if (variant == 4) shallow.node_subsets = false;                         // the allocation bound alone
                const Score s = compute_upper_bound(m, shallow).score;
                EXPECT_GE(s, opt) << "depth " << depth << " variant " << variant;
                EXPECT_GE(s, ub.score) << "depth " << depth << " variant " << variant;
                if (variant == 0 && !ram_budget) {
                    // The branch and bound is exact: the same best removal sets as the enumeration.
                    EXPECT_EQ(s, ub.score) << "depth " << depth;
                }
            }
        }
        UpperBoundParams no_landing;
        no_landing.landing_costs = false;
        const Score s_nl = compute_upper_bound(m, no_landing).score;
        EXPECT_GE(s_nl, ub.score);
        landing_tighter += s_nl > ub.score;
        priced += ub.priced_flavors > 0;
        if (!free_remaps && !ram_cost) {
            // The independent brute force agrees with the branch and bound where that applies.
            BranchBoundParams bp;
            bp.warm_start_evaluations = -1;
            const ExactResult ex = solve_exact_bb(m, bp);
            ASSERT_TRUE(ex.proven);
            EXPECT_EQ(static_cast<Score>(std::llround(ex.objective * kScoreScale)), opt);
        }
        // The Lagrangian on arrivals: every multiplier vector it evaluates gives a valid bound,
        // whatever the Polyak target (0 drives the multipliers hardest).
        for (const Score target : {Score{0}, opt}) {
            const LagrangianBound lb = lagrangian_upper_bound(m, UpperBoundParams{}, target, 20, ub.score);
            if (!lb.applied) continue;
            EXPECT_GE(lb.score, opt) << "target " << target;
            arrivals_applied += target == 0;
            arrivals_tighter += target == opt && lb.score < ub.score;
            // The envelope of the removals priced first (the per-k search only where it runs out).
            UpperBoundParams envelope;
            envelope.arrival_per_k_first = false;
            const LagrangianBound le = lagrangian_upper_bound(m, envelope, target, 20, ub.score);
            ASSERT_TRUE(le.applied);
            EXPECT_GE(le.score, opt) << "envelope, target " << target;
            envelope_applied += target == 0;
        }
        if (ub.score == opt) ++tight;
        if (ub.score > opt) ++above;
        binding_ram += ram_budget && budget > 1;
        lagrangian += ub.ram_lagrangian;
        remap_cases += free_remaps;
        ++compared;
    }
    EXPECT_EQ(compared, 120);
    EXPECT_GE(remap_cases, 40);
    EXPECT_GE(binding_ram, 10);
    EXPECT_GE(lagrangian, 1);         // the RAM multiplier was exercised
    EXPECT_GE(priced, 40);            // landing costs were priced (target flavors among the VMs)
    EXPECT_GE(landing_tighter, 3);    // and lowered the bound
    EXPECT_GE(tight, 30);             // and the bound is not trivially loose,
    EXPECT_GE(above, 5);              // nor trivially tight
    EXPECT_GE(arrivals_applied, 30);  // the Lagrangian on arrivals ran (no free remaps, no binding RAM budget)
    EXPECT_EQ(envelope_applied, arrivals_applied);
    std::printf("arrivals priced on %d tiny instances: below the removal-only bound on %d\n", arrivals_applied, arrivals_tighter);
    std::printf(
        "upper bound on %d tiny instances: equal to the optimum on %d, above on %d; RAM multiplier used on %d; landing costs lowered it on "
        "%d\n",
        compared, tight, above, lagrangian, landing_tighter);
}

/**
 * A tiny snapshot whose targets' per-node demands are different multiples of one unit (2c4g),
 * as Huawei's flavors are: 8 vCPU / 16 GiB per pNUMA node; 1c2g and 2c4g (K1, weight 0); the
 * targets 8c16g (K2, 4c8g per node: 2 units, weight 1) and 16c32g (K2, 8c16g: 4 units, weight
 * 2); 12c24g (K2, 6c12g: 3 units, weight 0) and on hosts of >= 4 nodes 24c48g (K4 where K4
 * embeds, else C4; 3 units, weight 0), which move as arrivals only. On CQ3 hosts (5^8 unit
 * vectors) a node's units 0..4 fall in the classes {0, 1}, {2, 3}, {4}: a 3-unit arrival fits a
 * class {2, 3} node only at 3 units; on the others each unit count is its own class.
 */
Problem tiny_multiples(const std::string& topo, int hosts, int vms, std::uint64_t seed) {
    Problem p;
    p.resources = {"vcpu", "ram_mib"};
    p.host_types.push_back(test::small_host_type(topo, topo, 8, 16 * 1024));
    for (int h = 0; h < hosts; ++h) p.hosts.push_back(Host{name("h", h), 0, "r0", "p0", ""});
    test::add_flavor(p, "1c2g", 1, 2, "K1", 0.0);
    test::add_flavor(p, "2c4g", 2, 4, "K1", 0.0);
    test::add_flavor(p, "8c16g", 8, 16, "K2", 1.0);
    test::add_flavor(p, "16c32g", 16, 32, "K2", 2.0);
    test::add_flavor(p, "12c24g", 12, 24, "K2", 0.0);
    const HostType& ht = p.host_types[0];
    const bool k4 = !enumerate_embeddings(ht.topology.graph, parse_topology("K4").graph).empty();
    if (ht.num_nodes() >= 4) test::add_flavor(p, "24c48g", 24, 48, k4 ? "K4" : "C4", 0.0);
    std::mt19937_64 rng(seed);
    test::RandomPlacing how;
    how.max_vms = vms;
    how.pinned_one_in = 6;
    how.flavor = [&](std::mt19937_64& g) {
        return static_cast<int>(g() % 6) < 2 ? static_cast<int>(g() % 2) : static_cast<int>(g() % p.flavors.size());
    };
    test::place_at_random(p, rng, how);
    finalize_problem(p, "<tiny multiples>");
    return p;
}

TEST(UpperBound, ArrivalsWholeInUnitClassesNeverBelowTheOptimum) {
    // Targets of different per-node demands, all multiples of one unit: the multi-node arrivals
    // arrive whole over classes of units (docs/upper-bound.md, "Arrivals priced"). Against the
    // exhaustive search of every final state, toward target 0 (the multipliers driven hardest) and
    // toward the optimum, with the per-k search first and the envelope first.
    const BoundCase cases[] = {{"K2", 3, 6}, {"K4", 3, 6}, {"C4", 3, 6}, {"CQ3", 2, 5}};
    int compared = 0, whole = 0, tighter = 0;
    for (int i = 0; i < 64; ++i) {
        const BoundCase& c = cases[i % 4];
        Problem p = tiny_multiples(c.topo, c.hosts, c.vms, 900 + static_cast<std::uint64_t>(i));
        p.constraints.max_migrations = 1 + (i / 4) % 3;
        const CapacityModel m(p);
        SCOPED_TRACE(std::string(c.topo) + " case " + std::to_string(i) + " budget " + std::to_string(p.constraints.max_migrations));
        const Score opt = brute_force_score(m);
        const UpperBound ub = compute_upper_bound(m);
        ASSERT_GE(ub.score, opt);
        for (const bool per_k_first : {true, false})
            for (const Score target : {Score{0}, opt}) {
                UpperBoundParams prm;
                prm.arrival_per_k_first = per_k_first;
                const LagrangianBound lb = lagrangian_upper_bound(m, prm, target, 20, ub.score);
                if (!lb.applied) continue;
                EXPECT_GE(lb.score, opt) << "target " << target << (per_k_first ? "" : ", envelope first");
                // Hosts whose nodes are all linked keep the pieces (docs/upper-bound.md).
                if (std::string(c.topo) == "K2" || std::string(c.topo) == "K4") EXPECT_FALSE(lb.whole_arrivals);
                whole += lb.whole_arrivals;
                tighter += lb.whole_arrivals && lb.score < ub.score;
            }
        ++compared;
    }
    EXPECT_EQ(compared, 64);
    EXPECT_GE(whole, 40);   // the whole arrivals in unit classes applied
    EXPECT_GE(tighter, 5);  // and lowered the bound
    std::printf("whole arrivals in unit classes on %d runs of 64 tiny instances, below the removal-only bound on %d\n", whole, tighter);

    // By hand, two C4 hosts (nodes 0-1-2-3-0), nodes 2 and 3 of both full (a pinned 16c32g).
    // Host 0 holds a 12c24g on nodes 0 and 1 (3 units each), which leaves 1 unit per node: worth
    // 0; without it worth 4 (two 8c16g, one 16c32g). Host 1 holds two 2c4g, on nodes 0 and 1: 3
    // units per node, worth 1 (one 8c16g). At budget 1 the optimum moves the 12c24g to host 1
    // (+4 - 1). It fits host 1 only with all 3 units of each node kept for it, which hold no more
    // copies than 2 units: a table or a node's options that read the units through the copy
    // counts alone would have host 1 refuse it, and above the 1 it costs host 1 the price of
    // 12c24g would then push the bound below the optimum.
    Problem p = tiny_multiples("C4", 2, 0, 1);
    auto add = [&p](const char* id, const char* flavor, int host, std::vector<int> nodes) {
        Vm vm;
        vm.id = id;
        vm.flavor = static_cast<int>(std::find_if(p.flavors.begin(), p.flavors.end(), [&](const Flavor& f) { return f.name == flavor; }) -
                                     p.flavors.begin());
        vm.host = host;
        for (std::size_t i = 0; i < nodes.size(); ++i) vm.pnuma[i] = nodes[i];
        p.vms.push_back(vm);
    };
    add("a", "12c24g", 0, {0, 1});
    add("b", "2c4g", 1, {0});
    add("c", "2c4g", 1, {1});
    add("d", "16c32g", 0, {2, 3});
    add("e", "16c32g", 1, {2, 3});
    p.vms[3].migratable = p.vms[4].migratable = false;  // the fillers stay
    finalize_problem(p, "<hand>");
    p.constraints.max_migrations = 1;
    const CapacityModel m(p);
    ASSERT_EQ(snapshot_score(m), 1 * kScoreScale);
    ASSERT_EQ(brute_force_score(m), 4 * kScoreScale);
    const UpperBound ub = compute_upper_bound(m);
    // At any prices L is at least the optimum; with 12c24g's price above the 1 it costs host 1,
    // host 1 must take it in for L to stay there (4 - pi + pi - 1 + 1).
    for (const Score pi : {Score{0}, 1 * kScoreScale, 3 * kScoreScale, 10 * kScoreScale}) {
        std::vector<Score> prices(p.flavors.size(), 0);
        prices[4] = pi;  // 12c24g
        const LagrangianBound lb = lagrangian_upper_bound(m, UpperBoundParams{}, 0, 1, ub.score, &prices);
        ASSERT_TRUE(lb.applied);
        EXPECT_EQ(lb.whole_arrivals, pi > 0);  // a flavor without a price does not arrive
        EXPECT_GE(lb.score, 4 * kScoreScale) << "pi " << pi;
    }
}

TEST(UpperBound, EqualsTheObjectiveAtBudgetZero) {
    for (const char* topo : {"K1", "K2", "K4", "CQ3", "2xK4"}) {
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            test::RandomCluster rc;
            rc.host_topology = topo;
            rc.hosts = 20;
            rc.seed = seed;
            rc.max_migrations = 0;
            const Problem p = test::make_random_problem(rc);
            const CapacityModel m(p);
            SCOPED_TRACE(std::string(topo) + " seed " + std::to_string(seed));
            EXPECT_EQ(compute_upper_bound(m).score, snapshot_score(m));
            // A RAM budget too small for any VM is a zero budget too.
            Problem q = p;
            q.constraints.max_migrations = 100;
            q.constraints.max_migrated_ram_mib = 1024;
            const CapacityModel mq(q);
            const UpperBound ub = compute_upper_bound(mq);
            EXPECT_EQ(ub.effective_budget, 0);
            EXPECT_EQ(ub.score, snapshot_score(mq));
        }
    }
}

TEST(UpperBound, NeverBelowThePlansOfTheSearch) {
    // Medium random clusters, every search driver's written plan and best state; remaps free or
    // not, with and without the ram-cost term and a RAM budget; one and two threads give the
    // same bound.
    int runs = 0;
    for (const char* topo : {"K2", "K4", "CQ3"}) {
        for (std::uint64_t seed = 1; seed <= 4; ++seed) {
            test::RandomCluster rc;
            rc.host_topology = topo;
            rc.hosts = 16;
            rc.seed = seed;
            rc.max_migrations = 2 + static_cast<std::int64_t>(seed) * 3;
            Problem p = test::make_random_problem(rc);
            if (seed % 2 == 0) p.constraints.max_migrated_ram_mib = 96 * 1024;
            p.constraints.remap_counts_as_migration = seed != 3;
            if (seed == 4) p.objective_terms = {{"ram-cost", 0.05}};
            const CapacityModel m(p);
            SCOPED_TRACE(std::string(topo) + " seed " + std::to_string(seed));
            const UpperBound ub = compute_upper_bound(m);
            UpperBoundParams two;
            two.threads = 2;
            EXPECT_EQ(compute_upper_bound(m, two).score, ub.score);
            for (Algorithm a : {Algorithm::Greedy, Algorithm::Annealing, Algorithm::Tabu}) {
                OptimizeParams op;
                op.algorithm = a;
                op.search.quiet = true;
                op.search.seed = seed;
                op.search.max_evaluations = 30000;
                if (!p.constraints.remap_counts_as_migration) op.search.mix.set("remap", 0.05);
                const OptimizeResult r = optimize(m, op);
                EXPECT_GE(ub.value, r.plan.objective_after);
                SearchState s(m);
                s.set_placements(r.search.best);
                EXPECT_GE(ub.score, s.objective());  // the search's best state, orderable or not
                ++runs;
            }
        }
    }
    EXPECT_EQ(runs, 36);
}

/** Hosts of topology K2 (nodes of 4 vCPU / 16 GiB), target 8c32g (K2, weight 1: one per empty
 *  host), and 1c4g VMs (weight 0) on the listed (host, node) pairs: any of them on a host leaves
 *  a node with 3 vCPU, so that host holds no 8c32g. */
Problem hand_problem(int hosts, const std::vector<std::pair<int, int>>& small_vms) {
    Problem p;
    p.resources = {"vcpu", "ram_mib"};
    HostType ht;
    ht.name = "k2";
    ht.topology = parse_topology("K2");
    ht.node_capacity = {4, 16 * 1024, 4, 16 * 1024};
    p.host_types.push_back(ht);
    for (int h = 0; h < hosts; ++h) p.hosts.push_back(Host{name("h", h), 0, "r0", "p0", ""});
    Flavor small;
    small.name = "1c4g";
    small.demand = {1, 4 * 1024};
    small.vnuma = parse_topology("K1");
    Flavor big;
    big.name = "8c32g";
    big.demand = {8, 32 * 1024};
    big.vnuma = parse_topology("K2");
    big.weight = 1.0;
    p.flavors = {small, big};
    for (const auto& [h, node] : small_vms) test::add_one_node_vm(p, 0, h, node);
    finalize_problem(p, "<hand>");
    return p;
}

TEST(UpperBound, HandCheckedTable) {
    // Host 0: two small VMs on nodes 0 and 1 (removing one gains nothing, both: +1).
    // Host 1: one small VM (removing it: +1). Host 2: empty (value 1). Objective 1.
    // Bound by budget: 0 -> 1; 1 -> 1 + 1 (host 1); 2 -> 2 (host 1, or host 0's pair); 3 -> 3 (both).
    // Optimum: the VMs must land somewhere, and any host holding one is worth 0, so at most two of
    // the three hosts are empty: 1, 2, 2, 2.
    const Problem base = hand_problem(3, {{0, 0}, {0, 1}, {1, 0}});
    const Score unit = kScoreScale;  // one weight-1 VM
    const Score want_bound[] = {1, 2, 2, 3}, want_opt[] = {1, 2, 2, 2};
    for (int b = 0; b <= 3; ++b) {
        Problem p = base;
        p.constraints.max_migrations = b;
        const CapacityModel m(p);
        SCOPED_TRACE("budget " + std::to_string(b));
        const UpperBound ub = compute_upper_bound(m);
        EXPECT_EQ(ub.score, want_bound[b] * unit);
        EXPECT_EQ(brute_force_score(m), want_opt[b] * unit);
        EXPECT_EQ(ub.effective_budget, b);
        EXPECT_DOUBLE_EQ(relative_gap(ub.value, static_cast<double>(want_opt[b])), b == 3 ? 1.0 / 3.0 : 0.0);
    }
    // A RAM budget of 8 GiB admits two 4-GiB VMs: budget 3 acts as 2.
    Problem p = base;
    p.constraints.max_migrations = 3;
    p.constraints.max_migrated_ram_mib = 8 * 1024;
    const CapacityModel m(p);
    const UpperBound ub = compute_upper_bound(m);
    EXPECT_EQ(ub.effective_budget, 2);
    EXPECT_EQ(ub.score, 2 * unit);
    // Non-migratable: host 1's VM pinned leaves only host 0's pair (budget 2: 1 + 1).
    Problem q = base;
    q.vms[2].migratable = false;
    q.constraints.max_migrations = 2;
    const CapacityModel mq(q);
    EXPECT_EQ(compute_upper_bound(mq).score, 2 * unit);
    q.constraints.max_migrations = 1;
    const CapacityModel mq1(q);
    EXPECT_EQ(compute_upper_bound(mq1).score, 1 * unit);  // one removal on host 0 gains nothing
    // Exact depth 0 (tail bound only): every node gains its largest demand, capped by "all
    // removed" — still valid, here as tight (host 0's single removal is bounded by its pair).
    UpperBoundParams tail;
    tail.max_exact_removals = 0;
    EXPECT_GE(compute_upper_bound(mq1, tail).score, 1 * unit);
    EXPECT_LE(compute_upper_bound(mq1, tail).score, 2 * unit);
}

TEST(UpperBound, LandingCostOfATargetFlavorVm) {
    // Host 0 holds one 8c32g VM (the K2 target itself, weight 1) and is worth 0; hosts 1 and 2
    // are empty (1 each). Removing the VM makes host 0 worth 1, but wherever it lands it takes a
    // whole 8c32g copy: the optimum stays 2 at any budget. Without landing costs the bound says 3.
    Problem p = hand_problem(3, {});
    Vm vm;
    vm.id = "big";
    vm.flavor = 1;
    vm.host = 0;
    vm.pnuma[0] = 0;
    vm.pnuma[1] = 1;
    p.vms.push_back(vm);
    finalize_problem(p, "<hand>");
    for (int b = 0; b <= 2; ++b) {
        p.constraints.max_migrations = b;
        const CapacityModel m(p);
        SCOPED_TRACE("budget " + std::to_string(b));
        const UpperBound ub = compute_upper_bound(m);
        EXPECT_EQ(ub.priced_flavors, 1);  // 8c32g; the 1c4g flavor holds no target copy
        EXPECT_EQ(brute_force_score(m), 2 * kScoreScale);
        EXPECT_EQ(ub.score, 2 * kScoreScale);
        UpperBoundParams off;
        off.landing_costs = false;
        EXPECT_EQ(compute_upper_bound(m, off).score, (b == 0 ? 2 : 3) * kScoreScale);
    }
}

/** A random cluster of 16 `topo` hosts with many VMs each, budget 4: the larger hosts the
 *  branch-and-bound and node-subset tests compare against the full enumeration. */
Problem larger_hosts_problem(const char* topo, std::uint64_t seed) {
    test::RandomCluster rc;
    rc.host_topology = topo;
    rc.hosts = 16;
    rc.seed = seed;
    rc.max_migrations = 4;
    return test::make_random_problem(rc);
}

/** Every removal multiset of up to 4 VMs enumerated (the budget of larger_hosts_problem), no
 *  branch and bound, no allocation bound: the exact bound of those clusters. */
UpperBoundParams enumerate_up_to_budget() {
    UpperBoundParams e;
    e.max_exact_removals = 4;
    e.max_sets_per_host = std::int64_t{1} << 40;
    e.max_search_per_host = 0;
    e.max_allocation_per_host = 0;
    return e;
}

/** No enumeration, no branch and bound; the node-subset bound (and, where it does not complete, the
 *  allocation bound) with an allowance that never runs out. */
UpperBoundParams node_subsets_alone() {
    UpperBoundParams n;
    n.max_exact_removals = 0;
    n.max_search_per_host = 0;
    n.max_allocation_per_host = std::int64_t{1} << 40;
    n.max_allocation_total = std::int64_t{1} << 40;
    return n;
}

TEST(UpperBound, BranchAndBoundMatchesTheEnumerationOnLargerHosts) {
    // Random clusters of 16 hosts with many VMs each, budget 4, no RAM budget: the enumeration of
    // every removal multiset of up to 4 VMs and the branch and bound from depth 0 (allocation
    // bound off) must give the same bound, as the tables stop at the budget; so must the
    // node-subset bound alone. The allocation bound alone (no branch and bound, no enumeration, no
    // node subsets) is valid and never below.
    int equal = 0, looser = 0;
    for (const char* topo : {"K2", "K4", "CQ3"}) {
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            const Problem p = larger_hosts_problem(topo, seed);
            const CapacityModel m(p);
            SCOPED_TRACE(std::string(topo) + " seed " + std::to_string(seed));
            const UpperBoundParams enumerate = enumerate_up_to_budget();
            UpperBoundParams search;
            search.max_exact_removals = 0;
            search.max_search_per_host = std::int64_t{1} << 40;
            search.max_search_total = std::int64_t{1} << 40;
            search.max_allocation_per_host = 0;
            const UpperBound a = compute_upper_bound(m, enumerate), b = compute_upper_bound(m, search);
            EXPECT_EQ(a.score, b.score);
            EXPECT_EQ(a.max_depth, 4);
            EXPECT_EQ(b.max_depth, 0);
            UpperBoundParams alloc = node_subsets_alone();
            // The node-subset bound alone (no enumeration, no branch and bound) is exact too: the
            // same bound, neither looser nor below the best removal sets.
            const UpperBound n = compute_upper_bound(m, alloc);
            EXPECT_EQ(n.score, a.score);
            alloc.node_subsets = false;  // the allocation bound alone: valid, never below
            const UpperBound al = compute_upper_bound(m, alloc);
            EXPECT_GE(al.score, a.score);
            equal += a.score == b.score && n.score == a.score;
            looser += al.score > a.score;
        }
    }
    EXPECT_EQ(equal, 9);
    EXPECT_GE(looser, 1);  // where the allocation bound is loose, the node-subset bound is not
}

/**
 * 16 hosts of `topo` (16 vCPU / 64 GiB per node) with many single-node VMs of twin flavors: 2c8g
 * and 4c16g each come as a flavor of weight 0 (landing cost 0) and a target of the same size
 * (landing cost > 0), so removal multisets of the same size free the same amounts at different
 * landing costs; plus 8c32g (K2) and, on hosts of >= 4 nodes, 16c64g (K4 or C4). Budget 5.
 */
Problem twin_flavor_problem(const char* topo, std::uint64_t seed) {
    Problem p;
    p.resources = {"vcpu", "ram_mib"};
    p.host_types.push_back(test::small_host_type(std::string(topo) + "-test", topo, 16, 64 * 1024));
    for (int h = 0; h < 16; ++h) p.hosts.push_back(Host{name("h", h), 0, name("r", h / 4), "p0", ""});
    const HostType& ht = p.host_types[0];
    test::add_flavor(p, "2c8g", 2, 8, "K1", 0.0);
    test::add_flavor(p, "2c8g-t", 2, 8, "K1", 0.5);
    test::add_flavor(p, "4c16g", 4, 16, "K1", 0.0);
    test::add_flavor(p, "4c16g-t", 4, 16, "K1", 1.0);
    test::add_flavor(p, "8c32g", 8, 32, "K2", 1.0);
    const bool k4 = !enumerate_embeddings(ht.topology.graph, parse_topology("K4").graph).empty();
    if (ht.num_nodes() >= 4) test::add_flavor(p, "16c64g", 16, 64, k4 ? "K4" : "C4", 2.0);
    std::mt19937_64 rng(seed);
    test::RandomPlacing how;
    how.attempts = 20000;
    how.fill = 0.75;
    how.pinned_one_in = 10;
    // Mostly the single-node twins, so that nodes hold several VMs of each.
    how.flavor = [&](std::mt19937_64& g) {
        return static_cast<int>(g() % 8) < 7 ? static_cast<int>(g() % 4) : static_cast<int>(4 + g() % (p.flavors.size() - 4));
    };
    test::place_at_random(p, rng, how);
    p.constraints.max_migrations = 5;
    finalize_problem(p, "<twins>");
    return p;
}

TEST(UpperBound, NodeSubsetStatesKeepTheLeastLandingCost) {
    // The node-subset bound's states (per node: removals, amounts freed, landing cost) merge
    // multisets that free the same amounts; twin flavors (same size, landing cost 0 and > 0) make
    // such multisets differ only in landing cost. The node-subset bound alone must equal the
    // enumeration of every removal multiset up to the budget (exact), with and without a RAM
    // cost (the node-subset points carry the k smallest RAMs there: never below the exact one).
    int exact = 0, hosts = 0, completed = 0;
    for (const char* topo : {"K2", "K4", "CQ3"}) {
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            Problem p = twin_flavor_problem(topo, seed);
            for (const bool ram_cost : {false, true}) {
                if (ram_cost) p.objective_terms = {{"ram-cost", 0.125}};  // 1 objective unit per 8 GiB
                const CapacityModel m(p);
                SCOPED_TRACE(std::string(topo) + " seed " + std::to_string(seed) + (ram_cost ? " ram-cost" : ""));
                UpperBoundParams enumerate = enumerate_up_to_budget();
                enumerate.max_exact_removals = 5;
                const UpperBound a = compute_upper_bound(m, enumerate);
                ASSERT_EQ(a.max_depth, 5);
                const UpperBound n = compute_upper_bound(m, node_subsets_alone());
                EXPECT_EQ(n.hosts_node_subsets, n.hosts_beyond_depth);
                if (!ram_cost) {
                    EXPECT_EQ(n.score, a.score);
                    exact += n.score == a.score;
                } else {
                    EXPECT_GE(n.score, a.score);
                }
                hosts += static_cast<int>(n.hosts_beyond_depth);
                completed += static_cast<int>(n.hosts_node_subsets);
            }
        }
    }
    EXPECT_EQ(exact, 9);
    EXPECT_EQ(completed, hosts);
    EXPECT_GE(hosts, 200);
}

TEST(UpperBound, NodeSubsetStatesCompleteWhereMultisetsAreMany) {
    // Four K2 hosts whose pNUMA nodes each hold one VM of each of 16 flavors of the same size
    // (1c2g, weight 0): 2^16 multisets per node, which the enumeration of the node's multisets
    // could not afford (x 2 nodes x 3 targets, past 8 x the 20,000 evaluations), while the
    // states by amounts freed are 17 per node. With default params the node-subset bound
    // completes on every host beyond the exact depth, and the bound equals the enumeration of
    // every removal multiset up to the budget.
    Problem p;
    p.resources = {"vcpu", "ram_mib"};
    p.host_types.push_back(test::small_host_type("K2-test", "K2", 16, 64 * 1024));
    for (int h = 0; h < 4; ++h) p.hosts.push_back(Host{name("h", h), 0, "r0", "p0", ""});
    for (int f = 0; f < 16; ++f) test::add_flavor(p, name("1c2g-", f), 1, 2, "K1", 0.0);
    test::add_flavor(p, "4c8g", 4, 8, "K1", 1.0);
    test::add_flavor(p, "8c16g", 8, 16, "K1", 1.5);
    test::add_flavor(p, "8c32g", 8, 32, "K2", 2.0);
    for (int h = 0; h < 4; ++h)
        for (int node = 0; node < 2; ++node)
            for (int f = 0; f < 16; ++f) {
                Vm vm;
                vm.id = name("vm", static_cast<int>(p.vms.size()));
                vm.flavor = f;
                vm.host = h;
                vm.pnuma[0] = node;
                p.vms.push_back(vm);
            }
    p.constraints.max_migrations = 5;
    finalize_problem(p, "<many>");
    const CapacityModel m(p);
    const UpperBound d = compute_upper_bound(m);
    EXPECT_EQ(d.hosts_beyond_depth, 4);
    EXPECT_EQ(d.hosts_node_subsets, 4);
    UpperBoundParams enumerate = enumerate_up_to_budget();
    enumerate.max_exact_removals = 5;
    const UpperBound e = compute_upper_bound(m, enumerate);
    ASSERT_EQ(e.max_depth, 5);
    EXPECT_EQ(d.score, e.score);
}

/** tiny()'s cluster with one-node targets of two more shapes (2c4g, weight 0.5, and 1c4g,
 *  weight 0.25, beside 2c8g), so that the targets split (SplitShape) with one-node targets that
 *  are not the multi-node targets' per-node demand, as on the Azure replays. */
Problem split_tiny(const std::string& topo, int hosts, int vms, std::uint64_t seed) {
    Problem p = tiny(topo, hosts, vms, seed);
    for (Flavor& f : p.flavors)
        if (f.name == "1c4g") f.weight = 0.25;
    test::add_flavor(p, "2c4g", 2, 4, "K1", 0.5);
    finalize_problem(p, "<split tiny>");
    return p;
}

TEST(UpperBound, SplitTargetsBoundEveryFinalStateAndEqualTheEnumeration) {
    // One-node targets of several shapes beside multi-node targets of one per-node demand: the
    // node-subset search with the split (exact part, and the envelope of removals priced alone)
    // never below the brute-force optimum, equal to the general node-subset search and to the
    // enumeration where those are exact, and the envelope never below the exact part.
    const BoundCase cases[] = {{"K2", 3, 7}, {"K4", 3, 6}, {"C4", 3, 6}, {"CQ3", 2, 5}};
    int split_hosts = 0, envelope_looser = 0;
    for (int i = 0; i < 48; ++i) {
        const BoundCase& c = cases[i % 4];
        Problem p = split_tiny(c.topo, c.hosts, c.vms, 900 + static_cast<std::uint64_t>(i));
        const int budget = 1 + (i / 4) % 3;
        p.constraints.max_migrations = budget;
        const CapacityModel m(p);
        SCOPED_TRACE(std::string(c.topo) + " case " + std::to_string(i) + " budget " + std::to_string(budget));
        const Score opt = brute_force_score(m);
        const Score exact = compute_upper_bound(m, enumerate_up_to_budget()).score;
        UpperBoundParams split = node_subsets_alone();
        const UpperBound s = compute_upper_bound(m, split);
        split.split_exact_removals = 0;
        const Score envelope = compute_upper_bound(m, split).score;
        split.split_nodes = false;
        split.split_exact_removals = 16;
        const Score general = compute_upper_bound(m, split).score;
        const Score by_default = compute_upper_bound(m).score;
        EXPECT_GE(exact, opt);
        EXPECT_EQ(s.score, exact);
        EXPECT_EQ(general, exact);
        EXPECT_EQ(by_default, exact);
        EXPECT_GE(envelope, exact);
        EXPECT_EQ(s.hosts_split, s.hosts_node_subsets);
        split_hosts += static_cast<int>(s.hosts_split);
        envelope_looser += envelope > exact;
    }
    EXPECT_GT(split_hosts, 48);     // the split search ran (it applies to every host here)
    EXPECT_GT(envelope_looser, 0);  // the envelope alone is looser somewhere: the exact part counts
}

TEST(UpperBound, SplitTargetsOnLargerHostsEqualTheEnumeration) {
    // Random 16-host clusters, budget 4: the one-node 2c4g (weight 0.5) a target beside 4c16g,
    // 8c32g and 16c64g (per node 4c16g). The split search alone (no enumeration, branch and bound
    // or allocation bound) gives the enumeration's exact bound; its envelope alone is never below.
    int looser = 0;
    for (const char* topo : {"K2", "K4", "CQ3"}) {
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            Problem p = larger_hosts_problem(topo, seed);
            p.flavors[0].weight = 0.5;  // 2c4g
            const CapacityModel m(p);
            SCOPED_TRACE(std::string(topo) + " seed " + std::to_string(seed));
            const Score exact = compute_upper_bound(m, enumerate_up_to_budget()).score;
            UpperBoundParams split = node_subsets_alone();
            const UpperBound s = compute_upper_bound(m, split);
            EXPECT_EQ(s.score, exact);
            EXPECT_GT(s.hosts_split, 0);
            split.split_exact_removals = 0;
            const Score envelope = compute_upper_bound(m, split).score;
            EXPECT_GE(envelope, exact);
            looser += envelope > exact;
        }
    }
    RecordProperty("envelope_looser", looser);
}

TEST(UpperBound, NodeSubsetSecondTryCompletesHostsThatRanOutLate) {
    // The node-subset bound alone (no enumeration, branch and bound or allocation bound) with a
    // small allowance: hosts run out of it. A host that ran out after an eighth of its search is
    // tried again with node_subset_retry x the allowance. With the second try the bound is never
    // looser than without, never below the exact one (the enumeration of every removal multiset
    // of up to 4 VMs), and tighter on some instance.
    constexpr std::int64_t kSmallAllowance = 100;  // K4 seeds 2, 3: hosts run out after an eighth, complete at x4
    int tighter = 0;
    for (const char* topo : {"K2", "K4", "CQ3"}) {
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            const Problem p = larger_hosts_problem(topo, seed);
            const CapacityModel m(p);
            SCOPED_TRACE(std::string(topo) + " seed " + std::to_string(seed));
            const UpperBoundParams enumerate = enumerate_up_to_budget();
            const UpperBound exact = compute_upper_bound(m, enumerate);
            UpperBoundParams subsets;
            subsets.max_exact_removals = 0;
            subsets.max_search_per_host = 0;
            subsets.max_allocation_per_host = kSmallAllowance;
            subsets.split_nodes = false;  // the general search's retry (these targets split)
            subsets.node_subset_retry = 1;
            const UpperBound once = compute_upper_bound(m, subsets);
            subsets.node_subset_retry = 4;
            const UpperBound twice = compute_upper_bound(m, subsets);
            EXPECT_GE(twice.score, exact.score);
            EXPECT_LE(twice.score, once.score);
            tighter += twice.score < once.score;
        }
    }
    EXPECT_GE(tighter, 2);
}

TEST(UpperBound, FreeRemapsCountTheSameHostRePlacement) {
    // One K2 host with a small VM on each node and no budget. With remaps counting, the bound is
    // the objective; with free remaps it must stay >= the free-remap optimum (brute force), which
    // a same-host remap can raise.
    Problem p = hand_problem(1, {{0, 0}, {0, 1}});
    Flavor k1;
    k1.name = "3c4g";
    k1.demand = {3, 4 * 1024};
    k1.vnuma = parse_topology("K1");
    k1.weight = 1.0;
    p.flavors.push_back(k1);
    p.flavors[1].weight = 0.0;
    finalize_problem(p, "<hand>");
    // 3c4g per node: nodes with 3 free vCPU hold one each (value 2). Gathering both small VMs on
    // node 0 leaves node 1 with 4 (one 3c4g) and node 0 with 2 (none): value 1, worse; so the
    // optimum stays 2, while with remaps counting and budget 0 the bound equals it exactly.
    p.constraints.max_migrations = 0;
    const CapacityModel m(p);
    EXPECT_EQ(compute_upper_bound(m).score, 2 * kScoreScale);
    p.constraints.remap_counts_as_migration = false;
    const CapacityModel mf(p);
    const UpperBound ub = compute_upper_bound(mf);
    EXPECT_TRUE(ub.free_remaps);
    EXPECT_GE(ub.score, brute_force_score(mf));
    // A case where the free remap pays: one 2c8g target per node (2 vCPU), the VMs 1c4g on both
    // nodes leave 3 + 3 -> 1 + 1 = 2; gathered on node 0: 2 + 4 -> 1 + 2 = 3.
    Problem g = hand_problem(1, {{0, 0}, {0, 1}});
    Flavor k2c;
    k2c.name = "2c8g";
    k2c.demand = {2, 8 * 1024};
    k2c.vnuma = parse_topology("K1");
    k2c.weight = 1.0;
    g.flavors.push_back(k2c);
    g.flavors[1].weight = 0.0;
    g.constraints.max_migrations = 0;
    g.constraints.remap_counts_as_migration = false;
    finalize_problem(g, "<hand>");
    const CapacityModel mg(g);
    EXPECT_EQ(brute_force_score(mg), 3 * kScoreScale);
    EXPECT_GE(compute_upper_bound(mg).score, 3 * kScoreScale);
    g.constraints.remap_counts_as_migration = true;  // the same remap then needs a budget of 1
    const CapacityModel mg0(g);
    EXPECT_EQ(compute_upper_bound(mg0).score, 2 * kScoreScale);
}

TEST(UpperBound, PlanFileAndCliReportIt) {
    const auto dir = test::tmp_dir();
    const std::string out = (dir / "ub-plan.json").string();
    const auto r = test::run_vmcap("plan --algorithm greedy --max-migrations 20 --quiet --out " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("\nbound     "), std::string::npos) << r.out;
    std::ifstream in(out);
    const auto doc = nlohmann::json::parse(in);
    ASSERT_TRUE(doc.contains("upper_bound"));
    const double ub = doc["upper_bound"].get<double>(), obj = doc["objective_after"].get<double>();
    EXPECT_GE(ub, obj);
    EXPECT_NEAR(doc["gap"].get<double>(), (ub - obj) / ub, 1e-12);
    EXPECT_EQ(doc["upper_bound_covers"], "objective");
    EXPECT_GE(doc["search"]["upper_bound_seconds"].get<double>(), 0.0);
    // The validator accepts the plan with the new fields.
    const auto v = test::run_vmcap("validate --plan " + out);
    EXPECT_EQ(v.code, 0) << v.out << v.err;
}

/** The bound of `m` cut short in every way: after n full tables (n = 0, 1, 2, all but one), with
 *  the cheap fallback or (fallback time 0) the topology-free one, by a deadline already passed and
 *  by a stop flag already set. Each is checked >= `floor` and >= the complete bound, marked
 *  incomplete with its reason; returns how many of them were strictly above the complete bound. */
int check_cut_bounds(const CapacityModel& m, Score floor, const UpperBound& full) {
    const int H = static_cast<int>(m.problem().hosts.size());
    int above = 0;
    for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{2}, std::int64_t{H - 1}})
        for (double fallback : {1.0, 0.0}) {
            if (n >= H) continue;  // every table finished: complete
            UpperBoundParams cut;
            cut.max_full_tables = n;
            cut.fallback_seconds = fallback;
            const UpperBound b = compute_upper_bound(m, cut);
            SCOPED_TRACE("after " + std::to_string(n) + " tables, fallback " + std::to_string(fallback) + " s");
            EXPECT_GE(b.score, full.score);
            EXPECT_GE(b.score, floor);
            EXPECT_LE(b.score, upper_bound_ceiling(m));
            EXPECT_FALSE(b.complete);
            EXPECT_EQ(to_string(b.stopped_by), "table limit");
            EXPECT_LE(b.hosts_tightened, n);
            EXPECT_TRUE(b.knapsack_relaxed);  // halted before the knapsack: its LP relaxation
            above += b.score > full.score;
        }
    UpperBoundParams late;
    late.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    const UpperBound bl = compute_upper_bound(m, late);
    EXPECT_GE(bl.score, full.score);
    EXPECT_GE(bl.score, floor);
    EXPECT_FALSE(bl.complete);
    EXPECT_EQ(to_string(bl.stopped_by), "time limit");
    EXPECT_EQ(bl.hosts_tightened, 0);
    std::atomic<bool> stop{true};
    UpperBoundParams interrupted;
    interrupted.stop = &stop;
    const UpperBound bi = compute_upper_bound(m, interrupted);
    EXPECT_EQ(bi.score, bl.score);  // nothing refined either way: the same cheap tables
    EXPECT_EQ(to_string(bi.stopped_by), "interrupt");
    // Never cut: complete, and the same as without a deadline.
    UpperBoundParams roomy;
    roomy.deadline = std::chrono::steady_clock::now() + std::chrono::hours(1);
    std::atomic<bool> no_stop{false};
    roomy.stop = &no_stop;
    const UpperBound br = compute_upper_bound(m, roomy);
    EXPECT_TRUE(br.complete);
    EXPECT_EQ(to_string(br.stopped_by), "complete");
    EXPECT_EQ(br.score, full.score);
    return above;
}

TEST(UpperBound, CutShortStaysValidAndNeverBelowTheCompleteBound) {
    // Tiny instances against the brute-force optimum: cut bound >= complete bound >= optimum.
    const BoundCase cases[] = {{"K1", 3, 7}, {"K2", 3, 7}, {"K4", 3, 6}, {"C4", 3, 6}, {"CQ3", 2, 5}, {"2xK4", 2, 5}};
    int above = 0;
    for (int i = 0; i < 48; ++i) {
        const BoundCase& c = cases[i % 6];
        Problem p = tiny(c.topo, c.hosts, c.vms, 900 + static_cast<std::uint64_t>(i));
        p.constraints.max_migrations = 1 + (i / 6) % 3;
        if (i % 5 == 3) p.constraints.max_migrated_ram_mib = 12 * 1024;
        p.constraints.remap_counts_as_migration = i % 4 != 2;
        const bool ram_cost = i % 7 == 5 && p.constraints.remap_counts_as_migration;
        if (ram_cost) p.objective_terms = {{"ram-cost", 0.125}};
        const CapacityModel m(p);
        SCOPED_TRACE(std::string(c.topo) + " case " + std::to_string(i));
        const Score opt = brute_force_score(m, ram_cost ? weight_milli(0.125) : 0);
        const UpperBound full = compute_upper_bound(m);
        ASSERT_TRUE(full.complete);
        ASSERT_GE(full.score, opt);
        above += check_cut_bounds(m, opt, full);
    }
    EXPECT_GE(above, 48);  // cutting short does coarsen it (the test can see a difference)
    // Medium random clusters: cut bound >= complete bound >= the objective of the pipeline's plan.
    for (const char* topo : {"K2", "CQ3"})
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            test::RandomCluster rc;
            rc.host_topology = topo;
            rc.hosts = 40;
            rc.seed = seed;
            rc.max_migrations = 6 * static_cast<std::int64_t>(seed);
            Problem p = test::make_random_problem(rc);
            if (seed == 2) p.constraints.max_migrated_ram_mib = 96 * 1024;
            const CapacityModel m(p);
            SCOPED_TRACE(std::string(topo) + " seed " + std::to_string(seed));
            OptimizeParams op;
            op.search.quiet = true;
            op.search.seed = seed;
            op.search.max_evaluations = 30000;
            const OptimizeResult r = optimize(m, op);
            const Score plan_score = static_cast<Score>(std::llround(r.plan.objective_after * kScoreScale));
            const UpperBound full = compute_upper_bound(m);
            ASSERT_GE(full.score, plan_score);
            check_cut_bounds(m, plan_score, full);
        }
}

/** Wall-clock seconds since `t0`. */
double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/** A generated snapshot whose complete bound takes seconds (2,000 hosts get 10,000 branch-and-bound
 *  evaluations each), written once per test process. */
std::string slow_bound_snapshot() {
    const std::string snap = (test::tmp_dir() / "slow-bound.json").string();
    if (!std::filesystem::exists(snap)) {
        const auto g = test::run_vmcap("generate --hosts 2000 --vms 60000 --seed 5 --out " + snap);
        EXPECT_EQ(g.code, 0) << g.err;
    }
    return snap;
}

// SIGINT while the bound runs (before the search: the bound comes first) ends the run at once
// with the plan written (the search, asked to stop, ends at once too), the bound reached so far in
// it, and exit code 130. Before, the signal was
// ignored until the bound finished (tens of seconds on large clusters) and the run exited 0.
TEST(UpperBound, InterruptDuringTheBoundWritesThePlanAndExits130) {
    const std::string snap = slow_bound_snapshot();
    const auto dir = test::tmp_dir() / "bound-sigint";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string out = (dir / "p.json").string(), err = (dir / "err.txt").string(), log = (dir / "log.txt").string();
    // Start the plan, wait for the bound to start (its stderr line), then SIGINT; report the
    // seconds from the signal to the exit and the exit code.
    const std::string script = std::string(VMCAP_BINARY) + " plan --cluster " + snap + " --algorithm greedy --out " + out + " 2>" + err +
                               " >/dev/null & pid=$!\n"
                               "for i in $(seq 1 1200); do grep -q 'upper bound: computing' " +
                               err +
                               " && break; sleep 0.05; done\n"
                               "sleep 0.3; t0=$(date +%s.%N); kill -INT $pid; wait $pid; code=$?; t1=$(date +%s.%N)\n"
                               "awk -v c=$code -v a=$t0 -v b=$t1 'BEGIN { print c, b - a }' >" +
                               log + "\n";
    const std::string script_file = (dir / "run.sh").string();
    {
        std::ofstream f(script_file);
        f << script;
    }
    ASSERT_EQ(std::system(("bash " + script_file).c_str()), 0);
    std::istringstream in(read_text_file(log));
    int code = -1;
    double seconds = -1;
    in >> code >> seconds;
    EXPECT_EQ(code, 130) << read_text_file(err);
    EXPECT_LT(seconds, 3.0) << "the run went on after the interrupt";
    std::printf("SIGINT during the bound: exit %d, %.2f s after the signal\n", code, seconds);
    ASSERT_TRUE(std::filesystem::exists(out));
    const auto doc = nlohmann::json::parse(read_text_file(out));
    EXPECT_EQ(doc["upper_bound_stopped_by"], "interrupt");
    EXPECT_EQ(doc["upper_bound_complete"], false);
    EXPECT_EQ(doc["search"]["stopped_by"], "interrupt");  // the search after the bound stops at the same request
    EXPECT_GE(doc["upper_bound"].get<double>(), doc["objective_after"].get<double>());
    const auto v = test::run_vmcap("validate --cluster " + snap + " --plan " + out + " --bound-check consistency");
    EXPECT_EQ(v.code, 0) << v.err;
}

// With --time-limit the whole run, bound included, ends within the limit plus the
// documented grace (max(5 s, 10%)); the bound is then cut short, says so, and is still >= the plan.
TEST(UpperBound, TimeLimitCoversTheBound) {
    const std::string snap = slow_bound_snapshot();
    const std::string out = (test::tmp_dir() / "bound-deadline.json").string();
    const auto t0 = std::chrono::steady_clock::now();
    // 0.5 s: the bound then has ~0.04 s of it left, against ~0.4 s to finish on 2,000 hosts on
    // an idle 2-core machine (2026-11-30). With 1 s it had ~0.4 s: whether it finished depended
    // on the machine's load, and a finished bound fails this test for being fast.
    const auto r = test::run_vmcap("plan --cluster " + snap + " --time-limit 0.5 --quiet --out " + out);
    const double wall = since(t0);
    ASSERT_EQ(r.code, 0) << r.err;
    // ASan + UBSan slow the untimed tail (plan building, writing) several-fold: no wall check there.
#ifndef VMCAP_TEST_UNDER_ASAN
    EXPECT_LT(wall, 0.5 + 5.0) << r.out;
#endif
    std::printf("plan --time-limit 0.5 on 2,000 hosts: %.2f s of wall\n", wall);
    EXPECT_NE(r.out.find("cut short by time limit"), std::string::npos) << r.out;
    const auto doc = nlohmann::json::parse(read_text_file(out));
    EXPECT_EQ(doc["upper_bound_complete"], false);
    EXPECT_EQ(doc["upper_bound_stopped_by"], "time limit");
    EXPECT_GE(doc["upper_bound"].get<double>(), doc["objective_after"].get<double>());
}

// The give-up rule with chosen seconds (no clock): the 10,000-host replay at --time-limit 10,
// where the bound's share is ~4.3 s and its tables take 6.5 s on an idle machine, 13 s loaded.
TEST(UpperBound, TablesOutOfReachProjectsTheMadeTablesRate) {
    // Before the probe (20% of the allowance) nothing is judged, however slow.
    EXPECT_FALSE(tables_out_of_reach(0.8, 4.3, 1, 10000, 2.0));
    // 400 of 10,000 tables after 0.9 s: 22.5 s projected, past 2 x 4.3 s.
    EXPECT_TRUE(tables_out_of_reach(0.9, 4.3, 400, 10000, 2.0));
    // 30 s: 14 s of allowance; 1,500 after 2.9 s project 19.3 s, within 2 x 14 s.
    EXPECT_FALSE(tables_out_of_reach(2.9, 14.0, 1500, 10000, 2.0));
    EXPECT_TRUE(tables_out_of_reach(2.9, 14.0, 1500, 10000, 1.0));
    // Off, or nothing made yet: never.
    EXPECT_FALSE(tables_out_of_reach(0.9, 4.3, 400, 10000, 0.0));
    EXPECT_FALSE(tables_out_of_reach(3.0, 4.3, 0, 10000, 2.0));
    // A bound whose tables are all made is never out of reach.
    EXPECT_FALSE(tables_out_of_reach(1.0, 4.3, 10000, 10000, 2.0));
    EXPECT_THROW(
        [] {
            UpperBoundParams bp;
            bp.give_up = -1.0;
            bp.validate();
        }(),
        std::invalid_argument);
}

// Every plan file has the same top-level fields, whichever command wrote it.
TEST(UpperBound, ExactPlansHaveThePlanFields) {
    const std::string snap = (test::tmp_dir() / "exact-fields.json").string();
    ASSERT_EQ(test::run_vmcap("generate --hosts 6 --vms 24 --host-type K4 --seed 2 --out " + snap).code, 0);
    const std::string pp = (test::tmp_dir() / "fields-plan.json").string(), pe = (test::tmp_dir() / "fields-exact.json").string(),
                      pm = (test::tmp_dir() / "fields-milp.json").string();
    ASSERT_EQ(test::run_vmcap("plan --cluster " + snap + " --quiet --max-evaluations 20000 --out " + pp).code, 0);
    ASSERT_EQ(test::run_vmcap("exact --cluster " + snap + " --out " + pe).code, 0);
    ASSERT_EQ(test::run_vmcap("exact --method milp --cluster " + snap + " --out " + pm).code, 0);
    auto keys = [](const std::string& file) {
        std::set<std::string> k;
        const auto doc = nlohmann::json::parse(read_text_file(file));  // items() refers into it
        for (const auto& [key, v] : doc.items()) k.insert(key);
        return k;
    };
    const auto kp = keys(pp);
    for (const char* key : {"upper_bound", "gap", "upper_bound_covers", "upper_bound_complete", "upper_bound_stopped_by"})
        EXPECT_TRUE(kp.count(key)) << key;
    EXPECT_EQ(keys(pe), kp);
    EXPECT_EQ(keys(pm), kp);
    for (const std::string& f : {pe, pm}) {
        const auto doc = nlohmann::json::parse(read_text_file(f));
        EXPECT_GE(doc["upper_bound"].get<double>(), doc["objective_after"].get<double>());
        if (doc["search"]["proven_optimal"].get<bool>()) {
            EXPECT_EQ(doc["gap"].get<double>(), 0.0);
        }
        const auto v = test::run_vmcap("validate --cluster " + snap + " --plan " + f);
        EXPECT_EQ(v.code, 0) << f << ": " << v.err;
    }
}

// The bound's value does not depend on how host values are evaluated (the target-parallel kernel
// or target by target: the same integers) nor on the thread count: every table and every count
// is the same, on random clusters of several topologies, with and without a binding RAM budget
// (whole Pareto fronts kept) and a RAM cost.
TEST(UpperBound, ValuePathsAndThreadsGiveTheSameBound) {
    using Path = UpperBoundParams::ValuePath;
    int cases = 0;
    for (const char* topo : {"K2", "CQ3", "C4", "2xK4", "Q3"})
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            test::RandomCluster rc;
            rc.host_topology = topo;
            rc.hosts = 30;
            rc.seed = 40 + seed;
            rc.max_migrations = 5 * static_cast<std::int64_t>(seed);
            Problem p = test::make_random_problem(rc);
            if (seed == 2) p.constraints.max_migrated_ram_mib = 80 * 1024;
            if (seed == 3) p.objective_terms = {{"ram-cost", 0.125}};
            const CapacityModel m(p);
            SCOPED_TRACE(std::string(topo) + " seed " + std::to_string(seed));
            UpperBoundParams a;
            a.value_path = Path::PerTarget;
            const UpperBound ref = compute_upper_bound(m, a);
            ASSERT_TRUE(ref.complete);
            for (Path path : {Path::Kernel, Path::Auto})
                for (int threads : {1, 2}) {
                    UpperBoundParams b;
                    b.value_path = path;
                    b.threads = threads;
                    const UpperBound u = compute_upper_bound(m, b);
                    EXPECT_EQ(u.score, ref.score);
                    EXPECT_EQ(u.evaluations, ref.evaluations);
                    EXPECT_EQ(u.hosts_tightened, ref.hosts_tightened);
                    EXPECT_EQ(u.ram_lagrangian, ref.ram_lagrangian);
                    EXPECT_EQ(u.lambda_per_gib, ref.lambda_per_gib);
                    EXPECT_TRUE(u.complete);
                }
            ++cases;
        }
    EXPECT_EQ(cases, 15);
}

// Bounds pinned from the build before the bound's speed-ups (commit c1cd4db: target-by-target
// values below 16 targets, every enumerated Pareto front kept, the branch and bound's greedy
// incumbent recomputed for every removal count): `plan --algorithm greedy` reports the same
// upper_bound_score, exactly, on the bundled example at three budgets, with a binding RAM budget,
// a RAM cost, free remaps and 2 threads, and on generated clusters of five topologies. Six were
// re-pinned lower when the node-subset bound made the tables beyond the branch and bound exact
// (objective units, before -> after: 70: 144 -> 128, twice; 348: 473 -> 366; 70 within 200 GiB:
// 141.54 -> 125.74; 70 with ram-cost: 145.69 -> 124.53; CQ3 seed 4: 702.21 -> 699.09); the other
// six did not move.
TEST(UpperBound, PinnedBoundsOfTheBuildBeforeItsSpeedUps) {
    const auto dir = test::tmp_dir() / "bound-pinned";
    std::filesystem::create_directories(dir);
    struct Pin {
        const char* gen;  // vmcap generate arguments ("" : the bundled example)
        const char* plan;
        std::int64_t score;
    };
    const Pin pins[] = {
        {"", "--max-migrations 10", 63488000},
        {"", "--max-migrations 70", 131072000},
        {"", "--max-migrations 70 --threads 2", 131072000},
        {"", "--max-migrations 348", 374784000},
        {"", "--max-migrations 70 --max-migrated-gib 200", 128761081},
        {"", "--max-migrations 70 --ram-cost 0.01", 127521280},
        {"", "--max-migrations 70 --free-remaps", 501760000},
        {"--host-type K2 --seed 1", "--max-migrations 40", 30720000},
        {"--host-type C4 --seed 2", "--max-migrations 40", 141312000},
        {"--host-type Q3 --seed 3", "--max-migrations 40", 817152000},
        {"--host-type CQ3 --seed 4", "--max-migrations 40 --max-migrated-gib 300", 715869090},
        {"--host-type 2xK4 --seed 5", "--max-migrations 40", 755712000},
    };
    int i = 0;
    for (const Pin& pin : pins) {
        SCOPED_TRACE(std::string(pin.gen) + " | " + pin.plan);
        std::string cluster;
        if (*pin.gen != '\0') {
            const std::string snap = (dir / ("g" + std::to_string(i) + ".json")).string();
            const auto g = test::run_vmcap(std::string("generate --hosts 120 --vms 3000 ") + pin.gen + " --out " + snap);
            ASSERT_EQ(g.code, 0) << g.err;
            cluster = " --cluster " + snap;
        }
        const std::string out = (dir / ("p" + std::to_string(i++) + ".json")).string();
        const auto r = test::run_vmcap("plan --algorithm greedy --quiet --time-limit 3600" + cluster + " " + pin.plan + " --out " + out);
        ASSERT_EQ(r.code, 0) << r.err;
        const auto doc = nlohmann::json::parse(read_text_file(out));
        EXPECT_EQ(doc["upper_bound_complete"], true);
        // compute_upper_bound's part; the Lagrangian on arrivals (after the search) lowers only
        // the generated K2 cluster's, where 40 multiplier vectors take it from 30 to 4 (9 with
        // steps of fixed length: docs/performance.md, "Longer steps after a better bound"), and the
        // bundled example's at 348 migrations (whole multi-node arrivals on CQ3): 366 to 340.
        const bool priced = doc.contains("upper_bound_removal_only_score");
        EXPECT_EQ(doc[priced ? "upper_bound_removal_only_score" : "upper_bound_score"].get<std::int64_t>(), pin.score);
        const bool k2 = std::string(pin.gen) == "--host-type K2 --seed 1", b348 = std::string(pin.plan) == "--max-migrations 348";
        EXPECT_EQ(priced, k2 || b348);
        if (priced && k2) {
            EXPECT_EQ(doc["upper_bound_score"].get<std::int64_t>(), 4096000);
        } else if (priced) {
            // Its price vectors are cut by the plan's time cap (max(5 s, twice bound and search)),
            // so the value depends on the machine: 340-342 measured. It stays above the best
            // plan known (331, annealing with 50x its evaluations) and below 366.
            EXPECT_LT(doc["upper_bound_score"].get<std::int64_t>(), pin.score);
            EXPECT_GE(doc["upper_bound_score"].get<std::int64_t>(), 331 * kScoreScale);
        }
    }
}

TEST(UpperBound, ParamsAreValidated) {
    const Problem p = hand_problem(1, {{0, 0}});
    const CapacityModel m(p);
    UpperBoundParams bad;
    bad.threads = 0;
    EXPECT_THROW(compute_upper_bound(m, bad), std::invalid_argument);
    bad = {};
    bad.max_sets_per_host = 0;
    EXPECT_THROW(compute_upper_bound(m, bad), std::invalid_argument);
    bad = {};
    bad.fallback_seconds = -1;
    EXPECT_THROW(compute_upper_bound(m, bad), std::invalid_argument);
    bad = {};
    bad.max_full_tables = -2;
    EXPECT_THROW(compute_upper_bound(m, bad), std::invalid_argument);
    bad = {};
    bad.node_subset_retry = 0;
    EXPECT_THROW(compute_upper_bound(m, bad), std::invalid_argument);
    EXPECT_DOUBLE_EQ(relative_gap(10.0, 7.5), 0.25);
    EXPECT_DOUBLE_EQ(relative_gap(0.0, 0.0), 0.0);
    EXPECT_DOUBLE_EQ(relative_gap(5.0, 6.0), 0.0);
}

}  // namespace
}  // namespace vmcap

namespace vmcap {
namespace {

/** A random cluster of `hosts` hosts of `topo` (tests/fixtures.h, 80% filled) at `budget`. */
Problem random_cluster(const char* topo, int hosts, std::uint64_t seed, std::int64_t budget) {
    test::RandomCluster rc;
    rc.host_topology = topo;
    rc.hosts = hosts;
    rc.seed = seed;
    rc.fill = 0.8;
    rc.max_migrations = budget;
    return test::make_random_problem(rc);
}

TEST(UpperBound, ArrivalsPricedNeverBelowTheMilpOptimumAndCloseMostOfTheGap) {
    // Random clusters of 2-node (8 hosts) and 4-node hosts (4) at budgets 8 and 16, where the removal-only
    // bound is loose: CBC's optimum over final states (an independent model: placements of the
    // moved VMs) is below every Lagrangian bound, and on these host shapes the Lagrangian closes
    // most of the removal-only bound's gap (measured: docs/performance.md, "Arrivals priced").
#if defined(VMCAP_TEST_UNDER_ASAN) || defined(VMCAP_TEST_UNDER_TSAN)
    // Under a sanitizer CBC's clock runs out before it proves anything (its model build and warm
    // start are instrumented: 0 of 4 proven in 48 s), and the Lagrangian's own code runs there in
    // NeverBelowTheOptimumOnTinyInstances and the tests below.
    GTEST_SKIP() << "CBC proves nothing within its time limit under a sanitizer";
#endif
    const std::uint64_t seeds = 3;
    int proven = 0;
    double gap_before = 0.0, gap_after = 0.0;
    for (const char* topo : {"K2", "K4", "CQ3"})
        for (std::uint64_t seed = 101; seed < 101 + seeds; ++seed)
            for (const std::int64_t budget : {8, 16}) {
                const bool k2 = std::string(topo) == "K2", cq3 = std::string(topo) == "CQ3";
                if (std::string(topo) == "K4" && seed == 101) continue;  // CBC does not prove it within minutes
                // 8-node hosts: one cluster whose hosts all complete (the whole-arrival tables).
                if (cq3 && (seed != 101 || budget != 8)) continue;
                const Problem p = random_cluster(topo, k2 ? 8 : 4, seed, budget);
                const CapacityModel m(p);
                SCOPED_TRACE(std::string(topo) + " seed " + std::to_string(seed) + " budget " + std::to_string(budget));
                MilpParams mp;
                mp.time_limit_s = 10;  // an optimum not proven in it still gives a floor: CBC's best state
                const ExactResult ex = solve_exact(m, mp);
                const Score opt = static_cast<Score>(std::llround(ex.objective * kScoreScale));
                const UpperBound ub = compute_upper_bound(m);
                const LagrangianBound lb = lagrangian_upper_bound(m, UpperBoundParams{}, opt, 40, ub.score);
                ASSERT_TRUE(lb.applied);
                EXPECT_GE(lb.score, opt);  // CBC's best is a real final state even when not proven optimal
                if (!ex.proven) continue;
                ++proven;
                gap_before += to_objective(ub.score - opt);
                gap_after += to_objective(std::min(ub.score, lb.score) - opt);
                if (cq3) {
                    // Removal-only 51, optimum 47 (CBC), whole multi-node arrivals 49 (measured).
                    EXPECT_EQ(ub.score, 51 * kScoreScale);
                    EXPECT_EQ(opt, 47 * kScoreScale);
                    EXPECT_LE(lb.score, 49 * kScoreScale);
                }
                if (std::string(topo) == "K2" && seed == 101 && budget == 8) {
                    // Hand-read case: removal-only 19, optimum 16, the Lagrangian 17 (17.34 rounded
                    // down to the unit weights' multiple).
                    EXPECT_EQ(ub.score, 19 * kScoreScale);
                    EXPECT_EQ(opt, 16 * kScoreScale);
                    EXPECT_EQ(lb.score, 17 * kScoreScale);
                }
            }
    EXPECT_GE(proven, 4);
    EXPECT_GT(gap_before, 0.0);
    EXPECT_LE(gap_after, 0.5 * gap_before);  // at least half of the gap closed
    std::printf("arrivals priced on %d proven clusters: summed gap %.2f -> %.2f objective units\n", proven, gap_before, gap_after);
}

TEST(UpperBound, ArrivalsPricedDoNotDependOnThreadsAndReproduceAtTheirPrices) {
    const Problem p = random_cluster("K2", 24, 7, 24);
    const CapacityModel m(p);
    const UpperBound ub = compute_upper_bound(m);
    UpperBoundParams one, two;
    two.threads = 2;
    // Toward 85% of the removal-only bound, as toward a plan below it.
    const Score target = ub.score / 100 * 85;
    LagrangianBound a;
    // The per-k search first (the default), then the envelope of the removals priced first.
    for (const bool per_k_first : {false, true}) {
        one.arrival_per_k_first = two.arrival_per_k_first = per_k_first;
        a = lagrangian_upper_bound(m, one, target, 25, ub.score);
        const LagrangianBound b = lagrangian_upper_bound(m, two, target, 25, ub.score);
        ASSERT_TRUE(a.applied);
        EXPECT_LT(a.score, ub.score);
        EXPECT_EQ(a.score, b.score);
        EXPECT_EQ(a.prices, b.prices);
        EXPECT_EQ(a.steps, b.steps);
    }
    // What vmcap validate does: one evaluation at the stated prices gives the same bound.
    const LagrangianBound again = lagrangian_upper_bound(m, one, 0, 1, ub.score, &a.prices);
    EXPECT_EQ(again.steps, 1);
    EXPECT_EQ(again.score, a.score);
    // Not applicable: free remaps, and a RAM budget that binds.
    Problem q = p;
    q.constraints.remap_counts_as_migration = false;
    EXPECT_FALSE(lagrangian_upper_bound(CapacityModel(q), one, 0, 5, ub.score).applied);
    q = p;
    q.constraints.max_migrated_ram_mib = 1024;
    EXPECT_FALSE(lagrangian_upper_bound(CapacityModel(q), one, 0, 5, ub.score).applied);
    EXPECT_THROW(lagrangian_upper_bound(m, one, 0, -1, ub.score), std::invalid_argument);
    const std::vector<Score> short_prices(1, 0);
    EXPECT_THROW(lagrangian_upper_bound(m, one, 0, 1, ub.score, &short_prices), std::invalid_argument);
}

// The node-subset search reads the closed forms from its options' copy counts where the kernel
// is not kept for it (PerTarget, and Auto where that timed faster), from free amounts by the kernel
// otherwise: the same integers, so the same multipliers, steps and bound, on hosts of 2, 4 and 8
// nodes. The small one-node flavor is a target too, so the targets' per-node demands differ and
// arrivals are pieces (with one shared demand a table T of units decides every value instead).
TEST(UpperBound, ArrivalsPricedDoNotDependOnTheValuePath) {
    using Path = UpperBoundParams::ValuePath;
    int cases = 0;
    for (const char* topo : {"K2", "K4", "CQ3"})
        for (int budget : {8, 16}) {
            SCOPED_TRACE(std::string(topo) + " budget " + std::to_string(budget));
            Problem p = random_cluster(topo, 12, 30 + budget, budget);
            p.flavors[0].weight = 0.5;  // 2c4g: a target of another per-node demand than 4c16g's
            const CapacityModel m(p);
            const UpperBound ub = compute_upper_bound(m);
            const Score target = ub.score / 100 * 80;
            UpperBoundParams ref_params;
            ref_params.value_path = Path::PerTarget;
            const LagrangianBound ref = lagrangian_upper_bound(m, ref_params, target, 8, ub.score);
            ASSERT_TRUE(ref.applied);
            for (const Path path : {Path::Kernel, Path::Auto}) {
                UpperBoundParams prm;
                prm.value_path = path;
                const LagrangianBound lb = lagrangian_upper_bound(m, prm, target, 8, ub.score);
                EXPECT_EQ(lb.score, ref.score);
                EXPECT_EQ(lb.prices, ref.prices);
                EXPECT_EQ(lb.steps, ref.steps);
            }
            ++cases;
        }
    EXPECT_EQ(cases, 6);
}

TEST(UpperBound, ArrivalsPricedOnlyWhenThePlanIsMoreThanOnePercentBelowTheBound) {
    // The bundled example: at 125 migrations the plan is 0.55% below its bound (182 against 183),
    // at 145 1.97% (199 against 203), measured with the ruins' floor (docs/performance.md, "A ruin
    // floor"; before it, 130 gave 1.6% and now gives 0.53%, 187 against 188); the Lagrangian runs
    // only on the second.
    const auto dir = test::tmp_dir();
    for (const int budget : {125, 145}) {
        const std::string out = (dir / ("min-gap-" + std::to_string(budget) + ".json")).string();
        const auto r = test::run_vmcap("plan --max-migrations " + std::to_string(budget) + " --bound-arrival-steps 1 --quiet --out " + out);
        ASSERT_EQ(r.code, 0) << r.err;
        const auto doc = nlohmann::json::parse(read_text_file(out));
        const double gap = doc["gap"].get<double>();
        ASSERT_GT(gap, 0.0);
        const bool ran = doc["search"].contains("upper_bound_arrival_steps");
        EXPECT_EQ(ran, gap > OptimizeParams::kArrivalMinGap) << "budget " << budget << " gap " << gap;
        EXPECT_EQ(ran, budget == 145) << "budget " << budget << " gap " << gap;
    }
}

TEST(UpperBound, ArrivalsPricedPlanFieldsAreRecheckedByValidate) {
    const auto dir = test::tmp_dir();
    const std::string snap = (dir / "k2-arrivals.json").string(), out = (dir / "k2-arrivals-plan.json").string();
    {
        std::ofstream f(snap);
        f << snapshot_to_json(random_cluster("K2", 24, 7, 24)).dump();
    }
    const auto r = test::run_vmcap("plan --cluster " + snap + " --max-evaluations 200000 --quiet --out " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("arrivals priced: "), std::string::npos) << r.out;
    nlohmann::json doc;
    {
        std::ifstream in(out);
        doc = nlohmann::json::parse(in);
    }
    ASSERT_TRUE(doc.contains("upper_bound_arrival_prices")) << doc.dump();
    EXPECT_LT(doc["upper_bound_score"].get<Score>(), doc["upper_bound_removal_only_score"].get<Score>());
    EXPECT_GT(doc["search"]["upper_bound_arrival_steps"].get<int>(), 0);
    const auto v = test::run_vmcap("validate --cluster " + snap + " --plan " + out);
    EXPECT_EQ(v.code, 0) << v.out << v.err;
    // Tampered: a price changed (the recomputed bound differs), the removal-only bound changed,
    // the prices without the removal-only bound.
    auto tampered = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& want) {
        nlohmann::json d = doc;
        edit(d);
        const std::string bad = (dir / "k2-arrivals-bad.json").string();
        std::ofstream(bad) << d.dump();
        const auto w = test::run_vmcap("validate --cluster " + snap + " --plan " + bad);
        EXPECT_EQ(w.code, 3) << w.out << w.err;
        EXPECT_NE((w.out + w.err).find(want), std::string::npos) << w.out << w.err;
    };
    tampered(
        [](nlohmann::json& d) {
            for (auto& [name, price] : d["upper_bound_arrival_prices"].items()) price = price.get<Score>() + 3 * kScoreScale;
        },
        "recomputed at the stated arrival prices");
    tampered(
        [](nlohmann::json& d) {
            d["upper_bound_removal_only_score"] = d["upper_bound_removal_only_score"].get<Score>() + kScoreScale;
            d["upper_bound_removal_only"] = to_objective(d["upper_bound_removal_only_score"].get<Score>());
        },
        "upper_bound_removal_only_score is");
    tampered([](nlohmann::json& d) { d.erase("upper_bound_removal_only_score"); }, "stated together");
    {  // A price that is not an integer: a malformed plan (exit 2), naming its path.
        nlohmann::json d = doc;
        d["upper_bound_arrival_prices"].begin().value() = "cheap";
        const std::string bad = (dir / "k2-arrivals-malformed.json").string();
        std::ofstream(bad) << d.dump();
        const auto w = test::run_vmcap("validate --cluster " + snap + " --plan " + bad);
        EXPECT_EQ(w.code, 2) << w.out << w.err;
        EXPECT_NE(w.err.find("upper_bound_arrival_prices."), std::string::npos) << w.err;
    }
    // Off: no Lagrangian figures.
    const auto off = test::run_vmcap("plan --cluster " + snap + " --max-evaluations 200000 --bound-arrival-steps 0 --quiet --out " + out);
    ASSERT_EQ(off.code, 0) << off.err;
    std::ifstream in(out);
    const auto d0 = nlohmann::json::parse(in);
    EXPECT_FALSE(d0.contains("upper_bound_arrival_prices"));
    EXPECT_FALSE(d0["search"].contains("upper_bound_arrival_steps"));
}

}  // namespace
}  // namespace vmcap

// The written plan reaches the best orderable state. Oracle: a brute force over plans
// (breadth-first over every state reachable by feasible steps within the budget, on plain
// per-node usage tables, capacities from cluster_capacity), independent of the plan builder,
// SearchState's incremental updates and the exact ordering search.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <deque>
#include <map>
#include <random>
#include <unordered_map>

#include "evaluators/state/cluster_capacity.h"
#include "evaluators/state/search_state.h"
#include "instances/snapshot_io.h"
#include "tests/cli_run.h"
#include "optimizer/solvers/exact_bb.h"
#include "optimizer/solvers/optimize.h"
#include "optimizer/plan/ordering.h"
#include "optimizer/plan/validate.h"
#include "tests/tight_cases.h"

namespace vmcap {
namespace {

double objective_of(const CapacityModel& m, const Problem& state) {
    const std::vector<Count> caps = cluster_capacity(m, compute_node_usage(state)).totals();
    double obj = 0;
    for (std::size_t f = 0; f < state.flavors.size(); ++f) obj += state.flavors[f].weight * static_cast<double>(caps[f]);
    return obj;
}

/** Best objective over every plan of at most the budget's steps (and RAM) from the snapshot. */
double best_orderable_by_brute_force(const CapacityModel& m) {
    const Problem& p = m.problem();
    const int R = p.num_resources();
    std::vector<int> movable;
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        if (p.vms[v].migratable) movable.push_back(static_cast<int>(v));
    struct Node {
        Problem state;
        std::int64_t steps;
        Amount ram;
    };
    auto key = [&](const Problem& s) {
        std::string k;
        for (int v : movable) {
            k += std::to_string(s.vms[v].host) + ":";
            for (int i = 0; i < p.flavors[p.vms[v].flavor].num_vnuma(); ++i) k += std::to_string(s.vms[v].pnuma[i]) + ",";
            k += ";";
        }
        return k;
    };
    std::map<std::string, std::pair<std::int64_t, Amount>> seen;  // least budget used per state
    std::deque<Node> queue;
    queue.push_back(Node{p, 0, 0});
    seen[key(p)] = {0, 0};
    double best = objective_of(m, p);
    while (!queue.empty()) {
        Node cur = std::move(queue.front());
        queue.pop_front();
        const auto it = seen.find(key(cur.state));
        if (it != seen.end() && (it->second.first < cur.steps || it->second.second < cur.ram)) continue;  // superseded
        best = std::max(best, objective_of(m, cur.state));
        const auto usage = compute_node_usage(cur.state);
        for (int v : movable) {
            const Vm& vm = cur.state.vms[v];
            const Flavor& fl = p.flavors[vm.flavor];
            const int k = fl.num_vnuma();
            for (std::size_t h = 0; h < p.hosts.size(); ++h) {
                const HostType& ht = p.host_type_of(static_cast<int>(h));
                const bool counts = static_cast<int>(h) != vm.host || p.constraints.remap_counts_as_migration;
                const std::int64_t steps = cur.steps + (counts ? 1 : 0);
                const Amount ram = cur.ram + (counts ? fl.demand[kRamMib] : 0);
                if (steps > p.constraints.max_migrations || ram > p.constraints.max_migrated_ram_mib) continue;
                for (const Embedding& e : enumerate_embeddings(ht.topology.graph, fl.vnuma.graph)) {
                    bool same = static_cast<int>(h) == vm.host;
                    for (int i = 0; i < k && same; ++i) same = e.map[i] == vm.pnuma[i];
                    if (same) continue;
                    bool ok = true;
                    for (int i = 0; i < k && ok; ++i)
                        for (int r = 0; r < R && ok; ++r) {
                            Amount used = usage[h][e.map[i] * R + r];
                            if (static_cast<int>(h) == vm.host)
                                for (int j = 0; j < k; ++j)
                                    if (vm.pnuma[j] == e.map[i]) used -= fl.node_demand[r];
                            ok = used + fl.node_demand[r] <= ht.node_capacity[e.map[i] * R + r];
                        }
                    if (!ok) continue;
                    Node next{cur.state, steps, ram};
                    next.state.vms[v].host = static_cast<int>(h);
                    next.state.vms[v].pnuma = e.map;
                    const std::string nk = key(next.state);
                    const auto s = seen.find(nk);
                    if (s != seen.end() && s->second.first <= steps && s->second.second <= ram) continue;
                    seen[nk] = {steps, ram};
                    if (counts)
                        queue.push_back(std::move(next));
                    else
                        queue.push_front(std::move(next));  // free remap: same level
                }
            }
        }
    }
    return best;
}

OptimizeParams params_for(Algorithm a, std::uint64_t seed) {
    OptimizeParams op;
    op.algorithm = a;
    op.search.quiet = true;
    op.search.seed = seed;
    op.search.max_evaluations = 40000;
    // Remaps in the mix (as with free remaps): the numa-detour rotation ends with one.
    op.search.mix.set("remap", 0.05);
    return op;
}

void expect_valid(const CapacityModel& m, const Plan& plan, const std::string& what) {
    PlanInfo info;
    const nlohmann::ordered_json doc = plan_to_json(m.problem(), plan, info);
    const PlanCheck check = validate_plan(m, nlohmann::json::parse(doc.dump()), "<plan>");
    EXPECT_TRUE(check.ok) << what << ": " << check.error;
}

// The generator's hand-derived orderable optima equal the brute force over plans on all 36 cases,
// so every case is what its name says (the rotation needs its detour; one short of it loses).
TEST(TightCases, HandDerivedOrderableOptimaEqualBruteForceOverPlans) {
    int needs_detour = 0;
    for (const test::TightCase& c : test::tight_suite()) {
        SCOPED_TRACE(c.name());
        const Problem p = test::tight_ring(c.n, c.variant, c.budget, c.free_remaps);
        const CapacityModel m(p);
        const double before = SearchState(m).objective_value();
        const double bf = best_orderable_by_brute_force(m);
        EXPECT_DOUBLE_EQ(bf - before, test::tight_expected_gain(c.n, c.variant, c.budget, c.free_remaps));
        // The final-state optimum (the rotation, n moves) gains n whatever the order.
        SearchState s(m);
        s.set_placements(test::tight_rotation(p, c.n));
        EXPECT_DOUBLE_EQ(s.objective_value() - before, c.n);
        needs_detour += bf < s.objective_value();
    }
    EXPECT_GE(needs_detour, 20);
}

// The builder orders the rotation through its detour whenever the budget admits one: on the
// spare host, or on the other pNUMA node of the destination (free remap or one more step).
TEST(TightCases, BuilderOrdersTheRotationThroughItsDetour) {
    for (const test::TightCase& c : test::tight_suite()) {
        if (c.variant == test::TightVariant::Closed ||
            c.budget < c.n + (c.free_remaps && c.variant == test::TightVariant::NumaDetour ? 0 : 1))
            continue;
        SCOPED_TRACE(c.name());
        const Problem p = test::tight_ring(c.n, c.variant, c.budget, c.free_remaps);
        const CapacityModel m(p);
        const Plan plan = build_plan(m, test::tight_rotation(p, c.n));
        EXPECT_DOUBLE_EQ(plan.objective_after - plan.objective_before, c.n);
        EXPECT_EQ(plan.dropped, 0);
        expect_valid(m, plan, "builder");
    }
}

// find_order is exact: a plan exists iff the brute force reaches the rotation's objective.
TEST(TightCases, ExactOrderingFindsThePlanIffOneExists) {
    for (const test::TightCase& c : test::tight_suite()) {
        SCOPED_TRACE(c.name());
        const Problem p = test::tight_ring(c.n, c.variant, c.budget, c.free_remaps);
        const CapacityModel m(p);
        const OrderResult o = find_order(m, test::tight_rotation(p, c.n));
        const bool exists = test::tight_expected_gain(c.n, c.variant, c.budget, c.free_remaps) == c.n;
        ASSERT_NE(o.status, OrderStatus::Unknown);
        EXPECT_EQ(o.status == OrderStatus::Found, exists);
        if (o.status == OrderStatus::Found) {
            const Plan plan = plan_from_steps(m, o.steps);
            EXPECT_DOUBLE_EQ(plan.objective_after - plan.objective_before, c.n);
            expect_valid(m, plan, "find_order");
        }
    }
}

// What `vmcap plan` writes (greedy, annealing, tabu; seeds 1-3) and what `vmcap exact` writes
// (branch and bound; remaps counted) reach the brute-force orderable optimum on every case, and
// validate from scratch. Prints the table: search's best state, plan written, below.
TEST(TightCases, PlansReachTheOrderableOptimum) {
    int below_best = 0, below_optimum = 0, runs = 0, repaired = 0;
    std::printf("%-26s %6s %6s | %-24s | %-24s | %6s | %5s\n", "case", "final*", "order*", "sa best/plan (s1-3)", "tabu best/plan (s1-3)",
                "greedy", "exact");
    // VMCAP_TIGHT_DUMP=dir: also write every case's snapshot there (to run other builds on them).
    const char* dump = std::getenv("VMCAP_TIGHT_DUMP");
    for (const test::TightCase& c : test::tight_suite()) {
        SCOPED_TRACE(c.name());
        const Problem p = test::tight_ring(c.n, c.variant, c.budget, c.free_remaps);
        const CapacityModel m(p);
        const double before = SearchState(m).objective_value();
        const double bf = best_orderable_by_brute_force(m) - before;
        if (dump != nullptr) write_file_atomic(std::string(dump) + "/" + c.name() + ".json", format_json_lines(snapshot_to_json(p)));
        std::string sa_cells, tabu_cells, greedy_cell, exact_cell = "-";
        double greedy_gain = 0;
        for (Algorithm a : {Algorithm::Greedy, Algorithm::Annealing, Algorithm::Tabu})
            for (std::uint64_t seed = 1; seed <= 3; ++seed) {
                if (a == Algorithm::Greedy && seed > 1) continue;
                const OptimizeResult r = optimize(m, params_for(a, seed));
                const double gain = r.plan.objective_after - before;
                expect_valid(m, r.plan, c.name());
                if (a == Algorithm::Greedy) {
                    greedy_gain = gain;
                    greedy_cell = std::to_string(static_cast<int>(gain));
                    continue;
                }
                EXPECT_GE(gain, greedy_gain);
                EXPECT_DOUBLE_EQ(gain, bf) << (a == Algorithm::Annealing ? "sa" : "tabu") << " seed " << seed;
                ++runs;
                below_optimum += gain < bf;
                below_best += r.plan.objective_after < r.search_best_objective;
                repaired += r.repair_rounds > 0;
                const std::string cell =
                    std::to_string(static_cast<int>(r.search_best_objective - before)) + "/" + std::to_string(static_cast<int>(gain)) + " ";
                (a == Algorithm::Annealing ? sa_cells : tabu_cells) += cell;
            }
        if (!c.free_remaps) {
            BranchBoundParams bp;
            bp.time_limit_s = 60;
            const ExactResult ex = solve_exact_bb(m, bp);
            EXPECT_TRUE(ex.proven);
            EXPECT_DOUBLE_EQ(ex.objective - before, bf);
            // What vmcap exact writes: the builder's order of that state, else find_order's.
            Plan plan = build_plan(m, ex.best);
            if (plan.objective_after < ex.objective) plan = plan_from_steps(m, find_order(m, ex.best).steps);
            EXPECT_DOUBLE_EQ(plan.objective_after, ex.objective);
            expect_valid(m, plan, "exact");
            // Over final states (the MILP's model) the optimum is the rotation's: +n.
            bp.orderable_only = false;
            EXPECT_DOUBLE_EQ(solve_exact_bb(m, bp).objective - before, c.n);
            exact_cell = std::to_string(static_cast<int>(ex.objective - before));
        }
        std::printf("%-26s %6d %6d | %-24s | %-24s | %6s | %5s\n", c.name().c_str(), c.n, static_cast<int>(bf), sa_cells.c_str(),
                    tabu_cells.c_str(), greedy_cell.c_str(), exact_cell.c_str());
    }
    std::printf("annealing + tabu runs: %d; plan below the search's best state: %d; below the orderable optimum: %d; repaired: %d\n", runs,
                below_best, below_optimum, repaired);
    EXPECT_EQ(below_optimum, 0);
}

// find_order's limit: with too few expansions to decide, it says Unknown (never a wrong answer),
// and the branch and bound then reports its result as not proven.
TEST(TightCases, OrderingLimitGivesUnknownAndAnUnprovenExactResult) {
    const Problem p = test::tight_ring(4, test::TightVariant::Spare, 5, false);  // the rotation needs 5 steps
    const CapacityModel m(p);
    std::vector<Placement> rotation = test::tight_rotation(p, 4);
    EXPECT_EQ(find_order(m, rotation, 1).status, OrderStatus::Unknown);
    EXPECT_EQ(find_order(m, rotation).status, OrderStatus::Found);
    BranchBoundParams bp;
    bp.max_order_expansions = 1;
    bp.warm_start_evaluations = -1;  // from the snapshot: the search itself meets the rotation
    const ExactResult ex = solve_exact_bb(m, bp);
    EXPECT_FALSE(ex.proven);
    EXPECT_EQ(to_string(ex.stopped_by), "ordering search limit");
    EXPECT_GE(ex.bound, 4.0 + SearchState(m).objective_value());  // the bound still covers every final state
    Placement twice = rotation[0];
    rotation.push_back(twice);
    EXPECT_THROW(find_order(m, rotation), std::invalid_argument);
}

// Repair rounds are deterministic: the same seed and thread count give the same steps, at 1 and
// 2 threads, on cases where the first search's best state has no order within the budget.
TEST(TightCases, RepairRoundsAreDeterministic) {
    int with_repair = 0;
    for (const test::TightCase& c : test::tight_suite()) {
        if (c.variant == test::TightVariant::Closed) continue;
        const Problem p = test::tight_ring(c.n, c.variant, c.budget, c.free_remaps);
        const CapacityModel m(p);
        for (int threads : {1, 2}) {
            OptimizeParams op = params_for(Algorithm::Annealing, 7);
            op.search.threads = threads;
            const OptimizeResult a = optimize(m, op), b = optimize(m, op);
            with_repair += a.repair_rounds > 0;
            ASSERT_EQ(a.plan.steps.size(), b.plan.steps.size()) << c.name();
            for (std::size_t i = 0; i < a.plan.steps.size(); ++i) {
                EXPECT_EQ(a.plan.steps[i].vm, b.plan.steps[i].vm);
                EXPECT_EQ(a.plan.steps[i].to_host, b.plan.steps[i].to_host);
                EXPECT_EQ(a.plan.steps[i].to_pnuma, b.plan.steps[i].to_pnuma);
            }
            EXPECT_EQ(a.repair_rounds, b.repair_rounds);
        }
    }
    EXPECT_GE(with_repair, 4);
}

// The command line on the swap pair whose detour through the destination's other node is one
// step over the budget: both exact methods used to prove the swap's
// +2 and write 0 steps. Now bb proves +1 over plans and writes it; milp still finds the final
// state +2, reports it not proven for plans and writes the best ordered plan (+1); plan writes +1
// too (its search's best state is the swap), and validate accepts all three from scratch.
TEST(TightCasesCli, ExactAndPlanWriteWhatAPlanReaches) {
    const Problem p = test::tight_ring(2, test::TightVariant::NumaDetour, 2, false);
    const std::string snap = (test::tmp_dir() / "tight-swap.json").string();
    write_file_atomic(snap, format_json_lines(snapshot_to_json(p)));
    for (const char* cmd : {"exact --method bb", "exact --method milp", "plan --quiet --move-mix remap=0.05"}) {
        SCOPED_TRACE(cmd);
        const std::string out = (test::tmp_dir() / "tight-swap-plan.json").string();
        std::filesystem::remove(out);
        const test::CmdResult r = test::run_vmcap(std::string(cmd) + " --cluster " + snap + " --out " + out);
        ASSERT_EQ(r.code, 0) << r.err;
        const auto doc = nlohmann::json::parse(read_text_file(out));
        EXPECT_DOUBLE_EQ(doc["objective_after"].get<double>() - doc["objective_before"].get<double>(), 1.0);
        EXPECT_EQ(doc["steps"].size(), 2U);
        if (std::string(cmd) == "exact --method bb") {
            EXPECT_TRUE(doc["search"]["proven_optimal"].get<bool>());
        } else if (std::string(cmd) == "exact --method milp") {
            EXPECT_FALSE(doc["search"]["proven_optimal"].get<bool>());
            EXPECT_DOUBLE_EQ(doc["search"]["optimum"].get<double>() - doc["objective_before"].get<double>(), 2.0);
            EXPECT_NE(r.out.find("no plan within the budget reaches that state"), std::string::npos) << r.out;
        } else {
            EXPECT_DOUBLE_EQ(doc["search"]["best_state_objective"].get<double>() - doc["objective_before"].get<double>(), 2.0);
            EXPECT_EQ(doc["search"]["dropped_moves"].get<int>(), 1);  // the blocked move, retargeted
        }
        const test::CmdResult v = test::run_vmcap("validate --cluster " + snap + " --plan " + out);
        EXPECT_EQ(v.code, 0) << v.out << v.err;
    }
}

}  // namespace
}  // namespace vmcap

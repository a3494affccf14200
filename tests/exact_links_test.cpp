// vmcap exact with the link-capacity rule: on tiny networked snapshots (3-4 hosts on a
// leaf-spine, 6-8 VMs, about 10-20 vlinks, budgets 1-3) the branch and bound (exact_bb.h) and the MILP
// (exact.h) equal an independent brute force over every final state within the budget whose link
// loads, recomputed from scratch, respect max(capacity, snapshot load); how often the rule binds
// (the optimum without it is higher) and the annealing pipeline reaches the
// optimum (the target is >= 95%; with remaps in the move mix, see below); every plan built passes
// `validate`.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "evaluators/network/network_load.h"
#include "evaluators/rules/link_filter.h"
#include "evaluators/state/search_state.h"
#include "instances/snapshot_io.h"
#include "optimizer/solvers/exact.h"
#include "optimizer/solvers/exact_bb.h"
#include "optimizer/solvers/optimize.h"
#include "optimizer/plan/plan.h"
#include "optimizer/plan/validate.h"
#include "tests/cli_run.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

using test::name;

/**
 * `hosts` hosts of topology `topo` (K1: one pNUMA node of 8 vCPU / 32 GiB; else 4 vCPU / 16 GiB
 * per node); flavors 1c4g (K1, weight 0), 2c8g (K1, 1), 4c16g (K2, or K1 on K1 hosts; 1.5) and on
 * >= 4-node hosts 8c32g (K4, 2); exactly `vms` VMs at random feasible placements, every second
 * one first tried on the host of the one before (VMs come in pairs that talk); one in seven not
 * migratable. Network: test::add_leaf_spine (host h on ToR h mod 3, two spines, NICs of 50 Mbps,
 * ToR-spine links of 500 Mbps), the first half of its random vlinks (100..399 Mbps), and a vlink
 * of 100..399 Mbps between every two VMs that share a host. NICs below every vlink make the rule
 * bind: no NIC may carry more than in the snapshot, so a VM leaves its partners only if that
 * does not load any NIC more (or they move with it).
 */
Problem networked(const std::string& topo, int hosts, int vms, std::int64_t budget, std::uint64_t seed) {
    Problem p;
    p.resources = {"vcpu", "ram_mib"};
    const Amount node_vcpu = parse_topology(topo).size() == 1 ? 8 : 4;
    p.host_types.push_back(test::small_host_type(topo, topo, node_vcpu, node_vcpu * 4 * 1024));
    for (int h = 0; h < hosts; ++h) p.hosts.push_back(Host{name("h", h), 0, name("tor", h % 3), "p0", ""});  // rack = its ToR
    const int n = p.host_types[0].num_nodes();
    test::add_flavor(p, "1c4g", 1, 4, "K1", 0.0);
    test::add_flavor(p, "2c8g", 2, 8, "K1", 1.0);
    test::add_flavor(p, "4c16g", 4, 16, n == 1 ? "K1" : "K2", 1.5);
    if (n >= 4) test::add_flavor(p, "8c32g", 8, 32, "K4", 2.0);
    std::mt19937_64 rng(seed);
    test::RandomPlacing how;
    how.attempts = 1000;
    how.max_vms = vms;
    how.host = [&](std::mt19937_64& g, int attempt) {
        const int h = static_cast<int>(g() % static_cast<std::uint64_t>(hosts));
        return p.vms.size() % 2 == 1 && attempt % 50 != 49 ? p.vms.back().host : h;  // the partner's host
    };
    test::place_at_random(p, rng, how);
    p.constraints.max_migrations = budget;
    finalize_problem(p, "<networked>");
    test::add_leaf_spine(p, seed * 31 + 7, 50, 500, 100, 300);
    p.vlinks.resize(p.vlinks.size() / 2);
    const int V = static_cast<int>(p.vms.size());
    for (int a = 0; a < V; ++a)
        for (int b = a + 1; b < V; ++b)
            if (p.vms[a].host == p.vms[b].host) p.vlinks.push_back(Vlink{a, b, 100 + static_cast<std::int64_t>(rng() % 300), -1});
    return p;
}

/**
 * Best objective (score units) over every final state: each set M of at most max_migrations
 * migratable VMs (RAM within max_migrated_ram_mib) leaves its nodes, then every assignment of M's
 * VMs to a (host, node set) other than their own is tried, node capacities checked by hand. With
 * `links`, a final state counts only if link_loads() of its hosts (a route table of its own) keeps
 * every link within max(capacity, snapshot load). Value: sum_f w_f x sum_h VMCAP through
 * CapacityModel::host_capacity. Nothing of SearchState, the filter or the solvers.
 */
Score brute_force(const CapacityModel& m, bool links) {
    const Problem& p = m.problem();
    const NetworkRoutes routes(p);
    std::vector<int> snapshot_host(p.vms.size());
    for (std::size_t v = 0; v < p.vms.size(); ++v) snapshot_host[v] = p.vms[v].host;
    const std::vector<std::int64_t> snapshot = link_loads(p, routes, snapshot_host);
    Score best = std::numeric_limits<Score>::min();
    test::for_each_final_state(m, [&](const std::vector<std::vector<Amount>>& free, const std::vector<int>& host) {
        if (links) {
            const auto load = link_loads(p, routes, host);
            for (int l = 0; l < routes.num_links(); ++l)
                if (load[l] > std::max(routes.capacity(l), snapshot[l])) return;
        }
        Score s = 0;
        for (std::size_t f = 0; f < p.flavors.size(); ++f)
            for (std::size_t h = 0; h < p.hosts.size(); ++h)
                s += weight_units(p.flavors[f].weight) * m.host_capacity(p.hosts[h].type, static_cast<int>(f), free[h].data());
        best = std::max(best, s);
    });
    return best;
}

using test::cold_bb;

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/** Builds the plan of `best`, validates it independently and returns its objective_after. */
double validated_plan(const CapacityModel& m, const std::vector<Placement>& best) {
    const Plan plan = build_plan(m, best);
    const auto doc = nlohmann::json::parse(plan_to_json(m.problem(), plan, PlanInfo{}).dump());
    const PlanCheck check = validate_plan(m, doc, "<plan>");
    EXPECT_TRUE(check.ok) << check.error;
    EXPECT_DOUBLE_EQ(check.objective_after, plan.objective_after);
    return plan.objective_after;
}

struct Case {
    const char* topo;
    int hosts, vms;
    std::int64_t budget;
};

// 30 instances: one-, two- and four-node hosts, 3..4 hosts, 6..8 VMs, budgets 1..3 (each
// topology with each budget).
std::vector<Case> cases() {
    const char* topos[] = {"K1", "K2", "K4"};
    std::vector<Case> out;
    for (int i = 0; i < 30; ++i) out.push_back(Case{topos[i % 3], 3 + (i / 3) % 2, 6 + (i / 2) % 3, 1 + (i / 6) % 3});
    return out;
}

TEST(ExactLinks, BranchBoundAndMilpEqualBruteForceAndAnnealingReachesIt) {
    const auto cs = cases();
    int binding = 0, anneal_hits = 0, default_hits = 0, plan_hits = 0, exact_plan_full = 0;
    std::printf("%4s %4s %5s %3s %3s %6s | %9s %9s | %8s %8s %9s | %s\n", "case", "topo", "hosts", "vms", "B", "vlinks", "opt-links",
                "opt-free", "bb ms", "milp ms", "milp cols", "anneal (remap 0.05 / default mix)");
    for (std::size_t i = 0; i < cs.size(); ++i) {
        const Case& c = cs[i];
        const Problem p = networked(c.topo, c.hosts, c.vms, c.budget, 1000 + i);
        SCOPED_TRACE(name("case ", static_cast<int>(i)));
        ASSERT_EQ(static_cast<int>(p.vms.size()), c.vms);
        const CapacityModel m(p);
        ASSERT_TRUE(m.has_filters());
        Problem free_p = p;  // the same snapshot without vlinks: no link rule
        free_p.vlinks.clear();
        const CapacityModel m_free(free_p);
        ASSERT_FALSE(m_free.has_filters());

        const double bf = to_objective(brute_force(m, true));
        const double bf_free = to_objective(brute_force(m_free, false));
        EXPECT_LE(bf, bf_free);
        if (bf < bf_free) ++binding;

        auto t0 = std::chrono::steady_clock::now();
        const ExactResult bb = solve_exact_bb(m, cold_bb(true));
        const double bb_s = seconds_since(t0);
        EXPECT_TRUE(bb.proven);
        EXPECT_DOUBLE_EQ(bb.objective, bf);
        EXPECT_DOUBLE_EQ(solve_exact_bb(m, cold_bb(false)).objective, bf);  // without symmetry rules
        BranchBoundParams warm;
        warm.time_limit_s = 60;
        warm.warm_start_evaluations = 5000;
        EXPECT_DOUBLE_EQ(solve_exact_bb(m, warm).objective, bf);
        EXPECT_DOUBLE_EQ(solve_exact_bb(m_free, cold_bb(true)).objective, bf_free);

        t0 = std::chrono::steady_clock::now();
        const ExactResult milp = solve_exact(m, 60);
        const double milp_s = seconds_since(t0);
        EXPECT_TRUE(milp.proven);
        EXPECT_DOUBLE_EQ(milp.objective, bf);

        // Plans of both optima: ordered, validated (every step's links and nodes); with links a
        // final state may have no order whose every prefix keeps the links (then fewer steps).
        const double bb_plan = validated_plan(m, bb.best);
        validated_plan(m, milp.best);
        if (bb_plan == bf) ++exact_plan_full;

        OptimizeParams op;
        op.algorithm = Algorithm::Annealing;
        op.search.quiet = true;
        op.search.seed = 1;
        op.search.threads = 1;
        op.search.max_evaluations = 20000;  // 100,000 gives the same hits (measured)
        // The default mix (remap=0.02), then with remaps proposed more often (--move-mix
        // remap=0.05): the misses of a mix without remaps are optima that remap a VM on its own host.
        const bool default_hit = optimize(m, op).search.objective_best == bf;
        default_hits += default_hit;
        op.search.mix.set("remap", 0.05);
        const OptimizeResult r = optimize(m, op);
        const bool hit = r.search.objective_best == bf;
        anneal_hits += hit;
        EXPECT_LE(r.search.objective_best, bf);
        const auto doc = nlohmann::json::parse(plan_to_json(p, r.plan, PlanInfo{}).dump());
        const PlanCheck check = validate_plan(m, doc, "<plan>");
        EXPECT_TRUE(check.ok) << check.error;
        plan_hits += r.plan.objective_after == bf;
        std::printf("%4zu %4s %5d %3d %3lld %6zu | %9.3f %9.3f | %8.2f %8.2f %9d | %s\n", i, c.topo, c.hosts, c.vms,
                    static_cast<long long>(c.budget), p.vlinks.size(), bf, bf_free, bb_s * 1e3, milp_s * 1e3, milp.columns,
                    hit ? (default_hit ? "hit / hit" : "hit / miss") : (default_hit ? "miss / hit" : "miss / miss"));
    }
    const int n = static_cast<int>(cs.size());
    std::printf(
        "instances %d; link rule binds (optimum without links higher) on %d; annealing reaches the optimum on %d/%d "
        "(its plan on %d/%d; with the default mix on %d/%d); the B&B optimum's plan is complete on %d/%d\n",
        n, binding, anneal_hits, n, plan_hits, n, default_hits, n, exact_plan_full, n);
    EXPECT_GE(n, 20);
    // Measured: the rule binds on 10/30 (a third; on such tiny instances an optimum that avoids
    // the links is often as good: a remap, or a VM following its peers). The annealing with
    // remaps in its mix reaches the optimum on 29/30 (target >= 95%; the miss, at budget 1,
    // spent its one slot on another remap). With the default mix: 25/30 while it had remap=0 (the
    // B&B optimum of each of its 5 misses is a same-host remap, which that mix never proposed);
    // 29/30 with remap=0.02.
    EXPECT_GE(4 * binding, n);
    EXPECT_GE(100 * anneal_hits, 95 * n);
    EXPECT_GE(100 * default_hits, 95 * n);
}

/** Both exact solvers (branch and bound, MILP) throw std::invalid_argument containing `message`. */
void expect_both_solvers_refuse(const CapacityModel& m, const std::string& message) {
    for (const auto& solve :
         {std::function<void()>([&] { solve_exact_bb(m, cold_bb(true)); }), std::function<void()>([&] { solve_exact(m, 10); })}) {
        try {
            solve();
            ADD_FAILURE() << "not refused";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
        }
    }
}

TEST(ExactLinks, RefusesOtherTermsWithAClearMessage) {
    Problem p = networked("K2", 4, 6, 2, 5);
    p.objective_terms.emplace_back("ram-cost", 0.5);
    const CapacityModel m(p);
    expect_both_solvers_refuse(m, "objective term 'ram-cost' is not modelled");
}

// The solvers model the model's own link rule (CapacityModel::find<LinkCapacityFilter>(), no cast
// to a concrete class) and refuse any other filter -- here a drain, beside the link rule -- by name.
TEST(ExactLinks, RefusesOtherFiltersByName) {
    const Problem p = networked("K2", 4, 6, 2, 5);
    CapacityModel m(p);
    ASSERT_NE(m.find<LinkCapacityFilter>(), nullptr);
    EXPECT_NO_THROW(solve_exact_bb(m, cold_bb(true)));
    m.add_filter(std::make_unique<test::DrainFilter>(0));
    expect_both_solvers_refuse(m, "feasibility filter 'drain' is not modelled");
}

TEST(ExactLinks, CliWritesAValidPlanWithBothMethods) {
    using test::run_vmcap;
    using test::tmp_dir;
    const Problem p = networked("K4", 4, 7, 2, 1003);
    const std::string snap = (tmp_dir() / "exact_links_snap.json").string();
    write_file_atomic(snap, format_json_lines(snapshot_to_json(p)));
    const CapacityModel m(p);
    const double optimum = to_objective(brute_force(m, true));
    for (const char* method : {"bb", "milp"}) {
        std::string plan = (tmp_dir() / "exact_links_plan_").string();
        plan += method;
        plan += ".json";
        std::string args = "exact --method ";
        args += method;
        args += " --migration-network separate --cluster " + snap + " --out " + plan;  // the links are full: copies elsewhere
        const auto r = run_vmcap(args);
        ASSERT_EQ(r.code, 0) << r.err;
        const auto doc = nlohmann::json::parse(read_text_file(plan));
        EXPECT_EQ(doc["search"]["proven_optimal"], true) << method;
        EXPECT_DOUBLE_EQ(doc["search"]["optimum"].get<double>(), optimum) << method;
        const auto v = run_vmcap("validate --cluster " + snap + " --plan " + plan);
        EXPECT_EQ(v.code, 0) << method << v.err;
    }
}

// `exact --method milp` on a generated 12-host tree network with 96 vlinks
// crashed (SIGSEGV in CBC's CglPreProcess::postProcess when its time limit stopped the root, at
// --time-limit 4-5) or overran its limit (7.5 s at --time-limit 1-3: the model build appended
// rows one by one). Now every limit ends with exit 0 within limit + max(5 s, 10%), the plan
// validates, and the optimum is the branch and bound's when proven.
TEST(ExactLinks, MilpOnAGeneratedTreeNetworkHoldsItsTimeLimit) {
    using test::run_vmcap;
    using test::tmp_dir;
    const std::string snap = (tmp_dir() / "exact_links_tree12.json").string();
    ASSERT_EQ(run_vmcap("generate --hosts 12 --vms 96 --seed 9 --network tree --hosts-per-rack 3 --vdc-size 3 --host-type CQ3 "
                        "--nic-mbps 5000 --tor-uplink-mbps 10000 --agg-uplink-mbps 5000 --racks-per-pod 3 --bpc 20 --out " +
                        snap)
                  .code,
              0);
    const std::string bb_plan = (tmp_dir() / "exact_links_tree12_bb.json").string();
    ASSERT_EQ(run_vmcap("exact --cluster " + snap + " --method bb --max-migrations 1 --out " + bb_plan).code, 0);
    const double optimum = nlohmann::json::parse(read_text_file(bb_plan))["search"]["optimum"].get<double>();
    for (const char* limit : {"0.4", "1", "5"}) {
        SCOPED_TRACE(limit);
        const std::string plan = (tmp_dir() / "exact_links_tree12_milp.json").string();
        const auto t0 = std::chrono::steady_clock::now();
        const auto r = run_vmcap("exact --cluster " + snap + " --method milp --max-migrations 1 --time-limit " + limit + " --out " + plan);
        const double s = seconds_since(t0);
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_LE(s, std::stod(limit) + 5.0);
        const auto doc = nlohmann::json::parse(read_text_file(plan));
        EXPECT_LE(doc["search"]["optimum"].get<double>(), optimum);
        if (doc["search"]["proven_optimal"].get<bool>()) {
            EXPECT_DOUBLE_EQ(doc["search"]["optimum"].get<double>(), optimum);
        }
        EXPECT_EQ(run_vmcap("validate --cluster " + snap + " --plan " + plan).code, 0);
    }
}

// The same generator at 30 hosts, budget 3: the MILP printed nothing in 240 s; the
// branch and bound proves it in a fraction of a second. Its link rule cannot bind (20 Mbps
// vlinks, 5,000 Mbps NICs), so the MILP is the model without a network and proves the optimum
// well within its 60 s (2.7 s measured at load 8-12).
TEST(ExactLinks, MilpProvesTheThirtyHostTreeCase) {
    using test::run_vmcap;
    using test::tmp_dir;
    const std::string snap = (tmp_dir() / "exact_links_tree30.json").string();
    ASSERT_EQ(run_vmcap("generate --hosts 30 --vms 96 --seed 9 --network tree --hosts-per-rack 3 --vdc-size 3 --host-type CQ3 "
                        "--nic-mbps 5000 --tor-uplink-mbps 10000 --agg-uplink-mbps 5000 --racks-per-pod 3 --bpc 20 --out " +
                        snap)
                  .code,
              0);
    const std::string bb_plan = (tmp_dir() / "exact_links_tree30_bb.json").string();
    ASSERT_EQ(run_vmcap("exact --cluster " + snap + " --method bb --max-migrations 3 --out " + bb_plan).code, 0);
    const double optimum = nlohmann::json::parse(read_text_file(bb_plan))["search"]["optimum"].get<double>();
    const std::string plan = (tmp_dir() / "exact_links_tree30_milp.json").string();
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = run_vmcap("exact --cluster " + snap + " --method milp --max-migrations 3 --time-limit 60 --out " + plan);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_LE(seconds_since(t0), 66.0);
    const auto doc = nlohmann::json::parse(read_text_file(plan));
    EXPECT_TRUE(doc["search"]["proven_optimal"].get<bool>()) << r.out;
    EXPECT_DOUBLE_EQ(doc["search"]["optimum"].get<double>(), optimum);
    EXPECT_EQ(run_vmcap("validate --cluster " + snap + " --plan " + plan).code, 0);
}

}  // namespace
}  // namespace vmcap

// Nova's NUMA cell fitting in vmcap's model (instances/nova_numa.h, evaluators/rules/nova_node_rule.h).
// Oracles: Nova's own code (tests/nova_oracle.py writes cases with nova.virt.hardware's answers,
// NovaNumaOracle reads them), hand-made host states whose Nova answer is worked out in the test,
// and the test's own replay of Nova's choice (nova_place on cells it builds from the snapshot)
// and of Nova's boot-until-NoValidHost count for every step and capacity the engine reports.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "evaluators/rules/nova_node_rule.h"
#include "evaluators/state/capacity_model.h"
#include "evaluators/state/cluster_capacity.h"
#include "evaluators/state/search_state.h"
#include "instances/nova_numa.h"
#include "instances/openstack.h"
#include "instances/snapshot_io.h"
#include "optimizer/plan/plan.h"
#include "optimizer/plan/validate.h"
#include "optimizer/solvers/optimize.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

NovaFit place(const std::vector<NovaCell>& cells, int k, Amount v, Amount m, NovaSettings s) {
    return nova_place(cells, k, v, m, s);
}

// The cases tests/nova_oracle.py writes, each with nova.virt.hardware's answer.
TEST(NovaNumaOracle, CellChoiceEqualsNovasOnItsCases) {
    const char* path = std::getenv("VMCAP_NOVA_CASES");
    if (path == nullptr) GTEST_SKIP() << "VMCAP_NOVA_CASES not set: run by tests/nova_oracle.py (CTest nova_oracle)";
    std::ifstream in(path);
    ASSERT_TRUE(in) << path;
    int cases = 0, wrong = 0;
    for (std::string line; std::getline(in, line);) {
        const auto c = nlohmann::json::parse(line);
        std::vector<NovaCell> cells;
        for (const auto& x : c["cells"]) cells.push_back(NovaCell{x[0], x[1], x[2], x[3]});
        NovaSettings s;
        s.cpu_allocation_ratio = c["cpu_allocation_ratio"];
        s.ram_allocation_ratio = c["ram_allocation_ratio"];
        s.reserved_host_memory_mb = c["reserved_host_memory_mb"];
        s.pack = c["pack"];
        const int k = c["k"];
        const NovaFit got = place(cells, k, c["vcpus"], c["memory_mib"], s);
        nlohmann::json mine = nullptr;
        if (got.found) {
            mine = nlohmann::json::array();
            for (int i = 0; i < k; ++i) mine.push_back(got.cells[i]);
        }
        ++cases;
        if (mine != c["nova"]) {
            ++wrong;
            if (wrong <= 5) ADD_FAILURE() << "case " << cases << ": " << line << "\n  vmcap: " << mine.dump();
        }
    }
    EXPECT_GT(cases, 1000);
    EXPECT_EQ(wrong, 0) << "of " << cases;
}

NovaCell cell(Amount p, Amount m, Amount cu, Amount mu) {
    return NovaCell{p, m, cu, mu};
}

TEST(NovaNuma, SpreadAndPackOrders) {
    NovaSettings spread, pack;
    pack.pack = true;
    spread.reserved_host_memory_mb = pack.reserved_host_memory_mb = 0;
    // Cell 0 busier (the issue's observation): spread takes cell 1, pack cell 0.
    const std::vector<NovaCell> two = {cell(8, 16384, 4, 8192), cell(8, 16384, 0, 0)};
    EXPECT_EQ(place(two, 1, 2, 4096, spread).cells[0], 1);
    EXPECT_EQ(place(two, 1, 2, 4096, pack).cells[0], 0);
    // As many cells as the instance: no sort, id order.
    const NovaFit both = place(two, 2, 2, 4096, spread);
    ASSERT_TRUE(both.found);
    EXPECT_EQ(both.cells[0], 0);
    EXPECT_EQ(both.cells[1], 1);
    // Equal vCPU use: spread by most free memory, pack by least; full ties: lowest id both ways.
    const std::vector<NovaCell> three = {cell(8, 16384, 2, 4096), cell(8, 16384, 2, 1024), cell(8, 16384, 2, 4096)};
    EXPECT_EQ(place(three, 1, 1, 512, spread).cells[0], 1);
    EXPECT_EQ(place(three, 1, 1, 512, pack).cells[0], 0);
    const std::vector<NovaCell> tied = {cell(8, 16384, 2, 4096), cell(8, 16384, 2, 4096), cell(8, 16384, 2, 4096)};
    EXPECT_EQ(place(tied, 1, 1, 512, spread).cells[0], 0);
    EXPECT_EQ(place(tied, 1, 1, 512, pack).cells[0], 0);
    // The first fitting cells of the order: cell 1 (least used) lacks memory, so 0 then 2.
    const std::vector<NovaCell> four = {cell(8, 8192, 2, 0), cell(8, 8192, 0, 7168), cell(8, 8192, 3, 0), cell(8, 8192, 4, 0)};
    const NovaFit f = place(four, 2, 1, 2048, spread);
    ASSERT_TRUE(f.found);
    EXPECT_EQ(f.cells[0], 0);
    EXPECT_EQ(f.cells[1], 2);
    // Per cell, no ratio on the instance itself: a 9-vCPU cell on 8 pCPUs never fits, whatever the ratio.
    NovaSettings over = spread;
    over.cpu_allocation_ratio = 4.0;
    EXPECT_FALSE(place(two, 1, 9, 512, over).found);
    EXPECT_TRUE(place(two, 1, 8, 512, over).found);
    // Placement's host-level reserve: 2 x 16384 - 512 MiB leaves room for 31 GiB and a half in all.
    NovaSettings reserved = spread;
    reserved.reserved_host_memory_mb = 512;
    const std::vector<NovaCell> used = {cell(8, 16384, 0, 16384), cell(8, 16384, 0, 15360)};
    EXPECT_FALSE(place(used, 1, 1, 1024, reserved).found);
    EXPECT_TRUE(place(used, 1, 1, 512, reserved).found);
}

TEST(NovaNuma, CapacityOfACellIsInvertible) {
    for (double r : {0.5, 1.0, 1.5, 4.0, 16.0})
        for (Amount p = 1; p < 300; ++p) {
            const Amount c = nova_capacity_of(p, r);
            const Amount back = nova_physical_of(c, r);
            ASSERT_GT(back, 0) << p << " x " << r;
            EXPECT_EQ(nova_capacity_of(back, r), c);
            if (r >= 1.0) EXPECT_EQ(back, p);
        }
    EXPECT_EQ(nova_physical_of(2, 1.5), -1);  // floor(1 x 1.5) = 1, floor(2 x 1.5) = 3
}

/** A random fragmented snapshot of K<n> hosts under `rule` (ratios 1, 512 MiB reserved). */
Problem nova_problem(std::uint64_t seed, const char* topo, const char* rule, int hosts = 10, std::int64_t budget = 8) {
    test::RandomCluster rc;
    rc.host_topology = topo;
    rc.hosts = hosts;
    rc.fill = 0.6;
    rc.max_migrations = budget;
    rc.seed = seed;
    Problem p = test::make_random_problem(rc);
    p.node_rule.name = rule;
    return p;
}

/** The test's own Nova: cells of host h from the usage tables (ratios 1: capacity = physical). */
std::vector<NovaCell> cells_of(const Problem& p, const std::vector<Amount>& used, int h) {
    const HostType& ht = p.host_type_of(h);
    std::vector<NovaCell> c;
    for (int i = 0; i < ht.num_nodes(); ++i)
        c.push_back(cell(ht.node_capacity[i * 2], ht.node_capacity[i * 2 + 1], used[i * 2], used[i * 2 + 1]));
    return c;
}

/** Boot flavor f on host h's cells until Nova refuses. */
Count boots(const Problem& p, std::vector<NovaCell> c, int f, const NovaSettings& s) {
    const Flavor& fl = p.flavors[f];
    Count n = 0;
    for (NovaFit fit; (fit = place(c, fl.num_vnuma(), fl.node_demand[0], fl.node_demand[1], s)).found; ++n)
        for (int i = 0; i < fl.num_vnuma(); ++i)
            c[fit.cells[i]].cpu_usage += fl.node_demand[0], c[fit.cells[i]].memory_usage += fl.node_demand[1];
    return n;
}

/** Weighted objective (score units) of the usage tables under Nova's count. */
Score nova_objective(const Problem& p, const std::vector<std::vector<Amount>>& usage, const NovaSettings& s) {
    Score obj = 0;
    for (std::size_t f = 0; f < p.flavors.size(); ++f) {
        if (!p.flavors[f].is_target()) continue;
        Count total = 0;
        for (std::size_t h = 0; h < p.hosts.size(); ++h)
            total += boots(p, cells_of(p, usage[h], static_cast<int>(h)), static_cast<int>(f), s);
        obj += weight_units(p.flavors[f].weight) * total;
    }
    return obj;
}

/** Steps of `plan` whose destination nodes are not Nova's choice on the state the earlier steps leave. */
int steps_off_nova(const Problem& p, const Plan& plan, const NovaSettings& s) {
    auto usage = compute_node_usage(p);
    int off = 0;
    for (const PlanStep& st : plan.steps) {
        const Flavor& fl = p.flavors[p.vms[st.vm].flavor];
        const int k = fl.num_vnuma();
        for (int i = 0; i < k; ++i)
            for (int r = 0; r < 2; ++r) usage[st.from_host][st.from_pnuma[i] * 2 + r] -= fl.node_demand[r];
        const NovaFit want = place(cells_of(p, usage[st.to_host], st.to_host), k, fl.node_demand[0], fl.node_demand[1], s);
        off += !want.found || node_mask(want.cells.data(), k) != node_mask(st.to_pnuma.data(), k) || st.from_host == st.to_host ? 1 : 0;
        for (int i = 0; i < k; ++i)
            for (int r = 0; r < 2; ++r) usage[st.to_host][st.to_pnuma[i] * 2 + r] += fl.node_demand[r];
    }
    return off;
}

OptimizeParams search(Algorithm a, std::uint64_t seed) {
    OptimizeParams op;
    op.algorithm = a;
    op.search.threads = 1;
    op.search.max_evaluations = 30000;
    op.search.time_limit_s = 1e9;
    op.search.quiet = true;
    op.search.seed = seed;
    return op;
}

TEST(NovaNodeRule, RegisteredAndCountsLikeNova) {
    for (const char* rule : {"nova-spread", "nova-pack"})
        for (const char* topo : {"K2", "K4"})
            for (std::uint64_t seed = 1; seed <= 3; ++seed) {
                const Problem p = nova_problem(seed, topo, rule);
                ASSERT_EQ(node_rule_problem_error(p), "");
                const CapacityModel m(p);
                ASSERT_EQ(m.node_rule().name(), rule);
                ASSERT_NE(m.find<NovaNodeRule>(), nullptr);
                EXPECT_TRUE(m.counts_by_rule());
                const NovaSettings s = nova_settings(p.node_rule);
                const auto usage = compute_node_usage(p);
                // cluster_capacity and the search state's objective: Nova's count, never above VMCAP.
                const ClusterCapacity cc = cluster_capacity(m, usage);
                const Problem free_p = [&] {
                    Problem q = p;
                    q.node_rule = NodeRuleSpec{};
                    return q;
                }();
                const CapacityModel free_m(free_p);
                const ClusterCapacity fc = cluster_capacity(free_m, usage);
                for (std::size_t h = 0; h < p.hosts.size(); ++h)
                    for (std::size_t f = 0; f < p.flavors.size(); ++f) {
                        EXPECT_EQ(cc.cap[h * cc.F + f], boots(p, cells_of(p, usage[h], static_cast<int>(h)), static_cast<int>(f), s))
                            << rule << " " << topo << " seed " << seed << " host " << h << " flavor " << p.flavors[f].name;
                        EXPECT_LE(cc.cap[h * cc.F + f], fc.cap[h * fc.F + f]);
                    }
                const SearchState st(m);
                EXPECT_FALSE(st.per_target_caches());
                EXPECT_EQ(st.objective(), nova_objective(p, usage, s));
            }
}

TEST(NovaNodeRule, PlansTakeNovasCellsCountNovasCapacityAndValidate) {
    int free_off = 0, gains = 0;
    for (const char* rule : {"nova-spread", "nova-pack"})
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            const Problem p = nova_problem(seed, "K4", rule);
            const CapacityModel m(p);
            const NovaSettings s = nova_settings(p.node_rule);
            Problem free_p = p;
            free_p.node_rule = NodeRuleSpec{};
            const CapacityModel free_m(free_p);
            for (Algorithm a : {Algorithm::Greedy, Algorithm::Annealing, Algorithm::Tabu}) {
                const OptimizeResult r = optimize(m, search(a, seed));
                EXPECT_EQ(steps_off_nova(p, r.plan, s), 0) << rule << " seed " << seed;
                EXPECT_EQ(r.plan.score_before, nova_objective(p, compute_node_usage(p), s));
                // The plan's end state, counted by the test's own Nova.
                Problem end = p;
                for (const PlanStep& st : r.plan.steps) {
                    end.vms[st.vm].host = st.to_host;
                    end.vms[st.vm].pnuma = st.to_pnuma;
                }
                EXPECT_EQ(r.plan.score_after, nova_objective(p, compute_node_usage(end), s)) << rule << " seed " << seed;
                gains += r.plan.score_after > r.plan.score_before ? 1 : 0;
                const PlanCheck ok = validate_plan(m, nlohmann::json::parse(plan_to_json(p, r.plan, PlanInfo{}).dump()), "p");
                EXPECT_TRUE(ok.ok) << ok.error;
            }
            // A plan of the free choice: validate under Nova names its first step off Nova's cells.
            const OptimizeResult fr = optimize(free_m, search(Algorithm::Annealing, seed));
            const int off = steps_off_nova(p, fr.plan, s);
            free_off += off;
            if (off == 0) continue;
            const PlanCheck bad = validate_plan(m, nlohmann::json::parse(plan_to_json(p, fr.plan, PlanInfo{}).dump()), "p");
            ASSERT_FALSE(bad.ok);
            // Its stated objective (the free choice's count) or its nodes: whichever validate meets first.
            EXPECT_TRUE(bad.error.find(std::string("is not what the destination-node rule \"") + rule + "\" assigns on host") !=
                            std::string::npos ||
                        bad.error.find("score_after is") != std::string::npos)
                << bad.error;
        }
    EXPECT_GT(gains, 0) << "no plan gained: the test checks nothing";
    EXPECT_GT(free_off, 0) << "the free choice always took Nova's cells: the rule has nothing to enforce";
}

TEST(NovaNodeRule, SnapshotRoundTripAndRefusals) {
    Problem p = nova_problem(1, "K2", "nova-pack");
    p.node_rule.cpu_allocation_ratio = 1.0;
    p.node_rule.reserved_host_memory_mb = 2048;
    const Problem back = parse_snapshot(nlohmann::json::parse(snapshot_to_json(p).dump()), "s.json");
    EXPECT_EQ(back.node_rule, p.node_rule);
    const auto refuse = [&](auto edit) {
        auto doc = nlohmann::json::parse(snapshot_to_json(p).dump());
        edit(doc);
        try {
            parse_snapshot(doc, "s.json");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_EQ(refuse([](auto& d) { d["node_rule"]["name"] = "nova"; }),
              "s.json: node_rule.name: unknown destination-node rule \"nova\" (known: free, nova-spread, nova-pack)");
    EXPECT_EQ(refuse([](auto& d) { d["node_rule"]["cpu_allocation_ratio"] = 0; }),
              "s.json: node_rule.cpu_allocation_ratio: expected a number in (0, 1000]");
    EXPECT_EQ(refuse([](auto& d) { d["node_rule"]["colour"] = 1; }), "s.json: node_rule: unknown key \"colour\"");
    EXPECT_EQ(refuse([](auto& d) {
                  d["node_rule"]["cpu_allocation_ratio"] = 3.0;
              }).rfind("s.json: host_types[0] (name \"K2-test\"): node 1's vcpu capacity 16 is", 0),
              0U);
    Problem c4 = nova_problem(1, "C4", "nova-spread");
    EXPECT_NE(node_rule_problem_error(c4).find(
                  "host_types[0] (name \"C4-test\").pnuma: the node rule \"nova-spread\" needs a complete pNUMA graph"),
              std::string::npos);
}

OpenStackInput os_json(const char* text, const char* file) {
    return OpenStackInput{nlohmann::json::parse(text), file};
}

const char* kHypervisors = R"([{"Hypervisor Hostname": "c1", "State": "up", "vCPUs": 16, "Memory MB": 32768}])";
const char* kFlavors = R"([{"Name": "one4", "VCPUs": 4, "RAM": 8192, "Properties": {}},
                           {"Name": "two8", "VCPUs": 8, "RAM": 16384, "Properties": {"hw:numa_nodes": "2"}}])";

Problem import_with(const char* servers, const char* rule, Amount reserved = 512) {
    OpenStackOptions o;
    o.node_rule = rule;
    o.reserved_host_memory_mb = reserved;
    return import_openstack(os_json(kHypervisors, "h.json"), os_json(servers, "s.json"), os_json(kFlavors, "f.json"), nullptr, o);
}

TEST(NovaImport, ServersTakeNovasCells) {
    // "big" (4 vCPU) first on cell 0; the next 1-cell server goes to cell 1 under Nova's spread
    // (cell 0 is busier), to cell 0 under pack and under vmcap's first fit. Listed as Nova lists,
    // newest first: "next" (vms[0]) before "big" (vms[1]), replayed from the list's end.
    const char* servers = R"([{"ID": "next", "Status": "ACTIVE", "Host": "c1", "Flavor Name": "one4"},
                              {"ID": "big", "Status": "ACTIVE", "Host": "c1", "Flavor Name": "one4"}])";
    const Problem spread = import_with(servers, "nova-spread");
    EXPECT_EQ(spread.node_rule.name, "nova-spread");
    EXPECT_EQ(spread.node_rule.reserved_host_memory_mb, 512);
    EXPECT_EQ(spread.host_types[0].node_capacity, (std::vector<Amount>{8, 16384, 8, 16384})) << "reserved memory is host-level";
    EXPECT_EQ(spread.vms[1].pnuma[0], 0);
    EXPECT_EQ(spread.vms[0].pnuma[0], 1);
    EXPECT_EQ(import_with(servers, "nova-pack").vms[0].pnuma[0], 0);
    const Problem free = import_with(servers, "free", 0);
    EXPECT_EQ(free.node_rule.name, "free");
    EXPECT_EQ(free.vms[0].pnuma[0], 0);
    // Under free the reserved memory comes off every node (two 8 GiB servers no longer fit one).
    const Problem reserved = import_with(servers, "free");
    EXPECT_EQ(reserved.host_types[0].node_capacity, (std::vector<Amount>{8, 16128, 8, 16128}));
    EXPECT_EQ(reserved.vms[0].pnuma[0], 1);
}

TEST(NovaImport, CreationOrderThenASearchOverArrivalOrders) {
    // Nova booted "pair" (2 cells) first, then a and b; listed oldest first (not Nova's order).
    // Replayed from the list's end, the pack replay puts b and a on cell 0 and leaves "pair" no
    // room; the creation times ("Created At") restore the real order.
    const char* dated = R"([{"ID": "pair", "Status": "ACTIVE", "Host": "c1", "Flavor Name": "two8", "Created At": "2024-05-01T10:00:00Z"},
                            {"ID": "a", "Status": "ACTIVE", "Host": "c1", "Flavor Name": "one4", "Created At": "2024-05-01T10:01:00Z"},
                            {"ID": "b", "Status": "ACTIVE", "Host": "c1", "Flavor Name": "one4", "Created At": "2024-05-01T10:02:00Z"}])";
    const Problem p = import_with(dated, "nova-pack");
    EXPECT_EQ(p.vms[0].pnuma[0], 0);
    EXPECT_EQ(p.vms[0].pnuma[1], 1);
    EXPECT_EQ(p.vms[1].pnuma[0], 0);  // a: pack, cells tied: cell 0
    EXPECT_EQ(p.vms[2].pnuma[0], 1);  // b: cell 0, the most used, is full
    // Without the times the replay fails, and the search finds an order Nova's rule allows.
    const char* undated = R"([{"ID": "pair", "Status": "ACTIVE", "Host": "c1", "Flavor Name": "two8"},
                              {"ID": "a", "Status": "ACTIVE", "Host": "c1", "Flavor Name": "one4"},
                              {"ID": "b", "Status": "ACTIVE", "Host": "c1", "Flavor Name": "one4"}])";
    const Problem q = import_with(undated, "nova-pack");
    std::vector<Amount> used(4, 0);
    for (const Vm& v : q.vms)
        for (int i = 0; i < q.flavors[v.flavor].num_vnuma(); ++i) used[v.pnuma[i] * 2] += q.flavors[v.flavor].node_demand[0];
    EXPECT_LE(used[0], 8);
    EXPECT_LE(used[2], 8);
    // No order fits three 2-cell servers of 8 vCPU on 16 pCPUs: the error names the server the
    // replay (from the list's end) could not place, the first listed.
    const char* three = R"([{"ID": "x", "Status": "ACTIVE", "Host": "c1", "Flavor Name": "two8"},
                            {"ID": "y", "Status": "ACTIVE", "Host": "c1", "Flavor Name": "two8"},
                            {"ID": "z", "Status": "ACTIVE", "Host": "c1", "Flavor Name": "two8"}])";
    try {
        import_with(three, "nova-spread");
        ADD_FAILURE() << "three 8-vCPU servers on 16 pCPUs were imported";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "s.json: [0] (ID \"x\"): flavor \"two8\" does not fit the pNUMA nodes left on host \"c1\" as modelled "
                  "(--host-topology, --node-rule, allocation ratios, reserved memory)");
    }
}

}  // namespace
}  // namespace vmcap

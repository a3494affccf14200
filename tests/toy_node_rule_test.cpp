// What a newcomer's destination-node rule costs (which pNUMA nodes a migrated VM gets on its
// destination, as a cloud's scheduler picks them; Nova's NUMA cells are the real case): "the
// lowest-numbered nodes that fit" (first fit by node mask), written here in one file against the
// DestinationNodeRule seam alone (evaluators/interfaces/seams.h) and set on the model from the
// test — the moves, the drivers, plan building, the waves and `vmcap validate` untouched. A real
// rule takes its two files plus one line in registered_node_rules (evaluators/registry/registry.cpp).
// Oracles, each on the test's own usage tables (not the engine's SearchState): every move kind's
// relocations and every searched plan's steps on the nodes first fit gives at that point (and the
// free model's not: the rule has something to enforce); the validator refusing a step on other
// nodes; every wave's steps on first fit's nodes in flight; and on tiny instances the best plan
// equal to a brute force over every plan whose steps take first fit's nodes.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "moves/move_list.h"
#include "optimizer/plan/plan.h"
#include "optimizer/plan/validate.h"
#include "optimizer/plan/waves.h"
#include "optimizer/search/annealing.h"
#include "optimizer/solvers/exact.h"
#include "optimizer/solvers/optimize.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

/** The toy rule: the first placement of the flavor on the host (placements are listed by node
 *  mask, so the lowest-numbered nodes) with room in every resource; with `spread`, of those with
 *  room the one with the most free vCPU on its nodes (ties: the first), as Nova's default sorts
 *  cells by what they have free. */
class FirstFitNodes final : public DestinationNodeRule {
public:
    explicit FirstFitNodes(bool spread = false) : spread_(spread) {}
    std::string_view name() const override { return spread_ ? "spread-nodes" : "first-fit-nodes"; }
    bool fixes_nodes() const override { return true; }
    int assign(const CapacityModel& m, int flavor, int host, const Amount* free) const override {
        const Problem& p = m.problem();
        const Flavor& fl = p.flavors[flavor];
        const int R = p.num_resources();
        const auto& placements = m.evaluator(p.hosts[host].type, flavor).placements();
        int best = kNoPlacement;
        Amount most = -1;
        for (std::size_t e = 0; e < placements.size(); ++e) {
            bool room = true;
            Amount vcpu = 0;
            for (int i = 0; i < fl.num_vnuma(); ++i) {
                vcpu += free[placements[e].map[i] * R];
                for (int r = 0; r < R; ++r) room = room && free[placements[e].map[i] * R + r] >= fl.node_demand[r];
            }
            if (!room) continue;
            if (!spread_) return static_cast<int>(e);
            if (vcpu > most) best = static_cast<int>(e), most = vcpu;
        }
        return best;
    }

private:
    bool spread_;
};

std::unique_ptr<CapacityModel> toy_model(const Problem& p, bool spread = false) {
    auto m = std::make_unique<CapacityModel>(p);
    m->set_node_rule(std::make_unique<FirstFitNodes>(spread));
    return m;
}

/** The test's own placement of every VM and usage of every pNUMA node, from the snapshot. */
struct Mirror {
    explicit Mirror(const Problem& p) : p(p), R(p.num_resources()), host(p.vms.size()), nodes(p.vms.size()), used(p.hosts.size()) {
        for (std::size_t h = 0; h < p.hosts.size(); ++h) used[h].assign(p.host_type_of(static_cast<int>(h)).node_capacity.size(), 0);
        for (std::size_t v = 0; v < p.vms.size(); ++v) {
            host[v] = p.vms[v].host;
            nodes[v].assign(p.vms[v].pnuma.begin(), p.vms[v].pnuma.begin() + p.flavors[p.vms[v].flavor].num_vnuma());
            add(static_cast<int>(v), +1);
        }
    }
    void add(int v, int sign) {
        const Flavor& fl = p.flavors[p.vms[v].flavor];
        for (int n : nodes[v])
            for (int r = 0; r < R; ++r) used[host[v]][n * R + r] += sign * fl.node_demand[r];
    }
    /** First fit by node mask of `v`'s flavor on `h` as the tables stand, `extra` more used on h
     *  (in flight): its node mask, 0 when nothing fits; with `spread`, of those with room the one
     *  with the most free vCPU (ties: the lowest mask). Enumerated here, not the model's list. */
    NodeMask first_fit(int v, int h, const std::vector<Amount>* extra = nullptr, bool spread = false) const {
        const Flavor& fl = p.flavors[p.vms[v].flavor];
        const HostType& ht = p.host_type_of(h);
        NodeMask best = 0;
        Amount most = -1;
        for (const Embedding& e : enumerate_embeddings(ht.topology.graph, fl.vnuma.graph)) {
            bool room = true;
            Amount vcpu = 0;
            for (int i = 0; i < fl.num_vnuma(); ++i)
                for (int r = 0; r < R; ++r) {
                    const std::size_t x = static_cast<std::size_t>(e.map[i] * R + r);
                    const Amount left = ht.node_capacity[x] - used[h][x] - (extra ? (*extra)[x] : 0);
                    room = room && left >= fl.node_demand[r];
                    if (r == 0) vcpu += left;
                }
            if (!room) continue;
            if (!spread) return e.mask;
            if (vcpu > most) best = e.mask, most = vcpu;
        }
        return best;
    }
    void move(int v, int h, std::vector<int> to) {
        add(v, -1);
        host[v] = h;
        nodes[v] = std::move(to);
        add(v, +1);
    }
    const Problem& p;
    int R;
    std::vector<int> host;
    std::vector<std::vector<int>> nodes;
    std::vector<std::vector<Amount>> used;
};

std::vector<int> nodes_of(const std::array<std::uint8_t, kMaxVNuma>& a, int k) {
    return std::vector<int>(a.begin(), a.begin() + k);
}

NodeMask mask_of(const std::vector<int>& nodes) {
    unsigned m = 0;
    for (int n : nodes) m |= 1U << n;
    return static_cast<NodeMask>(m);
}

/** Steps of `plan` (in order, from the snapshot) that are a remap or not on first fit's nodes. */
int steps_off_rule(const Problem& p, const Plan& plan, bool spread = false) {
    Mirror mi(p);
    int off = 0;
    for (const PlanStep& st : plan.steps) {
        const auto to = nodes_of(st.to_pnuma, p.flavors[p.vms[st.vm].flavor].num_vnuma());
        if (st.from_host == st.to_host) {
            ++off;
        } else {
            mi.add(st.vm, -1);  // first fit on the destination, which the VM is not on
            const NodeMask want = mi.first_fit(st.vm, st.to_host, nullptr, spread);
            mi.add(st.vm, +1);
            off += want != mask_of(to) ? 1 : 0;
        }
        mi.move(st.vm, st.to_host, to);
    }
    return off;
}

Problem cluster(std::uint64_t seed, int hosts = 12, std::int64_t budget = 10) {
    test::RandomCluster rc;
    rc.hosts = hosts;
    rc.fill = 0.65;
    rc.max_migrations = budget;
    rc.seed = seed;
    return test::make_random_problem(rc);
}

/**
 * Random moves of every kind on a state of `m`: each feasible one's relocations (execution order,
 * chosen nodes) checked against the mirror, then applied to both. Returns, per kind, how many
 * were feasible and how many relocations were a remap or off first fit's nodes. The cached and
 * uncached evaluations must agree.
 */
struct KindCounts {
    int feasible[kKinds] = {};
    int off[kKinds] = {};
};
KindCounts random_moves(const CapacityModel& m, std::uint64_t seed, int rounds) {
    const Problem& p = m.problem();
    SearchState s(m);
    MoveCache cache(s);
    Mirror mi(p);
    KindCounts out;
    std::mt19937_64 rng(seed);
    const auto vm = [&] { return static_cast<int>(rng() % p.vms.size()); };
    const auto host = [&] { return static_cast<int>(rng() % p.hosts.size()); };
    const auto migrated = [&] {
        const auto& mv = s.migrated_vms();
        return mv.empty() ? vm() : mv[rng() % mv.size()];
    };
    for (int t = 0; t < rounds; ++t) {
        visit_kind(static_cast<int>(rng() % kKinds), [&](auto k) {
            using M = MoveAt<k()>;
            M mv;
            if constexpr (std::is_same_v<M, MigrateMove>) mv = MigrateMove{vm(), host()};
            if constexpr (std::is_same_v<M, SwapMove>) mv = SwapMove{vm(), vm()};
            if constexpr (std::is_same_v<M, BudgetExchangeMove>) mv = BudgetExchangeMove{migrated(), vm(), host()};
            if constexpr (std::is_same_v<M, RemapMove>) mv = RemapMove{vm()};
            if constexpr (std::is_same_v<M, ReturnMove>) mv = ReturnMove{migrated()};
            if constexpr (std::is_same_v<M, EjectionMove>) mv = EjectionMove{vm(), vm(), host()};
            if constexpr (std::is_same_v<M, GatherMove>) mv = GatherMove{vm(), vm(), host(), host()};
            const auto d = score_move(mv, s, &cache);
            const auto u = score_move(mv, s);
            EXPECT_EQ(d.feasible, u.feasible) << M::kName;
            if (!d.feasible) return;
            EXPECT_EQ(d.delta, u.delta) << M::kName;
            ++out.feasible[k()];
            Relocation r[kMaxRelocations];
            const int n = mv.relocations(s, d, r);
            for (int i = 0; i < n; ++i) {
                std::vector<int> to;
                const auto& pl = m.evaluator(p.hosts[r[i].to_host].type, p.vms[r[i].vm].flavor).placements();
                for (const Embedding& e : pl)
                    if (e.mask == r[i].to_mask) to = nodes_of(e.map, p.flavors[p.vms[r[i].vm].flavor].num_vnuma());
                if (r[i].from_host == r[i].to_host) {
                    ++out.off[k()];
                } else {
                    mi.add(r[i].vm, -1);
                    out.off[k()] += mi.first_fit(r[i].vm, r[i].to_host) != r[i].to_mask ? 1 : 0;
                    mi.add(r[i].vm, +1);
                }
                mi.move(r[i].vm, r[i].to_host, to);
            }
            const Score before = s.objective();
            mv.apply(s, d);
            EXPECT_EQ(s.objective() - before, d.delta) << M::kName;
        });
    }
    EXPECT_NO_THROW(s.check_consistency());
    return out;
}

TEST(ToyNodeRule, EveryMoveKindTakesTheRulesNodes) {
    const Problem p = cluster(5, 12, 1000);
    const auto toy = toy_model(p);
    const CapacityModel free_model(p);
    const KindCounts t = random_moves(*toy, 7, 20000);
    const KindCounts f = random_moves(free_model, 7, 20000);
    int free_off = 0;
    for (int k = 0; k < kKinds; ++k) {
        free_off += f.off[k];
        EXPECT_EQ(t.off[k], 0) << Moves::kNames[static_cast<std::size_t>(k)];
        if (Moves::kNames[static_cast<std::size_t>(k)] == RemapMove::kName)
            EXPECT_EQ(t.feasible[k], 0) << "a remap arrives on no host: never under a rule that fixes nodes";
        else
            EXPECT_GT(t.feasible[k], 0) << Moves::kNames[static_cast<std::size_t>(k)];
    }
    EXPECT_GT(free_off, 0) << "the free choice leaves first fit's nodes: the rule has something to enforce";
}

TEST(ToyNodeRule, SearchedPlansTakeTheRulesNodesAndValidateRefusesOthers) {
    const Problem p = cluster(3);
    const auto toy = toy_model(p);
    const CapacityModel free_model(p);
    OptimizeParams op;
    op.search.threads = 1;
    op.search.max_evaluations = 60000;
    op.search.time_limit_s = 1e9;
    op.search.quiet = true;
    op.search.check_every = 200;
    int free_off_total = 0;
    for (Algorithm a : {Algorithm::Greedy, Algorithm::Annealing, Algorithm::Tabu}) {
        op.algorithm = a;
        const OptimizeResult r = optimize(*toy, op);
        ASSERT_GT(r.plan.steps.size(), 0U);
        EXPECT_GT(r.plan.score_after, r.plan.score_before);
        EXPECT_EQ(steps_off_rule(p, r.plan), 0);
        const auto doc = nlohmann::json::parse(plan_to_json(p, r.plan, PlanInfo{}).dump());
        const PlanCheck ok = validate_plan(*toy, doc, "p");
        EXPECT_TRUE(ok.ok) << ok.error;
        // The free search's plan: some step leaves first fit's nodes, and the validator names it.
        const OptimizeResult fr = optimize(free_model, op);
        const int off = steps_off_rule(p, fr.plan);
        free_off_total += off;
        if (off == 0) continue;
        const PlanCheck bad = validate_plan(*toy, nlohmann::json::parse(plan_to_json(p, fr.plan, PlanInfo{}).dump()), "p");
        ASSERT_FALSE(bad.ok);
        EXPECT_TRUE(bad.error.find("is not what the destination-node rule \"first-fit-nodes\" assigns on host") != std::string::npos ||
                    bad.error.find("a remap, but under the destination-node rule \"first-fit-nodes\"") != std::string::npos)
            << bad.error;
        // The first step the test's own replay flags.
        Plan prefix = fr.plan;
        std::size_t first = 0;
        while (first < fr.plan.steps.size()) {
            prefix.steps.assign(fr.plan.steps.begin(), fr.plan.steps.begin() + static_cast<std::ptrdiff_t>(first) + 1);
            if (steps_off_rule(p, prefix) > 0) break;
            ++first;
        }
        const PlanStep& st = fr.plan.steps[first];
        EXPECT_EQ(bad.error.rfind(
                      "steps[" + std::to_string(first) + "] (step " + std::to_string(first + 1) + ", vm \"" + p.vms[st.vm].id + "\"): ", 0),
                  0U)
            << bad.error;
        EXPECT_EQ(bad.error.find('\n'), std::string::npos);
    }
    EXPECT_GT(free_off_total, 0);
}

TEST(ToyNodeRule, ValidateRefusesARemap) {
    const Problem p = cluster(3);
    const auto toy = toy_model(p);
    Mirror mi(p);
    PlanStep st;
    for (std::size_t i = 0; i < p.vms.size() && st.vm < 0; ++i) {
        const int v = static_cast<int>(i);
        if (!p.vms[v].migratable) continue;
        const Flavor& fl = p.flavors[p.vms[v].flavor];
        const HostType& ht = p.host_type_of(p.vms[v].host);
        mi.add(v, -1);
        for (const Embedding& e : toy->evaluator(p.hosts[p.vms[v].host].type, p.vms[v].flavor).placements()) {
            bool room = e.mask != mask_of(mi.nodes[v]);
            for (int n = 0; n < fl.num_vnuma(); ++n)
                for (int r = 0; r < mi.R; ++r)
                    room = room && mi.used[p.vms[v].host][e.map[n] * mi.R + r] + fl.node_demand[r] <= ht.node_capacity[e.map[n] * mi.R + r];
            if (room && st.vm < 0) {
                st.vm = v;
                st.from_host = st.to_host = p.vms[v].host;
                st.from_pnuma = p.vms[v].pnuma;
                st.to_pnuma = e.map;
            }
        }
        mi.add(v, +1);
    }
    ASSERT_GE(st.vm, 0);
    Plan one;
    one.steps = {st};
    one.capacity_before.assign(p.flavors.size(), 0);
    one.capacity_after.assign(p.flavors.size(), 0);
    const auto doc = nlohmann::json::parse(plan_to_json(p, one, PlanInfo{}).dump());
    EXPECT_EQ(validate_plan(CapacityModel(p), doc, "p", true, false).error.find("a remap"), std::string::npos);
    const PlanCheck bad = validate_plan(*toy, doc, "p", true, false);
    ASSERT_FALSE(bad.ok);
    EXPECT_EQ(bad.error, "steps[0] (step 1, vm \"" + p.vms[st.vm].id +
                             "\"): a remap, but under the destination-node rule \"first-fit-nodes\" a VM's pNUMA nodes are chosen only "
                             "when it arrives on a host");
    EXPECT_THROW(plan_from_steps(*toy, {st}), std::logic_error);
}

/** Steps of a scheduled plan whose nodes are not first fit's on their destination in flight: per
 *  wave, from the state the earlier waves leave, the wave's earlier arrivals there counted. */
int in_flight_off_rule(const Problem& p, const Plan& w, bool spread = false) {
    Mirror mi(p);
    int off = 0;
    for (std::size_t i = 0; i < w.steps.size();) {
        std::size_t j = i;
        while (j < w.steps.size() && w.steps[j].wave == w.steps[i].wave) ++j;
        std::vector<std::vector<Amount>> extra(p.hosts.size());
        for (std::size_t x = i; x < j; ++x) {
            const PlanStep& st = w.steps[x];
            const Flavor& fl = p.flavors[p.vms[st.vm].flavor];
            const auto to = nodes_of(st.to_pnuma, fl.num_vnuma());
            auto& e = extra[st.to_host];
            if (e.empty()) e.assign(mi.used[st.to_host].size(), 0);
            off += st.from_host == st.to_host || mi.first_fit(st.vm, st.to_host, &e, spread) != mask_of(to) ? 1 : 0;
            for (int n : to)
                for (int r = 0; r < mi.R; ++r) e[n * mi.R + r] += fl.node_demand[r];
        }
        for (std::size_t x = i; x < j; ++x)
            mi.move(w.steps[x].vm, w.steps[x].to_host, nodes_of(w.steps[x].to_pnuma, p.flavors[p.vms[w.steps[x].vm].flavor].num_vnuma()));
        i = j;
    }
    return off;
}

/** Three hosts of two 32-vCPU pNUMA nodes, the spread variant (most free vCPU first): d (16c)
 *  leaves node 1 of X for Z, then a (16c) leaves Y, drained, for X. Once d has left, node 1 of X
 *  has 32 vCPU free and node 2 24 (g, 8c, is there): a's nodes are {1}. While d is in flight, node
 *  1 has 16 free: the rule then gives {2}, though node 1 has room for a. */
TEST(ToyNodeRule, AStepWaitsForTheWaveWhoseStateTheRuleChoseItsNodesOn) {
    Problem p;
    p.resources = {"vcpu", "ram_mib"};
    HostType ht;
    ht.name = "two-node";
    ht.topology = parse_topology("K2");
    ht.node_capacity = {32, 64 * 1024, 32, 64 * 1024};
    p.host_types.push_back(ht);
    for (const char* id : {"X", "Y", "Z"}) p.hosts.push_back(Host{id, 0, "r0", "p0", ""});
    const auto flavor = [&](const char* name, Amount vcpu) {
        Flavor f;
        f.name = name;
        f.demand = {vcpu, 8 * 1024};
        f.vnuma = parse_topology("K1");
        f.weight = 1.0;
        p.flavors.push_back(f);
    };
    flavor("16c", 16);
    flavor("8c", 8);
    const auto vm = [&](const char* id, int flavor_index, int host, int node) {
        Vm v;
        v.id = id;
        v.flavor = flavor_index;
        v.host = host;
        v.pnuma[0] = static_cast<std::uint8_t>(node);
        p.vms.push_back(v);
    };
    vm("d", 0, 0, 0);
    vm("g", 1, 0, 1);
    vm("a", 0, 1, 0);
    p.constraints.max_migrations = 2;
    p.constraints.drain_hosts = {1};
    finalize_problem(p, "<test>");
    const auto toy = toy_model(p, true);
    const CapacityModel free_model(p);
    PlanStep d, a;
    d.vm = 0, d.from_host = 0, d.to_host = 2, d.from_pnuma = p.vms[0].pnuma, d.to_pnuma[0] = 0;
    a.vm = 2, a.from_host = 1, a.to_host = 0, a.from_pnuma = p.vms[2].pnuma, a.to_pnuma[0] = 0;
    const Plan plan = plan_from_steps(*toy, {d, a});  // sequentially on the rule's nodes
    ASSERT_EQ(plan.steps.size(), 2U);
    EXPECT_EQ(steps_off_rule(p, plan, true), 0);
    const MigrationLimits loose{4, 4, 0};
    const Plan together = schedule_plan(free_model, plan, loose, DurationModel{});
    const Plan apart = schedule_plan(*toy, plan, loose, DurationModel{});
    EXPECT_EQ(together.schedule->waves, 1) << "free nodes: both at once (node 1 of X has room for a in flight)";
    EXPECT_EQ(apart.schedule->waves, 2) << "a's nodes are the rule's once d has left X: a waits";
    EXPECT_EQ(in_flight_off_rule(p, together, true), 1);
    EXPECT_EQ(in_flight_off_rule(p, apart, true), 0);
    const auto doc = [&](const Plan& w) { return nlohmann::json::parse(plan_to_json(p, w, PlanInfo{}).dump()); };
    const PlanCheck ok = validate_plan(*toy, doc(apart), "p", true, false);
    EXPECT_TRUE(ok.ok) << ok.error;
    EXPECT_TRUE(validate_plan(free_model, doc(together), "p", true, false).ok);
    const PlanCheck bad = validate_plan(*toy, doc(together), "p", true, false);
    ASSERT_FALSE(bad.ok);
    EXPECT_EQ(bad.error,
              "schedule: steps[1] (step 2, wave 1, vm \"a\"): with the wave in flight, the destination-node rule \"spread-nodes\" "
              "assigns pNUMA nodes {2} of host \"X\" when the step starts, not its to_pnuma");
}

TEST(ToyNodeRule, WavesOfSearchedPlansTakeTheRulesNodesInFlight) {
    int free_off = 0;  // steps of waves built without the rule that break it in flight
    for (std::uint64_t seed = 11; seed <= 18; ++seed) {
        const Problem p = cluster(seed, 12, 14);
        const auto toy = toy_model(p, true);
        const CapacityModel free_model(p);
        SearchParams sp;
        sp.threads = 1;
        sp.max_evaluations = 40000;
        sp.time_limit_s = 1e9;
        sp.quiet = true;
        sp.seed = seed;
        const Plan plan = build_plan(*toy, anneal(*toy, sp).best);
        if (plan.steps.size() < 4) continue;
        const MigrationLimits loose{4, 4, 0};
        const Plan w = schedule_plan(*toy, plan, loose, DurationModel{});
        const Plan fw = schedule_plan(free_model, plan, loose, DurationModel{});
        EXPECT_EQ(steps_off_rule(p, plan, true), 0);
        free_off += in_flight_off_rule(p, fw, true);
        EXPECT_EQ(in_flight_off_rule(p, w, true), 0) << "seed " << seed;
        EXPECT_EQ(steps_off_rule(p, w, true), 0);
        EXPECT_GE(w.score_after, plan.score_after) << "every step scheduled (then cut after its best prefix)";
        EXPECT_GE(w.schedule->waves, fw.schedule->waves);
        const PlanCheck ok = validate_plan(*toy, nlohmann::json::parse(plan_to_json(p, w, PlanInfo{}).dump()), "p");
        EXPECT_TRUE(ok.ok) << ok.error;
        // Cut by a window: what is kept still takes the rule's nodes in flight.
        const Plan cut = schedule_plan(*toy, plan, loose, DurationModel{}, w.schedule->makespan_s / 2);
        EXPECT_LT(cut.steps.size(), w.steps.size());
        EXPECT_EQ(in_flight_off_rule(p, cut, true), 0) << "seed " << seed;
        const PlanCheck cut_ok = validate_plan(*toy, nlohmann::json::parse(plan_to_json(p, cut, PlanInfo{}).dump()), "p");
        EXPECT_TRUE(cut_ok.ok) << cut_ok.error;
    }
    EXPECT_GT(free_off, 0) << "waves that ignore the rule break it in flight: it has something to enforce";
}

/** Best objective (score units) over every plan of at most `budget` live migrations from the
 *  snapshot, each step moving a migratable VM to another host on the nodes `nodes` gives (0:
 *  none) — by brute force on the mirror, objectives from scratch. */
Score brute_force(const CapacityModel& m, int budget, const std::function<std::vector<NodeMask>(const Mirror&, int, int)>& nodes) {
    const Problem& p = m.problem();
    Mirror mi(p);
    const auto objective = [&] {
        const auto cap = test::capacity_by_flavor(m, mi.used);
        Score s = 0;
        for (std::size_t f = 0; f < p.flavors.size(); ++f) s += weight_units(p.flavors[f].weight) * cap[f];
        return s;
    };
    Score best = objective();
    std::function<void(int)> go = [&](int left) {
        best = std::max(best, objective());
        if (left == 0) return;
        for (std::size_t v = 0; v < p.vms.size(); ++v) {
            if (!p.vms[v].migratable) continue;
            for (std::size_t h = 0; h < p.hosts.size(); ++h) {
                if (static_cast<int>(h) == mi.host[v]) continue;
                mi.add(static_cast<int>(v), -1);
                const std::vector<NodeMask> masks = nodes(mi, static_cast<int>(v), static_cast<int>(h));
                mi.add(static_cast<int>(v), +1);
                for (NodeMask want : masks)
                    for (const Embedding& e : m.evaluator(p.hosts[h].type, p.vms[v].flavor).placements()) {
                        if (e.mask != want) continue;
                        const int from = mi.host[v];
                        const std::vector<int> back = mi.nodes[v];
                        mi.move(static_cast<int>(v), static_cast<int>(h), nodes_of(e.map, p.flavors[p.vms[v].flavor].num_vnuma()));
                        go(left - 1);
                        mi.move(static_cast<int>(v), from, back);
                    }
            }
        }
    };
    go(budget);
    return best;
}

/** Every mask of `v`'s flavor on `h` with room on the mirror (the free choice). */
std::vector<NodeMask> every_fit(const Mirror& mi, int v, int h) {
    std::vector<NodeMask> all;
    const Problem& p = mi.p;
    const Flavor& fl = p.flavors[p.vms[v].flavor];
    for (const Embedding& e : enumerate_embeddings(p.host_type_of(h).topology.graph, fl.vnuma.graph)) {
        bool room = true;
        for (int i = 0; i < fl.num_vnuma(); ++i)
            for (int r = 0; r < mi.R; ++r) {
                const std::size_t x = static_cast<std::size_t>(e.map[i] * mi.R + r);
                room = room && mi.used[h][x] + fl.node_demand[r] <= p.host_type_of(h).node_capacity[x];
            }
        if (room) all.push_back(e.mask);
    }
    return all;
}

// One migration: the best plan of every search equals the brute force over the rule's one-step
// plans, exactly. Two: no plan beats the brute force over the rule's plans, and every step takes
// the rule's nodes. (The search's state counts a VM that left and came back as never migrated;
// under a rule that fixes nodes, another VM's nodes may depend on that absence, so a best state
// can cost more steps than its count: the pipeline then falls back to a plan it can order, and on
// some tiny instances stays below the brute force.)
TEST(ToyNodeRule, BestPlanEqualsBruteForceOverTheRulesPlans) {
    int restricted = 0;  // instances where the rule lowers the best plan
    for (std::uint64_t seed = 1; seed <= 16; ++seed) {
        for (std::int64_t budget : {1, 2}) {
            test::RandomCluster rc;
            rc.host_topology = "K2";
            rc.hosts = 3;
            rc.fill = 0.6;
            rc.max_migrations = budget;
            rc.seed = seed;
            const Problem p = test::make_random_problem(rc);
            const auto toy = toy_model(p);
            const auto rule = [](const Mirror& mi, int v, int h) { return std::vector<NodeMask>{mi.first_fit(v, h)}; };
            const Score oracle = brute_force(*toy, static_cast<int>(budget), rule);
            const Score free_oracle = brute_force(*toy, static_cast<int>(budget), every_fit);
            ASSERT_GE(free_oracle, oracle);
            restricted += free_oracle > oracle ? 1 : 0;
            for (Algorithm a : {Algorithm::Greedy, Algorithm::Annealing, Algorithm::Tabu}) {
                OptimizeParams op;
                op.algorithm = a;
                op.search.threads = 1;
                op.search.max_evaluations = 20000;
                op.search.time_limit_s = 1e9;
                op.search.quiet = true;
                op.search.seed = seed;
                const OptimizeResult r = optimize(*toy, op);
                if (budget == 1)
                    EXPECT_EQ(r.plan.score_after, oracle) << "seed " << seed << ", algorithm " << static_cast<int>(a);
                else
                    EXPECT_LE(r.plan.score_after, oracle) << "seed " << seed << ", algorithm " << static_cast<int>(a);
                EXPECT_EQ(steps_off_rule(p, r.plan), 0) << "seed " << seed;
            }
        }
    }
    EXPECT_GT(restricted, 0) << "on some instance the rule's plans are worse than the free choice's";
}

TEST(ToyNodeRule, TheExactSolversRefuseARuleThatFixesNodes) {
    const Problem p = cluster(3);
    const auto toy = toy_model(p);
    try {
        check_exact_scope(*toy);
        ADD_FAILURE() << "the exact solvers accepted a rule that fixes nodes";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("destination-node rule 'first-fit-nodes' is not modelled"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(toy->derived_from_problem());
    EXPECT_NE(toy->find<FirstFitNodes>(), nullptr);
    const CapacityModel free_model(p);
    EXPECT_EQ(free_model.node_rule().name(), "free");
    EXPECT_FALSE(free_model.fixes_nodes());
    EXPECT_EQ(free_model.find<FirstFitNodes>(), nullptr);
}

}  // namespace
}  // namespace vmcap

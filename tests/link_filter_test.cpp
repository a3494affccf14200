// The link-capacity rule: the filter's verdict on every move equals
// a from-scratch recomputation of the loads after the move; its per-state loads stay equal to a
// full recomputation; every plan the search writes for a network snapshot keeps every link within
// capacity at every prefix (checked here on our own replay) and passes `validate`; validate
// rejects a hand-made plan that overloads a link.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "evaluators/rules/link_filter.h"
#include "evaluators/state/search_state.h"
#include "instances/generator.h"
#include "moves/insertion.h"
#include "optimizer/solvers/optimize.h"
#include "optimizer/plan/plan.h"
#include "optimizer/plan/validate.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

/** A generated cluster with a leaf-spine network (3 ToRs, 2 spines) and random vlinks; NICs and
 *  uplinks tight enough that the rule binds. */
Problem networked(std::uint64_t seed, std::int64_t nic_mbps, std::int64_t uplink_mbps) {
    GenerateOptions go;
    go.hosts = 12;
    go.vms = 90;
    go.seed = seed;
    go.migration_budget = 0.08;
    Problem p = generate_cluster(go);
    test::add_leaf_spine(p, seed * 7 + 1, nic_mbps, uplink_mbps, 50, 400);
    return p;
}

std::vector<int> hosts_of(const SearchState& s) {
    std::vector<int> h(s.problem().vms.size());
    for (std::size_t v = 0; v < h.size(); ++v) h[v] = s.host_of(static_cast<int>(v));
    return h;
}

bool all_allowed(const LinkCapacityFilter& f, const std::vector<std::int64_t>& load) {
    for (int l = 0; l < f.routes().num_links(); ++l)
        if (!f.allowed(l, load[l])) return false;
    return true;
}

TEST(LinkFilter, AdmitsExactlyTheMovesThatKeepEveryLinkWithinCapacity) {
    int admitted = 0, refused = 0;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const Problem p = networked(seed, 2500, 3000);
        const CapacityModel m(p);
        ASSERT_TRUE(m.has_filters());
        const auto& f = static_cast<const LinkCapacityFilter&>(*m.filters()[0]);
        SearchState s(m);
        std::mt19937_64 rng(seed);
        const int V = static_cast<int>(p.vms.size()), H = static_cast<int>(p.hosts.size());
        for (int step = 0; step < 1500; ++step) {
            // One relocation, or two (a swap of hosts), each as the moves list them.
            const int a = static_cast<int>(rng() % V), b = static_cast<int>(rng() % V);
            std::vector<Relocation> moves = {Relocation{a, s.host_of(a), static_cast<int>(rng() % H), 0}};
            if (rng() % 2 && a != b) {
                moves[0].to_host = s.host_of(b);
                moves.push_back(Relocation{b, s.host_of(b), s.host_of(a), 0});
            }
            const bool verdict = f.admits(s, moves);
            std::vector<int> after = hosts_of(s);
            for (const Relocation& r : moves) after[r.vm] = r.to_host;
            ASSERT_EQ(verdict, all_allowed(f, link_loads(p, f.routes(), after))) << "step " << step;
            (verdict ? admitted : refused) += 1;
            if (!verdict || moves.size() != 1) continue;  // swaps: the verdict only (their pNUMA room is another rule)
            // Apply where the pNUMA nodes allow it (the filter only governs links).
            const Relocation& r = moves[0];
            const Insertion ins = best_insertion(s, p.vms[r.vm].flavor, r.to_host, r.vm);
            if (ins.embedding < 0 || r.to_host == s.host_of(r.vm)) continue;
            s.move(r.vm, r.to_host, m.evaluator(p.hosts[r.to_host].type, p.vms[r.vm].flavor).placements()[ins.embedding]);
            if (step % 50 == 0) s.check_consistency();  // the filter's loads vs a recomputation
            ASSERT_TRUE(all_allowed(f, link_loads(p, f.routes(), hosts_of(s))));
        }
        s.check_consistency();
    }
    EXPECT_GT(admitted, 100);
    EXPECT_GT(refused, 100);  // the rule binds: the test is not vacuous
}

TEST(LinkFilter, PlansKeepEveryLinkAtEveryPrefixAndPassValidate) {
    std::size_t steps = 0;
    for (Algorithm alg : {Algorithm::Greedy, Algorithm::Annealing, Algorithm::Tabu})
        for (std::uint64_t seed = 1; seed <= 2; ++seed) {
            const Problem p = networked(seed, 2500, 3000);
            const CapacityModel m(p);
            const auto& f = static_cast<const LinkCapacityFilter&>(*m.filters()[0]);
            OptimizeParams op;
            op.algorithm = alg;
            op.search.quiet = true;
            op.search.seed = seed;
            op.search.max_evaluations = 40000;
            op.search.check_every = 500;
            const OptimizeResult r = optimize(m, op);
            SCOPED_TRACE(std::to_string(static_cast<int>(alg)) + " seed " + std::to_string(seed));
            std::vector<int> host(p.vms.size());
            for (std::size_t v = 0; v < host.size(); ++v) host[v] = p.vms[v].host;
            for (const PlanStep& st : r.plan.steps) {
                host[st.vm] = st.to_host;
                ASSERT_TRUE(all_allowed(f, link_loads(p, f.routes(), host)));
            }
            const auto doc = nlohmann::json::parse(plan_to_json(p, r.plan, PlanInfo{}).dump());
            const PlanCheck check = validate_plan(m, doc, "<plan>");
            EXPECT_TRUE(check.ok) << check.error;
            steps += r.plan.steps.size();
        }
    EXPECT_GT(steps, 20U);  // plans that move VMs, so the prefixes were checked
}

TEST(LinkFilter, ValidateRejectsAPlanThatOverloadsALink) {
    // Two VMs joined by a 2,000-Mbps vlink on one host; moving one away puts 2,000 Mbps on NICs of 1,000.
    Problem p = networked(1, 1000, 3000);
    p.vlinks.clear();
    int a = -1, b = -1, host = -1;
    for (std::size_t v = 0; v < p.vms.size() && b < 0; ++v)
        for (std::size_t w = v + 1; w < p.vms.size(); ++w)
            if (p.vms[v].host == p.vms[w].host) {
                a = static_cast<int>(v), b = static_cast<int>(w), host = p.vms[v].host;
                break;
            }
    ASSERT_GE(b, 0);
    p.vlinks.push_back(Vlink{a, b, 2000, -1});
    const CapacityModel m(p);
    const int to = (host + 1) % static_cast<int>(p.hosts.size());
    const Flavor& fl = p.flavors[p.vms[a].flavor];
    SearchState s(m);
    const Insertion ins = best_insertion(s, p.vms[a].flavor, to, a);
    ASSERT_GE(ins.embedding, 0);
    const Embedding& e = m.evaluator(p.hosts[to].type, p.vms[a].flavor).placements()[ins.embedding];
    nlohmann::json step = {{"vm", p.vms[a].id}, {"from_host", p.hosts[host].id}, {"to_host", p.hosts[to].id}};
    step["from_pnuma"] = nlohmann::json::array();
    step["to_pnuma"] = nlohmann::json::array();
    for (int i = 0; i < fl.num_vnuma(); ++i) {
        step["from_pnuma"].push_back(p.vms[a].pnuma[i] + 1);
        step["to_pnuma"].push_back(e.map[i] + 1);
    }
    const nlohmann::json plan = {{"format", "vmcap-plan/1"}, {"steps", nlohmann::json::array({step})}};
    const PlanCheck check = validate_plan(m, plan, "<plan>");
    EXPECT_FALSE(check.ok);
    EXPECT_NE(check.error.find("uplink of host \"" + p.hosts[host].id +
                               "\" (to its switch) carries 2000.000 Mbps, above its capacity of 1000 Mbps"),
              std::string::npos)
        << check.error;
    // The search never proposes it.
    Relocation r{a, host, to, e.mask};
    EXPECT_FALSE(m.filters()[0]->admits(s, std::span(&r, 1)));
}

}  // namespace
}  // namespace vmcap

// Placement rules: OpenStack server groups (anti-affinity, affinity), hosts
// closed to incoming VMs, drained hosts, and the per-tenant limit of the schedule. Oracles: the
// test's own from-scratch counts over every plan step and every wave in flight, `vmcap validate`
// (its own replay), and --check over the filters' cached counts.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "evaluators/rules/feasibility.h"
#include "evaluators/rules/placement_rules.h"
#include "evaluators/state/capacity_model.h"
#include "evaluators/state/cluster_capacity.h"
#include "instances/snapshot_io.h"
#include "optimizer/plan/drain.h"
#include "optimizer/plan/validate.h"
#include "optimizer/plan/waves.h"
#include "optimizer/solvers/optimize.h"
#include "tests/fixtures.h"

using namespace vmcap;
using namespace vmcap::test;

namespace {

/** Anti-affinity groups of three VMs each on three different hosts (every 7th VM onwards), one
 *  legacy group of two VMs sharing a host, and affinity pairs of VMs that share a host. */
void add_groups(Problem& p) {
    std::set<int> used;
    auto take = [&](int v) { used.insert(v); };
    // Legacy anti-affinity: two VMs on one host (Nova did not enforce it).
    for (std::size_t a = 0; a < p.vms.size() && p.server_groups.empty(); ++a)
        for (std::size_t b = a + 1; b < p.vms.size(); ++b)
            if (p.vms[a].host == p.vms[b].host && p.vms[a].migratable && p.vms[b].migratable) {
                p.server_groups.push_back(ServerGroup{"legacy", GroupPolicy::AntiAffinity, {static_cast<int>(a), static_cast<int>(b)}});
                take(static_cast<int>(a));
                take(static_cast<int>(b));
                break;
            }
    int n = 0;
    for (std::size_t v = 0; v < p.vms.size(); v += 7) {
        std::string id = "aa";
        id += std::to_string(n++);
        ServerGroup g{id, GroupPolicy::AntiAffinity, {}};
        std::set<int> hosts;
        for (std::size_t w = v; w < p.vms.size() && g.members.size() < 3; ++w)
            if (!used.count(static_cast<int>(w)) && hosts.insert(p.vms[w].host).second) {
                g.members.push_back(static_cast<int>(w));
                take(static_cast<int>(w));
            }
        if (g.members.size() >= 2) p.server_groups.push_back(g);
    }
    for (std::size_t a = 0; a < p.vms.size(); ++a)
        for (std::size_t b = a + 1; b < p.vms.size() && !used.count(static_cast<int>(a)); ++b)
            if (!used.count(static_cast<int>(b)) && p.vms[a].host == p.vms[b].host && (a + b) % 5 == 0) {
                std::string id = "aff";
                id += std::to_string(a);
                p.server_groups.push_back(ServerGroup{id, GroupPolicy::Affinity, {static_cast<int>(a), static_cast<int>(b)}});
                take(static_cast<int>(a));
                take(static_cast<int>(b));
            }
}

/** The test's own count: "" or the first anti-affinity group above max(1, snapshot) on a host,
 *  with `extra` (vm -> host) present too (VMs in flight). */
std::string anti_affinity_breach(const Problem& p, const std::vector<int>& host, const std::multimap<int, int>& extra = {}) {
    for (const ServerGroup& g : p.server_groups) {
        if (g.policy != GroupPolicy::AntiAffinity) continue;
        std::map<int, int> now, snap;
        for (int v : g.members) {
            ++now[host[v]];
            ++snap[p.vms[v].host];
            for (auto [it, end] = extra.equal_range(v); it != end; ++it)
                if (it->second != host[v]) ++now[it->second];
        }
        for (const auto& [h, c] : now)
            if (c > std::max(1, snap[h])) return g.id + " on " + p.hosts[h].id;
    }
    return "";
}

OptimizeParams params(std::uint64_t seed) {
    OptimizeParams op;
    op.search.quiet = true;
    op.search.seed = seed;
    op.search.max_evaluations = 40000;
    op.search.check_every = 200;  // the filters' cached counts against a recount
    op.search.time_limit_s = 1000;
    op.schedule = ScheduleParams{MigrationLimits{2, 2, 0}, DurationModel{}, 0.0};
    return op;
}

}  // namespace

TEST(PlacementRules, ServerGroupsHoldAtEveryStepAndInFlight) {
    int moved_members = 0, steps = 0;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        const RandomCluster rc{.fill = 0.75, .max_migrations = 16, .seed = seed};
        Problem p = make_random_problem(rc);
        add_groups(p);
        ASSERT_TRUE(ServerGroupFilter::applies(p));
        const CapacityModel m(p);
        const OptimizeResult r = optimize(m, params(seed));
        std::vector<int> host(p.vms.size());
        for (std::size_t v = 0; v < host.size(); ++v) host[v] = p.vms[v].host;
        std::map<int, int> group_of;
        for (const ServerGroup& g : p.server_groups)
            for (int v : g.members) group_of[v] = static_cast<int>(&g - p.server_groups.data());
        // Every wave in flight, then every step: the test's own counts.
        for (std::size_t i = 0; i < r.plan.steps.size();) {
            std::size_t j = i;
            std::multimap<int, int> in_flight;
            while (j < r.plan.steps.size() && r.plan.steps[j].wave == r.plan.steps[i].wave) {
                in_flight.emplace(r.plan.steps[j].vm, r.plan.steps[j].to_host);
                ++j;
            }
            EXPECT_EQ(anti_affinity_breach(p, host, in_flight), "") << "wave " << r.plan.steps[i].wave;
            for (; i < j; ++i) {
                const PlanStep& st = r.plan.steps[i];
                host[st.vm] = st.to_host;
                EXPECT_EQ(anti_affinity_breach(p, host), "") << "step " << i + 1;
                if (group_of.count(st.vm)) {
                    ++moved_members;
                    if (p.server_groups[group_of[st.vm]].policy == GroupPolicy::Affinity) {
                        EXPECT_EQ(st.from_host, st.to_host) << "an affinity member left its host";
                    }
                }
            }
        }
        steps += static_cast<int>(r.plan.steps.size());
        const PlanCheck c = validate_plan(m, plan_doc(p, r.plan), "<plan>");
        EXPECT_TRUE(c.ok) << c.error;
    }
    EXPECT_GT(steps, 30);
    EXPECT_GT(moved_members, 3);  // the rule was exercised, not sidestepped
}

TEST(PlacementRules, AntiAffinityInFlightSplitsAWaveThatSequenceAllows) {
    // a: H1 -> H2, then b: H3 -> H1. In sequence anti-affinity holds (a has left H1); in one wave,
    // a is still on H1 when b lands there.
    const RandomCluster rc{.fill = 0.3, .max_migrations = 10, .seed = 9};
    Problem p = make_random_problem(rc);
    int a = -1, b = -1;
    for (std::size_t v = 0; v < p.vms.size() && b < 0; ++v)
        for (std::size_t w = v + 1; w < p.vms.size() && b < 0; ++w)
            if (p.vms[v].host != p.vms[w].host && p.vms[v].migratable && p.vms[w].migratable &&
                p.flavors[p.vms[v].flavor].num_vnuma() == 1 && p.flavors[p.vms[w].flavor].num_vnuma() == 1)
                a = static_cast<int>(v), b = static_cast<int>(w);
    ASSERT_GE(b, 0);
    const int h1 = p.vms[a].host, h3 = p.vms[b].host;
    int h2 = 0;
    while (h2 == h1 || h2 == h3) ++h2;
    const auto plan_for = [&](const Problem& q) {
        const CapacityModel m(q);
        SearchState s(m);
        std::vector<PlanStep> steps;
        for (auto [vm, to] : {std::pair{a, h2}, std::pair{b, h1}}) {
            PlanStep st;
            st.vm = vm;
            st.from_host = s.host_of(vm);
            st.to_host = to;
            st.from_pnuma = q.vms[vm].pnuma;
            bool found = false;
            for (const Embedding& e : m.evaluator(q.hosts[to].type, q.vms[vm].flavor).placements())
                if (!found && step_fits(s, vm, to, e.map)) st.to_pnuma = e.map, found = true;
            EXPECT_TRUE(found);
            s.move(vm, to, embedding_of(st.to_pnuma, 1));
            steps.push_back(st);
        }
        return plan_from_steps(m, steps);
    };
    // H3 drained: every step up to b's (which leaves it) is kept, whatever the objective says.
    p.constraints.drain_hosts = {h3};
    Problem free_p = p;
    const CapacityModel free_m(free_p);
    const Plan free_w = schedule_plan(free_m, plan_for(free_p), MigrationLimits{4, 4, 0}, DurationModel{});
    p.server_groups.push_back(ServerGroup{"g", GroupPolicy::AntiAffinity, {a, b}});
    const CapacityModel m(p);
    const Plan w = schedule_plan(m, plan_for(p), MigrationLimits{4, 4, 0}, DurationModel{});
    ASSERT_EQ(w.steps.size(), 2U);
    ASSERT_EQ(free_w.steps.size(), 2U);
    EXPECT_EQ(free_w.schedule->waves, 1) << "without the group both run at once";
    EXPECT_EQ(w.schedule->waves, 2) << "with it, b waits until a has left";
    // Validated without the drain (H3 keeps its other VMs; the drain only kept the steps).
    Problem pv = p;
    pv.constraints.drain_hosts.clear();
    const CapacityModel mv(pv);
    auto doc = plan_doc(p, w);
    const PlanCheck ok = validate_plan(mv, doc, "<plan>", true, false);
    EXPECT_TRUE(ok.ok) << ok.error;
    doc["steps"][1]["wave"] = 1;
    doc["steps"][1]["start_s"] = 0.0;
    doc["steps"][1]["end_s"] = DurationModel{}.seconds(p.flavors[p.vms[b].flavor].demand[kRamMib], 10000);
    doc["schedule"]["waves"] = 1;
    doc["schedule"]["makespan_s"] = std::max(doc["steps"][0]["end_s"].get<double>(), doc["steps"][1]["end_s"].get<double>());
    const PlanCheck c = validate_plan(mv, doc, "<plan>", true, false);
    EXPECT_FALSE(c.ok);
    EXPECT_NE(c.error.find("anti-affinity group \"g\""), std::string::npos) << c.error;
}

TEST(PlacementRules, DrainEmptiesHostsAndClosedHostsTakeNothing) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const RandomCluster rc{.fill = 0.6, .max_migrations = 40, .seed = seed};
        Problem p = make_random_problem(rc);
        for (Vm& v : p.vms) v.migratable = true;
        p.constraints.drain_hosts = {1, 5};
        p.constraints.no_target_hosts = {2, 7};
        const CapacityModel m(p);
        const OptimizeResult r = optimize(m, params(seed));
        std::vector<int> host(p.vms.size());
        for (std::size_t v = 0; v < host.size(); ++v) host[v] = p.vms[v].host;
        for (const PlanStep& st : r.plan.steps) {
            if (st.from_host != st.to_host) {
                for (int closed : {1, 5, 2, 7}) EXPECT_NE(st.to_host, closed) << p.vms[st.vm].id;
            }
            host[st.vm] = st.to_host;
        }
        for (std::size_t v = 0; v < host.size(); ++v) {
            EXPECT_NE(host[v], 1);
            EXPECT_NE(host[v], 5);
        }
        EXPECT_EQ(drain_violation(p, host), "");
        const PlanCheck c = validate_plan(m, plan_doc(p, r.plan), "<plan>");
        EXPECT_TRUE(c.ok) << c.error;
        // validate: a plan that leaves a drained host occupied, or moves a VM onto a closed host.
        auto d = plan_doc(p, r.plan);
        d["steps"] = nlohmann::json::array();
        const PlanCheck c2 = validate_plan(m, d, "<plan>", true, false);
        EXPECT_FALSE(c2.ok);
        EXPECT_NE(c2.error.find("is to be drained"), std::string::npos) << c2.error;
        auto e = plan_doc(p, r.plan);
        ASSERT_FALSE(e["steps"].empty());
        const std::string to = e["steps"][0]["to_host"].get<std::string>() == p.hosts[2].id ? p.hosts[7].id : p.hosts[2].id;
        e["steps"][0]["to_host"] = to;
        const PlanCheck c3 = validate_plan(m, e, "<plan>", true, false);
        EXPECT_FALSE(c3.ok);
        EXPECT_NE(c3.error.find("closed to incoming VMs"), std::string::npos) << c3.error;
    }
}

TEST(PlacementRules, UnsatisfiableDrainIsBadInput) {
    const RandomCluster rc{.fill = 0.6, .max_migrations = 40, .seed = 2};
    Problem p = make_random_problem(rc);
    p.constraints.drain_hosts = {0};
    int on0 = 0;
    for (Vm& v : p.vms) {
        v.migratable = true;
        on0 += v.host == 0 ? 1 : 0;
    }
    ASSERT_GE(on0, 2);
    {
        Problem q = p;
        q.constraints.max_migrations = on0 - 1;
        const CapacityModel m(q);
        EXPECT_THROW(drain_steps(m), InputError);
    }
    {
        Problem q = p;
        for (Vm& v : q.vms)
            if (v.host == 0) {
                v.migratable = false;
                break;
            }
        const CapacityModel m(q);
        try {
            drain_steps(m);
            ADD_FAILURE() << "a pinned VM on a drained host";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("is not migratable"), std::string::npos) << e.what();
        }
    }
    {  // every other host closed: nowhere to go
        Problem q = p;
        for (int h = 1; h < static_cast<int>(q.hosts.size()); ++h) q.constraints.no_target_hosts.push_back(h);
        const CapacityModel m(q);
        EXPECT_THROW(drain_steps(m), InputError);
    }
}

TEST(PlacementRules, TenantLimitPerWave) {
    const RandomCluster rc{.fill = 0.8, .max_migrations = 16, .seed = 4};
    Problem p = make_random_problem(rc);
    const std::string tenants[3] = {"t0", "t1", "t2"};
    for (std::size_t v = 0; v < p.vms.size(); ++v) p.vms[v].tenant = tenants[v % 3];
    const CapacityModel m(p);
    OptimizeParams op = params(4);
    op.schedule->limits = MigrationLimits{4, 4, 0, 1};
    const OptimizeResult r = optimize(m, op);
    ASSERT_GE(r.plan.steps.size(), 4U);
    std::map<std::pair<int, std::string>, int> per;
    for (const PlanStep& st : r.plan.steps) {
        const int n = ++per[std::pair{st.wave, p.vms[st.vm].tenant}];
        EXPECT_LE(n, 1);
    }
    auto doc = plan_doc(p, r.plan);
    EXPECT_TRUE(validate_plan(m, doc, "<plan>", true, false).ok);
    // The same waves checked against a limit of 1 per tenant, but with two of one tenant in a wave.
    const Plan loose = schedule_plan(m, r.plan, MigrationLimits{4, 4, 0, 0}, DurationModel{});
    bool crowded = false;
    std::map<std::pair<int, std::string>, int> count;
    for (const PlanStep& st : loose.steps) crowded = crowded || ++count[std::pair{st.wave, p.vms[st.vm].tenant}] > 1;
    ASSERT_TRUE(crowded);
    auto d = plan_doc(p, loose);
    d["schedule"]["limits"]["per_tenant"] = 1;
    const PlanCheck c = validate_plan(m, d, "<plan>", true, false);
    EXPECT_FALSE(c.ok);
    EXPECT_NE(c.error.find("of tenant"), std::string::npos) << c.error;
}

TEST(PlacementRules, SnapshotJsonRoundTripAndBadRules) {
    const RandomCluster rc{.seed = 1};
    Problem p = make_random_problem(rc);
    add_groups(p);
    p.vms[0].tenant = "project-a";
    p.constraints.drain_hosts = {3};
    p.constraints.no_target_hosts = {4, 6};
    const auto doc = nlohmann::json::parse(snapshot_to_json(p).dump());
    const Problem q = parse_snapshot(doc, "x.json");
    ASSERT_EQ(q.server_groups.size(), p.server_groups.size());
    for (std::size_t g = 0; g < p.server_groups.size(); ++g) {
        EXPECT_EQ(q.server_groups[g].id, p.server_groups[g].id);
        EXPECT_EQ(q.server_groups[g].policy, p.server_groups[g].policy);
        EXPECT_EQ(q.server_groups[g].members, p.server_groups[g].members);
    }
    EXPECT_EQ(q.vms[0].tenant, "project-a");
    EXPECT_EQ(q.constraints.drain_hosts, p.constraints.drain_hosts);
    EXPECT_EQ(q.constraints.no_target_hosts, p.constraints.no_target_hosts);
    const auto bad = [&](auto&& edit, const std::string& expect) {
        auto d = doc;
        edit(d);
        try {
            parse_snapshot(d, "x.json");
            ADD_FAILURE() << "accepted: " << expect;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
        }
    };
    bad([](auto& d) { d["server_groups"][0]["members"].push_back("no-such-vm"); }, "unknown VM \"no-such-vm\"");
    bad([](auto& d) { d["server_groups"][1]["members"].push_back(d["server_groups"][0]["members"][0]); }, "is already in server group");
    bad([](auto& d) { d["server_groups"][0]["policy"] = "spread"; }, "server_groups[0] (id \"legacy\").policy");
    bad([](auto& d) { d["constraints"]["drain_hosts"] = {"nope"}; }, "constraints.drain_hosts[0]: unknown host \"nope\"");
}

TEST(PlacementRules, AdmitsAgreesWithTheFromScratchViolation) {
    // Every single relocation and sampled pairs (as a swap lists them): the filters admit exactly
    // the moves whose states on the way their own from-scratch violation() accepts.
    int refused = 0, checked = 0;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const RandomCluster rc{.fill = 0.6, .seed = seed};
        Problem p = make_random_problem(rc);
        add_groups(p);
        p.constraints.no_target_hosts = {3};
        p.constraints.drain_hosts = {4};
        const CapacityModel m(p);
        SearchState s(m);
        std::vector<int> host(p.vms.size());
        std::vector<NodeMask> mask(p.vms.size(), 0);
        for (std::size_t v = 0; v < host.size(); ++v) host[v] = p.vms[v].host;
        // A move's relocations run in order: every state on the way must hold the rules.
        const auto allowed_after = [&](std::span<const Relocation> moves) {
            std::vector<int> h = host;
            for (const Relocation& r : moves) {
                h[r.vm] = r.to_host;
                for (const auto& f : m.filters())
                    if (!f->violation(p, PlacementView{h, mask}).empty()) return false;
            }
            return true;
        };
        std::mt19937_64 rng(seed);
        const int H = static_cast<int>(p.hosts.size()), V = static_cast<int>(p.vms.size());
        for (int v = 0; v < V; ++v)
            for (int h = 0; h < H; ++h) {
                const Relocation r{v, host[v], h, 0};
                const bool a = filters_admit(s, std::span(&r, 1));
                EXPECT_EQ(a, allowed_after(std::span(&r, 1))) << p.vms[v].id << " -> " << p.hosts[h].id;
                refused += a ? 0 : 1;
                ++checked;
            }
        for (int k = 0; k < 3000; ++k) {
            const int a = static_cast<int>(rng() % V), b = static_cast<int>(rng() % V);
            if (a == b) continue;
            const Relocation rs[2] = {{a, host[a], host[b], 0}, {b, host[b], host[a], 0}};
            EXPECT_EQ(filters_admit(s, rs), allowed_after(rs)) << p.vms[a].id << " <-> " << p.vms[b].id;
        }
    }
    EXPECT_GT(refused, 100);
    EXPECT_GT(checked, 1000);
}

TEST(PlacementRules, SoftAntiAffinityDeltaIsExactAndTheSearchSpreadsMembers) {
    int spread_gain = 0;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const RandomCluster rc{.fill = 0.6, .max_migrations = 20, .seed = seed};
        Problem p = make_random_problem(rc);
        for (Vm& v : p.vms) v.migratable = true;
        // Soft groups of four VMs, two of them sharing a host where the snapshot allows.
        std::map<int, std::vector<int>> by_host;
        for (std::size_t v = 0; v < p.vms.size(); ++v) by_host[p.vms[v].host].push_back(static_cast<int>(v));
        int n = 0;
        for (const auto& [h, vms] : by_host)
            if (vms.size() >= 3) {
                std::string id = "soft";
                id += std::to_string(n++);
                p.server_groups.push_back(ServerGroup{id, GroupPolicy::SoftAntiAffinity, {vms[0], vms[1], vms[2]}});
            }
        p.objective_terms.emplace_back("soft-anti-affinity", 2.5);
        const CapacityModel m(p);
        ASSERT_EQ(m.terms().size(), 1U);
        const ObjectiveTerm& t = *m.terms()[0];
        SearchState s(m);
        std::vector<int> host(p.vms.size());
        std::vector<NodeMask> mask(p.vms.size(), 0);
        for (std::size_t v = 0; v < host.size(); ++v) host[v] = p.vms[v].host;
        const Score before = t.value(p, PlacementView{host, mask});
        EXPECT_LT(before, 0);
        std::mt19937_64 rng(seed);
        const int H = static_cast<int>(p.hosts.size()), V = static_cast<int>(p.vms.size());
        for (int k = 0; k < 4000; ++k) {  // one or two relocations: delta == value after - value before
            const int a = static_cast<int>(rng() % V), b = static_cast<int>(rng() % V);
            std::vector<Relocation> rs{{a, host[a], static_cast<int>(rng() % H), 0}};
            if (a != b && rng() % 2) rs.push_back({b, host[b], static_cast<int>(rng() % H), 0});
            std::vector<int> after = host;
            for (const Relocation& r : rs) after[r.vm] = r.to_host;
            EXPECT_EQ(t.delta(s, rs), t.value(p, PlacementView{after, mask}) - before);
            if (rs.size() == 1) {
                EXPECT_LE(static_cast<double>(t.delta(s, rs)), t.bound(s, std::vector<int>{a}));
            }
        }
        OptimizeParams op = params(seed);
        op.search.check_every = 50;  // the term's cached counts and value against a recount
        const OptimizeResult r = optimize(m, op);
        for (const PlanStep& st : r.plan.steps) host[st.vm] = st.to_host;
        spread_gain += static_cast<int>((t.value(p, PlacementView{host, mask}) - before) / (2500 * 1024));
        const PlanCheck c = validate_plan(m, plan_doc(p, r.plan), "<plan>");
        EXPECT_TRUE(c.ok) << c.error;
    }
    EXPECT_GT(spread_gain, 0) << "the search moved shared members apart";
}

TEST(PlacementRules, ValidateRefusesARemapWhereRemapsAreNotAllowed) {
    // A VM moves to another host, then is remapped there: a remap is a step, which the no-remaps
    // rule's from-scratch violation() cannot see, so validate checks each step itself.
    const RandomCluster rc{.fill = 0.3, .max_migrations = 10, .seed = 6};
    Problem p = make_random_problem(rc);
    const CapacityModel free_m(p);
    SearchState s(free_m);
    std::vector<PlanStep> steps;
    for (int v = 0; v < static_cast<int>(p.vms.size()) && steps.empty(); ++v) {
        if (!p.vms[v].migratable || p.flavors[p.vms[v].flavor].num_vnuma() != 1) continue;
        for (int h = 0; h < static_cast<int>(p.hosts.size()) && steps.empty(); ++h) {
            if (h == p.vms[v].host) continue;
            const auto& embs = free_m.evaluator(p.hosts[h].type, p.vms[v].flavor).placements();
            for (std::size_t a = 0; a < embs.size() && steps.empty(); ++a)
                for (std::size_t b = 0; b < embs.size() && steps.empty(); ++b) {
                    if (a == b || !step_fits(s, v, h, embs[a].map)) continue;
                    SearchState t = s;
                    t.move(v, h, embs[a]);
                    if (!step_fits(t, v, h, embs[b].map)) continue;
                    steps.push_back(PlanStep{v, p.vms[v].host, h, p.vms[v].pnuma, embs[a].map});
                    steps.push_back(PlanStep{v, h, h, embs[a].map, embs[b].map});
                }
        }
    }
    ASSERT_EQ(steps.size(), 2U);
    Plan plan;
    plan.steps = steps;
    SearchState t(free_m);
    for (PlanStep& st : plan.steps) {  // objectives as the validator recomputes them
        t.move(st.vm, st.to_host, embedding_of(st.to_pnuma, 1));
        st.score_after = t.objective();
        st.objective_after = to_objective(st.score_after);
    }
    plan.score_before = SearchState(free_m).objective();
    plan.score_after = t.objective();
    plan.objective_before = to_objective(plan.score_before);
    plan.objective_after = to_objective(plan.score_after);
    plan.steps[0].temporary = true;
    plan.capacity_before = cluster_capacity(free_m, compute_node_usage(p)).totals();
    Problem moved = p;
    moved.vms[steps[1].vm].host = steps[1].to_host;
    moved.vms[steps[1].vm].pnuma = steps[1].to_pnuma;
    plan.capacity_after = cluster_capacity(free_m, compute_node_usage(moved)).totals();
    plan.migrations = 2;
    plan.migrated_ram_mib = 2 * p.flavors[p.vms[steps[0].vm].flavor].demand[kRamMib];
    const auto doc = plan_doc(p, plan);
    EXPECT_TRUE(validate_plan(free_m, doc, "<plan>", true, false).ok) << validate_plan(free_m, doc, "<plan>", true, false).error;
    Problem q = p;
    q.constraints.remaps_allowed = false;
    const CapacityModel m(q);
    const PlanCheck c = validate_plan(m, doc, "<plan>", true, false);
    EXPECT_FALSE(c.ok);
    EXPECT_NE(c.error.find("steps[1]"), std::string::npos) << c.error;
    EXPECT_NE(c.error.find("remaps are not allowed"), std::string::npos) << c.error;
    // And the plan file records the rule, so that `vmcap validate` applies it without the snapshot.
    EXPECT_EQ(nlohmann::json::parse(plan_to_json(q, plan, PlanInfo{}).dump())["rules"]["remaps_allowed"], false);
}

TEST(PlacementRules, NoRemapsAllowsLeavingAHostAndComingBackOnOtherNodes) {
    // Where remaps are not allowed, a VM may still live-migrate to another host and later back
    // to its first host onto other pNUMA nodes: two host changes, each a step Nova can run (a
    // remap is one step within one host). The plan builder writes such pairs when it detours a
    // blocked VM; validate accepts them, and each costs two migrations of the budget.
    const RandomCluster rc{.fill = 0.3, .max_migrations = 10, .seed = 6};
    Problem p = make_random_problem(rc);
    p.constraints.remaps_allowed = false;
    const CapacityModel m(p);
    SearchState s(m);
    std::vector<PlanStep> steps;
    for (int v = 0; v < static_cast<int>(p.vms.size()) && steps.empty(); ++v) {
        if (!p.vms[v].migratable || p.flavors[p.vms[v].flavor].num_vnuma() != 1) continue;
        const int home = p.vms[v].host;
        const auto& back = m.evaluator(p.hosts[home].type, p.vms[v].flavor).placements();
        for (int h = 0; h < static_cast<int>(p.hosts.size()) && steps.empty(); ++h) {
            if (h == home) continue;
            const auto& away = m.evaluator(p.hosts[h].type, p.vms[v].flavor).placements();
            for (std::size_t a = 0; a < away.size() && steps.empty(); ++a) {
                if (!step_fits(s, v, h, away[a].map)) continue;
                SearchState t = s;
                t.move(v, h, away[a]);
                for (std::size_t b = 0; b < back.size() && steps.empty(); ++b)
                    if (back[b].map[0] != p.vms[v].pnuma[0] && step_fits(t, v, home, back[b].map)) {
                        steps.push_back(PlanStep{v, home, h, p.vms[v].pnuma, away[a].map});
                        steps.push_back(PlanStep{v, h, home, away[a].map, back[b].map});
                    }
            }
        }
    }
    ASSERT_EQ(steps.size(), 2U);
    Plan plan;
    plan.steps = steps;
    SearchState t(m);
    for (PlanStep& st : plan.steps) {  // objectives as the validator recomputes them
        t.move(st.vm, st.to_host, embedding_of(st.to_pnuma, 1));
        st.score_after = t.objective();
        st.objective_after = to_objective(st.score_after);
    }
    plan.steps[0].temporary = true;
    plan.score_before = SearchState(m).objective();
    plan.score_after = t.objective();
    plan.objective_before = to_objective(plan.score_before);
    plan.objective_after = to_objective(plan.score_after);
    plan.capacity_before = cluster_capacity(m, compute_node_usage(p)).totals();
    Problem moved = p;
    moved.vms[steps[1].vm].pnuma = steps[1].to_pnuma;
    plan.capacity_after = cluster_capacity(m, compute_node_usage(moved)).totals();
    plan.migrations = 2;
    plan.migrated_ram_mib = 2 * p.flavors[p.vms[steps[0].vm].flavor].demand[kRamMib];
    const PlanCheck c = validate_plan(m, plan_doc(p, plan), "<plan>", true, false);
    EXPECT_TRUE(c.ok) << c.error;
    // The same two steps as one, a remap on the VM's host, are refused.
    plan.steps = {PlanStep{steps[0].vm, steps[0].from_host, steps[0].from_host, steps[0].from_pnuma, steps[1].to_pnuma}};
    plan.steps[0].score_after = plan.score_after;
    plan.steps[0].objective_after = plan.objective_after;
    plan.migrations = 1;
    plan.migrated_ram_mib /= 2;
    const PlanCheck one = validate_plan(m, plan_doc(p, plan), "<plan>", true, false);
    EXPECT_FALSE(one.ok);
    EXPECT_NE(one.error.find("a remap, but remaps are not allowed"), std::string::npos) << one.error;
}

TEST(PlacementRules, NoRemapsPlansPassTheirOwnValidation) {
    // vmcap plan --no-remaps on random clusters: every plan validates, and some VMs leave their
    // host and come back on other pNUMA nodes (the plan builder's detours), so the case above
    // is exercised by the search's own plans.
    int returns = 0;
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const RandomCluster rc{.max_migrations = 40, .seed = seed};
        Problem p = make_random_problem(rc);
        p.constraints.remaps_allowed = false;
        const CapacityModel m(p);
        OptimizeParams op = params(seed);
        op.search.max_evaluations = 100000;
        const OptimizeResult r = optimize(m, op);
        std::map<int, std::pair<int, std::array<std::uint8_t, kMaxVNuma>>> first;  // vm -> first from host and nodes
        for (const PlanStep& st : r.plan.steps) {
            EXPECT_NE(st.from_host, st.to_host) << "a remap in a plan made without remaps";
            first.try_emplace(st.vm, st.from_host, st.from_pnuma);
            const auto& [home, nodes] = first.at(st.vm);
            const int k = p.flavors[p.vms[st.vm].flavor].num_vnuma();
            if (st.to_host == home && !std::equal(nodes.begin(), nodes.begin() + k, st.to_pnuma.begin())) ++returns;
        }
        const PlanCheck c = validate_plan(m, plan_doc(p, r.plan), "<plan>", true, false);
        EXPECT_TRUE(c.ok) << "seed " << seed << ": " << c.error;
    }
    EXPECT_GT(returns, 0) << "no plan had a VM come back to its host on other nodes: the case is not exercised";
}

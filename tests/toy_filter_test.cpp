// What a newcomer's feasibility rule costs (newcomer counts): "at most k VMs of a
// tenant per host", written here in one file against the FeasibilityFilter seam alone
// (evaluators/interfaces/seams.h) — the drivers, the moves, plan building and `vmcap validate` untouched.
// A real rule takes this class's two files plus one line in registered_filters
// (evaluators/registry/registry.cpp): three files. It keeps per-host tenant counts through the aggregate
// hooks the terms use, declares itself separable per host, and so keeps the annealing's host
// regions on at two threads. Oracles: the from-scratch count over every plan step (validate) and
// over the search's final placement, and --check over the cached counts.
// Declared to hold in flight (FeasibilityFilter::holds_in_flight), the same class is also kept by
// the schedule's waves and by `vmcap validate`'s schedule check with each migrating VM on both
// its hosts, still with no edit outside this file. Oracles: the test's own counts over every
// wave in flight, and the validator refusing a schedule built without the declaration.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fixtures.h"
#include "instances/generator.h"
#include "optimizer/search/annealing.h"
#include "optimizer/plan/plan.h"
#include "optimizer/plan/validate.h"
#include "optimizer/plan/waves.h"

namespace vmcap {
namespace {

/** What the toy rule declares of itself. */
struct Declares {
    bool in_flight = false;  ///< holds_in_flight(): the cap also holds with a wave's VMs on both ends
    bool arrivals = true;    ///< supports_arrivals() (the counts take kUnplaced as one more key)
    bool separable = true;   ///< separable_per_host() (true: it reads only the destination hosts' counts)
};

/** At most `k` VMs of one tenant per host; a host the snapshot already puts above k may not get
 *  more of that tenant. Tenants: tenant[vm], given. */
class TenantCapFilter final : public FeasibilityFilter {
public:
    TenantCapFilter(const Problem& p, std::vector<int> tenant, int k, Declares d = {})
        : tenant_(std::move(tenant)), k_(k), d_(d), snapshot_(counts(p, hosts_of(p))) {}

    std::string_view name() const override { return "tenant-cap"; }
    bool separable_per_host() const override { return d_.separable; }
    bool holds_in_flight() const override { return d_.in_flight; }
    bool supports_arrivals() const override { return d_.arrivals; }

    /** Per state: VMs of each (host, tenant), as a flat map. */
    struct Counts final : StateAggregates {
        std::map<std::pair<int, int>, int> n;
        std::unique_ptr<StateAggregates> clone() const override { return std::make_unique<Counts>(*this); }
    };
    std::unique_ptr<StateAggregates> make_aggregates(const SearchState& s) const override {
        std::vector<int> host(s.problem().vms.size());
        for (std::size_t v = 0; v < host.size(); ++v) host[v] = s.host_of(static_cast<int>(v));
        auto c = std::make_unique<Counts>();
        c->n = counts(s.problem(), host);
        return c;
    }
    void on_move(StateAggregates& agg, const SearchState&, const Relocation& r) const override {
        auto& n = static_cast<Counts&>(agg).n;
        if (r.from_host == r.to_host) return;
        --n[{r.from_host, tenant_[r.vm]}];
        ++n[{r.to_host, tenant_[r.vm]}];
    }
    std::string check_aggregates(const StateAggregates& cached, const SearchState& s) const override {
        auto fresh = make_aggregates(s);
        std::map<std::pair<int, int>, int> a = static_cast<const Counts&>(cached).n, b = static_cast<const Counts&>(*fresh).n;
        std::erase_if(a, [](const auto& e) { return e.second == 0; });
        std::erase_if(b, [](const auto& e) { return e.second == 0; });
        return a == b ? "" : "tenant counts differ";
    }

    bool admits(const SearchState& s, std::span<const Relocation> moves) const override {
        const auto& n = static_cast<const Counts*>(s.aggregates(*this))->n;
        for (std::size_t i = 0; i < moves.size(); ++i) {
            const Relocation& r = moves[i];
            if (r.from_host == r.to_host) continue;
            const int t = tenant_[r.vm];
            int c = count(n, r.to_host, t) + 1;  // with the earlier relocations of this move
            for (std::size_t j = 0; j < i; ++j)
                if (tenant_[moves[j].vm] == t) c += (moves[j].to_host == r.to_host) - (moves[j].from_host == r.to_host);
            if (c > std::max(k_, count(snapshot_, r.to_host, t))) return false;
        }
        return true;
    }
    std::string violation(const Problem& p, const PlacementView& pl) const override {
        for (const auto& [key, c] : counts(p, pl.host))
            if (c > std::max(k_, count(snapshot_, key.first, key.second)))
                return "host " + p.hosts[key.first].id + " holds " + std::to_string(c) + " VMs of tenant " + std::to_string(key.second);
        return "";
    }

private:
    static std::vector<int> hosts_of(const Problem& p) {
        std::vector<int> h;
        for (const Vm& v : p.vms) h.push_back(v.host);
        return h;
    }
    std::map<std::pair<int, int>, int> counts(const Problem& p, std::span<const int> host) const {
        std::map<std::pair<int, int>, int> n;
        for (std::size_t v = 0; v < p.vms.size(); ++v) ++n[{host[v], tenant_[v]}];
        return n;
    }
    static int count(const std::map<std::pair<int, int>, int>& n, int host, int tenant) {
        const auto it = n.find({host, tenant});
        return it == n.end() ? 0 : it->second;
    }

    std::vector<int> tenant_;
    int k_;
    Declares d_;
    std::map<std::pair<int, int>, int> snapshot_;
};

/** Most VMs of one tenant on one host, once the migrated VMs of `best` are placed there, beyond
 *  both k and the snapshot's count. */
int excess(const Problem& p, const std::vector<Placement>& best, const std::vector<int>& tenant, int k) {
    std::vector<int> host(p.vms.size());
    for (std::size_t v = 0; v < p.vms.size(); ++v) host[v] = p.vms[v].host;
    for (const Placement& pl : best) host[pl.vm] = pl.host;
    std::map<std::pair<int, int>, int> snap, now;
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        ++snap[{p.vms[v].host, tenant[v]}];
        ++now[{host[v], tenant[v]}];
    }
    int worst = 0;
    for (const auto& [key, c] : now) {
        const auto it = snap.find(key);
        worst = std::max(worst, c - std::max(k, it == snap.end() ? 0 : it->second));
    }
    return worst;
}

TEST(ToyFilter, TenantCapPerHostKeepsRegionsOnAndHolds) {
    GenerateOptions go;
    go.hosts = 40;
    go.vms = 1200;
    go.churn = 0.5;
    go.migration_budget = 0.05;
    go.seed = 3;
    const Problem p = generate_cluster(go);
    std::vector<int> tenant(p.vms.size());
    for (std::size_t v = 0; v < tenant.size(); ++v) tenant[v] = static_cast<int>(v % 3);  // three tenants
    const int k = 11;
    SearchParams sp;
    sp.threads = 2;
    sp.max_evaluations = 300000;
    sp.time_limit_s = 1e9;
    sp.quiet = true;

    // Unconstrained, the search piles some tenant above the cap: the rule has something to forbid.
    const CapacityModel plain(p);
    const SearchResult free_run = anneal(plain, sp);
    ASSERT_GT(excess(p, free_run.best, tenant, k), 0);

    CapacityModel m(p);
    m.add_filter(std::make_unique<TenantCapFilter>(p, tenant, k));
    sp.check_every = 50;  // SearchState::check_consistency every 50 applied moves: the cached counts too
    const SearchResult r = anneal(m, sp);
    EXPECT_EQ(r.regions, 2) << "a per-host rule keeps host regions on";
    EXPECT_GT(r.objective_best, r.objective_before);
    EXPECT_EQ(excess(p, r.best, tenant, k), 0);
    // Every step of the plan, from scratch, by the unchanged validator; the free plan is refused by name.
    const Plan plan = build_plan(m, r.best);
    const PlanCheck ok = validate_plan(m, nlohmann::json::parse(plan_to_json(p, plan, PlanInfo{}).dump()), "p");
    EXPECT_TRUE(ok.ok) << ok.error;
    const PlanCheck bad =
        validate_plan(m, nlohmann::json::parse(plan_to_json(p, build_plan(plain, free_run.best), PlanInfo{}).dump()), "p");
    EXPECT_FALSE(bad.ok);
    EXPECT_NE(bad.error.find("tenant"), std::string::npos) << bad.error;
}

/** The test's own in-flight check of a scheduled plan: per wave, from the state the earlier waves
 *  leave, each VM of the wave counted on its source and (if it changes host) its destination;
 *  returns how many (wave, host, tenant) counts exceed max(k, the snapshot's). */
int in_flight_excess(const Problem& p, const Plan& w, const std::vector<int>& tenant, int k) {
    std::vector<int> host(p.vms.size());
    std::map<std::pair<int, int>, int> snap;
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        host[v] = p.vms[v].host;
        ++snap[{host[v], tenant[v]}];
    }
    const auto cap = [&](int h, int t) {
        const auto it = snap.find({h, t});
        return std::max(k, it == snap.end() ? 0 : it->second);
    };
    int bad = 0;
    for (std::size_t i = 0; i < w.steps.size();) {
        std::size_t j = i;
        while (j < w.steps.size() && w.steps[j].wave == w.steps[i].wave) ++j;
        std::map<std::pair<int, int>, int> n;
        for (std::size_t v = 0; v < p.vms.size(); ++v) ++n[{host[v], tenant[v]}];
        for (std::size_t x = i; x < j; ++x)
            if (w.steps[x].from_host != w.steps[x].to_host) ++n[{w.steps[x].to_host, tenant[w.steps[x].vm]}];
        for (const auto& [key, c] : n) bad += c > cap(key.first, key.second) ? 1 : 0;
        for (std::size_t x = i; x < j; ++x) host[w.steps[x].vm] = w.steps[x].to_host;
        i = j;
    }
    return bad;
}

/** The wave-order schedule of `w` as a plan file, every step moved into wave 1 (times as the
 *  duration model gives them): the schedule that runs all the plan's steps at once. */
nlohmann::json all_in_one_wave(const Problem& p, const Plan& w) {
    auto doc = nlohmann::json::parse(plan_to_json(p, w, PlanInfo{}).dump());
    double end = 0.0;
    for (std::size_t i = 0; i < w.steps.size(); ++i) {
        const PlanStep& st = w.steps[i];
        auto& d = doc["steps"][i];
        d["wave"] = 1;
        d["start_s"] = 0.0;
        d["end_s"] = DurationModel{}.seconds(p.flavors[p.vms[st.vm].flavor].demand[kRamMib], st.mbps);
        end = std::max(end, d["end_s"].get<double>());
    }
    doc["schedule"]["waves"] = 1;
    doc["schedule"]["makespan_s"] = end;
    return doc;
}

TEST(ToyFilter, TenantCapInFlightSplitsAWaveThatSequenceAllows) {
    // a: H1 -> H2, then b: H3 -> H1, a and b of one tenant, at most one per host. In sequence the
    // cap holds (a has left H1); in one wave a is still on H1 when b lands there.
    test::RandomCluster rc;
    rc.seed = 9;
    rc.fill = 0.3;
    rc.max_migrations = 10;
    Problem p = test::make_random_problem(rc);
    int a = -1, b = -1;
    for (std::size_t v = 0; v < p.vms.size() && b < 0; ++v)
        for (std::size_t u = v + 1; u < p.vms.size() && b < 0; ++u)
            if (p.vms[v].host != p.vms[u].host && p.vms[v].migratable && p.vms[u].migratable &&
                p.flavors[p.vms[v].flavor].num_vnuma() == 1 && p.flavors[p.vms[u].flavor].num_vnuma() == 1)
                a = static_cast<int>(v), b = static_cast<int>(u);
    ASSERT_GE(b, 0);
    std::vector<int> tenant(p.vms.size());
    for (std::size_t v = 0; v < tenant.size(); ++v) tenant[v] = static_cast<int>(v);  // every VM its own tenant
    tenant[b] = tenant[a];
    const int h1 = p.vms[a].host, h3 = p.vms[b].host;
    int h2 = 0;
    while (h2 == h1 || h2 == h3) ++h2;
    // H3 drained: every step up to b's (which leaves it) is kept, whatever the objective says.
    p.constraints.drain_hosts = {h3};
    const auto model = [&](const Problem& q, bool in_flight) {
        auto m = std::make_unique<CapacityModel>(q);
        m->add_filter(std::make_unique<TenantCapFilter>(q, tenant, 1, Declares{.in_flight = in_flight}));
        return m;
    };
    const auto final_only = model(p, false), in_flight = model(p, true);
    SearchState s(*in_flight);
    std::vector<PlanStep> steps;
    for (auto [vm, to] : {std::pair{a, h2}, std::pair{b, h1}}) {
        PlanStep st;
        st.vm = vm;
        st.from_host = s.host_of(vm);
        st.to_host = to;
        st.from_pnuma = p.vms[vm].pnuma;
        bool found = false;
        for (const Embedding& e : in_flight->evaluator(p.hosts[to].type, p.vms[vm].flavor).placements())
            if (!found && step_fits(s, vm, to, e.map)) st.to_pnuma = e.map, found = true;
        ASSERT_TRUE(found) << "the rule admits both steps in sequence";
        s.move(vm, to, embedding_of(st.to_pnuma, 1));
        steps.push_back(st);
    }
    const Plan plan = plan_from_steps(*in_flight, steps);
    ASSERT_EQ(plan.steps.size(), 2U);
    const MigrationLimits loose{4, 4, 0};
    const Plan together = schedule_plan(*final_only, plan, loose, DurationModel{});
    const Plan apart = schedule_plan(*in_flight, plan, loose, DurationModel{});
    ASSERT_EQ(together.steps.size(), 2U);
    ASSERT_EQ(apart.steps.size(), 2U);
    EXPECT_EQ(together.schedule->waves, 1) << "checked only at wave boundaries, both run at once";
    EXPECT_EQ(apart.schedule->waves, 2) << "held in flight, b waits until a has left";
    EXPECT_GT(in_flight_excess(p, together, tenant, 1), 0);
    EXPECT_EQ(in_flight_excess(p, apart, tenant, 1), 0);

    // Validated without the drain (H3 keeps its other VMs; the drain only kept the steps).
    Problem pv = p;
    pv.constraints.drain_hosts.clear();
    const auto v_final = model(pv, false), v_flight = model(pv, true);
    const auto doc = [&](const Plan& w) { return nlohmann::json::parse(plan_to_json(p, w, PlanInfo{}).dump()); };
    const PlanCheck ok = validate_plan(*v_flight, doc(apart), "<plan>", true, false);
    EXPECT_TRUE(ok.ok) << ok.error;
    const PlanCheck merged_final = validate_plan(*v_final, doc(together), "<plan>", true, false);
    EXPECT_TRUE(merged_final.ok) << merged_final.error;
    const PlanCheck merged = validate_plan(*v_flight, doc(together), "<plan>", true, false);
    EXPECT_FALSE(merged.ok);
    EXPECT_NE(merged.error.find("wave in flight"), std::string::npos) << merged.error;
    EXPECT_NE(merged.error.find("tenant-cap rule: host " + p.hosts[h1].id + " holds 2 VMs of tenant"), std::string::npos) << merged.error;
    EXPECT_NE(merged.error.find("steps[1]"), std::string::npos) << "b's step is the one refused: " << merged.error;
}

TEST(ToyFilter, TenantCapInFlightHoldsOverSearchedPlans) {
    GenerateOptions go;
    go.hosts = 40;
    go.vms = 1200;
    go.churn = 0.5;
    go.migration_budget = 0.05;
    go.seed = 3;
    const Problem p = generate_cluster(go);
    std::vector<int> tenant(p.vms.size());
    for (std::size_t v = 0; v < tenant.size(); ++v) tenant[v] = static_cast<int>(v % 3);
    const int k = 11;
    CapacityModel final_only(p), in_flight(p), in_flight_all(p);
    final_only.add_filter(std::make_unique<TenantCapFilter>(p, tenant, k));
    in_flight.add_filter(std::make_unique<TenantCapFilter>(p, tenant, k, Declares{.in_flight = true}));
    // Declared not separable: InFlightWave then shows it every arrival of the wave, not only
    // those on the same destination.
    in_flight_all.add_filter(std::make_unique<TenantCapFilter>(p, tenant, k, Declares{.in_flight = true, .separable = false}));
    SearchParams sp;
    sp.threads = 1;
    sp.max_evaluations = 100000;
    sp.time_limit_s = 1e9;
    sp.quiet = true;
    const SearchResult r = anneal(in_flight, sp);
    const Plan plan = build_plan(in_flight, r.best);
    ASSERT_GT(plan.steps.size(), 20U);
    const MigrationLimits loose{8, 8, 0};
    const Plan free_w = schedule_plan(final_only, plan, loose, DurationModel{});
    const Plan w = schedule_plan(in_flight, plan, loose, DurationModel{});
    // Without the declaration some wave breaks the cap in flight: the rule has something to forbid.
    ASSERT_GT(in_flight_excess(p, free_w, tenant, k), 0);
    EXPECT_EQ(in_flight_excess(p, w, tenant, k), 0);
    EXPECT_GT(w.schedule->waves, free_w.schedule->waves);
    EXPECT_EQ(w.score_after, free_w.score_after) << "the same end state";
    // The same-destination arrivals decide as all of them do (a rule that is separable per host).
    const Plan all_w = schedule_plan(in_flight_all, plan, loose, DurationModel{});
    ASSERT_EQ(all_w.steps.size(), w.steps.size());
    for (std::size_t i = 0; i < w.steps.size(); ++i) {
        EXPECT_EQ(all_w.steps[i].vm, w.steps[i].vm) << i;
        EXPECT_EQ(all_w.steps[i].wave, w.steps[i].wave) << i;
    }
    const PlanCheck ok = validate_plan(in_flight, nlohmann::json::parse(plan_to_json(p, w, PlanInfo{}).dump()), "p");
    EXPECT_TRUE(ok.ok) << ok.error;
    const PlanCheck bad = validate_plan(in_flight, nlohmann::json::parse(plan_to_json(p, free_w, PlanInfo{}).dump()), "p");
    EXPECT_FALSE(bad.ok);
    EXPECT_NE(bad.error.find("with the wave in flight (each VM on its source and its destination), tenant-cap rule"), std::string::npos)
        << bad.error;
    // Every step in one wave: refused too, at a step the test's own count also flags.
    EXPECT_FALSE(validate_plan(in_flight, all_in_one_wave(p, w), "p").ok);
}

TEST(ToyFilter, AFilterHeldInFlightMustSupportArrivals) {
    const Problem p = generate_cluster(GenerateOptions{});
    CapacityModel m(p);
    std::vector<int> tenant(p.vms.size(), 0);
    EXPECT_THROW(m.add_filter(std::make_unique<TenantCapFilter>(p, tenant, 1, Declares{.in_flight = true, .arrivals = false})),
                 std::logic_error);
    EXPECT_NO_THROW(m.add_filter(std::make_unique<TenantCapFilter>(p, tenant, 1, Declares{.in_flight = true})));
}

}  // namespace
}  // namespace vmcap

// What a newcomer's feasibility rule costs (newcomer counts): "at most k VMs of a
// tenant per host", written here in one file against the FeasibilityFilter seam alone
// (evaluators/objective/objective.h) — the drivers, the moves, plan building and `vmcap validate` untouched.
// A real rule takes this class's two files plus one line in registered_filters
// (evaluators/objective/objective.cpp): three files. It keeps per-host tenant counts through the aggregate
// hooks the terms use, declares itself separable per host, and so keeps the annealing's host
// regions on at two threads. Oracles: the from-scratch count over every plan step (validate) and
// over the search's final placement, and --check over the cached counts.
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

namespace vmcap {
namespace {

/** At most `k` VMs of one tenant per host; a host the snapshot already puts above k may not get
 *  more of that tenant. Tenants: tenant[vm], given. */
class TenantCapFilter final : public FeasibilityFilter {
public:
    TenantCapFilter(const Problem& p, std::vector<int> tenant, int k)
        : tenant_(std::move(tenant)), k_(k), snapshot_(counts(p, hosts_of(p))) {}

    std::string_view name() const override { return "tenant-cap"; }
    bool separable_per_host() const override { return true; }  // reads only the destination hosts' counts

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

}  // namespace
}  // namespace vmcap

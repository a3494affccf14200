// What a newcomer's objective term costs (newcomer counts): "W per empty host" (a host emptied is
// one the operator may power off or hand to a large request), written here in one file against
// the ObjectiveTerm seam alone (evaluators/interfaces/seams.h) and added to a model with
// CapacityModel::add_term — no registry entry, no edit in the search, the moves, plan building or
// `vmcap validate`. A real term takes this class's two files plus one line in registered_terms
// (evaluators/registry/registry.cpp), which gives it `--<name> W` on the command line: three
// files. It keeps VMs per host through the aggregate hooks, declares itself separable per host
// (the move cache and the annealing's host regions stay on) and monotone under insertion.
// Oracles: the search's --check (every applied move's delta against the objective, and the term's
// value and aggregates recomputed from scratch every few moves; a term with a wrong delta is
// caught), the test's own count of empty hosts plus the VMCAP objective recomputed the slow way
// (fixtures.h full_objective), and `vmcap validate` on the plan; and the search raising the term.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <set>
#include <string>
#include <vector>

#include "evaluators/closed_forms/score.h"
#include "evaluators/state/capacity_model.h"
#include "evaluators/state/search_state.h"
#include "instances/generator.h"
#include "optimizer/plan/plan.h"
#include "optimizer/plan/validate.h"
#include "optimizer/search/annealing.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

/** +W (objective units) per host without a VM. With `off_by_one`, delta() also pays for a host
 *  left with one VM (a wrong delta, for the test that --check catches it). */
class EmptyHostsTerm final : public ObjectiveTerm {
public:
    explicit EmptyHostsTerm(double weight, bool off_by_one = false) : w_(weight), unit_(weight_units(weight)), off_by_one_(off_by_one) {}

    std::string_view name() const override { return "empty-hosts"; }
    double weight() const override { return w_; }
    /** A relocation changes only the VM counts of the hosts it leaves and enters. */
    bool separable_per_host() const override { return true; }
    /** A VM arriving on a host can only fill it: never raises the term. */
    bool monotone_under_insertion() const override { return true; }

    /** Per state: VMs per host. */
    struct Counts final : StateAggregates {
        std::vector<int> n;
        std::unique_ptr<StateAggregates> clone() const override { return std::make_unique<Counts>(*this); }
    };
    std::unique_ptr<StateAggregates> make_aggregates(const SearchState& s) const override {
        auto c = std::make_unique<Counts>();
        c->n.assign(s.problem().hosts.size(), 0);
        for (int v = 0; v < static_cast<int>(s.problem().vms.size()); ++v)
            if (s.host_of(v) != kUnplaced) ++c->n[s.host_of(v)];
        return c;
    }
    void on_move(StateAggregates& agg, const SearchState&, const Relocation& r) const override {
        auto& n = static_cast<Counts&>(agg).n;
        if (r.from_host != kUnplaced) --n[r.from_host];
        if (r.to_host != kUnplaced) ++n[r.to_host];
    }
    bool supports_arrivals() const override { return true; }
    std::string check_aggregates(const StateAggregates& cached, const SearchState& s) const override {
        return static_cast<const Counts&>(cached).n == static_cast<const Counts&>(*make_aggregates(s)).n ? "" : "VM counts per host differ";
    }

    /** +W for each host the relocations empty, -W for each empty host they enter, in order. O(moves^2). */
    Score delta(const SearchState& s, std::span<const Relocation> moves) const override {
        const auto& n = static_cast<const Counts*>(s.aggregates(*this))->n;
        const auto vms_on = [&](int h, std::size_t i) {  // VMs on h before relocation i
            int c = n[h];
            for (std::size_t j = 0; j < i; ++j) c += (moves[j].to_host == h) - (moves[j].from_host == h);
            return c;
        };
        Score d = 0;
        for (std::size_t i = 0; i < moves.size(); ++i) {
            const Relocation& r = moves[i];
            if (r.from_host == r.to_host) continue;
            if (r.from_host != kUnplaced && vms_on(r.from_host, i) <= (off_by_one_ ? 2 : 1)) d += unit_;
            if (r.to_host != kUnplaced && vms_on(r.to_host, i) == 0) d -= unit_;
        }
        return d;
    }
    /** At best every host of the listed VMs is emptied. */
    double bound(const SearchState& s, std::span<const int> vms) const override {
        std::set<int> hosts;
        for (int v : vms)
            if (s.host_of(v) != kUnplaced) hosts.insert(s.host_of(v));
        return static_cast<double>(unit_) * static_cast<double>(hosts.size());
    }
    /** From scratch. O(VMs + hosts). */
    Score value(const Problem& p, const PlacementView& pl) const override {
        std::vector<int> n(p.hosts.size(), 0);
        for (int h : pl.host)
            if (h != kUnplaced) ++n[h];
        return unit_ * static_cast<Score>(std::count(n.begin(), n.end(), 0));
    }

private:
    double w_;
    Score unit_;
    bool off_by_one_;
};

/** The test's own count: hosts without a VM once `best` is applied to the snapshot. */
int empty_hosts(const Problem& p, const std::vector<Placement>& best) {
    std::vector<int> host(p.vms.size());
    for (std::size_t v = 0; v < p.vms.size(); ++v) host[v] = p.vms[v].host;
    for (const Placement& pl : best) host[pl.vm] = pl.host;
    std::set<int> used(host.begin(), host.end());
    return static_cast<int>(p.hosts.size() - used.size());
}

Problem sparse_cluster() {
    GenerateOptions go;
    go.hosts = 40;  // two host regions of at least SearchParams::kMinRegionHosts
    go.vms = 220;   // a sparse cluster: hosts can be emptied within the budget
    go.churn = 0.5;
    go.migration_budget = 0.15;
    go.seed = 5;
    return generate_cluster(go);
}

SearchParams params() {
    SearchParams sp;
    sp.threads = 2;
    sp.max_evaluations = 200000;
    sp.time_limit_s = 1e9;
    sp.quiet = true;
    sp.check_every = 50;  // every applied move's delta checked; from scratch every 50 moves: the term's value and counts too
    return sp;
}

TEST(ToyTerm, EmptyHostsIsExactUnderCheckAndTheSearchRaisesIt) {
    const Problem p = sparse_cluster();
    const CapacityModel plain(p);
    const SearchResult free_run = anneal(plain, params());

    CapacityModel m(p);
    m.add_term(std::make_unique<EmptyHostsTerm>(2.0));
    const SearchResult r = anneal(m, params());  // throws on any delta or aggregate that differs from scratch
    EXPECT_EQ(r.regions, 2) << "a term separable per host keeps host regions on";
    EXPECT_GT(r.objective_best, r.objective_before);
    // The search raises the term: more empty hosts than the same search without it.
    EXPECT_GT(empty_hosts(p, r.best), empty_hosts(p, free_run.best));

    // The objective of the best state, the slow way: VMCAP per host from the VM list plus the test's count.
    SearchState end(m);
    end.set_placements(r.best);
    EXPECT_EQ(r.score_best, test::full_objective(m, end) + weight_units(2.0) * empty_hosts(p, r.best));
    // The plan by the unchanged builder, every step re-checked by the unchanged validator.
    const Plan plan = build_plan(m, r.best);
    const PlanCheck c = validate_plan(m, nlohmann::json::parse(plan_to_json(p, plan, PlanInfo{}).dump()), "p");
    EXPECT_TRUE(c.ok) << c.error;
}

TEST(ToyTerm, CheckCatchesATermWithAWrongDelta) {
    const Problem p = sparse_cluster();
    CapacityModel m(p);
    m.add_term(std::make_unique<EmptyHostsTerm>(2.0, true));
    EXPECT_THROW(anneal(m, params()), std::logic_error);
}

}  // namespace
}  // namespace vmcap

// The objective / feasibility seam (evaluators/interfaces/seams.h): a further objective term (RAM cost)
// and a feasibility filter reach every move kind, the search and validation without any edit in
// the drivers; and the checks that would catch a wrong delta — for random candidates of every
// kind, the bound used for threshold-first rejection is >= the exact delta and -infinity only when
// the move is infeasible, and the applied move changes the objective by exactly the delta.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "evaluators/objective/ram_cost_term.h"
#include "moves/move_list.h"
#include "optimizer/search/annealing.h"
#include "optimizer/search/candidates.h"
#include "optimizer/solvers/exact.h"
#include "optimizer/plan/plan.h"
#include "optimizer/bound/upper_bound.h"
#include "optimizer/plan/validate.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

using test::DrainFilter;
using test::full_objective;
using test::make_random_problem;
using test::RandomCluster;

/** RAM cost the slow way, in score units: W (thousandths) x MiB of every VM off its snapshot placement. */
Score ram_cost_from_scratch(const SearchState& s, double w) {
    const Problem& p = s.problem();
    Score mib = 0;
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        const Vm& vm = p.vms[v];
        const bool moved = s.host_of(static_cast<int>(v)) != vm.host ||
                           s.mask_of(static_cast<int>(v)) != node_mask(vm.pnuma.data(), p.flavors[vm.flavor].num_vnuma());
        if (moved) mib += p.flavors[vm.flavor].demand[kRamMib];
    }
    return -weight_milli(w) * mib;
}

/** -W x sum over vlinks of Mbps x (different ToR switch), from the placement: the locality term's
 *  value recomputed here on its own (the networks of these tests have no pods). */
Score locality_from_scratch(const SearchState& s, double w) {
    const Problem& p = s.problem();
    Score mbps = 0;
    for (const Vlink& v : p.vlinks) {
        const int x = s.host_of(v.a), y = s.host_of(v.b);
        if (x != y && p.network.host_switch[x] != p.network.host_switch[y]) mbps += v.mbps;
    }
    return -weight_milli(w) * 1024 * mbps;
}

struct Stats {
    int evaluated[kKinds] = {}, feasible[kKinds] = {}, applied[kKinds] = {}, bounded[kKinds] = {};
    int tight[kKinds] = {};  ///< feasible moves whose bound is within 0.25 of the exact delta
};

/**
 * Random candidates of every kind (an even mix) on a fragmented cluster; for each: the bound is
 * >= the exact delta (and -infinity only if infeasible), the cached evaluation equals the uncached
 * one, and for accepted ones the objective after apply minus before equals the delta, the VMCAP
 * part equals a full recomputation, and the term part equals its from-scratch value.
 */
void check_random_candidates(const std::string& topology, std::uint64_t seed, double ram_cost, Stats& st, double locality = 0.0,
                             bool bandwidth = false) {
    RandomCluster rc;
    rc.host_topology = topology;
    rc.hosts = 10;
    rc.seed = seed;
    rc.max_migrations = 8;
    rc.fill = 0.75;
    Problem p = make_random_problem(rc);
    if (ram_cost > 0) p.objective_terms.emplace_back("ram-cost", ram_cost);
    if (locality > 0) {
        test::add_leaf_spine(p, seed * 31 + 7, 2000, 2500, 20, 300);
        p.objective_terms.emplace_back("locality-weight", locality);
    }
    if (bandwidth) {  // hose bandwidths that bind on NICs, ToR uplinks and the pod's uplinks
        std::mt19937_64 bw(seed);
        for (Flavor& f : p.flavors) f.bandwidth_mbps = f.is_target() ? 400 + static_cast<std::int64_t>(bw() % 800) : 0;
        for (std::size_t h = 0; h < p.hosts.size(); ++h) p.hosts[h].pod = h % 3 == 2 ? "" : "pod0";  // racks 0, 1 share a pod
        if (!p.network.present()) test::add_leaf_spine(p, seed * 31 + 7, 2000, 2500, 20, 300);
        // Room for the snapshot's vlinks, so that caps bind without being all 0.
        for (auto& ht : p.host_types) ht.nic_mbps = 6000;
        for (NetLink& l : p.network.links) l.mbps = 6000;
        for (Vlink& v : p.vlinks) v.mbps = std::max<std::int64_t>(1, v.mbps / 4);
        p.network.switches.push_back("core");  // the pod's uplinks: both spines to a core switch
        p.network.links.push_back(NetLink{3, 5, 4000});
        p.network.links.push_back(NetLink{4, 5, 4000});
    }
    const CapacityModel m(p);
    ASSERT_EQ(m.has_terms(), ram_cost > 0 || locality > 0 || bandwidth);
    ASSERT_EQ(m.has_filters(), locality > 0);  // the link-capacity rule comes with the vlinks
    SearchState s(m);
    if (bandwidth) {
        ASSERT_LT(test::bandwidth_capped_objective(m, s), full_objective(m, s));  // the caps bind
    }
    MoveCache cache(s);
    Proposal pr;
    Rng rng(seed, 99);
    std::vector<int> movable;
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        if (p.vms[v].migratable) movable.push_back(static_cast<int>(v));
    pr.start(rng, movable.size());
    MoveMix mix;
    for (int k = 1; k < kKinds; ++k) mix.share[k] = 1.0 / kKinds;
    const auto cum = mix.cumulative();
    std::mt19937_64 coin(seed);
    for (int it = 0; it < 3000; ++it) {
        ProposalContext ctx{s, cache, movable, pr, rng};
        const Candidate c = propose<Moves>(ctx, cum);
        ++st.evaluated[c.kind];
        const double ub = upper_bound(c, s, cache);
        const CandidateDelta d = evaluate(c, s, cache);
        SCOPED_TRACE(std::string(Moves::kNames[c.kind]) + " #" + std::to_string(it) + " seed " + std::to_string(seed) + " " + topology);
        // The uncached complete evaluation agrees with the cached one.
        visit_kind(c.kind, [&](auto k) {
            const auto u = score_move(c.get<k()>(), s);
            ASSERT_EQ(u.feasible, d.feasible);
            if (d.feasible) {
                ASSERT_EQ(u.delta, d.delta);
                ASSERT_EQ(u.migrations_after, d.migrations_after);
            }
        });
        if (ub == -kNoBound) {
            ASSERT_FALSE(d.feasible) << "bound says infeasible, evaluation says feasible";
        }
        if (ub != kNoBound) ++st.bounded[c.kind];
        if (!d.feasible) continue;
        ++st.feasible[c.kind];
        ASSERT_GE(ub, static_cast<double>(d.delta)) << "bound below the exact delta";
        if (ub != kNoBound && ub - static_cast<double>(d.delta) < 0.25 * static_cast<double>(kScoreScale)) ++st.tight[c.kind];
        // Apply a third of the feasible moves (the state wanders), and every gather (rarely
        // feasible under the link rule: a pair's vlink crosses the network between its steps).
        if (coin() % 3 != 0 && c.kind != kind_index("gather")) continue;
        const Score before = s.objective();
        apply(c, s, d);
        ++st.applied[c.kind];
        ASSERT_EQ(s.objective() - before, d.delta) << "applied delta differs from the evaluated one";
        ASSERT_EQ(s.migrations(), d.migrations_after);
        ASSERT_EQ(s.objective(), (bandwidth ? test::bandwidth_capped_objective(m, s) : full_objective(m, s)) +
                                     ram_cost_from_scratch(s, ram_cost) + (locality > 0 ? locality_from_scratch(s, locality) : 0));
        if (st.applied[c.kind] % 20 == 0) {
            ASSERT_NO_THROW(s.check_consistency());
        }
    }
    ASSERT_NO_THROW(s.check_consistency());
}

/** Every kind was evaluated, found feasible and applied often enough for the checks to bite.
 *  Without vlinks the gather move is never proposed (its draws fall back to migrate). */
void expect_every_kind_exercised(const Stats& st, bool vlinks) {
    for (int k = 0; k < kKinds; ++k) {
        SCOPED_TRACE(std::string(Moves::kNames[k]));
        if (!vlinks && k == kind_index("gather")) {
            EXPECT_EQ(st.evaluated[k], 0);
            continue;
        }
        EXPECT_GT(st.evaluated[k], 50);
        EXPECT_GT(st.feasible[k], 5);
        EXPECT_GT(st.applied[k], 1);
    }
}

class CandidateProperties : public ::testing::TestWithParam<std::tuple<std::string, double>> {};

TEST_P(CandidateProperties, BoundAboveDeltaAndAppliedDeltaExact) {
    Stats st;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        check_random_candidates(std::get<0>(GetParam()), seed, std::get<1>(GetParam()), st);
        if (HasFatalFailure()) return;
    }
    expect_every_kind_exercised(st, false);
    for (int k = 0; k < kKinds; ++k) {
        SCOPED_TRACE(std::string(Moves::kNames[k]));
        if (Moves::kCompound[k] && k != kind_index("gather")) {  // gather: not proposed without vlinks
            EXPECT_GT(st.bounded[k], 10);
        }
        // A bound that is never close to the delta would let an under-estimating mutation pass:
        // exchange and ejection bounds are exact in many cases (swap bounds on these clusters
        // never are: both insertions cost capacity).
        if (std::get<1>(GetParam()) == 0.0 && (k == kind_index("exchange") || k == kind_index("ejection"))) {
            EXPECT_GT(st.tight[k], 20);
        }
    }
}

// The network: link-capacity filter (with its per-state loads) and the locality term, together
// with the RAM cost, through every move kind.
TEST(CandidatePropertiesNetwork, LinkRuleAndLocalityTermExactThroughEveryKind) {
    Stats st;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        check_random_candidates("CQ3", seed, 0.25, st, 0.002);
        if (HasFatalFailure()) return;
    }
    expect_every_kind_exercised(st, true);
}

// Bandwidth-aware capacity (hose bandwidth per target flavor) on top: its exact delta through
// every move kind, against the capacity re-derived from scratch in the fixture.
TEST(CandidatePropertiesNetwork, BandwidthAwareCapacityExactThroughEveryKind) {
    Stats st;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        check_random_candidates(seed % 2 ? "CQ3" : "K4", seed, 0.0, st, 0.002, true);
        if (HasFatalFailure()) return;
    }
    expect_every_kind_exercised(st, true);
}

TEST(LocalityTerm, DeltaByHandAndASwapOfTwoLinkedVmsCountsTheirVlinkOnce) {
    RandomCluster rc;
    rc.hosts = 6;
    rc.seed = 3;
    Problem p = make_random_problem(rc);
    test::add_leaf_spine(p, 38, 2000, 2500, 20, 300);
    // Two VMs under different ToRs (host index mod 3), joined by one 100-Mbps vlink.
    int a = -1, b = -1;
    for (std::size_t v = 0; v < p.vms.size() && b < 0; ++v)
        for (std::size_t w = 0; w < p.vms.size(); ++w)
            if (p.vms[v].host % 3 != p.vms[w].host % 3) {
                a = static_cast<int>(v), b = static_cast<int>(w);
                break;
            }
    ASSERT_GE(b, 0);
    p.vlinks = {Vlink{a, b, 100, -1}};
    p.objective_terms.emplace_back("locality-weight", 0.5);
    const CapacityModel m(p);
    const SearchState s(m);
    const ObjectiveTerm& t = *m.terms()[0];
    const int ha = p.vms[a].host, hb = p.vms[b].host;
    const Score one = weight_milli(0.5) * 1024 * 100;  // 0.5 objective units per Mbps x 100 Mbps
    std::vector<int> host;
    std::vector<NodeMask> mask;
    s.placement_arrays(host, mask);
    EXPECT_EQ(t.value(p, PlacementView{host, mask}), -one);
    const Relocation join{a, ha, hb, 0};
    EXPECT_EQ(t.delta(s, std::span(&join, 1)), one);  // a joins b's host: the crossing is gone
    const Relocation swap[2] = {{a, ha, hb, 0}, {b, hb, ha, 0}};
    EXPECT_EQ(t.delta(s, swap), 0);  // they trade places: still one crossing, counted once
}

INSTANTIATE_TEST_SUITE_P(Kinds, CandidateProperties,
                         ::testing::Combine(::testing::Values("CQ3", "K4", "2xK4"), ::testing::Values(0.0, 0.25)),
                         [](const auto& i) { return std::get<0>(i.param) + (std::get<1>(i.param) > 0 ? "_ramcost" : "_vmcap"); });

TEST(RamCostTerm, DeltaAndValueByHand) {
    RandomCluster rc;
    rc.hosts = 6;
    rc.max_migrations = 100;
    Problem p = make_random_problem(rc);
    p.objective_terms.emplace_back("ram-cost", 2.0);
    const CapacityModel m(p);
    ASSERT_EQ(m.terms().size(), 1u);
    EXPECT_EQ(m.terms()[0]->name(), "ram-cost");
    EXPECT_TRUE(m.terms_separable());
    EXPECT_TRUE(m.terms_monotone());
    SearchState s(m);
    EXPECT_EQ(s.terms_value(), 0);  // nothing migrated yet
    // Migrate the first VM that can go somewhere: the term falls by 2 per GiB.
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        for (std::size_t h = 0; h < p.hosts.size(); ++h) {
            const MigrateMove mv{static_cast<int>(v), static_cast<int>(h)};
            const MigrateDelta vmcap_only = mv.evaluate(s);
            if (!vmcap_only.feasible) continue;
            const Score cost = 2000 * p.flavors[p.vms[v].flavor].demand[kRamMib];  // W = 2: 2000 thousandths per MiB
            const MigrateDelta full = score_move(mv, s);
            EXPECT_EQ(full.delta, vmcap_only.delta - cost);
            mv.apply(s, full);
            EXPECT_EQ(s.terms_value(), -cost);
            // Back home: the cost is refunded.
            const ReturnMove back{static_cast<int>(v)};
            const ReturnDelta rd = score_move(back, s);
            ASSERT_TRUE(rd.feasible);
            EXPECT_EQ(rd.delta, back.evaluate(s).delta + cost);
            back.apply(s, rd);
            EXPECT_EQ(s.terms_value(), 0);
            return;
        }
    FAIL() << "no feasible migration";
}

TEST(RamCostTerm, UnknownTermAndBadWeightRejected) {
    RandomCluster rc;
    Problem p = make_random_problem(rc);
    p.objective_terms.emplace_back("bandwidth", 1.0);
    EXPECT_THROW(CapacityModel{p}, std::invalid_argument);
    p.objective_terms.back() = {"ram-cost", -1.0};
    EXPECT_THROW(CapacityModel{p}, std::invalid_argument);
    p.objective_terms.back() = {"ram-cost", 0.0};  // weight 0: off
    EXPECT_FALSE(CapacityModel{p}.has_terms());
}

TEST(RamCostTerm, SearchTradesCapacityForLessRamAndValidates) {
    RandomCluster rc;
    rc.hosts = 16;
    rc.max_migrations = 20;
    rc.fill = 0.75;
    Problem p = make_random_problem(rc);
    SearchParams sp;
    sp.max_evaluations = 200000;
    sp.quiet = true;
    const CapacityModel plain(p);
    const Plan a = build_plan(plain, anneal(plain, sp).best);
    p.objective_terms.emplace_back("ram-cost", 0.2);
    const CapacityModel costly(p);
    const Plan b = build_plan(costly, anneal(costly, sp).best);
    ASSERT_GT(a.migrated_ram_mib, 0);
    EXPECT_LT(b.migrated_ram_mib, a.migrated_ram_mib);
    // The written objective includes the cost, and validation recomputes it from scratch.
    const auto doc = nlohmann::json::parse(plan_to_json(p, b, PlanInfo{}).dump());
    ASSERT_TRUE(doc.contains("objective_terms"));
    const PlanCheck ok = validate_plan(costly, doc, "p");
    EXPECT_TRUE(ok.ok) << ok.error;
    // Validated against VMCAP alone, the stated objective no longer matches.
    const PlanCheck wrong = validate_plan(plain, doc, "p");
    EXPECT_FALSE(wrong.ok);
    // The exact solvers refuse an objective they do not model.
    EXPECT_THROW(solve_exact(costly, 10), std::invalid_argument);
}

// The plan file carries the exact scores, and `vmcap validate` compares them (and the objective
// doubles written from them) to the last unit: a forgery of one score unit (1e-6 of a VM of
// weight 1, which a relative tolerance of 1e-6 let through) is rejected, and so is one ulp.
TEST(PlanFile, ScoresWrittenAndValidatedExactly) {
    RandomCluster rc;
    rc.hosts = 16;
    rc.max_migrations = 12;
    rc.fill = 0.75;
    Problem p = make_random_problem(rc);
    p.objective_terms.emplace_back("ram-cost", 0.2);
    const CapacityModel m(p);
    SearchParams sp;
    sp.max_evaluations = 100000;
    sp.quiet = true;
    const Plan plan = build_plan(m, anneal(m, sp).best);
    ASSERT_FALSE(plan.steps.empty());
    PlanInfo info;
    const UpperBound ub = compute_upper_bound(m);
    ASSERT_TRUE(ub.complete);
    info.upper_bound = ub.score;
    info.upper_bound_covers_objective = ub.covers_objective;
    const auto doc = nlohmann::json::parse(plan_to_json(p, plan, info).dump());
    EXPECT_EQ(doc["score_before"].get<Score>(), plan.score_before);
    EXPECT_EQ(doc["score_after"].get<Score>(), plan.score_after);
    EXPECT_EQ(doc["upper_bound_score"].get<Score>(), ub.score);
    EXPECT_EQ(doc["steps"].back()["score_after"].get<Score>(), plan.steps.back().score_after);
    const PlanCheck ok = validate_plan(m, doc, "p");
    ASSERT_TRUE(ok.ok) << ok.error;
    EXPECT_EQ(ok.score_after, plan.score_after);  // the validator's own replay, exactly
    EXPECT_EQ(ok.score_before, plan.score_before);

    auto forged = [&](auto edit) {
        auto d = doc;
        edit(d);
        return validate_plan(m, d, "p");
    };
    EXPECT_FALSE(forged([](auto& d) { d["score_after"] = d["score_after"].template get<Score>() + 1; }).ok);
    EXPECT_FALSE(forged([](auto& d) { d["steps"][0]["score_after"] = d["steps"][0]["score_after"].template get<Score>() - 1; }).ok);
    EXPECT_FALSE(forged([](auto& d) {
                     const double o = d["objective_after"].template get<double>();
                     d["objective_after"] = std::nextafter(o, o + 1.0);
                 }).ok);
    EXPECT_FALSE(forged([](auto& d) { d["upper_bound_score"] = d["upper_bound_score"].template get<Score>() + 1; }).ok);
    // A plan without the score fields (as written before they existed) is checked through its doubles.
    const PlanCheck old = forged([](auto& d) {
        for (const char* key : {"score_before", "score_after", "upper_bound_score"}) d.erase(key);
        for (auto& st : d["steps"]) st.erase("score_after");
    });
    EXPECT_TRUE(old.ok) << old.error;
}

TEST(FeasibilityFilter, SearchNeverUsesADrainedHostAndValidateRejectsIt) {
    RandomCluster rc;
    rc.hosts = 12;
    rc.max_migrations = 15;
    rc.fill = 0.7;
    const Problem p = make_random_problem(rc);
    // Drain the host that the unconstrained search likes most as a destination.
    const CapacityModel plain(p);
    SearchParams sp;
    sp.max_evaluations = 150000;
    sp.quiet = true;
    const Plan free_plan = build_plan(plain, anneal(plain, sp).best);
    std::vector<int> arrivals(p.hosts.size(), 0);
    for (const PlanStep& st : free_plan.steps)
        if (st.from_host != st.to_host) ++arrivals[st.to_host];
    const int drained = static_cast<int>(std::max_element(arrivals.begin(), arrivals.end()) - arrivals.begin());
    ASSERT_GT(arrivals[drained], 0);

    CapacityModel m(p);
    m.add_filter(std::make_unique<DrainFilter>(drained));
    const SearchResult r = anneal(m, sp);
    for (const Placement& pl : r.best)
        EXPECT_FALSE(pl.host == drained && p.vms[pl.vm].host != drained) << "vm " << p.vms[pl.vm].id << " on the drained host";
    EXPECT_GT(r.objective_best, r.objective_before);
    // The unconstrained plan violates the filter: validate names it.
    const auto doc = nlohmann::json::parse(plan_to_json(p, free_plan, PlanInfo{}).dump());
    const PlanCheck c = validate_plan(m, doc, "p");
    EXPECT_FALSE(c.ok);
    EXPECT_NE(c.error.find("drain"), std::string::npos) << c.error;
}

/** A term with a wrong incremental delta (off by 1 on every migration off the snapshot host) and a
 *  correct from-scratch value: what --check must catch. */
class WrongDeltaTerm final : public ObjectiveTerm {
public:
    std::string_view name() const override { return "wrong"; }
    double weight() const override { return 1.0; }
    bool separable_per_host() const override { return true; }
    bool monotone_under_insertion() const override { return true; }
    Score delta(const SearchState& s, std::span<const Relocation> moves) const override {
        Score d = 0;
        for (const Relocation& r : moves) d += r.to_host != s.origin_of(r.vm) && r.from_host == s.origin_of(r.vm) ? 1 : 0;
        return d;
    }
    double bound(const SearchState&, std::span<const int>) const override { return kNoBound; }
    Score value(const Problem&, const PlacementView&) const override { return 0; }
};

TEST(CheckMode, WrongTermDeltaCaughtByTheRecomputation) {
    RandomCluster rc;
    rc.hosts = 10;
    rc.max_migrations = 10;
    const Problem p = make_random_problem(rc);
    CapacityModel m(p);
    m.add_term(std::make_unique<WrongDeltaTerm>());
    SearchParams sp;
    sp.max_evaluations = 50000;
    sp.quiet = true;
    sp.check_every = 1;
    try {
        anneal(m, sp);
        FAIL() << "a wrong delta went unnoticed";
    } catch (const std::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("objective term wrong"), std::string::npos) << e.what();
    }
}

/** VMs on each host (the aggregates of SpreadTerm). */
struct HostCounts final : StateAggregates {
    std::vector<int> count;
    std::unique_ptr<StateAggregates> clone() const override { return std::make_unique<HostCounts>(*this); }
};

/**
 * A term with per-state aggregates (what a bandwidth term needs): minus W (score units) per VM
 * beyond `cap` VMs on a host. Its delta reads the VM counts kept in the state, its on_move keeps
 * them, its value recounts from scratch.
 */
class SpreadTerm final : public ObjectiveTerm {
public:
    SpreadTerm(Score w, int cap) : w_(w), cap_(cap) {}
    std::string_view name() const override { return "spread"; }
    double weight() const override { return static_cast<double>(w_); }
    bool separable_per_host() const override { return true; }
    bool monotone_under_insertion() const override { return true; }
    Score delta(const SearchState& s, std::span<const Relocation> moves) const override {
        const auto& count = static_cast<const HostCounts*>(s.aggregates(*this))->count;
        int hosts[2 * kMaxRelocations], change[2 * kMaxRelocations], n = 0;  // count changes of the touched hosts
        auto bump = [&](int h, int by) {
            for (int i = 0; i < n; ++i)
                if (hosts[i] == h) return void(change[i] += by);
            hosts[n] = h;
            change[n++] = by;
        };
        for (const Relocation& r : moves)
            if (r.from_host != r.to_host) {
                bump(r.from_host, -1);
                bump(r.to_host, +1);
            }
        Score d = 0;
        for (int i = 0; i < n; ++i) d += penalty(count[hosts[i]] + change[i]) - penalty(count[hosts[i]]);
        return d;
    }
    /** Each VM that leaves a host lowers its count by one (at most W back); arrivals only cost. */
    double bound(const SearchState&, std::span<const int> vms) const override {
        return static_cast<double>(w_) * static_cast<double>(vms.size());
    }
    Score value(const Problem& p, const PlacementView& pl) const override {
        std::vector<int> count(p.hosts.size(), 0);
        for (int h : pl.host) ++count[h];
        Score v = 0;
        for (int c : count) v += penalty(c);
        return v;
    }
    std::unique_ptr<StateAggregates> make_aggregates(const SearchState& s) const override {
        auto a = std::make_unique<HostCounts>();
        a->count.assign(s.problem().hosts.size(), 0);
        for (std::size_t v = 0; v < s.problem().vms.size(); ++v) ++a->count[s.host_of(static_cast<int>(v))];
        return a;
    }
    void on_move(StateAggregates& agg, const SearchState&, const Relocation& r) const override {
        auto& count = static_cast<HostCounts&>(agg).count;
        --count[r.from_host];
        ++count[r.to_host];
    }

private:
    Score penalty(int c) const { return -w_ * std::max(0, c - cap_); }
    Score w_;
    int cap_;
};

TEST(StateAggregates, KeptExactThroughMovesCopiesAndTheParallelSearch) {
    test::RandomCluster rc;
    rc.hosts = 10;
    rc.max_migrations = 1000;
    rc.fill = 0.7;
    const Problem p = make_random_problem(rc);
    CapacityModel m(p);
    int most = 0;
    for (std::size_t h = 0; h < p.hosts.size(); ++h) {
        int c = 0;
        for (const Vm& vm : p.vms) c += vm.host == static_cast<int>(h);
        most = std::max(most, c);
    }
    m.add_term(std::make_unique<SpreadTerm>(kScoreScale / 2, most - 2));  // half a unit per VM above the cap
    SearchState s(m);
    ASSERT_LT(s.terms_value(), 0);  // the fullest hosts pay
    MoveCache cache(s);
    std::mt19937_64 rng(3);
    int applied = 0;
    for (int it = 0; it < 4000 && applied < 300; ++it) {
        Candidate c;
        if (rng() % 3 == 0) {
            c.kind = kind_index("swap");
            c.get<1>() = SwapMove{static_cast<int>(rng() % p.vms.size()), static_cast<int>(rng() % p.vms.size())};
        } else {
            c.get<0>() = MigrateMove{static_cast<int>(rng() % p.vms.size()), static_cast<int>(rng() % p.hosts.size())};
        }
        const CandidateDelta d = evaluate(c, s, cache);
        if (!d.feasible) continue;
        const double ub = upper_bound(c, s, cache);
        ASSERT_GE(ub, static_cast<double>(d.delta));
        const SearchState before_copy = s;  // a copy owns its own aggregates
        const Score before = s.objective();
        apply(c, s, d);
        ++applied;
        ASSERT_EQ(s.objective() - before, d.delta);
        ASSERT_EQ(before_copy.objective(), before);
        std::vector<int> host;
        std::vector<NodeMask> mask;
        s.placement_arrays(host, mask);
        ASSERT_EQ(s.objective(), full_objective(m, s) + m.terms()[0]->value(p, PlacementView{host, mask}));
        if (applied % 50 == 0) {
            ASSERT_NO_THROW(s.check_consistency());
        }
    }
    EXPECT_GT(applied, 100);
    // Two threads adopting each other's states at synchronisation points, checked every move.
    SearchParams sp;
    sp.max_evaluations = 60000;
    sp.threads = 2;
    sp.round_evaluations = 5000;
    sp.check_every = 1;
    sp.quiet = true;
    const SearchResult r = anneal(m, sp);
    EXPECT_GE(r.objective_best, r.objective_before);
}

/** The worker fields apply_and_check uses. */
struct CheckWorker {
    explicit CheckWorker(const CapacityModel& m) : state(m) {}
    SearchState state;
    std::int64_t since_check = 0;
    std::vector<Placement> best;
    search_detail::SearchScore best_score;
};

TEST(CheckMode, AppliedDeltaMismatchFailsLoudlyNamingTheMove) {
    RandomCluster rc;
    rc.hosts = 10;
    rc.max_migrations = 10;
    const Problem p = make_random_problem(rc);
    const CapacityModel m(p);
    CheckWorker wk(m);
    MoveCache cache(wk.state);
    for (int v = 0; v < static_cast<int>(p.vms.size()); ++v)
        for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h) {
            Candidate c;
            c.get<0>() = MigrateMove{v, h};
            CandidateDelta d = evaluate(c, wk.state, cache);
            if (!d.feasible || d.delta == 0) continue;
            d.delta += 1;  // what a wrong incremental evaluation would hand the search
            try {
                search_detail::apply_and_check(wk, c, d, 1);
                FAIL() << "a wrong delta went unnoticed";
            } catch (const std::logic_error& e) {
                EXPECT_NE(std::string(e.what()).find("migrate move: the search acted on delta"), std::string::npos) << e.what();
            }
            return;
        }
    FAIL() << "no feasible migration with a non-zero delta";
}

}  // namespace
}  // namespace vmcap

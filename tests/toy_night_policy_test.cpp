// What a newcomer's night policy costs (night_policy.h): "the first improving live migration",
// written in this one file against the NightPolicy interface alone and registered on a copy of
// the built-in registry — simulate.cpp, the CLI and the other policies untouched. Oracles: the
// toy's own log of what it was asked and what it returned (the nights at the trace times
// first_defragmentation_s + n x interval, the budget max(1, ceil(fraction x VMs on a host then)),
// a budget of 0 giving no plan) against the simulation's day rows; the plans pass `vmcap
// validate`'s replay (--check); with --apply waves the simulation schedules the toy's plan. The
// built-in `tabu` runs and never lowers a night's objective below what `none` leaves, and a run
// is the same for the same seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "evaluators/rules/feasibility.h"
#include "instances/vnuma_rule.h"
#include "optimizer/plan/plan.h"
#include "optimizer/solvers/night_policy.h"
#include "optimizer/solvers/simulate.h"

namespace vmcap {
namespace {

/** What the toy saw at one night and what it returned. */
struct ToyNight {
    int index = 0;
    double time_s = 0.0;
    std::int64_t budget = 0, vms = 0, migrations = 0;
};

/** The first VM (by index) with a live migration that raises the objective, to the first such
 *  (host, placement): a one-step plan, or no plan when the budget is 0 or none exists. */
class FirstImprovingMove final : public NightPolicy {
public:
    explicit FirstImprovingMove(std::vector<ToyNight>* log) : log_(log) {}

    std::optional<NightPlan> plan(const Night& night) const override {
        const CapacityModel& model = night.model;
        const Problem& p = model.problem();
        ToyNight seen{night.index, night.time_s, night.budget.max_migrations, static_cast<std::int64_t>(p.vms.size()), 0};
        std::optional<NightPlan> out;
        if (night.budget.max_migrations > 0) out = first_improving(model, night.budget.max_migrated_ram_mib);
        if (out) seen.migrations = out->plan.migrations;
        log_->push_back(seen);
        return out;
    }

private:
    static std::optional<NightPlan> first_improving(const CapacityModel& model, Amount ram_budget) {
        const Problem& p = model.problem();
        SearchState s(model);
        const Score before = s.objective();
        for (int v = 0; v < static_cast<int>(p.vms.size()); ++v) {
            const int flavor = s.flavor_of(v), from = s.host_of(v);
            if (!s.migratable(v) || (ram_budget >= 0 && p.flavors[static_cast<std::size_t>(flavor)].demand[kRamMib] > ram_budget)) continue;
            Embedding back{s.mask_of(v), {}};
            std::copy_n(s.pnuma_of(v), kMaxVNuma, back.map.begin());
            for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h) {
                if (h == from) continue;
                for (const Embedding& e : model.evaluator(s.type_of(h), flavor).placements()) {
                    if (!step_fits(s, v, h, e.map)) continue;
                    s.move(v, h, e);
                    const Score after = s.objective();
                    s.move(v, from, back);
                    if (after <= before) continue;
                    PlanStep step;
                    step.vm = v;
                    step.from_host = from;
                    step.to_host = h;
                    step.from_pnuma = back.map;
                    step.to_pnuma = e.map;
                    return NightPlan{plan_from_steps(model, {step})};
                }
            }
        }
        return std::nullopt;
    }

    std::vector<ToyNight>* log_;
};

/** The built-in registry with the toy added as "first-move", logging into `log`. */
NightPolicies with_toy(std::vector<ToyNight>& log) {
    NightPolicies policies = builtin_night_policies();
    policies.add(
        {"first-move", "the first live migration that raises the objective", {}, NightUses{.budget = true}, [&log](const NightOptions&) {
             return std::make_unique<FirstImprovingMove>(&log);
         }});
    return policies;
}

/** Four days of arrivals of four flavors, lifetimes of a day on average (a fifth never leave). */
std::vector<TraceVm> four_days(std::uint64_t seed) {
    const char* names[] = {"2c4g", "4c16g", "8c32g", "16c64g"};
    const Amount vcpu[] = {2, 4, 8, 16}, gib[] = {4, 16, 32, 64};
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<TraceVm> trace(1000);
    for (std::size_t i = 0; i < trace.size(); ++i) {
        TraceVm& vm = trace[i];
        vm.arrival_s = 4 * 86400.0 * static_cast<double>(i) / static_cast<double>(trace.size());
        const std::size_t k = u(rng) < 0.5 ? 0 : u(rng) < 0.6 ? 1 : u(rng) < 0.7 ? 2 : 3;
        vm.flavor_name = names[k];
        vm.vcpu = vcpu[k];
        vm.ram_mib = gib[k] * 1024;
        vm.departure_s = u(rng) < 0.2 ? std::numeric_limits<double>::infinity() : vm.arrival_s - std::log(1.0 - u(rng)) * 86400.0;
    }
    return trace;
}

/** check_simulate_options's message on `o`, or "" when it accepts them. */
std::string refusal(const SimulateOptions& o) {
    try {
        check_simulate_options(o);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

SimulateOptions night_options(const std::string& policy, const NightPolicies* policies) {
    SimulateOptions o;
    o.replay.host_type = uniform_host_type("CQ3", 16, 64 * 1024);
    o.replay.num_hosts = 20;
    o.replay.time_s = 4 * 86400.0;
    o.defrag = policy;
    o.night_policies = policies;
    o.replay.targets = "all";  // every flavor weighted: a single migration often raises the objective
    o.budget_fraction = 0.02;
    o.evaluations = 20000;
    o.check = true;
    return o;
}

TEST(ToyNightPolicy, RunsAtEveryNightWithTheNightsBudgetAndItsMigrationsAreCounted) {
    std::vector<ToyNight> log;
    const NightPolicies policies = with_toy(log);
    const auto trace = four_days(3);
    const SimulateOptions o = night_options("first-move", &policies);
    const SimulateResult r = simulate(trace, o);
    ASSERT_EQ(r.stopped_by, StopReason::Complete);
    // Nights at 03:00 of days 0-3 (the trace starts at midnight), then the end of the span: the
    // toy is asked at each night, not at the end.
    ASSERT_EQ(r.days.size(), 5U);
    ASSERT_EQ(log.size(), 4U);
    std::int64_t total = 0, nights_moved = 0;
    for (std::size_t n = 0; n < log.size(); ++n) {
        SCOPED_TRACE(n);
        const SimulateDay& d = r.days[n];
        EXPECT_EQ(log[n].index, d.day);
        EXPECT_EQ(log[n].time_s, first_defragmentation_s(trace.front().arrival_s, o.defrag_at_s) + static_cast<double>(n) * 86400.0);
        EXPECT_EQ(log[n].vms, d.live_vms);
        EXPECT_EQ(log[n].budget, std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(0.02 * static_cast<double>(d.live_vms)))));
        EXPECT_EQ(d.migrations, log[n].migrations);
        EXPECT_EQ(d.planned_migrations, log[n].migrations);
        if (log[n].migrations > 0) {
            EXPECT_GT(d.objective_after, d.objective_before);
        }
        total += log[n].migrations;
        nights_moved += log[n].migrations > 0 ? 1 : 0;
    }
    EXPECT_EQ(r.days.back().migrations, 0);
    EXPECT_EQ(r.migrations, total);
    EXPECT_GE(nights_moved, 2) << "the trace leaves an improving migration on most nights";

    // A nightly budget of 0: the toy is still asked, with budget 0, and moves nothing.
    log.clear();
    SimulateOptions zero = o;
    zero.budget_count = 0;
    const SimulateResult z = simulate(trace, zero);
    ASSERT_EQ(log.size(), 4U);
    for (const ToyNight& t : log) EXPECT_EQ(t.budget, 0);
    EXPECT_EQ(z.migrations, 0);
}

// A policy that does not schedule its plan: with --apply waves the simulation schedules it
// (schedule_plan) and runs it over its duration; its steps are counted as they end.
TEST(ToyNightPolicy, AnUnscheduledPlanIsScheduledByTheSimulation) {
    std::vector<ToyNight> log;
    const NightPolicies policies = with_toy(log);
    const auto trace = four_days(3);
    SimulateOptions o = night_options("first-move", &policies);
    o.schedule = ScheduleParams{};
    o.apply_over_duration = true;
    const SimulateResult r = simulate(trace, o);
    ASSERT_EQ(log.size(), 4U);
    std::int64_t planned = 0;
    for (std::size_t n = 0; n < log.size(); ++n) {
        SCOPED_TRACE(n);
        EXPECT_EQ(r.days[n].planned_migrations, log[n].migrations);
        EXPECT_EQ(r.days[n].makespan_s > 0.0, log[n].migrations > 0) << "a plan with a step has a schedule";
        planned += log[n].migrations;
    }
    ASSERT_GT(planned, 0);
    EXPECT_EQ(r.migrations + r.steps_dropped, planned);
}

TEST(ToyNightPolicy, TheRegistryNamesItAndRefusesWhatItDoesNotKnow) {
    std::vector<ToyNight> log;
    const NightPolicies policies = with_toy(log);
    EXPECT_EQ(builtin_night_policies().names(), "none, greedy, sa, tabu");
    EXPECT_EQ(policies.names(), "none, greedy, sa, tabu, first-move");
    EXPECT_EQ(NightPolicies().names(), "none");
    NightPolicies again = policies;
    EXPECT_THROW(again.add({"tabu", "", {}, {}, [](const NightOptions&) { return std::unique_ptr<NightPolicy>(); }}),
                 std::invalid_argument);
    EXPECT_THROW(again.add({"a:b", "", {}, {}, [](const NightOptions&) { return std::unique_ptr<NightPolicy>(); }}), std::invalid_argument);
    EXPECT_THROW(again.add({"nomake", "", {}, {}, {}}), std::invalid_argument);

    // The simulation's option check lists the registry it was given.
    SimulateOptions o = night_options("magic", &policies);
    EXPECT_EQ(refusal(o), "simulate: night policy 'magic': expected one of none, greedy, sa, tabu, first-move");
    o.night_policies = nullptr;  // the built-ins: the toy is not there
    o.defrag = "first-move";
    EXPECT_EQ(refusal(o), "simulate: night policy 'first-move': expected one of none, greedy, sa, tabu");
    // Own options: validated by the policy; unknown keys refused with the policy's keys.
    o.defrag = "tabu";
    o.defrag_options = {{"tenure", "30"}, {"candidates", "64"}, {"evaluations", "1000"}};
    EXPECT_EQ(refusal(o), "");
    o.defrag_options = {{"tenure", "-1"}};
    EXPECT_EQ(refusal(o), "simulate: night policy tabu: tenure: expected an integer in 0..2147483647, got '-1'");
    o.defrag_options = {{"candidates", "0"}};
    EXPECT_EQ(refusal(o), "simulate: night policy tabu: candidates: expected an integer in 1..2147483647, got '0'");
    o.defrag_options = {{"evaluations", "many"}};
    EXPECT_EQ(refusal(o), "simulate: night policy tabu: evaluations: expected an integer >= 0, got 'many'");
    o.defrag_options = {{"room_steps", "8"}};
    EXPECT_EQ(refusal(o), "");
    o.defrag_options = {{"room_steps", "65"}};
    EXPECT_EQ(refusal(o), "simulate: night policy tabu: room_steps: expected an integer in 0..64, got '65'");
    o.defrag = "greedy";
    o.defrag_options = {{"tenure", "30"}};
    EXPECT_EQ(refusal(o), "simulate: night policy greedy: unknown option 'tenure' (its options: none)");
}

TEST(NightPolicyTabu, RunsAndNeverLowersTheNightsObjectiveBelowNones) {
    const auto trace = four_days(5);
    const SimulateResult none = simulate(trace, night_options("none", nullptr));
    SimulateOptions o = night_options("tabu", nullptr);
    o.defrag_options = {{"tenure", "10"}, {"candidates", "32"}};
    const SimulateResult tabu = simulate(trace, o);
    ASSERT_EQ(none.days.size(), tabu.days.size());
    ASSERT_GE(tabu.days.size(), 2U);
    // The first night sees the same cluster; none leaves it as it is.
    EXPECT_EQ(tabu.days[0].objective_before, none.days[0].objective_before);
    EXPECT_EQ(none.days[0].objective_after, none.days[0].objective_before);
    EXPECT_GE(tabu.days[0].objective_after, none.days[0].objective_after);
    for (const SimulateDay& d : tabu.days) EXPECT_GE(d.objective_after, d.objective_before) << "night " << d.day;
    // With room steps beside it: each night's objective at least the tabu night's on the same
    // cluster (the first night: the same cluster), never below its start.
    SimulateOptions r = o;
    r.defrag_options.emplace("room_steps", "8");
    const SimulateResult room = simulate(trace, r);
    ASSERT_EQ(room.days.size(), tabu.days.size());
    EXPECT_GE(room.days[0].objective_after, tabu.days[0].objective_after);
    for (const SimulateDay& d : room.days) EXPECT_GE(d.objective_after, d.objective_before) << "night " << d.day;
    EXPECT_GT(tabu.migrations, 0) << "tabu ran and moved VMs";
    EXPECT_EQ(none.migrations, 0);
    // Same seed, same simulation.
    const SimulateResult again = simulate(trace, o);
    ASSERT_EQ(again.days.size(), tabu.days.size());
    for (std::size_t i = 0; i < tabu.days.size(); ++i) {
        EXPECT_EQ(again.days[i].migrations, tabu.days[i].migrations);
        EXPECT_EQ(again.days[i].objective_after, tabu.days[i].objective_after);
        EXPECT_EQ(again.days[i].rejected, tabu.days[i].rejected);
    }
}

}  // namespace
}  // namespace vmcap

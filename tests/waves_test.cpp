// Waves and durations (optimizer/plan/waves.h): scheduled plans keep the sequential plan's end
// state, respect the limits and the in-flight room, follow the duration model and end within the
// window; `vmcap validate`'s own check (validate_schedule.cpp) accepts them and rejects waves
// merged past their limits or their in-flight room.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "evaluators/state/capacity_model.h"
#include "optimizer/plan/validate.h"
#include "optimizer/plan/waves.h"
#include "optimizer/solvers/optimize.h"
#include "tests/fixtures.h"
#include "tests/tight_cases.h"

using namespace vmcap;
using namespace vmcap::test;

namespace {

Plan searched_plan(const CapacityModel& m, std::uint64_t seed) {
    OptimizeParams op;
    op.search.quiet = true;
    op.search.seed = seed;
    op.search.max_evaluations = 30000;
    return optimize(m, op).plan;
}

/** The test's own reading of the limits: per wave, steps out of / into each host and in all. */
void expect_within_limits(const Problem& p, const Plan& plan, const MigrationLimits& lim) {
    std::map<int, std::map<int, int>> out, in;
    std::map<int, int> all;
    std::map<int, std::set<int>> vms;
    int last = 0;
    for (const PlanStep& st : plan.steps) {
        ASSERT_GE(st.wave, last) << "steps are in wave order";
        last = st.wave;
        EXPECT_LE(++out[st.wave][st.from_host], lim.per_host_out) << p.hosts[st.from_host].id;
        EXPECT_LE(++in[st.wave][st.to_host], lim.per_host_in) << p.hosts[st.to_host].id;
        EXPECT_TRUE(vms[st.wave].insert(st.vm).second) << "VM twice in one wave";
        if (lim.cluster > 0) {
            EXPECT_LE(++all[st.wave], lim.cluster);
        }
    }
}

}  // namespace

TEST(Waves, ScheduledPlansKeepTheEndStateAndValidate) {
    int multi = 0, steps = 0;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        const RandomCluster rc{.fill = 0.85, .max_migrations = 14, .seed = seed};
        const Problem p = make_random_problem(rc);
        const CapacityModel m(p);
        const Plan plan = searched_plan(m, seed);
        for (const MigrationLimits lim : {MigrationLimits{1, 1, 0}, MigrationLimits{2, 2, 3}, MigrationLimits{4, 4, 0}}) {
            SCOPED_TRACE("seed " + std::to_string(seed) + " limits " + std::to_string(lim.per_host_out) + "/" +
                         std::to_string(lim.cluster));
            const Plan w = schedule_plan(m, plan, lim, DurationModel{});
            ASSERT_TRUE(w.schedule.has_value());
            // The same moves in another order: the end state is the same, or a better prefix.
            EXPECT_GE(w.score_after, plan.score_after);
            if (w.steps.size() == plan.steps.size()) {
                EXPECT_EQ(w.score_after, plan.score_after);
            }
            expect_within_limits(p, w, lim);
            const PlanCheck c = validate_plan(m, plan_doc(p, w), "<plan>");
            EXPECT_TRUE(c.ok) << c.error;
            EXPECT_LE(w.schedule->waves, static_cast<int>(w.steps.size()));
            multi += w.schedule->waves < static_cast<int>(w.steps.size()) ? 1 : 0;  // some wave runs several steps
            steps += static_cast<int>(w.steps.size());
        }
    }
    EXPECT_GT(steps, 40);
    EXPECT_GT(multi, 6);
}

TEST(Waves, DurationsFollowTheModelAndWavesFollowEachOther) {
    const RandomCluster rc{.fill = 0.85, .max_migrations = 12, .seed = 7};
    const Problem p = make_random_problem(rc);
    const CapacityModel m(p);
    DurationModel d;
    d.mbps = 5000;
    d.dirty_factor = 2.0;
    d.overhead_s = 3.0;
    const Plan w = schedule_plan(m, searched_plan(m, 7), MigrationLimits{}, d);
    ASSERT_FALSE(w.steps.empty());
    // 4 GiB at 10,000 Mbps, x1.5, +10 s: 4096 MiB x 8.388608 Mbit/MiB = 34,359.738368 Mbit.
    EXPECT_DOUBLE_EQ(DurationModel{}.seconds(4096, 10000), 10.0 + 34359.738368 / 10000.0 * 1.5);
    std::map<int, double> wave_end;
    for (const PlanStep& st : w.steps) {
        EXPECT_EQ(st.mbps, 5000);  // no network: every copy at the model's bandwidth
        const double ram_mbit = static_cast<double>(p.flavors[p.vms[st.vm].flavor].demand[kRamMib]) * 8.388608;
        EXPECT_NEAR(st.end_s - st.start_s, 3.0 + ram_mbit / 5000.0 * 2.0, 1e-9);
        wave_end[st.wave] = std::max(wave_end[st.wave], st.end_s);
    }
    double t = 0.0;
    for (const auto& [wave, end] : wave_end) {
        for (const PlanStep& st : w.steps)
            if (st.wave == wave) {
                EXPECT_EQ(st.start_s, t);
            }
        t = end;
    }
    EXPECT_EQ(w.schedule->makespan_s, t);
    EXPECT_EQ(w.schedule->waves, static_cast<int>(wave_end.size()));
}

TEST(Waves, InFlightRoomSeparatesARotationAndValidateSeesIt) {
    // The ring rotation: no VM fits its destination before the next one has left, so with the
    // VMs on both ends no two steps of the rotation can share a wave, whatever the limits.
    for (int n = 2; n <= 4; ++n) {
        const Problem p = tight_ring(n, TightVariant::Spare, n + 1, false);
        const CapacityModel m(p);
        const Plan plan = build_plan(m, tight_rotation(p, n));
        ASSERT_EQ(static_cast<int>(plan.steps.size()), n + 1);
        const MigrationLimits loose{100, 100, 0};
        const Plan w = schedule_plan(m, plan, loose, DurationModel{});
        EXPECT_EQ(w.score_after, plan.score_after);
        EXPECT_GE(w.schedule->waves, n) << "n " << n;
        auto doc = plan_doc(p, w);
        EXPECT_TRUE(validate_plan(m, doc, "<plan>").ok);
        // All steps in one wave: the in-flight state is over capacity (or a VM is in flight twice).
        double end = 0.0;
        for (auto& st : doc["steps"]) {
            st["wave"] = 1;
            st["start_s"] = 0.0;
        }
        for (std::size_t i = 0; i < doc["steps"].size(); ++i) {
            const PlanStep& s = w.steps[i];
            doc["steps"][i]["end_s"] = DurationModel{}.seconds(p.flavors[p.vms[s.vm].flavor].demand[kRamMib], s.mbps);
            end = std::max(end, doc["steps"][i]["end_s"].get<double>());
        }
        doc["schedule"]["waves"] = 1;
        doc["schedule"]["makespan_s"] = end;
        const PlanCheck c = validate_plan(m, doc, "<plan>");
        EXPECT_FALSE(c.ok);
        EXPECT_TRUE(c.error.find("over capacity") != std::string::npos || c.error.find("already in flight") != std::string::npos)
            << c.error;
    }
}

TEST(Waves, ValidateRejectsABrokenLimitOrTime) {
    const RandomCluster rc{.fill = 0.85, .max_migrations = 14, .seed = 3};
    const Problem p = make_random_problem(rc);
    const CapacityModel m(p);
    const Plan w = schedule_plan(m, searched_plan(m, 3), MigrationLimits{}, DurationModel{});
    ASSERT_GE(w.schedule->waves, 2);
    const auto good = plan_doc(p, w);
    ASSERT_TRUE(validate_plan(m, good, "<plan>").ok);
    {  // a step's end a second late
        auto d = good;
        d["steps"][0]["end_s"] = d["steps"][0]["end_s"].get<double>() + 1.0;
        const PlanCheck c = validate_plan(m, d, "<plan>");
        EXPECT_FALSE(c.ok);
        EXPECT_NE(c.error.find("duration model"), std::string::npos) << c.error;
    }
    {  // the stated makespan short
        auto d = good;
        d["schedule"]["makespan_s"] = 1.0;
        EXPECT_FALSE(validate_plan(m, d, "<plan>").ok);
    }
    {  // a window the plan does not fit
        auto d = good;
        d["schedule"]["window_s"] = w.schedule->makespan_s / 2;
        const PlanCheck c = validate_plan(m, d, "<plan>");
        EXPECT_FALSE(c.ok);
        EXPECT_NE(c.error.find("beyond its window"), std::string::npos) << c.error;
    }
    {  // the limits stated tighter than the plan was built for: two steps of a host in one wave
        auto d = good;
        d["schedule"]["limits"]["cluster"] = 1;
        bool crowded = false;
        for (int wave = 0; wave < w.schedule->waves; ++wave) {
            int count = 0;
            for (const PlanStep& st : w.steps) count += st.wave == wave ? 1 : 0;
            crowded = crowded || count > 1;
        }
        ASSERT_TRUE(crowded);
        const PlanCheck c = validate_plan(m, d, "<plan>");
        EXPECT_FALSE(c.ok);
        EXPECT_NE(c.error.find("in flight in the cluster"), std::string::npos) << c.error;
    }
    {  // a malformed schedule is bad input
        auto d = good;
        d["schedule"]["duration_model"]["mbps"] = 0;
        EXPECT_THROW(validate_plan(m, d, "<plan>"), InputError);
    }
}

TEST(Waves, WindowKeepsWhatEndsWithinIt) {
    const RandomCluster rc{.fill = 0.85, .max_migrations = 16, .seed = 5};
    const Problem p = make_random_problem(rc);
    const CapacityModel m(p);
    const Plan plan = searched_plan(m, 5);
    const Plan full = schedule_plan(m, plan, MigrationLimits{}, DurationModel{});
    ASSERT_GE(full.schedule->waves, 2);
    const double window = 0.6 * full.schedule->makespan_s;
    const Plan cut = schedule_plan(m, plan, MigrationLimits{}, DurationModel{}, window);
    EXPECT_LE(cut.schedule->makespan_s, window);
    EXPECT_GT(cut.schedule->cut_steps, 0);
    EXPECT_LT(cut.steps.size(), full.steps.size());
    EXPECT_GE(cut.score_after, cut.score_before);
    const PlanCheck c = validate_plan(m, plan_doc(p, cut), "<plan>");
    EXPECT_TRUE(c.ok) << c.error;
    // Shorter than any one migration: nothing runs.
    const Plan none = schedule_plan(m, plan, MigrationLimits{}, DurationModel{}, 1.0);
    EXPECT_TRUE(none.steps.empty());
    EXPECT_EQ(none.score_after, none.score_before);

    // The pipeline with the window as a budget: never below the cut of its first plan, and within the window.
    OptimizeParams op;
    op.search.quiet = true;
    op.search.seed = 5;
    op.search.max_evaluations = 30000;
    op.search.time_limit_s = 1000;
    op.schedule = ScheduleParams{MigrationLimits{}, DurationModel{}, window};
    const OptimizeResult r = optimize(m, op);
    ASSERT_TRUE(r.plan.schedule.has_value());
    EXPECT_LE(r.plan.schedule->makespan_s, window);
    EXPECT_GE(r.plan.score_after, cut.score_after);
    EXPECT_TRUE(validate_plan(m, plan_doc(p, r.plan), "<plan>").ok);
}

TEST(Waves, MemoryCopiesShareTheNetwork) {
    // Leaf-spine with 10,000-Mbps NICs under vlinks of 1,000-2,999 Mbps: a copy at 10,000 Mbps
    // never fits beside them, so each runs alone at its route's spare bandwidth.
    int slow = 0;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const RandomCluster rc{.fill = 0.8, .max_migrations = 10, .seed = seed};
        Problem p = make_random_problem(rc);
        add_leaf_spine(p, seed, 40000, 100000, 100, 400);
        const CapacityModel m(p);
        const Plan plan = searched_plan(m, seed);
        DurationModel d;
        d.mbps = 40000;  // the whole NIC: only a copy from or to a host without vlinks gets it
        const Plan w = schedule_plan(m, plan, MigrationLimits{4, 4, 0}, d);
        const PlanCheck c = validate_plan(m, plan_doc(p, w), "<plan>");
        EXPECT_TRUE(c.ok) << c.error;
        std::map<int, int> per_wave;
        for (const PlanStep& st : w.steps) ++per_wave[st.wave];
        for (const PlanStep& st : w.steps) {
            EXPECT_GE(st.mbps, 1);
            if (st.mbps < d.mbps) {
                ++slow;
                EXPECT_EQ(per_wave[st.wave], 1) << "a slowed copy runs alone";
            }
        }
    }
    EXPECT_GT(slow, 0);
}

TEST(Waves, ReorderingPastTheLinkRuleIsRecheckedOrUndone) {
    // With the link rule (not separable per host) a step may still overtake earlier steps on
    // other hosts, speculatively: every step is re-checked at its wave's end, else the waves are
    // consecutive. Either way validate's replay (links after every step) and wave check pass.
    int steps = 0, waves = 0;
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const RandomCluster rc{.fill = 0.8, .max_migrations = 14, .seed = seed};
        Problem p = make_random_problem(rc);
        add_leaf_spine(p, seed, 2500, 3000, 100, 600);
        const CapacityModel m(p);
        ASSERT_TRUE(m.has_filters());
        const Plan plan = searched_plan(m, seed);
        MigrationLimits lim;
        lim.copies_on_network = false;
        const Plan w = schedule_plan(m, plan, lim, DurationModel{});
        EXPECT_EQ(w.score_after, plan.score_after);
        expect_within_limits(p, w, lim);
        const PlanCheck c = validate_plan(m, plan_doc(p, w), "<plan>");
        EXPECT_TRUE(c.ok) << c.error;
        steps += static_cast<int>(w.steps.size());
        waves += w.schedule->waves;
    }
    EXPECT_GT(steps, 20);
    EXPECT_LT(waves, steps) << "some waves run several steps";
}

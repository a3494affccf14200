// The annealing's progress rule (optimizer/search/progress.h) with a fake clock: the seconds are
// arguments, so nothing here depends on the machine's speed.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "optimizer/search/progress.h"

namespace vmcap {
namespace {

TEST(RunProgress, EvaluationDrivenIsExactlyTheShareOfTheBudget) {
    RunProgress r(1000000, 60.0, 1000000);
    for (std::int64_t at : {0LL, 1LL, 1023LL, 333333LL, 999999LL, 1000000LL})
        EXPECT_EQ(r.progress(at), static_cast<double>(at) / 1e6) << at;
    EXPECT_FALSE(r.clock_drives());
    EXPECT_EQ(r.run_length(), 1000000);
}

TEST(RunProgress, ABudgetWellWithinTheLimitStaysEvaluationDriven) {
    // The golden runs under ThreadSanitizer: about 10 s of a 60 s limit, six times slower than
    // usual, and a slow start (0.5 s before the first evaluation).
    RunProgress r(1000000, 60.0, 1000000);
    for (int round = 1; round <= 50; ++round) {
        const std::int64_t done = 20000LL * round;
        const double elapsed = 0.5 + 0.2 * round;  // 10.5 s at the end
        EXPECT_FALSE(r.out_of_reach(done, elapsed, 0.5)) << round;
        r.synchronise(done, elapsed, 0.5, false);
        ASSERT_FALSE(r.clock_drives()) << round;
        EXPECT_EQ(r.progress(done), static_cast<double>(done) / 1e6);
    }
    // Even at 80% of the limit projected (below the 90% switch).
    RunProgress slow(1000000, 60.0, 1000000);
    slow.synchronise(500000, 24.0, 0.0, false);  // projected end 48 s
    EXPECT_FALSE(slow.clock_drives());
}

TEST(RunProgress, NoProjectionBeforeTheProbe) {
    RunProgress r(250000000, 5.0, 3100000);
    // 0.09 s after the first evaluation (probe: 2% of 5 s = 0.1 s): hopeless, but not yet judged.
    EXPECT_FALSE(r.out_of_reach(100000, 0.29, 0.2));
    EXPECT_TRUE(r.out_of_reach(100000, 0.31, 0.2));
    EXPECT_FALSE(r.out_of_reach(0, 3.0, 0.2));  // nothing evaluated: no rate
}

TEST(RunProgress, OutOfReachSwitchesToTheClockAndCoolsByTheFinish) {
    // 250 M evaluations, 5 s: after 1 s (0.1 s to the first evaluation) 3 M are done; the
    // projection (0.1 + 0.9 x 250 / 3 = 75 s) is far beyond the limit. The schedule is calibrated
    // for 3.1 M (the default budget of 2,089 VMs), which the clock allows: not starved.
    RunProgress r(250000000, 5.0, 3100000);
    EXPECT_TRUE(r.out_of_reach(3000000, 1.0, 0.1));
    r.synchronise(3000000, 1.0, 0.1, false);
    ASSERT_TRUE(r.clock_drives());
    // Continuous at the switch: the share of the budget done.
    EXPECT_DOUBLE_EQ(r.progress(3000000), 3000000.0 / 250000000.0);
    // Rate 3 M / 0.9 s; until 0.95 x 5 s = 4.75 s, 3.75 s left: 12.5 M more evaluations.
    const std::int64_t end = 3000000 + 12500000;
    EXPECT_NEAR(static_cast<double>(r.run_length()), static_cast<double>(end), 2.0);
    EXPECT_NEAR(r.progress(3000000 + 6250000), 0.5 * (1.0 + 3000000.0 / 250000000.0), 1e-6);
    EXPECT_EQ(r.progress(r.run_length()), 1.0);
    EXPECT_EQ(r.progress(r.run_length() + 1000000), 1.0);  // cold until the deadline
    // Latched, even if the clock were to say otherwise later.
    r.synchronise(4000000, 1.1, 0.1, false);
    EXPECT_TRUE(r.clock_drives());
}

TEST(RunProgress, ClockDrivenReplansFromWhereTheRoundEnded) {
    RunProgress r(100000000, 10.0, 1000000);
    r.synchronise(1000000, 1.0, 0.0, false);  // rate 1 M/s: reaches 1 at 9.5 M
    ASSERT_TRUE(r.clock_drives());
    const double p1 = r.progress(2000000);
    // The machine slowed down: 1 M more took 2 s. Progress continues from p1 (no jump) and the
    // rate since the first evaluation (2 M in 3 s) sets the new slope.
    r.synchronise(2000000, 3.0, 0.0, false);
    EXPECT_DOUBLE_EQ(r.progress(2000000), p1);
    const double rate = 2000000.0 / 3.0;
    EXPECT_NEAR(static_cast<double>(r.run_length()), 2000000.0 + rate * (9.5 - 3.0), 2.0);
    // Monotone, never below the share of the budget, at most 1.
    double last = 0.0;
    for (std::int64_t at = 2000000; at <= 100000000; at += 500000) {
        const double p = r.progress(at);
        EXPECT_GE(p, last);
        EXPECT_GE(p, static_cast<double>(at) / 1e8);
        EXPECT_LE(p, 1.0);
        last = p;
    }
    // Past the planned finish: progress 1 from here on.
    RunProgress late(100000000, 10.0, 1000000);
    late.synchronise(1000000, 9.8, 0.0, true);
    EXPECT_EQ(late.progress(1000000), 1.0);
}

TEST(RunProgress, TheBudgetEndsTheClockDrivenRunIfItComesFirst) {
    // Switched (a worker saw the budget out of reach), then the rate rose: the remaining budget
    // ends before the clock's finish, and progress reaches 1 at the budget's end.
    RunProgress r(10000000, 10.0, 10000000);
    r.synchronise(1000000, 2.0, 0.0, true);  // requested by a worker
    ASSERT_TRUE(r.clock_drives());
    EXPECT_EQ(r.run_length(), 4750000);       // 0.5 M/s until 9.5 s
    r.synchronise(4000000, 2.5, 0.0, false);  // 4 M in 2.5 s: the 6 M left take 3.75 s of the 7 s left
    EXPECT_EQ(r.run_length(), 10000000);
    EXPECT_LT(r.progress(7000000), 1.0);
    EXPECT_EQ(r.progress(10000000), 1.0);
}

TEST(RunProgress, AStarvedRunFollowsTheFirstShareOfTheScheduleHotter) {
    // The 10,000-host replay at --time-limit 10: a 250 M budget (the default, also the
    // reference), 1 M evaluations in the first 0.25 s, 4 M/s: until 0.95 x 4 s, 14.2 M in all,
    // 5.7% of what the schedule is calibrated for.
    RunProgress r(250000000, 4.0, 250000000);
    r.synchronise(1000000, 0.25, 0.0, false);
    ASSERT_TRUE(r.clock_drives());
    const std::int64_t end = 1000000 + 14200000;
    EXPECT_NEAR(static_cast<double>(r.run_length()), static_cast<double>(end), 2.0);
    EXPECT_NEAR(r.share_of_reference(), static_cast<double>(end) / 2.5e8, 1e-9);
    // It ends where the evaluation-driven schedule would be after as many evaluations, not at
    // the end temperature: with reference = budget, exactly the share of the budget done.
    EXPECT_NEAR(r.progress(end), static_cast<double>(end) / 2.5e8, 1e-9);
    EXPECT_NEAR(r.progress(8000000), 8000000.0 / 2.5e8, 1e-9);
    EXPECT_NEAR(r.progress(end + 5000000), static_cast<double>(end) / 2.5e8, 1e-9);  // and stays there
    EXPECT_DOUBLE_EQ(r.heat(), RunProgress::kStarvedHeat);                           // 1 / 0.061 > 2: capped
    // The machine got faster (9 M after 1.25 s): more evaluations left, still starved; progress
    // continuous.
    const double at_sync = r.progress(9000000);
    r.synchronise(9000000, 1.25, 0.0, false);
    EXPECT_DOUBLE_EQ(r.progress(9000000), at_sync);
    EXPECT_GT(r.share_of_reference(), static_cast<double>(end) / 2.5e8);
    // A reference the clock allows more than half of: heat 1 / share.
    RunProgress half(250000000, 4.0, 20000000);
    half.synchronise(1000000, 0.25, 0.0, false);  // 15.2 M of 20 M: share 0.76
    EXPECT_NEAR(half.heat(), 2.0e7 / 1.52e7, 1e-6);
    EXPECT_NEAR(half.progress(half.run_length()), 0.76, 1e-6);
    // Evaluation-driven and unstarved clock-driven runs are not heated.
    EXPECT_EQ(RunProgress(1000000, 60.0, 1000000).heat(), 1.0);
    RunProgress fed(250000000, 4.0, 3100000);
    fed.synchronise(1000000, 0.25, 0.0, false);
    EXPECT_EQ(fed.heat(), 1.0);
    EXPECT_EQ(fed.progress(fed.run_length()), 1.0);
}

TEST(RunProgress, AnUnlimitedClockNeverDrives) {
    RunProgress r(1000000000, std::numeric_limits<double>::infinity(), 1000000000);
    EXPECT_FALSE(r.out_of_reach(1, 1e6, 0.0));
    r.synchronise(1, 1e6, 0.0, false);
    EXPECT_FALSE(r.clock_drives());
}

}  // namespace
}  // namespace vmcap

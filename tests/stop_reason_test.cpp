// StopReason (instances/stop_reason.h): every reason's words read back to it, no two reasons share
// words, other text is no reason, and the words that plan and simulation files hold are the ones
// they held as strings (validate, report and older files read them).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "instances/stop_reason.h"

using namespace vmcap;

TEST(StopReason, EveryReasonRoundTripsThroughItsWords) {
    std::set<std::string> words;
    for (std::size_t i = 0; i < kStopReasons.size(); ++i) {
        const StopReason r = kStopReasons[i];
        EXPECT_EQ(static_cast<std::size_t>(r), i) << "kStopReasons lists the reasons in declaration order";
        SCOPED_TRACE(std::string(to_string(r)));
        EXPECT_NE(to_string(r), "?");
        EXPECT_EQ(parse_stop_reason(to_string(r)), r);
        EXPECT_TRUE(words.insert(std::string(to_string(r))).second) << "two reasons with the same words";
    }
    // No enumerator after the last one listed.
    EXPECT_EQ(to_string(static_cast<StopReason>(kStopReasons.size())), "?");
    for (const char* other : {"", "?", "Complete", "complete ", "the time limit", "an interrupt", "the first failure", "stopped"})
        EXPECT_EQ(parse_stop_reason(other), std::nullopt) << other;
}

TEST(StopReason, TheWordsInFilesAreTheFormerStrings) {
    // search.stopped_by of vmcap plan, upper_bound_stopped_by, runs[].stopped_by of a simulation.
    EXPECT_EQ(to_string(StopReason::EvaluationBudget), "evaluation budget");
    EXPECT_EQ(to_string(StopReason::TimeLimit), "time limit");
    EXPECT_EQ(to_string(StopReason::NothingToSearch), "nothing to search");
    EXPECT_EQ(to_string(StopReason::NoImprovingMove), "no improving move");
    EXPECT_EQ(to_string(StopReason::BudgetSpent), "budget spent");
    EXPECT_EQ(to_string(StopReason::Interrupted), "interrupt");
    EXPECT_EQ(to_string(StopReason::Complete), "complete");
    EXPECT_EQ(to_string(StopReason::TableLimit), "table limit");
    // search.stopped_by of vmcap exact.
    EXPECT_EQ(to_string(StopReason::ProvenOptimal), "proven optimal");
    EXPECT_EQ(to_string(StopReason::NodeLimit), "node limit");
    EXPECT_EQ(to_string(StopReason::OrderingSearchLimit), "ordering search limit");
    EXPECT_EQ(to_string(StopReason::OrderingTimeLimit), "time limit (ordering the final-state optimum)");
    EXPECT_EQ(to_string(StopReason::OptimumUnreachable), "no plan within the budget reaches the final-state optimum");
    EXPECT_EQ(to_string(StopReason::ScheduleCut),
              "the schedule cut the plan: a memory copy has no spare bandwidth on its route (--migration-network separate schedules it)");
}

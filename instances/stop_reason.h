#pragma once
/**
 * @file stop_reason.h
 * Why a long computation ended: the search (greedy, annealing, tabu), the upper bound, admission
 * of a request stream, a simulation and the exact solvers share this one type, its words in
 * files and summaries (to_string) and their reading back (parse_stop_reason). In the lowest layer
 * so that every one of them can include it.
 */
#include <array>
#include <optional>
#include <string_view>

namespace vmcap {

/** Why a computation stopped. Each computation documents which of these it gives. */
enum class StopReason {
    Complete,             ///< ran to its end (the bound, a simulation, admission of every request)
    EvaluationBudget,     ///< a search ran its evaluation budget (reproducible)
    TimeLimit,            ///< ran out of wall-clock time (depends on machine speed)
    Interrupted,          ///< a stop flag was set (SIGINT / SIGTERM in the CLI)
    NothingToSearch,      ///< a search: no move can exist (no migratable VM, one host, no target, budget 0)
    NoImprovingMove,      ///< greedy: no single migration raises the objective
    BudgetSpent,          ///< greedy: the migration budget is used up
    TableLimit,           ///< the upper bound: a host's table would exceed its size limit
    FirstFailure,         ///< admission with stop at first failure: a request was not placed whole
    ProvenOptimal,        ///< an exact solver proved its optimum, or a search's best state met the upper bound
    NodeLimit,            ///< the branch and bound reached its node limit
    OrderingSearchLimit,  ///< the branch and bound: the ordering search could not decide a candidate
    OrderingTimeLimit,    ///< an exact solver's optimum: the time limit stopped the search for its order
    OptimumUnreachable,   ///< the MILP's optimal final state: no plan within the budget reaches it
    ScheduleCut,          ///< an exact plan: its schedule cut it (a memory copy without spare bandwidth)
};

/** Every StopReason, in declaration order. */
inline constexpr std::array kStopReasons = {StopReason::Complete,          StopReason::EvaluationBudget,   StopReason::TimeLimit,
                                            StopReason::Interrupted,       StopReason::NothingToSearch,    StopReason::NoImprovingMove,
                                            StopReason::BudgetSpent,       StopReason::TableLimit,         StopReason::FirstFailure,
                                            StopReason::ProvenOptimal,     StopReason::NodeLimit,          StopReason::OrderingSearchLimit,
                                            StopReason::OrderingTimeLimit, StopReason::OptimumUnreachable, StopReason::ScheduleCut};

/**
 * The words of `r` in plan files (`search.stopped_by`, `upper_bound_stopped_by`), simulation files
 * (`runs[].stopped_by`) and the summaries ("evaluation budget", "time limit", "interrupt", ...):
 * distinct for every reason. O(1). Pure.
 */
constexpr std::string_view to_string(StopReason r) {
    switch (r) {
        case StopReason::Complete: return "complete";
        case StopReason::EvaluationBudget: return "evaluation budget";
        case StopReason::TimeLimit: return "time limit";
        case StopReason::Interrupted: return "interrupt";
        case StopReason::NothingToSearch: return "nothing to search";
        case StopReason::NoImprovingMove: return "no improving move";
        case StopReason::BudgetSpent: return "budget spent";
        case StopReason::TableLimit: return "table limit";
        case StopReason::FirstFailure: return "first failure";
        case StopReason::ProvenOptimal: return "proven optimal";
        case StopReason::NodeLimit: return "node limit";
        case StopReason::OrderingSearchLimit: return "ordering search limit";
        case StopReason::OrderingTimeLimit: return "time limit (ordering the final-state optimum)";
        case StopReason::OptimumUnreachable: return "no plan within the budget reaches the final-state optimum";
        case StopReason::ScheduleCut:
            return "the schedule cut the plan: a memory copy has no spare bandwidth on its route (--migration-network separate "
                   "schedules it)";
    }
    return "?";
}

/** The reason whose to_string is `words` (as read from a file); nullopt for any other text.
 *  O(reasons). Pure. */
constexpr std::optional<StopReason> parse_stop_reason(std::string_view words) {
    for (const StopReason r : kStopReasons)
        if (to_string(r) == words) return r;
    return std::nullopt;
}

}  // namespace vmcap

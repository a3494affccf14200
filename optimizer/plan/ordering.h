#pragma once
/**
 * @file ordering.h
 * Exact ordering: does a plan of live migrations (detours included) reach a given final state
 * within the migration budget, every step feasible on the state the earlier ones leave? The plan
 * builder (plan.h) answers heuristically and fast; this search answers exactly on small
 * instances, so that `vmcap exact` proves optima over plans it can write, and tests
 * check the builder against it.
 */
#include <chrono>
#include <cstdint>
#include <vector>

#include "optimizer/plan/plan.h"

namespace vmcap {

/** Outcome of find_order. */
enum class OrderStatus {
    Found,    ///< `steps` reach the target within the budget
    None,     ///< proven: no plan within the budget reaches the target
    Unknown,  ///< the expansion limit stopped the search first
};

struct OrderResult {
    OrderStatus status = OrderStatus::Unknown;
    std::vector<PlanStep> steps;  ///< Found: the plan (objective_after left 0; plan_from_steps fills it)
    std::int64_t expansions = 0;  ///< search states expanded
};

/**
 * Depth-first search over plans from the snapshot to `target` (placements of the VMs that end
 * off their snapshot placement; every other VM ends on its snapshot placement). A step moves any
 * migratable VM to any (host, pNUMA node set) where step_fits() (capacities and every
 * feasibility filter) — its goal first, then detours, including VMs that end where they started
 * (a bystander moved away and back). Steps count against max_migrations and max_migrated_ram_mib
 * as in the plan (a remap is free when remaps are free). Pruning is exact: the steps still needed
 * are at least the VMs off their goal host (and, when remaps count, those on the right host but
 * other nodes), and a state already expanded with no more budget used is not expanded again.
 * With such a lower bound equal to the budget (the usual case of an optimum that spends it all)
 * only goal moves are tried, so the search is over orderings of the moved VMs: O(2^moved).
 * Otherwise exponential in the slack; `max_expansions` bounds the work, and `deadline` the time
 * (the clock is read every 256 expansions; either gives Unknown).
 * Throws std::invalid_argument if `target` places a VM twice or a VM that is not migratable.
 * Single-threaded; thread-safe with respect to other calls.
 */
OrderResult find_order(const CapacityModel& model, const std::vector<Placement>& target, std::int64_t max_expansions = 2'000'000,
                       std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

}  // namespace vmcap

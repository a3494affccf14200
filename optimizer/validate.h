#pragma once
/**
 * @file validate.h
 * Independent check of a migration plan: replays its steps on plain per-node usage tables (not
 * the optimizer's SearchState or plan builder) and recomputes capacities from scratch.
 */
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluators/capacity_model.h"

namespace vmcap {

/** Outcome of validate_plan. */
struct PlanCheck {
    bool ok = false;
    std::string error;  ///< first violation, naming the step ("steps[3] (step 4, vm \"x\"): ...")
    int steps = 0;
    double objective_before = 0.0, objective_after = 0.0;  ///< recomputed
    std::vector<Count> capacity_after;                     ///< recomputed, per flavor
};

/**
 * Replays `plan` (a "vmcap-plan/1" document read from `plan_file`) on `model.problem()`. Checks, at
 * every step in order: the VM exists, is migratable and sits exactly on from_host/from_pnuma; the
 * destination mapping is valid on the destination host type (distinct pNUMA nodes, vNUMA edges
 * on pNUMA edges); no pNUMA node goes over capacity; no feasibility filter is violated; the
 * running step count and migrated RAM stay within the budget; what the step states about itself
 * matches (flavor, ram_gib, objective_after recomputed on the validator's own per-host capacities,
 * "temporary" only on a VM that moves again later). Then checks the plan's migrations,
 * migrated_ram_gib, capacity_before/after and objective_before/after against a full recomputation.
 * The budget is the plan's own `budget` (what it was made for, `vmcap plan` overrides included)
 * when `use_plan_budget` and present, else the snapshot's constraints (`vmcap validate
 * --max-migrations / --max-migrated-gib` set those and pass false). Throws InputError if the
 * document is malformed (missing keys, unknown ids, wrong types); a well-formed plan that breaks a
 * rule gives ok == false. O(steps x flavors x VMCAP) plus the full recomputations.
 */
PlanCheck validate_plan(const CapacityModel& model, const nlohmann::json& plan, const std::string& plan_file, bool use_plan_budget = true);

}  // namespace vmcap

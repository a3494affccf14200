#pragma once
/**
 * @file validate.h
 * Independent check of a migration plan: replays its steps on plain per-node usage tables (not
 * the optimizer's SearchState or plan builder) and recomputes capacities from scratch.
 */
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluators/state/capacity_model.h"

namespace vmcap {

/** Outcome of validate_plan. */
struct PlanCheck {
    bool ok = false;
    std::string error;  ///< first violation, naming the step ("steps[3] (step 4, vm \"x\"): ...")
    int steps = 0;
    double objective_before = 0.0, objective_after = 0.0;  ///< recomputed (objective units: to_objective of the scores)
    Score score_before = 0, score_after = 0;               ///< recomputed, exactly (score units, evaluators/closed_forms/score.h)
    std::vector<Count> capacity_after;                     ///< recomputed, per flavor
};

/**
 * Replays `plan` (a "vmcap-plan/1" document read from `plan_file`) on `model.problem()`. Checks, at
 * every step in order: the VM exists, is migratable and sits exactly on from_host/from_pnuma; the
 * destination mapping is valid on the destination host type (distinct pNUMA nodes, vNUMA edges
 * on pNUMA edges); under a destination-node rule that fixes nodes (CapacityModel::fixes_nodes), the
 * step is no remap and its to_pnuma is the node set the rule assigns on the destination at that
 * point (asked on the validator's own usage tables); no pNUMA node goes over capacity; no
 * feasibility filter is violated; the
 * running step count and migrated RAM stay within the budget; what the step states about itself
 * matches (flavor, ram_gib, score_after and objective_after recomputed on the validator's own
 * per-host capacities, "temporary" only on a VM that moves again later). Then checks the plan's
 * migrations, migrated_ram_gib, capacity_before/after, score_before/after and
 * objective_before/after against a full recomputation. Every comparison is exact: scores are
 * integers, and every double vmcap writes (objective = to_objective(score), GiB = MiB / 1024,
 * gap, network figures) is recomputed by the same arithmetic and kept to the last bit by JSON.
 * The budget is the plan's own `budget` (what it was made for, `vmcap plan` overrides included)
 * when `use_plan_budget` and present, else the snapshot's constraints (`vmcap validate
 * --max-migrations / --max-migrated-gib` set those and pass false). Throws InputError if the
 * document is malformed (missing keys, unknown ids, wrong types); a well-formed plan that breaks a
 * rule gives ok == false. O(steps x flavors x VMCAP) plus the full recomputations (the bound's:
 * compute_upper_bound).
 *
 * The bound figures (docs/format.md, "Upper bound"), in score units (`upper_bound_score`, or
 * the least score not below `upper_bound` when a plan states no score): `upper_bound` >= the objective it covers
 * (objective_after, or its VMCAP part when `upper_bound_covers` is "vmcap", which must be what the
 * model's terms give: bound_covers_objective) and <= upper_bound_ceiling; `gap` = relative_gap of
 * the two; `upper_bound_complete` agrees with `upper_bound_stopped_by`. With `recompute_bound`, the
 * bound is recomputed for the plan's recorded budget (compute_upper_bound, default parameters, the
 * model's deadline): a complete bound of `vmcap plan` must equal it, a bound cut short must not be
 * below it (when the recomputation completes), and the bound of a `vmcap exact` plan
 * ("algorithm": "exact-...") must not be above it. `search.proven_optimal` true, or a
 * `search.proven_optimum`, needs upper_bound == objective_after == proven_optimum; `vmcap plan`'s
 * `search.stopped_by` "proven optimal" needs a bound of the whole objective that the search reached
 * (`search.best_state_objective`, or objective_after without one). `network`
 * (network_figures) is recomputed from the replay and compared field by field. A plan with a
 * `schedule` (waves and durations) has it re-checked on its own usage tables (check_schedule,
 * optimizer/plan/validate_schedule.h): every wave's in-flight state, limits, memory copies on the
 * network, and times. A stated figure of
 * the wrong JSON type is malformed (InputError); a wrong value gives ok == false.
 */
PlanCheck validate_plan(const CapacityModel& model, const nlohmann::json& plan, const std::string& plan_file, bool use_plan_budget = true,
                        bool recompute_bound = true);

}  // namespace vmcap

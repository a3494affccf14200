#pragma once
/**
 * @file night_policy.h
 * What `vmcap simulate` does to the cluster each night (simulate.h), as plugins in the manner of
 * the Kubernetes descheduler's plugin registry: a NightPolicy is asked once per night, on the
 * cluster as it stands, for a migration plan; a NightPolicies registry maps names (the
 * configurations of `vmcap simulate --compare`, SimulateOptions::defrag) to policies, each with
 * its own options and their validation and the generic options it reads. Built in
 * (builtin_night_policies): `none`, `greedy`, `sa` (annealing) and `tabu` (tabu search), the last
 * three through the planning pipeline (optimize.h). A caller adds its own with
 * NightPolicies::add, on a registry it owns: there is no global registry.
 */
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "instances/stop_reason.h"
#include "optimizer/plan/plan.h"
#include "optimizer/plan/waves.h"

namespace vmcap {

/** The migration budget of one night, as the simulation sets it in the night's
 *  Problem::constraints (max_migrations; max_migrated_ram_mib, -1: no RAM limit). */
struct NightBudget {
    std::int64_t max_migrations = 0;
    Amount max_migrated_ram_mib = -1;
};

/** What a policy is given at one night. References are valid for the call only. */
struct Night {
    /** The cluster as it stands (cluster_now.h): every VM on a host is a VM of this model's
     *  problem, on the host it is on now; the night's target weights are its flavors' weights and
     *  its budget is in its constraints (the same as `budget`). */
    const CapacityModel& model;
    int index = 0;        ///< 0 for the first night, then 1, 2, ...
    double time_s = 0.0;  ///< trace time of the night, seconds (the trace's own time base)
    NightBudget budget;   ///< the night's migration budget (SimulateOptions::budget_*)
    std::uint64_t seed;   ///< SimulateOptions::seed + index: a policy that draws uses this, so a run is reproducible
    /** SimulateOptions::evaluations: evaluations per night for a policy that searches (0: the
     *  engine's default for the night's cluster). */
    std::int64_t evaluations = 0;
    /** SimulateOptions::schedule: set when the plan will be run over waves (or fitted into a
     *  window). A policy may schedule its plan itself (Plan::schedule, as optimize does); a plan
     *  returned without a schedule is then scheduled by the simulation (schedule_plan). */
    const std::optional<ScheduleParams>& schedule;
    /** Set (SIGINT / SIGTERM): stop soon and return the best plan so far; may be null. */
    const std::atomic<bool>* stop = nullptr;
    double time_limit_s = 0.0;  ///< wall-clock seconds left to the simulation (> 0; may be +infinity)
};

/** A policy's answer for one night. */
struct NightPlan {
    /** An ordered plan on Night::model (optimizer/plan/plan.h: every prefix feasible and within
     *  the budget, its figures — objective_after, capacity_after, migrations, migrated RAM —
     *  filled in, e.g. by build_plan, plan_from_steps or optimize). The simulation applies its
     *  steps in order and throws std::logic_error on a step without room (a policy's bug). */
    Plan plan;
    /** Why the policy stopped (instances/stop_reason.h); TimeLimit: the wall-clock limit
     *  (Night::time_limit_s) cut it short, and the simulation then stops with "time limit" after
     *  applying the plan. Anything else: the simulation goes on. */
    StopReason stopped_by = StopReason::Complete;
};

/**
 * One night's decision maker. The simulation makes a fresh policy for each night
 * (NightPolicyInfo::make), so a policy carries nothing from one night to the next: a night
 * depends only on the cluster then, the options and the seed, which keeps a run reproducible.
 */
class NightPolicy {
public:
    virtual ~NightPolicy() = default;
    /** The night's plan, or nullopt for no defragmentation (the cluster stays as it is). Not
     *  called for a night with no VM on any host. Must respect night.budget and every rule of
     *  night.model (the plan is re-checked step by step). Deterministic for the same night;
     *  exceptions reach simulate()'s caller. */
    virtual std::optional<NightPlan> plan(const Night& night) const = 0;
};

/** A policy's own options as given, key -> value text (`tabu:tenure=30` in `--compare`). */
using NightOptions = std::map<std::string, std::string>;

/** One own option of a policy: its key and what it means (with its default), for help texts. */
struct NightOptionInfo {
    std::string key;
    std::string help;
};

/** Which of the simulation's generic options a policy reads (for help texts, and so that the
 *  command line refuses e.g. a per-configuration budget for a policy that moves nothing). */
struct NightUses {
    bool budget = false;       ///< Night::budget (--defrag-budget, budget=)
    bool evaluations = false;  ///< Night::evaluations (--evaluations)
    bool seed = false;         ///< Night::seed
};

/** A registered night policy: its name, what it does, its own options and how to make it. */
struct NightPolicyInfo {
    std::string name;     ///< as in --compare: lowercase, no ':' ',' or '='
    std::string summary;  ///< one line, for help texts
    std::vector<NightOptionInfo> options;
    NightUses uses;
    /** Builds the policy from its own options (keys already checked against `options`); throws
     *  InputError "KEY: expected ..., got 'VALUE'" on a bad value. Must be callable concurrently. */
    std::function<std::unique_ptr<NightPolicy>(const NightOptions&)> make;
};

/**
 * A registry of night policies, in registration order. It always holds `none` (no
 * defragmentation: the simulation's end-of-span row and the replay equivalence rely on it).
 * A value type: copy builtin_night_policies() and add to it. Reads are thread-safe; add is not.
 */
class NightPolicies {
public:
    /** A registry holding `none` alone. */
    NightPolicies();

    /** Registers `info`. Throws std::invalid_argument on an empty or taken name, a name with ':',
     *  ',' or '=', or no `make`. O(policies). */
    void add(NightPolicyInfo info);

    /** The policy called `name`, or nullptr. O(policies). */
    const NightPolicyInfo* find(std::string_view name) const;

    /** The registered policies, in registration order. */
    const std::vector<NightPolicyInfo>& all() const { return infos_; }

    /** The names, comma-separated in registration order ("none, greedy, sa, tabu"), for help
     *  texts and errors. */
    std::string names() const;

    /**
     * The policy `name` made with its own `options`. Throws InputError, one line: "night policy
     * 'x': expected one of none, greedy, ..." for an unknown name, "night policy tabu: unknown
     * option 'k' (its options: ...)" for a key it does not have, or the policy's own message on a
     * bad value ("night policy tabu: tenure: ..."). O(policies + options).
     */
    std::unique_ptr<NightPolicy> make(std::string_view name, const NightOptions& options) const;

private:
    std::vector<NightPolicyInfo> infos_;
};

/** A registry of the built-in policies: `none`; `greedy` (the best single migration, repeated,
 *  within the budget); `sa` (the annealing from greedy's plan; own option evaluations=E);
 *  `tabu` (the tabu search from greedy's plan; evaluations=E, tenure=T, candidates=C). The last
 *  three run optimize() on one thread with the night's seed and schedule; their plans are never
 *  below the night's objective before them. A new registry each call. */
NightPolicies builtin_night_policies();

}  // namespace vmcap

#pragma once
/**
 * @file optimize.h
 * The planning pipeline that `vmcap plan` and the quality suite run: greedy, then the annealing or
 * tabu search from the greedy plan (or from the snapshot) in the time left, then the ordered
 * migration plan, falling back to the greedy plan when the search's best state cannot be ordered
 * within the budget as well as greedy's (so the written plan is never worse than greedy's).
 */
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "optimizer/bound/upper_bound.h"
#include "optimizer/plan/plan.h"
#include "optimizer/plan/waves.h"
#include "optimizer/search/search_params.h"
#include "optimizer/search/tabu.h"

namespace vmcap {

enum class Algorithm { Greedy, Annealing, Tabu };

/** One validated parameter set for the pipeline. */
struct OptimizeParams {
    Algorithm algorithm = Algorithm::Annealing;
    /** Start annealing / tabu from the greedy plan (default; never worse than greedy) or from the
     *  snapshot. Ignored for Algorithm::Greedy. */
    bool greedy_start = true;
    /** Annealing / tabu: also run greedy with room steps that evict at most this many VMs of one
     *  host (SearchParams::room_steps, optimizer/search/greedy.h) and keep its final state when it
     *  is strictly above the search's (the search itself starts from the plain greedy plan, or
     *  the snapshot; on a tie the search's plan, usually in fewer waves, is kept). 0: off. Algorithm::Greedy (the
     *  published baseline) never takes them. Default chosen on Huawei-East-1 and Azure replays
     *  (docs/performance.md, "Room steps"). */
    int room_steps = kDefaultRoomSteps;
    static constexpr int kDefaultRoomSteps = 8;
    /** Annealing / tabu with room steps: after the search, ruin-and-recreate iterations
     *  (SearchParams::ruin_iterations) from the better of the search's and the room plan, in the
     *  time the search left and at most kRuinTimeShare of the time limit; their plan is kept when
     *  strictly above. When the room plan is well above greedy's (optimize.cpp, kRoomMargin), that
     *  share is kept from the annealing / tabu's time, and with the default run length
     *  (SearchParams::max_evaluations 0) its run is halved. 0: off (and neither). Default chosen on Huawei-East-1, Azure and the bundled example (docs/performance.md,
     *  "Ruin and recreate"). */
    std::int64_t ruin_iterations = kDefaultRuinIterations;
    static constexpr std::int64_t kDefaultRuinIterations = 2000;
    /** Share of SearchParams::time_limit_s the ruin and recreate may take (SearchParams::ruin_time_limit_s). */
    static constexpr double kRuinTimeShare = 0.2;
    /** Budget, threads, seed, move mix... time_limit_s covers the whole pipeline (greedy included). */
    SearchParams search;
    TabuParams tabu;
    /** Repair rounds (annealing / tabu only) when the search's best state cannot be fully ordered
     *  within the budget: the plan's end state becomes the snapshot of a shorter search with the
     *  budget left (optimize.cpp); 0: off. */
    int repair_rounds = 4;
    /** Set: the plan is scheduled into waves (schedule_plan) and, with a window, fitted into it. */
    std::optional<ScheduleParams> schedule;
    /**
     * Set: the pipeline first computes the upper bound of the model (compute_upper_bound with
     * these parameters; its deadline is moved in to kBoundShare of the time limit if later, and
     * unless give_up is set it gives up at kBoundGiveUp: UpperBoundParams::give_up), once,
     * returns it in OptimizeResult::bound, and gives the searches the rest of the time limit. When
     * the bound covers the whole objective, the searches stop as soon as their best state meets it
     * (SearchParams::bound_score: the state is proven optimal; StopReason::ProvenOptimal).
     * With UpperBoundParams::arrival_steps > 0, after the search (unless it met the bound, came
     * within kArrivalMinGap of it, or was interrupted), lagrangian_upper_bound() runs toward the search's best objective within the
     * time limit and kArrivalShare / kArrivalFloorSeconds; a lower bound it finds replaces the
     * bound's score (UpperBound::arrivals_priced, removal_only, arrival_prices).
     */
    std::optional<UpperBoundParams> bound;
    /** Share of the time limit the bound may take at most, from the pipeline's start. */
    static constexpr double kBoundShare = 0.5;
    /** The bound stops refining once its tables project past this many times its share (it would
     *  not complete even with the search's time too): a bound cut short anyway, whose time the
     *  search gets. */
    static constexpr double kBoundGiveUp = 2.0;
    /** After the search, the bound's Lagrangian on arrivals (UpperBoundParams::arrival_steps) runs
     *  at most kArrivalShare x the seconds the pipeline took so far, at least
     *  kArrivalFloorSeconds, and never past the time limit. */
    static constexpr double kArrivalShare = 3.0;
    static constexpr double kArrivalFloorSeconds = 5.0;
    /** ... and only when the search's best is more than this relative gap below the bound: on the
     *  Azure test replays of 1,100 and 2,500 hosts at 0.5-1% budgets (gaps 0.25-0.5%) 10-13 price
     *  vectors never lowered the bound and took 17-37 s (docs/performance.md, "Whole multi-node
     *  arrivals"). */
    static constexpr double kArrivalMinGap = 0.01;
    /** Throws std::invalid_argument naming the first bad parameter (SearchParams::validate, tabu
     *  tenure < 0, tabu candidates < 1, repair rounds < 0, schedule limits, durations or window,
     *  UpperBoundParams::validate). */
    void validate() const;
};

struct OptimizeResult {
    Plan plan;                           ///< the plan written (ordered, every prefix feasible)
    SearchResult search;                 ///< the last phase's result; seconds and evaluations include greedy
    std::vector<Placement> greedy_best;  ///< greedy's final state (empty for a snapshot start)
    double greedy_objective = 0.0;       ///< objective of greedy's final state (0 for a snapshot start)
    Score greedy_score = 0;              ///< the same in score units (exact)
    bool fell_back = false;              ///< the greedy plan was written instead of the search's
    /** Objective of greedy with room steps (OptimizeParams::room_steps; NaN: not run), and whether
     *  its final state was kept as the search's best (above the annealing's or tabu's). */
    double room_objective = std::numeric_limits<double>::quiet_NaN();
    bool room_taken = false;
    /** Ruin and recreate (OptimizeParams::ruin_iterations) from the better of the search's and the
     *  room plan: iterations run, those with a new best, whether the clock cut them (their time
     *  share or the time limit: not reproducible), the objective reached (NaN: not run) and whether it was kept (strictly above). */
    std::int64_t ruins = 0;
    std::int64_t ruins_improving = 0;
    bool ruins_cut = false;
    double ruin_objective = std::numeric_limits<double>::quiet_NaN();
    bool ruin_taken = false;
    double search_best_objective = 0.0;  ///< objective of the first search's best (final) state
    int repair_rounds = 0;               ///< repair rounds run (OptimizeParams::repair_rounds)
    double phase_seconds = 0.0;          ///< the annealing / tabu phase alone (0 for greedy)
    std::int64_t phase_evaluations = 0;
    std::optional<UpperBound> bound;  ///< OptimizeParams::bound set: the bound computed
};

/**
 * With free remaps (Constraints::remap_counts_as_migration false): the state `placements` without
 * the remaps that do not pay — each VM remapped on its own snapshot host goes back to its snapshot
 * nodes (in VM order, repeated until nothing changes) when that has room and does not lower the
 * objective (every term counted, filters consulted). Free remaps are neutral to the budget, so the
 * annealing's plateau steps accumulate them; an operator should not run thousands of remaps that
 * change nothing. Without free remaps `placements` is returned unchanged. O(passes x displaced x
 * targets x VMCAP).
 */
std::vector<Placement> drop_neutral_remaps(const CapacityModel& model, const std::vector<Placement>& placements);

/**
 * Runs the pipeline on `model`. With params.schedule, the plan is then scheduled into waves; with
 * a window, when the scheduled plan runs past it, the search runs again (up to 3 rounds, sharing
 * the second half of the time limit; the first search gets the first half) with the migration
 * budget cut to what the window held, and the best plan that ends within the window is
 * returned (each candidate cut to the window by schedule_plan). With params.bound, the bound comes
 * first and the searches stop at a proven optimum (OptimizeParams::bound). Deterministic for the
 * same model, seed, thread count and evaluation budget (unless the time limit stops a phase or cuts
 * the bound short, or drives the annealing's schedule: optimizer/search/progress.h). Throws
 * std::invalid_argument on bad params, std::logic_error if a --check recomputation differs;
 * worker exceptions reach the caller.
 */
OptimizeResult optimize(const CapacityModel& model, const OptimizeParams& params);

}  // namespace vmcap

#pragma once
/**
 * @file progress.h
 * How far the annealing is through its run, the share its temperature schedule follows: driven by
 * whichever of its two limits runs out first, the evaluation budget or the time limit. A pure
 * rule of (evaluations, seconds) pairs that the drivers feed from their clock at synchronisation
 * points, so that it can be tested with any clock.
 */
#include <algorithm>
#include <cstdint>

namespace vmcap {

/**
 * The run's progress in [0, 1] at a worker's evaluation position, shared by every worker and
 * re-planned only at synchronisation points (between rounds, on one thread).
 *
 * Evaluation-driven (every run starts so): progress = at / budget, with `budget` the evaluations
 * per worker. Nothing of the clock enters it, so a run that ends by its evaluation budget is
 * reproducible (and behaves exactly as before the clock could drive).
 *
 * The clock drives once the budget is out of reach (out_of_reach): after a probe of at least
 * kProbeShare of the time limit (and kProbeMinSeconds) since the first evaluation, the time to
 * the first evaluation plus the evaluation time so far scaled up to the whole budget exceeds
 * kSwitchShare of the time limit. The drivers test this at every clock check (every 1,024
 * evaluations) and end the round early when it holds, so the switch takes effect for every worker
 * at the synchronisation point that follows. It is latched: the run stays clock-driven. Then at
 * every synchronisation point progress continues from where the last round left it and rises
 * linearly in evaluations so that it reaches 1 after the evaluations the measured rate (per worker,
 * since the first evaluation) still allows before kFinishShare of the time limit, or after the
 * budget's remaining evaluations if fewer; at least at / budget; 1 beyond (the end temperature, a
 * cold finish until the deadline). A clock-driven run depends on machine speed and load: it is not
 * reproducible bit for bit (a run cut by the time limit never was).
 *
 * Starved runs. The schedule is calibrated for `reference` evaluations per worker
 * (schedule_reference_evaluations(): the default budget of the instance without the migration
 * budget's multiplier, or the budget if smaller). A clock-driven run whose planned length is
 * only a share f < 1 of it follows the first f of that schedule instead of all of it: progress
 * rises to f, not 1, by the planned finish (and stays there). So a run with the evaluations a full
 * anneal needs cools by the clock as above, and one that can do only a few per VM does not cool
 * to the end temperature within them (measured on a 10,000-host replay: within the ~45 evaluations
 * per VM of a 10 s run, cooling to the end kept 140 of the 247 objective units the search adds to
 * greedy's plan otherwise). Such a run also anneals hotter: heat() = min(kStarvedHeat, 1 / f), the
 * factor the schedule multiplies its start temperature by (capped by the caller at the melt
 * temperature; twice the start temperature added 703 there: docs/performance.md, "Starved time-cut
 * runs").
 *
 * Not thread-safe for writes: synchronise() runs between rounds; progress() is const and may be
 * called from every worker during a round.
 */
class RunProgress {
public:
    /** The clock drives when the projected end passes this share of the time limit. */
    static constexpr double kSwitchShare = 0.9;
    /** A clock-driven run plans to reach the end temperature at this share of the time limit. */
    static constexpr double kFinishShare = 0.95;
    /** No projection before this share of the time limit has passed since the first evaluation... */
    static constexpr double kProbeShare = 0.02;
    /** ...nor before this many seconds (rates of the first milliseconds are noise). */
    static constexpr double kProbeMinSeconds = 0.05;
    /** The largest start temperature factor of a starved run (heat()). */
    static constexpr double kStarvedHeat = 2.0;

    /** `budget`: evaluations per worker (>= 1); `time_limit_s`: the run's limit from its start (> 0;
     *  +inf or huge: the clock never drives); `reference`: the evaluations per worker the schedule
     *  is calibrated for (>= 1; see the class: below the planned length, the run is starved). */
    RunProgress(std::int64_t budget, double time_limit_s, std::int64_t reference);

    /** Would the budget end past kSwitchShare of the time limit? `at`: evaluations per worker so
     *  far, `elapsed_s`: seconds since the run's start, `first_s`: seconds from the start to the
     *  first evaluation. False before the probe is over and once the clock drives. O(1), pure. */
    bool out_of_reach(std::int64_t at, double elapsed_s, double first_s) const;

    /**
     * A synchronisation point after `done` evaluations per worker, `elapsed_s` seconds since the
     * start (`first_s` to the first evaluation): switches to the clock when out_of_reach (or
     * `switch_requested`, a worker having seen it during the round), and, clock-driven, plans the
     * next round (see the class). O(1).
     */
    void synchronise(std::int64_t done, double elapsed_s, double first_s, bool switch_requested);

    /** Progress at a worker's evaluation position `at` (>= the last synchronisation point's
     *  `done` when clock-driven), in [0, 1]. Evaluation-driven: exactly at / budget. O(1). */
    double progress(std::int64_t at) const;

    bool clock_drives() const { return clock_; }

    /** Clock-driven: the share of the reference evaluations the last plan allows (planned length /
     *  reference, at most 1), the progress the run ends at; 1 otherwise. */
    double share_of_reference() const { return share_; }

    /** The start temperature's factor: min(kStarvedHeat, 1 / share_of_reference()), so 1 unless the
     *  run is clock-driven and starved. O(1). */
    double heat() const { return share_ > 0.0 ? std::min(kStarvedHeat, 1.0 / share_) : kStarvedHeat; }

    /** The run's expected length in evaluations per worker: the budget, or clock-driven the
     *  position where the last plan reaches its end progress (what round lengths, the reheat stall and
     *  "the first tenth of the run" are measured against). >= 1. */
    std::int64_t run_length() const { return length_; }

private:
    std::int64_t budget_;
    double limit_s_;
    bool clock_ = false;
    std::int64_t from_ = 0;  ///< clock-driven: the position of the last synchronisation point
    double p_from_ = 0.0;    ///< its progress
    std::int64_t length_;    ///< the position where progress reaches its end
    std::int64_t reference_;
    double share_ = 1.0;  ///< clock-driven: length_ / reference_, at most 1
    double p_end_ = 1.0;  ///< clock-driven: the progress at length_ (max(share_, p_from_))
};

}  // namespace vmcap

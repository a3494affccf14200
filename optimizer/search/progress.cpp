#include "optimizer/search/progress.h"

#include <algorithm>

namespace vmcap {

RunProgress::RunProgress(std::int64_t budget, double time_limit_s, std::int64_t reference)
    : budget_(std::max<std::int64_t>(1, budget)),
      limit_s_(time_limit_s),
      length_(budget_),
      reference_(std::max<std::int64_t>(1, reference)) {}

bool RunProgress::out_of_reach(std::int64_t at, double elapsed_s, double first_s) const {
    if (clock_ || at <= 0 || !(limit_s_ < 1e9)) return false;
    const double run_s = elapsed_s - first_s;
    if (run_s < std::max(kProbeShare * limit_s_, kProbeMinSeconds)) return false;
    const double projected = first_s + run_s * static_cast<double>(budget_) / static_cast<double>(at);
    return projected > kSwitchShare * limit_s_;
}

void RunProgress::synchronise(std::int64_t done, double elapsed_s, double first_s, bool switch_requested) {
    if (!clock_) {
        if (!switch_requested && !out_of_reach(done, elapsed_s, first_s)) return;
        p_from_ = progress(done);
        clock_ = true;
    } else {
        p_from_ = progress(done);
    }
    from_ = done;
    // The evaluations the measured rate still allows before the planned finish, or the budget's
    // remaining ones if fewer.
    const double run_s = elapsed_s - first_s;
    const double rate = done > 0 && run_s > 0 ? static_cast<double>(done) / run_s : 0.0;
    const double by_clock = std::max(0.0, rate * (kFinishShare * limit_s_ - elapsed_s));
    const double left = std::min(static_cast<double>(std::max<std::int64_t>(0, budget_ - done)), by_clock);
    length_ = std::max<std::int64_t>(1, done + static_cast<std::int64_t>(left));
    // Starved (fewer evaluations left in the plan than the schedule is calibrated for): only the
    // first share of the schedule, never below where the run already is.
    share_ = std::min(1.0, static_cast<double>(length_) / static_cast<double>(reference_));
    p_end_ = std::max(p_from_, share_);
}

double RunProgress::progress(std::int64_t at) const {
    const double by_evaluations = static_cast<double>(at) / static_cast<double>(budget_);
    if (!clock_) return by_evaluations;
    if (at >= length_ || length_ <= from_) return p_end_;
    const double p = p_from_ + (p_end_ - p_from_) * static_cast<double>(at - from_) / static_cast<double>(length_ - from_);
    return std::min(p_end_, std::max(by_evaluations, p));
}

}  // namespace vmcap

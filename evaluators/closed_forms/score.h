#pragma once
/**
 * @file score.h
 * The objective in exact integers. Flavor weights (and objective-term weights) are fixed-point
 * numbers with at most three decimals (kWeightScale, checked at load); RAM is counted in MiB. One
 * objective unit — one more VM of a weight-1 flavor — is kScoreScale score units, so
 *   VMCAP term:  sum_f (1000 w_f) x 1024 x capacity_f
 *   RAM cost:    -(1000 W) x (MiB migrated)          (W per GiB = per 1024 MiB)
 * are both integers, and `before + delta == after` holds exactly for every move: no epsilon in
 * the search. Weights are capped (kMaxWeight) so that sums stay far from int64 overflow.
 */
#include <cmath>
#include <cstdint>

#include "instances/problem.h"

namespace vmcap {

/** The objective and its deltas, in score units (1 / kScoreScale of an objective unit). */
using Score = std::int64_t;

/** 128-bit integer for range checks of score sums (GCC/Clang extension). */
__extension__ typedef __int128 Wide;

/** Score units per objective unit: thousandths of a weight, times MiB per GiB. */
inline constexpr Score kScoreScale = kWeightScale * 1024;

/** A score in objective units (what reports and plan files show). */
inline double to_objective(Score s) {
    return static_cast<double>(s) / static_cast<double>(kScoreScale);
}

/**
 * The smallest score whose objective value is not below `objective` (a real-valued bound, e.g. a
 * MILP solver's, in objective units): the score s with to_objective(s) == objective when there is
 * one, else ceil(objective x kScoreScale). Rounding up keeps an upper bound valid, since every
 * reachable objective is a whole number of score units. O(1); `objective` must be finite and
 * within +-2^53 score units.
 */
inline Score score_at_least(double objective) {
    const double scaled = objective * static_cast<double>(kScoreScale);
    const Score near = std::llround(scaled);
    if (to_objective(near) == objective) return near;
    return static_cast<Score>(std::ceil(scaled));
}

/** Score units of one unit of capacity of a flavor of weight `weight` (checked: weight_milli() >= 0). */
inline Score weight_units(double weight) {
    return weight_milli(weight) * 1024;
}

}  // namespace vmcap

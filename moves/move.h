#pragma once
/**
 * @file move.h
 * What every move type has in common (one type per file in moves/, listed once in move_list.h).
 *
 * A move is a small value type with this surface (checked by the MoveType concept):
 *   - `static constexpr std::string_view kName` — its name in `--move-mix` and the statistics;
 *   - `static constexpr bool kCompound` — moves two VMs (the annealing draws the acceptance
 *     threshold first and may reject on upper_bound() without evaluating);
 *   - `static constexpr double kDefaultShare` — default share of proposals (migrate: the rest);
 *   - `using Delta = ...` — its evaluation result, deriving from DeltaHead, carrying the decision
 *     (chosen placements) so that apply() never searches again;
 *   - `Delta evaluate(const SearchState&) const` — exact, without mutation;
 *   - `Delta evaluate(const SearchState&, MoveCache&) const` — the same result through the
 *     worker's per-host memo (moves own their cached evaluation);
 *   - `double upper_bound(const SearchState&, MoveCache&) const` — an upper bound on the VMCAP
 *     delta, -kNoBound if infeasible, kNoBound if no cheap bound;
 *   - `int relocations(const SearchState&, const Delta&, Relocation*) const` — the VMs it moves
 *     and where to, in execution order (at most kMaxRelocations), for feasibility filters and
 *     objective terms (evaluators/objective.h) and tabu attributes;
 *   - `int moved_vms(int*) const` — the VMs it may move (tabu attributes), before evaluation;
 *   - `void apply(SearchState&, const Delta&) const`;
 *   - `static bool propose(ProposalContext&, Move&)` — draws a candidate (moves/proposal.h);
 *     false if no suitable one was found in a few tries (the caller falls back to migrate).
 */
#include <concepts>
#include <cstdint>
#include <limits>
#include <string_view>

#include "evaluators/objective.h"
#include "evaluators/search_state.h"

namespace vmcap {

class MoveCache;
struct ProposalContext;

/** The fields of every move's evaluation result, in front, so the search reads them uniformly. */
struct DeltaHead {
    bool feasible = false;              ///< every step is a feasible live migration within the budget
    double delta = 0.0;                 ///< exact change of the objective (SearchState::objective())
    std::int64_t migrations_after = 0;  ///< SearchState::migrations() after apply
};

/** At most this many VMs change place in one move (swap, exchange and ejection move two). */
inline constexpr int kMaxRelocations = 2;

/** "No cheap bound": upper_bound() of a move that must be evaluated exactly. */
inline constexpr double kNoBound = std::numeric_limits<double>::infinity();

template <class M>
concept MoveType = requires(const M m, M& out, SearchState& s, const SearchState& cs, MoveCache& cache, const typename M::Delta& d,
                            Relocation* r, int* vms, ProposalContext& ctx) {
    { M::kName } -> std::convertible_to<std::string_view>;
    { M::kCompound } -> std::convertible_to<bool>;
    { M::kDefaultShare } -> std::convertible_to<double>;
    requires std::derived_from<typename M::Delta, DeltaHead>;
    { m.evaluate(cs) } -> std::same_as<typename M::Delta>;
    { m.evaluate(cs, cache) } -> std::same_as<typename M::Delta>;
    { m.upper_bound(cs, cache) } -> std::same_as<double>;
    { m.relocations(cs, d, r) } -> std::same_as<int>;
    { m.moved_vms(vms) } -> std::same_as<int>;
    { m.apply(s, d) };
    { M::propose(ctx, out) } -> std::same_as<bool>;
};

}  // namespace vmcap

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
 *   - `int host_relocations(const SearchState&, Relocation*) const` — before evaluation, the VMs it
 *     moves and their destination hosts (to_mask 0), at most kMaxRelocations, in the order of the
 *     move's fields (a, b; not necessarily execution order, which evaluation decides): what
 *     feasibility filters see before any capacity work, and the tabu attributes;
 *   - `int relocations(const SearchState&, const Delta&, Relocation*) const` — after evaluation,
 *     the same with the chosen nodes, in execution order: what objective terms see;
 *   - `void apply(SearchState&, const Delta&) const`;
 *   - `static bool propose(ProposalContext&, Move&)` — draws a candidate (moves/proposal.h);
 *     false if no suitable one was found in a few tries (the caller falls back to migrate);
 *   - optionally `static constexpr bool kFilterEveryPrefix` — its host_relocations() are in
 *     execution order and the feasibility filters must admit every prefix, not only the whole
 *     (the gather move: a vlinked pair crosses the network between its two migrations).
 */
#include <concepts>
#include <cstdint>
#include <limits>
#include <string_view>

#include "evaluators/rules/feasibility.h"
#include "evaluators/interfaces/seams.h"
#include "evaluators/state/search_state.h"

namespace vmcap {

class MoveCache;
struct ProposalContext;

/** The fields of every move's evaluation result, in front, so the search reads them uniformly. */
struct DeltaHead {
    bool feasible = false;              ///< every step is a feasible live migration within the budget
    Score delta = 0;                    ///< exact change of SearchState::objective(), score units (score.h)
    std::int64_t migrations_after = 0;  ///< SearchState::migrations() after apply
};

/** At most this many VMs change place in one move (swap, exchange, ejection and gather move two). */
inline constexpr int kMaxRelocations = 2;

/** "No cheap bound": upper_bound() of a move that must be evaluated exactly. */
inline constexpr double kNoBound = std::numeric_limits<double>::infinity();

template <class M>
concept MoveType = requires(const M m, M& out, SearchState& s, const SearchState& cs, MoveCache& cache, const typename M::Delta& d,
                            Relocation* r, ProposalContext& ctx) {
    { M::kName } -> std::convertible_to<std::string_view>;
    { M::kCompound } -> std::convertible_to<bool>;
    { M::kDefaultShare } -> std::convertible_to<double>;
    requires std::derived_from<typename M::Delta, DeltaHead>;
    { m.evaluate(cs) } -> std::same_as<typename M::Delta>;
    { m.evaluate(cs, cache) } -> std::same_as<typename M::Delta>;
    { m.upper_bound(cs, cache) } -> std::same_as<double>;
    { m.relocations(cs, d, r) } -> std::same_as<int>;
    { m.host_relocations(cs, r) } -> std::same_as<int>;
    {m.apply(s, d)};
    { M::propose(ctx, out) } -> std::same_as<bool>;
};

/**
 * The complete evaluation of a move, what the search acts on: the model's feasibility filters
 * first (before any capacity work; on every prefix of the relocations for kFilterEveryPrefix), then the move's own evaluation (VMCAP delta, built-in rules;
 * through `cache` when one is given and every objective term is separable per host), then each
 * further objective term's exact delta for the move's relocations. Without filters and terms
 * (the default) this is exactly mv.evaluate(state[, cache]).
 */
template <MoveType M>
inline void score_move(const M& mv, const SearchState& s, MoveCache* cache, typename M::Delta& d) {
    const CapacityModel& m = s.model();
    // Relocation arrays only where filters or terms need them: Relocation's member initializers
    // made one up front cost every evaluation ~8 instructions (issue 24 item 4).
    if (m.has_filters()) [[unlikely]] {
        Relocation r[kMaxRelocations];
        const auto n = static_cast<std::size_t>(mv.host_relocations(s, r));
        bool ok = filters_admit(s, std::span(r, n));
        if constexpr (requires { M::kFilterEveryPrefix; })
            for (std::size_t k = 1; k < n && ok; ++k) ok = filters_admit(s, std::span(r, k));
        if (!ok) {
            d = typename M::Delta{};
            return;
        }
    }
    d = (cache != nullptr && m.terms_separable()) ? mv.evaluate(s, *cache) : mv.evaluate(s);
    if (m.has_terms() && d.feasible) [[unlikely]] {
        Relocation r[kMaxRelocations];
        const auto moves = std::span<const Relocation>(r, static_cast<std::size_t>(mv.relocations(s, d, r)));
        for (const auto& t : m.terms()) d.delta += t->delta(s, moves);
    }
}

/** score_move into a fresh Delta. */
template <MoveType M>
inline typename M::Delta score_move(const M& mv, const SearchState& s, MoveCache* cache = nullptr) {
    typename M::Delta d;
    score_move(mv, s, cache, d);
    return d;
}

/**
 * Upper bound on score_move(mv).delta for threshold-first rejection: the move's cached VMCAP
 * bound plus each further term's bound() over the moved VMs; kNoBound when the move has none or a
 * term is not monotone under insertion; -kNoBound when the move is infeasible.
 */
template <MoveType M>
inline double score_bound(const M& mv, const SearchState& s, MoveCache& cache) {
    double ub = mv.upper_bound(s, cache);
    const CapacityModel& m = s.model();
    if (!m.has_terms() || ub == kNoBound || ub == -kNoBound) [[likely]]
        return ub;
    if (!m.terms_monotone()) return kNoBound;
    Relocation r[kMaxRelocations];
    int vms[kMaxRelocations];
    const int n = mv.host_relocations(s, r);
    for (int i = 0; i < n; ++i) vms[i] = r[i].vm;
    for (const auto& t : m.terms()) ub += t->bound(s, std::span<const int>(vms, static_cast<std::size_t>(n)));
    return ub;
}

}  // namespace vmcap

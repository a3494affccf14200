#pragma once
/**
 * @file move.h
 * What every move type has in common (one type per file in moves/, listed once in move_list.h).
 *
 * A move is a small aggregate value type (brace-initialised from its fields, e.g. `SwapMove{a, b}`)
 * with this surface, checked by the MoveType concept. Required:
 *   - `static constexpr std::string_view kName` — its name in `--move-mix` and the statistics;
 *   - `using Delta = ...` — its evaluation result, deriving from DeltaHead, carrying the decision
 *     (chosen placements) so that apply() never searches again;
 *   - `Delta evaluate(const SearchState&) const` — exact, without mutation;
 *   - `int host_relocations(const SearchState&, Relocation*) const` — before evaluation, the VMs it
 *     moves and their destination hosts (to_mask 0), at most kMaxRelocations, in the order of the
 *     move's fields (a, b; not necessarily execution order, which evaluation decides): what
 *     feasibility filters see before any capacity work, and the tabu attributes;
 *   - `int relocations(const SearchState&, const Delta&, Relocation*) const` — after evaluation,
 *     the same with the chosen nodes, in execution order: what objective terms see;
 *   - `void apply(SearchState&, const Delta&) const`;
 *   - `static bool propose(ProposalContext&, Move&)` — draws a candidate (moves/proposal.h);
 *     false if no suitable one was found in a few tries (the caller falls back to migrate).
 * Optional, each with a default, so that a move declares only what differs (the defaults are
 * read through move_compound, move_default_share, score_move and score_bound below, resolved at
 * compile time: no virtual call, no base class, so moves stay aggregates):
 *   - `static constexpr bool kCompound` — moves two VMs (the annealing draws the acceptance
 *     threshold first and may reject on upper_bound() without evaluating); default false;
 *   - `static constexpr double kDefaultShare` — default share of proposals; default 0 (migrate,
 *     the first kind, gets what the others leave);
 *   - `Delta evaluate(const SearchState&, MoveCache&) const` — the same result through the
 *     worker's per-host memo (moves own their cached evaluation); default: evaluate(state);
 *   - `double upper_bound(const SearchState&, MoveCache&) const` — an upper bound on the VMCAP
 *     delta, -kNoBound if infeasible, kNoBound if no cheap bound; default kNoBound;
 *   - `static constexpr bool kFilterEveryPrefix` — its host_relocations() are in execution order
 *     and the feasibility filters must admit every prefix, not only the whole (the gather move: a
 *     vlinked pair crosses the network between its two migrations); default: the whole only.
 */
#include <concepts>
#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>

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

/** host_relocations() of a move of one VM: `vm` from its current host to host `to` (to_mask 0).
 *  Returns 1. */
inline int relocating(const SearchState& s, Relocation* out, int vm, int to) {
    out[0] = Relocation{vm, s.host_of(vm), to, 0};
    return 1;
}

/** host_relocations() of a move of two VMs, in the move's field order: `a` to host `to_a`, `b` to
 *  host `to_b`, each from its current host (to_mask 0). Returns 2. */
inline int relocating(const SearchState& s, Relocation* out, int a, int to_a, int b, int to_b) {
    out[0] = Relocation{a, s.host_of(a), to_a, 0};
    out[1] = Relocation{b, s.host_of(b), to_b, 0};
    return 2;
}

/** "No cheap bound": upper_bound() of a move that must be evaluated exactly. */
inline constexpr double kNoBound = std::numeric_limits<double>::infinity();

/** Does M declare its own cached evaluation, evaluate(const SearchState&, MoveCache&)? */
template <class M>
concept HasCachedEvaluate = requires(const M m, const SearchState& cs, MoveCache& cache) {
    m.evaluate(cs, cache);
};

/** Does M declare its own upper_bound(const SearchState&, MoveCache&)? */
template <class M>
concept HasUpperBound = requires(const M m, const SearchState& cs, MoveCache& cache) {
    m.upper_bound(cs, cache);
};

/** Do M's optional parts, where M declares them, have their types? A constexpr function rather than
 *  disjunctions inside MoveType: Clang 14 treats `!requires { M::kCompound; } || ...` naming an
 *  undeclared member as a substitution failure of the whole requirement, refusing every move that
 *  leaves the part to its default. */
template <class M>
constexpr bool optional_parts_typed() {
    bool ok = true;
    if constexpr (requires { M::kCompound; }) ok = ok && std::convertible_to<decltype(M::kCompound), bool>;
    if constexpr (requires { M::kDefaultShare; }) ok = ok && std::convertible_to<decltype(M::kDefaultShare), double>;
    if constexpr (HasCachedEvaluate<M>)
        ok = ok && std::same_as<decltype(std::declval<const M&>().evaluate(std::declval<const SearchState&>(), std::declval<MoveCache&>())),
                                typename M::Delta>;
    if constexpr (HasUpperBound<M>)
        ok = ok &&
             std::same_as<decltype(std::declval<const M&>().upper_bound(std::declval<const SearchState&>(), std::declval<MoveCache&>())),
                          double>;
    return ok;
}

template <class M>
concept MoveType = requires(const M m, M& out, SearchState& s, const SearchState& cs, MoveCache& cache, const typename M::Delta& d,
                            Relocation* r, ProposalContext& ctx) {
    { M::kName } -> std::convertible_to<std::string_view>;
    requires std::derived_from<typename M::Delta, DeltaHead>;
    { m.evaluate(cs) } -> std::same_as<typename M::Delta>;
    { m.relocations(cs, d, r) } -> std::same_as<int>;
    { m.host_relocations(cs, r) } -> std::same_as<int>;
    {m.apply(s, d)};
    { M::propose(ctx, out) } -> std::same_as<bool>;
    // The optional parts, where declared, with their types:
    requires optional_parts_typed<M>();
};

/** M::kCompound if M declares it, else false. */
template <class M>
inline constexpr bool move_compound = [] {
    if constexpr (requires { M::kCompound; })
        return static_cast<bool>(M::kCompound);
    else
        return false;
}();

/** M::kDefaultShare if M declares it, else 0. */
template <class M>
inline constexpr double move_default_share = [] {
    if constexpr (requires { M::kDefaultShare; })
        return static_cast<double>(M::kDefaultShare);
    else
        return 0.0;
}();

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
    // made one up front cost every evaluation ~8 instructions on the annealing loop's hot path.
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
    if constexpr (HasCachedEvaluate<M>)
        d = (cache != nullptr && m.terms_separable()) ? mv.evaluate(s, *cache) : mv.evaluate(s);
    else
        d = mv.evaluate(s);
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
 * bound plus each further term's bound() over the moved VMs; kNoBound when the move has none
 * (declares no upper_bound), a term is not monotone under insertion or the capacity is not
 * (CapacityModel::capacity_monotone: a destination-node rule's count); -kNoBound when the move is
 * infeasible.
 */
template <MoveType M>
inline double score_bound(const M& mv, const SearchState& s, MoveCache& cache) {
    const CapacityModel& m = s.model();
    if (!m.capacity_monotone()) [[unlikely]]
        return kNoBound;
    double ub = kNoBound;
    if constexpr (HasUpperBound<M>) ub = mv.upper_bound(s, cache);
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

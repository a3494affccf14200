#pragma once
/**
 * @file move_list.h
 * The one list of move types. Everything per kind — the kind index and name, the candidate and
 * delta types, the move mix (parsed by name), evaluation, bound, apply, tabu attributes and
 * proposal — is generated from `Moves` below. Adding a move type: its two files (surface in
 * moves/move.h), one entry in `Moves`, its test.
 */
#include <array>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "moves/budget_exchange.h"
#include "moves/ejection.h"
#include "moves/gather.h"
#include "moves/migrate.h"
#include "moves/move.h"
#include "moves/move_cache.h"
#include "moves/proposal.h"
#include "moves/remap.h"
#include "moves/return_move.h"
#include "moves/swap.h"

namespace vmcap {

/** A list of move types (each satisfying MoveType); everything per kind is generated from it. */
template <MoveType... Ms>
struct MoveList {
    static constexpr int kSize = sizeof...(Ms);
    using Tuple = std::tuple<Ms...>;
    using Deltas = std::tuple<typename Ms::Delta...>;
    template <int K>
    using At = std::tuple_element_t<K, Tuple>;
    static constexpr std::array<std::string_view, kSize> kNames = {Ms::kName...};
    static constexpr std::array<bool, kSize> kCompound = {move_compound<Ms>...};
    static constexpr std::array<double, kSize> kDefaultShares = {move_default_share<Ms>...};

    /** Index of the kind named `name`, or -1. */
    static constexpr int index(std::string_view name) {
        for (int k = 0; k < kSize; ++k)
            if (kNames[k] == name) return k;
        return -1;
    }
    /** Calls f(std::integral_constant<int, K>) for K == kind (0 <= kind < kSize). */
    template <class F>
    static void visit(int kind, F&& f) {
        [&]<int... I>(std::integer_sequence<int, I...>) {
            (void)((kind == I ? (f(std::integral_constant<int, I>{}), true) : false) || ...);
        }
        (std::make_integer_sequence<int, kSize>{});
    }
};

/**
 * Share of proposals per move kind of list L, by name. share[0] (the first kind, the fallback) is
 * not set: it gets what the others leave. Each share in [0, 1], their sum <= 1 (validate()).
 */
template <class L>
struct BasicMoveMix {
    std::array<double, L::kSize> share = L::kDefaultShares;

    /** Sets the share of the kind named `name`; throws std::invalid_argument on an unknown name
     *  (the message lists the kinds) or a share outside [0, 1]. */
    void set(std::string_view name, double value) {
        const int k = L::index(name);
        if (k <= 0) {
            std::string known;
            for (int i = 1; i < L::kSize; ++i) known += (i > 1 ? ", " : "") + std::string(L::kNames[i]);
            throw std::invalid_argument("unknown move kind '" + std::string(name) + "' (" + known + ")");
        }
        if (!(value >= 0.0 && value <= 1.0)) throw std::invalid_argument("share of " + std::string(name) + " must be in [0, 1]");
        share[k] = value;
    }
    /** Throws std::invalid_argument unless every share is in [0, 1] and they sum to at most 1. */
    void validate() const {
        double sum = 0.0;
        for (int k = 1; k < L::kSize; ++k) {
            if (!(share[k] >= 0.0 && share[k] <= 1.0)) throw std::invalid_argument("move mix shares must be in [0, 1]");
            sum += share[k];
        }
        if (sum > 1.0 + 1e-12) throw std::invalid_argument("move mix shares must sum to at most 1");
    }
    /** Sets the share of every compound kind (L::kCompound) to 0, so that every proposal moves one
     *  VM (compound draws fall back to the first kind). What a kind declares decides, not its name:
     *  a compound kind added to L is switched off here with no other edit. */
    void sequential_only() {
        for (int k = 1; k < L::kSize; ++k)
            if (L::kCompound[k]) share[k] = 0.0;
    }
    /** Cumulative thresholds over kinds 1.. in list order (entry 0 is 0). */
    std::array<double, L::kSize> cumulative() const {
        std::array<double, L::kSize> c{};
        for (int k = 1; k < L::kSize; ++k) c[k] = c[k - 1] + share[k];
        return c;
    }
};

/** One candidate of any move type of L (the move types side by side; only the one of `kind` is used). */
template <class L>
struct BasicCandidate {
    using List = L;
    int kind = 0;
    typename L::Tuple moves;
    template <int K>
    typename L::template At<K>& get() {
        return std::get<K>(moves);
    }
    template <int K>
    const typename L::template At<K>& get() const {
        return std::get<K>(moves);
    }
};

/** evaluate() result of a candidate: the common head, and the sub-delta of its kind. */
template <class L>
struct BasicCandidateDelta : DeltaHead {
    typename L::Deltas sub;
};

/**
 * Exact evaluation into `d` (score_move: filters, the move's cached evaluation, further objective
 * terms) through the worker's MoveCache (only the head and the sub-delta of c.kind are written:
 * the annealing loop reuses one delta instead of building and copying the whole struct per
 * candidate, which cost ~15% of a 10k-host run in store-forwarding stalls).
 */
template <class L>
inline void evaluate(const BasicCandidate<L>& c, const SearchState& s, MoveCache& cache, BasicCandidateDelta<L>& d) {
    L::visit(c.kind, [&](auto k) {
        auto& sub = std::get<k()>(d.sub);
        score_move(c.template get<k()>(), s, &cache, sub);
        static_cast<DeltaHead&>(d) = sub;
    });
}

/** evaluate() into a fresh delta. */
template <class L>
inline BasicCandidateDelta<L> evaluate(const BasicCandidate<L>& c, const SearchState& s, MoveCache& cache) {
    BasicCandidateDelta<L> d;
    evaluate(c, s, cache, d);
    return d;
}

/**
 * Upper bound on the delta of c (score_bound: the move's cached bound plus the terms' bounds):
 * -kNoBound if it is infeasible, kNoBound if it has no cheap bound. Lets the annealing reject a
 * move whose bound is below its acceptance threshold without the full evaluation: the same
 * decision as with the exact delta.
 */
template <class L>
inline double upper_bound(const BasicCandidate<L>& c, const SearchState& s, MoveCache& cache) {
    double ub = kNoBound;
    L::visit(c.kind, [&](auto k) { ub = score_bound(c.template get<k()>(), s, cache); });
    return ub;
}

/** Applies a feasible evaluation of c on the same state. */
template <class L>
inline void apply(const BasicCandidate<L>& c, SearchState& s, const BasicCandidateDelta<L>& d) {
    L::visit(c.kind, [&](auto k) { c.template get<k()>().apply(s, std::get<k()>(d.sub)); });
}

/** The VMs c may move (tabu attributes), at most kMaxRelocations. */
template <class L>
inline int moved_vms(const BasicCandidate<L>& c, const SearchState& s, int* out) {
    Relocation r[kMaxRelocations];
    int n = 0;
    L::visit(c.kind, [&](auto k) { n = c.template get<k()>().host_relocations(s, r); });
    for (int i = 0; i < n; ++i) out[i] = r[i].vm;
    return n;
}

/** Is c a compound move (threshold-first acceptance with its upper bound)? */
template <class L>
inline bool is_compound(const BasicCandidate<L>& c) {
    return L::kCompound[c.kind];
}

/**
 * Draws a candidate of list L: one uniform draw picks a kind by the cumulative mix thresholds
 * `cum` (BasicMoveMix::cumulative()); a kind whose propose() finds no suitable candidate, and every
 * draw past the last threshold, becomes the first kind (migrate), so every call yields one.
 */
template <class L>
inline BasicCandidate<L> propose(ProposalContext& ctx, const std::array<double, L::kSize>& cum) {
    BasicCandidate<L> c;
    const double u = ctx.rng.uniform();
    int kind = 0;
    for (int k = 1; k < L::kSize; ++k)
        if (u < cum[k]) {
            kind = k;
            break;
        }
    if (kind > 0) {
        bool ok = false;
        L::visit(kind, [&](auto k) {
            if constexpr (k() > 0) ok = L::template At<k()>::propose(ctx, c.template get<k()>());
        });
        if (ok) {
            c.kind = kind;
            return c;
        }
    }
    c.kind = 0;
    L::template At<0>::propose(ctx, c.template get<0>());
    return c;
}

/**
 * The move types of the search. Index 0 (migrate) is what a proposal falls back to; the order of
 * the others is the order of the cumulative mix thresholds on one uniform draw, so it is part of
 * a seeded trajectory (tests/golden_test.cpp): append new kinds at the end.
 */
using Moves = MoveList<MigrateMove, SwapMove, BudgetExchangeMove, RemapMove, ReturnMove, EjectionMove, GatherMove>;

inline constexpr int kKinds = Moves::kSize;
template <int K>
using MoveAt = Moves::At<K>;
using MoveMix = BasicMoveMix<Moves>;
using Candidate = BasicCandidate<Moves>;
using CandidateDelta = BasicCandidateDelta<Moves>;

/** Index of the move kind named `name` in Moves, or -1. */
constexpr int kind_index(std::string_view name) {
    return Moves::index(name);
}

/** Calls f(std::integral_constant<int, K>) for K == kind of Moves. */
template <class F>
inline void visit_kind(int kind, F&& f) {
    Moves::visit(kind, std::forward<F>(f));
}

}  // namespace vmcap

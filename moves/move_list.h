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
#include "moves/migrate.h"
#include "moves/move.h"
#include "moves/move_cache.h"
#include "moves/proposal.h"
#include "moves/remap.h"
#include "moves/return_move.h"
#include "moves/swap.h"

namespace vmcap {

/** A list of move types (each satisfying MoveType). */
template <MoveType... Ms>
struct MoveList {
    static constexpr int kSize = sizeof...(Ms);
    using Tuple = std::tuple<Ms...>;
    using Deltas = std::tuple<typename Ms::Delta...>;
    static constexpr std::array<std::string_view, kSize> kNames = {Ms::kName...};
    static constexpr std::array<bool, kSize> kCompound = {Ms::kCompound...};
    static constexpr std::array<double, kSize> kDefaultShares = {Ms::kDefaultShare...};
};

/**
 * The move types of the search. Index 0 (migrate) is what a proposal falls back to; the order of
 * the others is the order of the cumulative mix thresholds on one uniform draw, so it is part of
 * a seeded trajectory (tests/golden_test.cpp): append new kinds at the end.
 */
using Moves = MoveList<MigrateMove, SwapMove, BudgetExchangeMove, RemapMove, ReturnMove, EjectionMove>;

inline constexpr int kKinds = Moves::kSize;
template <int K>
using MoveAt = std::tuple_element_t<K, Moves::Tuple>;

/** Index of the move kind named `name` in Moves, or -1. */
constexpr int kind_index(std::string_view name) {
    for (int k = 0; k < kKinds; ++k)
        if (Moves::kNames[k] == name) return k;
    return -1;
}

/** Calls f(std::integral_constant<int, K>) for K == kind (0 <= kind < kKinds). */
template <class F>
inline void visit_kind(int kind, F&& f) {
    [&]<int... I>(std::integer_sequence<int, I...>) {
        (void)((kind == I ? (f(std::integral_constant<int, I>{}), true) : false) || ...);
    }(std::make_integer_sequence<int, kKinds>{});
}

/**
 * Share of proposals per move kind, by name. share[0] (migrate) is not set: migrate gets what the
 * others leave. Each share in [0, 1], their sum <= 1 (validate()).
 */
struct MoveMix {
    std::array<double, kKinds> share = Moves::kDefaultShares;

    /** Sets the share of the kind named `name`; throws std::invalid_argument on an unknown name
     *  (the message lists the kinds) or a share outside [0, 1]. */
    void set(std::string_view name, double value) {
        const int k = kind_index(name);
        if (k <= 0) {
            std::string known;
            for (int i = 1; i < kKinds; ++i) known += (i > 1 ? ", " : "") + std::string(Moves::kNames[i]);
            throw std::invalid_argument("unknown move kind '" + std::string(name) + "' (" + known + ")");
        }
        if (!(value >= 0.0 && value <= 1.0)) throw std::invalid_argument("share of " + std::string(name) + " must be in [0, 1]");
        share[k] = value;
    }
    /** Throws std::invalid_argument unless every share is in [0, 1] and they sum to at most 1. */
    void validate() const {
        double sum = 0.0;
        for (int k = 1; k < kKinds; ++k) {
            if (!(share[k] >= 0.0 && share[k] <= 1.0)) throw std::invalid_argument("move mix shares must be in [0, 1]");
            sum += share[k];
        }
        if (sum > 1.0 + 1e-12) throw std::invalid_argument("move mix shares must sum to at most 1");
    }
    /** Cumulative thresholds over kinds 1.. in list order (entry 0 is 0). */
    std::array<double, kKinds> cumulative() const {
        std::array<double, kKinds> c{};
        for (int k = 1; k < kKinds; ++k) c[k] = c[k - 1] + share[k];
        return c;
    }
};

/** One candidate of any move type (the move types side by side; only the one of `kind` is used). */
struct Candidate {
    int kind = 0;
    Moves::Tuple moves;
    template <int K>
    MoveAt<K>& get() {
        return std::get<K>(moves);
    }
    template <int K>
    const MoveAt<K>& get() const {
        return std::get<K>(moves);
    }
};

/** evaluate() result of a Candidate: the common head, and the sub-delta of its kind. */
struct CandidateDelta : DeltaHead {
    Moves::Deltas sub;
};

/**
 * Exact evaluation into `d` (score_move: filters, the move's cached evaluation, further objective
 * terms) through the worker's MoveCache (only the head and the sub-delta of
 * c.kind are written: the annealing loop reuses one CandidateDelta instead of building and copying
 * the whole struct per candidate, which cost ~15% of a 10k-host run in store-forwarding stalls).
 */
inline void evaluate(const Candidate& c, const SearchState& s, MoveCache& cache, CandidateDelta& d) {
    visit_kind(c.kind, [&](auto k) {
        auto& sub = std::get<k()>(d.sub);
        score_move(c.get<k()>(), s, &cache, sub);
        static_cast<DeltaHead&>(d) = sub;
    });
}

/** evaluate() into a fresh CandidateDelta. */
inline CandidateDelta evaluate(const Candidate& c, const SearchState& s, MoveCache& cache) {
    CandidateDelta d;
    evaluate(c, s, cache, d);
    return d;
}

/**
 * Upper bound on the delta of c (from cached parts; see each move's upper_bound): -kNoBound if it
 * is infeasible, kNoBound if it has no cheap bound. Lets the annealing reject a move whose bound
 * is below its acceptance threshold without the full evaluation: the same decision as with the
 * exact delta.
 */
inline double upper_bound(const Candidate& c, const SearchState& s, MoveCache& cache) {
    double ub = kNoBound;
    visit_kind(c.kind, [&](auto k) { ub = score_bound(c.get<k()>(), s, cache); });
    return ub;
}

/** Applies a feasible evaluation of c on the same state. */
inline void apply(const Candidate& c, SearchState& s, const CandidateDelta& d) {
    visit_kind(c.kind, [&](auto k) { c.get<k()>().apply(s, std::get<k()>(d.sub)); });
}

/** The VMs c may move (tabu attributes), at most kMaxRelocations. */
inline int moved_vms(const Candidate& c, const SearchState& s, int* out) {
    Relocation r[kMaxRelocations];
    int n = 0;
    visit_kind(c.kind, [&](auto k) { n = c.get<k()>().host_relocations(s, r); });
    for (int i = 0; i < n; ++i) out[i] = r[i].vm;
    return n;
}

/** The relocations of a feasible evaluation of c, in execution order. */
inline int relocations(const Candidate& c, const SearchState& s, const CandidateDelta& d, Relocation* out) {
    int n = 0;
    visit_kind(c.kind, [&](auto k) { n = c.get<k()>().relocations(s, std::get<k()>(d.sub), out); });
    return n;
}

/** Is c a compound move (threshold-first acceptance with its upper bound)? */
inline bool is_compound(const Candidate& c) { return Moves::kCompound[c.kind]; }

/**
 * Draws a candidate: one uniform draw picks a kind by the cumulative mix thresholds `cum`
 * (MoveMix::cumulative()); a kind whose propose() finds no suitable candidate, and every draw
 * past the last threshold, becomes a migrate move, so every call yields one candidate.
 */
inline Candidate propose(ProposalContext& ctx, const std::array<double, kKinds>& cum) {
    Candidate c;
    const double u = ctx.rng.uniform();
    int kind = 0;
    for (int k = 1; k < kKinds; ++k)
        if (u < cum[k]) {
            kind = k;
            break;
        }
    if (kind > 0) {
        bool ok = false;
        visit_kind(kind, [&](auto k) {
            if constexpr (k() > 0) ok = MoveAt<k()>::propose(ctx, c.get<k()>());
        });
        if (ok) {
            c.kind = kind;
            return c;
        }
    }
    c.kind = 0;
    MigrateMove::propose(ctx, c.get<0>());
    return c;
}

}  // namespace vmcap

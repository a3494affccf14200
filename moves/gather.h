#pragma once
/**
 * @file gather.h
 * Gather move: two VMs joined by a vlink move together, onto one
 * host or onto two hosts under one ToR, usually the rack of a third VM of their VDC. It reaches
 * what single migrations cannot: when the link rule forbids either VM to leave alone (its vlink
 * would cross a full uplink) but the pair may travel together, and when a VDC is brought into one
 * rack two VMs at a time. Only proposed on snapshots with vlinks and a network. A small value
 * type: evaluate() is const and exact, apply() separate.
 */
#include <cstdint>

#include <string_view>

#include "evaluators/state/search_state.h"
#include "moves/move.h"

namespace vmcap {

/** Result of GatherMove::evaluate. */
struct GatherDelta : DeltaHead {
    int embedding_a = -1;  ///< a's placement on host_a: evaluator(type, flavor a).placements() index
    int embedding_b = -1;  ///< b's placement on host_b
};

/** No cached evaluation (the hosts interact): score_move uses evaluate(state). */
struct GatherMove {
    static constexpr std::string_view kName = "gather";
    static constexpr bool kCompound = true;
    /** The link rule (and any feasibility filter) must admit the state after a's migration too,
     *  not only after both (score_move checks every prefix of host_relocations()): a vlinked pair
     *  crosses the network between its two live migrations. */
    static constexpr bool kFilterEveryPrefix = true;
    /**
     * Rare: a proposal costs several memory misses (peers, their hosts) and the measured gain is
     * small (docs/performance.md). Appended last in the move list and proposed only with vlinks,
     * so on a snapshot without vlinks its share of draws falls back to migrate on the same random
     * stream: trajectories without vlinks are those of the list without it.
     */
    static constexpr double kDefaultShare = 0.01;
    using Delta = GatherDelta;

    int a = -1;
    int b = -1;
    int host_a = -1;  ///< a's destination, != a's host
    int host_b = -1;  ///< b's destination, != b's host (may equal host_a)

    /**
     * Exact weighted delta of a -> host_a, then b -> host_b, as two live migrations in this order,
     * without mutating `state`: a on a placement with room while b still occupies its host, b on
     * one with room once a has landed (and left). Over placement pairs within the budget the
     * largest delta wins (ties: fewer migrations, then the lowest placement indices). Budget as
     * in SearchState: the count changes by (a, b migrated after) - (a, b migrated before).
     * Infeasible if a == b, either is not migratable, host_a is a's or b's host (the order is
     * fixed, so a never waits for b to leave), host_b is b's host, no placement pair has room,
     * or the budget (count, RAM) would be exceeded. Link loads are not its concern: score_move
     * filters both prefixes before evaluation (kFilterEveryPrefix).
     * O(placements_a x placements_b x targets x (k x R + VMCAP)) when both land on one host,
     * O((placements_a + placements_b) x ...) otherwise; allocation-free.
     */
    GatherDelta evaluate(const SearchState& state) const;

    /** O(1) necessary condition: false when even each VM counting as migrated only off its
     *  snapshot host exceeds the budget (count or RAM). Precondition: a, b valid VM indices. */
    bool budget_admits(const SearchState& state) const;

    /**
     * Upper bound from the cached removal deltas (VMCAP never grows when a VM is added): a's plus
     * b's when they leave different hosts. -kNoBound when budget_admits() is false; kNoBound when
     * they share a host (removing both is not the sum of removing each).
     */
    double upper_bound(const SearchState& state, MoveCache& cache) const;

    /** a's then b's relocation with the chosen nodes (execution order). */
    int relocations(const SearchState& state, const GatherDelta& d, Relocation* out) const;
    int host_relocations(const SearchState& state, Relocation* out) const { return relocating(state, out, a, host_a, b, host_b); }

    /** Applies a feasible result of evaluate() on the same state: a's move, then b's. */
    void apply(SearchState& state, const GatherDelta& d) const;

    /**
     * Without vlinks or a network: false at once, no random draw (the caller falls back to
     * migrate). Else a random migratable VM a with vlinks (4 tries), a peer b drawn in proportion
     * to its vlink's bandwidth, and an anchor host: half of the time the host of a peer of a or b
     * (bandwidth-weighted; the rack their VDC already uses), else one of a's flavor's destination
     * candidates or a random host. a goes to the anchor or, half of the time, to a random host
     * under the anchor's ToR; b goes to a's destination or, half of the time, to another random
     * host under that ToR. False if a destination is the VM's own host or b is not migratable.
     */
    static bool propose(ProposalContext& ctx, GatherMove& out);
};

}  // namespace vmcap

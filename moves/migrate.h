#pragma once
/**
 * @file migrate.h
 * Migrate move: a VM goes to another host, on the placement (pNUMA node set) there that keeps the
 * most weighted capacity. A small value type: evaluate() is const and exact, apply() is separate
 * (surface: moves/move.h).
 */
#include <cstdint>
#include <string_view>

#include "evaluators/state/search_state.h"
#include "moves/insertion.h"
#include "moves/move_cache.h"
#include "moves/move.h"

namespace vmcap {

/** Result of MigrateMove::evaluate. */
struct MigrateDelta : DeltaHead {
    int embedding = -1;  ///< index into evaluator(dest type, flavor).placements()
};

/** Not drawn by share (kDefaultShare 0): migrate is what every proposal that is not another kind
 *  becomes. No cheap upper bound: the cached evaluation is already O(1) on a hit. */
struct MigrateMove {
    static constexpr std::string_view kName = "migrate";
    using Delta = MigrateDelta;

    int vm = -1;
    int host = -1;  ///< destination host, != current host

    /**
     * Exact weighted delta of the best placement on `host` without mutating `state`: only the
     * source and destination hosts are re-evaluated, and on them only the touched pNUMA nodes'
     * capacity entries change. Ties between placements go to the one that is not a migration
     * (back to the VM's original nodes), then to the lowest node mask, so evaluation is
     * deterministic. Infeasible if the VM is not migratable, `host` is its current host, no
     * placement has room, or the budget (Constraints) would be exceeded.
     * O(targets x (placements x (k x R + VMCAP))). Allocation-free.
     */
    MigrateDelta evaluate(const SearchState& state) const;

    /**
     * The same result (feasibility, delta, embedding, migrations_after) through the worker's
     * MoveCache, bit for bit: off the snapshot host every placement is a migration, so the delta
     * is the cached removal plus the cached best insertion. A VM going back to its snapshot host
     * from another host takes the better of its cached return (snapshot nodes, budget refunded,
     * wins ties) and the cached best insertion there; only with free remaps
     * (Constraints::remap_counts_as_migration false) does that case take the uncached path.
     */
    [[gnu::always_inline]] MigrateDelta evaluate(const SearchState& state, MoveCache& cache) const {
        // Inline for the annealing loop's common case (off the snapshot host: two cache hits);
        // the snapshot host's case is out of line (each call boundary on the common path costs the
        // hot loop instructions).
        if (state.origin_of(vm) == host) [[unlikely]]
            return evaluate_at_origin(state, cache);
        MigrateDelta out;
        if (!state.migratable(vm) || host == state.host_of(vm)) return out;
        // Off the snapshot host every placement is a migration: the budget either admits all of
        // them or none, and the best one does not depend on the VM.
        const BudgetUse budget(state, vm);
        if (!budget.admits(true)) return out;
        const Insertion& ins = cache.insertion(state, state.flavor_of(vm), host);
        if (ins.embedding < 0) return out;
        out.feasible = true;
        out.embedding = ins.embedding;
        out.delta = cache.removal(state, vm) + ins.delta;
        out.migrations_after = budget.migrations_after(true);
        return out;
    }
    /** evaluate(state, cache) when `host` is the VM's snapshot host. */
    MigrateDelta evaluate_at_origin(const SearchState& state, MoveCache& cache) const;

    /** The VM to `host` on the chosen nodes. */
    int relocations(const SearchState& state, const MigrateDelta& d, Relocation* out) const;
    int host_relocations(const SearchState& state, Relocation* out) const { return relocating(state, out, vm, host); }

    /** Applies a feasible result of evaluate() on the same state. */
    void apply(SearchState& state, const MigrateDelta& d) const;

    /**
     * Mostly the next migratable VM of the worker's sweep (Proposal::cursor walks the VM list
     * cyclically from a random start; sequential, so the per-VM data streams through the CPU
     * caches instead of costing a memory miss each), 1 in 8 an already migrated VM (half of
     * those to its snapshot host, on the best nodes there, so budget can be given back and
     * reused); otherwise, when the VM has vlinks, 1 in kPeerDraw times a host near one of its
     * vlink peers (drawn in proportion to bandwidth: the peer's host or a host under its ToR; for
     * swept VMs the peer is drawn Proposal::kPeerAhead steps early and its record prefetched);
     * else half the time from the flavor's candidate list, else uniform among the other hosts.
     * Always succeeds.
     */
    static bool propose(ProposalContext& ctx, MigrateMove& out);
    /** 1 in kPeerDraw migrate proposals of a VM with vlinks look near its peers. */
    static constexpr std::uint64_t kPeerDraw = 4;
};

}  // namespace vmcap

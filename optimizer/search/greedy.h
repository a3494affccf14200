#pragma once
/**
 * @file greedy.h
 * Greedy baseline, as published greedy consolidators do it: repeatedly apply the single migrate
 * move with the largest positive gain until the budget is spent or no move gains. The yardstick
 * the annealing is compared against (`vmcap plan --algorithm greedy`).
 */
#include "optimizer/search/search_params.h"

namespace vmcap {

/** The most targets with which greedy() takes room steps (see greedy()). */
inline constexpr int kMaxRoomTargets = 16;

/**
 * Runs the greedy baseline from the snapshot. Each round applies the exact best migrate move over
 * every (migratable VM, other host) pair, using that a move's delta splits into a source part
 * (per VM) and a destination part (per flavor and host). Incremental: per flavor a tournament
 * tree of the destination parts over hosts and one of the source parts over the flavor's VMs;
 * a round queries them (O(flavors x (log hosts + log VMs + VMs on the best host)) plus the
 * migrated VMs once the budget has no room for new ones) and refreshes only the two hosts the
 * applied move touched (O(flavors x log hosts + their VMs x log VMs) tree updates). It picks
 * exactly the move a scan over all pairs picks. The initial pass (every insertion and removal)
 * runs on `params.threads` oneTBB threads; the result does not depend on the thread count.
 * With further objective terms or feasibility filters (evaluators/interfaces/seams.h) the ranking uses
 * the VMCAP parts and every chosen move is re-scored completely (score_move) before it is
 * applied: greedy never applies a move that does not raise the whole objective, but may miss the
 * best one. Deterministic (ties: the VM with less RAM, then lowest VM index, then lowest host
 * index). Stops at `params.time_limit_s`, and as soon as the objective reaches
 * `params.bound_score` (StopReason::ProvenOptimal: no migration can then raise it).
 *
 * Room steps (`params.room_steps` = K > 0; a second greedy run beside annealing and tabu,
 * OptimizeParams::room_steps): a single migration rarely raises VMCAP on full hosts, where one more VM of a
 * target flavor needs several VMs out of one pNUMA node set first. So greedy also weighs, per host,
 * its best room step: for a target flavor t and a placement P of t there (every placement of every
 * target with a positive weight, largest weight first), the fewest migratable VMs on P's nodes
 * that leave P room for one more VM of t (chosen greedily by the share of the shortfall each
 * covers, ties to less RAM; at most K, else no step), each sent to its flavor's best host other
 * than this one. Its estimate is the host's exact gain from the evictions (HostScratch) plus each
 * evicted VM's best insertion elsewhere from the trees; its key is the estimate per migration it
 * adds (at least 1), and it is taken instead of the best single migration when its key is larger.
 * Keys are kept per host in a tournament tree and re-estimated lazily: the top host's key is
 * recomputed until it stays on top, a host's own key after every change it takes part in. A step
 * is applied migration by migration (each re-scored exactly, score_move, and within the budget)
 * and kept only if the whole objective rose by more per migration it added (at least 1) than the
 * best single migration's gain at that point; otherwise the state is restored exactly
 * (set_placements) and the host gets no further step until another step pays. Every kept step
 * raises the objective, so greedy still ends. Only with at most kMaxRoomTargets targets (the
 * estimate walks every placement of every target on every host). Measured: docs/performance.md,
 * "Room steps". A host's eviction sets and its own gain from them depend on that host alone, so
 * they are kept until the host changes and each estimate prices them at the current trees and
 * budget: O(its distinct sets x K x log hosts) while the host is unchanged, O(targets x placements
 * x VMs on the host x K x nodes x resources) after a change (with `params.check_every` > 0 every
 * cached read is compared with a recomputation; std::logic_error on a difference).
 *
 * Ruin and recreate (`params.ruin_iterations` = N > 0, with room steps): after greedy ends, N
 * iterations from the last kept state, each drawn from (params.seed, a fixed stream): a ruin gives
 * back up to 5% of the migrated VMs or 2K, whichever is more (from 1, uniformly; 2K so that a ruin
 * at a small budget can give back what a room step of the most evictions needs), related through their hosts (breadth first
 * from a random migrated VM over the snapshot and current hosts of the VMs reached), each returned
 * to its snapshot placement where that has room (ReturnMove, in passes, whatever its delta); then
 * greedy with room steps runs again from that state, re-estimating only the hosts the ruin
 * changed. The result is kept when not below the kept state (plateaus are crossed), else the
 * kept state is restored (SearchState::set_placements, only the changed hosts refreshed). The best
 * state is returned; SearchResult::ruins / ruins_improving count the iterations. Stops early at
 * the time limit, params.ruin_time_limit_s (SearchResult::ruins_cut), an interrupt or the bound.
 * Deterministic for a seed and any thread count. Measured: docs/performance.md, "Ruin and
 * recreate" (the Huawei K2 replay at 5%: 2,648 -> 2,682 in 1,000 iterations, 1.4 s). With a
 * start state (`params.start`), greedy and the ruins run from it instead of the snapshot
 * (OptimizeParams::ruin_iterations: from the search's plan).
 */

SearchResult greedy(const CapacityModel& model, const SearchParams& params);

}  // namespace vmcap

#pragma once
/**
 * @file exact_bb.h
 * Combinatorial branch and bound that proves the optimum of small instances (about <= 10 hosts,
 * <= 40 VMs, a budget of a few migrations): the default solver of `vmcap exact` and the yardstick
 * of bench/quality. Same semantics as SearchState and the MILP of exact.h: final-state
 * optimisation; every migratable VM ends on one (host, placement of its flavor there); a VM is
 * migrated iff its (host, pNUMA node set) differs from the snapshot; at most max_migrations
 * migrated VMs and max_migrated_ram_mib of their RAM; no pNUMA node over capacity; objective
 * sum_j w_j x sum_hosts VMCAP. With the link-capacity rule (a network with vlinks;
 * evaluators/rules/link_filter.h), only final states whose every link load is <= max(capacity, snapshot
 * load) count: each placement is checked against the loads of the vlinks already determined
 * (both ends final; loads only add, so this prunes exactly), the incumbent is link-feasible, the
 * VMCAP bounds stay valid (forbidding placements only lowers the optimum), and host symmetry and
 * identical-VM classes of VMs with vlinks are off. Other objective terms and filters are refused
 * (check_exact_scope, exact.h).
 *
 * Search (details in exact_bb.cpp): an outer enumeration of the set M of moved VMs (increasing
 * index, identical VMs taken in a fixed order), an inner search placing M's VMs on the snapshot
 * minus M (most constrained VM first, best option first). Bounds rest on monotonicity (a host's
 * VMCAP never rises when a VM is added): the objective of the snapshot minus M, minus a lower
 * bound on what landing M's VMs must cost; and, for supersets of M, a group knapsack over hosts of
 * precomputed removal gains. Incumbent: greedy then a short annealing run.
 */
#include <cstdint>

#include "optimizer/solvers/exact.h"

namespace vmcap {

/** One validated parameter set of the branch and bound. */
struct BranchBoundParams {
    double time_limit_s = 600.0;  ///< wall-clock cap in seconds (checked every 256 nodes)
    std::int64_t max_nodes = 0;   ///< search nodes (removal sets + placement nodes); 0 = unlimited
    /** Incumbent from greedy plus an annealing run of this many evaluations (0: greedy only, -1:
     *  start from the snapshot alone, as tests do to make the search find the optimum itself). */
    std::int64_t warm_start_evaluations = 100000;
    std::uint64_t seed = 1;  ///< annealing seed of the warm start
    /** Break host and identical-VM symmetries (off only to cross-check the symmetry rules). */
    bool symmetry = true;
    /** Optimise over plans: a state counts only if some plan of live migrations
     *  within the budget, detours included, reaches it (find_order, ordering.h), so "proven"
     *  holds for what `vmcap exact` writes. false: over final states (the MILP's model). */
    bool orderable_only = true;
    /** find_order's expansion limit per candidate state; a candidate it cannot decide is
     *  skipped and the result reported as not proven ("ordering search limit"). */
    std::int64_t max_order_expansions = 2'000'000;
};

/**
 * Solves `model`'s problem to proven optimality (over orderable plans unless
 * BranchBoundParams::orderable_only is off) unless a limit stops it first; then `proven` is
 * false, `objective` is the best state found and `bound` a valid upper bound (the root's removal
 * knapsack; +infinity if the instance is too large for that table). ExactResult::best lists the
 * migrated VMs' placements; `objective` is re-evaluated through SearchState (a mismatch with the
 * search's own value, or a budget violation, throws std::logic_error: a bug, reported loudly).
 * `columns`/`rows` are 0; `nodes` counts search nodes. Exactly optimal: every value, delta and
 * bound is an integer in score units (evaluators/closed_forms/score.h), each capacity change computed by the
 * search's own kernel (evaluators/state/capacity_change.h), so no tolerance is involved. Complexity: exponential in the budget,
 * about sum_{s<=B} C(movable VMs, s) removal sets times a pruned placement search. Thread-safe
 * with respect to other calls (no shared state); single-threaded. Throws std::invalid_argument as
 * check_exact_scope, on a non-positive time limit, a negative node limit, or an effective budget
 * above 62 migrations (the solver's bitmasks; far beyond what it can prove anyway). With links, the
 * optimum is re-checked from scratch (LinkCapacityFilter::violation; a violation throws
 * std::logic_error) and each placement node costs O(vlinks of the VM x route length) more.
 */
ExactResult solve_exact_bb(const CapacityModel& model, const BranchBoundParams& params);

}  // namespace vmcap

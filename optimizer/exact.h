#pragma once
/**
 * @file exact.h
 * Proven optimum of small instances by a MILP solved with CBC (coinor-libcbc-dev): `vmcap exact
 * --method milp`, and a cross-check of the default combinatorial solver (exact_bb.h), which is
 * much stronger (this MILP's LP relaxation counts fractional VM packings).
 *
 * Model: a binary x[v,h,S] per migratable VM v, host h and placement S (pNUMA node set) of its
 * flavor there, exactly one per VM; an integer y[f,h,S] per target flavor f, host h and placement S
 * counting the VMs of f that could be added there. For every target f, host h, pNUMA node i and
 * resource r: usage of the placed VMs + demand_f,r x (sum of y[f,h,S] over S containing i) <=
 * capacity, i.e. the y of one flavor form a VMCAP packing of the free space that x leaves
 * (flavors are counted independently, as VMCAP does). Budget: at most max_migrations VMs and
 * max_migrated_ram RAM off their snapshot placement. Objective: max sum_f w_f sum y[f,h,S].
 *
 * The link-capacity rule (evaluators/link_filter.h; registered by CapacityModel when the snapshot
 * has a network and vlinks) is modelled exactly, in micro-units (NetworkRoutes). With u[v,h] =
 * sum_S x[v,h,S] (a constant for a non-migratable VM): a vlink e = (a, b) of m Mbps with one end
 * fixed loads each link linearly in the other end's u (its ECMP shares from each host); with both
 * ends migratable, uplink h carries m x scale() x d[e,h] with d[e,h] >= |u[a,h] - u[b,h]| (the
 * vlink crosses h's NIC), and the switch links the route shares of s -> t times z[e,s,t] >=
 * U[a,s] + U[b,t] - 1 (U: u summed over the hosts on switch s, s != t). d and z are continuous in
 * [0, 1] and bounded only from below, so at every integer x their exact values (|difference|,
 * product) are feasible. One row per loaded link: load <= max(capacity, snapshot load). Other
 * objective terms and feasibility filters are refused (check_exact_scope).
 */
#include <cstdint>
#include <string>
#include <vector>

#include "evaluators/search_state.h"

namespace vmcap {

class LinkCapacityFilter;

struct ExactResult {
    std::vector<Placement> best;  ///< placements of the VMs that move in the optimum
    double objective = 0.0;       ///< optimum (proven if `proven`), or the best bound-feasible value found
    double bound = 0.0;           ///< CBC's best upper bound
    bool proven = false;          ///< optimality proven within the time limit
    int columns = 0, rows = 0;    ///< MILP size (0 for the branch and bound)
    double seconds = 0.0;
    std::int64_t nodes = 0;        ///< branch-and-bound search nodes (0 for the MILP)
    double start_objective = 0.0;  ///< branch and bound: incumbent from the warm start (greedy, annealing)
    std::string stopped_by;        ///< "proven optimal", "time limit" or "node limit"
};

/** One validated parameter set of the MILP. */
struct MilpParams {
    double time_limit_s = 600.0;  ///< wall-clock cap in seconds (warm start included)
    /** Identical VMs as leaving counts (the aggregated model); false: one x[v,h,S] per VM
     *  (the per-VM model, kept to cross-check the aggregation). */
    bool aggregate = true;
    /** CBC's start: greedy plus an annealing run of this many evaluations (0: greedy only,
     *  -1: the snapshot, so that tests make CBC find the optimum itself). */
    std::int64_t warm_start_evaluations = 100000;
    std::uint64_t seed = 1;  ///< annealing seed of the warm start
    int threads = 1;         ///< CBC threads (> 1: CBC's deterministic parallel mode)
};

/**
 * What both exact solvers model, checked before any work: returns the model's link-capacity
 * filter (nullptr without one). Throws std::invalid_argument with a one-line reason for free
 * remaps (constraints.remap_counts_as_migration false), any objective term beyond VMCAP
 * (ram-cost, locality-weight, bandwidth-capacity: not modelled), and any feasibility filter other
 * than one LinkCapacityFilter. O(filters).
 */
const LinkCapacityFilter* check_exact_scope(const CapacityModel& model);

/**
 * Builds and solves the MILP. Intended for small instances (about <= 10 hosts and <= 40 VMs; the
 * model has O(VMs x hosts x placements + targets x hosts x placements + vlinks x (hosts + switches^2))
 * columns). Throws std::invalid_argument as check_exact_scope; std::runtime_error if CBC reports
 * an infeasible model or returns a solution that fails the integer re-check (VMCAP value, and the
 * link loads recomputed from scratch by LinkCapacityFilter::violation). Thread-safe with respect to other instances (CBC state is local).
 */
ExactResult solve_exact(const CapacityModel& model, const MilpParams& params);

/** solve_exact with default MilpParams and this time limit. */
ExactResult solve_exact(const CapacityModel& model, double time_limit_s);

}  // namespace vmcap

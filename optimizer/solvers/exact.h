#pragma once
/**
 * @file exact.h
 * Proven optimum of small instances by a MILP solved with CBC (coinor-libcbc-dev): `vmcap exact
 * --method milp`, and an independent cross-check of the combinatorial solver (exact_bb.h). CBC
 * runs as its stand-alone solver does (CbcMain: cut generators, heuristics; no CglPreProcess) from a
 * MIP start; on 10 hosts / 40 VMs at budget 6 it proves in about a second what the branch and
 * bound needs minutes for (docs/performance.md, "Exact proofs at the size").
 *
 * Aggregated model (MilpParams::aggregate, the default). Migratable VMs without vlinks that share
 * (flavor, snapshot host, node set) form a class c with an integer leaving count L[c] in
 * [0, min(|c|, budget)]; its |c| - L[c] staying VMs keep their snapshot nodes (which VMs leave
 * does not matter: they are identical). An integer n[f,h,S] counts the leaving VMs of flavor f
 * that land on host h, placement S; sum_{h,S} n[f,h,S] = sum_{c of f} L[c]. A leaver landing on
 * its own class's placement is the same final state as one fewer leaver, so the optimum never
 * needs it (and the decoding treats it as staying). When the link rule may bind (below), VMs with
 * a vlink keep per-VM binaries, since the link rows need each one's host: x[v] (stays on its
 * snapshot placement) and x[v,h] (moves to host h), with landing counts m[f,h,S] of their flavor
 * on (h, S): sum_S m[f,h,S] = sum over such VMs v of flavor f of x[v,h] (H + 1 binaries per VM
 * rather than one per host and placement; identical VMs on one host are interchangeable for
 * capacity and links). Per-VM model (aggregate = false): x[v,h,S] for every migratable VM, the
 * cross-check of the aggregation.
 * Exactness: every final state maps to column values (L = leavers per class, n = landings) and
 * back (the first L[c] VMs of c leave, matched to the n slots), with the same capacity usage.
 *
 * In both, an integer y[f,h,S] per target flavor f, host h and placement S counts the VMs of f
 * that could be added there. For every target f, host h, pNUMA node i and resource r: usage of
 * the VMs + demand_f,r x (sum of y[f,h,S] over S containing i) <= capacity. With integer y this
 * is sum_{S containing i} y[f,h,S] <= b_i = min_r floor(free_r(i) / demand_f,r), so max sum y is
 * exactly VMCAP (flavors are counted independently, as VMCAP does). Budget: at most
 * max_migrations VMs and max_migrated_ram RAM off their snapshot placement. Objective:
 * max sum_f w_f sum y[f,h,S].
 *
 * The link-capacity rule (evaluators/rules/link_filter.h; registered by CapacityModel when the snapshot
 * has a network and vlinks) is modelled exactly, in micro-units, through NetworkRoutes'
 * for_each_share only (no assumption on link numbering or direction). A link gets a row only if
 * it may bind: its snapshot load plus (the most micro-units per Mbps a vlink puts on it from any
 * two hosts) x the vlink bandwidth of the `budget` migratable VMs with the most exceeds
 * max(capacity, snapshot load) (a vlink's load changes only when an end moves); with no such link
 * the rule is inactive and the model is the one without a network.
 * With u[v,h] the 0/1 presence of VM v on host h (a constant for a non-migratable VM): a vlink
 * e = (a, b) of m Mbps with one end fixed loads each link linearly in the other end's u (its
 * route from each host); with both ends migratable, every route splits (checked on every host
 * pair, else std::invalid_argument) into a part of the first end's host, one of the second's and
 * one of their switch pair (s, t). The host parts are carried by continuous d[e,h] >= u[a,h] -
 * u[b,h] (and / or >= u[b,h] - u[a,h]), bounded only from below, so their exact values at an
 * integer x (the positive parts) are feasible; the switch parts by continuous w[e,s,t] >= 0 with
 * sum_t w[e,s,t] = U[a,s] and sum_s w[e,s,t] = U[b,t] (U: u summed over the hosts on switch s),
 * which an integer x fixes to the indicator of the ends' switches, and whose LP relaxation (the
 * transportation polytope) is tighter than z >= U[a,s] + U[b,t] - 1. One row per binding link:
 * load <= max(capacity, snapshot load). Other objective terms and feasibility filters are
 * refused (check_exact_scope).
 *
 * CBC runs without CglPreProcess: in CBC 2.10.8 its post-processing crashes (SIGSEGV) when the
 * time limit stops the search at the root.
 */
#include <cstdint>
#include <string>
#include <vector>

#include "evaluators/state/search_state.h"
#include "instances/stop_reason.h"

namespace vmcap {

/** How far a value CBC returns (a column, its objective or bound; doubles) may be from the integer
 *  or exact score it stands for: CBC's own integrality and optimality tolerance. The one tolerance
 *  in optimizer/: it reads a floating-point solver's answer, never our objective, which is exact
 *  (evaluators/closed_forms/score.h). */
inline constexpr double kMilpTolerance = 1e-6;

class LinkCapacityFilter;

struct ExactResult {
    std::vector<Placement> best;  ///< placements of the VMs that move in the optimum
    double objective = 0.0;       ///< optimum (proven if `proven`), or the best bound-feasible value found
    Score score = 0;              ///< the same, exactly (score units), from the SearchState re-evaluation of `best`
    double bound = 0.0;           ///< CBC's best upper bound
    bool proven = false;          ///< optimality proven within the time limit
    int columns = 0, rows = 0;    ///< MILP size (0 for the branch and bound)
    double seconds = 0.0;
    std::int64_t nodes = 0;        ///< branch-and-bound search nodes (0 for the MILP)
    double start_objective = 0.0;  ///< branch and bound: incumbent from the warm start (greedy, annealing)
    /** ProvenOptimal, TimeLimit, NodeLimit or OrderingSearchLimit (branch and bound); the CLI may
     *  then set OrderingTimeLimit, OptimumUnreachable or ScheduleCut. */
    StopReason stopped_by = StopReason::TimeLimit;
};

/** One validated parameter set of the MILP. */
struct MilpParams {
    double time_limit_s = 600.0;  ///< wall-clock cap in seconds (warm start and model build included)
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
 * (ram-cost, locality-weight, bandwidth-capacity: not modelled), a destination-node rule that
 * fixes nodes (CapacityModel::fixes_nodes), and any feasibility filter other than one
 * LinkCapacityFilter. O(filters).
 */
const LinkCapacityFilter* check_exact_scope(const CapacityModel& model);

/**
 * Builds and solves the MILP. Size: aggregated, O(classes + flavors x hosts x placements +
 * targets x hosts x placements) columns (434 on 10 K4 hosts / 40 VMs; the per-VM model 1,740),
 * plus, when a link may bind, O(VMs with vlinks x hosts + vlinks x (hosts + switches^2));
 * rows O(hosts x nodes x resources x targets). Building it costs O(H^2 x route length) with links
 * (the binding test and the route split) plus O(nonzeros). Time: the whole call (warm start, model, CBC) stays within
 * time_limit_s plus the model build and CBC's last step (typically well under a second).
 * Solve time is exponential in the worst case; measured 0.2-2.3 s up to 50 hosts / 200 VMs and
 * budgets of 20 (docs/performance.md). Deterministic for the same input and params with
 * threads = 1 unless the time limit stops it. Throws std::invalid_argument as check_exact_scope
 * or on a non-positive time limit or threads < 1; std::runtime_error if CBC returns no solution
 * or one that fails the integer re-check (counts, budget, VMCAP value equal to CBC's, link loads
 * recomputed by LinkCapacityFilter::violation). `start_objective` is the MIP start's value.
 * Thread-safe with respect to other calls (CBC state is local; no signal handler installed).
 */
ExactResult solve_exact(const CapacityModel& model, const MilpParams& params);

/**
 * The incumbent both exact solvers start from: greedy, then two annealing runs of `evaluations`
 * candidate moves each from its plan (default move mix, and the same without same-host remaps;
 * the better kept; 0: greedy alone), 1 thread, `seed`, greedy at most max(0.1 s, time_limit_s /
 * 4) and each run at most max(0.1 s, time_limit_s / 8). Returns the placements of the VMs it migrated (the search's final state;
 * it obeys every feasibility filter). Deterministic for the same model and seed unless the time
 * cap stops it.
 */
std::vector<Placement> exact_warm_start(const CapacityModel& model, std::int64_t evaluations, std::uint64_t seed, double time_limit_s);

/** solve_exact with default MilpParams and this time limit. */
ExactResult solve_exact(const CapacityModel& model, double time_limit_s);

}  // namespace vmcap

#pragma once
/**
 * @file vmcap_milp.h
 * VMCAP by a general MILP solver (COIN-OR CBC 2.10 with CLP LPs, Debian coinor-libcbc-dev).
 * Independent oracle for vmcap_exact and the closed forms of vmcap.h (tests with large
 * capacities) and a baseline in benchmarks; never used on the optimizer's hot path.
 */
#include <span>

#include "evaluators/closed_forms/vmcap.h"
#include "instances/topology.h"

namespace vmcap {

/**
 * Same integer program as vmcap_exact: max sum_S x_S  s.t.  sum_{S containing i} x_S <= b[i] for
 * every pNUMA node i < n, x_S >= 0 integer, one variable per placement (only `mask` is used; a
 * placement naming a node >= n gets x_S = 0). Returns the proven optimum.
 *
 * Inputs: n in 0..kMaxPNuma, b[0..n) >= 0 and below 2^50 (beyond that doubles lose integers).
 * Independent components of the placement hypergraph (no placement spans two) are solved as
 * separate models, because CBC proves the optimum of a sum of half-integral components only by
 * deep branching.
 * Cost: one CBC branch and cut per component, typically 0.1-2 ms for 8-node hosts; exponential
 * worst case.
 * Errors: throws std::runtime_error if CBC stops without proving optimality (60 s limit per
 * component) or returns a solution that is not integral and feasible in integer arithmetic.
 * Thread-safety: may be called from any thread; calls are serialised by an internal mutex
 * because COIN-OR 2.10 does not document CBC/CLP as reentrant.
 */
Count vmcap_cbc(std::span<const Embedding> placements, int n, const Count* b);

}  // namespace vmcap

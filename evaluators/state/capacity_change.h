#pragma once
/**
 * @file capacity_change.h
 * The one capacity-change kernel: the exact change of a host's VMCAP (per target flavor) and of
 * the weighted objective when the free amounts of some of its pNUMA nodes change. Every move's
 * delta (removal, best insertion, tentative hosts of compound moves) and the search state's own
 * update on apply go through it, so a fix or a speed-up is made once.
 *
 * Why only touched nodes: b_i depends on node i's free amounts alone (vmcap-formulas.md,
 * Definition), so a change confined to the nodes in `touched` changes only those entries of each
 * capacity vector; the others are read from the state's cache. Two fast paths keep the hot loop
 * cheap and exact: an unchanged capacity vector has an unchanged VMCAP (adds exactly 0), and a
 * K1 target (VmcapEvaluator::additive(), VMCAP = sum of b) changes by the sum of the entries'
 * changes, without the evaluator.
 */
#include <bit>
#include <cstdint>

#include "evaluators/state/capacity_model.h"
#include "evaluators/state/search_state.h"

namespace vmcap {

/**
 * VMCAP change of target flavor `tf` (`ev`: its evaluator on the host's type) on one host with `n`
 * pNUMA nodes whose cached capacity vector is `b` (n entries) and cached VMCAP `*cap` (read only
 * when needed), when the nodes in `touched` get the free
 * amounts `local[i * R + i_r]` (node-indexed; only touched nodes are read). Writes the touched
 * nodes' new entries to `nb[i]` (node-indexed; other entries untouched). Returns new VMCAP - cap,
 * exactly (integers). O(|touched| x R), plus one VMCAP evaluation when the vector changed and the
 * target is not additive. Thread-safe (pure).
 */
[[gnu::always_inline]] inline Count target_capacity_change(const CapacityModel& m, const VmcapEvaluator& ev, int tf, int n, const Count* b,
                                                           const Count* cap, unsigned touched, const Amount* local, Count* nb) {
    const int R = m.num_resources();
    bool changed = false;
    Count sum = 0;
    for (unsigned t = touched; t != 0; t &= t - 1) {
        const int i = std::countr_zero(t);
        nb[i] = m.node_b(tf, local + i * R);
        changed |= nb[i] != b[i];
        sum += nb[i] - b[i];
    }
    if (!changed) return 0;         // same capacity vector: VMCAP unchanged
    if (ev.additive()) return sum;  // VMCAP = sum of b: the same integer without the evaluator
    Count tmp[kMaxPNuma];
    for (int i = 0; i < n; ++i) tmp[i] = b[i];
    for (unsigned t = touched; t != 0; t &= t - 1) tmp[std::countr_zero(t)] = nb[std::countr_zero(t)];
    return ev(tmp) - *cap;
}

/** target_capacity_change for target j, its flavor and evaluator looked up. */
inline Count target_capacity_change(const CapacityModel& m, int type, int n, int j, const Count* b, Count cap, unsigned touched,
                                    const Amount* local, Count* nb) {
    const int tf = m.target_flavor(j);
    return target_capacity_change(m, m.evaluator(type, tf), tf, n, b, &cap, touched, local, nb);
}

/** capacity_gain without the memo: the kernel over every target. Precondition:
 *  state.per_target_caches() (it reads every target's cached b and VMCAP). */
inline Score capacity_gain_direct(const SearchState& state, int host, int type, int n, unsigned touched, const Amount* local) {
    const CapacityModel& m = state.model();
    const int T = m.num_targets();
    // The per-host and per-target arrays once, not per target: the evaluator call in the loop
    // would make the compiler reload every vector's data pointer.
    const int* tf = m.target_flavors();
    const Score* w = m.target_weights_units();
    const VmcapEvaluator* ev = &m.evaluator(type, 0);
    const Count* b = state.b_of_host(host);
    const Count* cap = state.capacities_of(host);
    Count nb[kMaxPNuma];
    Score d = 0;
    for (int j = 0; j < T; ++j)
        d += w[j] * target_capacity_change(m, ev[tf[j]], tf[j], n, b + static_cast<std::size_t>(j) * n, cap + j, touched, local, nb);
    return d;
}

/**
 * capacity_gain (below) with a memo or with many targets: the host value after the change from the
 * memo or from one WeightedVmcap pass. Out of line (capacity_change.cpp): it is the cold path of
 * runs with few targets, and its body would keep the hot kernel from being inlined.
 */
Score capacity_gain_many(const SearchState& state, int host, int type, int n, unsigned touched, const Amount* local);

/**
 * Exact weighted VMCAP change sum_j w_j (VMCAP_j(after) - capacity(host, j)) of `host` in `state`,
 * in score units (evaluators/closed_forms/score.h),
 * when the pNUMA nodes in `touched` get the free amounts `local[i * R + r]` (node-indexed, only
 * touched nodes read; amounts must be >= 0). The state is not changed. Allocation-free.
 * O(targets x (|touched| x R + VMCAP)) below SearchState::kBatchRefreshTargets targets; from
 * there on one WeightedVmcap pass over the host's free amounts after the change (CapacityModel::
 * host_value); O(nodes x R) when the state's memo (SearchState::use_value_memo) holds those free
 * amounts. An integer: the same wherever and in whatever order it is summed, and the same with or
 * without the memo or the pass.
 */
[[gnu::always_inline]] inline Score capacity_gain(const SearchState& state, int host, int type, int n, unsigned touched,
                                                  const Amount* local) {
    if (touched == 0) return 0;
    // Few targets and no memo (the common case): the per-target kernel, inlined into the caller
    // as before the memo existed (an outlined capacity_gain cost the hot path ~10%).
    if (state.value_memo() == nullptr && state.per_target_caches()) [[likely]]
        return capacity_gain_direct(state, host, type, n, touched, local);
    return capacity_gain_many(state, host, type, n, touched, local);
}

/** capacity_gain with the host's type and node count looked up. */
[[gnu::always_inline]] inline Score capacity_gain(const SearchState& state, int host, unsigned touched, const Amount* local) {
    return capacity_gain(state, host, state.type_of(host), state.nodes_of(host), touched, local);
}

}  // namespace vmcap

#pragma once
/**
 * @file placements.h
 * Placement construction: not only how many more VMs of a flavor fit on a host (VMCAP, vmcap.h) but
 * an optimal set of placements reaching that number — which pNUMA nodes each additional VM gets.
 *
 * Every closed form of vmcap-formulas.md (paper Table I) has a direct construction here, each with
 * its proof in placements.cpp; the exact fallback returns the branch and bound's optimal solution
 * (vmcap_exact_placements). Solutions are lists of (node set, copies) with distinct node sets, so
 * their size is bounded by the host (at most n + 1 entries for the closed forms, except CQ3/K2 with
 * at most 11: one crossing edge and the ten ladder edges) and does not grow with b.
 *
 * Node numbers are 0-based here (labelings of topology.h); the CLI prints them 1-based.
 */
#include <vector>

#include "evaluators/closed_forms/vmcap.h"

namespace vmcap {

/** `copies` VMs on pNUMA node set `nodes` (the mask-level form of PlacementCount). */
struct NodeSetCount {
    NodeMask nodes = 0;
    Count copies = 0;
    bool operator==(const NodeSetCount&) const = default;
};

/**
 * An optimal set of placements for capacity vector b (ev.host_nodes() entries, each >= 0, sum
 * < 2^59 as for the closed forms): entries sorted by mask with distinct masks and copies > 0,
 * whose copies sum to ev(b), each a valid embedding of the guest (one of ev.placements(): distinct
 * pNUMA nodes, every vNUMA edge on a pNUMA edge), using pNUMA node i at most b[i] times.
 *
 * Method per VmcapMethod: K1 one entry per node; Kn/Kk (K4/K2, K4/K3 too) the wrap-around rule
 * (kn_kk_wraparound); 2xKn/Kk the same per socket; C4/K2, Km,n/K2, Q33/K2 the bipartite merge;
 * Q33/C4 and CQ3/C4 product constructions; CQ3/K2 a b-matching (cq3_k2_sets); Exact the branch
 * and bound's solution (vmcap_exact_placements). Cost: O(n log n) for the closed forms except
 * CQ3/K2 (a few 10-node max-flows; O(log b) of them in the worst case); the exact fallback costs
 * about one vmcap_exact call. Allocates the result.
 * Thread-safe (ev is only read). Throws std::logic_error if a construction misses ev(b) or
 * produces a node set that is not a placement (an internal error; the tests check every pair).
 */
std::vector<PlacementCount> vmcap_placements(const VmcapEvaluator& ev, const Count* b);

/**
 * Kn/Kk with the wrap-around rule (McNaughton's rule for preemptive scheduling, 1959), for c
 * copies of k distinct nodes among `nodes[0..n)` (any node numbers < kMaxPNuma; capacity b[node]).
 * Node j contributes t_j = min(b[node_j], c) slots; the slots are written in node order into a
 * k x c grid row by row and column q becomes copy q. A node's slots are consecutive and at most c,
 * so they fall into distinct columns: every copy gets k distinct nodes, node j is used t_j <= b
 * times. The grid fills iff sum_j min(b_j, c) >= k c, which holds for every c <= VMCAP(Kn, Kk, b):
 * with r = #{j : b_j > c}, sum_j min(b_j, c) = r c + (S - b_(1) - ... - b_(r)) >= k c by the
 * Table I term for r (r < k), or >= r c >= k c (r >= k); and sum_j min(b_j, c) - k c is concave
 * in c and >= 0 at 0 and at VMCAP.
 * Result: node sets merged and sorted by mask, at most n + 1 entries. O(n k + n log n).
 * Throws std::invalid_argument if the grid cannot be filled (c above VMCAP, k < 1 or k > n).
 */
std::vector<NodeSetCount> kn_kk_wraparound(const Count* b, const int* nodes, int n, int k, Count c);

/**
 * The paper's Algorithm 1 (batched greedy matching construction for VMCAP(Kn, Kk, b)), verbatim:
 * repeatedly take the k largest positive capacities (ties by lower node index) and use them
 * s = b_(k) - b_(k+1) + 1 times (s = b_(k) when exactly k are positive). Reaches VMCAP(Kn,Kk,b)
 * (checked against the closed form in tests). Result merged and sorted by mask.
 * Cost: O(iterations x n log n); the iteration count grows with b on tied inputs (all b_i equal:
 * about S/k iterations), which is why vmcap_placements uses kn_kk_wraparound (O(n log n) for any b).
 * Throws std::invalid_argument unless 1 <= k <= n <= kMaxPNuma.
 */
std::vector<NodeSetCount> kn_kk_algorithm1(const Count* b, int n, int k);

/**
 * K2 on a complete bipartite host with parts `part1`, `part2` (disjoint node masks; every node of
 * part1 adjacent to every node of part2: Km,n, C4 = K2,2 with parts {1,3},{2,4}, Q33 = K4,4 with
 * parts {1,3,5,7},{2,4,6,8}): c = min(b(part1), b(part2)) copies. Row 1 lists part1's slots, row
 * 2 part2's, each cut at c; column q pairs the q-th slot of each row, a part1 node with a part2
 * node, hence an edge. At most |part1| + |part2| - 1 entries. O(n log n).
 */
std::vector<NodeSetCount> bipartite_k2_sets(const Count* b, NodeMask part1, NodeMask part2);

/**
 * Q33/C4: c = min(VMCAP(K4,K2,odd), VMCAP(K4,K2,even)) copies. A 4-cycle of K4,4 is any two nodes
 * of each part (a1-e1-a2-e2-a1), so the c copies are the columns of kn_kk_wraparound(k = 2, c) on
 * the odd part {1,3,5,7} stacked on the same for the even part {2,4,6,8}.
 */
std::vector<NodeSetCount> q33_c4_sets(const Count* b);

/**
 * CQ3/C4: the four 4-cycles are the unions of two consecutive rungs of the rung cycle
 * {1,2}-{3,4}-{5,6}-{7,8}-{1,2}, and a rung can serve r_j = min(b of its two nodes) cycles; so this
 * is C4/K2 on the rungs: bipartite_k2 with parts {rung 1, rung 3} and {rung 2, rung 4}, reaching
 * min(r1 + r3, r2 + r4), the Table I value.
 */
std::vector<NodeSetCount> cq3_c4_sets(const Count* b);

/**
 * CQ3/K2 (vmcap-formulas.md, paper Lemma 5). CQ3 minus its crossing edges (1,7), (2,8) is the
 * bipartite ladder H with parts O = {1,3,5,7}, E = {2,4,6,8}. (i) A copy on (1,7) and one on (2,8)
 * can be swapped for (1,2) and (7,8) (rungs), so some optimum uses only one crossing edge. (ii)
 * For x copies on one crossing edge, the rest is a maximum b-matching of H on the remaining
 * capacities, computed exactly by max-flow (Edmonds-Karp, O(V E^2) independent of b); its value
 * M is the minimum weight vertex cover (max-flow min-cut), a minimum of affine functions of x, so
 * g(x) = x + M is concave. (iii) Each branch is maximised over integer x by checking the paper's
 * shift d (clamped, as in vmcap_cq3_k2) for local optimality — enough by concavity — and by a
 * binary search on the slope if it is not. Result: the crossing copies plus the flow on each edge
 * of H, at most 11 entries. Cost: about 5 max-flows on 10 nodes; O(log b) in the worst case.
 */
std::vector<NodeSetCount> cq3_k2_sets(const Count* b);

/**
 * cq3_k2_sets with another starting guess for the shift (the paper's d by default): t > 0 tries t
 * copies on (1,7) first, t < 0 tries -t copies on (2,8). Any t gives an optimal result; only the
 * number of max-flows changes (a wrong guess falls back to the binary search). For tests.
 */
std::vector<NodeSetCount> cq3_k2_sets(const Count* b, Count start_shift);

}  // namespace vmcap

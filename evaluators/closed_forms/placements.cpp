#include "evaluators/closed_forms/placements.h"

#include "instances/problem.h"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <string>

namespace vmcap {

namespace {

/** One run of a grid row: `len` consecutive slots of the node set `nodes`. */
struct Block {
    NodeMask nodes;
    Count len;
};

/** Sorts by mask and merges entries with equal masks; drops zero copies. */
std::vector<NodeSetCount> merged(std::vector<NodeSetCount> v) {
    std::sort(v.begin(), v.end(), [](const NodeSetCount& a, const NodeSetCount& b) { return a.nodes < b.nodes; });
    std::vector<NodeSetCount> out;
    for (const NodeSetCount& e : v) {
        if (e.copies <= 0) continue;
        if (!out.empty() && out.back().nodes == e.nodes)
            out.back().copies += e.copies;
        else
            out.push_back(e);
    }
    return out;
}

/**
 * Columns of a grid of `rows` rows and c columns, each row a sequence of blocks whose lengths sum
 * to c: copy q gets the union of the blocks covering column q in every row. Columns between two
 * consecutive block boundaries (over all rows) are equal, so the result has at most
 * (number of blocks) entries. O(B log B + B x rows) for B blocks.
 */
std::vector<NodeSetCount> grid_columns(const std::vector<std::vector<Block>>& rows, Count c) {
    std::vector<NodeSetCount> out;
    if (c <= 0) return out;
    std::vector<Count> cuts;
    for (const auto& row : rows) {
        Count pos = 0;
        for (const Block& bl : row) {
            cuts.push_back(pos);
            pos += bl.len;
        }
        if (pos != c) throw std::logic_error("grid_columns: a row does not have exactly c slots");
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    cuts.push_back(c);
    std::vector<std::size_t> at(rows.size(), 0);  // block of each row covering the current column
    std::vector<Count> end(rows.size(), 0);       // first column after that block
    for (std::size_t r = 0; r < rows.size(); ++r) end[r] = rows[r].empty() ? 0 : rows[r][0].len;
    for (std::size_t j = 0; j + 1 < cuts.size(); ++j) {
        const Count q = cuts[j];
        unsigned mask = 0;
        for (std::size_t r = 0; r < rows.size(); ++r) {
            while (end[r] <= q) end[r] += rows[r][++at[r]].len;  // skip blocks that end before q
            mask |= rows[r][at[r]].nodes;
        }
        out.push_back(NodeSetCount{static_cast<NodeMask>(mask), cuts[j + 1] - q});
    }
    return out;
}

/**
 * Slots of nodes[0..n) (node j: min(b[nodes[j]], per_node_cap) slots, in this order) cut into
 * `rows` rows of exactly c slots; a block that crosses a row end is split. Returns false if there
 * are fewer than rows x c slots.
 */
bool fill_rows(const Count* b, const int* nodes, int n, Count per_node_cap, int rows, Count c, std::vector<std::vector<Block>>& out) {
    const std::size_t first = out.size();
    out.resize(first + static_cast<std::size_t>(rows));
    int row = 0;
    Count room = c;  // free slots in the current row
    for (int j = 0; j < n && row < rows; ++j) {
        Count t = std::min(b[nodes[j]], per_node_cap);
        const auto mask = static_cast<NodeMask>(1U << nodes[j]);
        while (t > 0 && row < rows) {
            const Count take = std::min(t, room);
            out[first + row].push_back(Block{mask, take});
            t -= take;
            room -= take;
            if (room == 0) {
                ++row;
                room = c;
            }
        }
    }
    return row == rows || c == 0;
}

}  // namespace

std::vector<NodeSetCount> kn_kk_wraparound(const Count* b, const int* nodes, int n, int k, Count c) {
    if (k < 1 || k > n) throw std::invalid_argument("kn_kk_wraparound: need 1 <= k <= n");
    if (c <= 0) return {};
    std::vector<std::vector<Block>> rows;
    if (!fill_rows(b, nodes, n, c, k, c, rows))
        throw std::invalid_argument("kn_kk_wraparound: " + std::to_string(c) + " copies exceed VMCAP(Kn, Kk, b)");
    return merged(grid_columns(rows, c));
}

std::vector<NodeSetCount> kn_kk_algorithm1(const Count* b, int n, int k) {
    if (k < 1 || k > n || n > kMaxPNuma) throw std::invalid_argument("kn_kk_algorithm1: need 1 <= k <= n <= 16");
    std::array<Count, kMaxPNuma> B{};
    std::copy(b, b + n, B.begin());
    std::vector<NodeSetCount> M;
    std::array<int, kMaxPNuma> I{};
    for (;;) {
        int m = 0;  // line 5: I = nodes with positive capacity
        for (int i = 0; i < n; ++i)
            if (B[i] > 0) I[m++] = i;
        if (m < k) return merged(std::move(M));  // lines 6-7
        // line 9: sort by B descending (stable: ties keep the lower node first)
        std::stable_sort(I.begin(), I.begin() + m, [&](int x, int y) { return B[x] > B[y]; });
        const Count s = m > k ? B[I[k - 1]] - B[I[k]] + 1 : B[I[k - 1]];  // lines 10-14 (1-based I[k], I[k+1])
        unsigned mask = 0;
        for (int j = 0; j < k; ++j) {
            mask |= 1U << I[j];
            B[I[j]] -= s;  // lines 18-20
        }
        M.push_back(NodeSetCount{static_cast<NodeMask>(mask), s});  // lines 15-17, batched
        if (M.size() > 4096) M = merged(std::move(M));              // keep memory O(C(n,k))
    }
}

std::vector<NodeSetCount> bipartite_k2_sets(const Count* b, NodeMask part1, NodeMask part2) {
    int n1[kMaxPNuma], n2[kMaxPNuma], c1 = 0, c2 = 0;
    Count s1 = 0, s2 = 0;
    for (int i = 0; i < kMaxPNuma; ++i) {
        if ((part1 >> i) & 1U) {
            n1[c1++] = i;
            s1 += b[i];
        }
        if ((part2 >> i) & 1U) {
            n2[c2++] = i;
            s2 += b[i];
        }
    }
    const Count c = std::min(s1, s2);
    if (c <= 0) return {};
    std::vector<std::vector<Block>> rows;
    const Count no_cap = std::numeric_limits<Count>::max();
    fill_rows(b, n1, c1, no_cap, 1, c, rows);  // cannot fail: each part has >= c slots
    fill_rows(b, n2, c2, no_cap, 1, c, rows);
    return merged(grid_columns(rows, c));
}

std::vector<NodeSetCount> q33_c4_sets(const Count* b) {
    const int odd[4] = {0, 2, 4, 6}, even[4] = {1, 3, 5, 7};
    const Count bo[4] = {b[0], b[2], b[4], b[6]}, be[4] = {b[1], b[3], b[5], b[7]};
    const Count c = std::min(vmcap_k4_k2(bo), vmcap_k4_k2(be));
    if (c <= 0) return {};
    std::vector<std::vector<Block>> rows;
    if (!fill_rows(b, odd, 4, c, 2, c, rows) || !fill_rows(b, even, 4, c, 2, c, rows))
        throw std::logic_error("q33_c4_sets: a part cannot fill two rows of c slots");
    return merged(grid_columns(rows, c));
}

std::vector<NodeSetCount> cq3_c4_sets(const Count* b) {
    // Rungs {1,2} {3,4} {5,6} {7,8} (0-based pairs) with capacity min of their two nodes.
    Count r[4];
    for (int j = 0; j < 4; ++j) r[j] = std::min(b[2 * j], b[2 * j + 1]);
    const Count c = std::min(r[0] + r[2], r[1] + r[3]);
    if (c <= 0) return {};
    auto rung = [](int j) { return static_cast<NodeMask>(3U << (2 * j)); };
    std::vector<std::vector<Block>> rows(2);
    for (int row = 0; row < 2; ++row) {
        Count room = c;
        for (int j = row; j < 4 && room > 0; j += 2) {  // row 0: rungs 1, 3; row 1: rungs 2, 4
            const Count take = std::min(r[j], room);
            if (take > 0) rows[row].push_back(Block{rung(j), take});
            room -= take;
        }
    }
    return merged(grid_columns(rows, c));
}

// ---------------------------------------------------------------------------------------------
// CQ3/K2: crossing edge copies plus a maximum b-matching of the bipartite ladder.
// ---------------------------------------------------------------------------------------------
namespace {

/** Edges of the ladder H = CQ3 minus (1,7), (2,8), 0-based as (odd-labelled node, even-labelled node). */
constexpr std::array<std::array<int, 2>, 10> kLadder = {{
    {0, 1},
    {2, 3},
    {4, 5},
    {6, 7},  // rungs (1,2) (3,4) (5,6) (7,8)
    {0, 3},
    {4, 3},
    {4, 7},  // rail 1-4-5-8
    {2, 1},
    {2, 5},
    {6, 5},  // rail 2-3-6-7
}};

/**
 * Maximum b-matching of the ladder for capacities cap[0..8): max sum_e y_e with sum_{e at i} y_e
 * <= cap[i], y integer, by Edmonds-Karp on s -> odd node (cap) -> even node (unbounded) -> t (cap).
 * The number of augmentations is O(V E) whatever the capacities. Fills flow[e] per kLadder edge.
 */
Count ladder_matching(const Count* cap, Count* flow) {
    constexpr int S = 8, T = 9, V = 10;
    Count inf = 1;
    for (int i = 0; i < 8; ++i) inf += cap[i];
    Count res[V][V] = {};
    for (int i = 0; i < 8; i += 2) res[S][i] = cap[i];
    for (int i = 1; i < 8; i += 2) res[i][T] = cap[i];
    for (const auto& e : kLadder) res[e[0]][e[1]] = inf;
    Count total = 0;
    for (;;) {
        int prev[V];
        std::fill(prev, prev + V, -1);
        prev[S] = S;
        int queue[V], head = 0, tail = 0;
        queue[tail++] = S;
        while (head < tail && prev[T] < 0) {
            const int u = queue[head++];
            for (int v = 0; v < V; ++v)
                if (prev[v] < 0 && res[u][v] > 0) {
                    prev[v] = u;
                    queue[tail++] = v;
                }
        }
        if (prev[T] < 0) break;
        Count aug = std::numeric_limits<Count>::max();
        for (int v = T; v != S; v = prev[v]) aug = std::min(aug, res[prev[v]][v]);
        for (int v = T; v != S; v = prev[v]) {
            res[prev[v]][v] -= aug;
            res[v][prev[v]] += aug;
        }
        total += aug;
    }
    for (std::size_t e = 0; e < kLadder.size(); ++e) flow[e] = res[kLadder[e][1]][kLadder[e][0]];
    return total;
}

/** Branch 0: x copies on crossing edge (1,7) = nodes {0,6}; branch 1: on (2,8) = nodes {1,7}. */
constexpr int kCross[2][2] = {{0, 6}, {1, 7}};

/** g(x) = x + max b-matching of H after x copies on the branch's crossing edge. */
Count cq3_value(const Count* b, int branch, Count x, Count* flow) {
    Count cap[8];
    std::copy(b, b + 8, cap);
    cap[kCross[branch][0]] -= x;
    cap[kCross[branch][1]] -= x;
    return x + ladder_matching(cap, flow);
}

/** A maximiser of the concave g over 0..hi, trying `hint` first (see cq3_k2_sets). */
Count cq3_best_x(const Count* b, int branch, Count hi, Count hint) {
    Count flow[kLadder.size()];
    auto slope = [&](Count x) { return cq3_value(b, branch, x + 1, flow) - cq3_value(b, branch, x, flow); };
    hint = std::clamp<Count>(hint, 0, hi);
    // By concavity a point with slope <= 0 after it and >= 0 before it is a global maximum.
    if ((hint == hi || slope(hint) <= 0) && (hint == 0 || slope(hint - 1) >= 0)) return hint;
    Count lo = 0;
    while (lo < hi) {  // smallest x with slope(x) <= 0 (or hi)
        const Count mid = lo + (hi - lo) / 2;
        if (slope(mid) > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

}  // namespace

std::vector<NodeSetCount> cq3_k2_sets(const Count* b) {
    // The paper's shift: d = floor((O - E) / 2) (clamped below); d > 0 puts d copies on (1,7),
    // d < 0 puts -d copies on (2,8).
    const Count o = b[0] + b[2] + b[4] + b[6], e = b[1] + b[3] + b[5] + b[7];
    return cq3_k2_sets(b, (o - e) >= 0 ? (o - e) / 2 : -((e - o + 1) / 2));
}

std::vector<NodeSetCount> cq3_k2_sets(const Count* b, Count start_shift) {
    const Count hi0 = std::min(b[0], b[6]), hi1 = std::min(b[1], b[7]);
    const Count d = std::clamp<Count>(start_shift, -hi1, hi0);  // [-min(b2,b8), min(b1,b7)]
    const Count x0 = cq3_best_x(b, 0, hi0, d > 0 ? d : 0);
    const Count x1 = cq3_best_x(b, 1, hi1, d < 0 ? -d : 0);
    Count flow0[kLadder.size()], flow1[kLadder.size()];
    const Count g0 = cq3_value(b, 0, x0, flow0), g1 = cq3_value(b, 1, x1, flow1);
    const int branch = g0 >= g1 ? 0 : 1;
    const Count x = branch == 0 ? x0 : x1;
    const Count* flow = branch == 0 ? flow0 : flow1;
    std::vector<NodeSetCount> out;
    out.push_back(NodeSetCount{static_cast<NodeMask>((1U << kCross[branch][0]) | (1U << kCross[branch][1])), x});
    for (std::size_t k = 0; k < kLadder.size(); ++k)
        out.push_back(NodeSetCount{static_cast<NodeMask>((1U << kLadder[k][0]) | (1U << kLadder[k][1])), flow[k]});
    return merged(std::move(out));
}

// ---------------------------------------------------------------------------------------------
// Dispatch on the evaluator's method.
// ---------------------------------------------------------------------------------------------
std::vector<PlacementCount> vmcap_placements(const VmcapEvaluator& ev, const Count* b) {
    const int n = ev.host_nodes(), k = ev.guest_nodes();
    std::vector<PlacementCount> out;
    if (ev.method() == VmcapMethod::Exact) {
        try {
            vmcap_exact_placements(ev.placements(), n, b, out, ev.exact_options().work_limit);
        } catch (const ExactLimitExceeded&) {
            throw InputError(ev.exact_refusal(b));
        }
        return out;
    }
    std::vector<NodeSetCount> sets;
    int all[kMaxPNuma];
    for (int i = 0; i < n; ++i) all[i] = i;
    auto range_mask = [](int from, int count) { return static_cast<NodeMask>(((1U << count) - 1U) << from); };
    switch (ev.method()) {
        case VmcapMethod::K1:
            for (int i = 0; i < n; ++i) sets.push_back(NodeSetCount{static_cast<NodeMask>(1U << i), b[i]});
            sets = merged(std::move(sets));
            break;
        case VmcapMethod::C4_K2: sets = bipartite_k2_sets(b, 0x5, 0xA); break;  // parts {1,3}, {2,4}
        case VmcapMethod::Kmn_K2: sets = bipartite_k2_sets(b, range_mask(0, ev.host_p()), range_mask(ev.host_p(), ev.host_q())); break;
        case VmcapMethod::Kn_Kk:
        case VmcapMethod::K4_K2:
        case VmcapMethod::K4_K3: sets = kn_kk_wraparound(b, all, n, k, ev(b)); break;
        case VmcapMethod::Q33_K2: sets = bipartite_k2_sets(b, 0x55, 0xAA); break;  // parts {1,3,5,7}, {2,4,6,8}
        case VmcapMethod::Q33_C4: sets = q33_c4_sets(b); break;
        case VmcapMethod::CQ3_C4: sets = cq3_c4_sets(b); break;
        case VmcapMethod::CQ3_K2: sets = cq3_k2_sets(b); break;
        case VmcapMethod::TwoKn_Kk: {
            const int p = ev.host_p();
            for (int s = 0; s < 2; ++s) {
                const auto part = kn_kk_wraparound(b, all + s * p, p, k, vmcap_kn_kk(b + s * p, p, k));
                sets.insert(sets.end(), part.begin(), part.end());
            }
            sets = merged(std::move(sets));
            break;
        }
        case VmcapMethod::Exact: break;  // handled above
    }

    // Node sets -> embeddings (ev.placements() is sorted by mask), and the postcondition.
    const auto& pl = ev.placements();
    Count total = 0;
    out.reserve(sets.size());
    for (const NodeSetCount& s : sets) {
        const auto it = std::lower_bound(pl.begin(), pl.end(), s.nodes, [](const Embedding& e, NodeMask m) { return e.mask < m; });
        if (it == pl.end() || it->mask != s.nodes)
            throw std::logic_error("vmcap_placements: " + ev.describe() + " built a node set that is not a placement");
        out.push_back(PlacementCount{*it, s.copies});
        total += s.copies;
    }
    if (total != ev(b))
        throw std::logic_error("vmcap_placements: " + ev.describe() + " built " + std::to_string(total) + " copies, VMCAP is " +
                               std::to_string(ev(b)));
    return out;
}

}  // namespace vmcap

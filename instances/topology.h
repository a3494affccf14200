#pragma once
/**
 * @file topology.h
 * NUMA topology graphs: the pNUMA graph of a host type and the vNUMA graph of a flavor.
 *
 * Vertex labelings follow ../shared/docs/vmcap-formulas.md (the VMCAP paper, Table I). Node
 * numbers are 1-based in names, JSON and CLI output, 0-based inside the code.
 */
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vmcap {

/** Largest supported pNUMA graph (a uint16_t bitmask per node). */
inline constexpr int kMaxPNuma = 16;
/** Largest supported vNUMA graph. */
inline constexpr int kMaxVNuma = 8;

/** Bitmask of nodes; bit i = node i (0-based). */
using NodeMask = std::uint16_t;

/**
 * Small undirected simple graph on at most kMaxPNuma nodes, as adjacency bitmasks.
 * Value type; O(1) edge test. Thread-safe for concurrent reads.
 */
struct Graph {
    int n = 0;                              ///< number of nodes
    std::array<NodeMask, kMaxPNuma> adj{};  ///< adj[i] bit j set <=> edge {i,j}

    bool has_edge(int a, int b) const { return (adj[a] >> b) & 1U; }
    /** Adds edge {a,b} (0-based). Precondition: a != b, both < n. */
    void add_edge(int a, int b) {
        adj[a] = static_cast<NodeMask>(adj[a] | (1U << b));
        adj[b] = static_cast<NodeMask>(adj[b] | (1U << a));
    }
    int num_edges() const;
    /** True if every pair of distinct nodes is adjacent. */
    bool is_complete() const;
    /** True if the graph is connected (n == 0 counts as connected). */
    bool is_connected() const;
    /** Edges as 0-based pairs (a < b), sorted. */
    std::vector<std::pair<int, int>> edges() const;
    bool operator==(const Graph&) const = default;
};

/**
 * Which named family a topology belongs to; selects the VMCAP closed form.
 * `Explicit` is a user-given edge list (no closed form unless recognised as complete).
 */
enum class TopologyKind { Complete, CompleteBipartite, Cycle4, CrossedCube, EnhancedCube, Cube, TwoComplete, Explicit };

/**
 * A named or explicit NUMA topology.
 *
 * Named forms (case-sensitive), with labelings of vmcap-formulas.md:
 *  - `K<n>` (1 <= n <= 16): complete graph, `K1` is a single node.
 *  - `K<m>,<n>`: complete bipartite, part 1 = nodes 1..m, part 2 = m+1..m+n.
 *  - `C4`: cycle 1-2-3-4-1.
 *  - `CQ3`: crossed cube (Intel 8S-3UPI): rungs (1,2)(3,4)(5,6)(7,8), rails 1-4-5-8 and 2-3-6-7,
 *    crossing edges (1,7)(2,8).
 *  - `Q33` (also `Q3,3`): enhanced cube, K4,4 with parts {1,3,5,7} and {2,4,6,8}.
 *  - `Q3`: classical cube, node i adjacent to j iff (i-1) xor (j-1) is a power of two.
 *  - `2xK<n>`: two disjoint K<n> (two sockets): nodes 1..n and n+1..2n.
 */
struct Topology {
    std::string name;  ///< canonical name ("CQ3", "K4", "K4,4", "2xK4", or "explicit")
    TopologyKind kind = TopologyKind::Explicit;
    int p = 0;  ///< K<n>: n; K<m>,<n>: m; 2xK<n>: n; else 0
    int q = 0;  ///< K<m>,<n>: n; else 0
    Graph graph;

    int size() const { return graph.n; }
};

/**
 * Parses a named topology. Throws std::invalid_argument with a message naming `name` if it is
 * unknown or too large (more than kMaxPNuma nodes). Complexity O(n^2).
 */
Topology parse_topology(std::string_view name);

/**
 * Builds a topology from an explicit edge list with 1-based node numbers. A complete graph is
 * recognised and returned as `K<n>` so that it gets the closed form. Throws std::invalid_argument
 * on n outside 1..kMaxPNuma, a node number out of range, or a self-loop.
 */
Topology topology_from_edges(int n, const std::vector<std::pair<int, int>>& edges_1based);

/**
 * One way of mapping a guest (vNUMA graph) onto a host (pNUMA graph): vNUMA node v goes to
 * pNUMA node `map[v]` (0-based); `mask` is the set of pNUMA nodes used.
 */
struct Embedding {
    NodeMask mask = 0;
    std::array<std::uint8_t, kMaxVNuma> map{};
};

/**
 * Every distinct pNUMA node set onto which `guest` embeds in `host` (distinct pNUMA nodes, every
 * guest edge on a host edge), with one representative mapping per set, in increasing order of
 * mask. With demand split evenly over vNUMA nodes, capacity depends on the node set only, so
 * one mapping per set is enough. Cost O(n^k) once per (host type, flavor); never on a hot path.
 * Throws std::invalid_argument if guest has more than kMaxVNuma nodes.
 */
std::vector<Embedding> enumerate_embeddings(const Graph& host, const Graph& guest);

/** Set of the pNUMA nodes `nodes[0..k)` (0-based, each < kMaxPNuma) as a NodeMask. O(k). */
inline NodeMask node_mask(const std::uint8_t* nodes, int k) {
    unsigned m = 0;
    for (int i = 0; i < k; ++i) m |= 1U << nodes[i];
    return static_cast<NodeMask>(m);
}

/** The Embedding (mapping and node mask) of pNUMA nodes `pnuma` for a k-vNUMA-node VM. O(k). */
inline Embedding embedding_of(const std::array<std::uint8_t, kMaxVNuma>& pnuma, int k) {
    Embedding e;
    e.map = pnuma;
    e.mask = node_mask(pnuma.data(), k);
    return e;
}

/** True if `map` (0-based pNUMA per vNUMA node) is injective and preserves every guest edge. */
bool is_valid_mapping(const Graph& host, const Graph& guest, const std::vector<int>& map);

}  // namespace vmcap

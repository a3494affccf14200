#include "instances/topology.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <optional>
#include <stdexcept>

namespace vmcap {

int Graph::num_edges() const {
    int twice = 0;
    for (int i = 0; i < n; ++i) twice += std::popcount(static_cast<unsigned>(adj[i]));
    return twice / 2;
}

bool Graph::is_complete() const {
    const unsigned all = (n >= 16) ? 0xFFFFu : ((1u << n) - 1u);
    for (int i = 0; i < n; ++i)
        if ((adj[i] | (1u << i)) != all) return false;
    return true;
}

bool Graph::is_connected() const {
    if (n == 0) return true;
    unsigned seen = 1u, frontier = 1u;
    while (frontier) {
        unsigned next = 0;
        for (int i = 0; i < n; ++i)
            if ((frontier >> i) & 1u) next |= adj[i];
        frontier = next & ~seen;
        seen |= next;
    }
    return std::popcount(seen) == n;
}

std::vector<std::pair<int, int>> Graph::edges() const {
    std::vector<std::pair<int, int>> out;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            if (has_edge(i, j)) out.emplace_back(i, j);
    return out;
}

namespace {

std::optional<int> parse_int(std::string_view s) {
    int v = 0;
    if (s.empty()) return std::nullopt;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
    return v;
}

[[noreturn]] void bad(std::string_view name, std::string_view why) {
    throw std::invalid_argument("unknown topology '" + std::string(name) + "': " + std::string(why));
}

Topology make(std::string name, TopologyKind kind, int n, int p = 0, int q = 0) {
    Topology t;
    t.name = std::move(name);
    t.kind = kind;
    t.p = p;
    t.q = q;
    t.graph.n = n;
    return t;
}

// "K" + std::to_string(n) trips a GCC 12 -O3 -Wrestrict false positive; append instead.
std::string prefixed(const char* prefix, int n) {
    std::string s(prefix);
    s += std::to_string(n);
    return s;
}

void add1(Topology& t, int a, int b) {
    t.graph.add_edge(a - 1, b - 1);
}  // 1-based helper

}  // namespace

Topology parse_topology(std::string_view name) {
    const std::string_view kHelp = "expected K<n>, K<m>,<n>, C4, CQ3, Q33, Q3 or 2xK<n> (at most 16 pNUMA nodes)";
    if (name == "C4") {
        Topology t = make("C4", TopologyKind::Cycle4, 4);
        add1(t, 1, 2);
        add1(t, 2, 3);
        add1(t, 3, 4);
        add1(t, 4, 1);
        return t;
    }
    if (name == "CQ3") {
        Topology t = make("CQ3", TopologyKind::CrossedCube, 8);
        add1(t, 1, 2);
        add1(t, 3, 4);
        add1(t, 5, 6);
        add1(t, 7, 8);  // rungs
        add1(t, 1, 4);
        add1(t, 4, 5);
        add1(t, 5, 8);  // rail 1-4-5-8
        add1(t, 2, 3);
        add1(t, 3, 6);
        add1(t, 6, 7);  // rail 2-3-6-7
        add1(t, 1, 7);
        add1(t, 2, 8);  // crossing edges
        return t;
    }
    if (name == "Q33" || name == "Q3,3") {
        Topology t = make("Q33", TopologyKind::EnhancedCube, 8);
        for (int a = 1; a <= 8; a += 2)
            for (int b = 2; b <= 8; b += 2) add1(t, a, b);
        return t;
    }
    if (name == "Q3") {
        Topology t = make("Q3", TopologyKind::Cube, 8);
        for (int a = 0; a < 8; ++a)
            for (int bit = 1; bit < 8; bit <<= 1)
                if (a < (a ^ bit)) t.graph.add_edge(a, a ^ bit);
        return t;
    }
    if (name.starts_with("2xK")) {
        auto n = parse_int(name.substr(3));
        if (!n || *n < 1 || 2 * *n > kMaxPNuma) bad(name, kHelp);
        Topology t = make(prefixed("2xK", *n), TopologyKind::TwoComplete, 2 * *n, *n);
        for (int s = 0; s < 2; ++s)
            for (int a = 0; a < *n; ++a)
                for (int b = a + 1; b < *n; ++b) t.graph.add_edge(s * *n + a, s * *n + b);
        return t;
    }
    if (name.starts_with("K")) {
        auto rest = name.substr(1);
        auto comma = rest.find(',');
        if (comma == std::string_view::npos) {
            auto n = parse_int(rest);
            if (!n || *n < 1 || *n > kMaxPNuma) bad(name, kHelp);
            Topology t = make(prefixed("K", *n), TopologyKind::Complete, *n, *n);
            for (int a = 0; a < *n; ++a)
                for (int b = a + 1; b < *n; ++b) t.graph.add_edge(a, b);
            return t;
        }
        auto m = parse_int(rest.substr(0, comma));
        auto n = parse_int(rest.substr(comma + 1));
        if (!m || !n || *m < 1 || *n < 1 || *m + *n > kMaxPNuma) bad(name, kHelp);
        Topology t = make(prefixed("K", *m) + prefixed(",", *n), TopologyKind::CompleteBipartite, *m + *n, *m, *n);
        for (int a = 0; a < *m; ++a)
            for (int b = 0; b < *n; ++b) t.graph.add_edge(a, *m + b);
        return t;
    }
    bad(name, kHelp);
}

Topology topology_from_edges(int n, const std::vector<std::pair<int, int>>& edges_1based) {
    if (n < 1 || n > kMaxPNuma)
        throw std::invalid_argument("explicit topology has " + std::to_string(n) + " nodes; expected 1.." + std::to_string(kMaxPNuma));
    Topology t = make("explicit", TopologyKind::Explicit, n);
    for (auto [a, b] : edges_1based) {
        if (a < 1 || a > n || b < 1 || b > n)
            throw std::invalid_argument("edge [" + std::to_string(a) + "," + std::to_string(b) + "] names a node outside 1.." +
                                        std::to_string(n));
        if (a == b) throw std::invalid_argument("edge [" + std::to_string(a) + "," + std::to_string(b) + "] is a self-loop");
        t.graph.add_edge(a - 1, b - 1);
    }
    if (t.graph.is_complete()) {
        Topology k = parse_topology(prefixed("K", n));
        return k;
    }
    return t;
}

namespace {

/**
 * Finds the lexicographically smallest mapping (map[0], map[1], ...) of guest vertices 0..v-1
 * onto exactly the nodes of `subset`, preserving guest edges. Candidates are bitmasks: the
 * subset's unused nodes adjacent to the images of every earlier guest neighbour.
 */
bool embed_into(const Graph& host, const Graph& guest, int v, unsigned subset, unsigned used, std::array<std::uint8_t, kMaxVNuma>& map) {
    if (v == guest.n) return true;
    unsigned cand = subset & ~used;
    for (int u = 0; u < v && cand; ++u)
        if (guest.has_edge(u, v)) cand &= host.adj[map[u]];
    for (; cand; cand &= cand - 1U) {
        const int p = std::countr_zero(cand);
        map[v] = static_cast<std::uint8_t>(p);
        if (embed_into(host, guest, v + 1, subset, used | (1U << p), map)) return true;
    }
    return false;
}

}  // namespace

std::vector<Embedding> enumerate_embeddings(const Graph& host, const Graph& guest) {
    if (guest.n > kMaxVNuma)
        throw std::invalid_argument("guest topology has " + std::to_string(guest.n) + " vNUMA nodes; at most " + std::to_string(kMaxVNuma) +
                                    " are supported");
    std::vector<Embedding> out;
    if (guest.n == 0 || guest.n > host.n) return out;
    // One search per k-node subset, in increasing mask order (Gosper's hack), stopping at the
    // first mapping: O(C(n,k)) searches instead of enumerating all n!/(n-k)! injective maps
    // (5e8 for K8 in K16). The representative is the lexicographically smallest mapping onto
    // the set, as found by a depth-first search over all maps.
    const unsigned limit = 1U << host.n;
    std::array<std::uint8_t, kMaxVNuma> map{};
    for (unsigned subset = (1U << guest.n) - 1U; subset < limit;) {
        if (embed_into(host, guest, 0, subset, 0, map)) out.push_back(Embedding{static_cast<NodeMask>(subset), map});
        const unsigned low = subset & (~subset + 1U);
        const unsigned ripple = subset + low;
        subset = ripple | (((subset ^ ripple) >> 2) / low);
    }
    return out;
}

bool is_valid_mapping(const Graph& host, const Graph& guest, const std::vector<int>& map) {
    if (static_cast<int>(map.size()) != guest.n) return false;
    unsigned used = 0;
    for (int v = 0; v < guest.n; ++v) {
        if (map[v] < 0 || map[v] >= host.n || ((used >> map[v]) & 1U)) return false;
        used |= 1U << map[v];
    }
    for (int a = 0; a < guest.n; ++a)
        for (int b = a + 1; b < guest.n; ++b)
            if (guest.has_edge(a, b) && !host.has_edge(map[a], map[b])) return false;
    return true;
}

}  // namespace vmcap

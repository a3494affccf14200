#include "evaluators/network/network_load.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "evaluators/closed_forms/score.h"

namespace vmcap {

namespace {

/** A non-negative rational share of one unit of traffic, kept reduced. */
struct Frac {
    std::int64_t num = 0, den = 1;
};

Wide gcd_wide(Wide a, Wide b) {
    while (b != 0) {
        const Wide r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/** num / den, reduced; throws (naming the route) when the denominator would pass kMaxScale. */
Frac reduce(Wide num, Wide den, const std::string& where) {
    const Wide g = gcd_wide(num, den);
    if (g > 1) num /= g, den /= g;
    if (den > static_cast<Wide>(NetworkRoutes::kMaxScale))
        throw InputError("network: the ECMP shares " + where + " need more than 2^40 parts per Mbps on one link (split factors too " +
                         "irregular for exact integer loads)");
    return {static_cast<std::int64_t>(num), static_cast<std::int64_t>(den)};
}

Frac add(Frac x, Frac y, const std::string& where) {
    if (x.num == 0) return y;
    if (y.num == 0) return x;
    return reduce(static_cast<Wide>(x.num) * y.den + static_cast<Wide>(y.num) * x.den, static_cast<Wide>(x.den) * y.den, where);
}

/** The routes below assume what the snapshot loader checks: links and host uplinks name
 *  existing switches, and the switches hosts attach to reach each other (a breadth-first search
 *  from an unreachable one would index a bucket at distance -1). InputError otherwise. */
void check_connected(const Problem& p) {
    const Network& net = p.network;
    const int S = static_cast<int>(net.switches.size());
    for (const NetLink& l : net.links)
        if (l.a < 0 || l.a >= S || l.b < 0 || l.b >= S) throw InputError("network routes: a link names no switch");
    for (const int s : net.host_switch)
        if (s < 0 || s >= S) throw InputError("network routes: a host attaches to no switch");
    const int h = first_unreachable(S, net.links, net.host_switch);
    if (h >= 0)
        throw InputError("network routes: switch \"" + net.switches[net.host_switch[h]] + "\" (host \"" + p.hosts[h].id +
                         "\") cannot reach switch \"" + net.switches[net.host_switch[0]] + "\" (host \"" + p.hosts[0].id + "\")");
}

/** Neighbours of each switch: (neighbour switch, link index), in link order. */
using Adjacency = std::vector<std::vector<std::pair<int, int>>>;

/** One arc of a route and the share of the route's traffic it carries. */
struct ArcShare {
    int arc;
    Frac f;
};

/** dist[s] = hops from switch s to switch t, -1 if unreachable (breadth-first from t). */
void hops_to(int t, const Adjacency& adj, std::vector<int>& dist) {
    std::fill(dist.begin(), dist.end(), -1);
    std::vector<int> queue = {t};
    dist[t] = 0;
    for (std::size_t q = 0; q < queue.size(); ++q)
        for (auto [v, l] : adj[queue[q]])
            if (dist[v] < 0) {
                dist[v] = dist[queue[q]] + 1;
                queue.push_back(v);
            }
}

/**
 * One unit of traffic from switch s to t (dist: hops to t, dist[s] >= 1) split hop by hop equally
 * over the shortest-path DAG towards t, farthest switches first: on_arc[k] += each arc's share,
 * the arcs first loaded appended to `touched`. flow (all zero before and after) and bucket are
 * work space; `arc_from(i, u)` is the arc of switch link i crossed from switch u. Throws
 * InputError naming the route (`where`) when a share needs more than kMaxScale parts.
 */
template <class ArcFrom>
void split_route(int s, int t, const Adjacency& adj, const std::vector<int>& dist, const ArcFrom& arc_from, const std::string& where,
                 std::vector<Frac>& flow, std::vector<Frac>& on_arc, std::vector<std::vector<int>>& bucket, std::vector<int>& touched) {
    bucket.assign(static_cast<std::size_t>(dist[s]) + 1, {});
    flow[s] = {1, 1};
    bucket[dist[s]].push_back(s);
    for (int d = dist[s]; d >= 1; --d)
        for (int u : bucket[d]) {
            int next = 0;
            for (auto [v, l] : adj[u]) next += dist[v] == d - 1 ? 1 : 0;
            const Frac each = reduce(flow[u].num, static_cast<Wide>(flow[u].den) * next, where);
            for (auto [v, l] : adj[u]) {
                if (dist[v] != d - 1) continue;
                const int k = arc_from(l, u);
                if (on_arc[k].num == 0) touched.push_back(k);
                on_arc[k] = add(on_arc[k], each, where);
                if (flow[v].num == 0) bucket[d - 1].push_back(v);
                flow[v] = add(flow[v], each, where);
            }
            flow[u] = {};
        }
    flow[t] = {};
}

/**
 * The ECMP shares of every ordered pair of host-attached switches (`edges`), [s * E + t], each
 * pair's arcs ascending; lcm[k] becomes the lcm of the denominators on arc k, the arc's scale.
 * Throws InputError (naming the arc by `link_name(k)`) when a scale would pass kMaxScale.
 */
template <class LinkName>
std::vector<std::vector<ArcShare>> ecmp_shares(const Problem& p, const std::vector<int>& edges, const Adjacency& adj,
                                               std::vector<Wide>& lcm, const LinkName& link_name) {
    const Network& net = p.network;
    const int H = static_cast<int>(p.hosts.size());
    const int S = static_cast<int>(net.switches.size());
    const std::size_t edge_count = edges.size();
    // The arc of switch link i crossed from switch u.
    auto arc_from = [&](int i, int u) { return NetworkRoutes::arc(H + i, net.links[i].a == u ? 0 : 1); };
    // Per ordered pair: the shares as fractions; an arc's scale is their denominators' lcm.
    std::vector<std::vector<ArcShare>> pair_entries(edge_count * edge_count);  // [s * E + t]
    std::vector<int> dist(S);
    std::vector<Frac> flow(S), on_arc(lcm.size());
    std::vector<std::vector<int>> bucket;
    std::vector<int> touched;
    for (std::size_t ti = 0; ti < edge_count; ++ti) {
        const int t = edges[ti];
        hops_to(t, adj, dist);
        for (std::size_t si = 0; si < edge_count; ++si) {
            std::vector<ArcShare>& entries = pair_entries[si * edge_count + ti];
            const int s = edges[si];
            if (s == t) continue;
            // dist[s] >= 0: check_connected refused switches that cannot reach each other.
            const std::string where = "from switch \"" + net.switches[s] + "\" to \"" + net.switches[t] + "\"";
            split_route(s, t, adj, dist, arc_from, where, flow, on_arc, bucket, touched);
            std::sort(touched.begin(), touched.end());
            for (int k : touched) {
                entries.push_back({k, on_arc[k]});
                lcm[k] = lcm[k] / gcd_wide(lcm[k], on_arc[k].den) * on_arc[k].den;
                if (lcm[k] > static_cast<Wide>(NetworkRoutes::kMaxScale))
                    throw InputError("network: the ECMP shares on " + link_name(k) + " need more than 2^40 parts per Mbps (split " +
                                     "factors too irregular for exact integer loads)");
                on_arc[k] = {};
            }
            touched.clear();
        }
    }
    return pair_entries;
}

}  // namespace

NetworkRoutes::NetworkRoutes(const Problem& p) : problem_(p) {
    const Network& net = p.network;
    const int H = static_cast<int>(p.hosts.size());
    const int S = static_cast<int>(net.switches.size());
    const int L = static_cast<int>(net.links.size());
    if (!net.present() || static_cast<int>(net.host_switch.size()) != H) throw InputError("network routes: the snapshot has no network");
    check_connected(p);
    for (const NetLink& l : net.links)
        if (l.a == l.b) throw InputError("network routes: a link joins switch \"" + net.switches[l.a] + "\" to itself");

    edge_index_.assign(S, -1);
    std::vector<int> edges;  // host-attached switches, in switch order
    for (int h = 0; h < H; ++h) edge_index_[net.host_switch[h]] = 0;
    for (int s = 0; s < S; ++s)
        if (edge_index_[s] == 0) {
            edge_index_[s] = static_cast<int>(edges.size());
            edges.push_back(s);
        }
    edge_count_ = edges.size();

    Adjacency adj(S);  // (neighbour switch, link index)
    for (int i = 0; i < L; ++i) {
        adj[net.links[i].a].emplace_back(net.links[i].b, i);
        adj[net.links[i].b].emplace_back(net.links[i].a, i);
    }
    const int A = 2 * (H + L);

    std::vector<Wide> lcm(A, 1);
    const auto pair_entries = ecmp_shares(p, edges, adj, lcm, [&](int k) { return link_name_raw(k, p); });
    scale_.assign(A, 1);
    for (int k = 0; k < A; ++k) scale_[k] = static_cast<std::int64_t>(lcm[k]);
    offset_.assign(edge_count_ * edge_count_ + 1, 0);
    for (std::size_t k = 0; k < pair_entries.size(); ++k) {
        offset_[k] = shares_.size();
        for (const ArcShare& e : pair_entries[k]) shares_.push_back(LinkShare{e.arc, e.f.num * (scale_[e.arc] / e.f.den)});
    }
    offset_[edge_count_ * edge_count_] = shares_.size();

    decompose(edges, adj);

    capacity_.resize(static_cast<std::size_t>(A));
    for (int h = 0; h < H; ++h) capacity_[arc(h, 0)] = capacity_[arc(h, 1)] = p.host_type_of(h).nic_mbps;
    for (int i = 0; i < L; ++i)
        for (int d = 0; d < 2; ++d) capacity_[arc(H + i, d)] = net.links[i].mbps * scale_[arc(H + i, d)];
    // Every load of arc k is at most the sum of all vlink bandwidths x scale(k): keep it below 2^62.
    Wide total = 0;
    for (const Vlink& v : p.vlinks) total += v.mbps;
    for (int k = 0; k < A; ++k)
        if (total * scale_[k] > (static_cast<Wide>(1) << 62))
            throw InputError("network: the vlinks' total bandwidth is too large for exact loads on " + link_name(k) + " (" +
                             std::to_string(scale_[k]) + " parts per Mbps; at most 2^62 parts)");
}

std::string NetworkRoutes::link_name_raw(int k, const Problem& p) {
    const int H = static_cast<int>(p.hosts.size());
    const int link = k / 2, dir = k % 2;
    if (link < H) return "uplink of host \"" + p.hosts[link].id + (dir == 0 ? "\" (to its switch)" : "\" (from its switch)");
    const NetLink& l = p.network.links[link - H];
    const std::string& x = p.network.switches[dir == 0 ? l.a : l.b];
    const std::string& y = p.network.switches[dir == 0 ? l.b : l.a];
    return "link " + x + " -> " + y + " (network.links[" + std::to_string(link - H) + "])";
}

void NetworkRoutes::decompose(const std::vector<int>& edges, const std::vector<std::vector<std::pair<int, int>>>& adj) {
    const Network& net = problem_.network;
    const int H = static_cast<int>(problem_.hosts.size());
    const std::vector<int> level = switch_levels(problem_);
    const int top = *std::max_element(level.begin(), level.end());
    if (top < 1 || std::find(level.begin(), level.end(), -1) != level.end()) return;
    const std::size_t E = edge_count_;
    std::vector<std::vector<UpShare>> up(E);       // [edge] shares going up, level by level
    std::vector<std::vector<std::size_t>> cut(E);  // [edge][l] end of levels 1..l in up[edge]
    std::vector<std::vector<int>> key(E);          // [edge][l - 1] id of the level-l switches reached
    std::map<std::vector<int>, int> ids;
    std::vector<Frac> flow(net.switches.size());
    // A share in the units of arc k, or -1 if it is no multiple of 1/scale(k) (then the table stays).
    auto units = [&](int k, Frac f) -> std::int64_t { return scale_[k] % f.den == 0 ? f.num * (scale_[k] / f.den) : -1; };
    try {
        for (std::size_t si = 0; si < E; ++si) {
            const std::string where = "up from switch \"" + net.switches[edges[si]] + "\"";
            std::vector<int> at = {edges[si]};
            flow[edges[si]] = {1, 1};
            cut[si].push_back(0);
            for (int l = 1; l <= top; ++l) {
                std::vector<int> next;
                for (int u : at) {
                    int n = 0;
                    for (auto [v, link] : adj[u]) n += level[v] == l ? 1 : 0;
                    if (n == 0) {  // no way up: keep the table
                        for (int w : at) flow[w] = {};
                        return;
                    }
                    const Frac each = reduce(flow[u].num, static_cast<Wide>(flow[u].den) * n, where);
                    for (auto [v, link] : adj[u])
                        if (level[v] == l) {
                            const int k = arc(H + link, net.links[link].a == u ? 0 : 1);
                            const std::int64_t a = units(k, each), b = units(k ^ 1, each);
                            if (a < 0 || b < 0) {
                                for (int w : at) flow[w] = {};
                                for (int w : next) flow[w] = {};
                                return;
                            }
                            up[si].push_back(UpShare{k, a, b});
                            if (flow[v].num == 0) next.push_back(v);
                            flow[v] = add(flow[v], each, where);
                        }
                }
                for (int u : at) flow[u] = {};
                cut[si].push_back(up[si].size());
                std::sort(next.begin(), next.end());
                key[si].push_back(ids.emplace(next, static_cast<int>(ids.size())).first->second);
                at = std::move(next);
            }
            for (int w : at) flow[w] = {};
        }
    } catch (const InputError&) {  // shares finer than the table's: keep the table
        return;
    }
    // Accept only if every ordered pair's route is exactly up from s and down t's up-path to the
    // first level where they reach the same switches (trees, leaf-spine, Clos); else keep the table.
    std::vector<LinkShare> mine;
    for (std::size_t si = 0; si < E; ++si)
        for (std::size_t ti = 0; ti < E; ++ti) {
            if (si == ti) continue;
            int l = 1;
            while (l <= top && key[si][l - 1] != key[ti][l - 1]) ++l;
            if (l > top) return;
            mine.clear();
            for (std::size_t k = 0; k < cut[si][l]; ++k) mine.push_back(LinkShare{up[si][k].arc, up[si][k].up});
            for (std::size_t k = 0; k < cut[ti][l]; ++k) mine.push_back(LinkShare{up[ti][k].arc ^ 1, up[ti][k].down});
            std::sort(mine.begin(), mine.end(), [](const LinkShare& x, const LinkShare& y) { return x.link < y.link; });
            const auto want = route(edges[si], edges[ti]);
            if (mine.size() != want.size() ||
                !std::equal(mine.begin(), mine.end(), want.begin(),
                            [](const LinkShare& x, const LinkShare& y) { return x.link == y.link && x.share == y.share; }))
                return;
        }
    levels_ = top;
    up_off_.assign(E * (static_cast<std::size_t>(top) + 1), 0);
    meet_key_.assign(E * static_cast<std::size_t>(top), 0);
    for (std::size_t si = 0; si < E; ++si) {
        const std::size_t base = up_shares_.size();
        up_shares_.insert(up_shares_.end(), up[si].begin(), up[si].end());
        for (int l = 0; l <= top; ++l) up_off_[si * (top + 1) + l] = base + cut[si][l];
        for (int l = 1; l <= top; ++l) meet_key_[si * top + l - 1] = key[si][l - 1];
    }
}

std::string NetworkRoutes::link_name(int k) const {
    return link_name_raw(k, problem_);
}

void NetworkRoutes::add_vlink(std::vector<std::int64_t>& loads, int hx, int hy, std::int64_t mbps, int sign) const {
    for_each_share(hx, hy, [&](int k, std::int64_t units) { loads[k] += sign * mbps * units; });
}

std::vector<std::int64_t> link_loads(const Problem& p, const NetworkRoutes& routes, std::span<const int> vm_host) {
    std::vector<std::int64_t> loads(routes.num_links(), 0);
    for (const Vlink& v : p.vlinks) {                                          // each flow on its own: not through add_vlink's shared path
        if (vm_host[v.a] == kUnplaced || vm_host[v.b] == kUnplaced) continue;  // an end on no host: no flow
        routes.for_each_flow(vm_host[v.a], vm_host[v.b], [&](int k, std::int64_t units) { loads[k] += v.mbps * units; });
        routes.for_each_flow(vm_host[v.b], vm_host[v.a], [&](int k, std::int64_t units) { loads[k] += v.mbps * units; });
    }
    return loads;
}

std::vector<int> switch_levels(const Problem& p) {
    const std::size_t S = p.network.switches.size();
    std::vector<std::vector<int>> adj(S);
    for (const NetLink& l : p.network.links) {
        adj[l.a].push_back(l.b);
        adj[l.b].push_back(l.a);
    }
    std::vector<int> level(S, -1), queue;
    for (int s : p.network.host_switch)
        if (level[s] < 0) level[s] = 0, queue.push_back(s);
    for (std::size_t i = 0; i < queue.size(); ++i)  // multi-source breadth-first search
        for (int t : adj[queue[i]])
            if (level[t] < 0) level[t] = level[queue[i]] + 1, queue.push_back(t);
    return level;
}

}  // namespace vmcap

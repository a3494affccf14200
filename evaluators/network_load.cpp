#include "evaluators/network_load.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "evaluators/score.h"

namespace vmcap {

namespace {

/** A non-negative rational share of one unit of traffic, kept reduced. */
struct Frac {
    std::int64_t num = 0, den = 1;
};

Frac add(Frac x, Frac y, std::int64_t max_den) {
    if (x.num == 0) return y;
    if (y.num == 0) return x;
    const std::int64_t g = std::gcd(x.den, y.den);
    const Wide den = static_cast<Wide>(x.den / g) * y.den;
    const Wide num = static_cast<Wide>(x.num) * (y.den / g) + static_cast<Wide>(y.num) * (x.den / g);
    if (den > static_cast<Wide>(max_den) * max_den) throw InputError("network: ECMP shares too fine");
    const auto n = static_cast<std::int64_t>(num), d = static_cast<std::int64_t>(den);
    const std::int64_t r = std::gcd(n, d);
    return {n / r, d / r};
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
    if (p.hosts.empty()) return;
    std::vector<std::vector<int>> adj(S);
    for (const NetLink& l : net.links) {
        adj[l.a].push_back(l.b);
        adj[l.b].push_back(l.a);
    }
    std::vector<char> seen(S, 0);
    std::vector<int> stack = {net.host_switch[0]};
    seen[net.host_switch[0]] = 1;
    while (!stack.empty()) {
        const int u = stack.back();
        stack.pop_back();
        for (const int v : adj[u])
            if (!seen[v]) {
                seen[v] = 1;
                stack.push_back(v);
            }
    }
    for (std::size_t h = 0; h < p.hosts.size(); ++h)
        if (!seen[net.host_switch[h]])
            throw InputError("network routes: switch \"" + net.switches[net.host_switch[h]] + "\" (host \"" + p.hosts[h].id +
                             "\") cannot reach switch \"" + net.switches[net.host_switch[0]] + "\" (host \"" + p.hosts[0].id + "\")");
}

}  // namespace

NetworkRoutes::NetworkRoutes(const Problem& p) : problem_(p) {
    const Network& net = p.network;
    const int H = static_cast<int>(p.hosts.size());
    const int S = static_cast<int>(net.switches.size());
    const int L = static_cast<int>(net.links.size());
    if (!net.present() || static_cast<int>(net.host_switch.size()) != H) throw InputError("network routes: the snapshot has no network");
    check_connected(p);

    edge_index_.assign(S, -1);
    std::vector<int> edges;  // host-attached switches, in switch order
    for (int h = 0; h < H; ++h) edge_index_[net.host_switch[h]] = 0;
    for (int s = 0; s < S; ++s)
        if (edge_index_[s] == 0) {
            edge_index_[s] = static_cast<int>(edges.size());
            edges.push_back(s);
        }
    edge_count_ = edges.size();

    std::vector<std::vector<std::pair<int, int>>> adj(S);  // (neighbour switch, link index)
    for (int i = 0; i < L; ++i) {
        adj[net.links[i].a].emplace_back(net.links[i].b, i);
        adj[net.links[i].b].emplace_back(net.links[i].a, i);
    }

    // Per ordered pair: the shares as fractions; the scale is their denominators' lcm.
    struct Entry {
        int link;
        Frac f;
    };
    std::vector<std::vector<Entry>> pair_entries(edge_count_ * edge_count_);  // [s * E + t]
    std::int64_t scale = 1;
    std::vector<int> dist(S);
    std::vector<Frac> flow(S), on_link(L);
    std::vector<std::vector<int>> bucket;
    std::vector<int> touched;
    for (std::size_t ti = 0; ti < edge_count_; ++ti) {
        const int t = edges[ti];
        std::fill(dist.begin(), dist.end(), -1);
        std::vector<int> queue = {t};
        dist[t] = 0;
        for (std::size_t q = 0; q < queue.size(); ++q)
            for (auto [v, l] : adj[queue[q]])
                if (dist[v] < 0) {
                    dist[v] = dist[queue[q]] + 1;
                    queue.push_back(v);
                }
        for (std::size_t si = 0; si < edge_count_; ++si) {
            std::vector<Entry>& entries = pair_entries[si * edge_count_ + ti];
            const int s = edges[si];
            if (s == t) continue;
            // Hop-by-hop equal split on the shortest-path DAG towards t, farthest switches first.
            bucket.assign(static_cast<std::size_t>(dist[s]) + 1, {});
            flow[s] = {1, 1};
            bucket[dist[s]].push_back(s);
            for (int d = dist[s]; d >= 1; --d)
                for (int u : bucket[d]) {
                    int next = 0;
                    for (auto [v, l] : adj[u]) next += dist[v] == d - 1 ? 1 : 0;
                    if (static_cast<Wide>(flow[u].den) * next > (static_cast<Wide>(1) << 48))
                        throw InputError("network: the ECMP shares between switches \"" + net.switches[s] + "\" and \"" + net.switches[t] +
                                         "\" are too fine for exact integer loads");
                    const Frac part{flow[u].num, flow[u].den * next};
                    const std::int64_t g = std::gcd(part.num, part.den);
                    const Frac each{part.num / g, part.den / g};
                    for (auto [v, l] : adj[u]) {
                        if (dist[v] != d - 1) continue;
                        if (on_link[l].num == 0) touched.push_back(l);
                        on_link[l] = add(on_link[l], each, kMaxScale);
                        if (flow[v].num == 0) bucket[d - 1].push_back(v);
                        flow[v] = add(flow[v], each, kMaxScale);
                    }
                    flow[u] = {};
                }
            flow[t] = {};
            std::sort(touched.begin(), touched.end());
            for (int l : touched) {
                entries.push_back({l, on_link[l]});
                scale = std::lcm(scale, on_link[l].den);
                if (scale > kMaxScale)
                    throw InputError("network: the ECMP shares between switches \"" + net.switches[s] + "\" and \"" + net.switches[t] +
                                     "\" need more than " + std::to_string(kMaxScale) +
                                     " parts per Mbps (split factors too irregular for exact integer loads)");
                on_link[l] = {};
            }
            touched.clear();
        }
    }
    scale_ = scale;
    offset_.assign(edge_count_ * edge_count_ + 1, 0);
    for (std::size_t k = 0; k < pair_entries.size(); ++k) {
        offset_[k] = shares_.size();
        for (const Entry& e : pair_entries[k]) shares_.push_back(LinkShare{H + e.link, e.f.num * (scale / e.f.den)});
    }
    offset_[edge_count_ * edge_count_] = shares_.size();

    decompose(edges, adj);

    capacity_.resize(static_cast<std::size_t>(H) + L);
    for (int h = 0; h < H; ++h) capacity_[h] = p.host_type_of(h).nic_mbps * scale_;
    for (int i = 0; i < L; ++i) capacity_[H + i] = net.links[i].mbps * scale_;
    // Every load is at most the sum of all vlink bandwidths x scale: keep that below 2^62.
    Wide total = 0;
    for (const Vlink& v : p.vlinks) total += static_cast<Wide>(v.mbps) * scale_;
    if (total > (static_cast<Wide>(1) << 62)) throw InputError("network: the vlinks' total bandwidth is too large for exact link loads");
}

void NetworkRoutes::decompose(const std::vector<int>& edges, const std::vector<std::vector<std::pair<int, int>>>& adj) {
    const int H = static_cast<int>(problem_.hosts.size());
    const std::vector<int> level = switch_levels(problem_);
    const int top = *std::max_element(level.begin(), level.end());
    if (top < 1 || std::find(level.begin(), level.end(), -1) != level.end()) return;
    const std::size_t E = edge_count_;
    levels_ = top;
    std::vector<std::vector<LinkShare>> up(E);     // [edge] shares going up, level by level
    std::vector<std::vector<std::size_t>> cut(E);  // [edge][l] end of levels 1..l in up[edge]
    std::vector<std::vector<int>> key(E);          // [edge][l - 1] id of the level-l switches reached
    std::map<std::vector<int>, int> ids;
    std::vector<std::int64_t> flow(problem_.network.switches.size(), 0);
    for (std::size_t si = 0; si < E; ++si) {
        std::vector<int> at = {edges[si]};
        flow[edges[si]] = scale_;
        cut[si].push_back(0);
        for (int l = 1; l <= top; ++l) {
            std::vector<int> next;
            for (int u : at) {
                int n = 0;
                for (auto [v, link] : adj[u]) n += level[v] == l ? 1 : 0;
                if (n == 0 || flow[u] % n != 0) {  // no way up, or an inexact split: keep the table
                    for (int w : at) flow[w] = 0;
                    levels_ = 0;
                    return;
                }
                for (auto [v, link] : adj[u])
                    if (level[v] == l) {
                        up[si].push_back(LinkShare{H + link, flow[u] / n});
                        if (flow[v] == 0) next.push_back(v);
                        flow[v] += flow[u] / n;
                    }
            }
            for (int u : at) flow[u] = 0;
            cut[si].push_back(up[si].size());
            std::sort(next.begin(), next.end());
            key[si].push_back(ids.emplace(next, static_cast<int>(ids.size())).first->second);
            at = std::move(next);
        }
        for (int w : at) flow[w] = 0;
    }
    // Accept only if every pair's route is exactly up from s and up from t to the first level
    // where they reach the same switches (trees, leaf-spine, Clos fabrics); else keep the table.
    std::vector<LinkShare> mine;
    for (std::size_t si = 0; si < E; ++si)
        for (std::size_t ti = 0; ti < E; ++ti) {
            if (si == ti) continue;
            int l = 1;
            while (l <= top && key[si][l - 1] != key[ti][l - 1]) ++l;
            if (l > top) {
                levels_ = 0;
                return;
            }
            mine.assign(up[si].begin(), up[si].begin() + static_cast<std::ptrdiff_t>(cut[si][l]));
            mine.insert(mine.end(), up[ti].begin(), up[ti].begin() + static_cast<std::ptrdiff_t>(cut[ti][l]));
            std::sort(mine.begin(), mine.end(), [](const LinkShare& x, const LinkShare& y) { return x.link < y.link; });
            const auto want = route(edges[si], edges[ti]);
            if (mine.size() != want.size() ||
                !std::equal(mine.begin(), mine.end(), want.begin(),
                            [](const LinkShare& x, const LinkShare& y) { return x.link == y.link && x.share == y.share; })) {
                levels_ = 0;
                return;
            }
        }
    up_off_.assign(E * (static_cast<std::size_t>(top) + 1), 0);
    meet_key_.assign(E * static_cast<std::size_t>(top), 0);
    for (std::size_t si = 0; si < E; ++si) {
        const std::size_t base = up_shares_.size();
        up_shares_.insert(up_shares_.end(), up[si].begin(), up[si].end());
        for (int l = 0; l <= top; ++l) up_off_[si * (top + 1) + l] = base + cut[si][l];
        for (int l = 1; l <= top; ++l) meet_key_[si * top + l - 1] = key[si][l - 1];
    }
}

std::string NetworkRoutes::link_name(int link) const {
    const int H = static_cast<int>(problem_.hosts.size());
    if (link < H) return "uplink of host \"" + problem_.hosts[link].id + "\"";
    const NetLink& l = problem_.network.links[link - H];
    return "link " + problem_.network.switches[l.a] + "-" + problem_.network.switches[l.b] + " (network.links[" + std::to_string(link - H) +
           "])";
}

void NetworkRoutes::add_vlink(std::vector<std::int64_t>& loads, int hx, int hy, std::int64_t mbps, int sign) const {
    for_each_share(hx, hy, [&](int link, std::int64_t units) { loads[link] += sign * mbps * units; });
}

std::vector<std::int64_t> link_loads(const Problem& p, const NetworkRoutes& routes, std::span<const int> vm_host) {
    std::vector<std::int64_t> loads(routes.num_links(), 0);
    for (const Vlink& v : p.vlinks) routes.add_vlink(loads, vm_host[v.a], vm_host[v.b], v.mbps, +1);
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

#pragma once
/**
 * @file network_load.h
 * Routing and link loads of the vlinks of a snapshot (issue "Virtual links"), exact in integers.
 *
 * Routing model (seed 003 digest §8.1.3 (c)): hierarchical ECMP with fixed equal splitting. The
 * traffic of a vlink between VMs on hosts x != y loads both host uplinks with its whole bandwidth
 * and, when the hosts attach to different switches s != t, the switch links on the shortest paths
 * (in hops) from s to t: at every switch the traffic arriving is split equally over its links to
 * switches one hop closer to t (parallel links count one each). On a tree this is the unique
 * path; on leaf-spine, FatTree and Jupiter-like Clos fabrics it is the usual ECMP spread. A vlink
 * inside one host costs nothing (digest §1.2 G3). Loads are undirected: one load per link,
 * compared with its capacity (digest §8.1.1).
 *
 * Integer micro-units: every share is a multiple of 1/scale() of the bandwidth (scale() = the
 * least common multiple of the split denominators), so loads are integers in Mbps x scale() and
 * adding, then removing, a vlink restores every load exactly, in any order.
 *
 * Links are numbered hosts first: link h < H is the NIC uplink of host h (capacity
 * HostType::nic_mbps), link H + i is Network::links[i].
 */
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "instances/problem.h"

namespace vmcap {

/** A link and the share of a route's traffic on it, in 1/scale() units (1..scale()). */
struct LinkShare {
    int link = 0;
    std::int64_t share = 0;
};

/**
 * The ECMP routes between every two switches that hosts attach to, and the link capacities in
 * micro-units. Immutable after construction; thread-safe for concurrent reads.
 */
class NetworkRoutes {
public:
    /** Most micro-units per Mbps (the split denominators' least common multiple). */
    static constexpr std::int64_t kMaxScale = std::int64_t{1} << 24;

    /**
     * Routes of problem.network (which must be present and connected, as the loader ensures).
     * Cost: one breadth-first search per host-attached switch plus one route per ordered pair of
     * them, O(E^2 x (S + L)) for E such switches, S switches and L links; memory O(E^2 x route
     * length). Throws InputError if the ECMP shares need more than kMaxScale micro-units per Mbps
     * (irregular fabrics with many different split factors), or if the sum of all vlink
     * bandwidths in micro-units could overflow int64.
     */
    explicit NetworkRoutes(const Problem& problem);

    /** Number of links: H host uplinks, then the switch links. */
    int num_links() const { return static_cast<int>(capacity_.size()); }
    /** Micro-units per Mbps. */
    std::int64_t scale() const { return scale_; }
    /** Capacity of link `link` in micro-units (Mbps x scale()). */
    std::int64_t capacity(int link) const { return capacity_[link]; }
    /** "uplink of host h1" or "link tor1-spine2 (#3)": names a link in messages and reports. */
    std::string link_name(int link) const;

    /** The switch links between host-attached switches s != t with their shares (each in
     *  1..scale(); they sum to scale() over every cut between s and t). O(1). */
    std::span<const LinkShare> route(int s, int t) const {
        const std::size_t k = static_cast<std::size_t>(edge_index_[s]) * edge_count_ + edge_index_[t];
        return {shares_.data() + offset_[k], shares_.data() + offset_[k + 1]};
    }

    /**
     * Adds sign x the loads of a vlink of `mbps` between VMs on hosts hx and hy to `loads`
     * (num_links() entries, micro-units): nothing if hx == hy; else mbps x scale() on both host
     * uplinks and mbps x share on each link of route(switch(hx), switch(hy)). O(route length).
     */
    void add_vlink(std::vector<std::int64_t>& loads, int hx, int hy, std::int64_t mbps, int sign) const;

    /** Calls f(link, units) for every link a vlink between hosts hx and hy loads, with its load
     *  in micro-units per Mbps (scale() on the host uplinks, the route shares between). Nothing
     *  when hx == hy. O(route length). */
    template <class F>
    void for_each_share(int hx, int hy, F&& f) const {
        if (hx == hy) return;
        f(hx, scale_);
        f(hy, scale_);
        const int s = problem_.network.host_switch[hx], t = problem_.network.host_switch[hy];
        if (s == t) return;
        if (levels_ > 0) {  // up from s and up from t to the level where they meet (decompose())
            const std::size_t si = static_cast<std::size_t>(edge_index_[s]), ti = static_cast<std::size_t>(edge_index_[t]);
            const int l = meet_level(s, t);
            const std::size_t* os = up_off_.data() + si * (levels_ + 1);
            const std::size_t* ot = up_off_.data() + ti * (levels_ + 1);
            for (std::size_t k = os[0]; k < os[l]; ++k) f(up_shares_[k].link, up_shares_[k].share);
            for (std::size_t k = ot[0]; k < ot[l]; ++k) f(up_shares_[k].link, up_shares_[k].share);
            return;
        }
        for (const LinkShare& e : route(s, t)) f(e.link, e.share);
    }

    /**
     * The net change of a vlink's loads per Mbps when its end on host `from` moves to host `to`
     * while its other end stays on `peer`: calls f(link, units) with units < 0 where the route
     * from `from` loaded the link more than the one from `to`, > 0 where less, and not at all where
     * they load it equally (on decomposed routes the peer's uplink and the common part of its
     * up-path cancel). `moved_first`: the moving end is the vlink's first end (the pair table
     * routes in the vlink's orientation). The same loads as for_each_share(from, peer) subtracted
     * and for_each_share(to, peer) added. O(route length).
     */
    template <class F>
    void for_each_move(int from, int to, int peer, bool moved_first, F&& f) const {
        if (from == to) return;
        if (levels_ == 0 || peer == from || peer == to) {
            for_each_share(moved_first ? from : peer, moved_first ? peer : from, [&](int link, std::int64_t u) { f(link, -u); });
            for_each_share(moved_first ? to : peer, moved_first ? peer : to, f);
            return;
        }
        f(from, -scale_);
        f(to, scale_);
        const std::vector<int>& sw = problem_.network.host_switch;
        const int sf = sw[from], st = sw[to], sp = sw[peer];
        const std::size_t ep = static_cast<std::size_t>(edge_index_[sp]);
        const int l1 = meet_level(sf, sp), l2 = meet_level(st, sp);
        const std::size_t* of = up_off_.data() + static_cast<std::size_t>(edge_index_[sf]) * (levels_ + 1);
        const std::size_t* ot = up_off_.data() + static_cast<std::size_t>(edge_index_[st]) * (levels_ + 1);
        const std::size_t* op = up_off_.data() + ep * (levels_ + 1);
        for (std::size_t k = of[0]; k < of[l1]; ++k) f(up_shares_[k].link, -up_shares_[k].share);
        for (std::size_t k = ot[0]; k < ot[l2]; ++k) f(up_shares_[k].link, up_shares_[k].share);
        // The peer's up-path: levels 1..l1 left, 1..l2 taken; the common levels cancel.
        for (std::size_t k = op[l2]; k < op[l1]; ++k) f(up_shares_[k].link, -up_shares_[k].share);
        for (std::size_t k = op[l1]; k < op[l2]; ++k) f(up_shares_[k].link, up_shares_[k].share);
    }

    /** Are routes served from per-switch up-paths (decompose()) instead of the pair table? */
    bool decomposed() const { return levels_ > 0; }

private:
    /** Decomposed routes: the first level (1..levels_) where the up-paths of host-attached
     *  switches s and t reach the same switches; 0 if s == t. */
    int meet_level(int s, int t) const {
        if (s == t) return 0;
        const int* ks = meet_key_.data() + static_cast<std::size_t>(edge_index_[s]) * levels_;
        const int* kt = meet_key_.data() + static_cast<std::size_t>(edge_index_[t]) * levels_;
        int l = 1;
        while (ks[l - 1] != kt[l - 1]) ++l;
        return l;
    }

    /**
     * Hierarchical fabrics (trees, leaf-spine, Clos): the route between host-attached switches
     * s and t is the equal split going up from s plus the one going up from t, to the first level
     * where both reach the same set of switches. Built per switch and kept only if it reproduces
     * every pair's route exactly; for_each_share then reads a few cache lines per switch instead
     * of the pair table (which on 500 ToRs is megabytes, a cache miss per route).
     */
    void decompose(const std::vector<int>& edges, const std::vector<std::vector<std::pair<int, int>>>& adj);

    const Problem& problem_;
    int levels_ = 0;                    ///< > 0: decomposed routes over this many levels
    std::vector<LinkShare> up_shares_;  ///< per switch, level 1 first
    std::vector<std::size_t> up_off_;   ///< [edge * (levels + 1) + l]: end of levels 1..l (l = 0: start)
    std::vector<int> meet_key_;         ///< [edge * levels + l - 1]: id of the level-l switches reached
    std::int64_t scale_ = 1;
    std::vector<std::int64_t> capacity_;
    std::vector<int> edge_index_;  ///< [switch] index among host-attached switches, or -1
    std::size_t edge_count_ = 0;
    std::vector<std::size_t> offset_;  ///< [s * E + t] .. [s * E + t + 1) in shares_
    std::vector<LinkShare> shares_;
};

/** Level of every switch of problem.network: 0 for a switch some host attaches to (a ToR), else
 *  its distance in hops from the nearest such switch (aggregation / spine 1, core 2, ...); -1 if
 *  unreachable. Orders the layers of reports and the uplinks of the bandwidth-aware capacity
 *  (evaluators/bandwidth_capacity.h). O(switches + links). */
std::vector<int> switch_levels(const Problem& problem);

/** Loads of every link (micro-units) with VM v on host vm_host[v], recomputed from scratch over
 *  all vlinks: O(vlinks x route length). The independent path of `vmcap validate`. */
std::vector<std::int64_t> link_loads(const Problem& problem, const NetworkRoutes& routes, std::span<const int> vm_host);

}  // namespace vmcap

#pragma once
/**
 * @file network_load.h
 * Routing and link loads of the vlinks of a snapshot, exact in integers.
 *
 * Links are full duplex (seed 003 digest §8.1.1: the formal model is a directed graph with a
 * capacity c(i,j) per direction; NetSolver's FatTree and BCube runs use the same "capacity
 * available separately in both directions"): every link, host uplinks included, has its
 * capacity in each direction, and a load per direction. A vlink is a pair of flows of its
 * bandwidth, one each way, each routed from its own source; so the loads do not depend on which
 * end of a vlink is written first, even where the ECMP routes differ by direction.
 *
 * Routing model (seed 003 digest §8.1.3 (c)): hierarchical ECMP with fixed equal splitting. The
 * flow from a VM on host x to one on host y != x loads x's uplink towards the switch and y's
 * uplink from the switch with its whole bandwidth and, when the hosts attach to different
 * switches s != t, the switch links on the shortest paths (in hops) from s to t, each in the
 * direction it is crossed: at every switch the traffic arriving is split equally over its links
 * to switches one hop closer to t (parallel links count one each). On a tree this is the unique
 * path; on leaf-spine, FatTree and Jupiter-like Clos fabrics it is the usual ECMP spread. A
 * vlink inside one host costs nothing (digest §1.2 G3).
 *
 * Directed links ("arcs") are numbered 2 x link + direction, links hosts first: link h < H is the
 * NIC uplink of host h (capacity HostType::nic_mbps per direction; direction 0 host -> switch, 1
 * switch -> host), link H + i is Network::links[i] (direction 0 from its first switch to its
 * second, 1 back). Every index called `link` or `arc` below is such a directed link.
 *
 * Integer micro-units, per arc: every share on arc k is a multiple of 1/scale(k) of the
 * bandwidth (scale(k) = the least common multiple of the denominators of the shares that routes
 * put on k), so loads are integers in Mbps x scale(k) and adding, then removing, a vlink restores
 * every load exactly, in any order. A scale per arc instead of one for the whole network keeps
 * irregular fabrics (uneven parallel links: 16/15/14/13 uplinks per leaf) exact: only the split
 * factors of the routes through one arc multiply there.
 */
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "instances/problem.h"

namespace vmcap {

/** A directed link (arc) and the share of a flow's traffic on it, in 1/scale(arc) units
 *  (1..scale(arc)). */
struct LinkShare {
    int link = 0;
    std::int64_t share = 0;
};

/** An arc of a decomposed up-path and its share in its own units and in its reverse's. */
struct UpShare {
    int arc = 0;            ///< the arc going up (towards the core)
    std::int64_t up = 0;    ///< share on `arc`, in 1/scale(arc) units
    std::int64_t down = 0;  ///< the same share on arc ^ 1 (coming down), in 1/scale(arc ^ 1) units
};

/**
 * The ECMP routes between every two switches that hosts attach to, and the capacities of the
 * directed links in micro-units. Immutable after construction; thread-safe for concurrent reads.
 */
class NetworkRoutes {
public:
    /** Most micro-units per Mbps on one arc (the least common multiple of its share denominators). */
    static constexpr std::int64_t kMaxScale = std::int64_t{1} << 40;

    /**
     * Routes of problem.network (which must be present, as the loader ensures). Cost: one
     * breadth-first search per host-attached switch plus one route per ordered pair of them,
     * O(E^2 x (S + L)) for E such switches, S switches and L links; memory O(E^2 x route
     * length). Throws InputError (message starting "network: ") if two host-attached switches
     * cannot reach each other, if the shares on one arc need more than kMaxScale micro-units per
     * Mbps, or if the vlinks' total bandwidth in micro-units of some arc could overflow int64
     * (the message names the link and the limit).
     */
    explicit NetworkRoutes(const Problem& problem);

    /** The arc of `link` (hosts first, see the file comment) in direction `dir` (0 or 1). */
    static int arc(int link, int dir) { return 2 * link + dir; }
    /** Number of arcs: 2 x (H host uplinks + switch links). */
    int num_links() const { return static_cast<int>(capacity_.size()); }
    /** Micro-units per Mbps on `arc` (1 on host uplinks: they carry whole flows). */
    std::int64_t scale(int arc) const { return scale_[arc]; }
    /** Capacity of `arc` in micro-units (Mbps x scale(arc)). */
    std::int64_t capacity(int arc) const { return capacity_[arc]; }
    /** Names an arc in messages and reports: "uplink of host \"h1\" (to switch)", "link tor1 ->
     *  spine2 (network.links[3])". */
    std::string link_name(int arc) const;

    /** The arcs a flow from host-attached switch s to host-attached switch t != s loads, with
     *  their shares (arc k in 1..scale(k); the shares over every cut between s and t sum to one
     *  unit of traffic). O(1). */
    std::span<const LinkShare> route(int s, int t) const {
        const std::size_t k = static_cast<std::size_t>(edge_index_[s]) * edge_count_ + edge_index_[t];
        return {shares_.data() + offset_[k], shares_.data() + offset_[k + 1]};
    }

    /**
     * Adds sign x the loads of a vlink of `mbps` between VMs on hosts hx and hy to `loads`
     * (num_links() entries, micro-units): nothing if hx == hy; else the two flows, each of
     * `mbps` (see for_each_share). O(route length).
     */
    void add_vlink(std::vector<std::int64_t>& loads, int hx, int hy, std::int64_t mbps, int sign) const;

    /** Calls f(arc, units) for every arc the flow from host hx to host hy loads, with its load in
     *  micro-units per Mbps: hx's uplink towards its switch and hy's from its switch (1 each),
     *  the route shares between. Nothing when hx == hy. O(route length). */
    template <class F>
    void for_each_flow(int hx, int hy, F&& f) const {
        if (hx == hy) return;
        f(arc(hx, 0), scale_[arc(hx, 0)]);
        f(arc(hy, 1), scale_[arc(hy, 1)]);
        const int s = problem_.network.host_switch[hx], t = problem_.network.host_switch[hy];
        if (s == t) return;
        if (levels_ > 0) {  // up from s, then down along t's up-path, to the level where they meet (decompose())
            const int l = meet_level(s, t);
            const std::size_t* os = up_off_.data() + static_cast<std::size_t>(edge_index_[s]) * (levels_ + 1);
            const std::size_t* ot = up_off_.data() + static_cast<std::size_t>(edge_index_[t]) * (levels_ + 1);
            for (std::size_t k = os[0]; k < os[l]; ++k) f(up_shares_[k].arc, up_shares_[k].up);
            for (std::size_t k = ot[0]; k < ot[l]; ++k) f(up_shares_[k].arc ^ 1, up_shares_[k].down);
            return;
        }
        for (const LinkShare& e : route(s, t)) f(e.link, e.share);
    }

    /** Calls f(arc, units) for every arc a vlink between VMs on hosts hx and hy loads, per Mbps of
     *  its bandwidth: the flow hx -> hy, then the flow hy -> hx (for_each_flow). Symmetric in hx
     *  and hy up to the order of the calls. O(route length). */
    template <class F>
    void for_each_share(int hx, int hy, F&& f) const {
        for_each_flow(hx, hy, f);
        for_each_flow(hy, hx, f);
    }

    /**
     * The net change of a vlink's loads per Mbps when its end on host `from` moves to host `to`
     * while its other end stays on `peer`: calls f(arc, units) with units < 0 where the flows
     * from and to `from` loaded the arc more than those of `to`, > 0 where less, and not at all
     * where they load it equally (on decomposed routes the peer's uplink and the common part of
     * its up-path cancel). The same loads as for_each_share(from, peer) subtracted and
     * for_each_share(to, peer) added. O(route length).
     */
    template <class F>
    void for_each_move(int from, int to, int peer, F&& f) const {
        if (from == to) return;
        if (levels_ == 0 || peer == from || peer == to) {
            for_each_share(from, peer, [&](int a, std::int64_t u) { f(a, -u); });
            for_each_share(to, peer, f);
            return;
        }
        f(arc(from, 0), -scale_[arc(from, 0)]);
        f(arc(from, 1), -scale_[arc(from, 1)]);
        f(arc(to, 0), scale_[arc(to, 0)]);
        f(arc(to, 1), scale_[arc(to, 1)]);
        const std::vector<int>& sw = problem_.network.host_switch;
        const int sf = sw[from], st = sw[to], sp = sw[peer];
        const std::size_t ep = static_cast<std::size_t>(edge_index_[sp]);
        const int l1 = meet_level(sf, sp), l2 = meet_level(st, sp);
        const std::size_t* of = up_off_.data() + static_cast<std::size_t>(edge_index_[sf]) * (levels_ + 1);
        const std::size_t* ot = up_off_.data() + static_cast<std::size_t>(edge_index_[st]) * (levels_ + 1);
        const std::size_t* op = up_off_.data() + ep * (levels_ + 1);
        auto both = [&](const UpShare& e, int sign) {
            f(e.arc, sign * e.up);
            f(e.arc ^ 1, sign * e.down);
        };
        for (std::size_t k = of[0]; k < of[l1]; ++k) both(up_shares_[k], -1);
        for (std::size_t k = ot[0]; k < ot[l2]; ++k) both(up_shares_[k], +1);
        // The peer's up-path: levels 1..l1 left, 1..l2 taken; the common levels cancel.
        for (std::size_t k = op[l2]; k < op[l1]; ++k) both(up_shares_[k], -1);
        for (std::size_t k = op[l1]; k < op[l2]; ++k) both(up_shares_[k], +1);
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
     * Hierarchical fabrics (trees, leaf-spine, Clos): the flow from s to t is the equal split
     * going up from s plus t's own up-path travelled down, to the first level where both reach
     * the same set of switches. Built per switch and kept only if it reproduces every ordered
     * pair's route exactly (arcs and shares); for_each_flow then reads a few cache lines per
     * switch instead of the pair table (which on 500 ToRs is megabytes, a cache miss per route).
     */
    void decompose(const std::vector<int>& edges, const std::vector<std::vector<std::pair<int, int>>>& adj);
    /** link_name() of arc k of problem p (usable before the members are built). */
    static std::string link_name_raw(int k, const Problem& p);

    const Problem& problem_;
    int levels_ = 0;                   ///< > 0: decomposed routes over this many levels
    std::vector<UpShare> up_shares_;   ///< per switch, level 1 first
    std::vector<std::size_t> up_off_;  ///< [edge * (levels + 1) + l]: end of levels 1..l (l = 0: start)
    std::vector<int> meet_key_;        ///< [edge * levels + l - 1]: id of the level-l switches reached
    std::vector<std::int64_t> scale_;  ///< [arc]
    std::vector<std::int64_t> capacity_;
    std::vector<int> edge_index_;  ///< [switch] index among host-attached switches, or -1
    std::size_t edge_count_ = 0;
    std::vector<std::size_t> offset_;  ///< [s * E + t] .. [s * E + t + 1) in shares_
    std::vector<LinkShare> shares_;
};

/** Level of every switch of problem.network: 0 for a switch some host attaches to (a ToR), else
 *  its distance in hops from the nearest such switch (aggregation / spine 1, core 2, ...); -1 if
 *  unreachable. Orders the layers of reports and the uplinks of the bandwidth-aware capacity
 *  (evaluators/objective/bandwidth_capacity.h). O(switches + links). */
std::vector<int> switch_levels(const Problem& problem);

/** Loads of every arc (micro-units) with VM v on host vm_host[v], recomputed from scratch over
 *  all vlinks, each flow routed on its own (for_each_flow): O(vlinks x route length). The
 *  independent path of `vmcap validate`. */
std::vector<std::int64_t> link_loads(const Problem& problem, const NetworkRoutes& routes, std::span<const int> vm_host);

}  // namespace vmcap

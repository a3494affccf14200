#pragma once
/**
 * @file network.h
 * The datacenter network of a snapshot and the vlinks over it: switches
 * joined by links with integer capacities in Mbps, every host attached to one switch by its NIC
 * uplink (capacity HostType::nic_mbps), and vlinks -- bandwidth reservations between two VMs,
 * optionally grouped in VDCs (tenants). Immutable problem data, filled by the snapshot loader
 * (instances/snapshot_io.h, JSON in docs/format.md "Network and vlinks"); routing and link loads
 * are in evaluators/network/network_load.h. Model: seed 003 digest §1.1 (servers, switches, links with
 * capacity c(l), bandwidth R(v,w) between VMs; a vlink inside one server costs nothing, §1.2 G3).
 */
#include <cstdint>
#include <string>
#include <vector>

namespace vmcap {

/** Largest link capacity or vlink bandwidth, Mbps (1 Pbps): far above any real link, and small
 *  enough that loads in micro-units (evaluators/network/network_load.h) stay exact in int64. */
inline constexpr std::int64_t kMaxMbps = 1'000'000'000;

/** One switch-to-switch link, full duplex: `mbps` in each direction, each direction with its
 *  own load (evaluators/network/network_load.h; digest §8.1.1: a directed graph with a capacity per
 *  direction). Several links between the same two switches are parallel links (ECMP splits over
 *  each). */
struct NetLink {
    int a = 0, b = 0;       ///< switch indices into Network::switches, a != b
    std::int64_t mbps = 0;  ///< capacity, 1..kMaxMbps
};

/** Switches and links; hosts attach through Network::host_switch. Empty: no network section. */
struct Network {
    std::vector<std::string> switches;  ///< switch ids; the index is the switch number
    std::vector<NetLink> links;         ///< switch-to-switch links
    std::vector<int> host_switch;       ///< [host] the switch its NIC uplink attaches to

    bool present() const { return !switches.empty(); }
};

/** The first index i of `attached` (switch numbers, e.g. Network::host_switch) whose switch cannot
 *  reach switch attached[0] over `links` (undirected), or -1 when every one can (or `attached` is
 *  empty). The snapshot loader, the NetSolver importer and NetworkRoutes require -1: a vlink
 *  between hosts on two unconnected switches would have no route. Preconditions: every switch
 *  number in `links` and `attached` is in [0, switch_count). O(switch_count + links + attached),
 *  one depth-first search. */
int first_unreachable(int switch_count, const std::vector<NetLink>& links, const std::vector<int>& attached);

/** A bandwidth reservation between two VMs, in Mbps each way: a flow of `mbps` from a to b and
 *  one from b to a, each routed from its own source (so which end is `a` changes nothing). */
struct Vlink {
    int a = 0, b = 0;       ///< VM indices into Problem::vms, a != b
    std::int64_t mbps = 0;  ///< 1..kMaxMbps
    int vdc = -1;           ///< index into Problem::vdcs, or -1 (not in a VDC)
};

}  // namespace vmcap

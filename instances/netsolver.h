#pragma once
/**
 * @file netsolver.h
 * Import of NetSolver VDC-allocation instances (Bayless, Kodirov, Iqbal, Beschastnikh, Hoos, Hu,
 * "Scalable constraint-based virtual data center allocation", AIJ 2020; data MIT, UBC-NSS) into a
 * cluster snapshot with a network, vlinks and VDCs (`vmcap import netsolver`, docs/format.md
 * "vmcap import netsolver").
 *
 * Inputs (JSON): a physical network `*.pn` = {"Servers": {"s0": [cores, ram, storage, ...]},
 * "PN": [[node, node, bandwidth], ...]} and virtual data centers `*.vn` = {"VMs": {"vm0": [cores,
 * ram, storage]}, "VN": [[vm, vm, bandwidth], ...]}, offered in the order of an instance list.
 *
 * Conversion (netsolver_cluster): every server becomes a host whose cores and RAM are split into
 * NetsolverOptions::numa_nodes equal pNUMA nodes (topology K<n>); its links (all to one switch)
 * are its NIC uplink; every other link is a switch link. Placement (place_netsolver_vdcs): VDC by
 * VDC in offer order, each VM on a host and pNUMA nodes that hold it, every link within its
 * capacity, until the first VDC that does not fit completely (NetSolver's "until first failure").
 *
 * Units: NetSolver RAM is in GB (taken as GiB: NetsolverOptions::ram_mib_per_unit MiB), bandwidth
 * in abstract units (NetsolverOptions::mbps_per_unit Mbps each); storage is not modelled.
 * Layering: this is problem data (instances/); the routing the placer checks links against comes
 * from the caller through LinkShareSource (NetworkRoutesShares in evaluators/network_load.h).
 */
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "instances/problem.h"

namespace vmcap {

/** How to convert and place. Validated by netsolver_cluster (InputError "netsolver: ..."). */
struct NetsolverOptions {
    int numa_nodes = 2;                 ///< pNUMA nodes per server, 1..16 (topology K<n>)
    std::int64_t mbps_per_unit = 1000;  ///< Mbps per NetSolver bandwidth unit, 1..10^6
    Amount ram_mib_per_unit = 1024;     ///< MiB per NetSolver RAM unit (GB, taken as GiB), 1..2^20
    double max_node_fraction = 1.0;     ///< vNUMA rule (vnuma_rule.h VnumaRule), in (0, 1]
    std::int64_t max_vdcs = -1;         ///< stop after this many (>= 1) VDCs are allocated; -1: no limit
    std::int64_t max_migrations = -1;   ///< Constraints::max_migrations; -1: ceil(1% of the VMs)
};

/** One VDC as read from a `.vn` file: VM sizes and the VN edges with positive bandwidth. */
struct NetsolverVdc {
    std::string file;                                ///< path it was read from (messages)
    std::vector<std::string> vm_names;               ///< in natural order of the names (vm2 before vm10)
    std::vector<std::pair<Amount, Amount>> vm_size;  ///< [vm] (cores, RAM in NetSolver units)
    struct Edge {
        int a = 0, b = 0;        ///< indices into vm_names, a != b
        std::int64_t units = 0;  ///< bandwidth in NetSolver units, >= 1
        std::size_t at = 0;      ///< index of the entry in "VN" (messages)
    };
    std::vector<Edge> edges;  ///< VN entries in file order, those of bandwidth 0 dropped
    int dropped_zero = 0;     ///< VN entries of bandwidth 0 (no reservation; not imported)
};

/** What netsolver_cluster found besides the problem. */
struct NetsolverNetworkInfo {
    int merged_reverse_links = 0;  ///< [a, b, c] entries paired with a later [b, a, c]: one full-duplex link each
    int server_links = 0;          ///< PN entries (after pairing) that are NIC uplinks
};

/**
 * The hosts, host types and network of a physical network document `pn` (read from `file`,
 * named in messages). Servers are the keys of "Servers" (hosts in natural name order: s2 before
 * s10); every other node named in "PN" is a switch (in order of first appearance). An entry
 * [a, b, c] followed later by [b, a, c] (the same link listed in both directions, as the FatTree
 * and BCube files do) is one link of capacity c. A server's links must all go to one switch: the
 * host's uplink, its NIC capacity their sum (parallel links are a bonded NIC); hosts of equal
 * (cores, RAM, NIC) share a host type "<cores>c<RAM>g-K<n>" (with "-nic<Mbps>" appended when
 * servers of one size have different NICs). Cores and RAM are split over the pNUMA nodes as
 * evenly as integers allow (the first nodes get the remainder). Resources {"vcpu", "ram_mib"};
 * hosts get rack = uplink = their switch; no flavors or VMs yet.
 *
 * Throws InputError naming `file` and the JSON path or node on: a malformed document (not an
 * object, missing or wrongly typed "Servers" / "PN", an unknown top-level key, an empty server or
 * node name), a server size
 * that is not [cores >= 1, RAM >= 0, ...] integers, a link that is not [string, string, integer
 * >= 1] or joins a node to itself, a node named like a server (s<digits>) that "Servers" does not
 * list, a server without links, two servers linked directly or a server linked to two different
 * switches (server-centric networks such as BCube: their servers forward traffic, which this
 * model's one-uplink hosts cannot; message names the server and both neighbours), servers on
 * switches that cannot reach each other through "PN" (path "PN"; names a switch and server that
 * cannot reach the first server's switch: the network the snapshot loader and NetworkRoutes
 * require), amounts beyond kMaxAmount / kMaxMbps after unit conversion, or invalid options.
 * Control characters in names are shown as \xNN in messages. O(servers log servers + links).
 */
Problem netsolver_cluster(const nlohmann::json& pn, const std::string& file, const NetsolverOptions& options,
                          NetsolverNetworkInfo* info = nullptr);

/**
 * One VDC from a `.vn` document. VM names are the keys of "VMs" (each [cores, RAM, storage...]
 * non-negative integers, cores and RAM not both 0); "VN" entries [vm, vm, bandwidth] name VMs of
 * "VMs", join two different VMs, and have an integer bandwidth >= 0 (0: dropped and counted).
 * Throws InputError naming `file` and the JSON path on anything else, including keys other than
 * "VMs" and "VN" (NetSolver's affinity extensions are not modelled). O(VMs log VMs + edges).
 */
NetsolverVdc parse_netsolver_vn(const nlohmann::json& vn, const std::string& file);

/**
 * The `.vn` paths of an instance list file (one path per non-empty line, in order; lines starting
 * with '#' are comments). A relative path is looked up relative to the list's directory; if no
 * file is there, with its leading components dropped one by one (the bundled lists name
 * "../../../instances/hadoop/hadoop_extra/hadoop_10.1.vn", relative to the authors' run
 * directory, which resolves to "hadoop_extra/hadoop_10.1.vn" beside the list). Throws InputError
 * naming the list and line if the list cannot be read, is empty, or an entry resolves to no
 * regular file (the entry quoted, control characters such as a NUL shown as \xNN).
 * O(lines x path depth) file-system look-ups.
 */
std::vector<std::string> read_netsolver_instance_list(const std::string& path);

/**
 * Link loads the placer must respect, from the caller's routing (NetworkRoutesShares of
 * evaluators/network_load.h adapts NetworkRoutes). Links are full duplex and
 * numbered by direction ("arcs") as there: 2 x link + direction, host uplinks first. Loads and
 * capacities are integers in micro-units of each arc.
 */
class LinkShareSource {
public:
    virtual ~LinkShareSource() = default;
    /** Number of arcs (host uplinks first, two per link). */
    virtual int num_links() const = 0;
    /** Capacity of arc `link` in its micro-units. */
    virtual std::int64_t capacity(int link) const = 0;
    /** Appends (arc, micro-units per Mbps) for every arc a vlink between hosts hx != hy loads
     *  (both of its flows, one each way). */
    virtual void shares(int hx, int hy, std::vector<std::pair<int, std::int64_t>>& out) const = 0;
};

/** Outcome of place_netsolver_vdcs. */
struct NetsolverPlacementStats {
    int offered = 0;              ///< VDCs tried (allocated + the one that failed, if any)
    int allocated = 0;            ///< VDCs placed completely (their VMs are in the snapshot)
    std::string failed_vdc;       ///< id of the first VDC that did not fit ("" if none failed)
    std::string failure;          ///< why: the VM that found no host, e.g. "vm3 (4 cores, 8 GB): no host ..." (control chars as \xNN)
    bool stopped_by_max = false;  ///< stopped by NetsolverOptions::max_vdcs
    int dropped_zero_vlinks = 0;  ///< VN edges of bandwidth 0 in the allocated VDCs (not imported)
};

/**
 * Offers `vdcs` (in order; vdcs[i] gets id "<file stem>#<i+1>", its VMs "<id>/<VM name>") to the
 * hosts of `problem` (from netsolver_cluster) and adds the allocated ones: VMs, flavors (one per
 * distinct (cores, RAM) among the VDCs offered, named "<cores>c<RAM>g", vNUMA by
 * vnuma_topology_for with options.max_node_fraction on the host type with the smallest pNUMA node
 * that can hold them; weight 1 for flavors with >= 2 vNUMA nodes, else for the largest), vlinks
 * (one per VN edge, units x mbps_per_unit Mbps) grouped in problem.vdcs, and constraints.
 *
 * Placer (deterministic): a VDC's VMs are ordered heaviest-bandwidth first, then each next VM is
 * the one with the most bandwidth to those already ordered (ties: more vCPU, name order). The
 * first VM goes to the host with the least free vCPU that could still hold the whole VDC's vCPU
 * (else the host with the most free vCPU); every later VM to the host that adds the least link
 * load (micro-units summed over links: co-location first, then the same switch, ...), ties to the
 * host with the least free vCPU after it (best fit), then the lowest index. A host qualifies if
 * some embedding of the VM's vNUMA graph has room on every pNUMA node it uses (the one leaving the
 * least free vCPU on its nodes is taken, ties lowest node mask) and every link the VM's vlinks to
 * already placed VMs load stays within its capacity. A VDC with a VM no host can take is undone
 * and ends the placement; so does reaching options.max_vdcs.
 *
 * Throws InputError if `vdcs` is empty (no flavor to make), `links` does not match the problem's
 * hosts, or the result fails finalize_problem (a bug). Complexity O(VMs x hosts x (embeddings + peers x route length)).
 */
NetsolverPlacementStats place_netsolver_vdcs(Problem& problem, const std::vector<NetsolverVdc>& vdcs, const LinkShareSource& links,
                                             const NetsolverOptions& options);

/** Attribution of the NetSolver data (MIT, UBC-NSS, AIJ 2020), for Problem::source. */
extern const char* const kNetsolverAttribution;

}  // namespace vmcap

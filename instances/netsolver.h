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
 * are its NIC uplink; every other link is a switch link. The VDCs become arriving VMs with vlinks
 * (netsolver_offer); placement/netsolver_place.h places them VDC by VDC in offer order through
 * the placement seam, until the first VDC that does not fit completely (NetSolver's "until first
 * failure").
 *
 * Units: NetSolver RAM is in GB (taken as GiB: NetsolverOptions::ram_mib_per_unit MiB), bandwidth
 * in abstract units (NetsolverOptions::mbps_per_unit Mbps each); storage is not modelled.
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

/** Outcome of place_netsolver_vdcs (placement/netsolver_place.h). */
struct NetsolverPlacementStats {
    int offered = 0;              ///< VDCs tried (allocated + the one that failed, if any)
    int allocated = 0;            ///< VDCs placed completely (their VMs are in the snapshot)
    std::string failed_vdc;       ///< id of the first VDC that did not fit ("" if none failed)
    std::string failure;          ///< why: the VM that found no host, e.g. "vm3 (4 cores, 8 GB): no host ..." (control chars as \xNN)
    bool stopped_by_max = false;  ///< stopped by NetsolverOptions::max_vdcs
    int dropped_zero_vlinks = 0;  ///< VN edges of bandwidth 0 in the allocated VDCs (not imported)
};

/** The VDCs of an import as arriving VMs, ready for placement (placement/netsolver_place.h). */
struct NetsolverOffer {
    /**
     * The cluster plus: one flavor per distinct (cores, RAM) among all the VDCs, in first-seen
     * order, named "<cores>c<RAM>g", vNUMA by vnuma_topology_for with options.max_node_fraction
     * on the host type with the smallest pNUMA node that can hold it (K1 if none can: its VDC will
     * fail), weight 1 if it has >= 2 vNUMA nodes; one VM per VDC VM, on no host (kUnplaced), id
     * "<file stem>#<i+1>/<VM name>" for vdcs[i], in vm_names order; one vlink per VN edge (units
     * x mbps_per_unit Mbps, Vlink::vdc = i); vdcs = the VDC ids.
     */
    Problem problem;
    std::vector<std::pair<int, int>> vdc_vms;     ///< [i] -> [first, last) of vdcs[i]'s VMs in problem.vms
    std::vector<std::pair<int, int>> vdc_vlinks;  ///< [i] -> [first, last) of its vlinks in problem.vlinks (VN order)
    /** [vm] -> "vm3 (4 cores, 8 GB, vNUMA K2)": the VM as named in its file, for failure messages. */
    std::vector<std::string> vm_text;
};

/**
 * The VDCs `vdcs` offered to `cluster` (from netsolver_cluster, no VMs yet): see NetsolverOffer.
 * Throws InputError if the options are invalid, `vdcs` is empty, the cluster has no network or
 * VMs already, or a VM's RAM or a vlink's bandwidth is too large once converted (naming the file
 * and JSON path). O(VMs + vlinks + flavors x host types x embeddings).
 */
NetsolverOffer netsolver_offer(const Problem& cluster, const std::vector<NetsolverVdc>& vdcs, const NetsolverOptions& options);

/** Attribution of the NetSolver data (MIT, UBC-NSS, AIJ 2020), for Problem::source. */
extern const char* const kNetsolverAttribution;

}  // namespace vmcap

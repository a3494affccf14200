#pragma once
/**
 * @file datacenter_network.h
 * Datacenter networks and Gridiron-style VDC vlinks built over the hosts of a snapshot, shared by
 * `vmcap generate` (instances/generator.h) and `vmcap snapshot` (trace replay, placement/replay.h):
 * the builders fill Problem::network, HostType::nic_mbps, Problem::vdcs and Problem::vlinks (the
 * model of instances/network.h, JSON in docs/format.md "Network and vlinks").
 *
 * Sources (seed 003 digest, ../shared/docs/seed003-digest.md): topologies §2 and §8.2 (T1 Jupiter
 * 4-rack, T3 commercial leaf-spine, T5 trees), the Gridiron workload §3.2-3.4 (a tenant's VMs
 * form a VDC, all-to-all vlinks of bpc x min(cores) Mbps, rolling-overflow cap of 30 VMs) and the
 * test oracles of §7 (items 8 and 9). Units: Mbps (integers), vCPU, MiB. Everything here is pure
 * or modifies only the Problem it is given; thread-safe on distinct problems.
 */
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "instances/problem.h"
#include "instances/trace.h"

namespace vmcap {

/**
 * The shape and capacities of a datacenter network over the hosts' racks (every distinct
 * Host::rack becomes a ToR switch named like the rack, in order of first appearance).
 *  - "leaf-spine": every ToR has one link to each of `spines` spine switches ("spine1", ...);
 *    every two spines are joined by `spine_links` parallel links of agg_uplink_mbps.
 *  - "tree": `racks_per_pod` consecutive ToRs per pod under one aggregation switch ("agg1", ...),
 *    each aggregation switch linked to one core switch ("core").
 *  - "jupiter" (digest §2.2): `racks_per_pod` consecutive ToRs per pod with `mbs_per_pod`
 *    middle blocks ("p1-mb1", ...); every ToR has one link to each middle block of its pod; with
 *    more than one pod, every middle block has one link to each of `spines` spine blocks
 *    ("sb1", ...). One pod of 4 ToRs and one middle block is T1 (Jupiter 4-rack).
 * Tree and jupiter set every host's pod to "p<n>" (n = its ToR's pod, from 1).
 */
struct DatacenterNetworkOptions {
    std::string kind = "leaf-spine";         ///< "leaf-spine", "tree" or "jupiter"
    int spines = 2;                          ///< leaf-spine: spine switches; jupiter: spine blocks (used with > 1 pod); >= 1
    int racks_per_pod = 8;                   ///< tree, jupiter: ToRs per pod; >= 1
    int mbs_per_pod = 1;                     ///< jupiter: middle blocks per pod; >= 1
    int spine_links = 0;                     ///< leaf-spine: parallel links between every two spines; 0..64
    std::int64_t nic_mbps = 25'000;          ///< every host's NIC uplink (HostType::nic_mbps), Mbps
    std::int64_t tor_uplink_mbps = 100'000;  ///< each ToR uplink (to a spine, aggregation switch or middle block), Mbps
    /** Each link of the layer above: tree aggregation-to-core, jupiter middle-block-to-spine-block,
     *  leaf-spine spine-to-spine, Mbps. */
    std::int64_t agg_uplink_mbps = 400'000;
};

/**
 * Replaces `problem`'s network (and clears its vlinks and VDCs) with the network `options`
 * describes over the problem's hosts (see DatacenterNetworkOptions), sets every host type's
 * nic_mbps and clears every Host::uplink (hosts attach to their rack's ToR). Throws InputError
 * "<context>: <what>" (naming the command-line flag) on an unknown kind, a count out of range, a
 * capacity outside 1..kMaxMbps or a host without a rack; the problem is unchanged then.
 * O(hosts + links).
 */
void build_datacenter_network(Problem& problem, const DatacenterNetworkOptions& options, const std::string& context);

/** Uplinks of one ToR under `options`: leaf-spine `spines`, tree 1, jupiter `mbs_per_pod`
 *  (0 for an unknown kind). O(1). */
int tor_uplinks(const DatacenterNetworkOptions& options);

/**
 * The ToR uplink capacity that gives oversubscription `ratio` (ToR downlink : uplink) at the ToR:
 * floor(hosts_per_rack x nic_mbps / (ratio x tor_uplinks(options))) Mbps per uplink (the
 * hosts_per_rack x NIC of a full rack spread over the ToR's uplinks). Throws InputError (naming
 * --oversubscription) unless ratio is finite and > 0, hosts_per_rack >= 1, the kind is known and
 * the result is in 1..kMaxMbps. O(1).
 */
std::int64_t oversubscribed_tor_uplink_mbps(const DatacenterNetworkOptions& options, int hosts_per_rack, double ratio);

/**
 * A named benchmark topology of digest §8.2: host count, rack size and network, plus the host type
 * of the digest's servers where it holds every flavor of the Azure trace (16c112g) and of
 * `vmcap generate` (16c128g).
 *  - "T1" Jupiter 4-rack (§2 table, §7 item 9): 192 hosts = 4 racks x 48, one pod, one middle
 *    block, 40G NIC, one 640G link per ToR (the artifact's single edge; 48 x 40G : 640G = 3:1);
 *    hosts K2 of 30 vCPU and 128 GiB per pNUMA node (the 60-core, 256 GB servers, two sockets).
 *  - "T3" commercial leaf-spine US-Mid2 (§2.1): 800 hosts = 40 racks x 20, 20G NIC (2 x 10G as
 *    one uplink), one 40G link from every ToR to each of 2 spines, 4 parallel 40G spine-spine
 *    links; the gateway switch is left out (no traffic leaves the datacenter in our model). Its
 *    16-core, 32 GB servers cannot hold 8c56g, 8c64g or 16c112g: the host type stays the command's.
 *  - "T5" and "T5-2000" trees (Yuan et al., §2 table): 200 and 2,000 hosts, 20 per rack, 5 and 10
 *    racks per aggregation switch, one core. Capacities are not in the text; chosen: 10G NIC,
 *    100G ToR uplink (2:1 at the ToR), 250G / 500G aggregation uplink (2:1). Their 4- and 16-core
 *    servers cannot hold the largest flavors either: the host type stays the command's.
 */
struct TopologyPreset {
    std::string name;         ///< "T1", "T3", "T5", "T5-2000"
    std::string description;  ///< one line, for --help and the snapshot's source
    int hosts = 0;            ///< host count the preset fixes
    int hosts_per_rack = 0;   ///< rack size the preset fixes
    DatacenterNetworkOptions network;
    /** The digest's server as a host type (parse_topology name and per-pNUMA-node capacity), used
     *  where the command's host flags are not given; empty: the command's host type. */
    std::string host_topology;
    Amount node_vcpu = 0;     ///< vCPU per pNUMA node (with host_topology)
    Amount node_ram_mib = 0;  ///< MiB per pNUMA node (with host_topology)
};

/** All presets, in the order T1, T3, T5, T5-2000. O(1), static storage. */
const std::vector<TopologyPreset>& topology_presets();

/** The preset named `name`; throws InputError listing the names when there is none. O(presets). */
const TopologyPreset& topology_preset(const std::string& name);

/**
 * One VDC of a chopped batch (Gridiron's rolling overflow): its id and its number of VMs.
 */
struct ChoppedVdc {
    std::string id;
    std::int64_t size = 0;
};

/**
 * VDC id of the create at 0-based `position` among the creates of one batch (deployment)
 * `parent` under Gridiron's rolling-overflow cap (digest §3.3 step 2, §3.4 chop_vdcs): the first
 * `cap` creates are in `parent`, the next `cap` in "<parent>__0", then "<parent>__1", ... A batch's
 * creates happen in one 300-s bin, i.e. at one Gridiron tick, where no delete comes between two
 * creates (deletes are processed first), so the alive count of the current VDC reaches the cap
 * exactly every `cap` creates. Throws InputError unless cap >= 1 and position >= 0. O(1).
 */
std::string chopped_vdc_id(const std::string& parent, std::int64_t position, int cap);

/** The VDCs of a batch `parent` of `creates` VMs under `cap`, in order (chopped_vdc_id): "abc"
 *  with 61 creates and cap 30 gives {abc: 30, abc__0: 30, abc__1: 1} (digest §7 item 8). Throws
 *  InputError unless cap >= 1 and creates >= 0. O(creates / cap). */
std::vector<ChoppedVdc> chop_vdc(const std::string& parent, std::int64_t creates, int cap);

/**
 * Gridiron's vlink bandwidth (digest §3.3 step 3; the artifact's int(band_per_core * min_cores)):
 * floor(bpc_mbps x min(cores_a, cores_b)) Mbps, computed in double as the artifact does (exact
 * for integer bpc). 0 means "no vlink". Throws InputError if the result exceeds kMaxMbps or
 * bpc_mbps is negative or not finite. O(1).
 */
std::int64_t gridiron_vlink_mbps(double bpc_mbps, Amount cores_a, Amount cores_b);

/**
 * Appends VDC `id` to problem.vdcs with all-to-all vlinks between `members` (indices into
 * problem.vms; pairs i < j in the order given) of gridiron_vlink_mbps(bpc_mbps, vCPU, vCPU)
 * each; a 0-Mbps pair gets no vlink, and a VDC that would have no vlink is not added. Returns the
 * number of vlinks added. Throws InputError as gridiron_vlink_mbps, or on a member out of range
 * (problem unchanged). O(members^2).
 */
std::size_t add_all_to_all_vdc(Problem& problem, const std::string& id, const std::vector<int>& members, double bpc_mbps);

/** What add_trace_vdcs built. */
struct TraceVdcStats {
    std::int64_t batches = 0;          ///< tenant batches with at least one VM in the snapshot
    std::int64_t chopped_batches = 0;  ///< of those, batches of more than `cap` VMs in the trace (split)
    std::int64_t vdcs = 0;             ///< VDCs added (each with at least one vlink)
    std::int64_t vlinks = 0;           ///< vlinks added
    std::int64_t total_mbps = 0;       ///< their bandwidth, Mbps
    std::int64_t largest_vdc = 0;      ///< most snapshot VMs in one VDC
};

/**
 * Gridiron VDCs of a replayed snapshot (`vmcap snapshot --bpc`): every tenant batch of `trace`
 * (TraceVm::batch, identity (copy, batch)) is a deployment named trace_batch_name, chopped by
 * chopped_vdc_id over all its VMs in trace order (the workload's membership, fixed before any
 * sampling or placement, as Gridiron chops before scheduling); the VMs of each chopped VDC that
 * are in the snapshot (problem.vms[i] is trace[vm_trace_index[i]], ReplayStats::vm_trace_index)
 * are linked all-to-all by add_all_to_all_vdc. VDCs are added in order of their first snapshot
 * VM. Existing vlinks and VDCs are kept. Call it on a problem with a network (the loader refuses
 * vlinks without one).
 *
 * Throws InputError if cap < 1, bpc_mbps is negative or not finite, vm_trace_index does not have
 * one in-range index per VM, or a snapshot VM has no batch (batch < 0: a trace without batches,
 * e.g. Huawei-East-1), or as gridiron_vlink_mbps. O(trace + sum over VDCs of members^2).
 */
TraceVdcStats add_trace_vdcs(Problem& problem, const std::vector<TraceVm>& trace, const std::vector<std::size_t>& vm_trace_index,
                             double bpc_mbps, int cap);

}  // namespace vmcap

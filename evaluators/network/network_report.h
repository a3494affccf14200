#pragma once
/**
 * @file network_report.h
 * The network's figures for one placement of the VMs, from scratch: link loads (ECMP, full
 * duplex, evaluators/network/network_load.h) ranked by utilisation, the link directions over capacity,
 * utilisation per layer of links, and the vlink bandwidth that crosses racks and pods. One
 * function for every report: `vmcap capacity` shows it for the snapshot, `vmcap plan` and
 * `vmcap validate` for the snapshot and the plan's final placement (optimizer/plan/plan.h,
 * network_figures).
 */
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "evaluators/network/network_load.h"
#include "instances/problem.h"

namespace vmcap {

/** Link loads of one placement and what they mean. Units: Mbps, percent of capacity. */
struct NetworkReport {
    std::size_t links = 0;      ///< links of the network (each has two directions, arcs)
    std::size_t vlinks = 0;     ///< vlinks of the snapshot
    std::size_t in_vdcs = 0;    ///< vlinks that belong to a VDC
    std::size_t same_host = 0;  ///< vlinks whose two VMs share a host (they load no link)
    /** One link direction (arc): its index in NetworkRoutes, name, load and capacity. */
    struct Row {
        int arc = -1;
        std::string name;
        double load_mbps = 0, capacity_mbps = 0;
    };
    std::vector<Row> by_utilisation;  ///< every loaded link direction, highest load / capacity first (exact), then arc index
    std::vector<Row> over;            ///< link directions above capacity, in the same order
    /** Utilisation of one layer of links, over both directions of each: host NIC uplinks, then
     *  switch links by the levels of their ends (switch_levels). `links` counts links, `over`
     *  directions; p99 by nearest rank, idle links included. */
    struct Layer {
        std::string name;
        std::size_t links = 0, over = 0;
        double max_pct = 0, p99_pct = 0, mean_pct = 0;
    };
    std::vector<Layer> layers;
    double max_pct = 0;                ///< highest utilisation of any link direction (100 x load / capacity)
    std::int64_t cross_rack_mbps = 0;  ///< bandwidth of vlinks whose VMs sit under different ToR switches
    std::int64_t cross_pod_mbps = 0;   ///< bandwidth of vlinks whose VMs sit in different pods (hosts with a pod)
};

/**
 * The report for `problem`'s VMs on hosts `host` (host[v] for VM v; the snapshot's, or a plan's
 * final placement) over `routes` (NetworkRoutes of problem.network). O(vlinks x route length +
 * links log links). Pure; thread-safe.
 */
NetworkReport network_report(const Problem& problem, const NetworkRoutes& routes, std::span<const int> host);

}  // namespace vmcap

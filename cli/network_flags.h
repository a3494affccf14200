#pragma once
/**
 * @file network_flags.h
 * The datacenter-network flags shared by `vmcap generate` and `vmcap snapshot` (--network,
 * --topology-preset, --spines, --mbs-per-pod, --spine-links, --nic-mbps, --tor-uplink-mbps,
 * --agg-uplink-mbps, --oversubscription), read into instances/datacenter_network.h options.
 * Not part of the public API.
 */
#include <string>

#include <boost/program_options.hpp>

#include "instances/datacenter_network.h"

namespace vmcap::cli {

/** Adds the network flags to `desc` (defaults: 2 spines, 1 middle block per pod, no spine-spine
 *  links, 25G NIC, 100G ToR uplinks, 400G aggregation uplinks). */
void add_network_flags(boost::program_options::options_description& desc);

/** The network a command builds, from its flags. */
struct NetworkChoice {
    bool present = false;                    ///< --network or --topology-preset given
    std::string label;                       ///< "leaf-spine", or "T1 (jupiter)" with a preset
    DatacenterNetworkOptions options;        ///< racks_per_pod = the command's --racks-per-pod (or the preset's)
    const TopologyPreset* preset = nullptr;  ///< the preset, or null
};

/**
 * Reads the network flags of `vm` (parsed with add_network_flags and the command's own "hosts",
 * "hosts-per-rack" and "racks-per-pod", whose values are `hosts`, `hosts_per_rack` and
 * `racks_per_pod`). With --topology-preset, writes the preset's host count, rack size and racks
 * per pod into those three and its network into the result; a flag the preset fixes given
 * explicitly with another value (or --oversubscription) is a UsageError. --oversubscription R
 * (exclusive with --tor-uplink-mbps) sets the ToR uplink by oversubscribed_tor_uplink_mbps.
 * Network flags without --network or a preset are a UsageError. `hosts` may be 0 (not given).
 */
NetworkChoice read_network_flags(const boost::program_options::variables_map& vm, int& hosts, int& hosts_per_rack, int& racks_per_pod);

}  // namespace vmcap::cli

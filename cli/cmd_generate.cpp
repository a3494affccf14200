// Subcommand generate: a random fragmented snapshot.
#include <cmath>
#include <cstdio>

#include <boost/program_options.hpp>

#include "instances/generator.h"
#include "instances/snapshot_io.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "cli/network_flags.h"

namespace vmcap::cli {

using namespace detail;

int cmd_generate(const Args& args) {
    po::options_description desc("vmcap generate options");
    GenerateOptions o;
    std::string out;
    double node_ram_gib = 64;
    std::string seed_text;
    NetworkOptions no;
    // clang-format off
    desc.add_options()("help,h", "show this help")
        ("hosts", po::value(&o.hosts), "number of hosts (required unless --topology-preset)")
        ("vms", po::value(&o.vms)->required(), "number of VMs (fewer if the hosts fill up)")
        ("host-type", po::value(&o.host_topology)->default_value("CQ3"), "pNUMA topology: K<n>, K<m>,<n>, C4, CQ3, Q33, Q3, 2xK<n>")
        ("node-vcpu", po::value(&o.node_vcpu)->default_value(16), "vCPUs per pNUMA node")
        ("node-ram-gib", po::value(&node_ram_gib)->default_value(64), "RAM per pNUMA node, GiB")
        ("churn", po::value(&o.churn)->default_value(0.3), "extra VMs placed then deleted, as a fraction of --vms (fragments free space)")
        ("budget-fraction", po::value(&o.migration_budget)->default_value(0.01), "max_migrations = ceil(fraction x VMs)")
        ("seed", po::value(&seed_text)->default_value("1"), "random seed (unsigned 64-bit integer)")
        ("hosts-per-rack", po::value(&o.hosts_per_rack)->default_value(20), "hosts per rack (hosts[].rack; the ToR with --network)")
        ("racks-per-pod", po::value(&no.racks_per_pod)->default_value(8), "tree, jupiter: racks per pod (one aggregation switch or the pod's middle blocks)")
        ("vdc-size", po::value(&no.vdc_size)->default_value(0), "with --network: VMs per VDC (2..30, all-to-all vlinks; 0: no vlinks)")
        ("bpc", po::value(&no.bpc_mbps)->default_value(2), "vlink bandwidth per vCPU, Mbps: bpc x min(vCPU of the two VMs)")
        ("out", po::value(&out)->required(), "snapshot file to write (atomically)");
    // clang-format on
    add_network_flags(desc);
    po::variables_map vm;
    if (parse(args, desc, vm,
              "usage: vmcap generate --hosts N --vms M [--host-type T] [--seed S] --out C\n"
              "Writes a random fragmented cluster snapshot (flavor catalog 1c2g ... 16c128g, VMs at random placements)."))
        return 0;
    o.seed = parse_seed(seed_text);
    const NetworkChoice net = read_network_flags(vm, o.hosts, o.hosts_per_rack, no.racks_per_pod);
    if (!vm.count("hosts") && !net.preset) throw UsageError("--hosts is required (or --topology-preset)");
    if (net.preset && !net.preset->host_topology.empty()) {  // the preset's servers, unless a host flag is given
        if (vm["host-type"].defaulted()) o.host_topology = net.preset->host_topology;
        if (vm["node-vcpu"].defaulted()) o.node_vcpu = net.preset->node_vcpu;
        if (vm["node-ram-gib"].defaulted()) node_ram_gib = static_cast<double>(net.preset->node_ram_mib) / 1024.0;
    }
    if (o.node_vcpu < 1 || !(node_ram_gib > 0)) throw UsageError("--node-vcpu and --node-ram-gib must be > 0");
    if (!(o.migration_budget >= 0)) throw UsageError("--budget-fraction must be >= 0");
    o.node_ram_mib = static_cast<Amount>(std::llround(node_ram_gib * 1024.0));
    check_output_path(out);
    if (o.hosts_per_rack < 1) throw UsageError("--hosts-per-rack must be >= 1");
    if (!net.present && !vm["vdc-size"].defaulted()) throw UsageError("--vdc-size needs --network or --topology-preset");
    Problem p = generate_cluster(o);
    if (net.present) {
        static_cast<DatacenterNetworkOptions&>(no) = net.options;  // racks_per_pod included
        no.seed = o.seed;
        add_network(p, no);
        // Through the loader's own checks, as any snapshot with a network.
        p = parse_snapshot(nlohmann::json::parse(snapshot_to_json(p).dump()), out);
    }
    write_file_atomic(out, format_json_lines(snapshot_to_json(p)));
    std::printf("generated %s: %zu hosts (%s), %zu VMs, budget %lld migrations", out.c_str(), p.hosts.size(), p.host_types[0].name.c_str(),
                p.vms.size(), static_cast<long long>(p.constraints.max_migrations));
    if (p.network.present())
        std::printf("; %s network of %zu switches and %zu links, %zu VDCs with %zu vlinks", net.label.c_str(), p.network.switches.size(),
                    p.network.links.size(), p.vdcs.size(), p.vlinks.size());
    std::printf("\n");
    return 0;
}

}  // namespace vmcap::cli

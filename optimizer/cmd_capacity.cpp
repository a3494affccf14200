// Subcommands eval and capacity.
#include <cstdio>
#include <iostream>

#include <boost/program_options.hpp>

#include "evaluators/capacity_model.h"
#include "evaluators/vmcap.h"
#include "instances/snapshot_io.h"
#include "optimizer/cli.h"
#include "optimizer/cli_util.h"
#include "optimizer/plan.h"

namespace po = boost::program_options;

namespace vmcap::cli {

using namespace detail;

int cmd_eval(const Args& args) {
    po::options_description desc("vmcap eval options");
    std::string host, guest, b;
    desc.add_options()("help,h", "show this help")
        ("host", po::value(&host)->required(), "pNUMA topology: K<n>, K<m>,<n>, C4, CQ3, Q33, Q3, 2xK<n>")
        ("guest", po::value(&guest)->required(), "vNUMA topology: K1, K2, K3, C4, K4, K<k>, ...")
        ("b", po::value(&b)->required(), "capacity vector b1,...,bn: how many more vNUMA nodes each pNUMA node can hold");
    po::variables_map vm;
    if (parse(args, desc, vm, "usage: vmcap eval --host CQ3 --guest K2 --b 3,1,4,1,5,9,2,6\nPrints VMCAP(host, guest, b) as a bare integer.")) return 0;
    Topology h, g;
    try {
        h = parse_topology(host);
        g = parse_topology(guest);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    const auto bv = parse_counts(b, "--b");
    if (static_cast<int>(bv.size()) != h.size())
        throw UsageError("--b has " + std::to_string(bv.size()) + " values; host " + h.name + " has " + std::to_string(h.size()) + " pNUMA nodes");
    if (g.size() > kMaxVNuma) throw UsageError("guest " + g.name + " has more than " + std::to_string(kMaxVNuma) + " vNUMA nodes");
    const VmcapEvaluator ev(h, g);
    std::cout << ev(bv.data()) << "\n";
    return 0;
}

int cmd_capacity(const Args& args) {
    po::options_description desc("vmcap capacity options");
    std::string cluster, format;
    desc.add_options()("help,h", "show this help")
        ("cluster", po::value(&cluster), "cluster snapshot JSON (default: the bundled example)")
        ("format", po::value(&format)->default_value("table"), "table or json");
    po::variables_map vm;
    if (parse(args, desc, vm, "usage: vmcap capacity [--cluster C] [--format table|json]\nPer-flavor capacity: how many more VMs of each flavor fit.")) return 0;
    if (format != "table" && format != "json") throw UsageError("--format must be table or json");
    if (cluster.empty()) cluster = default_cluster_path();
    const Problem p = load_snapshot(cluster);
    const CapacityModel model(p);
    const auto cap = capacity_by_flavor(model, compute_node_usage(p));
    double objective = 0.0;
    for (std::size_t f = 0; f < p.flavors.size(); ++f)
        if (p.flavors[f].is_target()) objective += p.flavors[f].weight * static_cast<double>(cap[f]);
    if (format == "json") {
        nlohmann::ordered_json doc;
        doc["cluster"] = cluster;
        doc["hosts"] = p.hosts.size();
        doc["vms"] = p.vms.size();
        nlohmann::ordered_json fl = nlohmann::ordered_json::array();
        for (std::size_t f = 0; f < p.flavors.size(); ++f) {
            nlohmann::ordered_json o;
            o["flavor"] = p.flavors[f].name;
            o["vcpu"] = p.flavors[f].demand[kVcpu];
            o["ram_gib"] = static_cast<double>(p.flavors[f].demand[kRamMib]) / 1024.0;
            o["vnuma"] = p.flavors[f].vnuma.name;
            o["weight"] = p.flavors[f].weight;
            o["capacity"] = cap[f];
            fl.push_back(o);
        }
        doc["flavors"] = fl;
        doc["objective"] = objective;
        std::cout << doc.dump(1) << "\n";
        return 0;
    }
    std::printf("%s: %zu hosts, %zu VMs\n", cluster.c_str(), p.hosts.size(), p.vms.size());
    std::printf("%-14s %6s %8s %-9s %7s %10s\n", "flavor", "vCPU", "RAM_GiB", "vNUMA", "weight", "capacity");
    for (std::size_t f = 0; f < p.flavors.size(); ++f)
        std::printf("%-14s %6lld %8s %-9s %7s %10lld\n", p.flavors[f].name.c_str(), static_cast<long long>(p.flavors[f].demand[kVcpu]),
                    fmt_gib(p.flavors[f].demand[kRamMib]).c_str(), p.flavors[f].vnuma.name.c_str(), fmt_num(p.flavors[f].weight).c_str(),
                    static_cast<long long>(cap[f]));
    std::printf("weighted capacity (objective): %s\n", fmt_num(objective).c_str());
    return 0;
}

}  // namespace vmcap::cli

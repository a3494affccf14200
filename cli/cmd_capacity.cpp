// Subcommands eval and capacity.
#include <chrono>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "evaluators/objective/bandwidth_capacity.h"
#include "evaluators/state/capacity_model.h"
#include "evaluators/state/cluster_capacity.h"
#include "evaluators/closed_forms/capacity_vectors.h"
#include "evaluators/network/network_load.h"
#include "evaluators/network/network_report.h"
#include "evaluators/closed_forms/placements.h"
#include "evaluators/closed_forms/vmcap.h"
#include "evaluators/closed_forms/vmcap_batch.h"
#include "instances/snapshot_io.h"
#include "cli/cli.h"
#include "cli/cli_util.h"

namespace po = boost::program_options;

namespace vmcap::cli {

using namespace detail;

int cmd_eval(const Args& args) {
    po::options_description desc("vmcap eval options");
    std::string host, guest, b;
    // clang-format off
    desc.add_options()("help,h", "show this help")
        ("host", po::value(&host)->required(), "pNUMA topology: K<n>, K<m>,<n>, C4, CQ3, Q33, Q3, 2xK<n>")
        ("guest", po::value(&guest)->required(), "vNUMA topology: K1, K2, K3, C4, K4, K<k>, ...")
        ("b", po::value(&b)->required(), "capacity vector b1,...,bn: how many more vNUMA nodes each pNUMA node can hold")
        ("placements", "after the count, print an optimal set of placements, one line 'n1,...,nk xC' each (see above)");
    // clang-format on
    add_model_options(desc);
    po::variables_map vm;
    if (parse(args, desc, vm,
              "usage: vmcap eval --host CQ3 --guest K2 --b 3,1,4,1,5,9,2,6 [--placements]\n"
              "Prints VMCAP(host, guest, b) as a bare integer: how many more VMs of the guest topology fit.\n"
              "With --placements, then one line per distinct placement, e.g. '1,4 x3': the pNUMA nodes\n"
              "(1-based, labelings of docs/format.md) of vNUMA nodes 1, 2, ... of one VM, and how many VMs\n"
              "get that placement. The multiplicities sum to the count and use pNUMA node i at most b_i\n"
              "times; lines are sorted by node set; none are printed when the count is 0."))
        return 0;
    Topology h, g;
    try {
        h = parse_topology(host);
        g = parse_topology(guest);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    const auto bv = parse_counts(b, "--b");
    if (static_cast<int>(bv.size()) != h.size())
        throw UsageError("--b has " + std::to_string(bv.size()) + " values; host " + h.name + " has " + std::to_string(h.size()) +
                         " pNUMA nodes");
    if (g.size() > kMaxVNuma) throw UsageError("guest " + g.name + " has more than " + std::to_string(kMaxVNuma) + " vNUMA nodes");
    const VmcapEvaluator ev(h, g, ExactOptions{exact_work_limit(vm), "host " + h.name + " with guest " + g.name});
    std::cout << ev(bv.data()) << "\n";
    if (vm.count("placements"))
        for (const PlacementCount& pc : vmcap_placements(ev, bv.data())) std::cout << format_placement(pc, g.size()) << "\n";
    return 0;
}

namespace {

/** 100 x (bound - capacity) / bound, 0 when the bound is 0 (then the capacity is 0 too). */
double loss_pct(Count cap, Count bound) {
    return bound > 0 ? 100.0 * static_cast<double>(bound - cap) / static_cast<double>(bound) : 0.0;
}

/** Adds capacity, bound and loss of one flavor over a set of hosts to `o`. */
void add_summary(nlohmann::ordered_json& o, Count cap, Count bound) {
    o["capacity"] = cap;
    o["topology_free_bound"] = bound;
    o["topology_loss"] = bound - cap;
    o["topology_loss_pct"] = loss_pct(cap, bound);
}

}  // namespace

namespace {

/** The network report of the snapshot's placement; a routing error names the file. */
NetworkReport snapshot_network_report(const Problem& p, const std::string& file) {
    const NetworkRoutes routes = [&] {
        try {
            return NetworkRoutes(p);
        } catch (const InputError& e) {
            throw InputError(file + ": " + e.what());
        }
    }();
    std::vector<int> host(p.vms.size());
    for (std::size_t v = 0; v < p.vms.size(); ++v) host[v] = p.vms[v].host;
    return network_report(p, routes, host);
}

/** What `vmcap capacity` reports: per-flavor capacity, topology-free bound and bandwidth-limited
 *  capacity of the snapshot, per host (bd) and in total. */
struct CapacityReport {
    std::string cluster, by;
    const Problem* problem = nullptr;
    ClusterCapacity bd;
    int F = 0;
    std::size_t H = 0;
    std::vector<Count> cap, bound;
    double objective = 0.0, objective_bound = 0.0;
    std::vector<Count> bw_cap;  ///< [f]: bandwidth-limited capacity, -1 where VMCAP alone applies
    double bw_objective = 0.0;
    bool has_bw = false;
    std::map<std::string, std::vector<std::size_t>> racks;  ///< with --by rack: rack name -> hosts ("(none)" for no rack)
    /** Capacity and bound of flavor f over `hosts`. */
    std::pair<Count, Count> rack_totals(const std::vector<std::size_t>& hosts, int f) const {
        Count c = 0, bo = 0;
        for (std::size_t h : hosts) {
            c += bd.cap[h * F + f];
            bo += bd.bound[h * F + f];
        }
        return {c, bo};
    }
};

/** The report's figures for `model`'s snapshot (`cluster` names it), broken down `by`. */
CapacityReport capacity_report(const CapacityModel& model, const std::string& cluster, const std::string& by) {
    const Problem& p = model.problem();
    CapacityReport r;
    r.cluster = cluster;
    r.by = by;
    r.problem = &p;
    r.bd = cluster_capacity(model, compute_node_usage(p));
    const ClusterCapacity& bd = r.bd;
    const int F = r.F = bd.F;
    const std::size_t H = r.H = p.hosts.size();

    std::vector<Count>&cap = r.cap, &bound = r.bound;
    cap.assign(F, 0);
    bound.assign(F, 0);
    for (std::size_t h = 0; h < H; ++h)
        for (int f = 0; f < F; ++f) {
            cap[f] += bd.cap[h * F + f];
            bound[f] += bd.bound[h * F + f];
        }
    double &objective = r.objective, &objective_bound = r.objective_bound;
    for (int f = 0; f < F; ++f)
        if (p.flavors[f].is_target()) {
            objective += p.flavors[f].weight * static_cast<double>(cap[f]);
            objective_bound += p.flavors[f].weight * static_cast<double>(bound[f]);
        }

    // Bandwidth-limited capacity (evaluators/objective/bandwidth_capacity.h) of the target flavors with a
    // hose bandwidth, when the snapshot has a network: -1 where VMCAP alone applies.
    std::vector<Count>& bw_cap = r.bw_cap;
    bw_cap.assign(F, -1);
    double& bw_objective = r.bw_objective;
    bw_objective = objective;
    if (const BandwidthCapacityTerm* b = model.find<BandwidthCapacityTerm>()) {
        std::vector<int> host(p.vms.size());
        std::vector<NodeMask> mask(p.vms.size());
        for (std::size_t v = 0; v < p.vms.size(); ++v) {
            host[v] = p.vms[v].host;
            mask[v] = node_mask(p.vms[v].pnuma.data(), p.flavors[p.vms[v].flavor].num_vnuma());
        }
        const auto capped = b->capped_totals(PlacementView{host, mask});
        for (int j = 0; j < model.num_targets(); ++j)
            if (capped[j] >= 0) {
                const int f = model.target_flavor(j);
                bw_cap[f] = capped[j];
                bw_objective -= p.flavors[f].weight * static_cast<double>(cap[f] - capped[j]);
            }
    }
    r.has_bw = bw_objective != objective || std::any_of(bw_cap.begin(), bw_cap.end(), [](Count c) { return c >= 0; });

    // Racks in name order; hosts without a rack under "(none)".
    if (by == "rack")
        for (std::size_t h = 0; h < H; ++h) r.racks[p.hosts[h].rack.empty() ? "(none)" : p.hosts[h].rack].push_back(h);
    return r;
}

/** The network section of the JSON report. */
nlohmann::ordered_json network_json(const NetworkReport& nr) {
    nlohmann::ordered_json n;
    n["links"] = nr.links;
    n["vlinks"] = nr.vlinks;
    n["vlinks_in_vdcs"] = nr.in_vdcs;
    n["vlinks_within_a_host"] = nr.same_host;
    auto rows = [](const std::vector<NetworkReport::Row>& v) {
        nlohmann::ordered_json a = nlohmann::ordered_json::array();
        for (const auto& r : v) a.push_back({{"link", r.name}, {"load_mbps", r.load_mbps}, {"capacity_mbps", r.capacity_mbps}});
        return a;
    };
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const auto& l : nr.layers)
        layers.push_back({{"layer", l.name},
                          {"links", l.links},
                          {"max_utilisation_pct", l.max_pct},
                          {"p99_utilisation_pct", l.p99_pct},
                          {"mean_utilisation_pct", l.mean_pct},
                          {"over_capacity", l.over}});
    n["layers"] = layers;
    n["over_capacity"] = rows(nr.over);
    n["loaded_links"] = rows(nr.by_utilisation);
    return n;
}

/** `vmcap capacity --format json`. */
void print_capacity_json(const CapacityReport& r) {
    const Problem& p = *r.problem;
    const int F = r.F;
    const std::size_t H = r.H;
    const ClusterCapacity& bd = r.bd;
    const std::string& cluster = r.cluster;
    const std::string& by = r.by;
    const auto &cap = r.cap, &bound = r.bound, &bw_cap = r.bw_cap;
    const double objective = r.objective, objective_bound = r.objective_bound, bw_objective = r.bw_objective;
    const bool has_bw = r.has_bw;
    const auto& racks = r.racks;
    nlohmann::ordered_json doc;
    doc["cluster"] = cluster;
    doc["hosts"] = H;
    doc["vms"] = p.vms.size();
    doc["by"] = by;
    nlohmann::ordered_json fl = nlohmann::ordered_json::array();
    for (int f = 0; f < F; ++f) {
        nlohmann::ordered_json o;
        o["flavor"] = p.flavors[f].name;
        o["vcpu"] = p.flavors[f].demand[kVcpu];
        o["ram_gib"] = static_cast<double>(p.flavors[f].demand[kRamMib]) / 1024.0;
        o["vnuma"] = p.flavors[f].vnuma.name;
        o["weight"] = p.flavors[f].weight;
        add_summary(o, cap[f], bound[f]);
        if (p.flavors[f].bandwidth_mbps > 0) o["bandwidth_mbps"] = p.flavors[f].bandwidth_mbps;
        if (bw_cap[f] >= 0) o["bandwidth_limited_capacity"] = bw_cap[f];
        fl.push_back(o);
    }
    doc["flavors"] = fl;
    doc["objective"] = objective;
    if (has_bw) doc["objective_bandwidth_limited"] = bw_objective;
    doc["objective_topology_free_bound"] = objective_bound;
    if (p.network.present()) doc["network"] = network_json(snapshot_network_report(p, r.cluster));
    if (by == "rack") {
        nlohmann::ordered_json rs = nlohmann::ordered_json::array();
        for (const auto& [name, hosts] : racks) {
            nlohmann::ordered_json rj;
            rj["rack"] = name;
            rj["hosts"] = hosts.size();
            nlohmann::ordered_json rf = nlohmann::ordered_json::array();
            for (int f = 0; f < F; ++f) {
                const auto [c, bo] = r.rack_totals(hosts, f);
                nlohmann::ordered_json o;
                o["flavor"] = p.flavors[f].name;
                add_summary(o, c, bo);
                rf.push_back(o);
            }
            rj["flavors"] = rf;
            rs.push_back(rj);
        }
        doc["by_rack"] = rs;
    }
    if (by == "host") {
        nlohmann::ordered_json hs = nlohmann::ordered_json::array();
        for (std::size_t h = 0; h < H; ++h) {
            nlohmann::ordered_json o, c, bo;
            o["host"] = p.hosts[h].id;
            o["rack"] = p.hosts[h].rack;
            o["type"] = p.host_type_of(static_cast<int>(h)).name;
            for (int f = 0; f < F; ++f) {
                c[p.flavors[f].name] = bd.cap[h * F + f];
                bo[p.flavors[f].name] = bd.bound[h * F + f];
            }
            o["capacity"] = c;
            o["topology_free_bound"] = bo;
            hs.push_back(o);
        }
        doc["by_host"] = hs;
    }
    std::cout << doc.dump(1) << "\n";
}

/** The per-host table (--by host). */
void print_host_table(const CapacityReport& r) {
    const Problem& p = *r.problem;
    const int F = r.F;
    const std::size_t H = r.H;
    const ClusterCapacity& bd = r.bd;
    std::size_t wid = 6, wrack = 4, wtype = 4;
    for (const Host& h : p.hosts) {
        wid = std::max(wid, h.id.size());
        wrack = std::max(wrack, h.rack.size());
    }
    for (const HostType& t : p.host_types) wtype = std::max(wtype, t.name.size());
    std::printf("\ncapacity per host:\n%-*s %-*s %-*s", static_cast<int>(wid), "host", static_cast<int>(wrack), "rack",
                static_cast<int>(wtype), "type");
    std::vector<int> wf(F);
    for (int f = 0; f < F; ++f) {
        wf[f] = static_cast<int>(std::max<std::size_t>(p.flavors[f].name.size(), 6));
        std::printf(" %*s", wf[f], p.flavors[f].name.c_str());
    }
    std::printf("\n");
    for (std::size_t h = 0; h < H; ++h) {
        std::printf("%-*s %-*s %-*s", static_cast<int>(wid), p.hosts[h].id.c_str(), static_cast<int>(wrack), p.hosts[h].rack.c_str(),
                    static_cast<int>(wtype), p.host_type_of(static_cast<int>(h)).name.c_str());
        for (int f = 0; f < F; ++f) std::printf(" %*lld", wf[f], static_cast<long long>(bd.cap[h * F + f]));
        std::printf("\n");
    }
}

/** The per-rack table (--by rack). */
void print_rack_table(const CapacityReport& r) {
    const Problem& p = *r.problem;
    const int F = r.F;
    std::size_t wr = 4;
    for (const auto& r : r.racks) wr = std::max(wr, r.first.size());
    std::printf("\ncapacity per rack:\n%-*s %6s %-14s %10s %10s %8s %6s\n", static_cast<int>(wr), "rack", "hosts", "flavor", "capacity",
                "bound", "lost", "lost%");
    for (const auto& [name, hosts] : r.racks)
        for (int f = 0; f < F; ++f) {
            const auto [c, bo] = r.rack_totals(hosts, f);
            std::printf("%-*s %6zu %-14s %10lld %10lld %8lld %5.1f%%\n", static_cast<int>(wr), name.c_str(), hosts.size(),
                        p.flavors[f].name.c_str(), static_cast<long long>(c), static_cast<long long>(bo), static_cast<long long>(bo - c),
                        loss_pct(c, bo));
        }
}

/** The network section of the table report: layers and the most utilised link directions. */
void print_network_table(const NetworkReport& nr) {
    std::printf(
        "\nnetwork: %zu full-duplex links (host uplinks included), %zu vlinks (%zu in VDCs, %zu within one host); ECMP loads "
        "per direction\n",
        nr.links, nr.vlinks, nr.in_vdcs, nr.same_host);
    std::printf("  %-24s %7s %8s %8s %8s %6s\n", "layer", "links", "max%", "p99%", "mean%", "over");  // over: directions
    for (const auto& l : nr.layers)
        std::printf("  %-24s %7zu %7.1f%% %7.1f%% %7.1f%% %6zu\n", l.name.c_str(), l.links, l.max_pct, l.p99_pct, l.mean_pct, l.over);
    std::printf("most utilised link directions:\n");
    const std::size_t show = std::min<std::size_t>(nr.by_utilisation.size(), 5);
    for (std::size_t i = 0; i < show; ++i) {
        const auto& r = nr.by_utilisation[i];
        std::printf("  %-44s %12.3f / %10.0f Mbps  %6.1f%%\n", r.name.c_str(), r.load_mbps, r.capacity_mbps,
                    100.0 * r.load_mbps / r.capacity_mbps);
    }
    if (nr.by_utilisation.size() > show)
        std::printf("  ... %zu more loaded link directions (--format json lists all)\n", nr.by_utilisation.size() - show);
    std::printf("link directions over capacity: %zu\n", nr.over.size());
}

/** `vmcap capacity --format table`. */
void print_capacity_table(const CapacityReport& r) {
    const Problem& p = *r.problem;
    const int F = r.F;
    const auto &cap = r.cap, &bound = r.bound, &bw_cap = r.bw_cap;
    std::printf("%s: %zu hosts, %zu VMs\n", r.cluster.c_str(), r.H, p.vms.size());
    if (r.by == "host") print_host_table(r);
    if (r.by == "rack") print_rack_table(r);
    if (r.by != "cluster") std::printf("\ncluster:\n");
    std::printf("%-14s %6s %8s %-9s %7s %10s %10s %8s %6s\n", "flavor", "vCPU", "RAM_GiB", "vNUMA", "weight", "capacity", "bound", "lost",
                "lost%");
    for (int f = 0; f < F; ++f)
        std::printf("%-14s %6lld %8s %-9s %7s %10lld %10lld %8lld %5.1f%%\n", p.flavors[f].name.c_str(),
                    static_cast<long long>(p.flavors[f].demand[kVcpu]), fmt_gib(p.flavors[f].demand[kRamMib]).c_str(),
                    p.flavors[f].vnuma.name.c_str(), fmt_num(p.flavors[f].weight).c_str(), static_cast<long long>(cap[f]),
                    static_cast<long long>(bound[f]), static_cast<long long>(bound[f] - cap[f]), loss_pct(cap[f], bound[f]));
    std::printf("weighted capacity (objective): %s (topology-free bound %s)\n", fmt_num(r.objective).c_str(),
                fmt_num(r.objective_bound).c_str());
    std::printf("bound = sum over hosts of floor(sum_i b_i / k): the capacity if any k pNUMA nodes could host a k-vNUMA VM\n");
    if (r.has_bw) {
        std::printf("\nbandwidth-limited capacity (hose bandwidth per VM; host NIC, ToR and pod uplinks, docs/format.md):\n");
        std::printf("%-14s %10s %10s %10s\n", "flavor", "Mbps/VM", "VMCAP", "bw-limited");
        for (int f = 0; f < F; ++f)
            if (bw_cap[f] >= 0)
                std::printf("%-14s %10lld %10lld %10lld\n", p.flavors[f].name.c_str(), static_cast<long long>(p.flavors[f].bandwidth_mbps),
                            static_cast<long long>(cap[f]), static_cast<long long>(bw_cap[f]));
        std::printf("weighted capacity with bandwidth limits: %s\n", fmt_num(r.bw_objective).c_str());
    }
    if (p.network.present()) print_network_table(snapshot_network_report(p, r.cluster));
}

}  // namespace

int cmd_capacity(const Args& args) {
    const auto start = std::chrono::steady_clock::now();
    po::options_description desc("vmcap capacity options");
    std::string cluster, format, by;
    // clang-format off
    desc.add_options()("help,h", "show this help")
        ("cluster", po::value(&cluster), "cluster snapshot JSON (default: the bundled example)")
        ("by", po::value(&by)->default_value("cluster"), "breakdown: host, rack or cluster (cluster totals are always shown)")
        ("format", po::value(&format)->default_value("table"), "table or json");
    // clang-format on
    add_model_options(desc, true);
    po::variables_map vm;
    if (parse(args, desc, vm,
              "usage: vmcap capacity [--cluster C] [--by host|rack|cluster] [--format table|json]\n"
              "Per-flavor capacity: how many more VMs of each flavor fit (VMCAP summed over hosts).\n"
              "  bound   topology-free upper bound: sum over hosts of floor(sum_i b_i / k), what would fit if\n"
              "          any k pNUMA nodes of a host could take a k-vNUMA VM (free space counted, shape ignored)\n"
              "  lost    bound - capacity, VMs lost to the NUMA topology and fragmentation (lost% of the bound)\n"
              "--by host: one row per host with the capacity of every flavor; --by rack: per rack (hosts'\n"
              "\"rack\", empty shown as (none)) capacity, bound and loss per flavor; then the cluster totals.\n"
              "JSON: \"flavors\" (cluster totals), \"objective\", and \"by_host\" or \"by_rack\" when asked."))
        return 0;
    if (format != "table" && format != "json") throw UsageError("--format must be table or json");
    if (by != "host" && by != "rack" && by != "cluster") throw UsageError("--by must be host, rack or cluster");
    if (cluster.empty()) cluster = default_cluster_path();
    const auto deadline = time_deadline(vm, start);
    const Problem p = load_snapshot(cluster);
    const auto model_ptr = model_for(p, cluster, vm, deadline);
    const CapacityModel& model = *model_ptr;
    const CapacityReport r = capacity_report(model, cluster, by);
    if (format == "json")
        print_capacity_json(r);
    else
        print_capacity_table(r);
    return 0;
}

}  // namespace vmcap::cli

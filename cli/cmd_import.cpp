/**
 * @file cmd_import.cpp
 * `vmcap import netsolver`: a NetSolver physical network (.pn) and VDCs (.vn, from an instance
 * list or given one by one) into a "vmcap-snapshot/1" snapshot with a network, vlinks and VDCs
 * (instances/netsolver.h; docs/format.md "vmcap import netsolver"). The VDCs are placed in offer
 * order through the placement seam until the first one that does not fit, every link checked by
 * the engine's link-capacity rule (placement/netsolver_place.h).
 */
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "evaluators/network/network_load.h"
#include "instances/netsolver.h"
#include "placement/netsolver_place.h"
#include "instances/snapshot_io.h"
#include "cli/cli.h"
#include "cli/cli_util.h"

namespace vmcap::cli {

using detail::read_json;

namespace {

namespace po = boost::program_options;

constexpr const char* kUsage =
    "usage: vmcap import netsolver --pn FILE.pn (--list LIST.txt | --vn A.vn [--vn B.vn ...] | A.vn B.vn ...) --out C [options]\n"
    "Turns a NetSolver physical network and virtual data centers (VDCs) into a snapshot with a network, vlinks and VDCs.\n"
    "Servers become hosts (cores and RAM split into --numa-nodes equal pNUMA nodes, K<n>); a server's links are its NIC\n"
    "uplink to one switch; switch-to-switch links become network links (a link listed in both directions counts once).\n"
    "VDCs are placed in offer order, each VM on pNUMA nodes with room and every link within capacity (ECMP loads),\n"
    "until the first VDC that does not fit completely (or --max-vdcs). BCube and other server-centric networks, whose\n"
    "servers forward traffic between several links, are refused (exit 2): vmcap hosts have one NIC uplink to one switch.\n"
    "Units: RAM in GB (1 GB = --ram-mib-per-unit MiB), bandwidth in units of --mbps-per-unit Mbps; storage is ignored.";

/** `vmcap import netsolver`'s command line, parsed and checked. */
struct ImportCommand {
    NetsolverOptions o;
    std::string pn_path, list_path, out;
    std::string requests_out;           ///< --requests-out: the VDCs as `vmcap place` requests, nothing placed
    std::vector<std::string> vn_paths;  ///< --vn and plain arguments; with --list, the list's paths once it is read
};

/** Parses and checks `rest` (the arguments after "netsolver") into `c`; false when --help was shown.
 *  Throws UsageError (or boost's po::error, from the parser) before any file is read, an unwritable
 *  --out included. */
bool parse_import_command(const Args& rest, ImportCommand& c) {
    NetsolverOptions& o = c.o;
    std::string& pn_path = c.pn_path;
    std::string& list_path = c.list_path;
    std::string& out = c.out;
    std::vector<std::string>& vn_paths = c.vn_paths;
    po::options_description desc("vmcap import netsolver options");
    long long max_vdcs = -1, max_migrations = -1;
    // clang-format off
    desc.add_options()("help,h", "show this help")
        ("pn", po::value(&pn_path)->required(), "physical network (.pn JSON: Servers, PN)")
        ("list", po::value(&list_path), "instance list: one .vn path per line, the order VDCs are offered in")
        ("vn", po::value(&vn_paths)->composing(), "a VDC (.vn JSON: VMs, VN); repeatable, also as plain arguments; offered in the given order")
        ("numa-nodes", po::value(&o.numa_nodes)->default_value(2), "pNUMA nodes per server (topology K<n>, 1..16)")
        ("mbps-per-unit", po::value(&o.mbps_per_unit)->default_value(1000), "Mbps per NetSolver bandwidth unit")
        ("ram-mib-per-unit", po::value(&o.ram_mib_per_unit)->default_value(1024), "MiB per NetSolver RAM unit (GB)")
        ("max-node-fraction", po::value(&o.max_node_fraction)->default_value(1.0),
         "vNUMA rule: a VM gets the fewest nodes k in {1,2,4} whose per-node demand is at most this share of a pNUMA node")
        ("max-vdcs", po::value(&max_vdcs), "stop after this many VDCs are allocated (default: until the first that does not fit)")
        ("max-migrations", po::value(&max_migrations), "migration budget of the snapshot (default: ceil(1% of the VMs))")
        ("out", po::value(&out)->required(), "snapshot file to write (atomically)")
        ("requests-out", po::value(&c.requests_out),
         "place nothing: write the cluster without VMs to --out and the VDCs, in offer order, as a requests file here "
         "(docs/format.md \"Requests\") for vmcap place");
    // clang-format on
    po::positional_options_description pos;
    pos.add("vn", -1);
    po::variables_map vm;
    po::store(po::command_line_parser(rest).options(desc).positional(pos).run(), vm);
    if (vm.count("help")) {
        std::cout << kUsage << "\n\n" << desc << "\n";
        return false;
    }
    po::notify(vm);
    if (out.empty()) throw UsageError("--out must not be empty");
    if (list_path.empty() == vn_paths.empty()) throw UsageError("give the VDCs either as --list FILE or as .vn files, not both or neither");
    // 0 would offer no VDC: a snapshot without flavors, which the loader refuses.
    if (vm.count("max-vdcs") && max_vdcs < 1)
        throw UsageError("--max-vdcs must be >= 1 (the snapshot's flavors come from the VDCs offered)");
    if (vm.count("max-migrations") && max_migrations < 0) throw UsageError("--max-migrations must be >= 0");
    o.max_vdcs = max_vdcs;
    o.max_migrations = max_migrations;
    check_output_path(out);
    if (vm.count("requests-out")) {
        if (c.requests_out.empty()) throw UsageError("--requests-out must not be empty");
        if (vm.count("max-vdcs")) throw UsageError("--max-vdcs places VDCs; with --requests-out nothing is placed");
        check_output_path(c.requests_out);
    }
    return true;
}

/** The offer's cluster without VMs (hosts, network, the VDCs' flavors and weights; budget 0) and
 *  its VDCs as `vmcap place` requests: ids "<file stem>#<i>", VMs by their .vn names, vlinks in
 *  Mbps. `vmcap place --strategy link-fit --stop-at-first-failure` on them places what the import
 *  places. */
std::pair<Problem, nlohmann::json> offer_as_requests(const Problem& cluster, const std::vector<NetsolverVdc>& vdcs,
                                                     const NetsolverOptions& o) {
    const NetsolverOffer offer = netsolver_offer(cluster, vdcs, o);
    const Problem& q = offer.problem;
    nlohmann::json reqs = nlohmann::json::array();
    for (std::size_t i = 0; i < q.vdcs.size(); ++i) {
        nlohmann::json vms = nlohmann::json::array();
        const auto [first, last] = offer.vdc_vms[i];
        auto name = [&](int v) {
            const std::string& id = q.vms[static_cast<std::size_t>(v)].id;
            return id.substr(id.find('/') + 1);
        };
        for (int v = first; v < last; ++v) vms.push_back({{"id", name(v)}, {"flavor", q.flavors[q.vms[v].flavor].name}});
        nlohmann::json links = nlohmann::json::array();
        const auto [lf, ll] = offer.vdc_vlinks[i];
        for (int l = lf; l < ll; ++l) {
            const Vlink& vl = q.vlinks[static_cast<std::size_t>(l)];
            links.push_back({{"a", name(vl.a)}, {"b", name(vl.b)}, {"bandwidth_mbps", vl.mbps}});
        }
        nlohmann::json r = {{"id", q.vdcs[i]}, {"vms", vms}};
        if (!links.empty()) r["vlinks"] = links;
        reqs.push_back(r);
    }
    Problem empty = q;
    empty.vms.clear();
    empty.vlinks.clear();
    empty.vdcs.clear();
    empty.constraints.max_migrations = 0;
    return {std::move(empty), nlohmann::json{{"requests", reqs}}};
}

/** The VDCs of `vn_paths` in offer order; a file named several times is read and parsed once (the
 *  same VDC offered again). */
std::vector<NetsolverVdc> read_vdcs(const std::vector<std::string>& vn_paths) {
    std::map<std::string, NetsolverVdc> cache;  // each distinct file read once
    std::vector<NetsolverVdc> vdcs;
    vdcs.reserve(vn_paths.size());
    for (const std::string& path : vn_paths) {
        auto it = cache.find(path);
        if (it == cache.end()) it = cache.emplace(path, parse_netsolver_vn(read_json(path), path)).first;
        vdcs.push_back(it->second);
    }
    return vdcs;
}

/** The snapshot's provenance text (Problem::source): the data's attribution, the files imported, how
 *  the placement ended and the unit conversions. */
std::string import_source(const std::string& pn_path, const std::string& list_path, const std::vector<std::string>& vn_paths,
                          const NetsolverOptions& o, const NetsolverPlacementStats& st) {
    std::string src = kNetsolverAttribution;
    src += " Imported by vmcap import netsolver from ";
    src += std::filesystem::path(pn_path).filename().string();
    src += " and ";
    src += list_path.empty() ? std::to_string(vn_paths.size()).append(" .vn files") : std::filesystem::path(list_path).filename().string();
    src += std::string(": ") + std::to_string(st.allocated) + " of " + std::to_string(st.offered) + " VDCs offered allocated (";
    src += st.stopped_by_max ? "stopped by --max-vdcs" : st.failed_vdc.empty() ? "all fitted" : "until the first that did not fit";
    src += std::string("); 1 bandwidth unit = ") + std::to_string(o.mbps_per_unit) +
           " Mbps; 1 RAM unit (GB) = " + std::to_string(o.ram_mib_per_unit);
    src += std::string(" MiB; ") + std::to_string(o.numa_nodes) + " pNUMA nodes per server; storage not modelled.";
    return src;
}

/** The loaded link with the highest load / capacity (ECMP loads at the snapshot's placement) and
 *  that ratio; (0, "none") when no link carries load. For the summary line. */
std::pair<double, std::string> most_utilised_link(const Problem& p) {
    double max_util = 0.0;
    std::string max_link = "none";
    const NetworkRoutes routes(p);
    std::vector<int> vm_host(p.vms.size());
    for (std::size_t v = 0; v < p.vms.size(); ++v) vm_host[v] = p.vms[v].host;
    const std::vector<std::int64_t> loads = link_loads(p, routes, vm_host);
    for (int l = 0; l < routes.num_links(); ++l) {
        const double u = static_cast<double>(loads[l]) / static_cast<double>(routes.capacity(l));
        if (loads[l] > 0 && u > max_util) {
            max_util = u;
            max_link = routes.link_name(l);
        }
    }
    return {max_util, max_link};
}

/** The import's summary on stdout. */
void print_import_summary(const std::string& out, const Problem& p, const NetsolverNetworkInfo& info, const NetsolverPlacementStats& st,
                          double max_util, const std::string& max_link) {
    std::printf("imported %s: %zu hosts (%zu host types), %zu switches, %zu switch links", out.c_str(), p.hosts.size(), p.host_types.size(),
                p.network.switches.size(), p.network.links.size());
    if (info.merged_reverse_links > 0) std::printf(" (%d links listed in both directions counted once)", info.merged_reverse_links);
    std::printf("\nallocated %d of %d VDCs offered", st.allocated, st.offered);
    if (st.stopped_by_max)
        std::printf(" (stopped by --max-vdcs)");
    else if (!st.failed_vdc.empty())
        std::printf(" (VDC %s did not fit: %s)", st.failed_vdc.c_str(), st.failure.c_str());
    else
        std::printf(" (all fitted)");
    std::printf("\n%zu VMs, %zu flavors, %zu vlinks", p.vms.size(), p.flavors.size(), p.vlinks.size());
    if (st.dropped_zero_vlinks > 0) std::printf(" (%d VN edges of bandwidth 0 dropped)", st.dropped_zero_vlinks);
    std::printf("; most utilised link %.1f%% (%s)\n", 100.0 * max_util, max_link.c_str());
}

}  // namespace

int cmd_import(const Args& args) {
    if (args.empty()) throw UsageError("expected a source: netsolver or openstack");
    if (args[0] == "--help" || args[0] == "-h") {
        std::cout << "usage: vmcap import <source> [options]   (vmcap import <source> --help)\n"
                     "sources:\n"
                     "  netsolver   NetSolver VDC-allocation instances (.pn physical network, .vn VDCs; MIT, UBC-NSS, AIJ 2020)\n"
                     "  openstack   the JSON of `openstack hypervisor/server/flavor/server group list --long -f json`\n";
        return 0;
    }
    if (args[0] == "openstack") return cmd_import_openstack(Args(args.begin() + 1, args.end()));
    if (args[0] != "netsolver") throw UsageError(std::string("unknown source '") + args[0] + "' (expected netsolver or openstack)");
    const Args rest(args.begin() + 1, args.end());

    ImportCommand c;
    if (!parse_import_command(rest, c)) return 0;
    const NetsolverOptions& o = c.o;
    const std::string& pn_path = c.pn_path;
    const std::string& list_path = c.list_path;
    const std::string& out = c.out;
    std::vector<std::string>& vn_paths = c.vn_paths;

    // No output may replace an input or the other output: the files named on the command line
    // first, then the .vn files the list names (once it is read).
    const std::vector<detail::FileOption> outputs = {{"--out", out}, {"--requests-out", c.requests_out}};
    std::vector<detail::FileOption> inputs = {{"--pn", pn_path}, {"--list", list_path}};
    for (const std::string& vn : vn_paths) inputs.push_back({"--vn", vn});
    detail::check_outputs_distinct(outputs, inputs);
    NetsolverNetworkInfo info;
    Problem p = netsolver_cluster(read_json(pn_path), pn_path, o, &info);
    if (!list_path.empty()) {
        vn_paths = read_netsolver_instance_list(list_path);
        inputs.clear();
        for (const std::string& vn : vn_paths) inputs.push_back({"--list (a .vn file it names)", vn});
        detail::check_outputs_distinct(outputs, inputs);
    }
    const std::vector<NetsolverVdc> vdcs = read_vdcs(vn_paths);

    if (!c.requests_out.empty()) {
        auto [empty, requests] = offer_as_requests(p, vdcs, o);
        empty.source = std::string(kNetsolverAttribution) + " Imported by vmcap import netsolver --requests-out: the cluster of " +
                       std::filesystem::path(pn_path).filename().string() + ", no VM placed; the VDCs are in " +
                       std::filesystem::path(c.requests_out).filename().string() + ".";
        empty = parse_snapshot(nlohmann::json::parse(snapshot_to_json(empty).dump()), out);
        write_file_atomic(c.requests_out, requests.dump(1) + "\n");
        write_file_atomic(out, format_json_lines(snapshot_to_json(empty)));
        std::printf("imported %s: %zu hosts, %zu flavors, no VM; %zu VDCs written to %s as requests\n", out.c_str(), empty.hosts.size(),
                    empty.flavors.size(), requests["requests"].size(), c.requests_out.c_str());
        return 0;
    }
    NetsolverPlacementStats st;
    { st = place_netsolver_vdcs(p, vdcs, o); }
    p.source = import_source(pn_path, list_path, vn_paths, o, st);

    // Through the loader's own checks, as any snapshot with a network.
    p = parse_snapshot(nlohmann::json::parse(snapshot_to_json(p).dump()), out);
    const auto [max_util, max_link] = most_utilised_link(p);
    write_file_atomic(out, format_json_lines(snapshot_to_json(p)));
    print_import_summary(out, p, info, st, max_util, max_link);
    return 0;
}

}  // namespace vmcap::cli

/**
 * @file cmd_snapshot.cpp
 * `vmcap snapshot`: builds a cluster snapshot by replaying a VM trace (Azure V1 dev/test split or
 * Huawei-East-1) into N identical hosts with a placer of the placement seam (placement/replay.h) and writes
 * it as "vmcap-snapshot/1" JSON with the data's attribution in "source".
 */
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <boost/program_options.hpp>

#include "instances/datacenter_network.h"
#include "placement/placer.h"
#include "placement/replay.h"
#include "instances/snapshot_io.h"
#include "instances/trace.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "cli/network_flags.h"

#ifndef VMCAP_SHARED_DATA_DIR
#define VMCAP_SHARED_DATA_DIR "../shared/data"
#endif

namespace vmcap::cli {

namespace {

namespace po = boost::program_options;

constexpr const char* kAzureAttribution =
    "Data: Azure Public Dataset V1 (Cortez et al., \"Resource Central: Understanding and Predicting Workloads for "
    "Improved Resource Management in Large Cloud Platforms\", SOSP 2017), CC-BY 4.0, "
    "https://github.com/Azure/AzurePublicDataset; processed into flavor/lifetime traces by "
    "huaweicloud/trace_generation_rnn (MIT).";
constexpr const char* kHuaweiAttribution =
    "Data: Huawei-East-1 (Huawei Cloud, https://github.com/huaweicloud/VM-placement-dataset; lifetime form "
    "Huawei-East-1-lt.csv from ChanTinPing/SPANE), CC-BY-NC 4.0, non-commercial use only; cite Sheng et al., "
    "\"VMAgent: Scheduling Simulator for Reinforcement Learning\" (arXiv 2112.04785) and \"Learning to schedule "
    "multi-NUMA virtual machines via reinforcement learning\" (Pattern Recognition 121, 2021).";

/** Shortest fixed-point text that round-trips (reproducible in the source string). */
std::string fixed_text(double v) {
    char buf[64];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
    return ec == std::errc{} ? std::string(buf, p) : std::to_string(v);
}

/** Fixed-point text with `digits` decimals, for display. */
std::string fixed(double v, int digits) {
    char buf[64];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, digits);
    return ec == std::errc{} ? std::string(buf, p) : std::to_string(v);
}

std::string percent(double fraction) {
    std::ostringstream os;
    os.setf(std::ios::fixed);
    os.precision(1);
    os << 100.0 * fraction << "%";
    return os.str();
}

double parse_number(const std::string& text, const std::string& what) {
    double v = 0.0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc{} || p != text.data() + text.size() || !std::isfinite(v))
        throw UsageError(what + ": expected a number, got '" + text + "'");
    return v;
}

/** Splits "NAME=VALUE" at the first '='; both parts non-empty. */
std::pair<std::string, std::string> name_value(const std::string& text, const std::string& option) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw UsageError("--" + option + ": expected NAME=VALUE, got '" + text + "'");
    return {text.substr(0, eq), text.substr(eq + 1)};
}

template <class T>
T get(const po::variables_map& vm, const char* key) {
    return vm[key].as<T>();
}

std::string data_dir_from(const po::variables_map& vm) {
    if (vm.count("data-dir")) return get<std::string>(vm, "data-dir");
    if (const char* env = std::getenv("VMCAP_DATA_DIR"); env && *env) return env;
    return VMCAP_SHARED_DATA_DIR;
}

/** `vmcap snapshot`'s command line, parsed and checked. */
struct SnapshotCommand {
    std::string trace_name, out, files;  ///< files: the trace files read, for the provenance text
    bool azure = true;
    SnapshotOptions opt;
    NetworkChoice net;
    int copies = 1, vdc_cap = 30;
    double bpc = 0.0;
    std::optional<double> time_s;  ///< --time; none: 2/3 of the arrival span
    double span = 0.0;             ///< the trace's arrival span (seconds), once read
    std::filesystem::path data_dir;
};

/** --trace and the hosts: their number, racks and pods, the network flags (a --topology-preset may give
 *  the number and the servers) and the host type, the preset's servers unless a host flag is given.
 *  Throws UsageError on a bad value, as the other read_* helpers. */
void read_trace_and_hosts(const po::variables_map& vm, SnapshotCommand& c) {
    c.trace_name = get<std::string>(vm, "trace");
    const std::string& trace_name = c.trace_name;
    if (trace_name != "azure-dev" && trace_name != "azure-test" && trace_name != "huawei")
        throw UsageError("--trace must be azure-dev, azure-test or huawei, got '" + trace_name + "'");
    c.azure = trace_name != "huawei";
    SnapshotOptions& opt = c.opt;
    opt.num_hosts = vm.count("hosts") ? get<int>(vm, "hosts") : 0;
    opt.hosts_per_rack = get<int>(vm, "hosts-per-rack");
    opt.racks_per_pod = get<int>(vm, "racks-per-pod");
    c.net = read_network_flags(vm, opt.num_hosts, opt.hosts_per_rack, opt.racks_per_pod);
    const NetworkChoice& net = c.net;
    if (opt.num_hosts < 1) throw UsageError("--hosts must be >= 1");
    std::string host_topology = get<std::string>(vm, "host-type");
    long long node_vcpu = get<long long>(vm, "node-vcpu");
    double node_gib = get<double>(vm, "node-ram-gib");
    if (net.preset && !net.preset->host_topology.empty()) {  // the preset's servers, unless a host flag is given
        if (vm["host-type"].defaulted()) host_topology = net.preset->host_topology;
        if (vm["node-vcpu"].defaulted()) node_vcpu = net.preset->node_vcpu;
        if (vm["node-ram-gib"].defaulted()) node_gib = static_cast<double>(net.preset->node_ram_mib) / 1024.0;
    }
    if (node_vcpu < 1) throw UsageError("--node-vcpu must be >= 1");
    if (!(node_gib > 0.0) || !std::isfinite(node_gib) || std::llround(node_gib * 1024.0) < 1)
        throw UsageError("--node-ram-gib must be > 0");
    try {
        opt.host_type = uniform_host_type(host_topology, node_vcpu, std::llround(node_gib * 1024.0));
    } catch (const InputError& e) {
        throw UsageError(std::string("--host-type: ") + e.what());
    }
}

/** The replay's options: placer, sampling, seed, copies, vNUMA rule and overrides, targets, weights
 *  and the migration budgets. */
void read_replay_options(const po::variables_map& vm, SnapshotCommand& c) {
    SnapshotOptions& opt = c.opt;
    opt.placer = get<std::string>(vm, "placer");
    bool known = false;
    for (const PlacerInfo& p : registered_placers()) known = known || p.name == opt.placer;
    if (!known) throw UsageError("--placer must be one of " + placer_names() + ", got '" + opt.placer + "'");
    opt.sample = get<double>(vm, "sample");
    if (!(opt.sample > 0.0 && opt.sample <= 1.0)) throw UsageError("--sample must be in (0, 1]");
    {
        const std::string s = get<std::string>(vm, "seed");
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), opt.seed);
        if (s.empty() || ec != std::errc{} || p != s.data() + s.size())
            throw UsageError("--seed: expected an unsigned 64-bit integer, got '" + s + "'");
    }
    c.copies = get<int>(vm, "copies");
    if (c.copies < 1) throw UsageError("--copies must be >= 1");
    if (opt.hosts_per_rack < 1 || opt.racks_per_pod < 1) throw UsageError("--hosts-per-rack and --racks-per-pod must be >= 1");
    read_vnuma_rule_options(vm, opt.rule);
    opt.targets = get<std::string>(vm, "targets");
    if (opt.targets != "multi-numa" && opt.targets != "all" && opt.targets != "demand")
        throw UsageError("--targets must be multi-numa, all or demand, got '" + opt.targets + "'");
    opt.demand_window_s = get<double>(vm, "demand-window");
    if (!(opt.demand_window_s > 0.0) || !std::isfinite(opt.demand_window_s)) throw UsageError("--demand-window must be > 0 seconds");
    if (vm.count("weight"))
        for (const auto& s : get<std::vector<std::string>>(vm, "weight")) {
            auto [name, text] = name_value(s, "weight");
            const double w = parse_number(text, "--weight " + name);
            if (w < 0.0) throw UsageError("--weight " + name + ": must be >= 0");
            if (!opt.weights.emplace(name, w).second) throw UsageError("--weight: flavor '" + name + "' given twice");
        }
    if (vm.count("max-migrations")) {
        opt.max_migrations = get<long long>(vm, "max-migrations");
        if (opt.max_migrations < 0) throw UsageError("--max-migrations must be >= 0");
    }
    if (vm.count("max-migrated-gib")) {
        const double g = get<double>(vm, "max-migrated-gib");
        if (!(g >= 0.0) || !std::isfinite(g)) throw UsageError("--max-migrated-gib must be >= 0");
        opt.max_migrated_ram_mib = std::llround(g * 1024.0);
    }
}

/** --bpc and --vdc-cap: Gridiron vlinks need the Azure trace's tenant batches and a network, so
 *  read after the trace and the network flags. */
void read_vlink_options(const po::variables_map& vm, SnapshotCommand& c) {
    const bool azure = c.azure;
    const NetworkChoice& net = c.net;
    c.bpc = vm.count("bpc") ? get<double>(vm, "bpc") : 0.0;
    c.vdc_cap = get<int>(vm, "vdc-cap");
    const double bpc = c.bpc;
    const int vdc_cap = c.vdc_cap;
    if (!std::isfinite(bpc) || bpc < 0.0 || bpc > 1e6) throw UsageError("--bpc must be in 0..1000000 Mbps per vCPU");
    if (vdc_cap < 1) throw UsageError("--vdc-cap must be >= 1");
    if (!vm["vdc-cap"].defaulted() && !(bpc > 0.0)) throw UsageError("--vdc-cap needs --bpc");
    if (bpc > 0.0 && !azure)
        throw UsageError(
            "--bpc needs the tenant batches of the Azure trace; Huawei-East-1 has no tenants (use --trace azure-dev|azure-test)");
    if (bpc > 0.0 && !net.present) throw UsageError("--bpc needs --network or --topology-preset (vlinks need a network)");
}

/** Parses and checks `args` into `c` (`desc` holds the options); false when --help was shown.
 *  Throws UsageError before any work, an unwritable --out included. */
bool parse_snapshot_command(const Args& args, po::options_description& desc, SnapshotCommand& c) {
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(args).options(desc).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        throw UsageError(e.what());
    }
    if (vm.count("help")) {
        std::cout << desc << "\n";
        return false;
    }
    for (const char* required : {"trace", "out"})
        if (!vm.count(required)) throw UsageError(std::string("--") + required + " is required (see --help)");
    if (!vm.count("hosts") && !vm.count("topology-preset")) throw UsageError("--hosts is required (or --topology-preset)");

    // ---- options -> SnapshotOptions (range errors are usage errors)
    read_trace_and_hosts(vm, c);
    read_replay_options(vm, c);
    read_vlink_options(vm, c);
    c.out = get<std::string>(vm, "out");
    check_output_path(c.out);
    c.data_dir = data_dir_from(vm);
    check_outputs_distinct({{"--out", c.out}}, named_trace_files(c.trace_name, c.data_dir));
    if (vm.count("time")) c.time_s = get<double>(vm, "time");
    return true;
}

/** Reads the trace the command names (copies superposed) and sets the stop time. Throws
 *  InputError on a missing data directory or an empty trace. */
std::vector<TraceVm> read_snapshot_trace(SnapshotCommand& c) {
    std::vector<TraceVm> trace = read_named_trace(c.trace_name, c.data_dir, c.copies, c.opt.seed, &c.files);
    if (trace.empty()) throw InputError(c.trace_name + ": the trace has no VMs");
    c.span = trace.back().arrival_s - trace.front().arrival_s;
    c.opt.time_s = c.time_s ? *c.time_s : std::round(c.span * 2.0 / 3.0);
    if (!(c.opt.time_s >= 0.0) || !std::isfinite(c.opt.time_s)) throw UsageError("--time must be >= 0");
    return trace;
}

/** The snapshot's provenance text (Problem::source): trace, options, network and licence. */
void set_snapshot_source(SnapshotCommand& c, double first_arrival_s) {
    c.opt.source = "vmcap snapshot: trace=" + c.trace_name + " (" + c.files + "), seed=" + std::to_string(c.opt.seed) +
                   (c.copies > 1 ? ", copies=" + std::to_string(c.copies) : std::string()) + ", sample=" + fixed_text(c.opt.sample) +
                   ", time=" + fixed_text(c.opt.time_s) + " s after the first arrival (trace time " +
                   fixed(first_arrival_s + c.opt.time_s, 3) + " s), hosts=" + std::to_string(c.opt.num_hosts) + " x " +
                   c.opt.host_type.name + ", placer=" + c.opt.placer + ", max-node-fraction=" + fixed_text(c.opt.rule.max_node_fraction) +
                   ", targets=" + c.opt.targets +
                   (c.opt.targets == "demand" ? ", demand-window=" + fixed_text(c.opt.demand_window_s) + " s" : "");
    for (const auto& [name, topo] : c.opt.rule.overrides) c.opt.source += ", vnuma " + name + "=" + topo;
    for (const auto& [name, w] : c.opt.weights) c.opt.source += ", weight " + name + "=" + fixed_text(w);
    if (c.net.present) {  // appended piece by piece ("literal" + string trips GCC 12's -Wrestrict)
        const DatacenterNetworkOptions& n = c.net.options;
        auto add = [&](std::initializer_list<std::string> parts) {
            for (const std::string& part : parts) c.opt.source += part;
        };
        add({", network=", c.net.label, " (racks of ", std::to_string(c.opt.hosts_per_rack), ", NIC ", std::to_string(n.nic_mbps),
             " Mbps, ToR uplink ", std::to_string(n.tor_uplink_mbps), " Mbps"});
        if (n.kind == "leaf-spine") add({", ", std::to_string(n.spines), " spines"});
        if (n.kind == "leaf-spine" && n.spine_links > 0)
            add({", ", std::to_string(n.spine_links), " x ", std::to_string(n.agg_uplink_mbps), " Mbps spine-spine"});
        if (n.kind != "leaf-spine") add({", ", std::to_string(n.racks_per_pod), " racks per pod"});
        if (n.kind == "jupiter") add({", ", std::to_string(n.mbs_per_pod), " middle blocks per pod"});
        if (n.kind != "leaf-spine") add({", upper links ", std::to_string(n.agg_uplink_mbps), " Mbps"});
        add({")"});
        if (c.bpc > 0.0)
            add({", bpc=", fixed_text(c.bpc), " Mbps per vCPU, vdc-cap=", std::to_string(c.vdc_cap), " (Gridiron VDCs of tenant batches)"});
    }
    c.opt.source += std::string(". ") + (c.azure ? kAzureAttribution : kHuaweiAttribution);
}

/** The replay's summary on stdout. */
void print_snapshot_summary(const SnapshotCommand& c, const Problem& problem, const ReplayStats& st, const TraceVdcStats& vdc,
                            const std::string& read_s, const std::string& replay_s) {
    const SnapshotOptions& opt = c.opt;
    const std::string& out = c.out;
    const std::string& trace_name = c.trace_name;
    const int copies = c.copies;
    const double span = c.span;
    const NetworkChoice& net = c.net;
    const double bpc = c.bpc;
    const int vdc_cap = c.vdc_cap;
    std::map<int, std::int64_t> alive_per_flavor;
    for (const Vm& v : problem.vms) ++alive_per_flavor[v.flavor];
    std::cout << "snapshot " << out << ": " << trace_name << (copies > 1 ? " x" + std::to_string(copies) : std::string()) << ", "
              << opt.num_hosts << " hosts " << opt.host_type.name << ", " << opt.placer << ", time " << fixed(opt.time_s, 0) << " s of "
              << fixed(span, 0) << " s\n"
              << "  VMs: arrivals " << st.arrivals << ", placed " << st.placed << ", rejected " << st.rejected << " ("
              << percent(st.arrivals ? static_cast<double>(st.rejected) / static_cast<double>(st.arrivals) : 0.0) << "), departed "
              << st.departed << ", alive " << st.alive_at_end << " (peak " << st.peak_alive << ")\n"
              << "  utilisation: vCPU " << percent(st.used_vcpu_fraction) << ", RAM " << percent(st.used_ram_fraction) << "\n"
              << "  constraints: max_migrations " << problem.constraints.max_migrations << ", max_migrated_ram "
              << (problem.constraints.max_migrated_ram_mib == std::numeric_limits<Amount>::max()
                      ? std::string("unlimited")
                      : fixed_text(static_cast<double>(problem.constraints.max_migrated_ram_mib) / 1024.0) + " GiB")
              << "\n  flavors (vNUMA, weight, alive, rejected):\n";
    for (std::size_t f = 0; f < problem.flavors.size(); ++f) {
        const Flavor& fl = problem.flavors[f];
        const auto rej = st.rejected_by_flavor.find(fl.name);
        std::cout << "    " << fl.name << "  " << fl.vnuma.name << "  " << fixed_text(fl.weight) << "  "
                  << alive_per_flavor[static_cast<int>(f)] << "  " << (rej == st.rejected_by_flavor.end() ? 0 : rej->second) << "\n";
    }
    for (const auto& [name, count] : st.rejected_by_flavor)
        if (std::none_of(problem.flavors.begin(), problem.flavors.end(), [&name = name](const Flavor& fl) { return fl.name == name; }))
            std::cout << "    " << name << "  -  -  0  " << count << "\n";
    if (net.present)
        std::cout << "  network: " << net.label << ", " << problem.network.switches.size() << " switches, " << problem.network.links.size()
                  << " links (the replay does not check link capacities: see vmcap capacity)\n";
    if (bpc > 0.0)
        std::cout << "  VDCs: " << vdc.vdcs << " with vlinks, from " << vdc.batches << " tenant batches alive (" << vdc.chopped_batches
                  << " chopped at " << vdc_cap << "; largest VDC " << vdc.largest_vdc << " VMs alive), " << vdc.vlinks << " vlinks, "
                  << vdc.total_mbps << " Mbps in total\n";
    std::cout << "  read " << read_s << " s, replay " << replay_s << " s\n";
}

}  // namespace

int cmd_snapshot(const Args& args) {
    po::options_description desc(
        "Usage: vmcap snapshot --trace azure-dev|azure-test|huawei --hosts N --out FILE [options]\n"
        "Replays a VM trace into N identical hosts with a NUMA-aware placer and writes the cluster at --time as a\n"
        "snapshot (vmcap-snapshot/1). vNUMA rule: fewest nodes k in {1,2,4} with demand divisible by k and per-node\n"
        "demand <= max-node-fraction x a pNUMA node (then fraction 1); k=4 is K4 if it embeds in the host, else C4.\n"
        "With --network or --topology-preset the snapshot gets a datacenter network over its racks; with --bpc (Azure only)\n"
        "every tenant batch becomes Gridiron VDCs of at most --vdc-cap VMs whose VMs alive at --time are linked all-to-all\n"
        "with floor(bpc x min(vCPU)) Mbps. The replay places on NUMA only: it does not check link capacities.\n"
        "Options");
    // clang-format off
    desc.add_options()
        ("help,h", "print this help and exit")
        ("trace", po::value<std::string>(), "azure-dev | azure-test | huawei (required)")
        ("data-dir", po::value<std::string>(),
         "directory holding azure-v1-flavor-traces/ and huawei-east-1/ (default: $VMCAP_DATA_DIR, else " VMCAP_SHARED_DATA_DIR ")")
        ("hosts", po::value<int>(), "number of hosts (required unless --topology-preset)")
        ("host-type", po::value<std::string>()->default_value("CQ3"), "pNUMA topology of every host (K<n>, C4, CQ3, Q33, Q3, 2xK<n>, K<m>,<n>)")
        ("node-vcpu", po::value<long long>()->default_value(16), "vCPUs per pNUMA node")
        ("node-ram-gib", po::value<double>()->default_value(64.0), "RAM per pNUMA node, GiB")
        ("time", po::value<double>(), "stop time, seconds since the first arrival (default: 2/3 of the arrival span, rounded to whole seconds)")
        ("placer", po::value<std::string>()->default_value("best-fit"), ("online placer: " + placer_names() + " (placement/placer.h; vmcap-fit puts each VM where the weighted capacity of the targets drops least)").c_str())
        ("sample", po::value<double>()->default_value(1.0), "keep each trace VM with this probability, in (0,1]")
        ("seed", po::value<std::string>()->default_value("1"), "seed of lifetime draws (Azure) and sampling (uint64)")
        ("copies", po::value<int>()->default_value(1),
         "superpose this many copies of the trace to multiply the load: Azure copy c draws its lifetimes from seed+c; "
         "Huawei copy c is shifted cyclically in time by c/copies of the arrival span")
        ("hosts-per-rack", po::value<int>()->default_value(20), "hosts per rack (hosts[].rack: a ToR each with --network; the racks of --placer vmcap-rack-fit)")
        ("racks-per-pod", po::value<int>()->default_value(10), "racks per pod")
        ("targets", po::value<std::string>()->default_value("multi-numa"),
         "multi-numa | all: flavors given weight 1; demand: every flavor requested in the demand window, weighted by its "
         "share of the window's arrivals in thousandths (1000 x requests / all requests, three decimals, at least 0.001)")
        ("demand-window", po::value<double>()->default_value(86400.0), "--targets demand: the window, seconds before --time")
        ("weight", po::value<std::vector<std::string>>()->composing(), "NAME=W: weight of flavor NAME (repeatable)")
        ("max-migrations", po::value<long long>(), "migration budget (default: ceil(1% of the VMs in the snapshot))")
        ("max-migrated-gib", po::value<double>(), "RAM budget of live migration, GiB (default: unlimited)")
        ("bpc", po::value<double>(),
         "Gridiron vlinks, Mbps per vCPU (Azure only; needs a network): the VMs of one tenant batch alive at --time are "
         "linked all-to-all with floor(bpc x min(vCPU of the two)) Mbps; 0: no vlinks")
        ("vdc-cap", po::value<int>()->default_value(30),
         "with --bpc: most VMs of one VDC; a larger batch is chopped in arrival order into VDCs <batch>, <batch>__0, <batch>__1, ...")
        ("out", po::value<std::string>(), "output snapshot file (required)");
    // clang-format on
    add_vnuma_rule_options(desc);
    add_network_flags(desc);

    SnapshotCommand c;
    if (!parse_snapshot_command(args, desc, c)) return 0;
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<TraceVm> trace = read_snapshot_trace(c);
    set_snapshot_source(c, trace.front().arrival_s);
    const auto t1 = std::chrono::steady_clock::now();
    ReplayStats st;
    Problem problem = replay_snapshot(trace, c.opt, &st);
    TraceVdcStats vdc;
    if (c.net.present) {
        build_datacenter_network(problem, c.net.options, "snapshot");
        if (c.bpc > 0.0) vdc = add_trace_vdcs(problem, trace, st.vm_trace_index, c.bpc, c.vdc_cap);
        // Through the loader's own checks, as any snapshot with a network.
        problem = parse_snapshot(nlohmann::json::parse(snapshot_to_json(problem).dump()), c.out);
    }
    const auto t2 = std::chrono::steady_clock::now();
    write_file_atomic(c.out, format_json_lines(snapshot_to_json(problem)));
    auto seconds = [](auto a, auto b) { return fixed(std::chrono::duration<double>(b - a).count(), 2); };
    print_snapshot_summary(c, problem, st, vdc, seconds(t0, t1), seconds(t1, t2));
    return 0;
}

// named_trace_files: contract in cli_util.h.
std::vector<detail::FileOption> named_trace_files(const std::string& trace_name, const std::filesystem::path& data) {
    if (trace_name == "huawei") return {{"--data-dir", (data / "huawei-east-1" / "Huawei-East-1-lt.csv").string()}};
    const std::filesystem::path dir = data / "azure-v1-flavor-traces";
    const bool dev = trace_name == "azure-dev";
    return {{"--data-dir", (dir / "traces" / (dev ? "v1.dev.txt" : "v1.test.txt")).string()},
            {"--data-dir", (dir / "traces" / (dev ? "v1.dev.c2100000.txt" : "v1.test.c2591400.txt")).string()},
            {"--data-dir", (dir / "maps" / "v1.interval_map.txt").string()},
            {"--data-dir", (dir / "maps" / "flav_map.txt").string()}};
}

// add_vnuma_rule_options, read_vnuma_rule_options: contracts in cli_util.h.
void add_vnuma_rule_options(po::options_description& desc) {
    desc.add_options()("max-node-fraction", po::value<double>()->default_value(0.5),
                       "vNUMA rule: largest per-node share of a pNUMA node, in (0,1]")(
        "vnuma", po::value<std::vector<std::string>>()->composing(), "NAME=TOPO: vNUMA topology of flavor NAME (repeatable)");
}

void read_vnuma_rule_options(const po::variables_map& vm, VnumaRule& rule) {
    rule.max_node_fraction = get<double>(vm, "max-node-fraction");
    if (!(rule.max_node_fraction > 0.0 && rule.max_node_fraction <= 1.0)) throw UsageError("--max-node-fraction must be in (0, 1]");
    if (vm.count("vnuma"))
        for (const auto& s : get<std::vector<std::string>>(vm, "vnuma")) {
            auto [name, topo] = name_value(s, "vnuma");
            if (!rule.overrides.emplace(name, topo).second) throw UsageError("--vnuma: flavor '" + name + "' given twice");
        }
}

// read_named_trace: contract in cli_util.h.
std::vector<TraceVm> read_named_trace(const std::string& trace_name, const std::filesystem::path& data, int copies, std::uint64_t seed,
                                      std::string* files) {
    if (!std::filesystem::is_directory(data))
        throw InputError(data.string() + ": data directory not found (use --data-dir or VMCAP_DATA_DIR)");
    std::vector<TraceVm> trace;
    const std::vector<detail::FileOption> in = named_trace_files(trace_name, data);
    if (trace_name != "huawei") {
        const bool dev = trace_name == "azure-dev";
        if (files != nullptr)
            *files = "split " + std::string(dev ? "dev" : "test") + ": " + std::filesystem::path(in[0].path).filename().string() + " + " +
                     std::filesystem::path(in[1].path).filename().string();
        std::vector<std::vector<TraceVm>> parts;
        for (int k = 0; k < copies; ++k) {
            parts.push_back(read_azure_trace(in[0].path, in[1].path, in[2].path, in[3].path, seed + static_cast<std::uint64_t>(k)));
            for (TraceVm& v : parts.back()) v.copy = k;  // copy k's batches are tenants of their own ("c<k>-t...")
        }
        trace = copies == 1 ? std::move(parts.front()) : merge_traces(std::move(parts));
    } else {
        if (files != nullptr) *files = "Huawei-East-1-lt.csv";
        trace = read_huawei_trace(in[0].path);
        if (copies > 1) {
            const double span = trace.empty() ? 0.0 : trace.back().arrival_s - trace.front().arrival_s;
            std::vector<std::vector<TraceVm>> parts;
            for (int k = 0; k < copies; ++k) parts.push_back(time_shifted_copy(trace, span * k / copies));
            trace = merge_traces(std::move(parts));
        }
    }
    return trace;
}

}  // namespace vmcap::cli

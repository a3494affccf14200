#include "cli/network_flags.h"

#include "cli/cli.h"

namespace vmcap::cli {

namespace po = boost::program_options;

namespace {

bool explicit_flag(const po::variables_map& vm, const char* name) {
    return vm.count(name) && !vm[name].defaulted();
}

std::string flag(const char* name) {
    std::string s = "--";
    s += name;
    return s;
}

}  // namespace

void add_network_flags(po::options_description& desc) {
    // clang-format off
    desc.add_options()
        ("network", po::value<std::string>(),
         "add a datacenter network: leaf-spine (every ToR linked to each spine), tree (ToR -> pod aggregation -> core) or "
         "jupiter (ToR -> every middle block of its pod -> every spine block)")
        ("topology-preset", po::value<std::string>(),
         "T1 (Jupiter 4-rack, 192 hosts), T3 (leaf-spine, 800 hosts), T5 (tree, 200 hosts) or T5-2000: fixes the host count, "
         "rack size and network (docs/format.md)")
        ("spines", po::value<int>()->default_value(2), "leaf-spine: spine switches; jupiter: spine blocks (with more than one pod)")
        ("mbs-per-pod", po::value<int>()->default_value(1), "jupiter: middle blocks per pod")
        ("spine-links", po::value<int>()->default_value(0), "leaf-spine: parallel links between every two spines (--agg-uplink-mbps each)")
        ("nic-mbps", po::value<long long>()->default_value(25000), "host NIC uplink capacity, Mbps")
        ("tor-uplink-mbps", po::value<long long>()->default_value(100000),
         "each ToR uplink (to a spine, its aggregation switch or a middle block), Mbps")
        ("agg-uplink-mbps", po::value<long long>()->default_value(400000),
         "tree: each aggregation-to-core link; jupiter: each middle-to-spine-block link; leaf-spine: each spine-spine link, Mbps")
        ("oversubscription", po::value<double>(),
         "instead of --tor-uplink-mbps: ToR uplinks of hosts-per-rack x NIC / R in total, split over the ToR's uplinks");
    // clang-format on
}

NetworkChoice read_network_flags(const po::variables_map& vm, int& hosts, int& hosts_per_rack, int& racks_per_pod) {
    NetworkChoice c;
    if (vm.count("topology-preset")) {
        try {
            c.preset = &topology_preset(vm["topology-preset"].as<std::string>());
        } catch (const InputError& e) {
            throw UsageError(e.what());
        }
        const TopologyPreset& t = *c.preset;
        const DatacenterNetworkOptions& n = t.network;
        std::string preset = "--topology-preset ";  // appended, not "literal" + string (GCC 12 -Wrestrict)
        preset += t.name;
        auto fixed = [&](const char* name, long long given, long long value) {
            if ((std::string(name) == "hosts" ? vm.count(name) > 0 : explicit_flag(vm, name)) && given != value)
                throw UsageError(preset + " fixes " + flag(name) + " at " + std::to_string(value) + ", got " + std::to_string(given));
        };
        fixed("hosts", hosts, t.hosts);
        fixed("hosts-per-rack", hosts_per_rack, t.hosts_per_rack);
        fixed("racks-per-pod", racks_per_pod, n.racks_per_pod);
        const std::pair<const char*, long long> ints[] = {
            {"spines", n.spines}, {"mbs-per-pod", n.mbs_per_pod}, {"spine-links", n.spine_links}};
        for (const auto& [name, value] : ints)
            if (explicit_flag(vm, name)) fixed(name, vm[name].as<int>(), value);
        const std::pair<const char*, long long> caps[] = {
            {"nic-mbps", n.nic_mbps}, {"tor-uplink-mbps", n.tor_uplink_mbps}, {"agg-uplink-mbps", n.agg_uplink_mbps}};
        for (const auto& [name, value] : caps)
            if (explicit_flag(vm, name)) fixed(name, vm[name].as<long long>(), value);
        if (vm.count("network") && vm["network"].as<std::string>() != n.kind)
            throw UsageError(preset + " fixes --network at " + n.kind + ", got " + vm["network"].as<std::string>());
        if (vm.count("oversubscription")) throw UsageError(preset + " fixes the ToR uplinks; drop --oversubscription");
        hosts = t.hosts;
        hosts_per_rack = t.hosts_per_rack;
        racks_per_pod = n.racks_per_pod;
        c.present = true;
        c.options = n;
        c.label = t.name + " (" + n.kind + ")";
        return c;
    }
    if (!vm.count("network")) {
        for (const char* name :
             {"spines", "mbs-per-pod", "spine-links", "nic-mbps", "tor-uplink-mbps", "agg-uplink-mbps", "oversubscription"})
            if (explicit_flag(vm, name)) throw UsageError(flag(name) + " needs --network or --topology-preset");
        return c;
    }
    c.present = true;
    c.options.kind = vm["network"].as<std::string>();
    if (c.options.kind != "leaf-spine" && c.options.kind != "tree" && c.options.kind != "jupiter")
        throw UsageError("--network must be leaf-spine, tree or jupiter, got '" + c.options.kind + "'");
    c.label = c.options.kind;
    c.options.spines = vm["spines"].as<int>();
    c.options.mbs_per_pod = vm["mbs-per-pod"].as<int>();
    c.options.spine_links = vm["spine-links"].as<int>();
    c.options.racks_per_pod = racks_per_pod;
    c.options.nic_mbps = vm["nic-mbps"].as<long long>();
    c.options.tor_uplink_mbps = vm["tor-uplink-mbps"].as<long long>();
    c.options.agg_uplink_mbps = vm["agg-uplink-mbps"].as<long long>();
    if (c.options.spines < 1 || c.options.mbs_per_pod < 1) throw UsageError("--spines and --mbs-per-pod must be >= 1");
    if (c.options.spine_links < 0 || c.options.spine_links > 64) throw UsageError("--spine-links must be in 0..64");
    for (const char* name : {"nic-mbps", "tor-uplink-mbps", "agg-uplink-mbps"}) {
        const long long v = vm[name].as<long long>();
        if (v < 1 || v > kMaxMbps) throw UsageError(flag(name) + " must be in 1.." + std::to_string(kMaxMbps) + " Mbps");
    }
    if (vm.count("oversubscription")) {
        if (explicit_flag(vm, "tor-uplink-mbps")) throw UsageError("give --tor-uplink-mbps or --oversubscription, not both");
        try {
            c.options.tor_uplink_mbps = oversubscribed_tor_uplink_mbps(c.options, hosts_per_rack, vm["oversubscription"].as<double>());
        } catch (const InputError& e) {
            throw UsageError(e.what());
        }
    }
    return c;
}

}  // namespace vmcap::cli

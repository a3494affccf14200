/**
 * @file cmd_import_openstack.cpp
 * `vmcap import openstack`: a snapshot from the JSON of the standard OpenStack clients
 * (instances/openstack.h; docs/format.md "vmcap import openstack").
 */
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "instances/openstack.h"
#include "instances/snapshot_io.h"

namespace vmcap::cli {

namespace po = boost::program_options;
using namespace detail;

int cmd_import_openstack(const Args& rest) {
    po::options_description desc("vmcap import openstack options");
    std::string hypervisors, servers, flavors, groups, inventory, out;
    std::vector<std::string> topologies;
    OpenStackOptions o;
    // clang-format off
    desc.add_options()("help,h", "show this help")
        ("hypervisors", po::value(&hypervisors)->required(), "output of `openstack hypervisor list --long -f json`")
        ("servers", po::value(&servers)->required(),
         "output of `openstack server list --all-projects --long -f json`, best with -c ID -c Status -c 'Flavor Name' -c Flavor "
         "-c 'Flavor ID' -c Host -c 'Project ID' -c 'Created At' (servers replayed oldest first; without 'Created At' the list "
         "must be in Nova's order, newest first)")
        ("flavors", po::value(&flavors)->required(), "output of `openstack flavor list --all --long -f json` (extra specs: hw:numa_nodes)")
        ("inventory", po::value(&inventory),
         "directory of DIR/<hypervisor ID>.json, each `openstack resource provider inventory list <ID> -f json`: the "
         "hypervisors' capacity when their list has none (Nova API microversion >= 2.88)")
        ("server-groups", po::value(&groups), "output of `openstack server group list --all-projects --long -f json` (optional)")
        ("host-topology", po::value(&topologies)->composing(),
         "pNUMA graph of the hypervisors (the API does not list it; default K2), repeatable: GRAPH for every hypervisor not named "
         "(K2 for two sockets, K4, CQ3, ...), HOST=GRAPH for one hypervisor, by its 'Hypervisor Hostname' or the host id the "
         "import gives it (the name's first label where unambiguous); a host's vCPUs and RAM split evenly over its nodes")
        ("cpu-allocation-ratio", po::value(&o.cpu_allocation_ratio)->default_value(1.0, "1"), "Nova's cpu_allocation_ratio (pinned NUMA clouds: 1)")
        ("ram-allocation-ratio", po::value(&o.ram_allocation_ratio)->default_value(1.0, "1"), "Nova's ram_allocation_ratio")
        ("reserved-host-memory-mb", po::value(&o.reserved_host_memory_mb)->default_value(512),
         "Nova's reserved_host_memory_mb (Placement's host-level reserve under a Nova node rule; subtracted before the split under free)")
        ("node-rule", po::value(&o.node_rule)->default_value("nova-spread"),
         "which pNUMA nodes a VM gets on arrival, written to the snapshot: nova-spread (Nova's default cell order), nova-pack "
         "([compute] packing_host_numa_cells_allocation_strategy = True) or free (vmcap chooses)")
        ("out", po::value(&out)->required(), "snapshot JSON to write (atomically)");
    // clang-format on
    po::variables_map vm;
    if (parse(rest, desc, vm,
              "usage: vmcap import openstack --hypervisors H.json --servers S.json --flavors F.json [--server-groups G.json] "
              "[--inventory DIR] --out C\n"
              "Builds a snapshot from what the OpenStack clients print; every field read is listed in docs/format.md."))
        return 0;
    check_output_path(out);
    std::vector<FileOption> inputs = {
        {"--hypervisors", hypervisors}, {"--servers", servers}, {"--flavors", flavors}, {"--server-groups", groups}};
    if (vm.count("inventory") && !std::filesystem::is_directory(inventory))
        throw UsageError("--inventory: " + inventory + " is not a directory");
    check_outputs_distinct({{"--out", out}}, inputs);
    for (const auto& [option, ratio] : {std::pair<const char*, double>{"--cpu-allocation-ratio", o.cpu_allocation_ratio},
                                        {"--ram-allocation-ratio", o.ram_allocation_ratio}})
        if (!(ratio > 0.0 && ratio <= kMaxAllocationRatio))  // NaN and infinity fail too
            throw UsageError(std::string(option) + " must be a number in (0, " + fmt_num(kMaxAllocationRatio) + "], got " + fmt_num(ratio));
    if (o.reserved_host_memory_mb < 0) throw UsageError("--reserved-host-memory-mb must be >= 0");
    if (o.node_rule != "nova-spread" && o.node_rule != "nova-pack" && o.node_rule != "free")
        throw UsageError("--node-rule must be nova-spread, nova-pack or free, got \"" + o.node_rule + "\"");
    bool default_given = false;
    for (const std::string& t : topologies) {
        const std::size_t eq = t.find('=');
        const std::string name = eq == std::string::npos ? "" : t.substr(0, eq), graph = eq == std::string::npos ? t : t.substr(eq + 1);
        if (eq == std::string::npos && std::exchange(default_given, true))
            throw UsageError("--host-topology " + t + ": a second graph for every hypervisor (" + o.host_topology +
                             " before); name the hypervisor as HOST=GRAPH");
        if (eq != std::string::npos && name.empty()) throw UsageError("--host-topology " + t + ": no hypervisor name before '='");
        try {
            (void)parse_topology(graph);
        } catch (const std::invalid_argument& e) {
            throw UsageError("--host-topology " + t + ": " + e.what());
        }
        if (eq == std::string::npos)
            o.host_topology = graph;
        else if (const auto [it, fresh] = o.host_topology_of.emplace(name, graph); !fresh)
            throw UsageError("--host-topology " + t + ": hypervisor \"" + name + "\" named twice (also " + name + "=" + it->second + ")");
    }
    const auto input = [](const std::string& f) { return OpenStackInput{read_json(f), f}; };
    const OpenStackInput h = input(hypervisors), s = input(servers), f = input(flavors);
    OpenStackInput g;
    if (!groups.empty()) g = input(groups);
    // The inventory of each hypervisor listed, DIR/<ID>.json where it exists (import_openstack
    // names a missing one); never the same file as --out.
    OpenStackInventories inventories;
    inventories.dir = inventory;
    if (vm.count("inventory") && h.doc.is_array())
        for (const auto& row : h.doc) {
            const auto id = row.is_object() ? row.find("ID") : row.end();
            if (id == row.end() || !(id->is_string() || id->is_number_integer())) continue;
            const std::string name = id->is_string() ? id->get<std::string>() : std::to_string(id->get<std::int64_t>());
            const std::filesystem::path file = std::filesystem::path(inventory) / (name + ".json");
            if (name.empty() || name.find('/') != std::string::npos || !std::filesystem::is_regular_file(file)) continue;
            check_outputs_distinct({{"--out", out}}, {{"--inventory", file.string()}});
            inventories.by_id.emplace(name, OpenStackInput{read_json(file.string()), file.string()});
        }
    int skipped = 0;
    Problem p = import_openstack(h, s, f, groups.empty() ? nullptr : &g, o, &skipped, vm.count("inventory") ? &inventories : nullptr);
    // Through the loader's own checks, as any snapshot.
    p = parse_snapshot(nlohmann::json::parse(snapshot_to_json(p).dump()), out);
    write_file_atomic(out, format_json_lines(snapshot_to_json(p)));
    int pinned = 0;
    for (const Vm& v : p.vms) pinned += v.migratable ? 0 : 1;
    std::printf("imported %s: %zu hosts (%zu host types), %zu flavors, %zu VMs (%d not ACTIVE: not migratable), %zu server groups",
                out.c_str(), p.hosts.size(), p.host_types.size(), p.flavors.size(), p.vms.size(), pinned, p.server_groups.size());
    if (skipped > 0) std::printf("; %d servers without a host skipped", skipped);
    std::printf("\n");
    return 0;
}

}  // namespace vmcap::cli

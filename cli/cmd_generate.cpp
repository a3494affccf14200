// Subcommand generate: a random fragmented snapshot.
#include <cmath>
#include <cstdio>

#include <boost/program_options.hpp>

#include "instances/generator.h"
#include "instances/snapshot_io.h"
#include "cli/cli.h"
#include "cli/cli_util.h"

namespace vmcap::cli {

using namespace detail;

int cmd_generate(const Args& args) {
    po::options_description desc("vmcap generate options");
    GenerateOptions o;
    std::string out;
    double node_ram_gib = 64;
    std::string seed_text;
    // clang-format off
    desc.add_options()("help,h", "show this help")
        ("hosts", po::value(&o.hosts)->required(), "number of hosts")
        ("vms", po::value(&o.vms)->required(), "number of VMs (fewer if the hosts fill up)")
        ("host-type", po::value(&o.host_topology)->default_value("CQ3"), "pNUMA topology: K<n>, K<m>,<n>, C4, CQ3, Q33, Q3, 2xK<n>")
        ("node-vcpu", po::value(&o.node_vcpu)->default_value(16), "vCPUs per pNUMA node")
        ("node-ram-gib", po::value(&node_ram_gib)->default_value(64), "RAM per pNUMA node, GiB")
        ("churn", po::value(&o.churn)->default_value(0.3), "extra VMs placed then deleted, as a fraction of --vms (fragments free space)")
        ("budget-fraction", po::value(&o.migration_budget)->default_value(0.01), "max_migrations = ceil(fraction x VMs)")
        ("seed", po::value(&seed_text)->default_value("1"), "random seed (unsigned 64-bit integer)")
        ("out", po::value(&out)->required(), "snapshot file to write (atomically)");
    // clang-format on
    po::variables_map vm;
    if (parse(args, desc, vm,
              "usage: vmcap generate --hosts N --vms M [--host-type T] [--seed S] --out C\n"
              "Writes a random fragmented cluster snapshot (flavor catalog 1c2g ... 16c128g, VMs at random placements)."))
        return 0;
    o.seed = parse_seed(seed_text);
    if (o.node_vcpu < 1 || !(node_ram_gib > 0)) throw UsageError("--node-vcpu and --node-ram-gib must be > 0");
    if (!(o.migration_budget >= 0)) throw UsageError("--budget-fraction must be >= 0");
    o.node_ram_mib = static_cast<Amount>(std::llround(node_ram_gib * 1024.0));
    check_output_path(out);
    const Problem p = generate_cluster(o);
    write_file_atomic(out, format_json_lines(snapshot_to_json(p)));
    std::printf("generated %s: %zu hosts (%s), %zu VMs, budget %lld migrations\n", out.c_str(), p.hosts.size(),
                p.host_types[0].name.c_str(), p.vms.size(), static_cast<long long>(p.constraints.max_migrations));
    return 0;
}

}  // namespace vmcap::cli

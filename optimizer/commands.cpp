// Subcommands eval, capacity, plan and validate (snapshot lives in cmd_snapshot.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <sstream>

#include <boost/program_options.hpp>

#include "evaluators/capacity_model.h"
#include "evaluators/vmcap.h"
#include "instances/snapshot_io.h"
#include "optimizer/annealing.h"
#include "optimizer/cli.h"
#include "optimizer/greedy.h"
#include "optimizer/plan.h"
#include "optimizer/validate.h"

namespace po = boost::program_options;

namespace vmcap::cli {

std::string default_cluster_path() {
#ifdef VMCAP_DEFAULT_CLUSTER
    if (std::filesystem::exists(VMCAP_DEFAULT_CLUSTER)) return VMCAP_DEFAULT_CLUSTER;
#endif
    return "instances/examples/azure-cq3-160.json";
}

namespace {

/** Parses `args` against `desc`; returns true if --help was given (usage already printed). */
bool parse(const Args& args, const po::options_description& desc, po::variables_map& vm, const char* usage) {
    po::store(po::command_line_parser(args).options(desc).run(), vm);
    if (vm.count("help")) {
        std::cout << usage << "\n" << desc << "\n";
        return true;
    }
    po::notify(vm);
    return false;
}

std::vector<Count> parse_counts(const std::string& s, const char* what) {
    std::vector<Count> out;
    std::stringstream ss(s);
    std::string tok;
    while (std::getline(ss, tok, ',')) {
        std::size_t pos = 0;
        long long v = 0;
        try {
            v = std::stoll(tok, &pos);
        } catch (const std::exception&) {
            throw UsageError(std::string(what) + ": '" + tok + "' is not an integer");
        }
        if (pos != tok.size() || v < 0) throw UsageError(std::string(what) + ": '" + tok + "' is not a non-negative integer");
        out.push_back(v);
    }
    return out;
}

std::string fmt_gib(Amount mib) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", static_cast<double>(mib) / 1024.0);
    return buf;
}

std::string fmt_num(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.10g", x);
    return buf;
}

}  // namespace

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

int cmd_plan(const Args& args) {
    po::options_description desc("vmcap plan options");
    std::string cluster, out, algorithm;
    std::int64_t max_mig = -1, max_evals = 0, check = 0;
    double max_gib = -1, time_limit = 60;
    int threads = 1;
    std::uint64_t seed = 1;
    desc.add_options()("help,h", "show this help")
        ("cluster", po::value(&cluster), "cluster snapshot JSON (default: the bundled example)")
        ("out", po::value(&out)->default_value("plan.json"), "migration plan JSON to write (atomically)")
        ("algorithm", po::value(&algorithm)->default_value("sa"), "sa (parallel simulated annealing) or greedy (best single migration, repeated)")
        ("max-migrations", po::value(&max_mig), "migration budget: live migrations (default: the snapshot's constraints)")
        ("max-migrated-gib", po::value(&max_gib), "migration budget: RAM moved, GiB (default: the snapshot's constraints)")
        ("time-limit", po::value(&time_limit)->default_value(60), "wall-clock limit in seconds (a run stopped by it is not reproducible)")
        ("max-evaluations", po::value(&max_evals)->default_value(0), "candidate-move evaluations, all threads (0: 1000 per migratable VM, at least 1,000,000)")
        ("threads", po::value(&threads)->default_value(1), "search threads")
        ("seed", po::value(&seed)->default_value(1), "random seed")
        ("check", po::value(&check)->default_value(0), "recompute the objective from scratch every N accepted moves and fail on any difference")
        ("quiet,q", "no progress on stderr");
    po::variables_map vm;
    if (parse(args, desc, vm, "usage: vmcap plan [--cluster C] [--out plan.json] [--max-migrations N] [--max-migrated-gib G]\n"
                              "                  [--time-limit S] [--threads T] [--seed K]\n"
                              "Maximises sum_f weight_f x capacity_f by simulated annealing over live migrations within the budget.")) return 0;
    if (threads < 1 || threads > 1024) throw UsageError("--threads must be in 1..1024");
    if (!(time_limit > 0)) throw UsageError("--time-limit must be > 0");
    if (max_evals < 0 || check < 0) throw UsageError("--max-evaluations and --check must be >= 0");
    if (vm.count("max-migrations") && max_mig < 0) throw UsageError("--max-migrations must be >= 0");
    if (vm.count("max-migrated-gib") && !(max_gib >= 0)) throw UsageError("--max-migrated-gib must be >= 0");
    if (out.empty()) throw UsageError("--out must not be empty");
    if (algorithm != "sa" && algorithm != "greedy") throw UsageError("--algorithm must be sa or greedy");
    if (cluster.empty()) cluster = default_cluster_path();
    Problem p = load_snapshot(cluster);
    if (vm.count("max-migrations")) p.constraints.max_migrations = max_mig;
    if (vm.count("max-migrated-gib")) p.constraints.max_migrated_ram_mib = static_cast<Amount>(std::floor(max_gib * 1024.0 + 1e-9));
    const CapacityModel model(p);
    if (model.num_targets() == 0) throw InputError(cluster + ": flavors: no flavor has weight > 0, so there is nothing to maximise");

    SearchParams sp;
    sp.max_evaluations = max_evals;
    sp.time_limit_s = time_limit;
    sp.threads = threads;
    sp.seed = seed;
    sp.check_every = check;
    sp.quiet = vm.count("quiet") > 0;
    const SearchResult sr = algorithm == "greedy" ? greedy(model, sp) : anneal(model, sp);
    const Plan plan = build_plan(model, sr.best);
    PlanInfo info;
    info.cluster = cluster;
    info.algorithm = algorithm;
    info.seed = seed;
    info.threads = threads;
    info.evaluations = sr.evaluations;
    info.seconds = sr.seconds;
    info.stopped_by = sr.stopped_by;
    write_file_atomic(out, format_json_lines(plan_to_json(p, plan, info)));

    const auto& c = p.constraints;
    std::printf("cluster   %s: %zu hosts, %zu VMs, %d target flavor(s)\n", cluster.c_str(), p.hosts.size(), p.vms.size(), model.num_targets());
    std::printf("budget    %s migrations, %s GiB migrated RAM\n",
                c.max_migrations == std::numeric_limits<std::int64_t>::max() ? "unlimited" : std::to_string(c.max_migrations).c_str(),
                c.max_migrated_ram_mib == std::numeric_limits<Amount>::max() ? "unlimited" : fmt_gib(c.max_migrated_ram_mib).c_str());
    std::printf("search    %s, %d thread(s), seed %llu: %lld evaluations in %.2f s (%.2f M/s), stopped by %s\n",
                algorithm == "sa" ? "simulated annealing" : "greedy", algorithm == "sa" ? threads : 1,
                static_cast<unsigned long long>(seed), static_cast<long long>(sr.evaluations), sr.seconds,
                sr.seconds > 0 ? static_cast<double>(sr.evaluations) / sr.seconds / 1e6 : 0.0, sr.stopped_by.c_str());
    std::printf("\n%-14s %-6s %7s %8s %8s %7s\n", "flavor", "vNUMA", "weight", "before", "after", "gain");
    for (std::size_t f = 0; f < p.flavors.size(); ++f) {
        if (!p.flavors[f].is_target()) continue;
        std::printf("%-14s %-6s %7s %8lld %8lld %+7lld\n", p.flavors[f].name.c_str(), p.flavors[f].vnuma.name.c_str(),
                    fmt_num(p.flavors[f].weight).c_str(), static_cast<long long>(plan.capacity_before[f]),
                    static_cast<long long>(plan.capacity_after[f]), static_cast<long long>(plan.capacity_after[f] - plan.capacity_before[f]));
    }
    const double gain = plan.objective_after - plan.objective_before;
    std::printf("\nobjective %s -> %s (%+.1f%%)\n", fmt_num(plan.objective_before).c_str(), fmt_num(plan.objective_after).c_str(),
                plan.objective_before > 0 ? 100.0 * gain / plan.objective_before : 0.0);
    std::printf("plan      %zu migration(s), %s GiB RAM -> %s\n", plan.steps.size(), fmt_gib(plan.migrated_ram_mib).c_str(), out.c_str());
    if (plan.dropped > 0) std::printf("note      %d move(s) of the search's best state had no feasible order within the budget and were left out\n", plan.dropped);
    const std::size_t show = std::min<std::size_t>(plan.steps.size(), 15);
    for (std::size_t i = 0; i < show; ++i) {
        const PlanStep& st = plan.steps[i];
        std::printf("  %3zu  %-10s %-10s %s -> %s%s\n", i + 1, p.vms[st.vm].id.c_str(), p.flavors[p.vms[st.vm].flavor].name.c_str(),
                    p.hosts[st.from_host].id.c_str(), p.hosts[st.to_host].id.c_str(), st.temporary ? "  (temporary)" : "");
    }
    if (plan.steps.size() > show) std::printf("  ... %zu more steps in %s\n", plan.steps.size() - show, out.c_str());
    return 0;
}

int cmd_validate(const Args& args) {
    po::options_description desc("vmcap validate options");
    std::string cluster, plan_file;
    desc.add_options()("help,h", "show this help")
        ("cluster", po::value(&cluster), "cluster snapshot JSON the plan was made for (default: the bundled example)")
        ("plan", po::value(&plan_file)->required(), "migration plan JSON");
    po::variables_map vm;
    if (parse(args, desc, vm, "usage: vmcap validate [--cluster C] --plan P\n"
                              "Replays the plan step by step on its own code path. Exit 0 if valid, 3 naming the first violating step.")) return 0;
    if (cluster.empty()) cluster = default_cluster_path();
    const Problem p = load_snapshot(cluster);
    const CapacityModel model(p);
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(read_text_file(plan_file));
    } catch (const nlohmann::json::parse_error& e) {
        throw InputError(plan_file + ": invalid JSON");
    }
    const PlanCheck r = validate_plan(model, doc, plan_file);
    if (!r.ok) {
        std::fprintf(stderr, "vmcap validate: %s: %s\n", plan_file.c_str(), r.error.c_str());
        return 3;
    }
    std::printf("plan OK: %d step(s), objective %s -> %s\n", r.steps, fmt_num(r.objective_before).c_str(), fmt_num(r.objective_after).c_str());
    return 0;
}

}  // namespace vmcap::cli

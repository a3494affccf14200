/**
 * @file cmd_report.cpp
 * `vmcap report --cluster C --plan P --out report.html`: one self-contained page (docs/cli.md
 * "vmcap report") that renders offline — Vega-Lite charts through vega-embed, the three libraries
 * inlined from their npm packages (web/, `npm ci --prefix web`): capacity per target flavor before
 * and after, the pNUMA occupancy of the hosts the plan touches before and after, the waves on a
 * timeline, the objective against the upper bound, and link utilisation with a network. With
 * --simulation instead of --plan, the page of a `vmcap simulate` run (cmd_report_simulation.cpp);
 * both share the page skeleton of report_page.h.
 */
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include <boost/program_options.hpp>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "cli/report_page.h"
#include "evaluators/network/network_load.h"
#include "instances/snapshot_io.h"
#include "optimizer/plan/validate.h"

namespace vmcap::cli {

namespace po = boost::program_options;
using namespace detail;
using oj = nlohmann::ordered_json;

namespace {

/** Most hosts the occupancy heat map shows (those the plan touches most, then by id). */
constexpr std::size_t kMaxHeatHosts = 240;
/** Most link directions the utilisation chart shows (the most utilised). */
constexpr std::size_t kMaxLinks = 24;

/** The snapshot with every VM where the plan's `steps` leave it (validated: ids exist). */
Problem after_steps(const Problem& p, const nlohmann::json& steps) {
    Problem a = p;
    std::map<std::string, int> vm_index, host_index;
    for (std::size_t v = 0; v < p.vms.size(); ++v) vm_index.emplace(p.vms[v].id, static_cast<int>(v));
    for (std::size_t h = 0; h < p.hosts.size(); ++h) host_index.emplace(p.hosts[h].id, static_cast<int>(h));
    for (const auto& st : steps) {
        Vm& vm = a.vms[static_cast<std::size_t>(vm_index.at(st["vm"].get<std::string>()))];
        vm.host = host_index.at(st["to_host"].get<std::string>());
        std::size_t i = 0;
        for (const auto& n : st["to_pnuma"]) vm.pnuma[i++] = static_cast<std::uint8_t>(n.get<int>() - 1);
    }
    return a;
}

oj bar_chart(const std::string& title, const oj& values, const std::string& x, const std::string& y, const std::string& color) {
    return oj{{"$schema", "https://vega.github.io/schema/vega-lite/v5.json"},
              {"title", title},
              {"width", 560},
              {"data", {{"values", values}}},
              {"mark", "bar"},
              {"encoding",
               {{"x", {{"field", x}, {"type", "nominal"}, {"sort", nullptr}}},
                {"xOffset", {{"field", color}, {"sort", nullptr}}},
                {"y", {{"field", y}, {"type", "quantitative"}}},
                {"color", {{"field", color}, {"type", "nominal"}, {"sort", nullptr}}}}}};
}

oj capacity_chart(const Problem& p, const nlohmann::json& plan) {
    oj values = oj::array();
    for (const Flavor& f : p.flavors) {
        if (!f.is_target()) continue;
        values.push_back({{"flavor", f.name}, {"when", "before"}, {"capacity", plan["capacity_before"].value(f.name, 0)}});
        values.push_back({{"flavor", f.name}, {"when", "after"}, {"capacity", plan["capacity_after"].value(f.name, 0)}});
    }
    return bar_chart("How many more VMs of each target flavor fit (VMCAP), before and after the plan", values, "flavor", "capacity",
                     "when");
}

oj objective_chart(const nlohmann::json& plan) {
    oj values = oj::array(
        {{{"figure", "before"}, {"objective", plan["objective_before"]}}, {{"figure", "after"}, {"objective", plan["objective_after"]}}});
    if (plan.contains("upper_bound")) values.push_back({{"figure", "upper bound"}, {"objective", plan["upper_bound"]}});
    oj c = bar_chart("Objective (sum of weight x capacity) against the proven upper bound", values, "figure", "objective", "figure");
    c["encoding"].erase("xOffset");
    return c;
}

/** The hosts the heat map shows: those the steps touch (most steps first), at most kMaxHeatHosts. */
std::vector<int> heat_hosts(const Problem& p, const nlohmann::json& steps) {
    std::map<std::string, int> index, touched;
    for (std::size_t h = 0; h < p.hosts.size(); ++h) index.emplace(p.hosts[h].id, static_cast<int>(h));
    for (const auto& st : steps) {
        ++touched[st["from_host"].get<std::string>()];
        ++touched[st["to_host"].get<std::string>()];
    }
    std::vector<std::pair<int, int>> order;  // (-touches, host)
    for (const auto& [id, n] : touched) order.emplace_back(-n, index.at(id));
    std::sort(order.begin(), order.end());
    std::vector<int> hosts;
    for (const auto& [n, h] : order)
        if (hosts.size() < kMaxHeatHosts) hosts.push_back(h);
    std::sort(hosts.begin(), hosts.end());
    return hosts;
}

oj occupancy_chart(const Problem& p, const nlohmann::json& plan) {
    const std::vector<int> hosts = heat_hosts(p, plan["steps"]);
    // Used amounts per pNUMA node before and after (compute_node_usage: [host][node * R + r]).
    const auto ub = compute_node_usage(p), ua = compute_node_usage(after_steps(p, plan["steps"]));
    const int R = p.num_resources();
    oj values = oj::array();
    for (int h : hosts) {
        const HostType& ht = p.host_type_of(h);
        for (int n = 0; n < ht.num_nodes(); ++n) {
            const double cap = static_cast<double>(ht.node_capacity[n * R + kVcpu]);
            values.push_back({{"host", p.hosts[h].id},
                              {"node", n + 1},
                              {"when", "before"},
                              {"free_vcpu", cap - static_cast<double>(ub[h][n * R + kVcpu])}});
            values.push_back({{"host", p.hosts[h].id},
                              {"node", n + 1},
                              {"when", "after"},
                              {"free_vcpu", cap - static_cast<double>(ua[h][n * R + kVcpu])}});
        }
    }
    return oj{{"$schema", "https://vega.github.io/schema/vega-lite/v5.json"},
              {"title", "Free vCPU per pNUMA node of the " + std::to_string(hosts.size()) +
                            " hosts the plan touches (scattered free cores are the fragmentation it removes)"},
              {"data", {{"values", values}}},
              {"mark", "rect"},
              {"width", 900},
              {"height", 90},
              {"encoding",
               {{"x", {{"field", "host"}, {"type", "ordinal"}, {"axis", {{"labels", hosts.size() <= 40}, {"ticks", false}}}}},
                {"y", {{"field", "node"}, {"type", "ordinal"}, {"title", "pNUMA node"}}},
                {"row", {{"field", "when"}, {"type", "nominal"}, {"sort", {"before", "after"}}, {"title", nullptr}}},
                {"color", {{"field", "free_vcpu"}, {"type", "quantitative"}, {"scale", {{"scheme", "viridis"}}}, {"title", "free vCPU"}}},
                {"tooltip", oj::array({{{"field", "host"}}, {{"field", "node"}}, {{"field", "free_vcpu"}}})}}}};
}

oj timeline_chart(const nlohmann::json& plan) {
    oj values = oj::array();
    for (const auto& st : plan["steps"])
        values.push_back({{"step", st["step"]},
                          {"vm", st["vm"]},
                          {"wave", st.value("wave", 0)},
                          {"start_min", st.value("start_s", 0.0) / 60.0},
                          {"end_min", st.value("end_s", 0.0) / 60.0},
                          {"route", st["from_host"].get<std::string>() + " -> " + st["to_host"].get<std::string>()}});
    return oj{{"$schema", "https://vega.github.io/schema/vega-lite/v5.json"},
              {"title", "The waves on a timeline: each bar one live migration (estimated by the duration model)"},
              {"data", {{"values", values}}},
              {"mark", "bar"},
              {"width", 900},
              {"height", std::clamp<int>(static_cast<int>(values.size()) * 3, 120, 600)},
              {"encoding",
               {{"x", {{"field", "start_min"}, {"type", "quantitative"}, {"title", "minutes from the start"}}},
                {"x2", {{"field", "end_min"}}},
                {"y", {{"field", "step"}, {"type", "ordinal"}, {"axis", nullptr}}},
                {"color", {{"field", "wave"}, {"type", "quantitative"}, {"scale", {{"scheme", "turbo"}}}}},
                {"tooltip", oj::array({{{"field", "step"}}, {{"field", "vm"}}, {{"field", "wave"}}, {{"field", "route"}}})}}}};
}

/** Link utilisation before / after (the most utilised directions), or null without vlinks. */
oj links_chart(const Problem& p, const nlohmann::json& plan) {
    if (!p.network.present() || p.vlinks.empty()) return nullptr;
    const NetworkRoutes routes(p);
    std::vector<int> before(p.vms.size());
    for (std::size_t v = 0; v < p.vms.size(); ++v) before[v] = p.vms[v].host;
    const Problem after = after_steps(p, plan["steps"]);
    std::vector<int> after_host(p.vms.size());
    for (std::size_t v = 0; v < p.vms.size(); ++v) after_host[v] = after.vms[v].host;
    const auto lb = link_loads(p, routes, before), la = link_loads(p, routes, after_host);
    std::vector<std::pair<double, int>> order;
    for (int k = 0; k < routes.num_links(); ++k)
        order.emplace_back(-static_cast<double>(std::max(lb[k], la[k])) / static_cast<double>(routes.capacity(k)), k);
    std::sort(order.begin(), order.end());
    oj values = oj::array();
    for (std::size_t i = 0; i < order.size() && i < kMaxLinks; ++i) {
        const int k = order[i].second;
        const double cap = static_cast<double>(routes.capacity(k));
        values.push_back(
            {{"link", routes.link_name(k)}, {"when", "before"}, {"utilisation_pct", 100.0 * static_cast<double>(lb[k]) / cap}});
        values.push_back({{"link", routes.link_name(k)}, {"when", "after"}, {"utilisation_pct", 100.0 * static_cast<double>(la[k]) / cap}});
    }
    return bar_chart("Link utilisation of the vlinks, the most utilised link directions", values, "link", "utilisation_pct", "when");
}

std::string summary_rows(const nlohmann::json& plan, const std::string& cluster, const std::string& plan_file) {
    const auto& row = report::table_row;
    const auto num = [](double x) {
        char b[64];
        std::snprintf(b, sizeof b, "%.6g", x);
        return std::string(b);
    };
    std::string r = row("cluster", cluster) + row("plan", plan_file) +
                    row("live migrations", std::to_string(plan["migrations"].get<long long>()) + " (" +
                                               num(plan["migrated_ram_gib"].get<double>()) + " GiB of RAM)") +
                    row("objective", num(plan["objective_before"].get<double>()) + " -> " + num(plan["objective_after"].get<double>()));
    if (plan.contains("upper_bound"))
        r += row("upper bound", num(plan["upper_bound"].get<double>()) + " (gap " + fmt_pct(plan["gap"].get<double>()) + ")");
    if (plan.contains("schedule")) {
        const auto& s = plan["schedule"];
        r += row("schedule", std::to_string(s["waves"].get<int>()) + " wave(s), makespan " + fmt_hms(s["makespan_s"].get<double>()) +
                                 "; at most " + std::to_string(s["limits"]["per_host_out"].get<int>()) + " out / " +
                                 std::to_string(s["limits"]["per_host_in"].get<int>()) + " in per host");
    }
    return r;
}

}  // namespace

int cmd_report(const Args& args) {
    po::options_description desc("vmcap report options");
    std::string cluster, plan_file, simulation, out, assets;
    // clang-format off
    desc.add_options()("help,h", "show this help")
        ("plan", po::value(&plan_file), "migration plan JSON (validated on the cluster first)")
        ("simulation", po::value(&simulation), "instead of a plan: the JSON of vmcap simulate --out-json (vmcap-simulation/1)")
        ("cluster", po::value(&cluster), "the snapshot the plan was made for (default: the bundled example)")
        ("free-remaps", "remaps use no budget, as with vmcap plan --free-remaps (for the validation)")
        ("assets", po::value(&assets)->default_value(VMCAP_WEB_ASSETS),
         "node_modules directory holding vega, vega-lite and vega-embed (web/package.json)")
        ("out", po::value(&out)->default_value("report.html"), "the page to write (atomically)");
    // clang-format on
    po::variables_map vm;
    if (parse(args, desc, vm,
              "usage: vmcap report --plan P [--cluster C] [--out report.html]\n"
              "       vmcap report --simulation S [--out report.html]\n"
              "Writes one self-contained HTML page (renders offline) with the charts of a plan or of a simulation."))
        return 0;
    if (vm.count("plan") == vm.count("simulation")) throw UsageError("give either --plan P or --simulation S (one of them)");
    if (vm.count("simulation")) {
        if (vm.count("cluster") || vm.count("free-remaps")) throw UsageError("--cluster and --free-remaps apply to --plan only");
        return report_simulation(simulation, out, assets);
    }
    check_output_path(out);
    if (cluster.empty()) cluster = default_cluster_path();
    std::vector<FileOption> inputs = report::asset_inputs(assets);
    inputs.insert(inputs.end(), {{"--plan", plan_file}, {"--cluster", cluster}});
    check_outputs_distinct({{"--out", out}}, inputs);
    const report::Assets a = report::read_assets(assets);
    nlohmann::json doc;
    Problem p;
    PlanCheck r;
    if (!load_valid_plan("report", cluster, plan_file, vm, doc, p, r)) return 3;
    report::Charts charts = {{"capacity", capacity_chart(p, doc)},
                             {"objective", objective_chart(doc)},
                             {"occupancy", occupancy_chart(p, doc)},
                             {"timeline", timeline_chart(doc)}};
    if (oj l = links_chart(p, doc); !l.is_null()) charts.emplace_back("links", l);
    write_file_atomic(out,
                      report::page("vmcap plan report", "<table>\n" + summary_rows(doc, cluster, plan_file) + "</table>\n", charts, a));
    std::printf("report %s: %zu charts, %d step(s)\n", out.c_str(), charts.size(), r.steps);
    return 0;
}

}  // namespace vmcap::cli

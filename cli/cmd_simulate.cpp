/**
 * @file cmd_simulate.cpp
 * `vmcap simulate`: a real trace replayed over days into a cluster with an
 * online placer and nightly defragmentation (optimizer/solvers/simulate.h); several
 * configurations side by side on the same arrivals (--compare); a CSV and JSON time series and a
 * summary.
 */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <boost/program_options.hpp>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "cli/make_room_flags.h"
#include "cli/network_flags.h"
#include "cli/presets.h"
#include "cli/simulation_file.h"
#include "instances/snapshot_io.h"
#include "instances/vnuma_rule.h"
#include "optimizer/solvers/hosts_needed.h"
#include "optimizer/solvers/simulate.h"
#include "optimizer/solvers/night_policy.h"
#include "optimizer/solvers/optimize.h"
#include "placement/placer.h"

namespace vmcap::cli {

namespace po = boost::program_options;
using namespace detail;

namespace {

/** Seconds after midnight of "HH:MM": the time of day on the trace's clock (SimulateOptions::defrag_at_s). */
double clock_time(const std::string& text) {
    int h = -1, m = -1;
    char colon = 0;
    std::istringstream in(text);
    if (!(in >> h >> colon >> m) || colon != ':' || h < 0 || h > 23 || m < 0 || m > 59 || !in.eof())
        throw UsageError("--defrag-at: expected HH:MM, got '" + text + "'");
    return h * 3600.0 + m * 60.0;
}

/** A budget given as "P%" (0 <= P <= 100, of the VMs on a host) or as a count >= 0: fraction in
 *  [0, 1] and count -1, or fraction -1 and the count. Throws std::invalid_argument otherwise. */
struct ShareOrCount {
    double fraction = -1.0;
    std::int64_t count = -1;
};
ShareOrCount read_share_or_count(const std::string& text) {
    std::size_t used = 0;
    if (!text.empty() && text.back() == '%') {
        const double pct = std::stod(text.substr(0, text.size() - 1), &used);
        if (used != text.size() - 1 || !(pct >= 0.0 && pct <= 100.0)) throw std::invalid_argument("range");
        return {pct / 100.0, -1};
    }
    const long long n = std::stoll(text, &used);
    if (used != text.size() || n < 0) throw std::invalid_argument("range");
    return {-1.0, n};
}

/** --defrag-budget: "0.5%" (of the VMs on a host at the time), "512GiB" (RAM copied) or a count. */
void read_budget(const std::string& text, SimulateOptions& o) {
    try {
        std::size_t used = 0;
        o.budget_ram_mib = -1;
        if (text.size() > 3 && text.compare(text.size() - 3, 3, "GiB") == 0) {
            const double gib = std::stod(text.substr(0, text.size() - 3), &used);
            if (used != text.size() - 3 || !(gib >= 0.0 && gib <= 1e9)) throw std::invalid_argument("range");
            o.budget_ram_mib = std::llround(gib * 1024.0);
            return;
        }
        const ShareOrCount b = read_share_or_count(text);
        if (b.count < 0) o.budget_fraction = b.fraction;
        o.budget_count = b.count;
    } catch (const std::exception&) {
        throw UsageError("--defrag-budget: expected a percentage such as 0.5%, a RAM amount such as 512GiB or a count >= 0, got '" + text +
                         "'");
    }
}

/** One configuration of --compare: "ALGO[:weights=W][:budget=B][:mpr=K]" over the defaults. */
struct Config {
    std::string label;
    SimulateOptions options;
    std::string budget;  ///< as given (--defrag-budget or budget=)
};

/** --weights / weights=: multi-numa, all, demand or forecast. */
void read_weights(const std::string& text, SimulateOptions& o) {
    if (text != "multi-numa" && text != "all" && text != "demand" && text != "forecast")
        throw UsageError("--weights: expected multi-numa, all, demand or forecast, got '" + text + "'");
    o.replay.targets = text;
}

/** --defrag-when / when=: nightly, triggered or both. */
void read_when(const std::string& text, SimulateOptions& o) {
    if (text != "nightly" && text != "triggered" && text != "both")
        throw UsageError("--defrag-when: expected nightly, triggered or both, got '" + text + "'");
    o.defrag_when = text;
}

/** --daily-budget: "1%" (of the VMs on a host at the day's first run) or a count. */
void read_daily_budget(const std::string& text, SimulateOptions& o) {
    try {
        const ShareOrCount b = read_share_or_count(text);
        o.daily_budget_fraction = b.fraction;
        o.daily_budget_count = b.count;
    } catch (const std::exception&) {
        throw UsageError("--daily-budget: expected a percentage such as 1% or a count >= 0, got '" + text + "'");
    }
}

/** --migrations-per-request / mpr=: a count >= 0. */
void read_mpr(const std::string& text, SimulateOptions& o) {
    try {
        std::size_t used = 0;
        const int k = std::stoi(text, &used);
        if (used != text.size() || k < 0) throw std::invalid_argument("range");
        o.migrations_per_request = k;
    } catch (const std::exception&) {
        throw UsageError("--migrations-per-request: expected a count >= 0, got '" + text + "'");
    }
}

/** The --compare list over the defaults `base` (budget text `budget`): each configuration a
 *  night policy of `policies` with its own options (KEY=VALUE, NightPolicyInfo::options) and the
 *  generic fields. */
std::vector<Config> read_configs(const std::string& compare, const SimulateOptions& base, const std::string& budget,
                                 const NightPolicies& policies) {
    std::vector<Config> out;
    std::stringstream cs(compare);
    for (std::string c; std::getline(cs, c, ',');) {
        Config cfg{c, base, budget};
        std::stringstream fs(c);
        std::string field;
        std::getline(fs, field, ':');
        const NightPolicyInfo* policy = policies.find(field);
        if (policy == nullptr)
            throw UsageError("--compare: '" + c + "': expected one of " + policies.names() +
                             ", then optionally :weights=W :budget=B :mpr=K and the policy's own options");
        cfg.options.defrag = field;
        cfg.options.night_policies = &policies;  // the simulation looks the name up where it was read
        std::string own;
        for (const NightOptionInfo& o : policy->options) own += ", " + o.key + "=";
        while (std::getline(fs, field, ':')) {
            const auto eq = field.find('=');
            const std::string key = field.substr(0, eq), value = eq == std::string::npos ? "" : field.substr(eq + 1);
            const bool is_own = eq != std::string::npos && std::any_of(policy->options.begin(), policy->options.end(),
                                                                       [&](const NightOptionInfo& o) { return o.key == key; });
            if (key == "weights") {
                read_weights(value, cfg.options);
            } else if (key == "budget") {
                if (!policy->uses.budget) throw UsageError("--compare: '" + c + "': " + policy->name + " uses no migration budget");
                read_budget(cfg.budget = value, cfg.options);
            } else if (key == "mpr") {
                read_mpr(value, cfg.options);
            } else if (key == "when") {
                read_when(value, cfg.options);
            } else if (is_own) {
                cfg.options.defrag_options[key] = value;
            } else {
                throw UsageError("--compare: unknown field '" + field + "' in '" + c + "' (weights=, budget=, mpr=, when=" + own + ")");
            }
        }
        try {
            policies.make(cfg.options.defrag, cfg.options.defrag_options);
        } catch (const InputError& e) {
            throw UsageError("--compare: '" + c + "': " + e.what());
        }
        out.push_back(std::move(cfg));
    }
    if (out.empty()) throw UsageError("--compare: no configuration");
    return out;
}

/** The --evaluations help: the policies that read it (NightUses::evaluations). */
std::string evaluations_help(const NightPolicies& policies) {
    std::string names;
    for (const NightPolicyInfo& p : policies.all())
        if (p.uses.evaluations) names += (names.empty() ? "" : ", ") + p.name;
    return "evaluations per night of the policies that search (" + names +
           "; a configuration's :evaluations= overrides it; 0: the default for the cluster)";
}

/** The --compare help: the registry's policies, each with its own options. */
std::string compare_help(const NightPolicies& policies) {
    std::string text = "configurations run on the same arrivals, comma-separated, each a night policy:";
    for (const NightPolicyInfo& p : policies.all()) {
        text += (&p == &policies.all().front() ? " " : " | ") + p.name + ": " + p.summary;
        for (const NightOptionInfo& o : p.options) text += " [:" + o.key + "= " + o.help + "]";
    }
    return text +
           "; each optionally followed by :weights=W :budget=B :mpr=K :when=nightly|triggered|both overriding the options below and by the "
           "policy's own options "
           "(e.g. none,sa,sa:budget=1%,sa:weights=demand,none:mpr=2,tabu:tenure=30)";
}

constexpr const char* kCsvHeader =
    "config,seed,day,time_s,live_vms,used_vcpu_fraction,arrivals,rejected,rejected_vcpu,rejected_one_pool,rejected_one_pool_vcpu,"
    "admission_migrations,admitted_by_migrations,migrations,planned_migrations,planned_ram_mib,steps_dropped,makespan_s,objective_before,"
    "objective_after\n";

std::string csv_rows(const std::string& config, std::uint64_t seed, const SimulateResult& r) {
    std::ostringstream o;
    for (const SimulateDay& d : r.days)
        o << config << ',' << seed << ',' << d.day << ',' << d.time_s << ',' << d.live_vms << ',' << d.used_vcpu_fraction << ','
          << d.arrivals << ',' << d.rejected << ',' << d.rejected_vcpu << ',' << d.rejected_one_pool << ',' << d.rejected_one_pool_vcpu
          << ',' << d.admission_migrations << ',' << d.admitted_by_migrations << ',' << d.migrations << ',' << d.planned_migrations << ','
          << d.planned_ram_mib << ',' << d.steps_dropped << ',' << d.makespan_s << ',' << d.objective_before << ',' << d.objective_after
          << '\n';
    return o.str();
}

/** Mean and sample standard deviation of `xs` (0 for fewer than two). */
std::pair<double, double> mean_sd(const std::vector<double>& xs) {
    double m = 0.0, v = 0.0;
    for (double x : xs) m += x / static_cast<double>(xs.size());
    for (double x : xs) v += (x - m) * (x - m);
    return {m, xs.size() > 1 ? std::sqrt(v / static_cast<double>(xs.size() - 1)) : 0.0};
}

/** One configuration on the trace with a seed: its summary line on stdout, its CSV rows
 *  appended to `csv`, its run of the simulation file returned. */
SimulationRun run_config(const Config& c, std::uint64_t seed, const std::vector<TraceVm>& trace, std::string& csv) {
    SimulateOptions o = c.options;
    o.seed = seed;
    o.replay.seed = seed;
    const SimulateResult r = simulate(trace, o);
    csv += csv_rows(c.label, seed, r);
    const double pct = r.arrivals > 0 ? 100.0 * static_cast<double>(r.rejected) / static_cast<double>(r.arrivals) : 0.0;
    std::printf("%-22s %5llu %9lld %8lld %7.3f%% %11lld %9lld %9lld %9lld %8.1f\n", c.label.c_str(), static_cast<unsigned long long>(seed),
                static_cast<long long>(r.arrivals), static_cast<long long>(r.rejected), pct, static_cast<long long>(r.rejected_vcpu),
                static_cast<long long>(r.rejected_one_pool), static_cast<long long>(r.migrations),
                static_cast<long long>(r.admission_migrations), r.seconds);
    if (r.vdcs > 0)
        std::printf("%-22s       revenue gain %+.2f%% (compute $%.0f + network $%.0f over base $%.0f), VDCs rejected %lld of %lld\n", "",
                    100.0 * r.revenue_gain, r.compute_revenue, r.network_revenue, r.base_revenue, static_cast<long long>(r.rejected_vdcs),
                    static_cast<long long>(r.vdcs));
    if (r.steps_dropped > 0)
        std::printf("%-22s       %lld planned steps dropped: no longer fitting when due (--apply waves)\n", "",
                    static_cast<long long>(r.steps_dropped));
    if (r.triggered_runs > 0 || r.plans_refused > 0)
        std::printf("%-22s       %lld triggered run(s); %lld plan(s) not applied: they lowered the forecast coverage\n", "",
                    static_cast<long long>(r.triggered_runs), static_cast<long long>(r.plans_refused));
    if (r.stopped_by != StopReason::Complete)
        std::printf("note: %s stopped by %s after %.1f of %.1f days: the figures above cover what was simulated\n", c.label.c_str(),
                    std::string(to_string(r.stopped_by)).c_str(), r.days.empty() ? 0.0 : r.days.back().time_s / 86400.0,
                    o.replay.time_s / 86400.0);
    std::fflush(stdout);
    SimulationRun run = simulation_run(r);
    run.config = c.label;
    run.seed = seed;
    run.defrag = o.defrag;
    run.weights = o.replay.targets;
    run.defrag_budget = c.budget;
    run.migrations_per_request = o.migrations_per_request;
    return run;
}

/** Per configuration over its seeds: mean and spread of rejections (printed and returned). */
std::vector<SimulationSummary> summarize(const std::vector<Config>& configs, const std::vector<SimulationRun>& runs) {
    std::vector<SimulationSummary> out;
    std::printf("\n%-22s %6s %20s %22s %18s %24s %20s\n", "config", "seeds", "rejected % (sd)", "rejected vCPU (sd)", "migrations (sd)",
                "rejected vCPU-h (sd)", "revenue lost %");
    for (const Config& c : configs) {
        std::vector<double> pct, vcpu, mig, hours, lost;
        for (const SimulationRun& r : runs)
            if (r.config == c.label) {
                pct.push_back(100.0 * r.rejected_fraction.value_or(0.0));
                vcpu.push_back(static_cast<double>(r.rejected_vcpu.value_or(0)));
                mig.push_back(static_cast<double>(r.migrations) + static_cast<double>(r.admission_migrations.value_or(0)));
                hours.push_back(r.rejected_vcpu_hours.value_or(0.0));
                if (r.revenue_gain && r.base_revenue.value_or(0.0) > 0.0)  // priced: the share of the base revenue not earned
                    lost.push_back(100.0 * (1.0 - r.compute_revenue.value_or(0.0) / *r.base_revenue));
            }
        if (pct.empty()) continue;
        const auto [pm, ps] = mean_sd(pct);
        const auto [vm, vs] = mean_sd(vcpu);
        const auto [mm, ms] = mean_sd(mig);
        const auto [hm, hs] = mean_sd(hours);
        char revenue[32] = "not priced";
        if (lost.size() == pct.size()) std::snprintf(revenue, sizeof revenue, "%.4f", mean_sd(lost).first);
        std::printf("%-22s %6zu %11.3f (%6.3f) %13.0f (%6.0f) %10.0f (%5.0f) %14.0f (%7.0f) %20s\n", c.label.c_str(), pct.size(), pm, ps,
                    vm, vs, mm, ms, hm, hs, revenue);
        out.push_back({c.label, static_cast<std::int64_t>(pct.size()), pm, ps, vm, vs, mm, ms, hm, hs});
    }
    return out;
}

}  // namespace

namespace {

/** The command line of `vmcap simulate`, parsed. */
struct SimulateCommand {
    std::string trace_name, data_dir, host_type = "CQ3", compare, defrag_at, every, budget, out_csv, out_json, seed_text, weights,
                                      demand_window, mpr, network_label, apply = "at-once", window, reserve_plan = "on", when = "nightly",
                                      trigger_every = "1h", daily_budget, horizon = "24h", burst = "0", room = "off", one_node = "off";
    ScheduleParams schedule;
    std::vector<std::string> weight_overrides;  ///< --weight NAME=W
    int hosts = 0, copies = 1, seeds = 1, hosts_per_rack = 20, racks_per_pod = 10, vdc_cap = 30;
    MakeRoomFlags make_room;  ///< --make-room-copies, --make-room-second (make_room_flags.h, shared with place)
    double bpc = 0.0, bw_price_gbps_h = 0.58;
    long long node_vcpu = 16;
    double node_gib = 64, days = 0;
    SimulateOptions base;
    NightPolicies policies = builtin_night_policies();  ///< the --compare configurations' policies
    double hosts_needed = -1.0;                         ///< --hosts-needed; < 0: not given
};

po::options_description simulate_options(SimulateCommand& c) {
    po::options_description desc("vmcap simulate options");
    // clang-format off
    desc.add_options()("help,h", "show this help")
        ("trace", po::value(&c.trace_name)->required(), "azure-dev | azure-test | huawei")
        ("data-dir", po::value(&c.data_dir), "directory holding azure-v1-flavor-traces/ and huawei-east-1/ (default: $VMCAP_DATA_DIR, else ../shared/data)")
        ("hosts", po::value(&c.hosts), "hosts in the cluster (required unless --topology-preset gives them)")
        ("hosts-per-rack", po::value(&c.hosts_per_rack)->default_value(20), "hosts per rack (a ToR each with --network; the racks of --placer vmcap-rack-fit)")
        ("racks-per-pod", po::value(&c.racks_per_pod)->default_value(10), "racks per pod")
        ("bpc", po::value(&c.bpc)->default_value(0.0),
         "Gridiron VDCs (Azure only; needs --network or --topology-preset): each tenant batch linked all-to-all with "
         "floor(bpc x min(vCPU of the two)) Mbps, a vlink loaded once both its VMs are placed; 0: no vlinks")
        ("vdc-cap", po::value(&c.vdc_cap)->default_value(30), "with --bpc: most VMs of one VDC (a larger batch is chopped)")
        ("bw-price", po::value(&c.bw_price_gbps_h)->default_value(0.58), "revenue metric: bandwidth price, $ per Gbps-hour (seed 003: 0.58)")
        ("copies", po::value(&c.copies)->default_value(1), "superpose this many copies of the trace (as vmcap snapshot --copies)")
        ("host-type", po::value(&c.host_type)->default_value("CQ3"), "pNUMA topology of every host")
        ("node-vcpu", po::value(&c.node_vcpu)->default_value(16), "vCPUs per pNUMA node")
        ("node-ram-gib", po::value(&c.node_gib)->default_value(64), "RAM per pNUMA node, GiB")
        ("hosts-needed", po::value(&c.hosts_needed),
         "instead of one simulation per seed and configuration, the fewest hosts with which it rejects fewer than this share of "
         "the requests (0: none rejected; 0.001: < 0.1%), by galloping from --hosts and bisection; per seed, then mean and spread")
        ("placer", po::value(&c.base.replay.placer)->default_value("best-fit"), ("online placer: " + placer_names()).c_str())
        ("placer-one-node", po::value(&c.one_node)->default_value("off"),
         "on: a placer that values capacity (vmcap-fit, vmcap-rack-fit, vmcap-first-fit) also keeps room for the trace's largest "
         "flavor of one vNUMA node (weight 1 in the placer's targets, unless --weight names it); the nights' weights stay "
         "--weights'. off: the placer weighs as --weights (multi-numa under demand and forecast)")
        ("days", po::value(&c.days)->default_value(0), "simulated days from the first arrival (0: the whole trace)")
        ("compare", po::value(&c.compare)->default_value("none,greedy"), compare_help(c.policies).c_str())
        ("defrag-at", po::value(&c.defrag_at)->default_value("03:00"),
         "time of day of the nightly defragmentation on the trace's clock (HH:MM; its timestamps modulo 24 h, time 0 taken as "
         "midnight: the Azure test split starts at 07:15, Huawei-East-1 at 00:00): the first night is the first HH:MM at or after "
         "the first arrival")
        ("defrag-every", po::value(&c.every)->default_value("24h"), "interval between defragmentations")
        ("defrag-budget", po::value(&c.budget)->default_value("0.5%"), "live migrations per night: a percentage of the VMs then, a count, or the RAM they may copy (e.g. 512GiB)")
        ("weights", po::value(&c.weights)->default_value("multi-numa"),
         "target weights of the nightly search: multi-numa | all (fixed) | demand (each night, the flavors' shares of the requests of the demand window) "
         "| forecast (each night, 0.01 per flavor plus 1 per VM of capacity up to the flavor's forecast need: --forecast-*)")
        ("forecast-horizon", po::value(&c.horizon)->default_value("24h"),
         "forecast need: the peak of a flavor's net arrivals over this long after the same time of each of the past days (at most 24h)")
        ("forecast-days", po::value(&c.base.forecast.days)->default_value(3), "forecast need: the past days looked at (the max of their peaks)")
        ("forecast-quantile", po::value(&c.base.forecast.quantile)->default_value(1.0),
         "forecast need: the ceil(q x days)-th smallest daily peak instead of the max (q in (0, 1])")
        ("forecast-burst", po::value(&c.burst)->default_value("0"),
         "forecast need: at least the flavor's most arrivals (departures not subtracted) within this long on each past day's "
         "window, so that a flavor arriving and departing in bursts is seen (e.g. the --trigger-every interval; 0: off)")
        ("forecast-room", po::value(&c.room)->default_value("off"),
         "the part of the forecast needs the cluster's free vCPU and RAM hold with the smaller flavors' needs served first: "
         "triggers: a check runs the policy only when a flavor's capacity is below that part; on: that part is the need "
         "everywhere (triggers, targets, coverage check); keep: the triggers as triggers, and every run plans for that part or, "
         "when more, the flavor's capacity now up to its need; off: the needs as forecast")
        ("defrag-when", po::value(&c.when)->default_value("nightly"),
         "nightly (at --defrag-at) | triggered (every --trigger-every, when a flavor's capacity is below its forecast need; within "
         "--daily-budget; a plan lowering the forecast coverage is not applied) | both")
        ("trigger-every", po::value(&c.trigger_every)->default_value("1h"), "--defrag-when triggered|both: trace time between checks")
        ("daily-budget", po::value(&c.daily_budget),
         "--defrag-when triggered|both: live migrations per day over all its runs, a percentage of the VMs then or a count "
         "(default: --defrag-budget)")
        ("weight", po::value(&c.weight_overrides)->composing(), "NAME=W: weight of flavor NAME in the nightly search, after --weights (repeatable)")
        ("demand-window", po::value(&c.demand_window)->default_value("24h"), "--weights demand: the requests of this long before the night")
        ("migrations-per-request", po::value(&c.mpr)->default_value("0"), "admission: up to K live migrations that make room for a request no host takes")
        ("evaluations", po::value(&c.base.evaluations)->default_value(0), evaluations_help(c.policies).c_str())
        ("seed", po::value(&c.seed_text)->default_value("1"), "seed of lifetimes (Azure) and of the search")
        ("seeds", po::value(&c.seeds)->default_value(1), "run every configuration with seeds seed .. seed + N - 1 (mean and spread printed)")
        ("check", "validate every night's plan (vmcap validate's replay) before applying it")
        ("time-limit", po::value<double>(), "wall-clock seconds per configuration; a configuration stopped by it writes what it simulated (default: none)")
        ("out-csv", po::value(&c.out_csv), "time series CSV: one row per configuration, seed and day")
        ("out-json", po::value(&c.out_json), "time series and summary JSON")
        ("apply", po::value(&c.apply)->default_value("at-once"),
         "at-once: each night's plan applied at the night's time; waves: scheduled into waves (the limits below) and run over "
         "their duration while arrivals go on, each destination held from its step's start")
        ("reserve-plan", po::value(&c.reserve_plan)->default_value("on"),
         "with --apply waves: on: a running plan keeps the room its later steps need on their destinations (reserved from the "
         "night, topped up as its earlier steps and departures free it, until each step starts), so arrivals do not take it; "
         "off: arrivals may take it and the step is dropped")
        ;
    // clang-format on
    add_vnuma_rule_options(desc);
    add_schedule_options(desc, c.schedule, &c.window);
    add_network_flags(desc);
    add_make_room_flags(desc, c.make_room);
    add_preset_option(desc, command_presets("simulate"));
    return desc;
}

/** Checks the parsed command line and fills c.base. Throws UsageError. */
void check_simulate(SimulateCommand& c, const po::variables_map& vm) {
    if (c.trace_name != "azure-dev" && c.trace_name != "azure-test" && c.trace_name != "huawei")
        throw UsageError("--trace must be azure-dev, azure-test or huawei");
    const NetworkChoice net = read_network_flags(vm, c.hosts, c.hosts_per_rack, c.racks_per_pod);
    if (net.preset && !net.preset->host_topology.empty()) {  // the preset's servers, unless a host flag is given
        if (vm["host-type"].defaulted()) c.host_type = net.preset->host_topology;
        if (vm["node-vcpu"].defaulted()) c.node_vcpu = net.preset->node_vcpu;
        if (vm["node-ram-gib"].defaulted()) c.node_gib = static_cast<double>(net.preset->node_ram_mib) / 1024.0;
    }
    if (c.hosts < 1 || c.copies < 1) throw UsageError("--hosts and --copies must be >= 1");
    if (c.hosts_per_rack < 1 || c.racks_per_pod < 1) throw UsageError("--hosts-per-rack and --racks-per-pod must be >= 1");
    if (!(c.bpc >= 0.0 && c.bpc <= 1e6)) throw UsageError("--bpc must be in 0..1000000 Mbps per vCPU");
    if (c.bpc > 0.0 && !net.present) throw UsageError("--bpc needs --network or --topology-preset (vlinks need a network)");
    if (c.bpc > 0.0 && c.trace_name == "huawei")
        throw UsageError(
            "--bpc needs the tenant batches of the Azure trace; Huawei-East-1 has no tenants (use --trace azure-dev|azure-test)");
    if (c.vdc_cap < 1) throw UsageError("--vdc-cap must be >= 1");
    if (!(c.bw_price_gbps_h >= 0.0) || !std::isfinite(c.bw_price_gbps_h)) throw UsageError("--bw-price must be >= 0");
    if (c.seeds < 1 || c.seeds > 1000) throw UsageError("--seeds must be in 1..1000");
    if (c.base.evaluations < 0) throw UsageError("--evaluations must be >= 0 (0: the default for the cluster)");
    bool known = false;
    for (const PlacerInfo& p : registered_placers()) known = known || p.name == c.base.replay.placer;
    if (!known) throw UsageError("--placer must be one of " + placer_names() + ", got '" + c.base.replay.placer + "'");
    if (!(c.days >= 0.0) || !std::isfinite(c.days)) throw UsageError("--days must be >= 0");
    for (const std::string& f : {c.out_csv, c.out_json})
        if (!f.empty()) check_output_path(f);
    if (vm.count("hosts-needed")) {
        if (!(c.hosts_needed >= 0.0 && c.hosts_needed < 1.0)) throw UsageError("--hosts-needed must be a share in [0, 1)");
        if (!c.out_csv.empty() || !c.out_json.empty())
            throw UsageError("--hosts-needed prints its table only (no --out-csv or --out-json)");
    }
    SimulateOptions& b = c.base;
    b.seed = parse_seed(c.seed_text);
    b.replay.seed = b.seed;
    b.defrag_at_s = clock_time(c.defrag_at);
    b.defrag_every_s = parse_duration(c.every, "defrag-every");
    read_budget(c.budget, b);
    read_weights(c.weights, b);
    read_when(c.when, b);
    b.trigger_every_s = parse_duration(c.trigger_every, "trigger-every");
    b.forecast.horizon_s = parse_duration(c.horizon, "forecast-horizon");
    if (!(b.forecast.horizon_s <= 86400.0)) throw UsageError("--forecast-horizon must be at most 24h");
    if (b.forecast.days < 1) throw UsageError("--forecast-days must be >= 1");
    // 0 turns the burst floor off; parse_duration accepts only durations > 0, so say both.
    if (c.burst == "0")
        b.forecast.burst_s = 0.0;
    else
        try {
            b.forecast.burst_s = parse_duration(c.burst, "forecast-burst");
        } catch (const UsageError&) {
            throw UsageError("--forecast-burst: expected 0 (off) or a duration > 0 such as 90s, 45m or 4h, got '" + c.burst + "'");
        }
    if (c.one_node != "on" && c.one_node != "off") throw UsageError("--placer-one-node must be on or off, got '" + c.one_node + "'");
    b.placer_one_node = c.one_node == "on";
    if (c.room != "off" && c.room != "triggers" && c.room != "on" && c.room != "keep")
        throw UsageError("--forecast-room must be off, triggers, on or keep, got '" + c.room + "'");
    b.forecast_room = c.room == "on"         ? ForecastRoom::On
                      : c.room == "keep"     ? ForecastRoom::Keep
                      : c.room == "triggers" ? ForecastRoom::Triggers
                                             : ForecastRoom::Off;
    if (!(b.forecast.quantile > 0.0 && b.forecast.quantile <= 1.0)) throw UsageError("--forecast-quantile must be in (0, 1]");
    if (vm.count("daily-budget")) read_daily_budget(c.daily_budget, b);
    for (const std::string& nw : c.weight_overrides) {
        const auto eq = nw.find('=');
        double w = -1.0;
        std::size_t used = 0;
        try {
            if (eq != std::string::npos && eq > 0) w = std::stod(nw.substr(eq + 1), &used);
        } catch (const std::exception&) {
            w = -1.0;
        }
        if (eq == std::string::npos || eq == 0 || used != nw.size() - eq - 1 || !(w >= 0.0) || !std::isfinite(w))
            throw UsageError("--weight: expected NAME=W with W >= 0, got '" + nw + "'");
        if (!b.replay.weights.emplace(nw.substr(0, eq), w).second)
            throw UsageError("--weight: flavor '" + nw.substr(0, eq) + "' given twice");
    }
    b.replay.demand_window_s = parse_duration(c.demand_window, "demand-window");
    read_vnuma_rule_options(vm, b.replay.rule);
    read_mpr(c.mpr, b);
    b.make_room = read_make_room_flags(c.make_room);
    b.check = vm.count("check") > 0;
    if (vm.count("time-limit")) {
        b.time_limit_s = vm["time-limit"].as<double>();
        if (!(b.time_limit_s > 0.0)) throw UsageError("--time-limit must be > 0");
    }
    try {
        b.replay.host_type = uniform_host_type(c.host_type, c.node_vcpu, std::llround(c.node_gib * 1024.0));
    } catch (const InputError& e) {
        throw UsageError(std::string("--host-type: ") + e.what());
    }
    b.replay.num_hosts = c.hosts;
    b.replay.hosts_per_rack = c.hosts_per_rack;
    b.replay.racks_per_pod = c.racks_per_pod;
    if (net.present) b.network = net.options;
    if (c.apply != "at-once" && c.apply != "waves") throw UsageError("--apply must be at-once or waves, got '" + c.apply + "'");
    check_schedule_options(c.schedule, c.window);
    if (c.apply == "waves" || !c.window.empty()) b.schedule = c.schedule;  // the window: a budget in time
    b.apply_over_duration = c.apply == "waves";
    if (c.reserve_plan != "on" && c.reserve_plan != "off")
        throw UsageError("--reserve-plan must be on or off, got '" + c.reserve_plan + "'");
    b.reserve_plan = c.reserve_plan == "on";
    b.bpc_mbps = c.bpc;
    b.vdc_cap = c.vdc_cap;
    b.bw_price_per_mbps_h = c.bw_price_gbps_h / 1000.0;
    c.network_label = net.present ? net.label : "";
}

/** Memory of a simulation per request of the trace read (every copy, whatever --days) and per
 *  host, bytes: the maximum resident size of `vmcap simulate --trace azure-test --compare none`
 *  grew by about 240 bytes per request (--copies 3 to 6) and 1,500 per CQ3 host (10 to 100,000
 *  hosts); with margins for larger hosts and the nights' copies of the cluster. */
constexpr double kBytesPerRequest = 400.0, kBytesPerHost = 4096.0;
/** At most this many requests (the replay numbers VMs with an int) and this many nights (each
 *  copies the cluster, O(VMs), even without defragmentation). */
constexpr double kMaxRequests = 1e9, kMaxNights = 100000;

/** Bytes of memory available to the process: MemAvailable of /proc/meminfo, else the physical
 *  memory; 0 when neither is known. */
double available_memory() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    double kib = 0;
    std::string unit;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024.0;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

/** Refuses, before any output, what cannot fit: --days beyond the trace's arrivals (`requests` of
 *  one copy over `span_s` seconds), more nights than kMaxNights, or a trace (x --copies) and
 *  cluster (--hosts) larger than kMaxRequests or the memory available. Throws UsageError. */
void check_sizes(const SimulateCommand& c, std::size_t requests, double span_s) {
    char msg[512];
    const double days = std::max(1.0, std::ceil(span_s / 86400.0));
    if (c.days > days) {
        std::snprintf(msg, sizeof msg, "--days %g: beyond the trace, whose arrivals span %.2f days (at most %g)", c.days, span_s / 86400.0,
                      days);
        throw UsageError(msg);
    }
    const double nights = (c.days > 0 ? c.days * 86400.0 : span_s) / c.base.defrag_every_s;
    if (nights > kMaxNights) {
        std::snprintf(msg, sizeof msg, "--defrag-every %s: %.0f nights over the span, at most %.0f", c.every.c_str(), nights, kMaxNights);
        throw UsageError(msg);
    }
    const double total = static_cast<double>(requests) * c.copies;
    const double trace_bytes = total * kBytesPerRequest, host_bytes = static_cast<double>(c.hosts) * kBytesPerHost;
    const double avail = available_memory();
    const double gib = 1024.0 * 1024.0 * 1024.0;
    if (total > kMaxRequests || (avail > 0.0 && trace_bytes + host_bytes > avail)) {
        if (host_bytes > trace_bytes)
            std::snprintf(msg, sizeof msg,
                          "--hosts %d: a cluster this large needs about %.3g GiB, more than the %.3g GiB of memory available", c.hosts,
                          (trace_bytes + host_bytes) / gib, avail / gib);
        else if (total > kMaxRequests)
            std::snprintf(msg, sizeof msg, "--copies %d: %zu requests x %d copies = %.3g requests, more than %.3g", c.copies, requests,
                          c.copies, total, kMaxRequests);
        else
            std::snprintf(msg, sizeof msg,
                          "--copies %d: %zu requests x %d copies need about %.3g GiB, more than the %.3g GiB of memory available", c.copies,
                          requests, c.copies, (trace_bytes + host_bytes) / gib, avail / gib);
        throw UsageError(msg);
    }
}

/** The flavors named by --weight and --vnuma are in the trace. Throws UsageError. */
void check_flavor_names(const SimulateCommand& c, const std::vector<TraceVm>& trace) {
    std::set<std::string> names;
    for (const TraceVm& v : trace) names.insert(v.flavor_name);
    std::string all;
    for (const std::string& n : names) all += (all.empty() ? "" : " ") + n;
    const auto check = [&](const std::string& option, const std::string& name) {
        if (!names.contains(name))
            throw UsageError(option + ": flavor '" + name + "' is not in the trace " + c.trace_name + " (its flavors: " + all + ")");
    };
    for (const auto& [name, w] : c.base.replay.weights) check("--weight", name);
    for (const auto& [name, topo] : c.base.replay.rule.overrides) check("--vnuma", name);
}

/** --hosts-needed: per configuration and seed, hosts_needed() galloping from --hosts; a table on
 *  stdout, each probe on stderr. Returns the exit code. */
int run_hosts_needed(const SimulateCommand& c, const std::vector<Config>& configs, const std::string& dir, double span_s,
                     std::vector<TraceVm> first, const std::atomic<bool>* stop) {
    char goal[64] = "no request";
    if (c.hosts_needed > 0.0) std::snprintf(goal, sizeof goal, "fewer than %g%% of the requests", 100.0 * c.hosts_needed);
    std::printf("hosts needed: the fewest hosts rejecting %s (placer %s, from %d hosts)\n", goal, c.base.replay.placer.c_str(), c.hosts);
    std::printf("%-22s %5s %7s %9s %8s %8s\n", "config", "seed", "hosts", "rejected", "probes", "seconds");
    std::vector<std::vector<double>> found(configs.size());
    for (int k = 0; k < c.seeds; ++k) {
        const std::uint64_t seed = c.base.seed + static_cast<std::uint64_t>(k);
        const std::vector<TraceVm> trace = k == 0 ? std::move(first) : read_named_trace(c.trace_name, dir, c.copies, seed, nullptr);
        for (std::size_t i = 0; i < configs.size(); ++i) {
            SimulateOptions o = configs[i].options;
            o.seed = o.replay.seed = seed;
            o.replay.time_s = span_s;
            o.stop = stop;
            const auto t0 = std::chrono::steady_clock::now();
            HostsNeeded r;
            try {
                r = hosts_needed(trace, o, c.hosts_needed, c.hosts, [&](const HostsProbe& p) {
                    std::fprintf(stderr, "simulate: %s, seed %llu: %d hosts reject %lld of %lld requests%s\n", configs[i].label.c_str(),
                                 static_cast<unsigned long long>(seed), p.hosts, static_cast<long long>(p.rejected),
                                 static_cast<long long>(p.arrivals), p.ok ? "" : " (too many)");
                });
            } catch (const InputError&) {
                if (stop->load()) return kExitInterrupted;
                throw;
            }
            std::int64_t rejected = 0;
            for (const HostsProbe& p : r.probes)
                if (p.hosts == r.hosts) rejected = p.rejected;
            std::printf("%-22s %5llu %7d %9lld %8zu %8.1f\n", configs[i].label.c_str(), static_cast<unsigned long long>(seed), r.hosts,
                        static_cast<long long>(rejected), r.probes.size(),
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            std::fflush(stdout);
            found[i].push_back(r.hosts);
        }
    }
    std::printf("\n%-22s %6s %20s %7s %7s\n", "config", "seeds", "hosts needed (sd)", "min", "max");
    for (std::size_t i = 0; i < configs.size(); ++i) {
        const auto [m, sd] = mean_sd(found[i]);
        std::printf("%-22s %6zu %11.1f (%6.1f) %7.0f %7.0f\n", configs[i].label.c_str(), found[i].size(), m, sd,
                    *std::min_element(found[i].begin(), found[i].end()), *std::max_element(found[i].begin(), found[i].end()));
    }
    return 0;
}

}  // namespace

int cmd_simulate(const Args& args) {
    SimulateCommand c;
    const po::options_description desc = simulate_options(c);
    po::variables_map vm;
    std::vector<ResolvedOption> resolved;  // the options --preset names, as resolved
    if (parse_with_preset(args, desc, vm,
                          "usage: vmcap simulate --trace T --hosts N [--days D] [--compare none,greedy,sa,tabu] [--defrag-budget 0.5%] "
                          "[--seeds 3] [--out-csv F] [--preset recommended]\n"
                          "Replays a real trace with an online placer and nightly defragmentation; counts the requests rejected.",
                          command_presets("simulate"), &resolved))
        return 0;
    const std::string preset = vm["preset"].as<std::string>();
    check_simulate(c, vm);
    const std::vector<Config> configs = read_configs(c.compare, c.base, c.budget, c.policies);
    for (const Config& cfg : configs) check_simulate_options(cfg.options);
    const std::string dir = !c.data_dir.empty()             ? c.data_dir
                            : std::getenv("VMCAP_DATA_DIR") ? std::getenv("VMCAP_DATA_DIR")
                                                            : VMCAP_SHARED_DATA_DIR;
    check_outputs_distinct({{"--out-csv", c.out_csv}, {"--out-json", c.out_json}}, named_trace_files(c.trace_name, dir));
    // Every check before any output: the first seed's trace, its size against memory, the span
    // against --days and the nights, the flavors named by --weight and --vnuma, the replay's problem.
    std::vector<TraceVm> first = read_named_trace(c.trace_name, dir, 1, c.base.seed, nullptr);
    if (first.empty()) throw InputError(c.trace_name + ": the trace has no VMs");
    const double span = first.back().arrival_s - first.front().arrival_s;
    check_sizes(c, first.size(), span);
    if (c.copies > 1) first = read_named_trace(c.trace_name, dir, c.copies, c.base.seed, nullptr);
    check_flavor_names(c, first);
    const double span_s = c.days > 0 ? c.days * 86400.0 : span;
    {
        SimulateOptions o = configs.front().options;
        o.replay.time_s = span_s;
        check_simulation(first, o);
    }

    const std::atomic<bool>* stop = stop_on_signals();  // SIGINT / SIGTERM: the outputs hold what was simulated, exit 130
    if (preset != "none") std::printf("preset %s: %s\n", preset.c_str(), resolved_text(resolved).c_str());
    if (c.hosts_needed >= 0.0) return run_hosts_needed(c, configs, dir, span_s, std::move(first), stop);
    std::string csv = kCsvHeader;
    SimulationFile file;
    std::printf("%-22s %5s %9s %8s %8s %11s %9s %9s %9s %8s\n", "config", "seed", "arrivals", "rejected", "%", "rejected vCPU", "one pool",
                "nightly", "admission", "seconds");
    for (int k = 0; k < c.seeds && !stop->load(); ++k) {
        const std::uint64_t seed = c.base.seed + static_cast<std::uint64_t>(k);
        const std::vector<TraceVm> trace = k == 0 ? std::move(first) : read_named_trace(c.trace_name, dir, c.copies, seed, nullptr);
        for (Config cfg : configs) {
            if (stop->load()) break;
            cfg.options.stop = stop;
            cfg.options.on_day = [](const SimulateDay& d) {
                std::fprintf(stderr, "  day %d: %lld arrivals, %lld rejected, %lld migrations, %.1f%% vCPU used\n", d.day,
                             static_cast<long long>(d.arrivals), static_cast<long long>(d.rejected),
                             static_cast<long long>(d.migrations + d.admission_migrations), 100.0 * d.used_vcpu_fraction);
            };
            cfg.options.replay.time_s = span_s;
            std::fprintf(stderr, "simulate: %s, seed %llu...\n", cfg.label.c_str(), static_cast<unsigned long long>(seed));
            file.runs.push_back(run_config(cfg, seed, trace, csv));
        }
    }
    file.summary = summarize(configs, file.runs);
    if (!c.out_csv.empty()) write_file_atomic(c.out_csv, csv);
    if (!c.out_json.empty()) {
        file.trace = c.trace_name;
        file.copies = c.copies;
        file.hosts = c.hosts;
        file.host_type = c.base.replay.host_type.name;
        file.placer = c.base.replay.placer;
        file.placer_one_node = c.one_node;
        file.network = c.network_label;
        file.bpc = c.bpc;
        file.span_s = span_s;
        file.defrag_at_s = c.base.defrag_at_s;
        file.defrag_every_s = c.base.defrag_every_s;
        file.defrag_budget = c.budget;
        file.apply = c.apply;
        file.window_s = c.base.schedule ? c.base.schedule->window_s : 0.0;
        if (c.apply == "waves") file.reserve_plan = c.reserve_plan;
        file.defrag_when = c.when;
        file.trigger_every_s = c.base.trigger_every_s;
        file.daily_budget = vm.count("daily-budget") ? c.daily_budget : c.budget;
        file.forecast_room = c.room;
        file.forecast_horizon_s = c.base.forecast.horizon_s;
        file.forecast_days = c.base.forecast.days;
        file.forecast_quantile = c.base.forecast.quantile;
        file.forecast_burst_s = c.base.forecast.burst_s;
        file.make_room_copies = c.make_room.copies;
        file.make_room_second = c.make_room.second;
        file.seed = c.base.seed;
        file.seeds = c.seeds;
        if (preset != "none") {
            file.preset = preset;
            file.preset_options.emplace();
            for (const ResolvedOption& r : resolved) file.preset_options->emplace_back(r.option, r.value);
        }
        write_file_atomic(c.out_json, simulation_file_text(file));
    }
    return stop->load() ? kExitInterrupted : 0;
}

}  // namespace vmcap::cli

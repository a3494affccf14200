/**
 * @file cmd_simulate.cpp
 * `vmcap simulate` (issue 27, first part): a real trace replayed over days into a cluster with an
 * online placer and nightly defragmentation (optimizer/solvers/simulate.h); several
 * configurations side by side on the same arrivals (--compare); a CSV and JSON time series and a
 * summary.
 */
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "instances/snapshot_io.h"
#include "instances/vnuma_rule.h"
#include "optimizer/solvers/simulate.h"
#include "placement/placer.h"

namespace vmcap::cli {

namespace po = boost::program_options;
using namespace detail;
using oj = nlohmann::ordered_json;

namespace {

/** Seconds after midnight of "HH:MM" (the trace's day starts at its first arrival). */
double clock_time(const std::string& text) {
    int h = -1, m = -1;
    char colon = 0;
    std::istringstream in(text);
    if (!(in >> h >> colon >> m) || colon != ':' || h < 0 || h > 23 || m < 0 || m > 59 || !in.eof())
        throw UsageError("--defrag-at: expected HH:MM, got '" + text + "'");
    return h * 3600.0 + m * 60.0;
}

/** --defrag-budget: "0.5%" (of the VMs on a host at the time) or a count. */
void read_budget(const std::string& text, SimulateOptions& o) {
    try {
        std::size_t used = 0;
        if (!text.empty() && text.back() == '%') {
            const double pct = std::stod(text.substr(0, text.size() - 1), &used);
            if (used != text.size() - 1 || !(pct >= 0.0 && pct <= 100.0)) throw std::invalid_argument("range");
            o.budget_fraction = pct / 100.0;
            o.budget_count = -1;
            return;
        }
        const long long n = std::stoll(text, &used);
        if (used != text.size() || n < 0) throw std::invalid_argument("range");
        o.budget_count = n;
    } catch (const std::exception&) {
        throw UsageError("--defrag-budget: expected a percentage such as 0.5% or a count >= 0, got '" + text + "'");
    }
}

oj day_json(const SimulateDay& d, const std::vector<std::string>& flavors) {
    oj cap = oj::object();
    for (std::size_t f = 0; f < flavors.size() && f < d.capacity_after.size(); ++f) cap[flavors[f]] = d.capacity_after[f];
    return oj{{"day", d.day},
              {"time_s", d.time_s},
              {"live_vms", d.live_vms},
              {"used_vcpu_fraction", d.used_vcpu_fraction},
              {"arrivals", d.arrivals},
              {"rejected", d.rejected},
              {"rejected_vcpu", d.rejected_vcpu},
              {"migrations", d.migrations},
              {"objective_before", d.objective_before},
              {"objective_after", d.objective_after},
              {"capacity_after", cap}};
}

std::string csv_rows(const std::string& config, const SimulateResult& r) {
    std::ostringstream o;
    for (const SimulateDay& d : r.days)
        o << config << ',' << d.day << ',' << d.time_s << ',' << d.live_vms << ',' << d.used_vcpu_fraction << ',' << d.arrivals << ','
          << d.rejected << ',' << d.rejected_vcpu << ',' << d.migrations << ',' << d.objective_before << ',' << d.objective_after << '\n';
    return o.str();
}

/** One configuration on the trace: its summary line on stdout, its CSV rows appended to `csv`,
 *  its JSON run returned. */
oj run_config(const std::string& c, const std::vector<TraceVm>& trace, const SimulateOptions& base, std::string& csv) {
    SimulateOptions o = base;
    o.defrag = c;
    const SimulateResult r = simulate(trace, o);
    csv += csv_rows(c, r);
    oj series = oj::array();
    for (const SimulateDay& d : r.days) series.push_back(day_json(d, r.flavors));
    std::printf("%-8s %10lld %9lld %7.2f%% %12lld %11lld %9.1f\n", c.c_str(), static_cast<long long>(r.arrivals),
                static_cast<long long>(r.rejected),
                r.arrivals > 0 ? 100.0 * static_cast<double>(r.rejected) / static_cast<double>(r.arrivals) : 0.0,
                static_cast<long long>(r.rejected_vcpu), static_cast<long long>(r.migrations), r.seconds);
    if (r.stopped_by != "complete")
        std::printf("note     %s stopped by %s after %.1f of %.1f days: the figures above cover what was simulated\n", c.c_str(),
                    r.stopped_by.c_str(), r.days.empty() ? 0.0 : r.days.back().time_s / 86400.0, o.replay.time_s / 86400.0);
    std::fflush(stdout);
    return oj{{"config", c},
              {"arrivals", r.arrivals},
              {"rejected", r.rejected},
              {"rejected_vcpu", r.rejected_vcpu},
              {"migrations", r.migrations},
              {"seconds", r.seconds},
              {"stopped_by", r.stopped_by},
              {"rejected_by_flavor", r.rejected_by_flavor},
              {"days", series}};
}

}  // namespace

int cmd_simulate(const Args& args) {
    po::options_description desc("vmcap simulate options");
    std::string trace_name, data_dir, host_type = "CQ3", compare = "none,greedy", defrag_at = "03:00", every = "24h", budget = "0.5%",
                                      out_csv, out_json, seed_text = "1";
    int hosts = 0, copies = 1;
    long long node_vcpu = 16;
    double node_gib = 64, days = 0;
    SimulateOptions base;
    // clang-format off
    desc.add_options()("help,h", "show this help")
        ("trace", po::value(&trace_name)->required(), "azure-dev | azure-test | huawei")
        ("data-dir", po::value(&data_dir), "directory holding azure-v1-flavor-traces/ and huawei-east-1/ (default: $VMCAP_DATA_DIR, else ../shared/data)")
        ("hosts", po::value(&hosts)->required(), "hosts in the cluster")
        ("copies", po::value(&copies)->default_value(1), "superpose this many copies of the trace (as vmcap snapshot --copies)")
        ("host-type", po::value(&host_type)->default_value("CQ3"), "pNUMA topology of every host")
        ("node-vcpu", po::value(&node_vcpu)->default_value(16), "vCPUs per pNUMA node")
        ("node-ram-gib", po::value(&node_gib)->default_value(64), "RAM per pNUMA node, GiB")
        ("placer", po::value(&base.replay.placer)->default_value("best-fit"), ("online placer: " + placer_names()).c_str())
        ("days", po::value(&days)->default_value(0), "simulated days from the first arrival (0: the whole trace)")
        ("compare", po::value(&compare)->default_value("none,greedy"), "configurations run on the same arrivals: none, greedy, sa (comma-separated)")
        ("defrag-at", po::value(&defrag_at)->default_value("03:00"), "time of the nightly defragmentation (HH:MM after the first arrival's midnight)")
        ("defrag-every", po::value(&every)->default_value("24h"), "interval between defragmentations")
        ("defrag-budget", po::value(&budget)->default_value("0.5%"), "live migrations per night: a percentage of the VMs then, or a count")
        ("evaluations", po::value(&base.evaluations)->default_value(0), "sa: annealing evaluations per night (0: the default for the cluster)")
        ("seed", po::value(&seed_text)->default_value("1"), "seed of lifetimes (Azure) and of the search")
        ("check", "validate every night's plan (vmcap validate's replay) before applying it")
        ("time-limit", po::value<double>(), "wall-clock seconds per configuration; a configuration stopped by it writes what it simulated (default: none)")
        ("out-csv", po::value(&out_csv), "time series CSV: one row per configuration and day")
        ("out-json", po::value(&out_json), "time series and summary JSON");
    // clang-format on
    po::variables_map vm;
    if (parse(args, desc, vm,
              "usage: vmcap simulate --trace T --hosts N [--days D] [--compare none,greedy,sa] [--defrag-budget 0.5%] [--out-csv F]\n"
              "Replays a real trace with an online placer and nightly defragmentation; counts the requests rejected."))
        return 0;
    if (trace_name != "azure-dev" && trace_name != "azure-test" && trace_name != "huawei")
        throw UsageError("--trace must be azure-dev, azure-test or huawei");
    if (hosts < 1 || copies < 1) throw UsageError("--hosts and --copies must be >= 1");
    if (!(days >= 0.0) || !std::isfinite(days)) throw UsageError("--days must be >= 0");
    for (const std::string& f : {out_csv, out_json})
        if (!f.empty()) check_output_path(f);
    base.seed = parse_seed(seed_text);
    base.replay.seed = base.seed;
    base.defrag_at_s = clock_time(defrag_at);
    base.defrag_every_s = parse_duration(every, "defrag-every");
    read_budget(budget, base);
    base.check = vm.count("check") > 0;
    if (vm.count("time-limit")) {
        base.time_limit_s = vm["time-limit"].as<double>();
        if (!(base.time_limit_s > 0.0)) throw UsageError("--time-limit must be > 0");
    }
    base.stop = stop_on_signals();  // SIGINT / SIGTERM: the outputs are written with what was simulated, exit 130
    try {
        base.replay.host_type = uniform_host_type(host_type, node_vcpu, std::llround(node_gib * 1024.0));
    } catch (const InputError& e) {
        throw UsageError(std::string("--host-type: ") + e.what());
    }
    base.replay.num_hosts = hosts;
    std::vector<std::string> configs;
    std::stringstream cs(compare);
    for (std::string c; std::getline(cs, c, ',');) {
        if (c != "none" && c != "greedy" && c != "sa") throw UsageError("--compare: expected none, greedy or sa, got '" + c + "'");
        configs.push_back(c);
    }
    if (configs.empty()) throw UsageError("--compare: no configuration");
    const std::string dir = !data_dir.empty()               ? data_dir
                            : std::getenv("VMCAP_DATA_DIR") ? std::getenv("VMCAP_DATA_DIR")
                                                            : VMCAP_SHARED_DATA_DIR;
    const std::vector<TraceVm> trace = read_named_trace(trace_name, dir, copies, base.seed, nullptr);
    if (trace.empty()) throw InputError(trace_name + ": the trace has no VMs");
    const double span = trace.back().arrival_s - trace.front().arrival_s;
    base.replay.time_s = days > 0 ? days * 86400.0 : span;

    std::string csv =
        "config,day,time_s,live_vms,used_vcpu_fraction,arrivals,rejected,rejected_vcpu,migrations,objective_before,objective_after\n";
    oj runs = oj::array();
    std::printf("%-8s %10s %9s %8s %12s %11s %9s\n", "config", "arrivals", "rejected", "%", "rejected vCPU", "migrations", "seconds");
    for (const std::string& c : configs) {
        if (base.stop->load()) break;
        runs.push_back(run_config(c, trace, base, csv));
    }
    if (!out_csv.empty()) write_file_atomic(out_csv, csv);
    if (!out_json.empty()) {
        oj doc{{"format", "vmcap-simulation/1"},
               {"trace", trace_name},
               {"copies", copies},
               {"hosts", hosts},
               {"host_type", base.replay.host_type.name},
               {"placer", base.replay.placer},
               {"span_s", base.replay.time_s},
               {"defrag_at_s", base.defrag_at_s},
               {"defrag_every_s", base.defrag_every_s},
               {"defrag_budget", budget},
               {"seed", base.seed},
               {"runs", runs}};
        write_file_atomic(out_json, format_json_lines(doc));
    }
    return base.stop->load() ? kExitInterrupted : 0;
}

}  // namespace vmcap::cli

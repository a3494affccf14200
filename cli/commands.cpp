// Subcommands plan and validate (eval and capacity: cmd_capacity.cpp; snapshot: cmd_snapshot.cpp;
// exact: cmd_exact.cpp).
#include <algorithm>
#include <atomic>
#include <csignal>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <sstream>
#include <unordered_map>

#include <boost/program_options.hpp>

#include "evaluators/state/capacity_model.h"
#include "evaluators/rules/link_filter.h"
#include "evaluators/objective/uncovered_need_term.h"
#include "evaluators/registry/registry.h"
#include "evaluators/closed_forms/vmcap.h"
#include "instances/forecast.h"
#include "instances/snapshot_io.h"
#include "optimizer/search/annealing.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "cli/presets.h"
#include "optimizer/solvers/optimize.h"
#include "optimizer/plan/plan.h"
#include "optimizer/bound/upper_bound.h"
#include "optimizer/plan/validate.h"

namespace po = boost::program_options;

namespace vmcap::cli {

using namespace detail;

std::string default_cluster_path() {
#ifdef VMCAP_DEFAULT_CLUSTER
    if (std::filesystem::exists(VMCAP_DEFAULT_CLUSTER)) return VMCAP_DEFAULT_CLUSTER;
#endif
    return "instances/examples/azure-cq3-160.json";
}

// load_for_search: contract in cli_util.h.
// apply_demand_weights: contract in cli_util.h.
void apply_demand_weights(Problem& p, const std::string& cluster, const po::variables_map& vm, DemandWeighting& out) {
    out.log = vm["demand-log"].as<std::string>();
    out.window_s = vm["demand-window"].as<double>();
    const std::vector<FlavorRequest> requests = read_request_log(out.log);
    if (requests.empty()) throw InputError(out.log + ": no request (expected rows time_s,flavor after the header)");
    out.until_s = requests.front().time_s;
    for (const FlavorRequest& r : requests) out.until_s = std::max(out.until_s, r.time_s);
    if (vm.count("demand-until")) out.until_s = vm["demand-until"].as<double>();
    std::map<std::string, int> index;
    for (std::size_t f = 0; f < p.flavors.size(); ++f) index.emplace(p.flavors[f].name, static_cast<int>(f));
    // A request in the window for a flavor the snapshot does not have cannot be weighed: refuse.
    for (const FlavorRequest& r : requests)
        if (r.time_s > out.until_s - out.window_s && r.time_s <= out.until_s && !index.count(r.flavor))
            throw InputError(out.log + ":" + std::to_string(r.line) + ": flavor '" + r.flavor + "' is not in " + cluster);
    const std::map<std::string, double> w = demand_weights(requests, out.until_s, out.window_s, out.requests);
    if (out.requests == 0)
        throw InputError(out.log + ": no request in the demand window (" + fmt_num(out.until_s - out.window_s) + ", " +
                         fmt_num(out.until_s) + "] s");
    for (Flavor& f : p.flavors) {
        const auto it = w.find(f.name);
        f.weight = it == w.end() ? 0.0 : it->second;
    }
    out.flavors = static_cast<int>(w.size());
}

/** Adds the hosts of option `name` ("h1,h2,...") to `list` (sorted, distinct). Throws InputError
 *  naming an unknown host. */
void add_host_list(const Problem& p, const std::string& cluster, const po::variables_map& vm, const char* name, std::vector<int>& list) {
    if (!vm.count(name)) return;
    std::unordered_map<std::string, int> index;
    for (std::size_t h = 0; h < p.hosts.size(); ++h) index.emplace(p.hosts[h].id, static_cast<int>(h));
    std::stringstream in(vm[name].as<std::string>());
    for (std::string id; std::getline(in, id, ',');) {
        if (id.empty()) continue;
        const auto it = index.find(id);
        if (it == index.end()) throw InputError(std::string("--") + name + ": host \"" + id + "\" is not in " + cluster);
        list.push_back(it->second);
    }
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
}

Problem load_for_search(std::string& cluster, const po::variables_map& vm, std::int64_t max_mig, double max_gib, DemandWeighting* demand) {
    if (vm.count("max-migrations") && max_mig < 0) throw UsageError("--max-migrations must be >= 0");
    if (vm.count("max-migrated-gib") && !(max_gib >= 0)) throw UsageError("--max-migrated-gib must be >= 0");
    if (cluster.empty()) cluster = default_cluster_path();
    Problem p = load_snapshot(cluster);
    if (vm.count("max-migrations")) p.constraints.max_migrations = max_mig;
    if (vm.count("max-migrated-gib")) {
        if (!std::isfinite(max_gib)) throw UsageError("--max-migrated-gib must be a finite number >= 0");
        p.constraints.max_migrated_ram_mib = gib_to_mib_budget(max_gib);
    }
    if (vm.count("free-remaps")) p.constraints.remap_counts_as_migration = false;
    if (vm.count("no-remaps")) p.constraints.remaps_allowed = false;
    add_host_list(p, cluster, vm, "drain", p.constraints.drain_hosts);
    add_host_list(p, cluster, vm, "no-target", p.constraints.no_target_hosts);
    read_term_options(vm, p);
    if (demand != nullptr && vm.count("weights") && vm["weights"].as<std::string>() == "demand") {
        apply_demand_weights(p, cluster, vm, *demand);
        demand->applied = true;
    }
    bool any_target = false;
    for (const Flavor& f : p.flavors) any_target = any_target || f.is_target();
    if (!any_target) throw InputError(cluster + ": flavors: no flavor has weight > 0, so there is nothing to maximise");
    return p;
}

std::chrono::steady_clock::time_point time_deadline(const po::variables_map& vm, std::chrono::steady_clock::time_point start,
                                                    double grace_s) {
    if (!vm.count("time-limit")) return std::chrono::steady_clock::time_point::max();
    const double limit = vm["time-limit"].as<double>();
    if (!(limit > 0)) throw UsageError("--time-limit must be > 0");
    return deadline_after(start, limit + grace_s);
}

void add_model_options(po::options_description& desc, bool time_limit) {
    if (time_limit)
        desc.add_options()("time-limit", po::value<double>()->value_name("S"),
                           "wall-clock limit in seconds for the exact-fallback VMCAP evaluations: none starts after it; if one "
                           "would, the command stops with exit code 4 and writes nothing (default: none)");
    desc.add_options()("exact-work-limit", po::value<std::int64_t>()->value_name("N"),
                       ("most work one exact-fallback VMCAP evaluation may do (a branch-and-bound node over m placements on n "
                        "pNUMA nodes costs m + n^2); beyond it the command stops with exit code 2 naming the host type and "
                        "flavor (default: " +
                        std::to_string(kDefaultExactWorkLimit) + ")")
                           .c_str());
}

std::int64_t exact_work_limit(const po::variables_map& vm) {
    if (!vm.count("exact-work-limit")) return kDefaultExactWorkLimit;
    const std::int64_t limit = vm["exact-work-limit"].as<std::int64_t>();
    if (limit < 1) throw UsageError("--exact-work-limit must be >= 1");
    return limit;
}

std::unique_ptr<CapacityModel> model_for(const Problem& p, const std::string& file, const po::variables_map& vm,
                                         std::chrono::steady_clock::time_point deadline) {
    ModelOptions options;
    options.source = file;
    options.deadline = deadline;
    options.exact_work_limit = exact_work_limit(vm);
    try {
        return std::make_unique<CapacityModel>(p, options);
    } catch (const std::invalid_argument& e) {
        throw InputError(file + ": " + e.what());
    } catch (const InputError& e) {  // e.g. the network's routes ("network: ..."): name the file
        const std::string what = e.what();
        if (what.rfind(file + ":", 0) == 0) throw;
        throw InputError(file + ": " + what);
    }
}

void add_term_options(po::options_description& desc) {
    for (const TermInfo& t : registered_terms())
        desc.add_options()(std::string(t.name).c_str(), po::value<double>()->value_name("W"), std::string(t.help).c_str());
}

void read_term_options(const po::variables_map& vm, Problem& p) {
    for (const TermInfo& t : registered_terms()) {
        const std::string name(t.name);
        if (!vm.count(name)) continue;
        const double w = vm[name].as<double>();
        if (!(w >= 0.0) || !std::isfinite(w)) throw UsageError("--" + name + " must be a finite number >= 0");
        std::erase_if(p.objective_terms, [&](const auto& e) { return e.first == name; });
        p.objective_terms.emplace_back(name, w);
    }
}

// parse_duration: contract in cli_util.h.
double parse_duration(const std::string& text, const char* option) {
    double scale = 1.0;
    std::string num = text;
    if (!num.empty() && (num.back() == 's' || num.back() == 'm' || num.back() == 'h')) {
        scale = num.back() == 'h' ? 3600.0 : num.back() == 'm' ? 60.0 : 1.0;
        num.pop_back();
    }
    double v = 0.0;
    const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
    if (num.empty() || ec != std::errc() || end != num.data() + num.size() || !std::isfinite(v) || !(v > 0.0) || v * scale > 1e9)
        throw UsageError(std::string("--") + option + ": expected a duration > 0 such as 90s, 45m or 4h, got '" + text + "'");
    return v * scale;
}

void add_schedule_options(po::options_description& desc, ScheduleParams& sch, std::string* window) {
    // clang-format off
    if (window != nullptr)
        desc.add_options()("window", po::value(window), "maintenance window, e.g. 4h, 90m or 3600s: the plan (its waves one after another) must end "
                                                        "within it; the search spends the migrations on what fits (default: none)");
    desc.add_options()
        ("max-out-per-host", po::value(&sch.limits.per_host_out)->default_value(1),
         "live migrations leaving one host at once (Nova's max_concurrent_live_migrations)")
        ("max-in-per-host", po::value(&sch.limits.per_host_in)->default_value(1), "live migrations entering one host at once")
        ("max-concurrent", po::value(&sch.limits.cluster)->default_value(0), "live migrations in flight in the whole cluster (0: no limit)")
        ("max-per-tenant", po::value(&sch.limits.per_tenant)->default_value(0),
         "live migrations of one tenant's VMs (the snapshot's vms[].tenant) in flight at once (0: no limit)")
        ("migration-network", po::value<std::string>()->default_value("shared")->notifier([&sch](const std::string& v) {
             if (v != "shared" && v != "separate") throw UsageError("--migration-network must be shared or separate");
             sch.limits.copies_on_network = v == "shared";
         }),
         "with a network section: shared (memory copies cross the links beside the vlinks' reservations) or separate (a "
         "migration network of its own: only the concurrency limits apply)")
        ("migration-mbps", po::value(&sch.durations.mbps)->default_value(10000),
         "bandwidth of one live migration's memory copy, Mbps (with a network: on the route between the hosts, beside the vlinks)")
        ("dirty-factor", po::value(&sch.durations.dirty_factor)->default_value(1.5, "1.5"),
         "data a live migration sends / the VM's RAM (pre-copy rounds resend dirtied pages)")
        ("migration-overhead", po::value(&sch.durations.overhead_s)->default_value(10.0, "10"),
         "fixed seconds per live migration (scheduling, set-up, switch-over)");
    // clang-format on
}

void check_schedule_options(ScheduleParams& sch, const std::string& window) {
    if (!window.empty()) sch.window_s = parse_duration(window, "window");
    try {
        sch.limits.validate();
        sch.durations.validate();
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("schedule: ") + e.what() +
                         " (--max-out-per-host, --max-in-per-host, --max-concurrent, --max-per-tenant, --migration-mbps, --dirty-factor, "
                         "--migration-overhead)");
    }
}

/** Parses --move-mix "kind=share,..." into sp.mix (kinds by name: moves/move_list.h). */
void parse_move_mix(const std::string& text, SearchParams& sp) {
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t comma = std::min(text.find(',', pos), text.size());
        const std::string item = text.substr(pos, comma - pos);
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos) throw UsageError("--move-mix: expected kind=share, got '" + item + "'");
        const std::string kind = item.substr(0, eq);
        double share = 0.0;
        try {
            std::size_t used = 0;
            share = std::stod(item.substr(eq + 1), &used);
            if (used != item.size() - eq - 1) throw std::invalid_argument("trailing characters");
        } catch (const std::exception&) {
            throw UsageError("--move-mix: '" + item + "' is not kind=number");
        }
        try {
            sp.mix.set(kind, share);
        } catch (const std::invalid_argument& e) {
            throw UsageError(std::string("--move-mix: ") + e.what());
        }
        pos = comma + 1;
    }
    try {
        sp.mix.validate();
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--move-mix: ") + e.what());
    }
}

namespace {

// Set by SIGINT / SIGTERM (an atomic store is async-signal-safe); `vmcap plan`'s search and
// `vmcap place`'s admission poll it. The handler restores the default action, so a second signal
// ends the process at once.
std::atomic<bool> stop_requested{false};

extern "C" void request_stop(int sig) {
    stop_requested.store(true);
    std::signal(sig, SIG_DFL);
}

}  // namespace

namespace detail {

const std::atomic<bool>* stop_on_signals() {
    std::signal(SIGINT, request_stop);
    std::signal(SIGTERM, request_stop);
    return &stop_requested;
}

}  // namespace detail

namespace {

/** `vmcap plan`'s command line, parsed and checked. */
struct PlanOptions {
    std::string cluster, out, algorithm, start, mix, parallel, seed_text;
    std::int64_t max_mig = -1, max_evals = 0, check = 0;
    double max_gib = -1, time_limit = 60, t0 = 0, reheat = 3.0, neutral = 1.0;
    int threads = 1, tenure = 25, candidates = 256, repair_rounds = 4, room_steps = OptimizeParams::kDefaultRoomSteps;
    std::int64_t ruin_iterations = OptimizeParams::kDefaultRuinIterations;
    std::uint64_t seed = 1;
    bool quiet = false;
    std::string weights = "snapshot", demand_log;  ///< --weights, --demand-log
    double demand_window = 86400.0;
    po::variables_map vm;         ///< for the model and term options (model_for, load_for_search)
    DemandWeighting demand;       ///< --weights demand: what load_for_search applied (for the report and the plan file)
    std::string requests;         ///< --requests: the request log the forecast needs come from
    ForecastOptions forecast;     ///< --forecast-horizon, --forecast-days
    double forecast_until = 0.0;  ///< the forecast's time (--forecast-until, else the log's last request)
    ScheduleParams schedule;      ///< waves, durations and --window
    std::string window;
    std::string preset = "none";           ///< --preset
    std::vector<ResolvedOption> resolved;  ///< the options the preset names, as resolved
    int arrival_steps = 40;                ///< --bound-arrival-steps (UpperBoundParams::arrival_steps)
};

/** Parses and checks `args` into `o`; false when --help was shown. Throws UsageError (exit 2)
 *  before any work, an unwritable --out included. */
bool parse_plan_options(const Args& args, PlanOptions& o) {
    po::options_description desc("vmcap plan options");
    std::string &cluster = o.cluster, &out = o.out, &algorithm = o.algorithm, &start = o.start, &mix = o.mix, &parallel = o.parallel,
                &seed_text = o.seed_text;
    std::int64_t &max_mig = o.max_mig, &max_evals = o.max_evals, &check = o.check;
    double &max_gib = o.max_gib, &time_limit = o.time_limit, &t0 = o.t0, &reheat = o.reheat, &neutral = o.neutral;
    int &threads = o.threads, &tenure = o.tenure, &candidates = o.candidates, &repair_rounds = o.repair_rounds;
    // clang-format off
    desc.add_options()("help,h", "show this help")
        ("cluster", po::value(&cluster), "cluster snapshot JSON (default: the bundled example)")
        ("out", po::value(&out)->default_value("plan.json"), "migration plan JSON to write (atomically)")
        ("algorithm", po::value(&algorithm)->default_value("sa"), "sa (parallel simulated annealing), tabu (parallel tabu search) or greedy (best single migration, repeated)")
        ("tabu-tenure", po::value(&tenure)->default_value(25), "tabu: iterations a moved VM may not move again (randomized in [T, 2T])")
        ("tabu-candidates", po::value(&candidates)->default_value(256), "tabu: candidate moves evaluated per iteration")
        ("repair-rounds", po::value(&repair_rounds)->default_value(4),
         "searches re-run from the ordered part of a best state that has no order within the budget (0: off)")
        ("max-migrations", po::value(&max_mig), "migration budget: live migrations (default: the snapshot's constraints)")
        ("max-migrated-gib", po::value(&max_gib), "migration budget: RAM moved, GiB (default: the snapshot's constraints)")
        ("time-limit", po::value(&time_limit)->default_value(60), "wall-clock limit in seconds (a run stopped by it is not reproducible)")
        ("max-evaluations", po::value(&max_evals)->default_value(0), "candidate-move evaluations, all threads (0: 1500 per migratable VM, at least 1,000,000, at most 250,000,000)")
        ("threads", po::value(&threads)->default_value(1), "search threads")
        ("bound-arrival-steps", po::value(&o.arrival_steps)->default_value(40),
         "after the search, at most this many multiplier vectors of the bound's Lagrangian on moved VMs' conservation "
         "(prices on removals and arrivals per flavor; within the time limit; 0: off; docs/upper-bound.md, \"Arrivals priced\")")
        ("parallel", po::value(&parallel)->default_value("regions"),
         "annealing with threads > 1: regions (workers own disjoint host regions and budget shares, re-drawn at every "
         "synchronisation point: one chain at the threads' combined rate; used when the objective is separable per host and "
         "every region gets >= 16 hosts, else chains) or chains (independent chains of the whole cluster sharing their best state)")
        ("sa-start", po::value(&start)->default_value("greedy"), "annealing start: greedy (the greedy plan, so never worse) or snapshot")
        ("room-steps", po::value(&o.room_steps)->default_value(OptimizeParams::kDefaultRoomSteps),
         "annealing / tabu: also run greedy with room steps, each evicting at most this many VMs of one host so that one more VM of a target flavor fits there, and keep its plan when strictly above the search's (0: off; --algorithm greedy never takes them)")
        ("ruin-iterations", po::value(&o.ruin_iterations)->default_value(OptimizeParams::kDefaultRuinIterations),
         "annealing / tabu with room steps: ruin-and-recreate iterations after the search, from the better of its plan and the room plan (related migrations given back, greedy with room steps again, kept when not worse), within a fifth of --time-limit; 0: off")
        ("initial-temperature", po::value(&t0)->default_value(0), "annealing start temperature in objective units (0: calibrated)")
        ("free-remaps", "a move to other pNUMA nodes of the VM's own host (remap) does not count against the budget "
                        "(overrides constraints.remap_counts_as_migration; default: it counts)")
        ("no-remaps", "no VM moves to other pNUMA nodes of its own host (OpenStack Nova cannot; snapshots of vmcap import openstack say so "
                      "themselves: constraints.remaps_allowed false)")
        ("no-destination-lists", "draw every migrate destination uniformly (no per-flavor candidate lists)")
        ("neutral-acceptance", po::value(&neutral)->default_value(0.1, "0.1"), "annealing: probability of accepting a move that changes neither the objective nor the migration count")
        ("reheat", po::value(&reheat)->default_value(3.0), "annealing reheat: temperature factor after a stall of 10% of the run without a new best (1: off)")
        ("move-mix", po::value(&mix), "share of proposals per compound move, e.g. swap=0.15,exchange=0.2,ejection=0.1,remap=0,gather=0.05 "
                                      "(kinds not named keep their default; the rest are migrate moves; gather: only with vlinks)")
        ("seed", po::value(&seed_text)->default_value("1"), "random seed (unsigned 64-bit integer)")
        ("check", po::value(&check)->default_value(0), "recompute the objective from scratch every N accepted moves and fail on any difference")
        ("quiet,q", "no progress on stderr")
        ("weights", po::value(&o.weights)->default_value("snapshot"),
         "flavor weights: snapshot (as the snapshot gives them) or demand (every flavor weighted by 1,000 x its share of "
         "the requests in --demand-log's window, three decimals, at least 0.001; flavors not requested there get 0)")
        ("demand-log", po::value(&o.demand_log), "--weights demand: request log CSV, header time_s,flavor, one row per VM request (docs/cli.md)")
        ("demand-window", po::value(&o.demand_window)->default_value(86400), "--weights demand: the window's length, seconds")
        ("demand-until", po::value<double>(), "--weights demand: the window's end, seconds in the log's time base (default: its last request)")
        ("requests", po::value(&o.requests),
         "forecast targets from a request log CSV (header time_s,flavor, as --demand-log): every flavor weighted 0.01 and the term "
         "uncovered-need (weight 1 unless --uncovered-need is given) over each flavor's forecast need, the most requests it had in "
         "--forecast-horizon after the same time of one of the last --forecast-days days (docs/cli.md)")
        ("forecast-horizon", po::value(&o.forecast.horizon_s)->default_value(86400), "--requests: the hours ahead the need is for, seconds (at most 86400)")
        ("forecast-days", po::value(&o.forecast.days)->default_value(3), "--requests: the past days looked at (the max of their counts)")
        ("forecast-until", po::value<double>(), "--requests: the forecast's time, seconds in the log's time base (default: its last request)")
        ("drain", po::value<std::string>()->value_name("HOST,..."),
         "hosts to empty: their VMs are migrated off first (within the budget), then the search optimises with what is left; "
         "no VM moves onto them (added to the snapshot's constraints.drain_hosts)")
        ("no-target", po::value<std::string>()->value_name("HOST,..."),
         "hosts closed to incoming VMs: their VMs may stay, leave or be remapped (added to constraints.no_target_hosts)");
    // clang-format on
    add_schedule_options(desc, o.schedule, &o.window);
    add_term_options(desc);
    add_model_options(desc);
    add_preset_option(desc, command_presets("plan"));
    if (parse_with_preset(args, desc, o.vm,
                          "usage: vmcap plan [--cluster C] [--out plan.json] [--max-migrations N] [--max-migrated-gib G]\n"
                          "                  [--time-limit S] [--threads T] [--seed K]\n"
                          "Maximises sum_f weight_f x capacity_f by simulated annealing over live migrations within the budget.",
                          command_presets("plan"), &o.resolved))
        return false;
    o.preset = o.vm["preset"].as<std::string>();
    o.seed = parse_seed(seed_text);
    o.quiet = o.vm.count("quiet") > 0;
    if (threads < 1 || threads > 1024) throw UsageError("--threads must be in 1..1024");
    if (o.arrival_steps < 0) throw UsageError("--bound-arrival-steps must be >= 0");
    if (!(time_limit > 0)) throw UsageError("--time-limit must be > 0");
    if (max_evals < 0 || check < 0) throw UsageError("--max-evaluations and --check must be >= 0");
    if (out.empty()) throw UsageError("--out must not be empty");
    check_output_path(out);  // before any work: an unwritable --out must not waste a night's search
    check_outputs_distinct(
        {{"--out", out}},
        {{"--cluster", cluster.empty() ? default_cluster_path() : cluster}, {"--demand-log", o.demand_log}, {"--requests", o.requests}});
    if (algorithm != "sa" && algorithm != "tabu" && algorithm != "greedy") throw UsageError("--algorithm must be sa, tabu or greedy");
    if (tenure < 0 || candidates < 1) throw UsageError("--tabu-tenure must be >= 0 and --tabu-candidates >= 1");
    if (start != "greedy" && start != "snapshot") throw UsageError("--sa-start must be greedy or snapshot");
    if (o.room_steps < 0 || o.room_steps > 64) throw UsageError("--room-steps must be in 0..64");
    if (o.ruin_iterations < 0) throw UsageError("--ruin-iterations must be >= 0");
    if (t0 < 0) throw UsageError("--initial-temperature must be >= 0");
    if (parallel != "regions" && parallel != "chains") throw UsageError("--parallel must be regions or chains");
    if (!(reheat >= 1.0 && reheat <= 1e6)) throw UsageError("--reheat must be in [1, 1e6]");
    if (o.weights != "snapshot" && o.weights != "demand") throw UsageError("--weights must be snapshot or demand");
    if (o.weights == "demand" && o.demand_log.empty()) throw UsageError("--weights demand needs --demand-log");
    if (o.weights != "demand" && (o.vm.count("demand-log") || o.vm.count("demand-until") || !o.vm["demand-window"].defaulted()))
        throw UsageError("--demand-log, --demand-window and --demand-until need --weights demand");
    if (!(o.demand_window > 0.0) || !std::isfinite(o.demand_window))
        throw UsageError("--demand-window must be a finite number > 0 seconds");
    if (o.vm.count("demand-until") && !std::isfinite(o.vm["demand-until"].as<double>()))
        throw UsageError("--demand-until must be a finite number of seconds");
    if (!o.requests.empty() && o.weights == "demand")
        throw UsageError("--requests and --weights demand are exclusive (both set the weights)");
    if (o.requests.empty() && (o.vm.count("forecast-until") || !o.vm["forecast-horizon"].defaulted() || !o.vm["forecast-days"].defaulted()))
        throw UsageError("--forecast-horizon, --forecast-days and --forecast-until need --requests");
    if (!(o.forecast.horizon_s > 0.0 && o.forecast.horizon_s <= 86400.0))
        throw UsageError("--forecast-horizon must be in (0, 86400] seconds");
    if (o.forecast.days < 1) throw UsageError("--forecast-days must be >= 1");
    if (o.vm.count("forecast-until") && !std::isfinite(o.vm["forecast-until"].as<double>()))
        throw UsageError("--forecast-until must be a finite number of seconds");
    check_schedule_options(o.schedule, o.window);
    return true;
}

/** `vmcap plan --requests`: every flavor of `p` weighted 0.01 with its forecast need
 *  (forecast_need over the log's requests, each an arrival: its count in the window) and the
 *  uncovered-need term of weight 1 unless the command line gave one. Throws InputError naming the
 *  log (and line) on a malformed log, a request for a flavor `cluster` lacks, or less than a day
 *  of requests before the forecast's time. */
void apply_forecast(Problem& p, const std::string& cluster, PlanOptions& o) {
    const std::vector<FlavorRequest> requests = read_request_log(o.requests);
    if (requests.empty()) throw InputError(o.requests + ": no request (expected rows time_s,flavor after the header)");
    std::map<std::string, int> index;
    for (std::size_t f = 0; f < p.flavors.size(); ++f) index.emplace(p.flavors[f].name, static_cast<int>(f));
    std::vector<FlavorEvent> events;
    double first = requests.front().time_s, last = first;
    for (const FlavorRequest& r : requests) {
        const auto it = index.find(r.flavor);
        if (it == index.end())
            throw InputError(o.requests + ":" + std::to_string(r.line) + ": flavor '" + r.flavor + "' is not in " + cluster);
        events.push_back(FlavorEvent{r.time_s, it->second, +1});
        first = std::min(first, r.time_s);
        last = std::max(last, r.time_s);
    }
    std::stable_sort(events.begin(), events.end(), [](const FlavorEvent& a, const FlavorEvent& b) { return a.time_s < b.time_s; });
    o.forecast_until = o.vm.count("forecast-until") ? o.vm["forecast-until"].as<double>() : last;
    const auto need = forecast_need(events, static_cast<int>(p.flavors.size()), first, o.forecast_until, o.forecast);
    if (!need)
        throw InputError(o.requests + ": less than a day of requests before " + fmt_num(o.forecast_until) + " s (the first at " +
                         fmt_num(first) + " s): no day to forecast from");
    for (std::size_t f = 0; f < p.flavors.size(); ++f) {
        p.flavors[f].weight = 0.01;
        p.flavors[f].need = (*need)[f];
    }
    const bool given =
        std::any_of(p.objective_terms.begin(), p.objective_terms.end(), [](const auto& t) { return t.first == UncoveredNeedTerm::kName; });
    if (!given) p.objective_terms.emplace_back(std::string(UncoveredNeedTerm::kName), 1.0);
}

/** The optimiser's parameters for `o` on `p` (its time limit is set by the caller). Throws
 *  UsageError on a bad --move-mix or parameter combination. */
OptimizeParams plan_optimize_params(const PlanOptions& o, const Problem& p) {
    SearchParams sp;
    sp.max_evaluations = o.max_evals;
    sp.time_limit_s = o.time_limit;
    sp.threads = o.threads;
    sp.regions = o.parallel == "regions";
    sp.seed = o.seed;
    sp.check_every = o.check;
    sp.quiet = o.quiet;
    sp.initial_temperature = o.t0;
    sp.reheat_factor = o.reheat;
    sp.neutral_acceptance = o.neutral;
    sp.destination_lists = o.vm.count("no-destination-lists") == 0;
    // Free remaps cost no budget, so the search proposes them (5%) unless --move-mix says otherwise.
    if (!p.constraints.remap_counts_as_migration && o.mix.find("remap=") == std::string::npos) sp.mix.set("remap", 0.05);
    if (!o.mix.empty()) parse_move_mix(o.mix, sp);
    OptimizeParams op;
    op.algorithm = o.algorithm == "greedy" ? Algorithm::Greedy : o.algorithm == "sa" ? Algorithm::Annealing : Algorithm::Tabu;
    op.greedy_start = o.start == "greedy";
    op.room_steps = o.room_steps;
    op.ruin_iterations = o.ruin_iterations;
    op.search = sp;
    op.tabu = TabuParams{o.tenure, o.candidates};
    op.repair_rounds = o.repair_rounds;
    op.schedule = o.schedule;
    try {
        op.validate();
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    return op;
}

/** The plan file's document: the plan, the run's figures, the bound and the network figures. */
nlohmann::ordered_json plan_document(const PlanOptions& o, const CapacityModel& model, const OptimizeResult& res, const UpperBound& ub) {
    const Problem& p = model.problem();
    const Plan& plan = res.plan;
    const SearchResult& sr = res.search;
    PlanInfo info;
    info.cluster = o.cluster;
    info.algorithm = res.fell_back ? o.algorithm + " (greedy plan written)" : o.algorithm;
    info.seed = o.seed;
    info.threads = o.threads;
    info.evaluations = sr.evaluations;
    info.seconds = sr.seconds;
    info.stopped_by = sr.stopped_by;
    if (o.algorithm != "greedy") info.search_best_objective = res.search_best_objective;
    info.repair_rounds = res.repair_rounds;
    info.regions = sr.regions;
    info.search_phase_ran = res.phase_evaluations > 0;
    info.convergence = sr.convergence;
    info.upper_bound = ub.score;
    info.upper_bound_covers_objective = ub.covers_objective;
    info.upper_bound_seconds = ub.seconds;
    info.upper_bound_complete = ub.complete;
    info.upper_bound_stopped_by = ub.stopped_by;
    if (ub.arrivals_priced) {
        info.upper_bound_removal_only = ub.removal_only;
        info.upper_bound_arrival_prices = ub.arrival_prices;
    }
    info.upper_bound_arrival_steps = ub.arrival_steps;
    info.upper_bound_arrival_seconds = ub.arrival_seconds;
    auto doc = plan_to_json(p, plan, info);
    // The network: links over capacity in the snapshot and after the plan (the rule keeps every
    // step within capacity, or no worse than the snapshot on a link it already overloads).
    const auto net = network_figures(model, plan_end_hosts(p, plan));
    if (!net.is_null()) doc["network"] = net;
    if (o.preset != "none") {  // what --preset set, and what the command line kept
        nlohmann::ordered_json options = nlohmann::ordered_json::object();
        for (const ResolvedOption& r : o.resolved) options[r.option] = r.value;
        doc["preset"] = {{"name", o.preset}, {"options", options}};
    }
    return doc;
}

/** The network lines of the summary (a snapshot with vlinks), from the plan's network figures. */
void print_plan_network(const Problem& p, const nlohmann::ordered_json& doc) {
    const nlohmann::ordered_json net = doc.contains("network") ? doc["network"] : nlohmann::ordered_json();
    const auto num = [&](const char* key) { return net.is_null() ? 0.0 : net[key].get<double>(); };
    const auto count = [&](const char* key) { return net.is_null() ? std::size_t{0} : net[key].size(); };
    std::printf(
        "network   %zu vlink(s); link capacities kept at every step; link directions over capacity: %zu in the snapshot, %zu "
        "after the plan\n",
        p.vlinks.size(), count("links_over_capacity_before"), count("links_over_capacity_after"));
    std::printf("          max link utilisation %.1f%% -> %.1f%%; cross-rack vlink bandwidth %lld -> %lld Mbps",
                num("max_link_utilisation_pct_before"), num("max_link_utilisation_pct_after"),
                static_cast<long long>(num("cross_rack_mbps_before")), static_cast<long long>(num("cross_rack_mbps_after")));
    if (num("cross_pod_mbps_before") > 0 || num("cross_pod_mbps_after") > 0)
        std::printf("; cross-pod %lld -> %lld Mbps", static_cast<long long>(num("cross_pod_mbps_before")),
                    static_cast<long long>(num("cross_pod_mbps_after")));
    std::printf("\n");
}

/** The schedule's line of the summary: waves, makespan, limits, and what the window cut. */
void print_schedule(const PlanSchedule& s) {
    std::printf("schedule  %d wave(s), makespan %s; at most %d out / %d in per host, %s in the cluster; %lld Mbps per copy, x%s, +%s s\n",
                s.waves, fmt_hms(s.makespan_s).c_str(), s.limits.per_host_out, s.limits.per_host_in,
                s.limits.cluster > 0 ? std::to_string(s.limits.cluster).c_str() : "no limit", static_cast<long long>(s.durations.mbps),
                fmt_num(s.durations.dirty_factor).c_str(), fmt_num(s.durations.overhead_s).c_str());
    if (s.window_s > 0)
        std::printf("          window %s: %d step(s) of the searched plan left out to end within it\n", fmt_hms(s.window_s).c_str(),
                    s.cut_steps);
}

/** The run's summary on stdout: cluster, budget, search, capacities, objective, bound, plan,
 *  notes, network and the first steps. */
void print_plan_report(const PlanOptions& o, const CapacityModel& model, const OptimizeResult& res, const UpperBound& ub,
                       const nlohmann::ordered_json& doc, bool interrupted) {
    const Problem& p = model.problem();
    const Plan& plan = res.plan;
    const SearchResult& sr = res.search;
    const std::string& algorithm = o.algorithm;
    const std::string& out = o.out;
    const int threads = o.threads;
    const auto& c = p.constraints;
    if (o.preset != "none") std::printf("preset    %s: %s\n", o.preset.c_str(), resolved_text(o.resolved).c_str());
    std::printf("cluster   %s: %zu hosts, %zu VMs, %d target flavor(s)\n", o.cluster.c_str(), p.hosts.size(), p.vms.size(),
                model.num_targets());
    std::printf("budget    %s migrations, %s GiB migrated RAM\n",
                c.max_migrations == std::numeric_limits<std::int64_t>::max() ? "unlimited" : std::to_string(c.max_migrations).c_str(),
                c.max_migrated_ram_mib == std::numeric_limits<Amount>::max() ? "unlimited" : fmt_gib(c.max_migrated_ram_mib).c_str());
    if (o.demand.applied)
        std::printf("weights   demand: %lld request(s) of %d flavor(s) in (%s, %s] s of %s\n", static_cast<long long>(o.demand.requests),
                    o.demand.flavors, fmt_num(o.demand.until_s - o.demand.window_s).c_str(), fmt_num(o.demand.until_s).c_str(),
                    o.demand.log.c_str());
    if (!o.requests.empty()) {
        std::string needs;
        for (const Flavor& f : model.problem().flavors)
            if (f.need > 0) needs += " " + f.name + "=" + std::to_string(f.need);
        std::printf("weights   forecast from %s at %s s (%s s ahead, %d day(s) back): 0.01 per flavor + uncovered-need; needs:%s\n",
                    o.requests.c_str(), fmt_num(o.forecast_until).c_str(), fmt_num(o.forecast.horizon_s).c_str(), o.forecast.days,
                    needs.empty() ? " none" : needs.c_str());
    }
    // No search phase (the start met the bound): no parallel search to name.
    const std::string parallel_kind = algorithm == "greedy" || threads < 2 || res.phase_evaluations == 0 ? ""
                                      : sr.regions > 0                                                   ? " (host regions)"
                                                                                                         : " (chains)";
    std::printf("search    %s, %d thread(s)%s, seed %llu: %lld evaluations in %.2f s (%.2f M/s), stopped by %s\n",
                algorithm == "sa"     ? "simulated annealing"
                : algorithm == "tabu" ? "tabu search"
                                      : "greedy",
                algorithm == "greedy" ? 1 : threads, parallel_kind.c_str(), static_cast<unsigned long long>(o.seed),
                static_cast<long long>(sr.evaluations), sr.seconds,
                sr.seconds > 0 ? static_cast<double>(sr.evaluations) / sr.seconds / 1e6 : 0.0,
                std::string(to_string(sr.stopped_by)).c_str());
    if (res.phase_seconds > 0)
        std::printf("          %s phase: %lld candidate-move evaluations in %.2f s (%.2f M/s, %.2f M/s per thread)\n",
                    algorithm == "sa" ? "annealing" : "tabu", static_cast<long long>(res.phase_evaluations), res.phase_seconds,
                    static_cast<double>(res.phase_evaluations) / res.phase_seconds / 1e6,
                    static_cast<double>(res.phase_evaluations) / res.phase_seconds / 1e6 / threads);
    std::printf("\n%-14s %-6s %7s %8s %8s %7s\n", "flavor", "vNUMA", "weight", "before", "after", "gain");
    for (std::size_t f = 0; f < p.flavors.size(); ++f) {
        if (!p.flavors[f].is_target()) continue;
        std::printf("%-14s %-6s %7s %8lld %8lld %+7lld\n", p.flavors[f].name.c_str(), p.flavors[f].vnuma.name.c_str(),
                    fmt_num(p.flavors[f].weight).c_str(), static_cast<long long>(plan.capacity_before[f]),
                    static_cast<long long>(plan.capacity_after[f]),
                    static_cast<long long>(plan.capacity_after[f] - plan.capacity_before[f]));
    }
    const double gain = plan.objective_after - plan.objective_before;
    // A relative gain only from a positive start (terms can make the objective 0 or negative).
    std::printf("\nobjective %s -> %s", fmt_num(plan.objective_before).c_str(), fmt_num(plan.objective_after).c_str());
    if (plan.objective_before > 0)
        std::printf(" (%+.1f%%)\n", 100.0 * gain / plan.objective_before);
    else
        std::printf(" (%s%s)\n", gain >= 0 ? "+" : "", fmt_num(gain).c_str());
    std::printf("bound     %s: no plan within the budget can exceed it; gap %s (%.2f s%s)\n", fmt_num(ub.value).c_str(),
                fmt_pct(doc["gap"].get<double>()).c_str(), ub.seconds,
                ub.covers_objective ? "" : "; bounds the VMCAP part only: a term of unknown sign is on");
    if (ub.arrivals_priced)
        std::printf("          arrivals priced: %s without (removals only); %d multiplier vectors, %.2f s\n",
                    fmt_num(to_objective(ub.removal_only)).c_str(), ub.arrival_steps, ub.arrival_seconds);
    else if (ub.arrival_steps > 0)
        std::printf("          arrivals priced: no tighter (%d multiplier vectors, %.2f s)\n", ub.arrival_steps, ub.arrival_seconds);
    if (!ub.complete)
        std::printf(
            "          cut short by %s: %lld of %lld hosts tightened, the rest relaxed%s (still valid, coarser; not "
            "reproducible)\n",
            std::string(to_string(ub.stopped_by)).c_str(), static_cast<long long>(ub.hosts_tightened),
            static_cast<long long>(ub.hosts_tightened + ub.hosts_cheap + ub.hosts_trivial),
            ub.knapsack_relaxed ? ", knapsack by its LP relaxation" : "");
    if (static_cast<std::int64_t>(plan.steps.size()) != plan.migrations)
        std::printf("plan      %zu step(s): %lld migration(s) and %lld free remap(s), %s GiB RAM -> %s\n", plan.steps.size(),
                    static_cast<long long>(plan.migrations),
                    static_cast<long long>(plan.steps.size()) - static_cast<long long>(plan.migrations),
                    fmt_gib(plan.migrated_ram_mib).c_str(), out.c_str());
    else
        std::printf("plan      %zu migration(s), %s GiB RAM -> %s\n", plan.steps.size(), fmt_gib(plan.migrated_ram_mib).c_str(),
                    out.c_str());
    if (plan.schedule) print_schedule(*plan.schedule);
    if (sr.stopped_by == StopReason::Interrupted)
        std::printf("note      interrupted: the best plan found so far was written (exit code %d)\n", kExitInterrupted);
    else if (interrupted)
        std::printf("note      interrupted during the upper bound: the plan was written with the bound reached (exit code %d)\n",
                    kExitInterrupted);
    if (res.repair_rounds > 0)
        std::printf(
            "note      the search's best state (%s) had no feasible order within the budget: %d repair round(s) searched "
            "on from the ordered part\n",
            fmt_num(res.search_best_objective).c_str(), res.repair_rounds);
    if (res.fell_back) std::printf("note      the search's ordered plan was below greedy's: the greedy plan was written\n");
    if (res.room_taken)
        std::printf("note      greedy with room steps (--room-steps) reached %s, above the search from greedy's plan: its state was kept\n",
                    fmt_num(res.room_objective).c_str());
    if (res.ruins > 0)
        std::printf(
            "note      ruin and recreate (--ruin-iterations) from the better plan: %lld iteration(s), %lld with a better plan%s%s\n",
            static_cast<long long>(res.ruins), static_cast<long long>(res.ruins_improving),
            res.ruin_taken ? (", reached " + fmt_num(res.ruin_objective) + ": kept").c_str() : "",
            res.ruins_cut ? "; cut by the clock (not reproducible: --ruin-iterations N repeats N)" : "");
    if (sr.stopped_by == StopReason::ProvenOptimal)
        std::printf("note      the search's best state met the upper bound: no plan within the budget does better, so it stopped there\n");
    if (sr.clock_driven_from >= 0)
        std::printf(
            "note      the evaluation budget was out of reach of the time limit: the clock drove the annealing's temperature from "
            "evaluation %lld per thread on (not reproducible)\n",
            static_cast<long long>(sr.clock_driven_from));
    else if (plan.dropped > 0)
        std::printf("note      %d move(s) of the last searched state had no feasible order within the budget and were left out\n",
                    plan.dropped);
    if (p.network.present() && !p.vlinks.empty()) print_plan_network(p, doc);
    const std::size_t show = std::min<std::size_t>(plan.steps.size(), 15);
    for (std::size_t i = 0; i < show; ++i) {
        const PlanStep& st = plan.steps[i];
        std::printf("  %3zu  %-10s %-10s %s -> %s%s\n", i + 1, p.vms[st.vm].id.c_str(), p.flavors[p.vms[st.vm].flavor].name.c_str(),
                    p.hosts[st.from_host].id.c_str(), p.hosts[st.to_host].id.c_str(), st.temporary ? "  (temporary)" : "");
    }
    if (plan.steps.size() > show) std::printf("  ... %zu more steps in %s\n", plan.steps.size() - show, out.c_str());
}

}  // namespace

int cmd_plan(const Args& args) {
    const auto started = std::chrono::steady_clock::now();
    PlanOptions o;
    if (!parse_plan_options(args, o)) return 0;
    Problem loaded = load_for_search(o.cluster, o.vm, o.max_mig, o.max_gib, &o.demand);
    if (!o.requests.empty()) apply_forecast(loaded, o.cluster, o);
    const Problem p = std::move(loaded);
    // The search stops itself at the limit and writes its best plan; this backstop (10% later,
    // at least 5 s) stops a run that one slow exact-fallback evaluation after another would
    // carry far past it (exit code 4, nothing written).
    const double grace = std::max(5.0, 0.1 * o.time_limit);
    const auto model_ptr = model_for(p, o.cluster, o.vm, deadline_after(started, o.time_limit + grace));
    const CapacityModel& model = *model_ptr;
    OptimizeParams op = plan_optimize_params(o, p);
    op.search.stop = stop_on_signals();
    // --time-limit counts from the start of the command: loading a large snapshot and building
    // its model take seconds, which the search then does not get.
    op.search.time_limit_s =
        std::max(1e-3, o.time_limit - std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    // The bound comes first in the pipeline (at most half of the time left; optimize.h), so that
    // the search stops once its plan is proven optimal. Cut short, it is coarser but valid
    // (upper_bound_complete false); it stops at an interrupt like the search. Half of the grace is
    // for its fallback (at most a quarter of the grace) and for writing the plan.
    UpperBoundParams ubp;
    ubp.threads = o.threads;
    ubp.deadline = deadline_after(started, o.time_limit + 0.5 * grace);
    ubp.fallback_seconds = 0.25 * grace;
    ubp.stop = &stop_requested;
    ubp.arrival_steps = o.arrival_steps;
    op.bound = ubp;
    if (!o.quiet) std::fprintf(stderr, "upper bound: computing (at most half of the time left)\n");
    OptimizeResult res;
    try {
        res = optimize(model, op);
    } catch (const InputError& e) {  // a drain that cannot be satisfied: name the snapshot (and the flags)
        throw InputError(o.cluster + ": " + e.what());
    }
    const UpperBound& ub = *res.bound;
    const bool interrupted = res.search.stopped_by == StopReason::Interrupted || ub.stopped_by == StopReason::Interrupted ||
                             ub.arrival_stopped_by == StopReason::Interrupted;
    auto doc = plan_document(o, model, res, ub);
    if (o.demand.applied) {
        // The weights the plan was made for, so that `vmcap validate` scores it the same way.
        nlohmann::ordered_json w = nlohmann::ordered_json::object();
        for (const Flavor& f : p.flavors)
            if (f.is_target()) w[f.name] = f.weight;
        doc["flavor_weights"] = w;
        doc["weights_from"] = {{"demand_log", o.demand.log},
                               {"window_s", {o.demand.until_s - o.demand.window_s, o.demand.until_s}},
                               {"requests", o.demand.requests}};
    }
    if (!o.requests.empty()) {
        // The weights and needs the plan was made for, so that `vmcap validate` scores it the same way.
        nlohmann::ordered_json w = nlohmann::ordered_json::object(), n = nlohmann::ordered_json::object();
        for (const Flavor& f : p.flavors) {
            w[f.name] = f.weight;
            n[f.name] = f.need;
        }
        doc["flavor_weights"] = w;
        doc["flavor_needs"] = n;
        doc["needs_from"] = {
            {"requests", o.requests}, {"until_s", o.forecast_until}, {"horizon_s", o.forecast.horizon_s}, {"days", o.forecast.days}};
    }
    write_file_atomic(o.out, format_json_lines(doc));
    print_plan_report(o, model, res, ub, doc, interrupted);
    return interrupted ? kExitInterrupted : 0;
}

/** A plan's object `key` (flavor name -> value) applied to the snapshot `p`: each value must pass
 *  `valid` (else InputError "<plan_file>: key.name: expected <expected>"), then `set(flavor, value
 *  or nullptr when not named)` for every flavor; a name that is no flavor of `cluster` is refused.
 *  Nothing when the document has no `key`. O(flavors x log). */
template <class Valid, class Set>
void read_flavor_object(const nlohmann::json& doc, const std::string& key, const std::string& value_name, const std::string& expected,
                        const std::string& plan_file, const std::string& cluster, Problem& p, Valid valid, Set set) {
    if (!doc.is_object() || !doc.contains(key)) return;
    const auto& object = doc[key];
    if (!object.is_object()) throw InputError(plan_file + ": " + key + ": expected an object flavor name -> " + value_name);
    std::map<std::string, const nlohmann::json*> given;
    for (const auto& item : object.items()) {
        if (!valid(item.value())) throw InputError(plan_file + ": " + key + "." + item.key() + ": expected " + expected);
        given.emplace(item.key(), &item.value());
    }
    for (Flavor& f : p.flavors) {
        const auto it = given.find(f.name);
        set(f, it == given.end() ? nullptr : it->second);
        if (it != given.end()) given.erase(it);
    }
    if (!given.empty()) throw InputError(plan_file + ": " + key + "." + given.begin()->first + ": no such flavor in " + cluster);
}

/** `vmcap validate`, `export`, `report`: the rules the plan was made for (its "rules") added to the
 *  snapshot's — drained and no-target hosts united, remaps allowed only if both allow them. A plan
 *  may only add rules: what the snapshot forbids stays forbidden whatever the plan says. Throws
 *  InputError naming the plan's JSON path. */
void apply_plan_rules(const nlohmann::json& doc, const std::string& plan_file, const std::string& cluster, Problem& p) {
    if (!doc.is_object() || !doc.contains("rules")) return;
    {
        const auto& rules = doc["rules"];
        if (!rules.is_object()) throw InputError(plan_file + ": rules: expected an object");
        std::unordered_map<std::string, int> index;
        for (std::size_t h = 0; h < p.hosts.size(); ++h) index.emplace(p.hosts[h].id, static_cast<int>(h));
        const auto hosts = [&](const char* key) {
            std::vector<int> out;
            if (!rules.contains(key)) return out;
            const auto& a = rules[key];
            if (!a.is_array()) throw InputError(plan_file + ": rules." + key + ": expected an array of host ids");
            for (std::size_t i = 0; i < a.size(); ++i) {
                const auto it = a[i].is_string() ? index.find(a[i].get<std::string>()) : index.end();
                if (it == index.end())
                    throw InputError(plan_file + ": rules." + key + "[" + std::to_string(i) + "]: not a host of " + cluster);
                out.push_back(it->second);
            }
            return out;
        };
        const auto add = [](std::vector<int>& list, const std::vector<int>& more) {
            list.insert(list.end(), more.begin(), more.end());
            std::sort(list.begin(), list.end());
            list.erase(std::unique(list.begin(), list.end()), list.end());
        };
        add(p.constraints.drain_hosts, hosts("drain_hosts"));
        add(p.constraints.no_target_hosts, hosts("no_target_hosts"));
        if (rules.contains("remaps_allowed")) {
            if (!rules["remaps_allowed"].is_boolean()) throw InputError(plan_file + ": rules.remaps_allowed: expected true or false");
            p.constraints.remaps_allowed = p.constraints.remaps_allowed && rules["remaps_allowed"].get<bool>();
        }
    }
}

// load_plan_context: contract in cli_util.h.
Problem load_plan_context(const std::string& cluster, const std::string& plan_file, nlohmann::json& doc) {
    Problem p = load_snapshot(cluster);
    try {
        doc = nlohmann::json::parse(read_text_file(plan_file));
    } catch (const nlohmann::json::exception& e) {  // syntax, or a number beyond double range
        throw InputError(plan_file + ": invalid JSON");
    }
    // The objective the plan was made for: its objective_terms, unless the command line says otherwise.
    if (doc.is_object() && doc.contains("objective_terms")) {
        const auto& terms = doc["objective_terms"];
        if (!terms.is_object()) throw InputError(plan_file + ": objective_terms: expected an object name -> weight");
        for (const auto& [name, w] : terms.items()) {
            bool known = false;
            for (const TermInfo& t : registered_terms()) known = known || t.name == name;
            if (!known) throw InputError(plan_file + ": objective_terms." + name + ": unknown objective term");
            if (!w.is_number() || !(w.get<double>() >= 0.0) || !std::isfinite(w.get<double>()))
                throw InputError(plan_file + ": objective_terms." + name + ": expected a finite number >= 0");
            p.objective_terms.emplace_back(name, w.get<double>());
        }
    }
    // The flavor weights the plan was made for (vmcap plan --weights demand / --requests), in place of
    // the snapshot's: a flavor not named weighs 0.
    read_flavor_object(
        doc, "flavor_weights", "weight", "a weight in [0, 100000] with at most 3 decimals", plan_file, cluster, p,
        [](const nlohmann::json& w) { return w.is_number() && weight_milli(w.get<double>()) >= 0; },
        [](Flavor& f, const nlohmann::json* w) { f.weight = w ? w->get<double>() : 0.0; });
    // The forecast needs the plan was made for (vmcap plan --requests): the term uncovered-need reads them.
    read_flavor_object(
        doc, "flavor_needs", "need", "an integer >= 0", plan_file, cluster, p,
        [](const nlohmann::json& n) { return n.is_number_integer() && n.get<std::int64_t>() >= 0; },
        [](Flavor& f, const nlohmann::json* n) {
            if (n) f.need = n->get<std::int64_t>();
        });
    apply_plan_rules(doc, plan_file, cluster, p);
    // How the budget counted remaps for the plan (budget.remap_counts_as_migration): part of the
    // budget it was made for, like max_migrations. It changes only what a remap costs: the rules
    // above (remaps_allowed among them) are the snapshot's and the plan's, whatever it says.
    if (doc.is_object() && doc.contains("budget") && doc["budget"].is_object() && doc["budget"].contains("remap_counts_as_migration")) {
        const auto& r = doc["budget"]["remap_counts_as_migration"];
        if (!r.is_boolean()) throw InputError(plan_file + ": budget.remap_counts_as_migration: expected true or false");
        p.constraints.remap_counts_as_migration = r.get<bool>();
    }
    return p;
}

bool load_valid_plan(const char* command, const std::string& cluster, const std::string& plan_file, const po::variables_map& vm,
                     nlohmann::json& doc, Problem& p, PlanCheck& r) {
    p = load_plan_context(cluster, plan_file, doc);
    if (vm.count("free-remaps")) p.constraints.remap_counts_as_migration = false;
    const auto model_ptr = model_for(p, cluster, vm, std::chrono::steady_clock::time_point::max());
    try {
        r = validate_plan(*model_ptr, doc, plan_file, true, false);
    } catch (const nlohmann::json::exception& e) {  // a value of an unexpected type the checks did not name
        std::string what = e.what();
        throw InputError(plan_file + ": " + what.substr(what.find(']') + 2));
    }
    if (!r.ok)
        std::fprintf(stderr, "vmcap %s: %s: not a valid plan for %s: %s\n", command, plan_file.c_str(), cluster.c_str(), r.error.c_str());
    return r.ok;
}

int cmd_validate(const Args& args) {
    const auto start = std::chrono::steady_clock::now();
    po::options_description desc("vmcap validate options");
    std::string cluster, plan_file, bound_check;
    // clang-format off
    desc.add_options()("help,h", "show this help")
        ("cluster", po::value(&cluster), "cluster snapshot JSON the plan was made for (default: the bundled example)")
        ("bound-check", po::value(&bound_check)->default_value("full"),
         "the plan's upper_bound: full (recomputed for the plan's budget, as long as vmcap plan's bound took; a complete bound "
         "must be equal) or consistency (only >= the plan's objective, <= the topology-free ceiling, gap recomputed)")
        ("plan", po::value(&plan_file)->required(), "migration plan JSON")
        ("free-remaps", "remaps (same host, other nodes) use no budget, as with vmcap plan --free-remaps")
        ("max-migrations", po::value<std::int64_t>(), "check against this migration budget (default: the plan's recorded budget, else the snapshot's)")
        ("max-migrated-gib", po::value<double>(), "check against this RAM budget in GiB (default: the plan's recorded budget, else the snapshot's)");
    // clang-format on
    add_term_options(desc);
    add_model_options(desc, true);
    po::variables_map vm;
    if (parse(args, desc, vm,
              "usage: vmcap validate [--cluster C] --plan P\n"
              "Replays the plan step by step on its own code path. Exit 0 if valid, 3 naming the first violating step."))
        return 0;
    if (bound_check != "full" && bound_check != "consistency") throw UsageError("--bound-check must be full or consistency");
    if (cluster.empty()) cluster = default_cluster_path();
    nlohmann::json doc;
    Problem p = load_plan_context(cluster, plan_file, doc);
    if (vm.count("free-remaps")) p.constraints.remap_counts_as_migration = false;
    read_term_options(vm, p);
    const bool cli_budget = vm.count("max-migrations") || vm.count("max-migrated-gib");
    if (vm.count("max-migrations")) {
        if (vm["max-migrations"].as<std::int64_t>() < 0) throw UsageError("--max-migrations must be >= 0");
        p.constraints.max_migrations = vm["max-migrations"].as<std::int64_t>();
    }
    if (vm.count("max-migrated-gib")) {
        const double g = vm["max-migrated-gib"].as<double>();
        if (!(g >= 0) || !std::isfinite(g)) throw UsageError("--max-migrated-gib must be a finite number >= 0");
        p.constraints.max_migrated_ram_mib = gib_to_mib_budget(g);
    }
    const auto model_ptr = model_for(p, cluster, vm, time_deadline(vm, start));
    const CapacityModel& model = *model_ptr;
    PlanCheck r;
    try {
        r = validate_plan(model, doc, plan_file, !cli_budget, bound_check == "full");
    } catch (const nlohmann::json::exception& e) {  // a value of an unexpected type the checks did not name
        std::string what = e.what();
        throw InputError(plan_file + ": " + what.substr(what.find(']') + 2));
    }
    if (!r.ok) {
        std::fprintf(stderr, "vmcap validate: %s: %s\n", plan_file.c_str(), r.error.c_str());
        return 3;
    }
    std::printf("plan OK: %d step(s), objective %s -> %s\n", r.steps, fmt_num(r.objective_before).c_str(),
                fmt_num(r.objective_after).c_str());
    return 0;
}

}  // namespace vmcap::cli

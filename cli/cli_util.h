#pragma once
// Small helpers shared by the subcommand implementations (not part of the public API).
#include <atomic>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <cstdio>
#include <memory>
#include <iostream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "evaluators/state/capacity_model.h"
#include "evaluators/closed_forms/vmcap.h"
#include "instances/problem.h"
#include "instances/snapshot_io.h"
#include "instances/trace.h"
#include "instances/vnuma_rule.h"
#include "optimizer/plan/validate.h"
#include "optimizer/plan/waves.h"
#include "cli/cli.h"

namespace vmcap::cli::detail {

namespace po = boost::program_options;

/** Installs the SIGINT / SIGTERM handlers of the long-running commands (`vmcap plan`, `vmcap
 *  place`) and returns the flag they set: the caller's work polls it and stops cleanly; a second
 *  signal ends the process (the handler restores the default action). Defined in commands.cpp. */
const std::atomic<bool>* stop_on_signals();

/** The JSON document of file `path` (Json: nlohmann::ordered_json keeps the objects' key order);
 *  InputError "<path>: invalid JSON (...)" (or the read error). */
template <class Json = nlohmann::json>
Json read_json(const std::string& path) {
    const std::string text = read_text_file(path);
    try {
        return Json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        std::string what = e.what();
        std::string m = path;
        m += ": invalid JSON (";
        m += what.substr(what.find(']') + 2);
        m += ")";
        throw InputError(m);
    }
}

/** Parses `args` against `desc`; returns true if --help was given (usage already printed). */
inline bool parse(const Args& args, const po::options_description& desc, po::variables_map& vm, const char* usage) {
    po::store(po::command_line_parser(args).options(desc).run(), vm);
    if (vm.count("help")) {
        std::cout << usage << "\n" << desc << "\n";
        return true;
    }
    po::notify(vm);
    return false;
}

/** An unsigned 64-bit --seed, parsed by hand: program_options would wrap "-1" into a huge value. */
inline std::uint64_t parse_seed(const std::string& text) {
    std::uint64_t seed = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
    if (ec != std::errc() || end != text.data() + text.size())
        throw UsageError("--seed: expected an unsigned 64-bit integer, got '" + text + "'");
    return seed;
}

/** Comma-separated counts, each in 0..kMaxAmount (so that sums of 16 of them stay exact). */
inline std::vector<Count> parse_counts(const std::string& s, const char* what) {
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
        if (v > kMaxAmount) throw UsageError(std::string(what) + ": '" + tok + "' is above " + std::to_string(kMaxAmount));
        out.push_back(v);
    }
    return out;
}

inline std::string fmt_gib(Amount mib) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", static_cast<double>(mib) / 1024.0);
    return buf;
}

/** A duration as the CLI prints it: "2h 05m 10s", "4m 53s", "42s" (rounded to whole seconds). */
inline std::string fmt_hms(double seconds) {
    const auto t = static_cast<long long>(std::llround(seconds));
    char buf[64];
    if (t >= 3600)
        std::snprintf(buf, sizeof buf, "%lldh %02lldm %02llds", t / 3600, t / 60 % 60, t % 60);
    else if (t >= 60)
        std::snprintf(buf, sizeof buf, "%lldm %02llds", t / 60, t % 60);
    else
        std::snprintf(buf, sizeof buf, "%llds", t);
    return buf;
}

/** A percentage as the CLI prints it (the plan summary's gap): one decimal, "11.1%". */
inline std::string fmt_pct(double fraction) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * fraction);
    return buf;
}

inline std::string fmt_num(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.10g", x);
    return buf;
}

/**
 * One placement line of `vmcap eval --placements`: the 1-based pNUMA nodes of vNUMA nodes
 * 1..k in vNUMA order, comma-separated, then " x" and the number of VMs, e.g. "1,4 x3".
 */
inline std::string format_placement(const PlacementCount& pc, int k) {
    std::string s;
    for (int v = 0; v < k; ++v) {
        if (v) s += ',';
        s += std::to_string(pc.placement.map[v] + 1);
    }
    s += " x";
    s += std::to_string(pc.copies);
    return s;
}

/** A file a command reads or writes and the option that names it (for the refusal's message). */
struct FileOption {
    std::string option;  ///< e.g. "--out", "--cluster", "--list (a .vn file it names)"
    std::string path;    ///< empty: the option was not given (skipped)
};

/** True when `a` and `b` name the same file however spelled: std::filesystem::equivalent when both
 *  exist (symlinks and hard links included), else their absolute paths with every symbolic link
 *  followed (a dangling one too: write_file_atomic creates its target) compared (an output not
 *  written yet). Never throws. */
inline bool same_file(const std::string& a, const std::string& b) {
    namespace fs = std::filesystem;
    std::error_code ea, eb;
    if (fs::exists(a, ea) && fs::exists(b, eb)) {
        const bool eq = fs::equivalent(a, b, ea);
        if (!ea) return eq;
    }
    auto resolved = [](const std::string& s) {
        std::error_code ec;
        fs::path p = fs::absolute(s, ec);
        if (ec) p = s;
        for (int hops = 0; hops < 40 && fs::is_symlink(p, ec); ++hops) {  // a chain of links, relative ones from their directory
            const fs::path target = fs::read_symlink(p, ec);
            if (ec) break;
            p = target.is_absolute() ? target : p.parent_path() / target;
        }
        fs::path c = fs::weakly_canonical(p, ec);
        return ec ? p.lexically_normal() : c;
    };
    return resolved(a) == resolved(b);
}

/**
 * Refuses, before anything is read or written, a command line on which an output file is also one
 * of the inputs or another output (same_file: through symlinks, hard links, "./x" or "d/../x"), so
 * that no command replaces what it was given or writes two outputs onto one file. Empty paths are
 * skipped. Throws UsageError (exit 2), one line naming both options: "--out would overwrite the
 * input of --cluster (P)" or "--out-csv and --out-json name the same file (P)". Every command that
 * writes files calls it with all its outputs and inputs. O(outputs x (inputs + outputs)) stat calls.
 */
inline void check_outputs_distinct(const std::vector<FileOption>& outputs, const std::vector<FileOption>& inputs) {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        const FileOption& out = outputs[i];
        if (out.path.empty()) continue;
        for (const FileOption& in : inputs)
            if (!in.path.empty() && same_file(out.path, in.path))
                throw UsageError(out.option + " would overwrite the input of " + in.option + " (" + in.path + ")");
        for (std::size_t j = 0; j < i; ++j)
            if (!outputs[j].path.empty() && same_file(out.path, outputs[j].path))
                throw UsageError(outputs[j].option + " and " + out.option + " name the same file (" + out.path + ")");
    }
}

}  // namespace vmcap::cli::detail

namespace vmcap::cli {

/**
 * Loads the snapshot for `plan` / `exact` (the bundled example if `cluster` is empty; the path is
 * written back) and applies --max-migrations / --max-migrated-gib / --free-remaps (those present
 * in `vm`) over its constraints. Throws UsageError on negative budgets, InputError on a bad
 * snapshot or one without a target flavor. Defined in commands.cpp.
 */
/** Adds `--<name> W` for every registered objective term (evaluators/registry/registry.h). */
void add_term_options(boost::program_options::options_description& desc);
/** Sets problem.objective_terms from the term options given (replacing an earlier entry of the
 *  same name); throws UsageError on a negative or non-finite weight. */
void read_term_options(const boost::program_options::variables_map& vm, Problem& problem);

/** Adds `--exact-work-limit N` (ModelOptions::exact_work_limit) to a command that evaluates VMCAP,
 *  and with `time_limit` a `--time-limit S` (no default: unlimited) for commands without one. */
void add_model_options(boost::program_options::options_description& desc, bool time_limit = false);

/**
 * The snapshot `cluster` as the plan `plan_file` was made for: its objective_terms, flavor_weights,
 * rules (drained and no-target hosts, no remaps: added to the snapshot's, never in place of them)
 * and how its budget counted remaps (budget.remap_counts_as_migration) applied; the plan's JSON
 * into `doc`. For `vmcap validate`, `export` and `report`. Throws InputError naming the file and
 * JSON path. Defined in commands.cpp.
 */
Problem load_plan_context(const std::string& cluster, const std::string& plan_file, nlohmann::json& doc);

/**
 * For `vmcap export` and `vmcap report`: the plan and its snapshot (load_plan_context; with
 * --free-remaps in `vm`, remaps free), the plan validated on it (validate_plan, the bound not
 * recomputed) into `check`. False, after printing "vmcap <command>: P: not a valid plan for C:
 * why" on stderr, when it is not valid (exit code 3). Throws InputError on a malformed plan.
 * Defined in commands.cpp.
 */
bool load_valid_plan(const char* command, const std::string& cluster, const std::string& plan_file,
                     const boost::program_options::variables_map& vm, nlohmann::json& doc, Problem& problem, PlanCheck& check);

/**
 * The trace `trace_name` ("azure-dev", "azure-test" or "huawei") from `data` (azure-v1-flavor-traces/,
 * huawei-east-1/), `copies` superposed as `vmcap snapshot --copies` does (Azure copy k's lifetimes
 * from seed + k; Huawei copy k shifted by k / copies of the arrival span); `files` (if given) names
 * the files read. Throws InputError on a missing directory or file. Defined in cmd_snapshot.cpp.
 */
std::vector<TraceVm> read_named_trace(const std::string& trace_name, const std::filesystem::path& data, int copies, std::uint64_t seed,
                                      std::string* files);

/** The files read_named_trace reads for `trace_name` under `data` (the Azure split's two traces and
 *  two maps, or the Huawei CSV), each with the option that names it ("--data-dir"), for
 *  check_outputs_distinct. Defined in cmd_snapshot.cpp. */
std::vector<detail::FileOption> named_trace_files(const std::string& trace_name, const std::filesystem::path& data);
/** Adds the vNUMA rule options of the trace replays (`vmcap snapshot`, `vmcap simulate`):
 *  --max-node-fraction F (VnumaRule::max_node_fraction, default 0.5) and --vnuma NAME=TOPO
 *  (VnumaRule::overrides, repeatable). Defined in cmd_snapshot.cpp. */
void add_vnuma_rule_options(boost::program_options::options_description& desc);
/** Reads them into `rule`. Throws UsageError on a fraction outside (0, 1], a --vnuma without
 *  NAME=TOPO, or a flavor given twice; the names and topologies are checked by the replay against
 *  the trace and the host (InputError). Defined in cmd_snapshot.cpp. */
void read_vnuma_rule_options(const boost::program_options::variables_map& vm, VnumaRule& rule);

/** Seconds of a duration "90", "90s", "15m", "4h" or "1.5h" (> 0). Throws UsageError naming
 *  `option`. Defined in commands.cpp. */
double parse_duration(const std::string& text, const char* option);

/** Adds the schedule options (waves and durations, optimizer/plan/waves.h) bound to `sch`:
 *  --max-out-per-host, --max-in-per-host, --max-concurrent, --migration-mbps, --dirty-factor,
 *  --migration-overhead; with `window`, --window DURATION bound to it. Defined in commands.cpp. */
void add_schedule_options(boost::program_options::options_description& desc, ScheduleParams& sch, std::string* window);
/** Checks the parsed schedule options and sets sch.window_s from `window` ("4h", "90m", "3600s",
 *  "3600"; empty: none). Throws UsageError naming the option. */
void check_schedule_options(ScheduleParams& sch, const std::string& window);

/** The --exact-work-limit of `vm` (kDefaultExactWorkLimit when absent); UsageError below 1. */
std::int64_t exact_work_limit(const boost::program_options::variables_map& vm);

/** The instant no exact-fallback evaluation may start after: `start` + the command's --time-limit
 *  (UsageError unless > 0) + grace, or never without that option. */
std::chrono::steady_clock::time_point time_deadline(const boost::program_options::variables_map& vm,
                                                    std::chrono::steady_clock::time_point start, double grace_s = 0.0);

/** The CapacityModel of `p`, with the --exact-work-limit of `vm` (if the command has it; throws
 *  UsageError below 1); its construction errors (weights, objective terms, the exact integer range
 *  of the objective) become an InputError naming `file` (exit 2), and so does a later evaluation
 *  beyond the exact work limit (the refusal names `file`, the host type and the flavor). No
 *  exact-fallback evaluation starts after `deadline` (TimeLimitReached, exit code 4). */
std::unique_ptr<CapacityModel> model_for(const Problem& p, const std::string& file, const boost::program_options::variables_map& vm,
                                         std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

/** What `vmcap plan --weights demand` applied (apply_demand_weights). */
struct DemandWeighting {
    bool applied = false;
    std::string log;                       ///< the request log
    double window_s = 0.0, until_s = 0.0;  ///< the window (until_s - window_s, until_s], seconds
    std::int64_t requests = 0;             ///< requests in the window
    int flavors = 0;                       ///< flavors requested there (the targets)
};

/**
 * The snapshot `cluster` (the bundled example when empty; set to its path) with the budget, remap
 * and objective-term options of `vm` applied and, when `demand` is given and vm["weights"] is
 * "demand", the demand weights (apply_demand_weights; `demand` filled, `applied` set). Throws
 * UsageError on a negative budget, InputError on a bad snapshot or log and when no flavor has a
 * weight > 0.
 */
Problem load_for_search(std::string& cluster, const boost::program_options::variables_map& vm, std::int64_t max_mig, double max_gib,
                        DemandWeighting* demand = nullptr);

/**
 * `vmcap plan --weights demand`: replaces every flavor's weight in `p` by its demand weight
 * (instances/trace.h demand_weights) over the requests of vm["demand-log"] in the window
 * (until - vm["demand-window"], until], until = vm["demand-until"] or the log's last request; 0
 * for flavors not requested there. Fills `out` (not `applied`). Throws InputError naming the log
 * (and line) on an unreadable or malformed log, a log without requests, a request in the window for
 * a flavor `cluster` does not have, or an empty window.
 */
void apply_demand_weights(Problem& p, const std::string& cluster, const boost::program_options::variables_map& vm, DemandWeighting& out);

}  // namespace vmcap::cli

#pragma once
/**
 * @file simulation_file.h
 * The `vmcap-simulation/1` file (docs/format.md "Simulation"), typed: what `vmcap simulate
 * --out-json` writes and `vmcap report --simulation` reads, through one writer and one reader.
 *
 * The fields of a record are listed once (simulation_file.cpp), in file order, for both
 * directions: simulation_from_json(simulation_to_json(f)) == f, and a file the writer wrote is
 * read and written again to the same bytes. Fields the first writer of the format did not always
 * write are std::optional (older files lack them; null counts as absent); unknown fields are
 * ignored. Counts are integers in 0..2^53 (exact as the report's charts hold them in JavaScript
 * doubles), numbers are finite.
 */
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "instances/stop_reason.h"
#include "optimizer/solvers/simulate.h"

namespace vmcap::cli {

/** The value of the file's "format" field. */
inline constexpr const char* kSimulationFormat = "vmcap-simulation/1";

/** A JSON object keyed by flavor name, in file order (the trace's flavor order when written). */
template <class T>
using FlavorValues = std::vector<std::pair<std::string, T>>;

/** One day of a run (SimulateDay): closed just before its night's defragmentation, or at the end. */
struct SimulationDay {
    std::int64_t day = 0;
    double time_s = 0.0;  ///< seconds after the first arrival
    std::int64_t live_vms = 0;
    double used_vcpu_fraction = 0.0;
    std::int64_t arrivals = 0, rejected = 0;
    std::optional<std::int64_t> rejected_vcpu, rejected_one_pool, rejected_one_pool_vcpu, admission_migrations, admitted_by_migrations;
    std::int64_t migrations = 0;
    std::optional<std::int64_t> planned_migrations, planned_ram_mib, steps_dropped;
    std::optional<double> makespan_s, objective_before;
    double objective_after = 0.0;
    std::optional<FlavorValues<double>> weights;               ///< the night's non-zero weights
    std::optional<FlavorValues<std::int64_t>> capacity_after;  ///< capacity per flavor after the night
    bool operator==(const SimulationDay&) const = default;
};

/** One configuration on one seed: its options as recorded, its totals (SimulateResult) and days. */
struct SimulationRun {
    std::string config;  ///< the label of the --compare entry
    std::optional<std::uint64_t> seed;
    std::optional<std::string> defrag, weights, defrag_budget;  ///< the night policy, --weights, the budget as given
    std::optional<std::int64_t> migrations_per_request;
    std::int64_t arrivals = 0, rejected = 0;
    std::optional<double> rejected_fraction;
    std::optional<std::int64_t> rejected_vcpu, rejected_one_pool, rejected_one_pool_vcpu, vdcs, rejected_vdcs;
    std::optional<double> base_revenue, compute_revenue, network_revenue;
    /** Always written: null when the revenue is undefined (a flavor without a price) or absent. */
    std::optional<double> revenue_gain;
    std::int64_t migrations = 0;
    std::optional<std::int64_t> steps_dropped, admission_migrations, admitted_by_migrations;
    std::optional<double> seconds;
    std::optional<StopReason> stopped_by;  ///< SimulateResult::stopped_by: Complete, Interrupted or TimeLimit
    std::optional<FlavorValues<std::int64_t>> rejected_by_flavor;
    std::vector<SimulationDay> days;
    std::optional<double> rejected_vcpu_hours;  ///< SimulateResult::rejected_vcpu_hours
    bool operator==(const SimulationRun&) const = default;
};

/** One configuration over its seeds: mean and sample standard deviation (0 for one seed). */
struct SimulationSummary {
    std::string config;
    std::int64_t seeds = 0;
    double rejected_percent_mean = 0.0, rejected_percent_sd = 0.0;
    double rejected_vcpu_mean = 0.0, rejected_vcpu_sd = 0.0;
    double migrations_mean = 0.0, migrations_sd = 0.0;  ///< nightly + admission
    std::optional<double> rejected_vcpu_hours_mean, rejected_vcpu_hours_sd;
    bool operator==(const SimulationSummary&) const = default;
};

/** A whole `vmcap-simulation/1` document: the command's options as recorded, the summary, the runs. */
struct SimulationFile {
    std::optional<std::string> trace;
    std::optional<std::int64_t> copies, hosts;
    std::optional<std::string> host_type, placer, network;
    std::optional<std::string> placer_one_node;  ///< "on" or "off" (--placer-one-node)
    std::optional<double> bpc;                   ///< Mbps per vCPU of the VDCs' vlinks (0: none)
    std::optional<double> span_s, defrag_at_s, defrag_every_s;
    std::optional<std::string> defrag_budget, apply;
    std::optional<double> window_s;                ///< 0: no window
    std::optional<std::string> reserve_plan;       ///< with apply "waves": "on" or "off" (--reserve-plan)
    std::optional<std::string> defrag_when;        ///< "nightly", "triggered" or "both" (--defrag-when)
    std::optional<double> trigger_every_s;         ///< seconds between two checks (--trigger-every)
    std::optional<std::string> daily_budget;       ///< as given (--daily-budget), else --defrag-budget's
    std::optional<std::string> forecast_room;      ///< "off", "triggers", "on" or "keep" (--forecast-room)
    std::optional<double> forecast_horizon_s;      ///< --forecast-horizon, seconds
    std::optional<std::int64_t> forecast_days;     ///< --forecast-days
    std::optional<double> forecast_quantile;       ///< --forecast-quantile
    std::optional<double> forecast_burst_s;        ///< the burst floor's window, seconds; 0: off (--forecast-burst)
    std::optional<std::int64_t> make_room_copies;  ///< --make-room-copies
    std::optional<std::string> make_room_second;   ///< "always" or "copies" (--make-room-second)
    std::optional<std::uint64_t> seed;
    std::optional<std::int64_t> seeds;
    std::optional<std::string> preset;  ///< --preset, when not "none"
    /** With a preset: every option it names, with the value in force (the command line's, else the preset's). */
    std::optional<std::vector<std::pair<std::string, std::string>>> preset_options;
    std::optional<std::vector<SimulationSummary>> summary;
    std::vector<SimulationRun> runs;  ///< may be empty (stopped before the first configuration)
    bool operator==(const SimulationFile&) const = default;
};

/**
 * A run's totals and days from `result` (every field of the file SimulateResult has; the options
 * fields config, seed, defrag, weights, defrag_budget and migrations_per_request are the caller's).
 * revenue_gain NaN becomes nullopt; rejected_fraction is rejected / arrivals (0 without arrivals).
 * O(days x flavors). Pure.
 */
SimulationRun simulation_run(const SimulateResult& result);

/** The document of `file`, fields in file order (present optionals only; revenue_gain always).
 *  O(size). Pure; throws nothing but std::bad_alloc. */
nlohmann::ordered_json simulation_to_json(const SimulationFile& file);

/**
 * The document `doc` read from the file `file_name`. Throws InputError "<file_name>: <JSON path>:
 * what" (e.g. "sim.json: runs[1].days[2].rejected: expected an integer >= 0") on a document that is
 * not an object, a format other than kSimulationFormat, a missing required field, or a field of the
 * wrong type or range (a stopped_by other than "complete", "interrupt" or "time limit" included). O(size).
 */
SimulationFile simulation_from_json(const nlohmann::ordered_json& doc, const std::string& file_name);

/** simulation_from_json of the file `path` (invalid JSON: InputError "<path>: invalid JSON (...)"). */
SimulationFile read_simulation_file(const std::string& path);

/** The text written for `file` (instances/snapshot_io.h format_json_lines of simulation_to_json). */
std::string simulation_file_text(const SimulationFile& file);

}  // namespace vmcap::cli

#pragma once
/**
 * @file presets.h
 * Named sets of option values (`--preset NAME`) for `vmcap simulate`, `vmcap place` and `vmcap
 * plan`: a preset gives the options it names the values the measurements chose
 * (docs/cli.md "Presets", docs/performance.md), and every option given on the command line keeps
 * its own value, wherever it appears. `none`, the default, sets nothing.
 *
 * The preset's values are stored into the Boost.Program_options variables_map after the command
 * line and before notify: Boost keeps a value the command line gave and replaces a default one
 * (po::store's rule, the one that lets a configuration file fill what the command line left), so
 * no argument is parsed twice by hand.
 */
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/cli.h"

namespace vmcap::cli::detail {

/** One option of a preset: its long name (no dashes) and its value as on a command line;
 *  `value_when` instead when `when` (another option's long name; empty: never) is in force with a
 *  value other than "0" (the command line's value, else this preset's, else none). */
struct PresetValue {
    std::string option, value;
    std::string when = {}, value_when = {};
};

/** A preset: its name and the option values it sets, in the order they are printed. */
struct Preset {
    std::string name;
    std::vector<PresetValue> values;
};

/** An option a preset names, resolved: its value and whether the command line gave it. */
struct ResolvedOption {
    std::string option, value;
    bool from_command_line = false;
    bool operator==(const ResolvedOption&) const = default;
};

/** The presets of command `command` ("simulate", "place" or "plan"): `none` (no values) first,
 *  then `recommended`. Any other command: only `none`. Pure; O(1). */
std::vector<Preset> command_presets(const std::string& command);

/** Adds `--preset NAME` (default "none") to `desc`; its help lists the presets' names and values. */
void add_preset_option(boost::program_options::options_description& desc, const std::vector<Preset>& presets);

/**
 * detail::parse (cli_util.h) with a preset: stores `args` into `vm`, prints the usage and returns
 * true on --help (nothing else done); else reads --preset and stores the chosen preset's values
 * for the options the command line did not give (PresetValue::value_when where its condition
 * holds), then notifies (the bound variables get the
 * resolved values). `resolved` (if not null) receives every option the preset names, in its
 * order, with the value in force and whether it came from the command line (an empty list for
 * `none`). Throws UsageError "--preset: expected none or recommended, got 'x'" on an unknown name,
 * and what po::store / po::notify throw (unknown option, bad value). O(arguments + preset size).
 */
bool parse_with_preset(const Args& args, const boost::program_options::options_description& desc, boost::program_options::variables_map& vm,
                       const char* usage, const std::vector<Preset>& presets, std::vector<ResolvedOption>* resolved);

/** "--placer vmcap-fit --compare sa ... (--migrations-per-request 0 from the command line)":
 *  the resolved options as one line, for the commands' summaries. Pure. */
std::string resolved_text(const std::vector<ResolvedOption>& resolved);

}  // namespace vmcap::cli::detail

#pragma once
/**
 * @file cli.h
 * Subcommands of the `vmcap` binary. Each takes its arguments after the subcommand name, parses
 * them with Boost.Program_options, prints `--help` and returns 0, and returns 0 on success.
 * Errors are thrown, never printed here: InputError or UsageError -> exit code 2, TimeLimitReached
 * -> kExitTimeLimit (4), any other exception -> exit code 1 (main.cpp prints one line "vmcap <cmd>: <message>").
 */
#include <stdexcept>
#include <string>
#include <vector>

namespace vmcap::cli {

/** Wrong command-line usage (unknown option, missing value, bad combination). Exit code 2. */
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

using Args = std::vector<std::string>;

/** Exit code of `vmcap plan` stopped by SIGINT or SIGTERM: the best plan found so far was written
 *  (atomically) and its summary printed. 130 = 128 + SIGINT, as shells report an interrupt. */
inline constexpr int kExitInterrupted = 130;

/** Exit code when a command's --time-limit passed before it had a result to write (an
 *  exact-fallback VMCAP evaluation would have started after it; `plan` allows a grace period):
 *  one line on stderr, nothing written. */
inline constexpr int kExitTimeLimit = 4;

int cmd_eval(const Args& args);
int cmd_capacity(const Args& args);
int cmd_plan(const Args& args);
int cmd_validate(const Args& args);
int cmd_snapshot(const Args& args);
int cmd_generate(const Args& args);
/** `vmcap import netsolver ...` (cli/cmd_import.cpp): NetSolver .pn/.vn instances into a snapshot. */
int cmd_import(const Args& args);
/** `vmcap import openstack` (cmd_import_openstack.cpp): the arguments after "openstack". */
int cmd_import_openstack(const Args& args);
int cmd_exact(const Args& args);
int cmd_place(const Args& args);
/** `vmcap export` (cmd_export.cpp): a valid plan as an OpenStack script, CSV or JSON actions. */
int cmd_export(const Args& args);
/** `vmcap report` (cmd_report.cpp): a plan's charts as one self-contained HTML page. */
int cmd_report(const Args& args);
/** `vmcap simulate` (cmd_simulate.cpp): a trace replayed with nightly defragmentation. */
int cmd_simulate(const Args& args);

/** Path of the bundled example cluster (instances/examples/...), used when --cluster is absent. */
std::string default_cluster_path();

}  // namespace vmcap::cli

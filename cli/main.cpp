// vmcap: cluster consolidation optimizer. Dispatches subcommands (cli/cli.h) and maps
// errors to exit codes: 0 success, 2 bad input or usage, 1 internal failure (3: plan rejected by
// `vmcap validate`).
#include <boost/program_options/errors.hpp>
#include <cstdio>
#include <exception>
#include <string>

#include "evaluators/closed_forms/vmcap.h"
#include "instances/problem.h"
#include "cli/cli.h"

namespace {

/** One subcommand: its name, its line in `vmcap --help`, and its handler (cli/cli.h). */
struct Command {
    const char* name;
    const char* summary;
    int (*run)(const vmcap::cli::Args&);
};

/** Every subcommand, in the order of the usage text; usage and dispatch are both generated from it. */
constexpr Command kCommands[] = {
    {"plan", "search live migrations that raise weighted capacity; write a migration plan", vmcap::cli::cmd_plan},
    {"validate", "replay a plan on a snapshot and check every step", vmcap::cli::cmd_validate},
    {"capacity", "per-flavor capacity (VMCAP) of a cluster snapshot", vmcap::cli::cmd_capacity},
    {"eval", "VMCAP of one host for one guest topology and capacity vector", vmcap::cli::cmd_eval},
    {"snapshot", "build a cluster snapshot by replaying a real trace (Azure V1, Huawei-East-1)", vmcap::cli::cmd_snapshot},
    {"generate", "write a random fragmented cluster snapshot", vmcap::cli::cmd_generate},
    {"import", "build a snapshot from external instances (netsolver: NetSolver .pn + .vn; openstack: the clients' JSON)",
     vmcap::cli::cmd_import},
    {"export", "write a valid plan as an OpenStack script (waves in parallel), CSV or JSON actions", vmcap::cli::cmd_export},
    {"report", "write a plan's charts as one self-contained HTML page", vmcap::cli::cmd_report},
    {"simulate", "replay a real trace with an online placer and nightly defragmentation; count rejected requests",
     vmcap::cli::cmd_simulate},
    {"exact", "solve a small snapshot to proven optimality (MILP, CBC)", vmcap::cli::cmd_exact},
    {"place", "place a stream of requests (single VMs, VDCs) with a placement strategy", vmcap::cli::cmd_place},
};

/** `vmcap --help`: a line per entry of kCommands, names padded to one column. */
void print_usage(std::FILE* to) {
    std::fputs("usage: vmcap <command> [options]   (vmcap <command> --help for its options)\n\ncommands:\n", to);
    for (const Command& c : kCommands) std::fprintf(to, "  %-10s %s\n", c.name, c.summary);
}

/** The message as one printable line: control characters (a newline or a terminal escape inside
 *  an id from the input) shown as \xNN, so an error is always exactly one line. */
std::string one_line(const char* what) {
    std::string out;
    for (const char* c = what; *c; ++c) {
        const auto u = static_cast<unsigned char>(*c);
        if (u < 0x20 || u == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", u);
            out += buf;
        } else {
            out += *c;
        }
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace vmcap::cli;
    if (argc < 2) {
        print_usage(stderr);
        return 2;
    }
    const std::string cmd = argv[1];
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        print_usage(stdout);
        return 0;
    }
    const Args args(argv + 2, argv + argc);
    try {
        for (const Command& c : kCommands)
            if (cmd == c.name) return c.run(args);
        std::fprintf(stderr, "vmcap: unknown command '%s' (see vmcap --help)\n", one_line(cmd.c_str()).c_str());
        return 2;
    } catch (const vmcap::TimeLimitReached& e) {
        std::fprintf(stderr, "vmcap %s: %s; nothing written (exit code %d)\n", cmd.c_str(), one_line(e.what()).c_str(), kExitTimeLimit);
        return kExitTimeLimit;
    } catch (const vmcap::InputError& e) {
        std::fprintf(stderr, "vmcap %s: %s\n", cmd.c_str(), one_line(e.what()).c_str());
        return 2;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "vmcap %s: %s (see vmcap %s --help)\n", cmd.c_str(), one_line(e.what()).c_str(), cmd.c_str());
        return 2;
    } catch (const boost::program_options::error& e) {
        std::fprintf(stderr, "vmcap %s: %s (see vmcap %s --help)\n", cmd.c_str(), one_line(e.what()).c_str(), cmd.c_str());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "vmcap %s: internal error: %s\n", cmd.c_str(), one_line(e.what()).c_str());
        return 1;
    }
}

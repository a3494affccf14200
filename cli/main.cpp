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

constexpr const char* kUsage =
    "usage: vmcap <command> [options]   (vmcap <command> --help for its options)\n"
    "\n"
    "commands:\n"
    "  plan       search live migrations that raise weighted capacity; write a migration plan\n"
    "  validate   replay a plan on a snapshot and check every step\n"
    "  capacity   per-flavor capacity (VMCAP) of a cluster snapshot\n"
    "  eval       VMCAP of one host for one guest topology and capacity vector\n"
    "  snapshot   build a cluster snapshot by replaying a real trace (Azure V1, Huawei-East-1)\n"
    "  generate   write a random fragmented cluster snapshot\n"
    "  import     build a snapshot from external instances (netsolver: NetSolver .pn + .vn; openstack: the clients' JSON)\n"
    "  export     write a valid plan as an OpenStack script (waves in parallel), CSV or JSON actions\n"
    "  report     write a plan's charts as one self-contained HTML page\n"
    "  simulate   replay a real trace with an online placer and nightly defragmentation; count rejected requests\n"
    "  exact      solve a small snapshot to proven optimality (MILP, CBC)\n"
    "  place      place a stream of requests (single VMs, VDCs) with a placement strategy\n";

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
        std::fputs(kUsage, stderr);
        return 2;
    }
    const std::string cmd = argv[1];
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        std::fputs(kUsage, stdout);
        return 0;
    }
    const Args args(argv + 2, argv + argc);
    try {
        if (cmd == "eval") return cmd_eval(args);
        if (cmd == "capacity") return cmd_capacity(args);
        if (cmd == "plan") return cmd_plan(args);
        if (cmd == "validate") return cmd_validate(args);
        if (cmd == "snapshot") return cmd_snapshot(args);
        if (cmd == "generate") return cmd_generate(args);
        if (cmd == "import") return cmd_import(args);
        if (cmd == "exact") return cmd_exact(args);
        if (cmd == "place") return cmd_place(args);
        if (cmd == "export") return cmd_export(args);
        if (cmd == "report") return cmd_report(args);
        if (cmd == "simulate") return cmd_simulate(args);
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

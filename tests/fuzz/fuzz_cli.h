// Shared by the harnesses that run a whole CLI command (fuzz_plan, fuzz_place): the exit-code
// mapping of cli/main.cpp, with every "internal error" a libFuzzer crash.
#pragma once
#include <exception>

#include <boost/program_options/errors.hpp>

#include "cli/cli.h"
#include "instances/problem.h"
#include "tests/fuzz/fuzz_common.h"

namespace vmcap::fuzz {

/** Runs `command` (a CLI subcommand on the fuzzed input) as cli/main.cpp would: InputError,
 *  UsageError and Boost.Program_options errors are bad input (exit 2) and pass; any other
 *  exception is the CLI's "internal error" (exit 1), a defect: internal_error aborts. */
template <class Command>
void run_cli(Command&& command) {
    try {
        command();
    } catch (const InputError&) {
    } catch (const cli::UsageError&) {
    } catch (const boost::program_options::error&) {
    } catch (const std::exception& e) {
        internal_error(e.what());
    }
}

}  // namespace vmcap::fuzz

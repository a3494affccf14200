// libFuzzer harness of the plan loader of `vmcap validate` (vmcap-plan/1, docs/format.md). The
// loader has no entry point of its own: it is the start of cli::cmd_validate (read the file, parse
// the JSON, objective_terms, model_for), so the bytes are the --plan file of
// `vmcap validate --cluster <fuzz::kSnapshot>` and cmd_validate runs whole, its validate_plan
// included. It takes paths only: the snapshot and the plan are files in a per-process temporary
// directory. Exceptions are mapped as in cli/main.cpp: InputError, UsageError and
// Boost.Program_options errors are bad input (exit 2); any other is the CLI's "internal error"
// (exit 1), a defect: abort. Exit 0 (valid) and 3 (rejected plan) are both fine.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <stdlib.h>

#include "cli/cli.h"
#include "instances/problem.h"
#include "tests/fuzz/fuzz_cli.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    if (!std::freopen("/dev/null", "w", stdout)) return 1;  // "plan OK: ..." for every valid plan
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const vmcap::fuzz::SnapshotDir dir("vmcap-fuzz-plan");
    const std::string plan = dir.path + "/plan.json";
    std::filesystem::remove(plan);  // a new file: rewriting one in place makes ext4 flush it on close
    std::ofstream(plan, std::ios::binary).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    vmcap::fuzz::run_cli([&] { vmcap::cli::cmd_validate({"--cluster", dir.path + "/cluster.json", "--plan", plan}); });
    return 0;
}

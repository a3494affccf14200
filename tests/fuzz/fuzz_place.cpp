// libFuzzer harness of `vmcap place`: the bytes are the --requests file (docs/format.md
// "Requests") of `vmcap place --cluster <fuzz::kSnapshot>`, run whole through cli::cmd_place: the
// requests parser, admission with every registered strategy (picked by the input's size, with or
// without --batch 4), room-making with at most one live migration
// per refused VM (greedy and the plan ordering), and the loader's checks of the cluster written.
// Exceptions are mapped as in cli/main.cpp: InputError, UsageError and Boost.Program_options errors
// are bad input (exit 2); any other is the CLI's "internal error" (exit 1), a defect: abort.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <stdlib.h>

#include "cli/cli.h"
#include "instances/problem.h"
#include "placement/placer.h"
#include "tests/fuzz/fuzz_cli.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    if (!std::freopen("/dev/null", "w", stdout)) return 1;  // the summary of every run
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const vmcap::fuzz::SnapshotDir dir("vmcap-fuzz-place");
    const std::string requests = dir.path + "/requests.json", out = dir.path + "/placed.json", log = dir.path + "/log.jsonl";
    std::filesystem::remove(requests);
    std::ofstream(requests, std::ios::binary).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    // The first byte picks the semantics, so both paths are explored.
    const bool best_effort = size > 0 && (data[0] & 1U) != 0;
    // The size picks the strategy and the batch, so every placer sees the whole corpus' shapes.
    const auto placers = vmcap::registered_placers();
    const std::string strategy(placers[size % placers.size()].name);
    const std::string batch = (size / placers.size()) % 2 ? "4" : "1";
    vmcap::fuzz::run_cli([&] {
        vmcap::cli::cmd_place({"--cluster", dir.path + "/cluster.json", "--requests", requests, "--migrations-per-request", "1",
                               "--semantics", best_effort ? "best-effort" : "all-or-nothing", "--strategy", strategy, "--batch", batch,
                               "--out", out, "--log", log});
    });
    return 0;
}

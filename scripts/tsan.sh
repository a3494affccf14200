#!/usr/bin/env bash
# Fourth CI stage: ThreadSanitizer on the parallel search (build-tsan/, RelWithDebInfo). Runs the
# tests that drive several search threads -- annealing (host regions and chains), tabu and free remaps with 2 threads, the
# golden plans at 2 threads (through the TSan-built vmcap binary), the parallel search tests and the
# bound's Lagrangian on arrivals with 2 workers --
# with every report fatal. Needs the packages scripts/setup.sh installs. Measured: docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# Only the test sources that hold the tests run below are built (-R: keep the two lists in step).
FILES="bad_input_test.cpp;cli_test.cpp;free_remap_test.cpp;golden_test.cpp;network_test.cpp;objective_test.cpp"
FILES+=";regions_test.cpp;tabu_test.cpp;toy_filter_test.cpp;upper_bound_test.cpp;value_memo_test.cpp;vmcap_memo_test.cpp"
# -g1 (line tables and function names, what a report's stacks need; no variables): the TSan
# tree's compile CPU is a quarter less than with RelWithDebInfo's -g (annealing.cpp 7.3 / 8.3 s
# against 9.6 / 11.1 s; docs/performance.md, "Greedy's room candidates cached", its "CI time").
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DVMCAP_SANITIZE_THREAD=ON -DVMCAP_BUILD_TESTS=ON -DVMCAP_BUILD_BENCH=OFF -DVMCAP_UNITY_LIBS=ON \
  -DVMCAP_TEST_FILES="$FILES" >/dev/null
cmake --build build-tsan -j"$(nproc)"
# oneTBB's own synchronisation is not instrumented; its scheduler internals are suppressed, our
# code is not (scripts/tsan.supp). A suppression matches a frame of either access's stack, and the
# earlier access's stack comes from TSan's per-thread history: with the default history a TBB
# worker's read made long before (the model read during the search, freed by the main thread at
# the end of `vmcap plan`) came back as "failed to restore the stack", without its libtbb frames,
# and FreeRemaps.ParallelSearchOnTheBundledExampleWritesValidPlans (now split as
# FreeRemaps/FreeRemapsParallel.*) failed once on 2026-12-01 in a run of this script alone (an earlier failure came from two runs sharing build-tsan; four runs of
# that test alone passed with either history). history_size=7, the largest, keeps more of those
# stacks.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 history_size=7 suppressions=$PWD/scripts/tsan.supp"
ctest --test-dir build-tsan --output-on-failure -j"$(nproc)" --timeout 1800 \
  -R 'Golden|FreeRemaps|Tabu|Parallel|StateAggregates|Signals|Regions|VmcapMemo|HostValueMemo|ToyFilter|ArrivalsPricedDoNotDependOnThreads' "$@"

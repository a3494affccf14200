#!/usr/bin/env bash
# Second CI stage: the whole test suite built with AddressSanitizer + UndefinedBehaviorSanitizer
# (build-asan/, RelWithDebInfo), any report fatal. Needs the packages scripts/setup.sh installs.
# Measured on the 2-core CI machine: see docs/performance.md ("Sanitizers").
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVMCAP_SANITIZE=ON -DVMCAP_BUILD_TESTS=ON -DVMCAP_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j"$(nproc)"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
ctest --test-dir build-asan --output-on-failure -j"$(nproc)" --timeout 900 "$@"

#!/usr/bin/env bash
# The test suite: install what is missing, build (tests and benchmarks), run every test with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh -DVMCAP_BUILD_TESTS=ON -DVMCAP_BUILD_BENCH=ON
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"

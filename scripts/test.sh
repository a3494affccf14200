#!/usr/bin/env bash
# The test suite: install what is missing, build (tests and benchmarks), run every test with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh -DVMCAP_BUILD_TESTS=ON -DVMCAP_BUILD_BENCH=ON
# Headless Chromium opens the page of `vmcap report` in tests/report_test.cpp.
bash scripts/install_packages.sh test chromium
# The Watcher strategy's test (integrations/watcher) imports Watcher itself; Nova's cell rule is
# tested against Nova's own code (tests/nova_oracle.py). Without them both tests would be skipped.
# Watcher's modules the strategy test imports need oslotest, which python3-watcher does not
# depend on (a fresh machine skipped the test until it was listed here).
bash scripts/install_packages.sh test python3-watcher python3-nova python3-oslotest
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"

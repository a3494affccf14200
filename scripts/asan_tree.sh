#!/usr/bin/env bash
# Configures build-asan/, the one Clang ASan + UBSan tree that both scripts/sanitize.sh (the test
# suite) and scripts/fuzz.sh (the libFuzzer harnesses) build in: every library is compiled once,
# with ASan, UBSan (any report fatal) and libFuzzer's coverage instrumentation
# (-fsanitize=fuzzer-no-link); only the harnesses link libFuzzer (CMakeLists.txt, VMCAP_BUILD_FUZZ).
# Installs Clang and its sanitizer runtimes if missing. Both scripts configure through this file so
# that the second one finds the tree up to date instead of reconfiguring and rebuilding it.
# Debug info: line tables only (-gline-tables-only), all a sanitizer's stack trace prints (file,
# line, function, inlined frames); full -g cost more compile and link time for variables' locations
# no CI stage reads (docs/performance.md, "Sanitizers").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_packages.sh sanitize clang libclang-rt-14-dev
CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
  -DVMCAP_SANITIZE=ON -DVMCAP_BUILD_FUZZ=ON -DVMCAP_BUILD_TESTS=ON -DVMCAP_BUILD_BENCH=OFF -DVMCAP_UNITY_LIBS=ON >/dev/null

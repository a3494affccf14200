#!/usr/bin/env bash
# Coverage-guided fuzzing of the input parsers (tests/fuzz: snapshot loader, plan loader, plan
# validation, `import netsolver`) with libFuzzer + ASan + UBSan. Installs the missing Debian packages (as setup.sh
# does), builds the harnesses in build-fuzz/ (clang), runs each target for the given time on a
# working corpus in build-fuzz/corpus/<target> (the checked-in tests/fuzz/corpus/<target> and
# tests/fuzz/regressions/<target> are read, never written), keeps crash artifacts in
# build-fuzz/artifacts/<target>/ and prints one summary line per target. Exit status 1 if any target crashed, leaked, ran out of memory or timed out.
# Usage: scripts/fuzz.sh [seconds-per-target] (default 60).
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_TARGET="${1:-60}"
[[ "$SECONDS_PER_TARGET" =~ ^[1-9][0-9]*$ ]] || { echo "usage: scripts/fuzz.sh [seconds-per-target]" >&2; exit 2; }
TARGETS=(fuzz_snapshot fuzz_plan fuzz_validate fuzz_netsolver fuzz_place)

PACKAGES=(clang libclang-rt-14-dev cmake ninja-build pkg-config libtbb-dev libeigen3-dev libboost-program-options-dev libboost-graph-dev
          nlohmann-json3-dev coinor-libcbc-dev)
bash scripts/install_packages.sh fuzz "${PACKAGES[@]}"

start=$(date +%s)
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DVMCAP_BUILD_FUZZ=ON -DVMCAP_BUILD_TESTS=OFF -DVMCAP_BUILD_BENCH=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target "${TARGETS[@]}"
echo "fuzz: build $(($(date +%s) - start)) s"

export UBSAN_OPTIONS=print_stacktrace=1
failed=0
summary=()
for t in "${TARGETS[@]}"; do
  name=${t#fuzz_}
  corpus=build-fuzz/corpus/$name artifacts=build-fuzz/artifacts/$name log=build-fuzz/logs/$t.log
  mkdir -p "$corpus" "$artifacts" build-fuzz/logs
  seeds=("tests/fuzz/corpus/$name")  # read only: new inputs go to the first directory, $corpus
  if [ -d "tests/fuzz/regressions/$name" ]; then seeds+=("tests/fuzz/regressions/$name"); fi
  dict=tests/fuzz/$name.dict  # a target's own dictionary, else the JSON one
  [ -f "$dict" ] || dict=tests/fuzz/json.dict
  echo "fuzz: $t for $SECONDS_PER_TARGET s (log $log)"
  t0=$(date +%s)
  rc=0
  "build-fuzz/tests/fuzz/$t" -max_total_time="$SECONDS_PER_TARGET" -max_len=4096 -timeout=5 -rss_limit_mb=2048 \
    -dict="$dict" -artifact_prefix="$artifacts/" -print_final_stats=1 \
    "$corpus" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  wall=$(($(date +%s) - t0))
  # libFuzzer's last status line ("#N DONE cov: C ft: F corp: K/SIZE ...") and final stats.
  last=$(grep -E '^#[0-9]+[[:space:]].*cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1 || true)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  cov=$(sed -E -n 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  ft=$(sed -E -n 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
  corp=$(sed -E -n 's/.* corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p' <<<"$last")
  crashes=$(grep -c 'Test unit written to' "$log" || true)
  status=ok
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    status="FAILED (exit $rc; see $log and $artifacts/)"
    failed=1
  fi
  summary+=("$(printf '%-14s runs %-9s cov %-6s ft %-7s corpus %-12s crashes %s  wall %d s  %s' \
    "$t" "${runs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$crashes" "$wall" "$status")")
done

echo "fuzz: summary ($SECONDS_PER_TARGET s per target; total $(($(date +%s) - start)) s incl. build)"
printf '%s\n' "${summary[@]}"
exit "$failed"

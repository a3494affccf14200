#!/usr/bin/env bash
# Coverage-guided fuzzing of the input parsers (tests/fuzz: snapshot loader, plan loader, plan
# validation, `import netsolver`, `place`) with libFuzzer + ASan + UBSan. Installs the missing Debian
# packages (as setup.sh does), builds the harnesses in build-asan/, the tree scripts/sanitize.sh
# builds the ASan + UBSan suite in (scripts/asan_tree.sh: after that stage only the five harnesses
# compile), runs each target for the given time on a working corpus in build-fuzz/corpus/<target>
# (the checked-in tests/fuzz/corpus/<target> and tests/fuzz/regressions/<target> are read, never
# written), keeps crash artifacts in build-fuzz/artifacts/<target>/ and prints one summary line per
# target. The targets run as many at a time as there are cores (each one process, one core: the
# same fuzzing per target as one after another, in less wall time). Exit status 1 if any target
# crashed, leaked, ran out of memory or timed out.
# Usage: scripts/fuzz.sh [seconds-per-target] (default 60). FUZZ_JOBS=N: N targets at a time.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_TARGET="${1:-60}"
[[ "$SECONDS_PER_TARGET" =~ ^[1-9][0-9]*$ ]] || { echo "usage: scripts/fuzz.sh [seconds-per-target]" >&2; exit 2; }
TARGETS=(fuzz_snapshot fuzz_plan fuzz_validate fuzz_netsolver fuzz_place)
JOBS=${FUZZ_JOBS:-$(nproc)}
[[ "$JOBS" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: FUZZ_JOBS must be a positive integer, not '$JOBS'" >&2; exit 2; }

PACKAGES=(clang libclang-rt-14-dev cmake ninja-build pkg-config libtbb-dev libeigen3-dev libboost-program-options-dev libboost-graph-dev
          nlohmann-json3-dev coinor-libcbc-dev libgtest-dev)  # libgtest-dev: the shared tree configures the suite too
bash scripts/install_packages.sh fuzz "${PACKAGES[@]}"

start=$(date +%s)
bash scripts/asan_tree.sh
cmake --build build-asan -j"$(nproc)" --target "${TARGETS[@]}"
echo "fuzz: build $(($(date +%s) - start)) s"

export UBSAN_OPTIONS=print_stacktrace=1
mkdir -p build-fuzz/logs
# One target: writes its summary line to build-fuzz/logs/<target>.summary; exit 1 if it failed.
run_target() {
  local t=$1 name=${1#fuzz_}
  local corpus=build-fuzz/corpus/$name artifacts=build-fuzz/artifacts/$name log=build-fuzz/logs/$t.log
  mkdir -p "$corpus" "$artifacts"
  local seeds=("tests/fuzz/corpus/$name")  # read only: new inputs go to the first directory, $corpus
  if [ -d "tests/fuzz/regressions/$name" ]; then seeds+=("tests/fuzz/regressions/$name"); fi
  local dict=tests/fuzz/$name.dict  # a target's own dictionary, else the JSON one
  [ -f "$dict" ] || dict=tests/fuzz/json.dict
  echo "fuzz: $t for $SECONDS_PER_TARGET s (log $log)"
  local t0 rc=0
  t0=$(date +%s)
  "build-asan/tests/fuzz/$t" -max_total_time="$SECONDS_PER_TARGET" -max_len=4096 -timeout=5 -rss_limit_mb=2048 \
    -dict="$dict" -artifact_prefix="$artifacts/" -print_final_stats=1 \
    "$corpus" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  local wall=$(($(date +%s) - t0))
  # libFuzzer's last status line ("#N DONE cov: C ft: F corp: K/SIZE ...") and final stats.
  local last runs cov ft corp crashes status=ok
  last=$(grep -E '^#[0-9]+[[:space:]].*cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1 || true)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  cov=$(sed -E -n 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  ft=$(sed -E -n 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
  corp=$(sed -E -n 's/.* corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p' <<<"$last")
  crashes=$(grep -c 'Test unit written to' "$log" || true)
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then status="FAILED (exit $rc; see $log and $artifacts/)"; fi
  printf '%-14s runs %-9s cov %-6s ft %-7s corpus %-12s crashes %s  wall %d s  %s\n' \
    "$t" "${runs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$crashes" "$wall" "$status" >"build-fuzz/logs/$t.summary"
  [ "$status" = ok ]
}

fuzz_start=$(date +%s)
running=0
for t in "${TARGETS[@]}"; do
  rm -f "build-fuzz/logs/$t.summary"
  if [ "$running" -ge "$JOBS" ]; then
    wait -n || true  # a target's failure is read from its summary below
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
wait || true

failed=0
echo "fuzz: summary ($SECONDS_PER_TARGET s per target, $JOBS at a time: $(($(date +%s) - fuzz_start)) s;" \
  "total $(($(date +%s) - start)) s incl. build)"
for t in "${TARGETS[@]}"; do
  if [ -f "build-fuzz/logs/$t.summary" ]; then
    cat "build-fuzz/logs/$t.summary"
    grep -q '  ok$' "build-fuzz/logs/$t.summary" || failed=1
  else
    echo "$t: no summary (the run was interrupted; see build-fuzz/logs/$t.log)"
    failed=1
  fi
done
exit "$failed"

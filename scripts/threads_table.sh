#!/usr/bin/env bash
# Time to target (issue 12 item 2; docs/performance.md, "Threads that buy quality"): for each
# seed, one thread's default `vmcap plan` run sets the target (its search's best objective) and
# the time it first reached it; then T threads (default 2) run with the default evaluation budget
# times 1, 1.5, 2, 3, 4 until one run reaches the target, and the first synchronisation point at
# or above it gives their time (the plan's search.convergence: seconds from the search's start,
# greedy included). Prints one row per seed and the ratios; then the same with one target for all
# seeds, the lowest of one thread's objectives, from the default-budget runs (a seed where one
# thread was lucky sets a per-seed target that few runs reach). Run it on an otherwise idle machine.
#
# usage: scripts/threads_table.sh SNAPSHOT [seeds...]   (default seeds 1 2 3 4 5)
#        THREADS=4 PARALLEL=chains VMCAP=build-x/vmcap EXTRA="--max-migrations 3000" scripts/threads_table.sh ...
set -euo pipefail
cd "$(dirname "$0")/.."
SNAP=$1; shift
SEEDS=${*:-1 2 3 4 5}
VMCAP=${VMCAP:-build/vmcap}
THREADS=${THREADS:-2}
PARALLEL=${PARALLEL:-regions}
EXTRA=${EXTRA:-}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# first time at which the convergence trace of plan $1 reaches objective $2 (or "-")
reach() {
  python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); t = float(sys.argv[2])
print(next((f"{s:.2f}" for s, _, o in d["search"]["convergence"] if o >= t - 1e-9), "-"))
PY
}
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }

echo "| seed | 1 thread: objective | reached at (s) | $THREADS threads ($PARALLEL): budget x | objective | reached at (s) | ratio |"
echo "|---|---|---|---|---|---|---|"
ratios=()
for seed in $SEEDS; do
  # shellcheck disable=SC2086
  "$VMCAP" plan --cluster "$SNAP" --threads 1 --seed "$seed" --quiet --time-limit 3600 $EXTRA --out "$WORK/one.json" >/dev/null
  cp "$WORK/one.json" "$WORK/one-$seed.json"
  target=$(jget "$WORK/one.json" 'd["search"]["best_state_objective"]')
  # the annealing's default budget: all evaluations but greedy's (the trace's first row)
  base_evals=$(jget "$WORK/one.json" 'd["search"]["evaluations"] - d["search"]["convergence"][0][1]')
  t1=$(reach "$WORK/one.json" "$target")
  tt="-"; obj="-"; used="-"
  for m in 1 1.5 2 3 4; do
    budget=""
    [ "$m" = 1 ] || budget="--max-evaluations $(python3 -c "print(int($base_evals * $m))")"
    # shellcheck disable=SC2086
    "$VMCAP" plan --cluster "$SNAP" --threads "$THREADS" --parallel "$PARALLEL" --seed "$seed" --quiet --time-limit 3600 \
      $budget $EXTRA --out "$WORK/many.json" >/dev/null
    [ "$m" != 1 ] || cp "$WORK/many.json" "$WORK/many-$seed.json"
    obj=$(jget "$WORK/many.json" 'd["search"]["best_state_objective"]')
    tt=$(reach "$WORK/many.json" "$target")
    used=$m
    [ "$tt" = "-" ] || break
  done
  ratio="-"
  [ "$tt" = "-" ] || { ratio=$(python3 -c "print(f'{$tt / $t1:.2f}')"); ratios+=("$ratio"); }
  echo "| $seed | $target | $t1 | $used | $obj | $tt | $ratio |"
done
python3 - "${ratios[@]}" <<'PY'
import statistics, sys
r = [float(x) for x in sys.argv[1:]]
if r: print(f"\nratio over {len(r)} seeds: median {statistics.median(r):.2f}, mean {statistics.mean(r):.2f}, max {max(r):.2f}")
PY
python3 - "$WORK" $SEEDS <<'PY'
import json, statistics, sys
work, seeds = sys.argv[1], sys.argv[2:]
load = lambda f: json.load(open(f))["search"]
one = {s: load(f"{work}/one-{s}.json") for s in seeds}
many = {s: load(f"{work}/many-{s}.json") for s in seeds}
target = min(one[s]["best_state_objective"] for s in seeds)
def reach(sr):
    return next((t for t, _, o in sr["convergence"] if o >= target - 1e-9), None)
t1 = [reach(one[s]) for s in seeds]
tm = [reach(many[s]) for s in seeds]
print(f"\ncommon target {target:g} (the lowest of one thread's objectives), default budgets:")
print("  one thread reached it at " + ", ".join("-" if t is None else f"{t:.2f}" for t in t1) + " s")
print("  many threads reached it at " + ", ".join("-" if t is None else f"{t:.2f}" for t in tm) + " s")
# a seed that never reached the target counts as infinitely late
inf = float("inf")
ma = statistics.median([inf if t is None else t for t in t1])
mb = statistics.median([inf if t is None else t for t in tm])
print(f"  median time {mb:.2f} / {ma:.2f} s = {mb / ma:.2f} "
      f"({sum(t is not None for t in tm)} / {sum(t is not None for t in t1)} of {len(seeds)} seeds reached it)")
PY

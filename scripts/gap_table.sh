#!/usr/bin/env bash
# Gap table (docs/performance.md, "Upper bound and gap"): for the bundled example, the two other
# medium snapshots (budget: the snapshot's own, 1% of its VMs) and the large snapshots of
# scripts/large_snapshots.sh (budgets 0.5%, 1%, 5%), the objective of `vmcap plan` with greedy and
# with the default annealing run, the upper bound the plan file reports, the gap of each plan
# ((bound - objective) / bound) and the seconds the bound took. Runs stop on their evaluation
# budget, so objectives and bounds are reproducible; seconds are not. Needs ../shared/data.
#
# usage: scripts/gap_table.sh [work-dir]   (default /tmp/vmcap-gap; snapshots are kept there)
#        VMCAP=build-x/vmcap scripts/gap_table.sh   (another build; default build/vmcap)
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:-/tmp/vmcap-gap}
. scripts/table_lib.sh
snap az-test-1100 --trace azure-test --copies 3 --hosts 1100
snap huawei-1000 --trace huawei --copies 64 --hosts 1000
snap_large
cp instances/examples/azure-cq3-160.json "$WORK/example-160.json"

row() {  # name, budget label, then extra plan flags
  local name=$1 label=$2; shift 2
  local f="$WORK/$name.json"
  local hosts vms
  hosts=$(host_count "$f")
  vms=$(vm_count "$f")
  "$VMCAP" plan --cluster "$f" --algorithm greedy --time-limit 3600 --quiet --out "$WORK/g.json" "$@" >/dev/null
  "$VMCAP" plan --cluster "$f" --time-limit 3600 --quiet --out "$WORK/s.json" "$@" >/dev/null
  local before greedy sa bound gg gs secs migr
  before=$(field objective_before "$WORK/s.json")
  greedy=$(field objective_after "$WORK/g.json")
  sa=$(field objective_after "$WORK/s.json")
  bound=$(field upper_bound "$WORK/s.json")
  gg=$(field gap "$WORK/g.json")
  gs=$(field gap "$WORK/s.json")
  secs=$(field upper_bound_seconds "$WORK/s.json")
  migr=$(field max_migrations "$WORK/s.json")
  awk -v n="$name" -v h="$hosts" -v v="$vms" -v l="$label" -v m="$migr" -v b0="$before" -v g="$greedy" -v s="$sa" \
      -v u="$bound" -v gg="$gg" -v gs="$gs" -v t="$secs" \
      'BEGIN { printf "| %s | %s | %s | %s (%s) | %g | %g | %g | %g | %.1f%% | %.1f%% | %.2f |\n", n, h, v, l, m, b0, g, s, u, 100 * gg, 100 * gs, t }'
}

echo "| snapshot | hosts | VMs | budget (migrations) | before | greedy | annealing | upper bound | gap greedy | gap annealing | bound s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
row example-160 "snapshot"
row az-test-1100 "snapshot"
row huawei-1000 "snapshot"
for name in $LARGE; do
  vms=$(vm_count "$WORK/$name.json")
  for pct in 0.5 1 5; do
    budget=$(budget_of "$vms" "$pct")
    row "$name" "$pct%" --max-migrations "$budget"
  done
done

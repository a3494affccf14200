#!/usr/bin/env bash
# Search speed and memory on a 10,000-host CQ3 snapshot with ~310,000 VMs and 8 target flavors
# (docs/performance.md, "Search speed"): replays Azure V1 test x17 (needs ../shared/data), then
# `vmcap plan` with a 60 s time limit (greedy start + annealing) on 1 and 2 threads. Prints the
# annealing phase's candidate-move evaluations per second and the peak RSS (GNU time).
# usage: scripts/speed_10k.sh [work-dir]   (default /tmp/vmcap-speed; the snapshot is kept there)
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:-/tmp/vmcap-speed}
VMCAP=${VMCAP:-build/vmcap}
mkdir -p "$WORK"
SNAP="$WORK/az10k-8t.json"
[ -f "$SNAP" ] || "$VMCAP" snapshot --trace azure-test --copies 17 --hosts 10000 \
  --weight 16c112g=4 --weight 8c56g=2 --weight 8c14g=1 --weight 4c28g=1 --weight 4c7g=0.5 \
  --weight 2c14g=0.5 --weight 2c3.5g=0.25 --weight 1c1.75g=0.125 --out "$SNAP" >/dev/null
# The evaluation budget is 2 x 10^9 per thread, so every worker follows the same temperature
# schedule (it is defined over the worker's share of the budget) and the per-thread rates of the
# 1- and 2-thread runs compare like with like; 60 s end the runs long before the budget.
for t in 1 2; do
  echo "== threads $t"
  /usr/bin/time -f "peak RSS %M KiB, wall %e s" "$VMCAP" plan --cluster "$SNAP" --threads "$t" --time-limit 60 \
    --max-evaluations $((t * 2000000000)) --quiet --out "$WORK/plan-t$t.json" 2>&1 | grep -E "^(cluster|search|  |objective|plan|peak)" | grep -v "^  *[0-9]"
done

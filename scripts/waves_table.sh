#!/usr/bin/env bash
# Waves and windows on a >= 1,000-host snapshot (issue 26): makespan, waves and gain of `vmcap plan`
# against the per-host and per-cluster concurrency limits, and the gain within maintenance windows.
# Usage: scripts/waves_table.sh [vmcap] [work dir] [max migrations]
# Every plan is re-checked by `vmcap validate` (waves, in-flight states and times included).
set -euo pipefail
cd "$(dirname "$0")/.."
VMCAP=${1:-build/vmcap}
WORK=${2:-/tmp/vmcap-waves}
BUDGET=${3:-}
mkdir -p "$WORK"
SNAP="$WORK/az-test-2200.json"
[ -f "$SNAP" ] || "$VMCAP" snapshot --trace azure-test --copies 6 --hosts 2200 --out "$SNAP" >/dev/null
extra=()
[ -n "$BUDGET" ] && extra+=(--max-migrations "$BUDGET")
row() {  # label, then vmcap plan options
  local label=$1; shift
  local out="$WORK/plan-$(echo "$label" | tr ' /,' '___').json"
  local t0=$(date +%s.%N)
  "$VMCAP" plan --cluster "$SNAP" --quiet --seed 1 --time-limit 300 "${extra[@]}" "$@" --out "$out" >/dev/null
  local secs=$(echo "$(date +%s.%N) - $t0" | bc)
  "$VMCAP" validate --cluster "$SNAP" --plan "$out" --bound-check consistency >/dev/null
  python3 - "$out" "$label" "$secs" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); s = d["schedule"]
gain = d["objective_after"] - d["objective_before"]
print(f'| {sys.argv[2]} | {d["migrations"]} | {s["waves"]} | {s["makespan_s"]/60:.1f} | {gain:g} | {s.get("cut_steps", 0)} | {float(sys.argv[3]):.0f} |')
PY
}
echo "| limits / window | migrations | waves | makespan min | gain | steps cut | run s |"
echo "|---|---|---|---|---|---|---|"
row "1 out, 1 in per host" --max-out-per-host 1 --max-in-per-host 1
row "2 out, 2 in per host" --max-out-per-host 2 --max-in-per-host 2
row "4 out, 4 in per host" --max-out-per-host 4 --max-in-per-host 4
row "1/1 per host, 20 in cluster" --max-concurrent 20
row "4/4 per host, 50 in cluster" --max-out-per-host 4 --max-in-per-host 4 --max-concurrent 50
for w in 5m 10m; do row "window $w, 1/1 per host" --window "$w"; done
for w in 1h 4h 8h; do row "window $w, 1/1 per host, 10 in cluster" --max-concurrent 10 --window "$w"; done
row "1/1 per host, 10 in cluster" --max-concurrent 10

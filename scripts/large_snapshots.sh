#!/usr/bin/env bash
# Gain of the annealing over greedy at equal budget on large snapshots replayed from the real
# traces (docs/performance.md, "Large snapshots"). Needs ../shared/data and a Release build in
# build/ (scripts/setup.sh). Runs are stopped by their evaluation budget, not by time, so the
# objectives are reproducible whatever the machine load; the seconds are not.
#
# usage: scripts/large_snapshots.sh [work-dir]   (default /tmp/vmcap-large; snapshots are kept there)
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:-/tmp/vmcap-large}
. scripts/table_lib.sh
snap_large

objective() { grep '^objective' | awk '{print $2, $4}'; }
echo "| snapshot | hosts | VMs | budget | migrations | before | greedy | annealing | gain over greedy | greedy s | annealing s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for name in $LARGE; do
  f="$WORK/$name.json"
  hosts=$(host_count "$f")
  vms=$(vm_count "$f")
  for pct in 0.5 1 5; do
    budget=$(budget_of "$vms" "$pct")
    g=$( { /usr/bin/time -f "%e" "$VMCAP" plan --cluster "$f" --algorithm greedy --max-migrations "$budget" --time-limit 3600 --quiet --out "$WORK/g.json"; } 2>"$WORK/t" )
    gs=$(tail -1 "$WORK/t")
    s=$( { /usr/bin/time -f "%e" "$VMCAP" plan --cluster "$f" --max-migrations "$budget" --time-limit 3600 --quiet --out "$WORK/s.json"; } 2>"$WORK/t" )
    ss=$(tail -1 "$WORK/t")
    read -r before gobj <<<"$(echo "$g" | objective)"
    read -r _ sobj <<<"$(echo "$s" | objective)"
    # Parenthesised: in awk's printf arguments a bare '>' is an output redirection.
    gain=$(awk -v a="$sobj" -v b="$gobj" 'BEGIN { d = a - b; printf "%s%g (%s%.2f%%)", (d >= 0 ? "+" : ""), d, (d >= 0 ? "+" : ""), (b > 0 ? 100 * d / b : 0) }')
    echo "| $name | $hosts | $vms | $pct% | $budget | $before | $gobj | $sobj | $gain | $gs | $ss |"
  done
done

#!/usr/bin/env bash
# What capacity-aware placement buys (issue 23): replays the Azure V1 and Huawei-East-1 traces into
# the same clusters with each placer (vmcap snapshot --placer) — the same arrivals offered, so the
# same load — and prints, per cluster and placer, the rejected arrivals, the vCPU in use at the stop,
# the weighted capacity of the targets (vmcap capacity: sum_f w_f x VMCAP_f; targets = the
# multi-NUMA flavors, weight 1) with its topology-free bound, and the replay time.
# usage: scripts/placer_table.sh [vmcap binary] [work dir]     (data: ../shared/data or VMCAP_DATA_DIR)
set -euo pipefail
VMCAP=${1:-build/vmcap}
WORK=${2:-/tmp/vmcap-placers}
mkdir -p "$WORK"
export VMCAP_DATA_DIR=${VMCAP_DATA_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
echo "| trace | hosts | placer | rejected | vCPU used | weighted capacity | topology-free bound | replay s |"
echo "|---|---|---|---|---|---|---|---|"
run() {  # label hosts args...
  local label=$1 hosts=$2
  shift 2
  for placer in best-fit first-fit vmcap-fit; do
    local snap="$WORK/$label-$hosts-$placer.json"
    local out
    out=$("$VMCAP" snapshot "$@" --hosts "$hosts" --placer "$placer" --out "$snap")
    local rej util secs
    rej=$(grep -oE 'rejected [0-9]+ \([0-9.]+%\)' <<<"$out" | head -1 | sed 's/rejected //')
    util=$(grep -oE 'vCPU [0-9.]+%' <<<"$out" | head -1 | sed 's/vCPU //')
    secs=$(grep -oE 'replay [0-9.]+ s' <<<"$out" | sed 's/replay //; s/ s//')
    "$VMCAP" capacity --cluster "$snap" --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
bound = sum(f["weight"] * f["topology_free_bound"] for f in d["flavors"])
print("%.0f %.0f" % (d["objective"], bound))' | {
      read -r cap bound
      echo "| $label | $hosts | $placer | $rej | $util | $cap | $bound | $secs |"
    }
  done
}
run azure-test 450 --trace azure-test
run azure-test 600 --trace azure-test
run azure-test 1000 --trace azure-test
run azure-dev 200 --trace azure-dev
run azure-dev 300 --trace azure-dev
run huawei-x10 170 --trace huawei --copies 10 --time 800000
run huawei-x10 200 --trace huawei --copies 10 --time 800000
run huawei-x10 260 --trace huawei --copies 10 --time 800000

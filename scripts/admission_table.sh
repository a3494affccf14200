#!/usr/bin/env bash
# Admission per strategy (issue 25): a fragmented snapshot replayed from the Azure V1 test trace
# (vmcap snapshot, best-fit, 1,000 hosts at 2/3 of the trace), then the same N requests offered to
# each strategy with `vmcap place` (all or nothing, going on past failures): single VMs drawn from
# the snapshot's VM flavor mix (seeded; each flavor in proportion to its VMs alive), one VDC of 2-4
# such VMs in every 10 requests. Prints per strategy: requests placed, rejected vCPU, the weighted
# capacity left (vmcap capacity: sum_f w_f x VMCAP_f) and microseconds per request; the last row is
# vmcap-fit with --migrations-per-request 2 (live migrations that make room for a VM no host takes).
# usage: scripts/admission_table.sh [vmcap binary] [work dir] [requests]   (data: ../shared/data or VMCAP_DATA_DIR)
set -euo pipefail
VMCAP=${1:-build/vmcap}
WORK=${2:-/tmp/vmcap-admission}
N=${3:-10000}
mkdir -p "$WORK"
export VMCAP_DATA_DIR=${VMCAP_DATA_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
SNAP="$WORK/azure-test-1000.json"
[ -f "$SNAP" ] || "$VMCAP" snapshot --trace azure-test --hosts 1000 --out "$SNAP" >/dev/null
python3 - "$SNAP" "$WORK/requests.json" "$N" <<'PY'
import json, random, sys
snap, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = json.load(open(snap))
mix = [vm["flavor"] for vm in d["vms"]]
rng = random.Random(1)
reqs = []
for i in range(n):
    if i % 10 == 9:
        vms = [{"id": "v%d" % k, "flavor": rng.choice(mix)} for k in range(rng.randint(2, 4))]
        reqs.append({"id": "req%d" % i, "vms": vms})
    else:
        reqs.append({"id": "req%d" % i, "flavor": rng.choice(mix)})
json.dump({"requests": reqs}, open(out, "w"))
PY
"$VMCAP" capacity --cluster "$SNAP" --format json | python3 -c 'import json,sys; print("weighted capacity before: %.0f" % json.load(sys.stdin)["objective"])'
echo "| strategy | requests placed | VMs placed | rejected vCPU | weighted capacity left | us per request | migrations |"
echo "|---|---|---|---|---|---|---|"
for s in first-fit best-fit vmcap-fit vmcap-fit+2; do
  k=0
  [[ $s == *+2 ]] && k=2
  out=$("$VMCAP" place --cluster "$SNAP" --requests "$WORK/requests.json" --placer "${s%+2}" --migrations-per-request $k \
        --out "$WORK/placed-$s.json" --log "$WORK/log-$s.jsonl")
  mig=$(grep -oE '^[0-9]+ live migrations made room for [0-9]+' <<<"$out" | sed 's/ live migrations made room for / for /' || true)
  placed=$(grep -oE '^placed [0-9]+ of [0-9]+' <<<"$out" | sed 's/placed //')
  vms=$(grep -oE '^[0-9]+ VMs' <<<"$out" | sed 's/ VMs//')
  us=$(grep -oE '[0-9.]+ us per request' <<<"$out" | sed 's/ us per request//')
  rejv=$(python3 "$(dirname "$0")/rejected_vcpu.py" "$SNAP" "$WORK/requests.json" "$WORK/log-$s.jsonl")
  cap=$("$VMCAP" capacity --cluster "$WORK/placed-$s.json" --format json | python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["objective"])')
  echo "| $s | $placed | $vms | $rejv | $cap | $us | ${mig:-0} |"
done

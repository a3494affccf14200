#!/usr/bin/env bash
# The measurement campaign of `vmcap simulate` (issue 27): rejected requests and rejected vCPU of
# real traces replayed with best-fit admission, without and with nightly defragmentation (greedy and
# annealing at 0.5% and 1% of the live VMs a night, fixed and demand weights) and with admission by
# live migrations (--migrations-per-request 2), 3 seeds each; then the cluster sizes that keep
# rejections under 1% (servers saved), the speed of 30 days x 1,000 hosts with nightly annealing,
# and seed 003's revenue gain on Gridiron VDCs with bandwidth.
# Usage: scripts/simulate_table.sh [vmcap] [work dir] [parts: a b c d e]
# Reads ../shared/data (or $VMCAP_DATA_DIR). Prints markdown tables; JSON per run in the work dir.
set -euo pipefail
cd "$(dirname "$0")/.."
VMCAP=${1:-build/vmcap}
WORK=${2:-/tmp/vmcap-simulate}
PARTS=${3:-a b c d e}
mkdir -p "$WORK"
LIMIT=${LIMIT:-0.01}  # part c: the rejected fraction a cluster must stay under (0.001: Azure's stated 0.1%)
EVALS=10000000  # annealing evaluations a night (the speed target: 30 nights x 1,000 hosts in 15 min)
# Parts a and b: the configurations (CONFIGS=... to re-run a subset); part c: C_CONFIGS on C_TRACES.
CONFIGS=${CONFIGS:-none,greedy,sa,greedy:budget=1%,sa:budget=1%,greedy:weights=demand,sa:weights=demand,none:mpr=2}
C_CONFIGS=${C_CONFIGS:-none greedy sa sa:budget=1% none:mpr=2}
C_TRACES=${C_TRACES:-azure huawei}
AZURE=(--trace azure-test --copies 3)
HUAWEI=(--trace huawei --host-type K2 --node-vcpu 40 --node-ram-gib 90)

summary() {  # json file, label: one markdown row per configuration (mean and sd over the seeds)
  python3 - "$1" "$2" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
def ms(xs):
    m = sum(xs) / len(xs)
    return m, (math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0)
runs = {}
for r in d["runs"]:
    runs.setdefault(r["config"], []).append(r)
base = runs.get("none")
b = ms([r["rejected"] for r in base])[0] if base else None
bv = ms([r["rejected_vcpu"] for r in base])[0] if base else None
for c, rs in runs.items():
    rej, sd = ms([r["rejected"] for r in rs]); pct = ms([100 * r["rejected_fraction"] for r in rs])[0]
    v, vsd = ms([r["rejected_vcpu"] for r in rs])
    mig = ms([r["migrations"] + r["admission_migrations"] for r in rs])[0]
    pool = ms([r["rejected_one_pool"] for r in rs])[0]
    sec = ms([r["seconds"] for r in rs])[0]
    rel = f'{100 * (rej / b - 1):+.1f}%' if b else ''
    relv = f'{100 * (v / bv - 1):+.1f}%' if bv else ''
    print(f'| {sys.argv[2]} | {c} | {len(rs)} | {rej:,.0f} ± {sd:,.0f} ({pct:.2f}%) | {rel} | {v:,.0f} ± {vsd:,.0f} | {relv} | {mig:,.0f} | {pool:,.0f} | {sec:.1f} |')
PY
}

header() {
  echo "| cluster | configuration | seeds | rejected (mean ± sd, %) | vs none | rejected vCPU | vs none | migrations | one-pool rejected | s per run |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
}

if [[ " $PARTS " == *" a "* ]]; then
  header
  for hosts in 1200 1300 1500; do
    out="$WORK/azure-$hosts.json"
    [ -f "$out" ] || "$VMCAP" simulate "${AZURE[@]}" --hosts "$hosts" --compare "$CONFIGS" --seeds 3 --evaluations $EVALS --out-json "$out" >/dev/null 2>&1
    summary "$out" "Azure test x3, $hosts hosts"
  done
fi

if [[ " $PARTS " == *" b "* ]]; then
  header
  for spec in "1 30" "1 35" "20 350"; do
    set -- $spec
    out="$WORK/huawei-$1-$2.json"
    [ -f "$out" ] || "$VMCAP" simulate "${HUAWEI[@]}" --copies "$1" --hosts "$2" --compare "$CONFIGS" --seeds 3 --evaluations $EVALS --out-json "$out" >/dev/null 2>&1
    summary "$out" "Huawei-East-1 x$1, $2 hosts"
  done
fi

rejected_at() {  # simulate options: the first run's rejected fraction
  "$VMCAP" simulate "$@" --out-json "$WORK/bisect.json" >/dev/null 2>&1
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["rejected_fraction"])' "$WORK/bisect.json"
}

smallest() {  # label, lo, hi, then simulate options: the fewest hosts with rejections < LIMIT (bisection)
  local label=$1 lo=$2 hi=$3; shift 3
  while (( hi - lo > 1 )); do  # rejections >= LIMIT at lo, < LIMIT at hi
    local mid=$(( (lo + hi) / 2 )) f
    f=$(rejected_at "$@" --hosts "$mid")
    if python3 -c "import sys; sys.exit(0 if $f < $LIMIT else 1)"; then hi=$mid; else lo=$mid; fi
  done
  echo "| $label | $hi |"
}

# The one-pool reference: one host of one node holding the total of N hosts of (vCPU, GiB) each,
# bisected over N. label, lo, hi, vCPU, GiB, then the trace options.
smallest_pool() {
  local label=$1 lo=$2 hi=$3 vcpu=$4 gib=$5; shift 5
  while (( hi - lo > 1 )); do
    local mid=$(( (lo + hi) / 2 )) f
    f=$(rejected_at "$@" --hosts 1 --host-type K1 --node-vcpu $((mid * vcpu)) --node-ram-gib $((mid * gib)) --compare none)
    if python3 -c "import sys; sys.exit(0 if $f < $LIMIT else 1)"; then hi=$mid; else lo=$mid; fi
  done
  echo "| $label | $hi |"
}

if [[ " $PARTS " == *" c "* ]]; then
  echo "| cluster, configuration | fewest hosts with rejected < $LIMIT |"
  echo "|---|---|"
  if [[ " $C_TRACES " == *" azure "* ]]; then
    for c in $C_CONFIGS; do
      smallest "Azure test x3, $c" 1200 1700 "${AZURE[@]}" --compare "$c" --evaluations $EVALS
    done
    smallest_pool "Azure test x3, one pool (reference)" 1000 1700 128 512 "${AZURE[@]}"  # a CQ3 16c64g host
  fi
  if [[ " $C_TRACES " == *" huawei "* ]]; then
    for c in $C_CONFIGS; do
      smallest "Huawei-East-1 x1, $c" 20 80 "${HUAWEI[@]}" --compare "$c" --evaluations $EVALS
    done
    smallest_pool "Huawei-East-1 x1, one pool (reference)" 10 80 80 180 --trace huawei  # a K2 40c90g host
  fi
fi

if [[ " $PARTS " == *" d "* ]]; then
  echo "| 30 days, 1,000 hosts, nightly sa at 0.5% | evaluations a night | rejected | migrations | wall s (one core) |"
  echo "|---|---|---|---|---|"
  for e in $EVALS 0; do
    out="$WORK/speed-$e.json"
    [ -f "$out" ] || "$VMCAP" simulate --trace huawei --copies 50 --host-type K2 --node-vcpu 40 --node-ram-gib 90 --hosts 1000 --compare sa --evaluations "$e" --out-json "$out" >/dev/null 2>&1
    python3 - "$out" "$e" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
e = int(sys.argv[2])
print(f'| Huawei-East-1 x50, K2-40c90g | {e:,} | {r["rejected"]:,} | {r["migrations"]:,} | {r["seconds"]:.0f} |' if e else
      f'| Huawei-East-1 x50, K2-40c90g | default (1,500 per VM) | {r["rejected"]:,} | {r["migrations"]:,} | {r["seconds"]:.0f} |')
PY
  done
fi

if [[ " $PARTS " == *" e "* ]]; then
  echo "| Gridiron VDCs, leaf-spine 5:1, bpc 6 | configuration | rejected VMs | rejected VDCs | revenue gain | migrations |"
  echo "|---|---|---|---|---|---|"
  for placer in starnetla best-fit; do
    out="$WORK/gridiron-$placer.json"
    [ -f "$out" ] || "$VMCAP" simulate --trace azure-test --hosts 450 --network leaf-spine --oversubscription 5 --bpc 6 --placer "$placer" --compare none,greedy,sa --seeds 3 --evaluations 2000000 --out-json "$out" >/dev/null 2>&1
    python3 - "$out" "$placer" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
runs = {}
for r in d["runs"]:
    runs.setdefault(r["config"], []).append(r)
def ms(xs):
    m = sum(xs) / len(xs)
    return m, (math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0)
for c, rs in runs.items():
    rej, sd = ms([r["rejected"] for r in rs]); vd = ms([r["rejected_vdcs"] for r in rs])[0]
    g, gsd = ms([100 * r["revenue_gain"] for r in rs]); mig = ms([r["migrations"] for r in rs])[0]
    print(f'| Azure test, 450 hosts, {sys.argv[2]} | {c} | {rej:,.0f} ± {sd:,.0f} | {vd:,.0f} of {rs[0]["vdcs"]:,} | {g:+.2f}% ± {gsd:.2f} | {mig:,.0f} |')
PY
  done
fi

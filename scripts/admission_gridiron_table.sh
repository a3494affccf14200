#!/usr/bin/env bash
# Admission of Gridiron VDCs on a leaf-spine network, per strategy (issue 25): a 1,000-host
# snapshot replayed from the Azure V1 test trace with a leaf-spine network and Gridiron vlinks
# (`vmcap snapshot --network leaf-spine --oversubscription R --bpc B`: each tenant batch a VDC,
# all-to-all vlinks of B Mbps x the smaller vCPU count), then N requests offered to every strategy
# with `vmcap place` (all or nothing, going on past failures), without and with
# --migrations-per-request 2. The requests replay the snapshot's own shapes (seeded): each a copy of
# one of its VDCs (the same flavors, all-to-all vlinks of B x min vCPU) or of one of its single VMs,
# drawn uniformly over those units. Prints per strategy: requests accepted (acceptance rate), VMs
# placed, rejected vCPU, vlink Mbps placed, the weighted capacity left (vmcap capacity) and us per
# request. `exact` is not run: a MILP over 1,000 hosts per VDC is beyond this table's time.
# usage: scripts/admission_gridiron_table.sh [vmcap binary] [work dir] [requests] [bpc] [oversubscription]
#        (data: ../shared/data or VMCAP_DATA_DIR)
set -euo pipefail
VMCAP=${1:-build/vmcap}
WORK=${2:-/tmp/vmcap-gridiron}
N=${3:-10000}
BPC=${4:-100}
OVER=${5:-4}
mkdir -p "$WORK"
export VMCAP_DATA_DIR=${VMCAP_DATA_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
SNAP="$WORK/azure-test-1000-bpc$BPC-o$OVER.json"
[ -f "$SNAP" ] || "$VMCAP" snapshot --trace azure-test --hosts 1000 --network leaf-spine --oversubscription "$OVER" --bpc "$BPC" \
  --out "$SNAP" >/dev/null
REQ="$WORK/requests-bpc$BPC-$N.json"
python3 - "$SNAP" "$REQ" "$N" "$BPC" <<'PY'
import json, random, sys
snap, out, n, bpc = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
d = json.load(open(snap))
vcpu = {f["name"]: f["vcpu"] for f in d["flavors"]}
flavor = {vm["id"]: vm["flavor"] for vm in d["vms"]}
units, in_vdc = [], set()
for vdc in d.get("vdcs", []):
    members = sorted({x for a, b, _ in vdc["vlinks"] for x in (a, b)})
    in_vdc.update(members)
    units.append([flavor[m] for m in members])
units += [[vm["flavor"]] for vm in d["vms"] if vm["id"] not in in_vdc]
rng = random.Random(1)
reqs = []
for i in range(n):
    shape = rng.choice(units)
    if len(shape) == 1:
        reqs.append({"id": "req%d" % i, "flavor": shape[0]})
        continue
    vms = [{"id": "v%d" % k, "flavor": f} for k, f in enumerate(shape)]
    links = [{"a": "v%d" % a, "b": "v%d" % b, "bandwidth_mbps": max(1, round(bpc * min(vcpu[shape[a]], vcpu[shape[b]])))}
             for a in range(len(shape)) for b in range(a + 1, len(shape))]
    reqs.append({"id": "req%d" % i, "vms": vms, "vlinks": links})
json.dump({"requests": reqs}, open(out, "w"))
vdcs = sum(1 for r in reqs if "vms" in r)
print("%d requests: %d VDCs (%d VMs), %d single VMs; the snapshot: %d VMs, %d VDCs" % (
    n, vdcs, sum(len(r["vms"]) for r in reqs if "vms" in r), n - vdcs, len(d["vms"]), len(d.get("vdcs", []))))
PY
"$VMCAP" capacity --cluster "$SNAP" --format json | python3 -c 'import json,sys; print("weighted capacity before: %.0f" % json.load(sys.stdin)["objective"])'
echo "| strategy | migrations per request | accepted (rate) | VMs placed | rejected vCPU | vlink Mbps placed | weighted capacity left | us per request | live migrations |"
echo "|---|---|---|---|---|---|---|---|---|"
# deferred-acceptance:64 offers up to 64 consecutive single-VM requests as one batch (--batch 64).
for s in first-fit best-fit vmcap-fit link-fit starnet starnetla deferred-acceptance deferred-acceptance:64 ctaap; do
  for k in 0 2; do
    batch=1
    [[ $s == *:* ]] && batch=${s#*:}
    out=$("$VMCAP" place --cluster "$SNAP" --requests "$REQ" --placer "${s%:*}" --batch "$batch" --migrations-per-request $k \
          --out "$WORK/placed-bpc$BPC-$s-$k.json" --log "$WORK/log-bpc$BPC-$s-$k.jsonl")
    mig=$(grep -oE '^[0-9]+ live migrations' <<<"$out" | sed 's/ live migrations//' || true)
    acc=$(grep -oE '^placed [0-9]+ of [0-9]+' <<<"$out" | sed 's/placed //')
    vms=$(grep -oE '^[0-9]+ VMs' <<<"$out" | sed 's/ VMs//')
    mbps=$(grep -oE '[0-9]+ Mbps of vlinks' <<<"$out" | sed 's/ Mbps of vlinks//')
    us=$(grep -oE '[0-9.]+ us per request' <<<"$out" | sed 's/ us per request//')
    rejv=$(python3 "$(dirname "$0")/rejected_vcpu.py" "$SNAP" "$REQ" "$WORK/log-bpc$BPC-$s-$k.jsonl")
    rate=$(awk -v a="${acc%% *}" -v n="${acc##* }" 'BEGIN { printf "%.1f%%", 100 * a / n }')
    cap=$("$VMCAP" capacity --cluster "$WORK/placed-bpc$BPC-$s-$k.json" --format json | python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["objective"])')
    echo "| ${s%:*}$([ "$batch" = 1 ] || echo ", --batch $batch") | $k | ${acc%% *} ($rate) | $vms | $rejv | $mbps | $cap | $us | ${mig:-0} |"
  done
done

#!/usr/bin/env bash
# Placement rules on a real shape (issue 26): the Azure V1 test trace replayed into 1,000 hosts
# with a leaf-spine network and Gridiron VDCs (--bpc), every VDC of two or more VMs an OpenStack
# anti-affinity server group, and a drain of 2% of the hosts. The gain left with each rule, every
# plan re-checked by `vmcap validate` (rules at every step and in every wave in flight).
# Usage: scripts/rules_table.sh [vmcap] [work dir] [bpc] [max migrations]
set -euo pipefail
cd "$(dirname "$0")/.."
VMCAP=${1:-build/vmcap}
WORK=${2:-/tmp/vmcap-rules}
BPC=${3:-6}
BUDGET=${4:-2000}
mkdir -p "$WORK"
BASE="$WORK/gridiron-1000-bpc$BPC.json"
[ -f "$BASE" ] || "$VMCAP" snapshot --trace azure-test --hosts 1000 --network leaf-spine --bpc "$BPC" --out "$BASE" >/dev/null
GROUPS_SNAP="$WORK/gridiron-1000-bpc$BPC-groups.json"
DRAIN=$(python3 - "$BASE" "$GROUPS_SNAP" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
groups = []
for vdc in d.get("vdcs", []):
    members = sorted({m for link in vdc["vlinks"] for m in link[:2]})
    if len(members) >= 2:
        groups.append({"id": "vdc-" + vdc["id"], "policy": "anti-affinity", "members": members})
d["server_groups"] = groups
json.dump(d, open(sys.argv[2], "w"))
hosts = [h["id"] for h in d["hosts"]]
print(",".join(hosts[i] for i in range(0, len(hosts), 50)))  # 2% of the hosts
PY
)
stats() {  # snapshot: groups, members, members sharing a host with their group
  python3 - "$1" <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); host = {v["id"]: v["host"] for v in d["vms"]}
g = d.get("server_groups", [])
shared = sum(c - 1 for x in g for c in collections.Counter(host[m] for m in x["members"]).values() if c > 1)
print(f'{len(d["hosts"])} hosts, {len(d["vms"])} VMs, {len(g)} anti-affinity groups of {sum(len(x["members"]) for x in g)} VMs '
      f'({shared} members share a host with their group in the snapshot: allowed to stay, never more)')
PY
}
echo "snapshot: $(stats "$GROUPS_SNAP")"
echo
echo "| rules | migrations | objective before | after | gain | waves | makespan min | run s |"
echo "|---|---|---|---|---|---|---|---|"
row() {  # label, snapshot, then vmcap plan options
  local label=$1 snap=$2; shift 2
  local out="$WORK/plan-$(echo "$label" | tr ' /,+' '____').json"
  local t0=$(date +%s.%N)
  "$VMCAP" plan --cluster "$snap" --quiet --seed 1 --time-limit 600 --max-migrations "$BUDGET" "$@" --out "$out" >/dev/null
  local secs=$(echo "$(date +%s.%N) - $t0" | bc)
  "$VMCAP" validate --cluster "$snap" --plan "$out" --bound-check consistency >/dev/null
  python3 - "$out" "$label" "$secs" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); s = d["schedule"]
print(f'| {sys.argv[2]} | {d["migrations"]} | {d["objective_before"]:g} | {d["objective_after"]:g} | '
      f'{d["objective_after"] - d["objective_before"]:g} | {s["waves"]} | {s["makespan_s"]/60:.1f} | {float(sys.argv[3]):.0f} |')
PY
}
row "none" "$BASE"
row "anti-affinity per VDC" "$GROUPS_SNAP"
row "drain 2% (20 hosts)" "$BASE" --drain "$DRAIN"
row "anti-affinity + drain 2%" "$GROUPS_SNAP" --drain "$DRAIN"

#!/usr/bin/env bash
# Real-trace network table (docs/performance.md, "Network: real-trace table (issue 11)"): Azure V1
# snapshots on 1,000 hosts with Gridiron VDCs (--bpc 4) on two datacenter networks, budget 1% (the
# snapshot's default), plans by greedy, annealing and annealing with a locality objective; a third
# group gives the target flavors a hose bandwidth (flavors[].bandwidth_mbps = 100 x vCPU), so the
# objective is the bandwidth-limited capacity. Every plan goes through `vmcap validate`. Prints one
# Markdown table on stdout (progress on stderr). Needs ../shared/data (or $VMCAP_DATA_DIR) and a
# Release build (build/vmcap, or $VMCAP). Plans run one at a time on 1 thread with a fixed seed;
# the annealing normally stops on its default evaluation budget (then the figures are reproducible
# whatever the load; the "stopped by" column says), TIME_LIMIT is only a cap.
#
# usage: scripts/network_table.sh            (all outputs in a mktemp -d directory, removed at exit
#                                              unless KEEP=1)
set -euo pipefail
cd "$(dirname "$0")/.."
VMCAP=${VMCAP:-build/vmcap}
export VMCAP_DATA_DIR=${VMCAP_DATA_DIR:-$(cd .. && pwd)/shared/data}
TIME_LIMIT=${TIME_LIMIT:-150}
SEED=${SEED:-1}
WORK=$(mktemp -d /tmp/vmcap-network-table.XXXXXX)
if [ "${KEEP:-0}" = 1 ]; then echo "outputs kept in $WORK" >&2; else trap 'rm -rf "$WORK"' EXIT; fi

# Networks. leaf-spine: 2 spines, ToR uplinks at 3:1 (20 hosts x 25 Gbps : 2 x 83,333 Mbps).
# tree: 10 racks per pod (5 pods), ToR uplink at 5:1 (100 Gbps), aggregation-core 640 Gbps
# (10 x 100 : 640 = 1.56:1): with the Azure test trace x3 its busiest links run at about 90%.
LEAF_SPINE=(--network leaf-spine --spines 2 --oversubscription 3)
TREE=(--network tree --racks-per-pod 10 --oversubscription 5 --agg-uplink-mbps 640000)

snap() {  # name, then vmcap snapshot arguments
  local name=$1; shift
  echo "snapshot $name: vmcap snapshot $* --out $WORK/$name.json" >&2
  "$VMCAP" snapshot "$@" --out "$WORK/$name.json" >"$WORK/$name.snapshot.txt"
}
with_bandwidth() {  # source name, new name: target flavors (weight > 0) get 100 Mbps per vCPU
  python3 - "$WORK/$1.json" "$WORK/$2.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
for f in s["flavors"]:
    if f.get("weight", 0) > 0:
        f["bandwidth_mbps"] = 100 * f["vcpu"]
json.dump(s, open(sys.argv[2], "w"))
EOF
}

snap test-ls --trace azure-test --hosts 1000 --copies 3 --bpc 4 "${LEAF_SPINE[@]}"
snap test-tree --trace azure-test --hosts 1000 --copies 3 --bpc 4 "${TREE[@]}"
with_bandwidth test-tree test-tree-bw
snap dev-tree --trace azure-dev --hosts 1000 --copies 3 --bpc 4 "${TREE[@]}"

row() {  # snapshot name, label, plan file or "-" for the snapshot's own row (before)
  python3 - "$WORK/$1.json" "$2" "$3" <<'EOF'
import json, sys
snap_file, label, plan_file = sys.argv[1:4]
s = json.load(open(snap_file))
weight = {f["name"]: f.get("weight", 0) for f in s["flavors"]}
bw = any(f.get("bandwidth_mbps", 0) > 0 for f in s["flavors"] if f.get("weight", 0) > 0)
p = json.load(open(plan_file if plan_file != "-" else snap_file + ".before"))
n = p["network"]
when = "before" if plan_file == "-" else "after"
loc_w = p.get("objective_terms", {}).get("locality-weight", 0)
cross = n["cross_rack_mbps_" + when] + n["cross_pod_mbps_" + when]
# objective = weighted capacity (bandwidth-limited when targets have a hose bandwidth) - W x cross
cap = p["objective_" + when] + loc_w * cross
vmcap = sum(weight[f] * c for f, c in p["capacity_" + when].items())
fmt = lambda x: f"{x:,.0f}" if abs(x - round(x)) < 1e-6 else f"{x:,.2f}"
cap_cell = fmt(cap) + (f" (VMCAP {fmt(vmcap)})" if bw else "")
over = len(n["links_over_capacity_" + when])
if plan_file == "-":
    migr, search, obj = "—", "—", "—"
else:
    migr = f"{p['migrations']} ({fmt(p['migrated_ram_gib'])} GiB)"
    q = p["search"]
    search = f"{q['evaluations'] / 1e6:.1f} M in {q['seconds']:.1f} s, {q['stopped_by']}"
    obj = fmt(p["objective_after"])
print(f"| {label} | {migr} | **{cap_cell}** | {obj} | {n['max_link_utilisation_pct_' + when]:.1f} | "
      f"{n['cross_rack_mbps_' + when]:,} | {n['cross_pod_mbps_' + when]:,} | {over} | {search} |")
EOF
}

echo "| snapshot, plan | migrations (RAM) | weighted capacity | objective | max link util % | cross-rack Mbps | cross-pod Mbps | links over cap | search |"
echo "|---|---|---|---|---|---|---|---|---|"
for name in test-ls test-tree test-tree-bw dev-tree; do
  f="$WORK/$name.json"
  case $name in
    test-ls|test-tree) runs=("greedy" "sa" "sa 0.001" "sa 0.01") ;;
    *) runs=("greedy" "sa" "sa 0.001") ;;
  esac
  first=1
  for r in "${runs[@]}"; do
    read -r algo w <<<"$r"
    tag=$algo${w:+-loc$w}
    out="$WORK/$name.$tag.plan.json"
    args=(plan --cluster "$f" --algorithm "$algo" --seed "$SEED" --threads 1 --time-limit "$TIME_LIMIT" --quiet --out "$out")
    [ -n "${w:-}" ] && args+=(--locality-weight "$w")
    [ -n "${MAX_EVALUATIONS:-}" ] && args+=(--max-evaluations "$MAX_EVALUATIONS")  # quick trial runs only
    echo "plan $name: vmcap ${args[*]}" >&2
    "$VMCAP" "${args[@]}" >"$WORK/$name.$tag.plan.txt"
    if ! v=$("$VMCAP" validate --cluster "$f" --plan "$out" 2>&1); then
      echo "VALIDATION FAILED: $name $tag: $v" >&2; exit 1
    fi
    echo "  $v" >&2
    case $v in "plan OK"*) ;; *) echo "unexpected validate output: $v" >&2; exit 1 ;; esac
    if [ $first = 1 ]; then  # the snapshot's own figures, from the first plan's *_before fields
      cp "$out" "$f.before"
      row "$name" "$name: before" -
      first=0
    fi
    label="$name: $algo"; [ -n "${w:-}" ] && label="$name: $algo, locality $w"
    row "$name" "$label" "$out"
  done
done

echo
echo "| snapshot | VMs alive, utilisation | budget (1%) | VDCs with vlinks | vlinks, total Mbps |"
echo "|---|---|---|---|---|"
for name in test-ls test-tree test-tree-bw dev-tree; do
  t="$WORK/${name%-bw}.snapshot.txt"
  alive=$(sed -n 's/.*alive \([0-9]*\).*/\1/p' "$t")
  util=$(sed -n 's/.*utilisation: vCPU \([0-9.]*%\).*/\1/p' "$t")
  budget=$(sed -n 's/.*max_migrations \([0-9]*\).*/\1/p' "$t")
  vdcs=$(sed -n 's/.*VDCs: \([0-9]*\) with vlinks.*/\1/p' "$t")
  vl=$(sed -n 's/.* \([0-9]*\) vlinks, \([0-9]*\) Mbps in total.*/\1, \2/p' "$t")
  echo "| $name | $alive, vCPU $util | $budget | $vdcs | $vl |"
done

#!/usr/bin/env bash
# The published NetSolver table (issue 25) through `vmcap place`: for each hadoop network (us-west1,
# us-west2, us-mid1, us-mid2; the hadoop_extra .pn files) and VDC list (4..14 VMs), then the FatTree
# networks (6..15-VM lists) and the fmcad trees (one VDC offered again and again), `vmcap import
# netsolver --requests-out` gives the empty cluster and the VDCs in offer order; `vmcap place
# --placer link-fit --stop-at-first-failure` counts the VDCs allocated until the first failure
# (NetSolver's rule), without and with --migrations-per-request 2, then with the capacity strategies
# (first-fit, best-fit, vmcap-fit: each ranks the placements that fit and takes the first the link
# rule admits), the source papers' placers (starnet, starnetla, deferred-acceptance, ctaap) and
# exact (a CBC MILP per VDC: on the hadoop networks, FatTree n8 and the 200-server trees only, the
# others take too long per VDC for this table), beside NetSolver-ILP,
# NetSolver-SMT and SecondNet as published (published_allocation_results.csv; a published count
# marked * is from a run whose log has no final line and ends after 3,000 s: it ran into the
# 3,600 s limit, so the count is what it allocated by then, not until a failure; runs without a
# final line that ended earlier ended at their first failure: the FatTree ILP runs on n8 and n12,
# whose runlim .stdout files, next to the logs the CSV was parsed from, end with "done N" and
# status ok).
# NUMA: --numa-nodes 1 by default (NetSolver's servers have no NUMA); pass 2 for dual-node servers.
# EXACT=no skips the exact column (its MILPs take most of the table's time).
# usage: scripts/netsolver_table.sh [vmcap binary] [numa nodes] [work dir]   (data: ../shared/data or VMCAP_DATA_DIR)
set -euo pipefail
VMCAP=${1:-build/vmcap}
NUMA=${2:-1}
WORK=${3:-/tmp/vmcap-netsolver}
mkdir -p "$WORK"
DATA=${VMCAP_DATA_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}/netsolver-vdc
H=$DATA/instances/hadoop
CSV=$DATA/published_allocation_results.csv
published() {  # experiment solver pattern -> count ("*": the run hit the time limit) or "-"
  awk -F, -v e="$1" -v s="$2" -v p="$3" '$1 == e && $2 == s && index($3 ",", p) && !found {
    print $4 ($6 == "done" || $5 < 3000 ? "" : "*"); found = 1 } END { if (!found) print "-" }' "$CSV"
}
count() { grep -oE '^placed [0-9]+' <<<"$1" | sed 's/placed //'; }
us_of() { grep -oE '[0-9.]+ us per request' <<<"$1" | sed 's/ us per request//'; }
# The most VDCs any placer can allocate before the first failure, with or without migrations: the
# longest prefix of the list whose vCPU and RAM fit the cluster's totals (an upper bound; a row's
# count equal to it is optimal).
bound() {  # cluster.json requests.json
  python3 - "$1" "$2" <<'PY'
import json, re, sys
c = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))["requests"]
types = {t["name"]: t for t in c["host_types"]}
nodes = lambda t: int(re.fullmatch(r"K(\d+)", t["topology"]).group(1))
cap = [sum(types[h["type"]]["node_capacity"][k] * nodes(types[h["type"]]) for h in c["hosts"]) for k in ("vcpu", "ram_mib")]
fl = {f["name"]: f for f in c["flavors"]}
used, k = [0, 0], 0
for q in r:
    vms = q["vms"] if "vms" in q else [q]
    used = [used[0] + sum(fl[v["flavor"]]["vcpu"] for v in vms), used[1] + sum(fl[v["flavor"]]["ram_mib"] for v in vms)]
    if used[0] > cap[0] or used[1] > cap[1]:
        break
    k += 1
print(k)
PY
}
row() {  # label pn list ilp smt secondnet [exact: yes|no]
  local label=$1 pn=$2 list=$3 base
  base=$WORK/$(basename "$pn" .pn)-$(basename "$list")
  "$VMCAP" import netsolver --pn "$pn" --list "$list" --numa-nodes "$NUMA" --requests-out "$base.req.json" --out "$base.json" >/dev/null
  place() { "$VMCAP" place --cluster "$base.json" --requests "$base.req.json" --stop-at-first-failure --placer "$@"; }
  local a b others="" papers="" st o ex="not run" ex_us=""
  a=$(place link-fit)
  b=$(place link-fit --migrations-per-request 2)
  for st in first-fit best-fit vmcap-fit; do  # the capacity strategies, ranked, under the link rule
    others+="$(count "$(place $st)") / "
  done
  for st in starnet starnetla deferred-acceptance ctaap; do  # the source papers' placers
    o=$(place $st)
    papers+="$(count "$o") ($(us_of "$o")) / "
  done
  if [ "${7:-yes}" = yes ] && [ "${EXACT:-yes}" = yes ]; then  # exact: a MILP per VDC, for the networks small enough
    o=$(place exact)
    ex=$(count "$o")
    ex_us=" ($(us_of "$o"))"
  fi
  local mb
  mb=$(grep -oE '^[0-9]+ live migrations' <<<"$b" | sed 's/ live migrations//')
  echo "| $label | $(count "$a") | $(count "$b") ($mb) | ${others% / } | ${papers% / } | $ex$ex_us | $4 | $5 | $6 | $(bound "$base.json" "$base.req.json") | $(us_of "$a") |"
}
echo "| network, VDCs | link-fit | link-fit + 2 migrations (migrations) | first-fit / best-fit / vmcap-fit | starnet / starnetla / deferred-acceptance / ctaap (us per VDC) | exact (us per VDC) | NetSolver-ILP | NetSolver-SMT | SecondNet | bound (vCPU, RAM) | us per VDC (link-fit) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for net in us-west1 us-west2 us-mid1 us-mid2; do
  for size in 4 6 8 10 12 14; do
    row "$net, $size VMs" "$H/hadoop_extra/$net.pn" "$H/instance_list_hadoop_${size}vm_rnd.txt" \
      "$(published hadoop netsolver-ilp "results.$net.pn.instance_list_hadoop_${size}vm_rnd")" \
      "$(published hadoop netsolver-smt "config_results_vdcmapper_hadoop_${net//-/_}_${size}vm,")" \
      "$(published hadoop secondnet "results.${net//-/_}.pn.instance_list_hadoop_${size}vm_rnd")"
  done
done
F=$DATA/instances/fattree-bcube
for n in 8 12 16; do
  for bw in 10 20; do
    for size in 6 9 12 15; do
      pn=Fattree_n${n}_k2_bw${bw}_cpu16.pn
      row "FatTree n$n bw$bw, $size VMs" "$F/$pn" "$F/instance_list_${size}vm_rnd.txt" \
        "$(published fattree-bcube netsolver-ilp "results.$pn.instance_list_${size}vm_rnd")" \
        "$([ "$bw" = 10 ] && published fattree-bcube netsolver-smt "vdcmapper_fattree${n}_${size}vm," || echo -)" \
        "$(published fattree-bcube secondnet "results.$pn.instance_list_${size}vm_rnd")" "$([ "$n" = 8 ] && echo yes || echo no)"
    done
  done
done
M=$DATA/instances/fmcad/in_json
for tree in tree tree16; do
  for hosts in 200 400 2000; do
    for vn in vn2_3.1 vn2_3.2 vn2_3.3 vn2_5.1 vn2_5.2 vn2_5.3; do
      row "$tree $hosts, $vn" "$M/${tree}_$hosts.20.pn" "$M/instance_list_$vn" "-" \
        "$(published fmcad-instances netsolver-smt "_datacenter${tree}_$hosts.20.pn_instance_$vn.vn")" \
        "$(published fmcad-instances secondnet "_datacenter${tree}_$hosts.20_instance_$vn.log")" "$([ "$hosts" = 200 ] && echo yes || echo no)"
    done
  done
done

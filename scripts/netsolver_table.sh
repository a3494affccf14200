#!/usr/bin/env bash
# The published NetSolver table (issue 25) through `vmcap place`: for each hadoop network (us-west1,
# us-west2, us-mid1, us-mid2; the hadoop_extra .pn files) and VDC list (4..14 VMs), `vmcap import
# netsolver --requests-out` gives the empty cluster and the VDCs in offer order; `vmcap place
# --strategy link-fit --stop-at-first-failure` counts the VDCs allocated until the first failure
# (NetSolver's rule), without and with --migrations-per-request 2, beside NetSolver-ILP,
# NetSolver-SMT and SecondNet as published (published_allocation_results.csv, experiment "hadoop").
# NUMA: --numa-nodes 1 by default (NetSolver's servers have no NUMA); pass 2 for dual-node servers.
# usage: scripts/netsolver_table.sh [vmcap binary] [numa nodes] [work dir]   (data: ../shared/data or VMCAP_DATA_DIR)
set -euo pipefail
VMCAP=${1:-build/vmcap}
NUMA=${2:-1}
WORK=${3:-/tmp/vmcap-netsolver}
mkdir -p "$WORK"
DATA=${VMCAP_DATA_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}/netsolver-vdc
H=$DATA/instances/hadoop
CSV=$DATA/published_allocation_results.csv
published() {  # solver network size -> count or "-"
  local pat
  case $1 in
    netsolver-ilp) pat="results.$2.pn.instance_list_hadoop_$3vm_rnd" ;;
    netsolver-smt) pat="config_results_vdcmapper_hadoop_${2//-/_}_$3vm," ;;
    secondnet) pat="results.${2//-/_}.pn.instance_list_hadoop_$3vm_rnd" ;;
  esac
  awk -F, -v s="$1" -v p="$pat" '$1 == "hadoop" && $2 == s && index($3 ",", p) { print $4; found = 1 } END { if (!found) print "-" }' "$CSV" | head -1
}
echo "| network | VDC size | link-fit | link-fit + 2 migrations (migrations) | NetSolver-ILP | NetSolver-SMT | SecondNet | us per VDC |"
echo "|---|---|---|---|---|---|---|---|"
for net in us-west1 us-west2 us-mid1 us-mid2; do
  for size in 4 6 8 10 12 14; do
    list=$H/instance_list_hadoop_${size}vm_rnd.txt
    "$VMCAP" import netsolver --pn "$H/hadoop_extra/$net.pn" --list "$list" --numa-nodes "$NUMA" \
      --requests-out "$WORK/$net-$size.json" --out "$WORK/$net-$size-empty.json" >/dev/null
    a=$("$VMCAP" place --cluster "$WORK/$net-$size-empty.json" --requests "$WORK/$net-$size.json" --strategy link-fit --stop-at-first-failure)
    b=$("$VMCAP" place --cluster "$WORK/$net-$size-empty.json" --requests "$WORK/$net-$size.json" --strategy link-fit --stop-at-first-failure \
        --migrations-per-request 2)
    na=$(grep -oE '^placed [0-9]+' <<<"$a" | sed 's/placed //')
    nb=$(grep -oE '^placed [0-9]+' <<<"$b" | sed 's/placed //')
    mb=$(grep -oE '^[0-9]+ live migrations' <<<"$b" | sed 's/ live migrations//')
    us=$(grep -oE '[0-9.]+ us per request' <<<"$a" | sed 's/ us per request//')
    echo "| $net | $size | $na | $nb ($mb) | $(published netsolver-ilp $net $size) | $(published netsolver-smt $net $size) | $(published secondnet $net $size) | $us |"
  done
done

#!/usr/bin/env bash
# Candidate moves per second against the number of target flavors (issue 24): a 4,000-host
# dual-node cluster (`vmcap generate --host-type K2`, 48 vCPU and 192 GiB per pNUMA node, 30,000
# VMs, seed 1) with T demand-weighted targets added by scripts/many_targets.py, annealing from the
# snapshot on one thread for a fixed number of evaluations; prints the annealing phase's rate and
# the objective (the same for two builds that keep trajectories). Side by side with a second binary
# (one per core, then swapped) when B is given.
# usage: scripts/targets_table.sh A-binary [B-binary] [targets...]   (default targets: 5 16 50 200 800 1000)
set -euo pipefail
A=$1; B=${2:-}; shift; [ $# -gt 0 ] && shift
TARGETS=("$@"); [ ${#TARGETS[@]} -eq 0 ] && TARGETS=(5 16 50 200 800 1000)
DIR=/tmp/vmcap-targets; mkdir -p "$DIR"
HERE=$(cd "$(dirname "$0")" && pwd)
[ -f "$DIR/g4k.json" ] || "$A" generate --hosts 4000 --vms 30000 --host-type K2 --node-vcpu 48 --node-ram-gib 192 --seed 1 --out "$DIR/g4k.json" >/dev/null
run() {  # binary targets evaluations -> "rate objective"
  "$1" plan --cluster "$DIR/g4k-t$2.json" --threads 1 --sa-start snapshot --max-evaluations "$3" --time-limit 900 \
       --out "$(mktemp -u "$DIR/plan-XXXX.json")" 2>&1 | grep -E "annealing phase|^objective" |
    sed -E 's/.*\(([0-9.]+) M\/s, .*/\1 M\/s/; s/^objective .* -> ([0-9.]+) .*/\1/' | tr '\n' ' '
}
for T in "${TARGETS[@]}"; do
  [ -f "$DIR/g4k-t$T.json" ] || python3 "$HERE/many_targets.py" "$DIR/g4k.json" "$DIR/g4k-t$T.json" "$T" >/dev/null
  E=4000000; [ "$T" -ge 200 ] && E=2000000
  if [ -z "$B" ]; then
    echo "T=$T  $(run "$A" "$T" "$E")"
  else
    run "$A" "$T" "$E" > "$DIR/a1" & run "$B" "$T" "$E" > "$DIR/b1"; wait
    run "$B" "$T" "$E" > "$DIR/b2" & run "$A" "$T" "$E" > "$DIR/a2"; wait
    echo "T=$T  A: $(cat "$DIR/a1")| $(cat "$DIR/a2")  B: $(cat "$DIR/b1")| $(cat "$DIR/b2")"
  fi
done

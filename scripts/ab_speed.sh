#!/usr/bin/env bash
# A/B search speed, side by side: two vmcap binaries (A = the commit before a change, B = after)
# plan the 10,000-host snapshot of scripts/speed_10k.sh at the same time, one thread each (one per
# core of a 2-core machine, so both see the same machine state), and print the annealing phase's
# candidate-move evaluations per second. Repeat with the roles swapped to cancel core effects.
# A fixed evaluation budget (not a time limit): both binaries follow the same trajectory when the
# change keeps plans identical, so the rates compare the same work.
# Extra `vmcap plan` flags after the snapshot, e.g. `--initial-temperature 0.5`: with a fixed
# start temperature two builds whose calibration differs still follow one trajectory (issue 24).
# usage: scripts/ab_speed.sh A-binary B-binary [evaluations] [snapshot] [plan flags...]
set -euo pipefail
A=$1; B=$2; E=${3:-200000000}; SNAP=${4:-/tmp/vmcap-speed/az10k-8t.json}; shift $(( $# < 4 ? $# : 4 )); EXTRA=("$@")
run() { "$1" plan --cluster "$SNAP" --threads 1 --time-limit 900 --max-evaluations "$E" --quiet "${EXTRA[@]}" \
        --out "$(mktemp -u /tmp/ab-plan-XXXX.json)" | grep -E "annealing phase|^objective" | tr '\n' ' '; echo; }
for order in AB BA; do
  if [ $order = AB ]; then X=$A; Y=$B; else X=$B; Y=$A; fi
  run "$X" > /tmp/ab-x.txt & run "$Y" > /tmp/ab-y.txt; wait
  if [ $order = AB ]; then echo "A: $(cat /tmp/ab-x.txt)"; echo "B: $(cat /tmp/ab-y.txt)";
  else echo "B: $(cat /tmp/ab-x.txt)"; echo "A: $(cat /tmp/ab-y.txt)"; fi
done

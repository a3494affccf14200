#!/usr/bin/env bash
# How much of a plan's gain survives Nova's cell rule (docs/performance.md, "Nova's cell rule: how
# much of a plan's gain survives"). Two snapshots replayed from the Azure V1 test split:
#   example-k8    the bundled example (azure-cq3-160.json, checked byte for byte) with its CQ3 host
#                 type made K8 of the same node capacities: the Nova rules need complete pNUMA graphs
#                 (Nova checks no links between its cells); VMs stay on their nodes;
#   azure-k4-200  200 K4 hosts, `vmcap snapshot --trace azure-test --hosts 200 --host-type K4
#                 --sample 0.4 --time 327598`.
# Each gets copies with node_rule nova-spread and nova-pack (ratios 1.0, 512 MiB reserved: Nova's
# defaults). For each seed, `vmcap plan` with the same budget (the snapshot's migration budget and
# EVALS evaluations, one thread) under the free rule, nova-spread and nova-pack, each plan checked by
# `vmcap validate` and, for the Nova rules, replayed by Nova's own code (it must do exactly what the
# plan says); then the free plan is replayed on the nova-spread copy with Nova's own cell
# choice at every step (scripts/nova_recount.py, Debian's python3-nova) and `vmcap capacity` counts
# what is left under the rule. Prints a markdown table (one row per snapshot and seed, then the mean
# over the seeds). Runs stop on their evaluation budget (checked), so every figure is reproducible.
# Needs ../shared/data and /usr/bin/python3 with python3-nova.
#
# usage: scripts/nova_gain_table.sh [work-dir] [evaluations] [seeds]
#        (defaults /tmp/vmcap-nova-gain, 1000000, "1 2 3"; snapshots are kept in work-dir)
#        VMCAP=build-x/vmcap scripts/nova_gain_table.sh   (another build; default build/vmcap)
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:-/tmp/vmcap-nova-gain}
EVALS=${2:-1000000}
SEEDS=${3:-1 2 3}
PY=/usr/bin/python3
. scripts/table_lib.sh

snap example-cq3-160 --trace azure-test --hosts 160 --sample 0.4
if ! cmp -s "$WORK/example-cq3-160.json" instances/examples/azure-cq3-160.json; then
  echo "nova_gain_table.sh: $WORK/example-cq3-160.json is not instances/examples/azure-cq3-160.json" >&2
  exit 1
fi
snap azure-k4-200 --trace azure-test --hosts 200 --host-type K4 --sample 0.4 --time 327598

# The K8 copy of the example: every CQ3 host type becomes K8 (8 pNUMA nodes, all linked), same
# node capacities, every VM on the same nodes.
"$PY" - "$WORK/example-cq3-160.json" "$WORK/example-k8.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = {}
for t in d["host_types"]:
    if t["topology"] != "CQ3":
        sys.exit("nova_gain_table.sh: host type %s is %s, not CQ3" % (t["name"], t["topology"]))
    names[t["name"]] = t["name"].replace("CQ3", "K8", 1) if t["name"].startswith("CQ3") else "K8-" + t["name"]
    t["name"], t["topology"] = names[t["name"]], "K8"
for h in d["hosts"]:
    h["type"] = names[h["type"]]
d["source"] = "azure-cq3-160.json with every host type made K8 (same capacities), for the Nova rules: " + d["source"]
json.dump(d, open(sys.argv[2], "w"))
PY

# The rule copies: NAME-nova-spread.json, NAME-nova-pack.json.
for base in example-k8 azure-k4-200; do
  for rule in nova-spread nova-pack; do
    "$PY" - "$WORK/$base.json" "$WORK/$base-$rule.json" "$rule" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["node_rule"] = {"name": sys.argv[3], "cpu_allocation_ratio": 1.0, "ram_allocation_ratio": 1.0,
                  "reserved_host_memory_mb": 512}
json.dump(d, open(sys.argv[2], "w"))
PY
  done
done

objective() { "$VMCAP" capacity --cluster "$1" --format json | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["objective"])'; }

RESULTS="$WORK/results.tsv"
CHECKED=0
: >"$RESULTS"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
for base in example-k8 azure-k4-200; do
  for seed in $SEEDS; do
    for rule in free nova-spread nova-pack; do
      if [ "$rule" = free ]; then snapfile="$WORK/$base.json"; else snapfile="$WORK/$base-$rule.json"; fi
      out="$WORK/plan-$base-$rule-s$seed.json"
      "$VMCAP" plan --cluster "$snapfile" --seed "$seed" --max-evaluations "$EVALS" --time-limit 3600 \
        --quiet --out "$out" >/dev/null
      "$VMCAP" validate --cluster "$snapfile" --plan "$out" --bound-check consistency >/dev/null
      if grep -q '"stopped_by":"time limit"' "$out"; then
        echo "nova_gain_table.sh: $out stopped on its time limit (not reproducible)" >&2
        exit 1
      fi
      if [ "$rule" != free ]; then
        # Cross-check: Nova's own code, replaying a plan made under its rule, must do exactly what
        # the plan says (no step refused, every VM on the plan's nodes, the plan's objective).
        check=$("$PY" scripts/nova_recount.py "$snapfile" "$out" "$WORK/replay.json")
        got=$(objective "$WORK/replay.json")
        if [[ "$check" != *'"refused": 0, "other_cells": 0,'* ]] || ! awk -v a="$got" -v b="$(field objective_after "$out")" 'BEGIN { exit !(a == b) }'; then
          echo "nova_gain_table.sh: $out replayed by Nova: $check, objective $got" >&2
          exit 1
        fi
        CHECKED=$((CHECKED + 1))
      fi
      printf 'plan\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$base" "$seed" "$rule" "$(field objective_before "$out")" \
        "$(field objective_after "$out")" "$(field migrations "$out")" "$(field max_migrations "$out")" >>"$RESULTS"
    done
    rc="$WORK/recount-$base-s$seed.json"
    rc_stop="$WORK/recount-stop-$base-s$seed.json"
    stats=$("$PY" scripts/nova_recount.py "$WORK/$base-nova-spread.json" "$WORK/plan-$base-free-s$seed.json" "$rc" \
      --until-refusal "$rc_stop")
    printf 'recount\t%s\t%s\t%s\t%s\t%s\n' "$base" "$seed" "$(objective "$rc")" "$(objective "$rc_stop")" "$stats" >>"$RESULTS"
  done
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); load average before $LOAD0, after $LOAD1"
echo "vmcap: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!docs' || echo ' (modified)'); $EVALS evaluations, seeds $SEEDS"
echo "check: each of the $CHECKED nova-spread / nova-pack plans, replayed by Nova's code (scripts/nova_recount.py): no step refused, every VM on the plan's nodes, the plan's objective"
echo
"$PY" - "$RESULTS" "$EVALS" "$WORK" <<'PY'
import json, os, sys
RULES = ("free", "nova-spread", "nova-pack")
plans, recounts = {}, {}
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if f[0] == "plan":
        plans[f[1], f[2], f[3]] = {"before": float(f[4]), "after": float(f[5]), "budget": int(f[7])}
    else:
        r = json.loads(f[5])
        r.update(after=float(f[3]), stop_after=float(f[4]))
        recounts[f[1], f[2]] = r
evals = int(sys.argv[2])
ev = "%g M" % (evals / 1e6) if evals >= 1000000 else str(evals)


def g(x):
    return ("%.1f" % x).rstrip("0").rstrip(".")


def steps(base, rule, seed):
    """A plan's steps as (VM, destination host, destination nodes): what makes two plans the same."""
    path = os.path.join(sys.argv[3], "plan-%s-%s-s%s.json" % (base, rule, seed))
    return json.dumps([(st["vm"], st["to_host"], st["to_pnuma"]) for st in json.load(open(path))["steps"]])


def row(base, seed):
    p = {rule: plans[base, seed, rule] for rule in RULES}
    r = recounts[base, seed]
    promised = p["free"]["after"] - p["free"]["before"]
    base0 = p["nova-spread"]["before"]  # what Nova admits before any migration: the baseline on Nova
    return {"budget": p["free"]["budget"],
            **{rule + "_" + k: p[rule][k] for rule in RULES for k in ("before", "after")},
            "rc_after": r["after"], "rc_gain": r["after"] - base0, "kept": 100 * (r["after"] - base0) / promised,
            "refused": r["refused"], "steps": r["steps"], "other": r["other_cells"],
            "stop_after": r["stop_after"], "stop_kept": 100 * (r["stop_after"] - base0) / promised}


def line(base, label, x):
    cell = lambda rule: "%s → %s (+%s)" % (g(x[rule + "_before"]), g(x[rule + "_after"]), g(x[rule + "_after"] - x[rule + "_before"]))
    print("| %s | %s | %d migrations, %s evaluations | %s | %s | %s | %s (+%s) | %.0f%% | %s of %s | %s | %s, %.0f%% |" % (
        base, label, x["budget"], ev, cell("free"), cell("nova-spread"), cell("nova-pack"), g(x["rc_after"]),
        g(x["rc_gain"]), x["kept"], g(x["refused"]), g(x["steps"]), g(x["other"]), g(x["stop_after"]), x["stop_kept"]))


print("| snapshot | seed | budget | free: before → after (gain) | nova-spread | nova-pack "
      "| free plan run by Nova (spread): after (gain) | gain kept | steps Nova refuses | steps on other cells "
      "| script stopping at the first refusal: after, gain kept |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for base in dict.fromkeys(k[0] for k in recounts):
    seeds = [k[1] for k in recounts if k[0] == base]
    if all(len({steps(base, rule, seed) for seed in seeds}) == 1 for rule in RULES):
        # Every seed gave the same plan under every rule: one row says it all.
        line(base, ", ".join(seeds) + (" (same plans)" if len(seeds) > 1 else ""), row(base, seeds[0]))
        continue
    rows = [row(base, seed) for seed in seeds]
    for seed, x in zip(seeds, rows):
        line(base, seed, x)
    line(base, "mean of " + ", ".join(seeds), {k: sum(x[k] for x in rows) / len(rows) for k in rows[0]})
PY

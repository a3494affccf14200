#!/usr/bin/python3
"""Replays a vmcap plan on a snapshot whose node_rule is Nova's, each step's destination cells
chosen by Nova's own code, and writes the end state as a snapshot.

What a plan made under the free rule (vmcap picks the destination pNUMA nodes) becomes when Nova
runs it: the live-migration API names only the destination host, so Nova picks the cells
(nova.virt.hardware.numa_fit_instance_to_host after Placement's host-level check, through
tests/nova_oracle.py's nova_choice, with the snapshot's node_rule: spread or pack, allocation
ratios, reserved host memory). Steps are replayed in plan order on the state the earlier steps
left. A step Nova refuses (no cells fit, or Placement says no) leaves its VM where it is and the
replay goes on; OUT.json is that end state. With --until-refusal OUT2.json, the state just before
the first refused step is written too (what vmcap's exported script, which stops at the first
server not on its planned host, leaves). `vmcap capacity --cluster OUT.json` then counts the
capacity under the rule.

The snapshot must have a nova-spread or nova-pack node_rule and complete pNUMA graphs (K<n>), as
the rule itself requires (docs/format.md, "Nova's NUMA cells"); a pNUMA node is a NUMA cell, whose
pCPUs and memory are read back from node_capacity and the ratios as vmcap does. A VM's vNUMA
node count is the length of its "pnuma" list.

Prints one JSON line: {"steps", "refused", "other_cells", "first_refused_step"} (other_cells: steps
Nova carried out on other cells than the plan's to_pnuma; first_refused_step: null when none).
Needs Debian's python3-nova (run with /usr/bin/python3); exit 77 when nova cannot be imported.

Usage: scripts/nova_recount.py SNAPSHOT.json PLAN.json OUT.json [--until-refusal OUT2.json]
"""
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import nova_oracle  # noqa: E402 - exits 77 without nova


def fail(msg):
    """Bad input: one line on stderr, exit code 2 (vmcap's convention)."""
    print("nova_recount.py: " + msg, file=sys.stderr)
    sys.exit(2)


def physical(capacity, ratio):
    """The smallest whole amount p with floor(p * ratio) == capacity (vmcap's reading back of a
    cell's pCPUs or MiB from its per-cell limit); None when there is none."""
    p = max(0, math.floor(capacity / ratio) - 1)
    while math.floor(p * ratio) < capacity:
        p += 1
    return p if math.floor(p * ratio) == capacity else None


def main():
    ap = argparse.ArgumentParser(description="Replays a vmcap plan with Nova's own cell choice at every step.")
    ap.add_argument("snapshot")
    ap.add_argument("plan")
    ap.add_argument("out")
    ap.add_argument("--until-refusal", metavar="OUT2")
    a = ap.parse_args()

    d = json.load(open(a.snapshot))
    rule = d.get("node_rule", {})
    if rule.get("name") not in ("nova-spread", "nova-pack"):
        fail("%s: node_rule: expected nova-spread or nova-pack" % a.snapshot)
    s = {"cpu_ratio": rule.get("cpu_allocation_ratio", 1.0), "ram_ratio": rule.get("ram_allocation_ratio", 1.0),
         "reserved": rule.get("reserved_host_memory_mb", 512), "pack": rule["name"] == "nova-pack"}
    if d.get("resources", ["vcpu", "ram_mib"]) != ["vcpu", "ram_mib"]:
        fail("%s: resources: the Nova rules need exactly vcpu, ram_mib" % a.snapshot)
    types = {t["name"]: t for t in d["host_types"]}
    flavors = {f["name"]: f for f in d["flavors"]}

    # cells[host] = [[pcpus, memory_mib, vcpus_used, memory_used_mib], ...], cell i is pNUMA node i+1
    cells = {}
    for h in d["hosts"]:
        t = types[h["type"]]
        if not t["topology"].startswith("K") or "," in t["topology"]:
            fail("%s: host type %s: topology %s is not complete (K<n>)" % (a.snapshot, t["name"], t["topology"]))
        n, cap = int(t["topology"][1:]), t["node_capacity"]
        p, m = physical(cap["vcpu"], s["cpu_ratio"]), physical(cap["ram_mib"], s["ram_ratio"])
        if p is None or m is None:
            fail("%s: host type %s: node_capacity is floor(amount x ratio) of no whole amount" % (a.snapshot, t["name"]))
        cells[h["id"]] = [[p, m, 0, 0] for _ in range(n)]

    def per_cell(vm):
        f, k = flavors[vm["flavor"]], len(vm["pnuma"])
        if f["vcpu"] % k or f["ram_mib"] % k:
            fail("%s: flavor %s does not split evenly over %d vNUMA nodes" % (a.snapshot, f["name"], k))
        return k, f["vcpu"] // k, f["ram_mib"] // k

    def use(vm, sign):
        _, c, r = per_cell(vm)
        for node in vm["pnuma"]:
            cells[vm["host"]][node - 1][2] += sign * c
            cells[vm["host"]][node - 1][3] += sign * r

    for vm in d["vms"]:
        use(vm, +1)
    vms = {vm["id"]: vm for vm in d["vms"]}

    plan = json.load(open(a.plan))
    refused = other = 0
    first_refused = None
    for st in plan["steps"]:
        vm = vms[st["vm"]]
        k, c, r = per_cell(vm)
        use(vm, -1)
        got = nova_oracle.nova_choice(cells[st["to_host"]], k, c, r, s)
        if got is None:
            refused += 1
            use(vm, +1)
            if first_refused is None:
                first_refused = st["step"]
                if a.until_refusal:
                    with open(a.until_refusal, "w") as f:
                        json.dump(d, f)
            continue
        if sorted(i + 1 for i in got) != sorted(st["to_pnuma"]):
            other += 1
        vm["host"], vm["pnuma"] = st["to_host"], [i + 1 for i in got]
        use(vm, +1)
    if a.until_refusal and first_refused is None:
        with open(a.until_refusal, "w") as f:
            json.dump(d, f)
    with open(a.out, "w") as f:
        json.dump(d, f)
    print(json.dumps({"steps": len(plan["steps"]), "refused": refused, "other_cells": other,
                      "first_refused_step": first_refused}))


if __name__ == "__main__":
    main()

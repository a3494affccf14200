#!/usr/bin/env python3
"""Adds many weighted target flavors to a snapshot (issue 12 item 3: temperature calibration with
hundreds of targets). Reads a vmcap snapshot, keeps its flavors and VMs, sets the existing flavors'
weights to 0 unless --keep-weights, and appends a grid of target flavors (vCPU x GiB per vCPU, vNUMA
by the rule of `vmcap snapshot`: the fewest nodes k in {1, 2, 4} whose per-node demand is at most
half a pNUMA node, C4 for 4) with weights drawn log-uniformly from [wmin, wmax] (seeded).

usage: many_targets.py IN.json OUT.json [--count N] [--wmin A] [--wmax B] [--seed S] [--keep-weights]
"""
import argparse
import json
import random

ap = argparse.ArgumentParser()
ap.add_argument("inp")
ap.add_argument("out")
ap.add_argument("--count", type=int, default=300, help="target flavors to add (at most the grid's size)")
ap.add_argument("--wmin", type=float, default=0.01)
ap.add_argument("--wmax", type=float, default=10.0)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--keep-weights", action="store_true", help="keep the weights of the snapshot's own flavors")
a = ap.parse_args()

snap = json.load(open(a.inp))
ht = snap["host_types"][0]
node_vcpu = ht["node_capacity"]["vcpu"]
node_ram = ht["node_capacity"]["ram_mib"]
rng = random.Random(a.seed)
if not a.keep_weights:
    for f in snap["flavors"]:
        f["weight"] = 0
names = {f["name"] for f in snap["flavors"]}
grid = []
for vcpu in range(1, 65):
    for ram_mib in range(512 * vcpu, 8192 * vcpu + 1, 256 * vcpu):
        for k, topo in ((1, "K1"), (2, "K2"), (4, "C4")):
            if vcpu % k or ram_mib % k:
                continue
            if vcpu // k <= node_vcpu // 2 and ram_mib // k <= node_ram // 2:
                grid.append((vcpu, ram_mib, topo))
                break
            if k == 4 and vcpu // k <= node_vcpu and ram_mib // k <= node_ram:
                grid.append((vcpu, ram_mib, topo))
rng.shuffle(grid)
added = 0
for vcpu, ram_mib, topo in grid:
    if added >= a.count:
        break
    name = f"t{vcpu}c{ram_mib}m"
    if name in names:
        continue
    names.add(name)
    w = round(a.wmin * (a.wmax / a.wmin) ** rng.random(), 3)
    snap["flavors"].append({"name": name, "vcpu": vcpu, "ram_mib": ram_mib, "vnuma": topo, "weight": max(w, 0.001)})
    added += 1
json.dump(snap, open(a.out, "w"))
print(f"{a.out}: {added} target flavors added, weights log-uniform in [{a.wmin}, {a.wmax}]")

#!/usr/bin/env python3
"""Adds demand-weighted target flavors to a snapshot: the many-target case of issue 24.

usage: scripts/many_targets.py IN.json OUT.json TARGETS [--seed S]

Keeps every flavor and VM of IN; every existing flavor gets weight 0, then TARGETS distinct
flavors are added (or, where IN already has that vCPU/RAM pair, re-weighted), each with a weight
proportional to a Zipf-like demand share (s = 1.1 over a random order, the largest 1.0, three
decimals, at least 0.001: snapshot weights have at most three decimals). vCPU is drawn from
1..min(64, 2 x node vCPU) and RAM from 1..8 GiB per vCPU in 0.5 GiB steps, within two pNUMA
nodes of the host type; a flavor is K1 when it needs at most half a pNUMA node in every resource,
else K2 (the vNUMA rule of `vmcap snapshot` for dual-node hosts). Deterministic for a seed.
Writes OUT atomically (temp file + rename).
"""
import json
import os
import random
import sys


def main():
    args = sys.argv[1:]
    seed = 1
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i : i + 2]
    if len(args) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    src, out, n = args[0], args[1], int(args[2])
    with open(src) as f:
        snap = json.load(f)
    ht = snap["host_types"][0]
    cap = ht["node_capacity"]
    node_vcpu, node_ram = cap["vcpu"], cap["ram_mib"]
    rng = random.Random(seed)
    for fl in snap["flavors"]:
        fl["weight"] = 0.0
    by_shape = {(fl["vcpu"], fl["ram_mib"]): fl for fl in snap["flavors"]}
    shapes = []
    seen = set()
    max_vcpu = min(64, 2 * node_vcpu)
    while len(shapes) < n:
        vcpu = rng.randint(1, max_vcpu)
        ram = rng.randint(2, 16 * vcpu) * 512  # 1..8 GiB per vCPU in 0.5 GiB steps
        k1 = 2 * vcpu <= node_vcpu and 2 * ram <= node_ram
        if (vcpu, ram) in seen or ram > 2 * node_ram or (not k1 and (vcpu % 2 or ram % 1024)):
            continue  # a K2 flavor's demand must split evenly over its two vNUMA nodes
        seen.add((vcpu, ram))
        shapes.append((vcpu, ram))
    # Zipf-like shares over a random order, normalised so the largest weight is 1.
    weights = [1.0 / (rank + 1) ** 1.1 for rank in range(n)]
    for (vcpu, ram), w in zip(shapes, weights):
        w = max(0.001, round(w, 3))
        if (vcpu, ram) in by_shape:
            by_shape[(vcpu, ram)]["weight"] = w
            continue
        k1 = 2 * vcpu <= node_vcpu and 2 * ram <= node_ram
        fl = {"name": f"t{vcpu}c{ram // 512 / 2:g}g", "vcpu": vcpu, "ram_mib": ram, "vnuma": "K1" if k1 else "K2", "weight": w}
        snap["flavors"].append(fl)
        by_shape[(vcpu, ram)] = fl
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(snap, f)
    os.replace(tmp, out)
    print(f"{out}: {sum(1 for fl in snap['flavors'] if fl['weight'] > 0)} targets, {len(snap['flavors'])} flavors")


if __name__ == "__main__":
    main()

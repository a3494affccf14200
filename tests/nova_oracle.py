#!/usr/bin/python3
"""Nova's own code as the oracle of vmcap's Nova cell rules (instances/nova_numa.h).

Run by CTest (test "nova_oracle") with Debian's /usr/bin/python3, whose python3-nova provides
nova.virt.hardware. Two checks, both on random inputs from a fixed seed:

1. Cell choice: thousands of host states (2, 4 and 8 cells of various sizes, random usage), 1-,
   2- and 4-cell instances, allocation ratios 1.0 / 1.5 / 4.0, spread and pack
   (CONF.compute.packing_host_numa_cells_allocation_strategy): Placement's host-level check (the
   formula of placement's _check_capacity_exceeded) then nova.virt.hardware.
   numa_fit_instance_to_host, against vmcap's nova_place, which the test binary runs on the same
   cases (vmcap_tests --gtest_filter=NovaNumaOracle.* with VMCAP_NOVA_CASES naming the cases).
2. Capacity: random snapshots with node_rule nova-spread / nova-pack whose VMs Nova placed (each
   booted in turn where Nova's choice put it), and per flavor the number Nova admits when that
   flavor is booted one at a time until no host takes it, against `vmcap capacity --format json`.

Exit code 77 (CTest SKIP_RETURN_CODE) when nova cannot be imported. unittest, no pytest.
Usage: nova_oracle.py --vmcap build/vmcap --tests build/vmcap_tests
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

ARGS = None
try:
    import nova.conf
    from nova import objects

    objects.register_all()
    from nova.virt import hardware

    CONF = nova.conf.CONF
except Exception as e:  # noqa: BLE001 - any import failure means: no Nova here
    print("SKIP: cannot import nova (Debian's python3-nova, for /usr/bin/python3): %s" % e)
    sys.exit(77)


def nova_host(cells):
    """objects.NUMATopology of cells [(pcpus, memory_mib, cpu_usage, memory_usage)], small pages
    set as libvirt reports them (so the per-cell memory check is can_fit_pagesize)."""
    out, cpu = [], 0
    for i, (p, m, cu, mu) in enumerate(cells):
        cpus = set(range(cpu, cpu + p))
        cpu += p
        out.append(objects.NUMACell(
            id=i, cpuset=cpus, pcpuset=set(), memory=m, cpu_usage=cu, memory_usage=mu,
            mempages=[objects.NUMAPagesTopology(size_kb=4, total=m * 1024 // 4, used=0, reserved=0)],
            siblings=[{c} for c in sorted(cpus)], pinned_cpus=set(),
            network_metadata=objects.NetworkMetadata(physnets=set(), tunneled=False)))
    return objects.NUMATopology(cells=out)


def nova_instance(k, vcpus, mem):
    return objects.InstanceNUMATopology(cells=[
        objects.InstanceNUMACell(id=i, cpuset=set(range(i * vcpus, (i + 1) * vcpus)), pcpuset=set(), memory=mem, cpu_policy=None)
        for i in range(k)])


def placement_admits(cells, vcpus, mem, s):
    """placement/objects/allocation.py _check_capacity_exceeded for VCPU and MEMORY_MB."""
    total_cpu = sum(c[0] for c in cells)
    total_mem = sum(c[1] for c in cells)
    used_cpu = sum(c[2] for c in cells)
    used_mem = sum(c[3] for c in cells)
    if total_cpu * s["cpu_ratio"] < used_cpu + vcpus:
        return False
    return (total_mem - s["reserved"]) * s["ram_ratio"] >= used_mem + mem


def nova_choice(cells, k, vcpus, mem, s):
    """The host cells (ids, by instance cell) Nova gives the instance, or None."""
    if not placement_admits(cells, k * vcpus, k * mem, s):
        return None
    CONF.set_override("packing_host_numa_cells_allocation_strategy", s["pack"], group="compute")
    limits = objects.NUMATopologyLimits(cpu_allocation_ratio=s["cpu_ratio"], ram_allocation_ratio=s["ram_ratio"])
    fit = hardware.numa_fit_instance_to_host(nova_host(cells), nova_instance(k, vcpus, mem), limits)
    return None if fit is None else [c.id for c in fit.cells]


def random_settings(rng):
    return {"cpu_ratio": rng.choice([1.0, 1.5, 4.0]), "ram_ratio": rng.choice([1.0, 1.5]),
            "reserved": rng.choice([0, 512, 4096]), "pack": rng.random() < 0.5}


def random_cells(rng, n, s, uniform):
    p0, m0 = rng.choice([2, 4, 8]), rng.choice([2048, 4096, 8192, 16384])
    cells = []
    for _ in range(n):
        p, m = (p0, m0) if uniform else (rng.choice([2, 4, 8]), rng.choice([2048, 4096, 8192, 16384]))
        cu = rng.randint(0, int(p * s["cpu_ratio"])) if rng.random() < 0.8 else 0
        mu = rng.randrange(0, int(m * s["ram_ratio"]) + 1, 256) if rng.random() < 0.8 else 0
        cells.append([p, m, cu, mu])
    return cells


class NovaOracle(unittest.TestCase):
    def test_cell_choice_matches_nova(self):
        rng = random.Random(41)
        cases, found = [], 0
        for i in range(4000):
            n = rng.choice([2, 4, 8])
            k = rng.choice([kk for kk in (1, 2, 4) if kk <= n])
            s = random_settings(rng)
            cells = random_cells(rng, n, s, uniform=rng.random() < 0.5)
            # Ties on purpose: equal usage on some cells (the sort's stability decides).
            if rng.random() < 0.3:
                for c in cells[1:]:
                    if rng.random() < 0.5:
                        c[2], c[3] = cells[0][2], cells[0][3]
            vcpus, mem = rng.choice([1, 2, 4]), rng.choice([512, 1024, 2048, 4096])
            want = nova_choice(cells, k, vcpus, mem, s)
            found += want is not None
            cases.append({"cells": cells, "k": k, "vcpus": vcpus, "memory_mib": mem, "cpu_allocation_ratio": s["cpu_ratio"],
                          "ram_allocation_ratio": s["ram_ratio"], "reserved_host_memory_mb": s["reserved"], "pack": s["pack"],
                          "nova": want})
        self.assertGreater(found, 1000, "too few cases where Nova places the instance: the cases test little")
        self.assertGreater(len(cases) - found, 500, "too few cases where Nova refuses")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "cases.jsonl")
            with open(path, "w") as f:
                for c in cases:
                    f.write(json.dumps(c) + "\n")
            env = dict(os.environ, VMCAP_NOVA_CASES=path)
            r = subprocess.run([ARGS.tests, "--gtest_filter=NovaNumaOracle.*"], env=env, capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr[-2000:])
            self.assertIn("[  PASSED  ] 1 test", r.stdout)
            self.assertNotIn("SKIPPED", r.stdout)

    def test_capacity_is_what_nova_admits(self):
        rng = random.Random(7)
        for trial in range(24):
            s = random_settings(rng)
            rule = "nova-pack" if s["pack"] else "nova-spread"
            n = rng.choice([2, 4, 8])
            flavors = []
            for k in sorted({kk for kk in (1, 2, 4) if kk <= n}):
                for _ in range(2):
                    v, m = rng.choice([1, 2, 4]), rng.choice([512, 1024, 2048, 4096])
                    name = "f%d-%dx%dc%dm" % (len(flavors), k, v, m)
                    flavors.append((name, k, v, m))
            types = []
            for t in range(2):
                p, m = rng.choice([4, 8]), rng.choice([8192, 16384])
                types.append(("t%d" % t, p, m))
            hosts = []
            for h in range(rng.randint(2, 6)):
                ty = types[rng.randrange(len(types))]
                hosts.append({"id": "h%d" % h, "type": ty, "cells": [[ty[1], ty[2], 0, 0] for _ in range(n)], "vms": []})
            # Fill: boot random flavors on random hosts where Nova places them.
            for i in range(rng.randint(5, 40)):
                fl = flavors[rng.randrange(len(flavors))]
                host = hosts[rng.randrange(len(hosts))]
                cells = nova_choice(host["cells"], fl[1], fl[2], fl[3], s)
                if cells is None:
                    continue
                for c in cells:
                    host["cells"][c][2] += fl[2]
                    host["cells"][c][3] += fl[3]
                host["vms"].append(("vm%d" % i, fl[0], cells))
            expected = {}
            for fl in flavors:
                total = 0
                for host in hosts:
                    cells = [list(c) for c in host["cells"]]
                    while True:
                        got = nova_choice(cells, fl[1], fl[2], fl[3], s)
                        if got is None:
                            break
                        for c in got:
                            cells[c][2] += fl[2]
                            cells[c][3] += fl[3]
                        total += 1
                expected[fl[0]] = total
            cap = lambda x, r: int(x * r)  # floor for x, r > 0: vmcap's node capacity
            snap = {
                "format": "vmcap-snapshot/1", "resources": ["vcpu", "ram_mib"],
                "host_types": [{"name": ty[0], "topology": "K%d" % n,
                                "node_capacity": {"vcpu": cap(ty[1], s["cpu_ratio"]), "ram_mib": cap(ty[2], s["ram_ratio"])}}
                               for ty in types],
                "hosts": [{"id": h["id"], "type": h["type"][0]} for h in hosts],
                "flavors": [{"name": f[0], "vcpu": f[1] * f[2], "ram_mib": f[1] * f[3], "vnuma": "K%d" % f[1], "weight": 1}
                            for f in flavors],
                "vms": [{"id": vm[0], "flavor": vm[1], "host": h["id"], "pnuma": [c + 1 for c in vm[2]]} for h in hosts for vm in h["vms"]],
                "node_rule": {"name": rule, "cpu_allocation_ratio": s["cpu_ratio"], "ram_allocation_ratio": s["ram_ratio"],
                              "reserved_host_memory_mb": s["reserved"]},
            }
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "snap.json")
                with open(path, "w") as f:
                    json.dump(snap, f)
                r = subprocess.run([ARGS.vmcap, "capacity", "--cluster", path, "--format", "json"], capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stderr)
                got = {row["flavor"]: row["capacity"] for row in json.loads(r.stdout)["flavors"]}
                self.assertEqual(got, expected, "trial %d, %s, settings %s" % (trial, rule, s))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--vmcap", required=True)
    parser.add_argument("--tests", required=True)
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest)

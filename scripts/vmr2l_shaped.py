#!/usr/bin/python3
"""A snapshot shaped like VMR2L's (Huawei's VM-rescheduling benchmark): two-NUMA hosts (44 vCPU and
128 GiB per node), single-node flavors of 1-16 vCPU and two-node flavors of 32 and 64 vCPU, placed at
random hosts and nodes by a fixed mix until the VM count is reached; the objective counts free
16-vCPU single-node slots (VMR2L's fragment rate at 16 cores). Not VMR2L's data: its shape.

Usage: vmr2l_shaped.py HOSTS VMS SEED MAX_MIGRATIONS OUT.json   (docs/performance.md, "A search that
uses its clock")"""
import json, random, sys
hosts, vms, seed, limit, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rng = random.Random(seed)
node_cpu, node_ram = 44, 131072
flavors = [("1c2g", 1, 2048, "K1"), ("2c4g", 2, 4096, "K1"), ("4c8g", 4, 8192, "K1"), ("8c16g", 8, 16384, "K1"),
           ("16c32g", 16, 32768, "K1"), ("32c64g", 32, 65536, "K2"), ("64c128g", 64, 131072, "K2")]
mix = [0.13, 0.16, 0.2, 0.22, 0.16, 0.09, 0.04]
free = [[node_cpu, node_ram, node_cpu, node_ram] for _ in range(hosts)]
placed = []
tries = 0
while len(placed) < vms and tries < vms * 200:
    tries += 1
    f = rng.choices(range(len(flavors)), mix)[0]
    name, cpu, ram, vn = flavors[f]
    h = rng.randrange(hosts)
    fr = free[h]
    if vn == "K2":
        c, r = cpu // 2, ram // 2
        if fr[0] >= c and fr[1] >= r and fr[2] >= c and fr[3] >= r:
            fr[0] -= c; fr[1] -= r; fr[2] -= c; fr[3] -= r
            placed.append((name, h, [1, 2]))
    else:
        n = rng.randrange(2)
        if fr[2 * n] >= cpu and fr[2 * n + 1] >= ram:
            fr[2 * n] -= cpu; fr[2 * n + 1] -= ram
            placed.append((name, h, [n + 1]))
doc = {"format": "vmcap-snapshot/1", "resources": ["vcpu", "ram_mib"],
       "host_types": [{"name": "K2-44c128g", "topology": "K2", "node_capacity": {"vcpu": node_cpu, "ram_mib": node_ram}}],
       "hosts": [{"id": "h%04d" % (i + 1), "type": "K2-44c128g"} for i in range(hosts)],
       "flavors": [{"name": n, "vcpu": c, "ram_mib": r, "vnuma": v, "weight": 1.0 if n == "16c32g" else 0.0}
                   for n, c, r, v in flavors],
       "vms": [{"id": "vm%d" % (i + 1), "flavor": n, "host": "h%04d" % (h + 1), "pnuma": p} for i, (n, h, p) in enumerate(placed)],
       "constraints": {"max_migrations": limit}}
json.dump(doc, open(out, "w"))
print(out, len(placed), "VMs")

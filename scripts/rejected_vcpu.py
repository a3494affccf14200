#!/usr/bin/env python3
"""vCPU of the requests `vmcap place` refused: cluster.json requests.json log.jsonl -> one integer.
The log has one line per request, in request order (docs/cli.md, `vmcap place --log`); a request's
vCPU is its VMs' flavors' (the cluster's flavors). Used by admission_table.sh and
admission_gridiron_table.sh."""
import json
import sys

cluster, requests, log = sys.argv[1:4]
vcpu = {f["name"]: f["vcpu"] for f in json.load(open(cluster))["flavors"]}
rejected = 0
for r, line in zip(json.load(open(requests))["requests"], open(log)):
    if not json.loads(line)["accepted"]:
        rejected += sum(vcpu[v["flavor"]] for v in r["vms"]) if "vms" in r else vcpu[r["flavor"]]
print(rejected)

#!/usr/bin/env bash
# Regenerates the documents beside this script with the real OpenStack CLI (Debian's
# python3-openstackclient 6.0 and python3-osc-placement 4.0) talking to stand_in_api.py, a small
# Nova + Placement API that answers the requests the CLI makes, with each microversion's response
# body (ids, flavor, capacity fields). The documents are the CLI's own output: the columns, their
# names and their values' JSON types per microversion come from the client's code.
# Usage: bash tests/openstack/osc6/make.sh (port 18774 on 127.0.0.1).
set -euo pipefail
cd "$(dirname "$0")"
bash ../../../scripts/install_packages.sh osc6-fixtures python3-openstackclient python3-osc-placement
/usr/bin/python3 stand_in_api.py 2>/dev/null &
api=$!
trap 'kill $api' EXIT
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/18774) 2>/dev/null && break; sleep 0.1; done
os() { /usr/bin/openstack --os-auth-type none --os-endpoint http://127.0.0.1:18774/v2.1 "$@"; }
cols=(-c ID -c Name -c Status -c "Flavor Name" -c "Flavor ID" -c Flavor -c Host -c "Project ID" -c "Created At")
os flavor list --all --long -f json >flavors.json
for v in 2.1 2.53 2.88; do os --os-compute-api-version $v hypervisor list --long -f json >hypervisors_$v.json; done
# Nova's default order, newest first, without a creation time (as --long prints it).
os server list --all-projects --long -f json >servers_2.1_long.json
os --os-compute-api-version 2.47 server list --all-projects --long -f json >servers_2.47_long.json
# With the creation time and the project: any order, here newest first and sorted oldest first.
os --os-compute-api-version 2.1 server list --all-projects --long "${cols[@]}" -f json >servers_2.1_created.json
os --os-compute-api-version 2.88 server list --all-projects --long "${cols[@]}" --sort-column "Created At" --sort-ascending \
  -f json >servers_2.88_created_asc.json
rm -f inventory/*.json
for id in $(os --os-compute-api-version 2.88 hypervisor list -f value -c ID); do
  /usr/bin/openstack --os-auth-type none --os-endpoint http://127.0.0.1:18774/placement \
    resource provider inventory list "$id" -f json >"inventory/$id.json"
done

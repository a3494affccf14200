#!/usr/bin/env bash
# vmcap against a real Nova (integrations/openstack_ci/): installs the Debian packages it needs
# (only those missing), then runs the scenario on each cloud layout — mixed (two-cell and
# four-cell hosts in one cloud, imported with a pNUMA graph per hypervisor) and k4 (four-cell
# hosts), one process each, in parallel; k2 (two-cell hosts) on request — with the vmcap
# already built in build/ (scripts/test.sh, .ci/run's first stage, builds it;
# VMCAP=/path/to/vmcap overrides it). Prints one summary line per
# layout and one for the stage; exit 0 only when every check of every layout passed.
# Usage: scripts/openstack_ci.sh [layout...]   (default: mixed k4; the files of each run, listings,
# snapshot, plan, script, logs and results.json, stay in build/openstack_ci/<layout>/).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

# Nova (Zed) with its functional-test fixtures, Placement, the fixtures' test libraries, the
# openstack client, and api-paste.ini (nova-common).
bash scripts/install_packages.sh openstack-ci python3-nova python3-placement python3-wsgi-intercept \
  python3-oslotest python3-fixtures python3-testtools python3-openstackclient nova-common

export VMCAP=${VMCAP:-$PWD/build/vmcap}
if [ ! -x "$VMCAP" ]; then
  echo "openstack-ci: no vmcap binary at $VMCAP (scripts/test.sh builds build/vmcap; or set VMCAP)" >&2
  exit 2
fi
export VMCAP_CI_WORKDIR=${VMCAP_CI_WORKDIR:-$PWD/build/openstack_ci}
mkdir -p "$VMCAP_CI_WORKDIR"
layouts=("$@")
[ ${#layouts[@]} -gt 0 ] || layouts=(mixed k4)

# Debian's python3 (its python3-* packages are not importable from another python3 on PATH);
# PYTHONHASHSEED=0: Nova's scheduler orders equally weighed hosts by a set's iteration order.
pids=()
for l in "${layouts[@]}"; do
  PYTHONHASHSEED=0 VMCAP_CI_LAYOUTS=$l /usr/bin/python3 integrations/openstack_ci/test_openstack_ci.py \
    >"$VMCAP_CI_WORKDIR/$l.log" 2>&1 &
  pids+=($!)
done
rc=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || rc=1
done

/usr/bin/python3 - "$VMCAP_CI_WORKDIR" "$(( $(date +%s) - start ))" "${layouts[@]}" <<'EOF'
import json, os, sys
workdir, seconds, layouts = sys.argv[1], sys.argv[2], sys.argv[3:]
parts = []
for layout in layouts:
    path = os.path.join(workdir, layout, 'results.json')
    if not os.path.exists(path):
        print('openstack-ci %s: no results (see %s)' % (layout, os.path.join(workdir, layout + '.log')))
        parts.append('%s: no results' % layout)
        continue
    with open(path) as f:
        r = json.load(f)
    checks = r.get('checks', {})
    ok = sum(1 for c in checks.values() if c['ok'])
    targets = ', '.join('%s %s/%s before, %s/%s after' % (
        f, t.get('predicted_before', '-'), t.get('admitted_before', '-'),
        t.get('predicted_after', '-'), t.get('admitted_after', '-'))
        for f, t in sorted(r.get('targets', {}).items()))
    print('openstack-ci %s: %d/%d checks pass; %s servers; cells as vmcap says (relabelled per host; '
          'exactly): import %s; %s, after the plan %s; %s; hosts as planned %s; capacity vmcap/Nova: %s; '
          '%s s%s' % (
              layout, ok, len(checks), r.get('servers', '-'), r.get('import_cells', '-'),
              r.get('import_cells_exact', '-'), r.get('plan_cells', '-'), r.get('plan_cells_exact', '-'),
              r.get('hosts_as_planned', '-'), targets or '-',
              r.get('seconds', {}).get('total', '-'),
              ''.join('\n  FAIL ' + f for f in r.get('failures', []))))
    parts.append('%s %d/%d' % (layout, ok, len(checks)))
print('openstack-ci: %s checks pass; %s s' % (', '.join(parts), seconds))
EOF
exit $rc

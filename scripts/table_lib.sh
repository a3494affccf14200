# Helpers shared by the table scripts that replay real-trace snapshots (gap_table.sh,
# large_snapshots.sh, orderable_table.sh). Sourced from the repository root once WORK (the work
# directory, where snapshots are kept across runs) is set; makes WORK and sets VMCAP (the binary)
# unless given:
#   . scripts/table_lib.sh
# shellcheck shell=bash
VMCAP=${VMCAP:-build/vmcap}
mkdir -p "$WORK"

# snap NAME ARGS...: $WORK/NAME.json from `vmcap snapshot ARGS...`, made once and kept across runs.
snap() {
  local name=$1; shift
  [ -f "$WORK/$name.json" ] || "$VMCAP" snapshot "$@" --out "$WORK/$name.json" >/dev/null
}

# field KEY FILE: the first number after "KEY": in the JSON file (empty and status 1 when absent).
field() { grep -m1 -o "\"$1\": *[-0-9.e+]*" "$2" | sed 's/.*: *//'; }

# host_count FILE, vm_count FILE: hosts and VMs of a snapshot (one "type" per host, one "flavor"
# per VM in vmcap's snapshot files).
host_count() { grep -c '"type"' "$1" || true; }
vm_count() { grep -c '"flavor"' "$1" || true; }

# budget_of VMS PCT: the migration budget PCT% of VMS VMs, rounded up.
budget_of() { awk -v v="$1" -v p="$2" 'BEGIN { b = v * p / 100; print (b == int(b)) ? b : int(b) + 1 }'; }

# LARGE: the large snapshots (about 2,000 hosts each) replayed from the real traces; snap_large
# makes them (docs/performance.md, "Large snapshots" and "Upper bound and gap").
LARGE="az-test-2200 az-dev-2000 huawei-2000"
snap_large() {
  snap az-test-2200 --trace azure-test --copies 6 --hosts 2200
  snap az-dev-2000 --trace azure-dev --copies 6 --hosts 2000
  snap huawei-2000 --trace huawei --copies 128 --hosts 2000
}

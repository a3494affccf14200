#!/usr/bin/env bash
# Bad-input corpus (a CTest test, "bad_input_corpus"): runs every case of tests/bad_inputs/cases.tsv
# against a vmcap binary, each in a fresh empty temp dir under `timeout 60`, and checks
#   exit != 0: the exit code, stderr exactly one line containing the expected text and no
#              "internal error", stdout empty, nothing created in the temp dir (--out included);
#   exit 0:    the exit code, the expected text in stdout, the --out file written when named.
# Prints a Markdown table (case, input, command, exit code, message, result) on stdout, the reasons
# of failures on stderr, and a final PASS/FAIL line; exits 1 if any case fails.
# Usage: scripts/bad_inputs.sh [path-to-vmcap]   (default: build/vmcap). See docs/bad-inputs.md.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
vmcap=${1:-$repo/build/vmcap}
dir=$repo/tests/bad_inputs
# Cases marked "data" read the trace data (vmcap's default data directory, ../shared/data beside the
# repository, or $VMCAP_DATA_DIR); without it they are skipped, not failed (a clone elsewhere).
data_dir=${VMCAP_DATA_DIR:-$repo/../shared/data}
manifest=$dir/cases.tsv
[[ -x $vmcap ]] || { echo "bad_inputs.sh: $vmcap: no such executable" >&2; exit 2; }
vmcap=$(cd "$(dirname "$vmcap")" && pwd)/$(basename "$vmcap")

work=$(mktemp -d "${TMPDIR:-/tmp}/vmcap-bad-inputs.XXXXXX")
trap 'rm -rf "$work"' EXIT
gen=$work/gen
mkdir -p "$gen" "$work/cases"

# Inputs too large to check in: 100,000 nested arrays in one value.
open=$(head -c 100000 /dev/zero | tr '\0' '[')
close=$(head -c 100000 /dev/zero | tr '\0' ']')
nest=$open$close
plan_text=$(<"$dir/valid_plan.json")
snap_text=$(<"$dir/valid_snapshot.json")
replace_once() {  # text pattern replacement -> stdout; fails if the pattern is absent
  [[ $1 == *"$2"* ]] || { echo "bad_inputs.sh: generator pattern $2 not found" >&2; exit 2; }
  printf '%s\n' "${1/"$2"/"$3"}"
}
replace_once "$plan_text" '"vm":"c"' "\"vm\":$nest" >"$gen/deep_plan.json"
replace_once "$plan_text" '"objective_before": 0.0' "\"objective_before\": $nest" >"$gen/deep_plan_objective.json"
replace_once "$snap_text" '"weight": 1}' "\"weight\": $nest}" >"$gen/deep_snapshot.json"
unset open close nest plan_text snap_text

# Markdown: a table cell as code, with | escaped and backticks replaced (into $REPLY; no subshell).
cell() {
  local s=${1//\`/\'}
  s=${s//|/\\|}
  REPLY="\`$s\`"
}
# Machine-specific paths shown as the manifest's placeholders (into $REPLY).
unexpand() {
  local s=$1
  s=${s//"$work/cases/$2/out.json"/\{OUT\}}
  s=${s//"$work/cases/$2"/\{TMP\}}
  s=${s//"$gen"/\{GEN\}}
  s=${s//"$dir"/\{DIR\}}
  s=${s//"$vmcap"/\{VMCAP\}}
  REPLY=$s
}

# Few forks per case: a fork costs ~10 ms on a loaded CI machine.
shopt -s nullglob dotglob
printf -v q_vmcap '%q' "$vmcap"
printf -v q_dir '%q' "$dir"
printf -v q_gen '%q' "$gen"
pass=0 fail=0 bugs_open=0 bugs_fixed=0 skipped=0
printf '| case | input | command | exit code | message | result |\n'
printf '|---|---|---|---|---|---|\n'
while IFS=$'\t' read -r id command want expect mark description; do
  [[ -z $id || $id == \#* || $id == id ]] && continue
  if [[ $mark == data && ! -d $data_dir ]]; then
    skipped=$((skipped + 1))
    printf '| %s | - | - | - | - | SKIP (no data directory) |\n' "$id"
    continue
  fi
  tmp=$work/cases/$id
  out=$tmp/out.json
  mkdir "$tmp"
  printf -v q_out '%q' "$out"
  printf -v q_tmp '%q' "$tmp"
  cmd=${command//\{VMCAP\}/$q_vmcap}
  cmd=${cmd//\{DIR\}/$q_dir}
  cmd=${cmd//\{GEN\}/$q_gen}
  cmd=${cmd//\{OUT\}/$q_out}
  cmd=${cmd//\{TMP\}/$q_tmp}
  code=0
  cd "$tmp"
  timeout 60 bash -c "$cmd" >"$work/$id.stdout" 2>"$work/$id.stderr" </dev/null || code=$?
  cd "$work"
  err='' stdout=''
  IFS= read -r -d '' err <"$work/$id.stderr" || true
  IFS= read -r -d '' stdout <"$work/$id.stdout" || true
  why=()
  [[ $code == "$want" ]] || why+=("exit code $code, expected $want")
  if [[ $want != 0 ]]; then
    newlines=${err//[!$'\n']/}
    if [[ ${#newlines} != 1 || $err != *$'\n' ]]; then
      why+=("stderr is not exactly one line (${#newlines} newline(s))")
    fi
    [[ $err == *"$expect"* ]] || why+=("stderr lacks: $expect")
    [[ $err != *"internal error"* ]] || why+=("stderr says internal error")
    [[ -z $stdout ]] || why+=("stdout is not empty")
    left=("$tmp"/*)
    ((${#left[@]} == 0)) || why+=("files written: ${left[*]##*/}")
    message=${err%%$'\n'*}
    if ((${#newlines} > 1)); then message+=" (+$((${#newlines} - 1)) more lines)"; fi
    if [[ -z $err && -n $stdout ]]; then message="(stdout) ${stdout%%$'\n'*}"; fi
  else
    [[ $stdout == *"$expect"* ]] || why+=("stdout lacks: $expect")
    if [[ $command == *"{OUT}"* && ! -f $out ]]; then why+=("{OUT} was not written"); fi
    message=${stdout%%$'\n'*}
    while IFS= read -r line; do
      if [[ $line == *"$expect"* ]]; then message=$line; break; fi
    done <<<"$stdout"
  fi
  if ((${#why[@]} == 0)); then
    pass=$((pass + 1))
    result=PASS
    if [[ $mark == bug ]]; then
      bugs_fixed=$((bugs_fixed + 1))
      result="PASS (marked bug: fixed? set mark to -)"
    fi
  else
    fail=$((fail + 1))
    result=FAIL
    known=''
    if [[ $mark == bug ]]; then
      bugs_open=$((bugs_open + 1))
      result="FAIL (known bug)"
      known=' (known bug)'
    fi
    {
      printf 'FAIL %s%s: %s\n' "$id" "$known" "$description"
      unexpand "$command" "$id"
      printf '  command: %s\n' "$REPLY"
      for w in "${why[@]}"; do
        unexpand "$w" "$id"
        printf '  - %s\n' "$REPLY"
      done
      printf '  exit %s; stderr:\n' "$code"
      head -n 5 "$work/$id.stderr" | cut -c 1-300 | sed 's/^/    | /'
    } >&2
  fi
  # The input column: the case's own input files, else the shared snapshot, else "-".
  inputs='' rest=$command
  while [[ $rest =~ \{(DIR|GEN)\}/([A-Za-z0-9_.-]+) ]]; do
    [[ ${BASH_REMATCH[2]} == valid_snapshot.json ]] || inputs+="${inputs:+ }${BASH_REMATCH[2]}"
    rest=${rest#*"${BASH_REMATCH[0]}"}
  done
  if [[ -z $inputs ]]; then
    if [[ $command == *valid_snapshot.json* ]]; then inputs=valid_snapshot.json; else inputs=-; fi
  fi
  cell "$inputs"
  c_inputs=$REPLY
  unexpand "$command" "$id"
  cell "$REPLY"
  c_command=$REPLY
  unexpand "$message" "$id"
  cell "${REPLY:0:400}"
  c_message=$REPLY
  printf '| %s | %s | %s | %s | %s | %s |\n' "$id" "$c_inputs" "$c_command" "$code (want $want)" "$c_message" "$result"
done <"$manifest"

echo
skip_note=''
((skipped == 0)) || skip_note="  SKIPPED (no data directory $data_dir): $skipped"
echo "PASS: $pass  FAIL: $fail  (marked bug and still failing: $bugs_open; marked bug but passing: $bugs_fixed)$skip_note"
((fail == 0))

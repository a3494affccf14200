#!/usr/bin/env bash
# CTest "fetch_data": scripts/fetch_data.sh in its offline mode (--from) against a local copy of
# the data sets (default ../shared/data beside the checkout; exit 77, skipped, where there is none).
# Checks: every file arrives, equal to the mirror's and matching the SHA-256 list in the script
# (checked here with sha256sum -c, not by the script's own code); Huawei's non-commercial licence is
# printed; a second run keeps what is there; a mirror with one corrupted file is refused with exit 2,
# one line naming the file on stderr, and the corrupted file is not written.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mirror=${1:-$root/../shared/data}
[ -d "$mirror" ] || { echo "skipped: no data mirror at $mirror"; exit 77; }
mirror=$(cd "$mirror" && pwd)
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
fetch() { bash "$root/scripts/fetch_data.sh" "$@"; }

# 1. A clean mirror: exit 0, the same files, the recorded checksums.
out=$(fetch --from "$mirror" --to "$tmp/data" 2>"$tmp/err") || fail "exit $? on the clean mirror: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] || fail "stderr on success: $(cat "$tmp/err")"
grep -q "Huawei-East-1: CC BY-NC 4.0.*NON-COMMERCIAL" <<<"$out" || fail "Huawei's licence not printed: $out"
diff <(cd "$mirror" && find . -type f | sort) <(cd "$tmp/data" && find . -type f | sort) >/dev/null ||
  fail "the copy's file list differs from the mirror's"
while read -r f; do cmp -s "$mirror/$f" "$tmp/data/$f" || fail "$f differs from the mirror"; done < <(cd "$mirror" && find . -type f)
sed -n '/^done <<.MANIFEST.$/,/^MANIFEST$/p' "$root/scripts/fetch_data.sh" | sed '1d;$d' | awk '{print $1 "  " $2}' >"$tmp/sums"
[ "$(wc -l <"$tmp/sums")" -eq "$(cd "$mirror" && find . -type f | wc -l)" ] || fail "the script's checksum list does not cover the mirror"
(cd "$tmp/data" && sha256sum -c --quiet "$tmp/sums") || fail "checksums of the copy differ from the script's list"

# 2. Again into the same directory: nothing copied, everything kept.
out=$(fetch --from "$mirror" --to "$tmp/data") || fail "exit $? on the second run"
grep -q ": 0 files copied from .*, $(wc -l <"$tmp/sums") already in place, all SHA-256 verified" <<<"$out" || fail "second run: $out"

# 3. A mirror whose Huawei CSV lost its last byte: exit 2, one line naming the file, not written.
cp -rs "$mirror" "$tmp/bad"
bad=huawei-east-1/Huawei-East-1-lt.csv
rm "$tmp/bad/$bad"
head -c -1 "$mirror/$bad" >"$tmp/bad/$bad"
rc=0
fetch --from "$tmp/bad" --to "$tmp/out" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" -eq 2 ] || fail "corrupted mirror: exit $rc, expected 2"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "corrupted mirror: expected one line on stderr, got: $(cat "$tmp/err")"
grep -q "$bad: SHA-256 .*expected .*refused" "$tmp/err" || fail "corrupted mirror: unclear error: $(cat "$tmp/err")"
[ ! -e "$tmp/out/$bad" ] || fail "the corrupted file was written"
[ -z "$(find "$tmp/out" -name '*.part.*')" ] || fail "a partial file was left behind"
echo "fetch_data: PASS ($(wc -l <"$tmp/sums") files; corrupted file refused: $(cat "$tmp/err"))"

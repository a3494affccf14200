#!/usr/bin/env bash
# Installs the given Debian packages that are not installed yet (apt-get, as root or with sudo).
# Usage: scripts/install_packages.sh <who> <package>... (<who> prefixes the one progress line).
# Shared by scripts/setup.sh (the build) and scripts/fuzz.sh (clang, libFuzzer).
set -euo pipefail
who=$1
shift
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "$who: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

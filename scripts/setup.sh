#!/usr/bin/env bash
# Installs the Debian 12 packages vmcap needs (only those missing) and builds it in build/.
# Usage: scripts/setup.sh [extra cmake args]. Run as root (or with sudo available) on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(g++ cmake ninja-build pkg-config libtbb-dev libeigen3-dev libboost-program-options-dev
          nlohmann-json3-dev libgtest-dev libbenchmark-dev coinor-libcbc-dev clang-format)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j"$(nproc)"

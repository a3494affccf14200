#!/usr/bin/env bash
# Installs the Debian 12 packages vmcap needs (only those missing) and builds it in build/.
# Usage: scripts/setup.sh [extra cmake args]. Run as root (or with sudo available) on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(g++ cmake ninja-build pkg-config libtbb-dev libeigen3-dev libboost-program-options-dev libboost-graph-dev
          nlohmann-json3-dev libgtest-dev libbenchmark-dev coinor-libcbc-dev clang-format)
# Node.js and npm from Debian, unless a node and npm are there already (e.g. NodeSource's nodejs,
# which ships npm itself and conflicts with Debian's npm package).
command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1 || PACKAGES+=(nodejs npm)
bash scripts/install_packages.sh setup "${PACKAGES[@]}"
# The plotting libraries `vmcap report` inlines into its page (web/package.json, versions pinned
# by web/package-lock.json), from the npm registry; again only when the lock file changed.
if [ ! -f web/node_modules/.package-lock.json ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
  npm ci --prefix web --no-audit --no-fund --loglevel=error >/dev/null
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j"$(nproc)"

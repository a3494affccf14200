#!/usr/bin/env bash
# The main job: install what is missing, build, plan live migrations on the bundled example
# cluster, then replay the plan with the independent validator.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh -DVMCAP_BUILD_TESTS=OFF -DVMCAP_BUILD_BENCH=OFF
mkdir -p out
./build/vmcap capacity
echo
./build/vmcap plan --out out/plan.json "$@"
echo
./build/vmcap validate --plan out/plan.json
echo
./build/vmcap report --plan out/plan.json --out out/report.html

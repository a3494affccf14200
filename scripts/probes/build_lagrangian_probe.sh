#!/usr/bin/env bash
# Builds the measurement probe scripts/probes/lagrangian_probe.cpp (not part of vmcap; see its
# header) against the static libraries of a Release build in build/ (scripts/setup.sh), as
# build/lagrangian_probe. Extra arguments are passed to the compiler (e.g. -DSEEDS=10).
# usage: scripts/probes/build_lagrangian_probe.sh [compiler flags...]
set -euo pipefail
cd "$(dirname "$0")/../../build"
L="vmcap_cli vmcap_solvers vmcap_plan vmcap_bound vmcap_search vmcap_placement vmcap_moves vmcap_registry
   vmcap_terms_rules vmcap_state vmcap_network vmcap_closed_forms vmcap_instances"
libs=()
for l in $L; do libs+=("lib$l.a"); done
g++ -std=c++20 -O2 -Wall -Wextra "$@" -I.. -I. -I/usr/include/eigen3 -I/usr/include/coin \
  ../scripts/probes/lagrangian_probe.cpp -o lagrangian_probe "${libs[@]}" \
  -lCbcSolver -lCbc -lCgl -lOsiClp -lClpSolver -lClp -lOsi -lCoinUtils -ltbb -lpthread
echo "built build/lagrangian_probe"

#!/usr/bin/env bash
# Layering check (a CTest test): each layer may include only itself and the layers below it,
#   instances <- evaluators/closed_forms <- evaluators/network
#             <- the model in four sub-layers: evaluators/interfaces (the term and rule interfaces)
#                <- evaluators/state <- evaluators/{objective,rules} (the terms and rules, one layer)
#                <- evaluators/registry (their registries)
#             <- moves <- placement
#             <- optimizer/search <- optimizer/bound <- optimizer/plan <- optimizer/solvers <- cli
# (one CMake target per layer, CMakeLists.txt), and only cli/ may include Boost.Program_options.
# Every source directory must belong to a layer. Prints every violating include and exits 1.
set -uo pipefail
cd "$(dirname "$0")/.."
layers=("instances" "evaluators/closed_forms" "evaluators/network" "evaluators/interfaces" "evaluators/state"
        "evaluators/objective evaluators/rules" "evaluators/registry"
        "moves" "placement" "optimizer/search" "optimizer/bound" "optimizer/plan" "optimizer/solvers" "cli")
status=0
known=" "
for layer in "${layers[@]}"; do for d in $layer; do known+="$d "; done; done
for d in $(find instances evaluators moves placement optimizer cli -name '*.h' -o -name '*.cpp' | xargs -n1 dirname | sort -u); do
  case "$known" in
    *" $d "*) ;;
    *) echo "layering: $d/ holds sources but belongs to no layer (scripts/check_layers.sh, CMakeLists.txt)"; status=1 ;;
  esac
done
for i in "${!layers[@]}"; do
  forbidden=()
  for up in "${layers[@]:$((i + 1))}"; do for d in $up; do forbidden+=("$d"); done; done
  for dir in ${layers[$i]}; do
    for f in "$dir"/*.h "$dir"/*.cpp; do
      [ -e "$f" ] || continue
      for up in "${forbidden[@]}"; do
        if grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"$up/" "$f"; then
          echo "layering: $f includes $up/ (a higher layer than $dir/)"
          status=1
        fi
      done
      if [ "$dir" != cli ] && grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*<boost/program_options" "$f"; then
        echo "layering: $f includes Boost.Program_options (command-line code belongs in cli/)"
        status=1
      fi
    done
  done
done
[ $status -eq 0 ] && echo "layering OK: instances <- closed_forms <- network <- interfaces <- state <- terms/rules <- registry <- moves <- placement <- search <- bound <- plan <- solvers <- cli"
exit $status

#!/usr/bin/env bash
# Layering check (a CTest test): each layer may include only itself and the layers below it,
#   instances <- evaluators <- moves <- placement <- optimizer <- cli
# and only cli/ may include Boost.Program_options. Prints every violating include and exits 1.
set -uo pipefail
cd "$(dirname "$0")/.."
layers=(instances evaluators moves placement optimizer cli)
status=0
for i in "${!layers[@]}"; do
  layer=${layers[$i]}
  forbidden=("${layers[@]:$((i + 1))}")
  for f in "$layer"/*.h "$layer"/*.cpp; do
    [ -e "$f" ] || continue
    for up in "${forbidden[@]}"; do
      if grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"$up/" "$f"; then
        echo "layering: $f includes $up/ (a higher layer than $layer/)"
        status=1
      fi
    done
    if [ "$layer" != cli ] && grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*<boost/program_options" "$f"; then
      echo "layering: $f includes Boost.Program_options (command-line code belongs in cli/)"
      status=1
    fi
  done
done
[ $status -eq 0 ] && echo "layering OK: instances <- evaluators <- moves <- placement <- optimizer <- cli"
exit $status

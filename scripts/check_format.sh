#!/usr/bin/env bash
# Format check (a CTest test): every C++ source is as clang-format (.clang-format) leaves it.
# Fix with: clang-format -i $(git ls-files '*.h' '*.cpp')
set -uo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "clang-format not installed (scripts/setup.sh installs it)"; exit 1; }
files=$(find instances evaluators moves placement optimizer cli tests bench \( -name '*.h' -o -name '*.cpp' \) \
           -not -path 'tests/cases/*' -not -path 'tests/bad_inputs/*' | sort)
if clang-format --dry-run --Werror $files; then
  echo "format OK: $(echo "$files" | wc -w) files"
else
  echo "format: the files above differ from clang-format's layout (clang-format -i <file>)"
  exit 1
fi

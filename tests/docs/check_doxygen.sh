#!/usr/bin/env bash
# ctest `docs_warnings` (label docs): builds the API reference (docs/Doxyfile, as `make docs` does) into OUT and
# fails on any warning. The Doxyfile already fails on warnings (WARN_AS_ERROR); with QUIET = YES doxygen prints
# nothing else, so any output at all fails too.
# Usage: tests/docs/check_doxygen.sh DOXYGEN SOURCE_DIR OUT
set -euo pipefail
doxygen=$1 root=$2 out=$3
mkdir -p "$out"
cd "$root"
status=0
log=$({ cat docs/Doxyfile; echo "OUTPUT_DIRECTORY = \"$out\""; } | "$doxygen" - 2>&1) || status=$?
if ((status != 0)) || [[ -n $log ]]; then
  printf '%s\n' "$log"
  echo "docs: doxygen exited with $status and printed the above; fix the comments (docs/Doxyfile says how)"
  exit 1
fi
echo "docs: no warnings; $out/html/index.html"

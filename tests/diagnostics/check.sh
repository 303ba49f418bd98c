#!/usr/bin/env bash
# ctest `diagnostics`: each file here is a newcomer's mistake that must fail to compile with the sentence its
# "// expect:" line quotes, and with no error before that message (a constraint that fails first would bury it).
# Usage: check.sh COMPILER SOURCE_DIR GENERATED_DIR
set -u
compiler=$1 source=$2 generated=$3
failed=0
for file in "$source"/tests/diagnostics/*.cpp; do
  expected=$(sed -n 's|^// expect: ||p' "$file")
  err=$(mktemp)
  if "$compiler" -std=c++20 -fsyntax-only -I"$source" -I"$source/tests" -I"$generated" "$file" 2> "$err"; then
    echo "FAIL $(basename "$file"): compiled"; failed=1
  elif ! grep -qF -- "$expected" "$err"; then
    echo "FAIL $(basename "$file"): no '$expected' in:"; head -c 2000 "$err"; failed=1
  else
    first=$(grep -m1 "error:" "$err")
    if [[ $first != *"$expected"* ]]; then
      echo "FAIL $(basename "$file"): the first error is not the message: $first"; failed=1
    else
      echo "ok   $(basename "$file"): $(grep -c "error:" "$err") error line(s)"
    fi
  fi
  rm -f "$err"
done
exit $failed

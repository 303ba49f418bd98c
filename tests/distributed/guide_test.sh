#!/usr/bin/env bash
# The guide's program trains data-parallel as is: `scorch-run --nproc 2 guide train`, one epoch on the npm digits;
# rank 0 alone reports and writes the model, which infer then reads (better than chance after one epoch).
# Usage: guide_test.sh <scorch-run binary> <guide binary>
set -euo pipefail
run=$1 guide=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$run" --nproc 2 "$guide" train --digits --epochs 1 --cli --artifact-dir "$dir/run" > "$dir/train.log" 2>&1 ||
  { cat "$dir/train.log"; exit 1; }
reports=$(grep -c "^trained 1 epochs" "$dir/train.log" || true)
[[ $reports == 1 ]] || { cat "$dir/train.log"; echo "FAIL: $reports reports, want rank 0's alone"; exit 1; }
"$guide" infer --digits --show 0 --artifact-dir "$dir/run" | tee "$dir/infer.log"
accuracy=$(sed -n 's/^test accuracy: \([0-9.]*\)%$/\1/p' "$dir/infer.log")
awk -v a="$accuracy" 'BEGIN { exit !(a > 50) }' || { echo "FAIL: accuracy $accuracy% after one epoch"; exit 1; }
echo "guide data-parallel ok"

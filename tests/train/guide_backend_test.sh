#!/usr/bin/env bash
# guide --backend: an unknown backend is refused with the list of the stacks built (Dyn::stacks()); with a backend named,
# one short epoch on the npm digits trains, the experiment log names the backend and infer runs on it too.
# Usage: guide_backend_test.sh <guide binary> [backend]
set -euo pipefail
guide=$1 backend=${2:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if "$guide" train --backend metal --artifact-dir "$dir/x" > "$dir/out" 2>&1; then
  echo "FAIL: --backend metal was accepted"; exit 1
fi
grep -q "'metal' is not a backend of this build: .*this build has: cpu, reference, fusion<cpu>" "$dir/out" ||
  { cat "$dir/out"; exit 1; }
[[ -z $backend ]] && { echo "guide backend errors ok"; exit 0; }
"$guide" train --backend "$backend" --digits --epochs 1 --cli --artifact-dir "$dir/run" > "$dir/train.log"
grep -q "backend: $backend" "$dir/run/experiment.log" || { echo "FAIL: no backend line in experiment.log"; exit 1; }
"$guide" infer --backend "$backend" --digits --show 0 --artifact-dir "$dir/run" | tee "$dir/infer.log"
accuracy=$(sed -n 's/^test accuracy: \([0-9.]*\)%$/\1/p' "$dir/infer.log")
awk -v a="$accuracy" 'BEGIN { exit !(a > 50) }' || { echo "FAIL: accuracy $accuracy% after one epoch"; exit 1; }
echo "guide --backend $backend ok"

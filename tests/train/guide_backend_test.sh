#!/usr/bin/env bash
# guide --backend: an unknown backend is refused with the list of the stacks built (Dyn::stacks()); infer and quantize
# before train name the command to run; with a backend named,
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
# infer and quantize before train: the folder and the command to run, not a missing config.json.
for command in infer quantize; do
  if "$guide" $command --artifact-dir "$dir/untrained" > "$dir/out" 2>&1; then
    echo "FAIL: $command without a trained model succeeded"; exit 1
  fi
  expected="[guide] no trained model in $dir/untrained (config.json is missing): run \`guide train --artifact-dir"
  [[ $(head -n 1 "$dir/out") == "$expected"* ]] || { echo "FAIL: $command said:"; cat "$dir/out"; exit 1; }
done
[[ -z $backend ]] && { echo "guide backend errors ok"; exit 0; }
"$guide" train --backend "$backend" --digits --epochs 1 --cli --artifact-dir "$dir/run" > "$dir/train.log"
grep -q "backend: $backend" "$dir/run/experiment.log" || { echo "FAIL: no backend line in experiment.log"; exit 1; }
"$guide" infer --backend "$backend" --digits --show 0 --artifact-dir "$dir/run" | tee "$dir/infer.log"
accuracy=$(sed -n 's/^test accuracy: \([0-9.]*\)%$/\1/p' "$dir/infer.log")
awk -v a="$accuracy" 'BEGIN { exit !(a > 50) }' || { echo "FAIL: accuracy $accuracy% after one epoch"; exit 1; }
# Stopped before its first epoch ends, train leaves the trained model in place.
before=$(md5sum < "$dir/run/model.mpk.gz")
"$guide" train --backend "$backend" --digits --epochs 1 --cli --artifact-dir "$dir/run" > "$dir/stopped.log" 2>&1 &
for _ in $(seq 600); do  # interrupt at the first progress line (the Learner handles SIGINT by then)
  grep -q "^\[train\] epoch 1/1 iteration" "$dir/stopped.log" && break
  sleep 0.05
done
kill -INT $! 2> /dev/null || true
wait $! || true
if grep -q "^no epoch completed" "$dir/stopped.log"; then
  [[ $(md5sum < "$dir/run/model.mpk.gz") == "$before" ]] || { echo "FAIL: the trained model was overwritten"; exit 1; }
else
  echo "note: the run finished an epoch before its interrupt; the overwrite rule was not exercised"
  cat "$dir/stopped.log"
fi
# A config that does not match the model file (hidden size 10^6) fails before allocating its parameters: the error
# names the parameter, and the process's peak memory stays under 1 GiB (it was 4 GB; the LibTorch stack maps about
# 400 MB).
mkdir -p "$dir/wrong" && cp "$dir/run/model.mpk.gz" "$dir/wrong/"
sed 's/"hidden_size": *[0-9]*/"hidden_size": 1000000/' "$dir/run/config.json" > "$dir/wrong/config.json"
grep -q '"hidden_size": 1000000' "$dir/wrong/config.json" || { echo "FAIL: could not edit config.json"; exit 1; }
peak_kb=$(python3 - "$guide" "$backend" "$dir/wrong" "$dir/wrong.log" <<'PY'
import resource, subprocess, sys
guide, backend, folder, log = sys.argv[1:]
with open(log, "w") as out:
    status = subprocess.call([guide, "infer", "--backend", backend, "--digits", "--artifact-dir", folder],
                             stdout=out, stderr=subprocess.STDOUT)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if status != 0 else -1)
PY
)
grep -q "\[init_with\] a parameter of shape \[1024, 1000000\]" "$dir/wrong.log" ||
  { echo "FAIL: a mismatched config gave: $(cat "$dir/wrong.log")"; exit 1; }
((peak_kb > 0 && peak_kb < 1048576)) || { echo "FAIL: peak memory ${peak_kb} KiB for a mismatched config"; exit 1; }
echo "a mismatched config: $(head -1 "$dir/wrong.log") (peak ${peak_kb} KiB)"
echo "guide --backend $backend ok"

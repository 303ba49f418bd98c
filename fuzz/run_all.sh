#!/usr/bin/env bash
# make fuzz: runs every fuzz target of a fuzz build for SECONDS each, growing the corpora in
# BUILD/fuzz/corpus/<target>/ and keeping crash inputs in BUILD/fuzz/artifacts/<target>/, then prints each
# target's executions and coverage. FUZZ_JOBS targets run at once (default 1: one after the other).
# Exits non-zero when a target found a crash, leak, timeout or out-of-memory.
# Usage: [FUZZ_JOBS=N] fuzz/run_all.sh BUILD_DIR SECONDS [target...]
set -uo pipefail
build=$1 seconds=$2
shift 2
jobs=${FUZZ_JOBS:-1}
source_dir=$(cd "$(dirname "$0")" && pwd)
targets=("$@")
if ((${#targets[@]} == 0)); then
  for binary in "$build"/fuzz/fuzz_*; do
    name=$(basename "$binary")
    [[ $name == fuzz_write_corpus || $name == fuzz_targets ]] || targets+=("${name#fuzz_}")
  done
fi

# Fuzzes one target and writes its summary line to logs/<target>.summary (prefixed FAILED when it failed).
fuzz_one() {
  local name=$1
  local log="$build/fuzz/logs/$name.log"
  mkdir -p "$build/fuzz/artifacts/$name" "$build/fuzz/corpus/$name"
  local flags=(-rss_limit_mb=2048 -timeout=10 -artifact_prefix="$build/fuzz/artifacts/$name/")
  echo "== fuzz_$name for ${seconds}s (log: $log)"
  local start status=0
  start=$(date +%s)
  # The regression inputs run once each; fuzzing then grows the corpus alone (mutated gzip bombs would take
  # most of the time: each inflates up to its limit).
  if [[ -d $source_dir/regressions/$name ]]; then
    mapfile -t inputs < <(find "$source_dir/regressions/$name" -type f | sort)
    "$build/fuzz/fuzz_$name" "${flags[@]}" "${inputs[@]}" >"$log" 2>&1 || status=$?
  fi
  if ((status == 0)); then
    "$build/fuzz/fuzz_$name" "${flags[@]}" -max_total_time="$seconds" -max_len=16384 -print_final_stats=1 \
      "$build/fuzz/corpus/$name" >>"$log" 2>&1 || status=$?
  fi
  local elapsed=$(($(date +%s) - start))
  local execs cov features units result=ok
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
  features=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
  units=$(find "$build/fuzz/corpus/$name" -type f | wc -l)
  ((status == 0)) || result="FAILED (exit $status; see $log)"
  printf '%-18s %6ss %12s execs  cov: %-6s ft: %-6s corpus: %-5s %s\n' "$name" "$elapsed" "${execs:-?}" \
    "${cov:-?}" "${features:-?}" "$units" "$result" >"$build/fuzz/logs/$name.summary"
}

mkdir -p "$build/fuzz/logs"
for name in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
  fuzz_one "$name" &
done
wait
echo "== fuzz summary"
failed=0
for name in "${targets[@]}"; do
  line=$(cat "$build/fuzz/logs/$name.summary")
  echo "$line"
  [[ $line == *FAILED* ]] && failed=1
done
exit $failed

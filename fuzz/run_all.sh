#!/usr/bin/env bash
# make fuzz: runs every fuzz target of a fuzz build for SECONDS each, one after the other, growing the corpora in
# BUILD/fuzz/corpus/<target>/ and keeping crash inputs in BUILD/fuzz/artifacts/<target>/, then prints each
# target's executions and coverage. Exits non-zero when a target found a crash, leak, timeout or out-of-memory.
# Usage: fuzz/run_all.sh BUILD_DIR SECONDS [target...]
set -uo pipefail
build=$1 seconds=$2
shift 2
source_dir=$(cd "$(dirname "$0")" && pwd)
targets=("$@")
if ((${#targets[@]} == 0)); then
  for binary in "$build"/fuzz/fuzz_*; do
    name=$(basename "$binary")
    [[ $name == fuzz_write_corpus ]] || targets+=("${name#fuzz_}")
  done
fi
summary=() failed=0
for name in "${targets[@]}"; do
  log="$build/fuzz/logs/$name.log"
  mkdir -p "$build/fuzz/logs" "$build/fuzz/artifacts/$name" "$build/fuzz/corpus/$name"
  flags=(-rss_limit_mb=2048 -timeout=10 -artifact_prefix="$build/fuzz/artifacts/$name/")
  echo "== fuzz_$name for ${seconds}s (log: $log)"
  start=$(date +%s)
  # The regression inputs run once each; fuzzing then grows the corpus alone (mutated gzip bombs would take
  # most of the time: each inflates up to its limit).
  status=0
  if [[ -d $source_dir/regressions/$name ]]; then
    mapfile -t inputs < <(find "$source_dir/regressions/$name" -type f | sort)
    "$build/fuzz/fuzz_$name" "${flags[@]}" "${inputs[@]}" >"$log" 2>&1 || status=$?
  fi
  if ((status == 0)); then
    "$build/fuzz/fuzz_$name" "${flags[@]}" -max_total_time="$seconds" -max_len=16384 -print_final_stats=1 \
      "$build/fuzz/corpus/$name" >>"$log" 2>&1 || status=$?
  fi
  elapsed=$(($(date +%s) - start))
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
  result=ok
  if ((status != 0)); then
    result="FAILED (exit $status; see $log)"
    failed=1
  fi
  summary+=("$(printf '%-18s %6ss %12s execs  cov: %-6s %s' "$name" "$elapsed" "${execs:-?}" "${cov:-?}" "$result")")
done
printf '%s\n' "== fuzz summary" "${summary[@]}"
exit $failed

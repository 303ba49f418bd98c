#!/usr/bin/env bash
# Runs one fuzz target briefly (ctest -L fuzz): first every regression input once, then fuzzing for SECONDS on a
# copy of the seed corpus plus the regressions. Any crash, leak, timeout or out-of-memory fails the test; its input
# is kept in ARTIFACTS.
# Usage: fuzz/run_fuzz.sh TARGET_BINARY CORPUS_DIR REGRESSIONS_DIR ARTIFACTS_DIR SECONDS [libFuzzer flags...]
set -euo pipefail
binary=$1 corpus=$2 regressions=$3 artifacts=$4 seconds=$5
shift 5
limits=(-rss_limit_mb=2048 -timeout=10 -artifact_prefix="$artifacts/")
work=$(mktemp -d "${TMPDIR:-/tmp}/scorch-fuzz-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$artifacts"
cp -r "$corpus"/. "$work/"
inputs=()
if [[ -d $regressions ]]; then
  while IFS= read -r -d '' f; do inputs+=("$f"); done < <(find "$regressions" -type f -print0 | sort -z)
fi
if ((${#inputs[@]} > 0)); then
  echo "== $(basename "$binary"): ${#inputs[@]} regression inputs"
  "$binary" "${limits[@]}" "${inputs[@]}"
fi
dirs=("$work")
[[ -d $regressions ]] && dirs+=("$regressions")
echo "== $(basename "$binary"): fuzzing for ${seconds}s"
"$binary" "${limits[@]}" -max_len=16384 -max_total_time="$seconds" -print_final_stats=1 "$@" "${dirs[@]}"

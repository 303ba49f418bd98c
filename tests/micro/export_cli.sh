#!/usr/bin/env bash
# scorch-micro-export's command line: a config nested 20,000 deep is an error naming the file (the bounded JSON
# reader), not a stack overflow; --help prints the usage.
# Usage: tests/micro/export_cli.sh SCORCH_MICRO_EXPORT
set -uo pipefail
tool=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/scorch-micro-cli-XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 -c 'print("[" * 20000 + "]" * 20000)' > "$work/deep.json"
"$tool" "$work/missing.mpk" --name model --out-dir "$work/out" --config "$work/deep.json" 2> "$work/err"
code=$?
((code == 1)) || { echo "FAIL: exit code $code: $(cat "$work/err")"; exit 1; }
grep -q "deep.json: JSON nests deeper than 512 levels" "$work/err" || { echo "FAIL: $(cat "$work/err")"; exit 1; }
echo "ok: $(cat "$work/err")"
"$tool" --help | grep -q "usage: scorch-micro-export" || { echo "FAIL: --help"; exit 1; }
echo "ok: --help"

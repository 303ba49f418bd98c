#!/usr/bin/env bash
# Starts scorch-server on Cpu (loopback, a free port, a fresh token), runs remote-inference against it with the given
# flags, and stops the server.  Usage: examples/server/run.sh <build dir> [remote-inference flags...]
set -euo pipefail
build=$1
shift
token=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
log=$(mktemp)
SCORCH_SERVER_TOKEN=$token "$build/scorch/scorch-server" --backend "${SCORCH_SERVER_BACKEND:-cpu}" \
  --bind 'tcp://127.0.0.1:*' > "$log" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q ' on ' "$log" && break; sleep 0.05; done
endpoint=$(sed -n 's/.* on //p' "$log")
[[ -n $endpoint ]] || { echo "run.sh: scorch-server did not start" >&2; exit 1; }
SCORCH_REMOTE_TOKEN=$token "$build/examples/remote-inference" --endpoint "$endpoint" "$@"

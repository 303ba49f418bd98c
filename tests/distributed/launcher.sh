#!/usr/bin/env bash
# scorch-run owns its ranks: SIGTERM or SIGKILL to the launcher leaves no rank running, a busy --master-port is an
# error naming the port (not a crash), and a node rank claimed by two launchers is an error within seconds.
# Usage: tests/distributed/launcher.sh SCORCH_RUN
set -uo pipefail
run=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/scorch-launcher-XXXXXX")
cleanup() { kill $(jobs -p) 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# A rank: writes its pid to $work/rank<RANK>.pid, then sleeps (exec: the pid is the sleeping process's).
cat > "$work/rank.sh" <<'EOF'
#!/usr/bin/env bash
echo $$ > "$1/rank$RANK.pid"
exec sleep 60
EOF
chmod +x "$work/rank.sh"

# Waits until n ranks wrote their pids; prints them.
rank_pids() {
  for _ in $(seq 100); do
    (($(ls "$work"/rank*.pid 2>/dev/null | wc -l) >= $1)) && break
    sleep 0.1
  done
  cat "$work"/rank*.pid
}
# Fails unless every pid is gone within 10 s.
expect_gone() {
  for _ in $(seq 100); do
    alive=0
    for p in "${@:2}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    ((alive == 0)) && return 0
    sleep 0.1
  done
  fail "ranks still running 10 s after the launcher got $1"
}

for signal in TERM KILL INT; do
  rm -f "$work"/rank*.pid
  "$run" --nproc 2 -- "$work/rank.sh" "$work" 2>/dev/null &
  launcher=$!
  pids=$(rank_pids 2)
  [[ $(echo "$pids" | wc -w) == 2 ]] || fail "the ranks did not start"
  kill -"$signal" "$launcher"
  expect_gone "SIG$signal" $pids
  wait "$launcher" 2>/dev/null
  echo "ok: SIG$signal to scorch-run leaves no rank"
done

# A port another program holds.
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(60)' \
  > "$work/port" &
for _ in $(seq 50); do [[ -s $work/port ]] && break; sleep 0.1; done
port=$(cat "$work/port")
start=$SECONDS
timeout 20 "$run" --nproc 1 --master-port "$port" -- true 2> "$work/busy.err"
code=$?
((code == 1)) || fail "a busy port: exit code $code, expected 1 ($(cat "$work/busy.err"))"
grep -q "cannot listen on 127.0.0.1:$port" "$work/busy.err" || fail "a busy port: $(cat "$work/busy.err")"
((SECONDS - start < 10)) || fail "a busy port took $((SECONDS - start)) s"
echo "ok: a busy port is an error: $(cat "$work/busy.err")"

# Several machines need the job's store token; the store answers no connection without it.
free_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
master=127.0.0.1:$free_port
if env -u SCORCH_STORE_TOKEN "$run" --nproc 1 --nnodes 2 --node-rank 0 --master "$master" -- true 2> "$work/token.err"
then fail "a two-machine run without SCORCH_STORE_TOKEN started"; fi
grep -q "needs one job token on every machine: set SCORCH_STORE_TOKEN" "$work/token.err" ||
  fail "no token: $(cat "$work/token.err")"
echo "ok: several machines without a token: $(cat "$work/token.err")"
export SCORCH_STORE_TOKEN=launcher-test-token
"$run" --nproc 1 --nnodes 2 --node-rank 0 --master "$master" --timeout-ms 20000 -- sleep 30 2>/dev/null &
serving=$!
sleep 1
start=$SECONDS
SCORCH_STORE_TOKEN=a-guess timeout 20 "$run" --nproc 1 --nnodes 2 --node-rank 1 --master "$master" \
  --timeout-ms 20000 -- true 2> "$work/guess.err"
code=$?
((code == 1)) || fail "a wrong token: exit code $code ($(cat "$work/guess.err"))"
grep -q "refused this job's token" "$work/guess.err" || fail "a wrong token: $(cat "$work/guess.err")"
((SECONDS - start < 10)) || fail "a wrong token took $((SECONDS - start)) s"
echo "ok: a wrong token is refused: $(cat "$work/guess.err")"
kill $serving 2>/dev/null || true
wait $serving 2>/dev/null || true

# Two launchers claiming node rank 1 of 3.
free_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
master=127.0.0.1:$free_port
"$run" --nproc 1 --nnodes 3 --node-rank 0 --master "$master" --timeout-ms 20000 -- sleep 30 2>/dev/null &
"$run" --nproc 1 --nnodes 3 --node-rank 1 --master "$master" --timeout-ms 20000 -- sleep 30 2>/dev/null &
sleep 1
start=$SECONDS
timeout 20 "$run" --nproc 1 --nnodes 3 --node-rank 1 --master "$master" --timeout-ms 20000 -- true \
  2> "$work/duplicate.err"
code=$?
((code == 1)) || fail "a duplicate node rank: exit code $code ($(cat "$work/duplicate.err"))"
grep -q "node rank 1 of 3 is claimed by another scorch-run" "$work/duplicate.err" ||
  fail "a duplicate node rank: $(cat "$work/duplicate.err")"
((SECONDS - start < 10)) || fail "a duplicate node rank took $((SECONDS - start)) s"
echo "ok: a duplicate node rank is an error: $(cat "$work/duplicate.err")"
"$run" --help | grep -q "usage: scorch-run" || fail "--help"
echo "ok: --help"

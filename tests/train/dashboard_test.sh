#!/usr/bin/env bash
# The dashboard as a person sees it: the guide trains under tmux, keys are sent and the pane is
# read back. Then Ctrl-C during an epoch, a resume from the last checkpoint, and `q`.
# Usage: dashboard_test.sh <guide binary>
set -euo pipefail
guide=$1
dir=$(mktemp -d)
session=scorch-dashboard-$$
trap 'tmux kill-session -t $session 2>/dev/null || true; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; echo "--- pane ---"; tmux capture-pane -p -t $session 2>/dev/null || true; exit 1; }
pane() { tmux capture-pane -p -t $session; }
wait_for() {  # pattern, seconds
  for _ in $(seq 1 $(($2 * 10))); do pane | grep -q -- "$1" && return 0; sleep 0.1; done
  fail "'$1' did not appear within $2 s"
}
wait_exit() {  # seconds; prints the exit code written by the session's command
  for _ in $(seq 1 $(($1 * 10))); do [[ -f $dir/exit ]] && { cat "$dir/exit"; return 0; }; sleep 0.1; done
  fail "the training did not exit within $1 s"
}
start() {  # guide arguments
  rm -f "$dir/exit"
  tmux kill-session -t $session 2>/dev/null || true
  tmux new-session -d -s $session -x 150 -y 45 "TERM=xterm-256color $guide train --digits --artifact-dir $dir/run $*; echo \$? > $dir/exit; sleep 60"
}

# 1. The dashboard shows the run, and the arrow keys move between metrics and views.
start --epochs 3
wait_for "Scorch training" 60
wait_for "Metric: Accuracy (1/3)" 10
for text in "Train \[" "Run \[" "ETA" "Loss" "\* train   o valid" "q: stop training"; do pane | grep -q -- "$text" || fail "no '$text' on the dashboard"; done
tmux send-keys -t $session Right
wait_for "Metric: Loss (2/3)" 5
tmux send-keys -t $session Down
wait_for "View: whole run" 5
tmux send-keys -t $session Up
wait_for "View: recent (this epoch)" 5
tmux send-keys -t $session Left
wait_for "Metric: Accuracy (1/3)" 5

# 2. Ctrl-C during epoch 2: the run stops cleanly and the checkpoint of epoch 1 is whole.
wait_for "epoch 2/3" 60
tmux send-keys -t $session C-c
code=$(wait_exit 60)
[[ $code == 130 ]] || fail "exit code $code after Ctrl-C (expected 130)"
stopped=$(grep -o "stopped during epoch [0-9]*" "$dir/run/experiment.log" | grep -o "[0-9]*$") || fail "no stop in experiment.log"
last=$((stopped - 1))
for kind in model optim scheduler; do [[ -f $dir/run/checkpoint/$kind-$last.mpk.gz ]] || fail "no $kind-$last checkpoint"; done
[[ ! -e $dir/run/checkpoint/model-$stopped.mpk.gz ]] || fail "a checkpoint of the interrupted epoch $stopped exists"
! ls "$dir/run/checkpoint" | grep -q tmp || fail "a temporary file was left in checkpoint/"

# 3. Resuming continues from there and the curves hold every epoch.
"$guide" train --digits --epochs 3 --resume --cli --artifact-dir "$dir/run" > "$dir/resume.log" || fail "resume failed: $(cat "$dir/resume.log")"
grep -q "resuming at epoch $stopped/3" "$dir/resume.log" || fail "the resume did not start at epoch $stopped: $(head -3 "$dir/resume.log")"
grep -q "resumed from the checkpoint of epoch $last" "$dir/run/experiment.log" || fail "experiment.log has no resume line"
for e in 1 2 3; do for s in train valid; do [[ -s $dir/run/$s/epoch-$e/Accuracy.log ]] || fail "no $s/epoch-$e/Accuracy.log"; done; done
[[ $(grep -c "<circle" "$dir/run/plots/Accuracy.svg") == 6 ]] || fail "the accuracy plot does not have 3 train + 3 valid points"
grep -q "Total epochs: 3" "$dir/resume.log" || fail "no summary after the resumed run"

# 4. q on the dashboard of a resumed run: its history is drawn and q stops it like Ctrl-C.
start --epochs 5 --resume
wait_for "epoch 4/5" 60
tmux send-keys -t $session Down
wait_for "View: whole run" 5
tmux send-keys -t $session q
code=$(wait_exit 60)
[[ $code == 130 ]] || fail "exit code $code after q (expected 130)"
grep -q "quit from the dashboard" "$dir/run/experiment.log" || fail "experiment.log does not record the quit"
echo "dashboard test passed"

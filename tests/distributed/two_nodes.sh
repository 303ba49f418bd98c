#!/usr/bin/env bash
# Two scorch-run launchers as two machines on loopback (--nnodes 2, 2 ranks each) run the collectives' tests:
# node 0's launcher serves the store at a free port; both must exit 0.
#   two_nodes.sh scorch-run scorch_distributed_tests
set -u
run=$1 tests=$2
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
common=(--nproc 2 --nnodes 2 --master 127.0.0.1:$port --timeout-ms 20000)
export SCORCH_DIST_HOSTNAME=127.0.0.1
export SCORCH_STORE_TOKEN=two-nodes-job-token  # the job's token, the same on both "machines"
"$run" "${common[@]}" --node-rank 1 "$tests" --gtest_filter='Distributed.AllReduce*:Distributed.Tensor*' &
other=$!
"$run" "${common[@]}" --node-rank 0 "$tests" --gtest_filter='Distributed.AllReduce*:Distributed.Tensor*'
mine=$?
wait $other
theirs=$?
echo "node 0 exited $mine, node 1 exited $theirs"
[[ $mine == 0 && $theirs == 0 ]]

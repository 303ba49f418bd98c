#!/usr/bin/env bash
# Runs the Cuda backend's tests, the differential target and the GPU benchmarks side by side with
# the PyTorch GPU anchor, on a machine with an NVIDIA GPU, from binaries built elsewhere and copied
# into .gpu/ (scripts/gpu-pack.sh). Logs go to $OUT (or /tmp/gpu-out).
# Usage: scripts/gpu-run.sh [tests|bench|all|guide|examples|vulkan|distributed]
# (BENCH_FILTER=substring runs only the matching benchmarks; `guide` trains guide --backend cuda beside its PyTorch
# eager twin, GUIDE_EPOCHS epochs; `examples` runs the custom training loop and the GPT example with --backend cuda;
# `vulkan` runs the Vulkan backend's tests on the NVIDIA Vulkan driver, then scorch-bench --backend vulkan beside
# --backend cuda and the PyTorch anchor on the same workloads).
# `distributed` (a machine of several GPUs) runs the data-parallel tests on NCCL with 2 and 4 ranks, a rank leaving
# mid-training on NCCL, and DP_ROUNDS rounds of scorch-dp-bench beside PyTorch DDP (bench/anchors/torch_ddp_anchor.py)
# on 1, 2 and 4 GPUs, summed up by bench/dp_scaling.py.
set -uo pipefail
what=${1:-all}
out=${OUT:-/tmp/gpu-out}
mkdir -p "$out"
root=$(pwd)
if [[ -f .gpu/bundle.tar.xz ]]; then tar -C .gpu -xJf .gpu/bundle.tar.xz && rm .gpu/bundle.tar.xz; fi
# The binaries name the fixture directory by the build machine's absolute path.
build_root=$(cat .gpu/source_root)
if [[ ! -e $build_root ]]; then mkdir -p "$(dirname "$build_root")" && ln -s "$root" "$build_root"; fi
libdirs=$(find / -xdev \( -name 'libcublasLt.so.13' -o -name 'libcudnn.so.9' -o -name 'libcudnn_cnn.so.9' -o -name 'libnvrtc.so.13' -o -name 'libnccl.so.2' \) -printf '%h\n' 2>/dev/null | sort -u | tr '\n' ':')
export LD_LIBRARY_PATH="$root/.gpu/lib:${libdirs}${LD_LIBRARY_PATH:-}"
export SCORCH_AUTOTUNE_CACHE=$out/autotune-cuda.tsv
export SCORCH_ONNX_NODE_SUITE=$root/.gpu/onnx/node
if [[ -f .gpu/generated_root ]]; then
  generated=$(cat .gpu/generated_root)/onnx_generated
  if [[ ! -e $generated ]]; then mkdir -p "$(dirname "$generated")" && ln -s "$root/.gpu/onnx_generated" "$generated"; fi
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/device.txt"
status=0
# Runs each packed GoogleTest binary named (those present), logging to $out and printing its summary and failures.
run_gtests() {
  for t in "$@"; do
    [[ -f .gpu/$t ]] || continue
    echo "== $t"
    timeout "${TEST_TIMEOUT:-200}" .gpu/$t --gtest_brief=1 > "$out/$t.log" 2>&1
    rc=$?; status=$((status | rc))
    grep -E "^\[  (PASSED|FAILED|SKIPPED)|tests? ran|pool after|no Vulkan" "$out/$t.log" | head -20
    grep -E "^\[  FAILED  \]" "$out/$t.log" | head -40
  done
}
# Runs a packed test binary compiled once for Dyn (scorch_conformance, scorch_gradient_tests) on each stack named.
run_stacks() {
  local binary=$1; shift
  [[ -f .gpu/$binary ]] || return 0
  for stack in "$@"; do
    local log=$out/$binary-$(echo "$stack" | tr -c 'A-Za-z0-9\n' '_').log
    echo "== $binary --stack $stack"
    timeout "${TEST_TIMEOUT:-200}" .gpu/$binary --stack "$stack" --gtest_brief=1 > "$log" 2>&1
    rc=$?; status=$((status | rc))
    grep -E "^\[  (PASSED|FAILED|SKIPPED)|tests? ran" "$log" | head -20
    grep -E "^\[  FAILED  \]" "$log" | head -40
  done
}
if [[ $what == tests || $what == all ]]; then
  run_gtests scorch_cuda_tests scorch_differential_tests
  run_stacks scorch_conformance cuda:0 "autodiff<cuda:0>" "fusion<cuda:0>" "autodiff<fusion<cuda:0>>"
  run_stacks scorch_gradient_tests cuda:0 "fusion<cuda:0>"
fi
if [[ $what == guide ]]; then  # guide --backend cuda beside its PyTorch eager twin, same digits, same epochs
  epochs=${GUIDE_EPOCHS:-3}
  echo "== guide train --backend cuda --digits --epochs $epochs"
  start=$(date +%s.%N)
  SCORCH_MNIST_DIGITS=$root/.gpu/digits .gpu/guide train --backend cuda --digits --epochs "$epochs" --cli \
    --artifact-dir "$out/guide" > "$out/guide.log" 2>&1
  rc=$?; status=$((status | rc))
  echo "guide: $(awk "BEGIN { print $(date +%s.%N) - $start }") s for $epochs epochs (process), rc $rc"
  grep -E "valid:|backend" "$out/guide.log" | tail -4
  grep -E "backend|training|checkpoint of epoch [0-9]+ written" "$out/guide/experiment.log" | cut -c1-100
  echo "== torch_guide_epoch.py (PyTorch eager)"
  start=$(date +%s.%N)
  python3 .gpu/torch_guide_epoch.py "$root/.gpu/digits" "$epochs" cuda 2>&1 | tail -2
  echo "torch: $(awk "BEGIN { print $(date +%s.%N) - $start }") s (process)"
fi
if [[ $what == examples ]]; then  # tests/train/example_backends_test.sh on Cuda
  bash tests/train/example_backends_test.sh .gpu/custom-training-loop .gpu/text-generation cuda \
    > "$out/examples.log" 2>&1
  rc=$?; status=$((status | rc))
  grep -Ev "^step " "$out/examples.log" | tail -8
fi
if [[ $what == vulkan ]]; then
  # The NVIDIA driver's Vulkan ICD (the packed loader finds it through VK_DRIVER_FILES where it is not installed).
  for icd in /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json \
    /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; do
    if [[ -f $icd && -z ${VK_DRIVER_FILES:-} ]]; then export VK_DRIVER_FILES=$icd; fi
  done
  echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-}"
  run_gtests scorch_vulkan_tests scorch_differential_tests
  run_stacks scorch_conformance vulkan:0 "autodiff<vulkan:0>"
  echo "== scorch-bench --backend vulkan, --backend cuda and torch_gpu_anchor.py on the same workloads"
  filter=matmul_f32_4096,matmul_bf16_4096,matmul_f16_4096,mul_scalar_64M,add_64M,exp_64M,gelu_custom_eager_64M
  filter=$filter,gelu_builtin_64M,softmax_8192x8192,mnist_guide_train_step_b64,mnist_guide_train_step_b1024,copy_64M
  timeout "${BENCH_TIMEOUT:-300}" .gpu/scorch-bench --backend vulkan --reps 10 --filter "$filter" \
    > "$out/bench_vulkan.jsonl" 2> "$out/bench_vulkan.err"
  rc=$?; status=$((status | rc))
  cuda_bench=.gpu/scorch-bench  # a Vulkan-only build's bundle may carry a Cuda build's bench beside it
  if [[ -f .gpu/scorch-bench-cuda ]]; then cuda_bench=.gpu/scorch-bench-cuda; fi
  timeout "${BENCH_TIMEOUT:-300}" $cuda_bench --backend cuda --reps 10 --filter "$filter" \
    > "$out/bench_cuda.jsonl" 2> "$out/bench_cuda.err"
  ANCHOR_QUICK=1 timeout "${BENCH_TIMEOUT:-300}" python3 .gpu/torch_gpu_anchor.py > "$out/bench_torch.jsonl" \
    2> "$out/bench_torch.err"
  tail -3 "$out/bench_vulkan.err"
  for f in bench_vulkan bench_cuda bench_torch; do cut -c1-200 "$out/$f.jsonl" | grep -E "${filter//,/|}|vulkan_"; done
  echo "== GPU time per shader (SCORCH_VULKAN_PROFILE=1; warm-up and 3 repetitions together)"
  SCORCH_VULKAN_PROFILE=1 timeout 120 .gpu/scorch-bench --backend vulkan --reps 3 \
    --filter "${PROFILE_FILTER:-matmul_f16_4096,mnist_guide_train_step_b64}" > /dev/null 2> "$out/profile_vulkan.txt"
  grep -A14 "== profile" "$out/profile_vulkan.txt"
fi
if [[ $what == bench || $what == all ]]; then  # make bench-compare-gpu's table, from the packed scorch-bench
  echo "== bench/compare.py --gpu (scorch-bench --backend cuda beside torch_gpu_anchor.py)"
  if [[ -n ${BENCH_FILTER:-} ]]; then
    timeout "${BENCH_TIMEOUT:-240}" .gpu/scorch-bench --backend cuda --reps 10 --filter "$BENCH_FILTER" \
      > "$out/bench_cuda.jsonl" 2> "$out/bench_cuda.err"
    rc=$?; status=$((status | rc))
    tail -3 "$out/bench_cuda.err"
    cut -c1-160 "$out/bench_cuda.jsonl"
  else
    PYTHONUNBUFFERED=1 timeout "${BENCH_TIMEOUT:-480}" python3 bench/compare.py --gpu --bench .gpu/scorch-bench \
      > "$out/bench_compare_gpu.txt" 2>&1
    rc=$?; status=$((status | rc))
    cat "$out/bench_compare_gpu.txt"
  fi
fi
if [[ $what == distributed ]]; then  # NCCL tests on 2 (and 4) GPUs; scaling from 1 GPU beside PyTorch DDP
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1  # multicast stays off
  gpus=$(nvidia-smi -L | wc -l)
  worlds="1"; for w in 2 4; do if (( w <= gpus )); then worlds="$worlds $w"; fi; done
  for w in $worlds; do
    if (( w == 1 )); then continue; fi
    .gpu/scorch-run --nproc "$w" --timeout-ms 120000 .gpu/scorch_distributed_tests --gtest_filter='Distributed.*' \
      > "$out/distributed_$w.log" 2>&1
    rc=$?; status=$((status | rc)); echo "distributed tests on $w ranks: exit $rc"
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|largest" "$out/distributed_$w.log" | sort | uniq -c
  done
  # Rank 1 leaves mid-training on NCCL: rank 0's watchdog aborts the communicator and training fails within 30 s.
  timeout 90 .gpu/scorch-run --nproc 2 --timeout-ms 5000 .gpu/scorch_distributed_tests \
    --gtest_filter='DistributedDeadPeerTraining.Cuda*' > "$out/dead_peer_cuda.log" 2>&1
  rc=$?; status=$((status | rc)); echo "dead peer on NCCL: exit $rc"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|scorch: rank" "$out/dead_peer_cuda.log" | head
  # DP_ROUNDS rounds (default 3) of every world size, Scorch and DDP interleaved; dp_scaling.py takes medians.
  for round in $(seq "${DP_ROUNDS:-3}"); do
    for w in $worlds; do
      if (( w == 1 )); then .gpu/scorch-dp-bench; python3 .gpu/torch_ddp_anchor.py
      else
        .gpu/scorch-run --nproc "$w" --timeout-ms 120000 .gpu/scorch-dp-bench
        python3 -m torch.distributed.run --standalone --nproc_per_node "$w" .gpu/torch_ddp_anchor.py 2>/dev/null
      fi
    done
  done | grep '^{' > "$out/dp_bench.jsonl"
  python3 bench/dp_scaling.py "$out/dp_bench.jsonl" | tee "$out/dp_scaling.jsonl"
fi
exit $status

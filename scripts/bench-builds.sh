#!/usr/bin/env bash
# Before/after benchmarks of two (or three) scorch-bench builds on the GPU machine, in one run each (issue 62's "no
# slowdown" check; docs/book/12-performance.md). Here: `scripts/bench-builds.sh pack NAME=BINARY...` strips each
# binary with the shared libraries a bare machine lacks into .gpu/builds.tar.xz (carry .gpu; SOURCES: the binaries'
# source trees, where their bench/onnx is looked for). There:
# `scripts/bench-builds.sh cuda BEFORE AFTER` runs both side by side on Cuda and Fusion<Cuda>
# (bench/compare_builds.py, ROUNDS rounds, REPS reps); `cpu BEFORE AFTER` does so pinned to CORES (default 0,1) with
# as many threads; `peers NAME` runs NAME's ONNX models beside ONNX Runtime (bench/anchors/ort_anchor.py) and its
# matmul/conv rows beside PyTorch (bench/anchors/torch_cpu_anchor.py), all pinned to CORES. Logs go to $OUT.
set -uo pipefail
what=${1:?usage: bench-builds.sh pack NAME=BINARY... | cuda A B | cpu A B | peers NAME}
shift
if [[ $what == pack ]]; then
  rm -rf .gpu && mkdir -p .gpu/lib
  for pair in "$@"; do strip -o ".gpu/${pair%%=*}" "${pair#*=}"; done
  for pair in "$@"; do ldd "${pair#*=}"; done | awk '/=> \// {print $3}' | sort -u |
    { grep -Ev 'libc\.so|libm\.so|libstdc\+\+|libgcc_s|ld-linux|libcuda\.so|libpthread\.so|libdl\.so|librt\.so|libcublas|libcudnn|libcudart' || true; } |
    while read -r lib; do cp -L "$lib" .gpu/lib/; done
  # The binaries name bench/onnx by their source tree's absolute path (SOURCES: those trees, default this one): the
  # folders the run links to this checkout's bench/onnx.
  for src in ${SOURCES:-$(pwd)}; do echo "$src/bench/onnx"; done > .gpu/onnx_dirs
  tar -C .gpu -cJf /tmp/scorch-builds.tar.xz . && rm -rf .gpu && mkdir .gpu && mv /tmp/scorch-builds.tar.xz .gpu/builds.tar.xz
  du -sh .gpu
  exit 0
fi
out=${OUT:-/tmp/gpu-out}
mkdir -p "$out"
root=$(pwd)
if [[ -f .gpu/builds.tar.xz ]]; then tar -C .gpu -xJf .gpu/builds.tar.xz && rm .gpu/builds.tar.xz; fi
while read -r dir; do
  [[ -e $dir ]] || { mkdir -p "$(dirname "$dir")" && ln -s "$root/bench/onnx" "$dir"; }
done < .gpu/onnx_dirs
libdirs=$(find / -xdev \( -name 'libcublasLt.so.13' -o -name 'libcudnn.so.9' -o -name 'libnvrtc.so.13' -o -name 'libnccl.so.2' \) -printf '%h\n' 2>/dev/null | sort -u | tr '\n' ':')
export LD_LIBRARY_PATH="$root/.gpu/lib:${libdirs}${LD_LIBRARY_PATH:-}"
cores=${CORES:-0,1}
threads=$(( $(echo "$cores" | tr ',' '\n' | wc -l) ))
case $what in
  cuda)
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
    python3 bench/compare_builds.py ".gpu/$1" ".gpu/$2" --rounds "${ROUNDS:-2}" -- --backend cuda --reps "${REPS:-10}" \
      ${FILTER:+--filter "$FILTER"} | tee "$out/cuda-$1-$2.txt" | tail -n "${TAIL:-200}" ;;
  cpu)
    lscpu | grep -m1 'Model name' | tee "$out/cpu.txt"
    SCORCH_NUM_THREADS=$threads python3 bench/compare_builds.py ".gpu/$1" ".gpu/$2" --rounds "${ROUNDS:-2}" \
      --taskset "$cores" -- --reps "${REPS:-7}" ${FILTER:+--filter "$FILTER"} | tee "$out/cpu-$1-$2.txt" |
      tail -n "${TAIL:-200}" ;;
  peers)
    keep=$(mktemp -d)
    SCORCH_NUM_THREADS=$threads SCORCH_BENCH_ONNX_KEEP=$keep taskset -c "$cores" ".gpu/$1" --reps 21 \
      --filter "${FILTER:-onnx_,matmul_f32_197x1x768}" | tee "$out/peers-$1.jsonl"
    OMP_NUM_THREADS=$threads taskset -c "$cores" python3 bench/anchors/ort_anchor.py "$keep" "$threads" |
      tee "$out/peers-ort.json"
    OMP_NUM_THREADS=$threads taskset -c "$cores" python3 bench/anchors/torch_cpu_anchor.py | tee "$out/peers-torch.json" |
      tail -c 2000 ;;
  *) echo "bench-builds.sh: unknown command $what" >&2; exit 2 ;;
esac

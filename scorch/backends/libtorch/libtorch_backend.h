#pragma once
// LibTorch: the backend over PyTorch's C++ library (ATen). Every kind uses TorchTensor; LibTorchKernelOps
// (generated from op_table.txt) binds the op names to ops.h, which call ATen. Only backends/libtorch/*.cpp include
// LibTorch headers, so using this backend costs no LibTorch compile time elsewhere.
#include <cstdint>
#include <string>

#include "scorch/backends/libtorch/ops.h"

namespace scorch::backends::libtorch {

/// PyTorch's kernels behind Scorch's backend contract: devices Cpu and (with a CUDA LibTorch) Cuda(i).
struct LibTorch : LibTorchKernelOps {
  using Device = TorchDevice;
  using FloatTensor = TorchTensor;
  using IntTensor = TorchTensor;
  using BoolTensor = TorchTensor;

  /// "libtorch".
  static std::string name() { return "libtorch"; }
  /// Seeds LibTorch's default generators: the same seed gives the same random tensors.
  static void seed(uint64_t s) { ops::seed(s); }
  /// Waits until the device's queued work is done.
  static void sync(const Device& device) { ops::sync(device); }
};

}  // namespace scorch::backends::libtorch

namespace scorch {
using backends::libtorch::LibTorch;
using backends::libtorch::TorchDevice;
}  // namespace scorch

#pragma once
// LibTorch: the backend over PyTorch's C++ library (ATen). Every kind uses TorchTensor; the op
// names of op_table.def are bound to ops.h, which call ATen. Only backends/libtorch/*.cpp include
// LibTorch headers, so using this backend costs no LibTorch compile time elsewhere.
#include <cstdint>
#include <string>

#include "scorch/backend/bind_ops.h"
#include "scorch/backends/libtorch/ops.h"

namespace scorch::backends::libtorch {

/// PyTorch's kernels behind Scorch's backend contract: devices Cpu and (with a CUDA LibTorch) Cuda(i).
struct LibTorch {
  using Device = TorchDevice;
  using FloatTensor = TorchTensor;
  using IntTensor = TorchTensor;
  using BoolTensor = TorchTensor;

  SCORCH_BIND_FLOAT_OPS(ops);
  SCORCH_BIND_INT_OPS(ops);
  SCORCH_BIND_BOOL_OPS(ops);
  SCORCH_BIND_ACTIVATION_OPS(ops);
  SCORCH_BIND_MODULE_OPS(ops);

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

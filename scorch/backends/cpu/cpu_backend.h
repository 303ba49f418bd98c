#pragma once
// Cpu: the portable default backend. Every kind uses CpuTensor; op_table.def's names are bound
// to the kernels of backends/cpu/kernels (activations, softmax and attention override the
// provided defaults with fused kernels).
#include <cstdint>
#include <string>

#include "scorch/backend/bind_ops.h"
#include "scorch/backends/cpu/kernels/kernels.h"
#include "scorch/backends/cpu/kernels/module_kernels.h"
#include "scorch/backends/cpu/thread_pool.h"

namespace scorch::backends::cpu {

/// The Cpu backend: portable C++20, multithreaded, no required dependency.
struct Cpu {
  using Device = CpuDevice;
  using FloatTensor = CpuTensor;
  using IntTensor = CpuTensor;
  using BoolTensor = CpuTensor;

  SCORCH_BIND_FLOAT_OPS(kernels);
  SCORCH_BIND_INT_OPS(kernels);
  SCORCH_BIND_BOOL_OPS(kernels);
  SCORCH_BIND_ACTIVATION_OPS(kernels);
  SCORCH_BIND_MODULE_OPS(kernels);

  /// "cpu".
  static std::string name() { return "cpu"; }
  /// Restarts the random stream: the same seed gives the same random tensors.
  static void seed(uint64_t s) { kernels::seed(s); }
  /// Cpu ops run synchronously; nothing to wait for.
  static void sync(const Device&) {}
};

}  // namespace scorch::backends::cpu

namespace scorch {
using backends::cpu::Cpu;
using backends::cpu::CpuDevice;
}  // namespace scorch

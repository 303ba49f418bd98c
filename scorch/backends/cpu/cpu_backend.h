#pragma once
// Cpu: the portable default backend. Every kind uses CpuTensor; CpuKernelOps (generated from
// op_table.txt) binds the table's op names to the kernels of backends/cpu/kernels.
#include <cstdint>
#include <string>

#include "scorch/backends/cpu/kernels/kernels.h"
#include "scorch/backends/cpu/thread_pool.h"

namespace scorch::backends::cpu {

/// The Cpu backend: portable C++20, multithreaded, no required dependency.
struct Cpu : CpuKernelOps {
  using Device = CpuDevice;
  using FloatTensor = CpuTensor;
  using IntTensor = CpuTensor;
  using BoolTensor = CpuTensor;

  /// "cpu".
  static std::string name() { return "cpu"; }
  /// Restarts the random stream: the same seed gives the same random tensors.
  static void seed(uint64_t s) { kernels::seed(s); }
  /// Cpu ops run synchronously; nothing to wait for.
  static void sync(const Device&) {}
  /// Integer kernels where they apply (kernels/quantized.cpp), else the provided composition.
  static CpuTensor module_quantized_linear(CpuTensor x, CpuTensor weight, CpuTensor scales, CpuTensor offsets,
                                           const std::optional<CpuTensor>& bias, const QuantScheme& scheme,
                                           const InputQuant& input, bool relu);
};

}  // namespace scorch::backends::cpu

namespace scorch {
using backends::cpu::Cpu;
using backends::cpu::CpuDevice;
}  // namespace scorch

#pragma once
// Cpu: the portable default backend. Every kind uses CpuTensor; ops are grouped by kind.
#include <cstdint>
#include <string>

#include "scorch/backends/cpu/ops/activation.h"
#include "scorch/backends/cpu/ops/bool.h"
#include "scorch/backends/cpu/ops/float.h"
#include "scorch/backends/cpu/ops/int.h"
#include "scorch/backends/cpu/ops/module.h"
#include "scorch/backends/cpu/thread_pool.h"

namespace scorch::backends::cpu {

/// The Cpu backend: portable C++20, multithreaded, no required dependency.
struct Cpu : CpuFloatOps, CpuIntOps, CpuBoolOps, CpuActivationOps, CpuModuleOps {
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
};

}  // namespace scorch::backends::cpu

namespace scorch {
using backends::cpu::Cpu;
using backends::cpu::CpuDevice;
}  // namespace scorch

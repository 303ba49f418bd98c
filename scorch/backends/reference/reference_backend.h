#pragma once
// Reference: the Cpu kernels of the op table's required ops and nothing else, so every provided op
// runs backend/provided's default. The conformance suite runs on it (tests/conformance), which is
// how the defaults that every real backend overrides stay tested.
#include <cstdint>
#include <string>

#include "scorch/backends/cpu/cpu_backend.h"

namespace scorch::backends::reference {

/// The required ops on Cpu's kernels; the provided ops through their defaults over them.
struct Reference : cpu::CpuRequiredKernelOps {
  using Device = cpu::CpuDevice;
  using FloatTensor = cpu::CpuTensor;
  using IntTensor = cpu::CpuTensor;
  using BoolTensor = cpu::CpuTensor;

  /// "reference".
  static std::string name() { return "reference"; }
  /// Restarts Cpu's random stream: the same seed gives the same random tensors.
  static void seed(uint64_t s) { cpu::kernels::seed(s); }
  /// Synchronous, like Cpu.
  static void sync(const Device&) {}
};

}  // namespace scorch::backends::reference

namespace scorch {
using backends::reference::Reference;
}  // namespace scorch

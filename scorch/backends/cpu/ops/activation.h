#pragma once
// Activation ops of the Cpu backend (fused kernels overriding the provided defaults): each name of op_table.def bound to the kernel that implements it.
#include "scorch/backends/cpu/kernels/kernels.h"

namespace scorch::backends::cpu {

/// Activation ops of the Cpu backend (fused kernels overriding the provided defaults).
struct CpuActivationOps {
  static constexpr auto float_relu = &kernels::relu;
  static constexpr auto float_leaky_relu = &kernels::leaky_relu;
  static constexpr auto float_gelu = &kernels::gelu;
  static constexpr auto float_sigmoid = &kernels::sigmoid;
  static constexpr auto float_log_sigmoid = &kernels::log_sigmoid;
  static constexpr auto float_hard_sigmoid = &kernels::hard_sigmoid;
  static constexpr auto float_softmax = &kernels::softmax;
  static constexpr auto float_log_softmax = &kernels::log_softmax;
};

}  // namespace scorch::backends::cpu

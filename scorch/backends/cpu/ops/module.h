#pragma once
// Module ops of the Cpu backend: each name of op_table.def's module section bound to its kernel.
#include "scorch/backends/cpu/kernels/module_kernels.h"

namespace scorch::backends::cpu {

/// Module ops of the Cpu backend (attention overrides the provided default with a fused kernel).
struct CpuModuleOps {
  static constexpr auto module_conv = &kernels::conv;
  static constexpr auto module_conv_backward = &kernels::conv_backward;
  static constexpr auto module_conv_transpose = &kernels::conv_transpose;
  static constexpr auto module_conv_transpose_backward = &kernels::conv_transpose_backward;
  static constexpr auto module_avg_pool = &kernels::avg_pool;
  static constexpr auto module_avg_pool_backward = &kernels::avg_pool_backward;
  static constexpr auto module_max_pool_with_indices = &kernels::max_pool_with_indices;
  static constexpr auto module_max_pool_backward = &kernels::max_pool_backward;
  static constexpr auto module_adaptive_avg_pool = &kernels::adaptive_avg_pool;
  static constexpr auto module_adaptive_avg_pool_backward = &kernels::adaptive_avg_pool_backward;
  static constexpr auto module_adaptive_max_pool_with_indices = &kernels::adaptive_max_pool_with_indices;
  static constexpr auto module_interpolate = &kernels::interpolate;
  static constexpr auto module_interpolate_backward = &kernels::interpolate_backward;
  static constexpr auto module_unfold = &kernels::unfold4d;
  static constexpr auto module_fold = &kernels::fold4d;
  static constexpr auto module_attention = &kernels::attention;
};

}  // namespace scorch::backends::cpu

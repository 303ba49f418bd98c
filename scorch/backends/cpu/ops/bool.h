#pragma once
// Bool ops of the Cpu backend: each name of op_table.def bound to the kernel that implements it.
#include "scorch/backends/cpu/kernels/kernels.h"

namespace scorch::backends::cpu {

/// Bool ops of the Cpu backend.
struct CpuBoolOps {
  static constexpr auto bool_from_data = &kernels::from_data;
  static constexpr auto bool_into_data = &kernels::into_data;
  static constexpr auto bool_to_device = &kernels::to_device;
  static constexpr auto bool_empty = &kernels::empty;
  static constexpr auto bool_full = &kernels::full;
  static constexpr auto bool_into_int = &kernels::cast;
  static constexpr auto bool_into_float = &kernels::cast;
  static constexpr auto bool_equal = &kernels::equal;
  static constexpr auto bool_not_equal = &kernels::not_equal;
  static constexpr auto bool_logical_not = &kernels::logical_not;
  static constexpr auto bool_logical_and = &kernels::logical_and;
  static constexpr auto bool_logical_or = &kernels::logical_or;
  static constexpr auto bool_logical_xor = &kernels::logical_xor;
  static constexpr auto bool_mask_where = &kernels::mask_where;
  static constexpr auto bool_mask_fill = &kernels::mask_fill;
  static constexpr auto bool_argwhere = &kernels::argwhere;
  static constexpr auto bool_reshape = &kernels::reshape;
  static constexpr auto bool_permute = &kernels::permute;
  static constexpr auto bool_swap_dims = &kernels::swap_dims;
  static constexpr auto bool_flip = &kernels::flip;
  static constexpr auto bool_expand = &kernels::expand;
  static constexpr auto bool_slice = &kernels::slice;
  static constexpr auto bool_slice_assign = &kernels::slice_assign;
  static constexpr auto bool_cat = &kernels::cat;
  static constexpr auto bool_repeat_dim = &kernels::repeat_dim;
  static constexpr auto bool_unfold = &kernels::unfold;
  static constexpr auto bool_gather = &kernels::gather;
  static constexpr auto bool_select = &kernels::select;
};

}  // namespace scorch::backends::cpu

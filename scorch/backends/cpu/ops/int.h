#pragma once
// Int ops of the Cpu backend: each name of op_table.def bound to the kernel that implements it.
#include "scorch/backends/cpu/kernels/kernels.h"

namespace scorch::backends::cpu {

/// Int ops of the Cpu backend.
struct CpuIntOps {
  static constexpr auto int_from_data = &kernels::from_data;
  static constexpr auto int_into_data = &kernels::into_data;
  static constexpr auto int_to_device = &kernels::to_device;
  static constexpr auto int_empty = &kernels::empty;
  static constexpr auto int_full = &kernels::full;
  static constexpr auto int_random = &kernels::random;
  static constexpr auto int_cast = &kernels::cast;
  static constexpr auto int_into_float = &kernels::cast;
  static constexpr auto int_add = &kernels::add;
  static constexpr auto int_sub = &kernels::sub;
  static constexpr auto int_mul = &kernels::mul;
  static constexpr auto int_div = &kernels::div;
  static constexpr auto int_remainder = &kernels::remainder;
  static constexpr auto int_add_scalar = &kernels::add_scalar;
  static constexpr auto int_sub_scalar = &kernels::sub_scalar;
  static constexpr auto int_mul_scalar = &kernels::mul_scalar;
  static constexpr auto int_div_scalar = &kernels::div_scalar;
  static constexpr auto int_remainder_scalar = &kernels::remainder_scalar;
  static constexpr auto int_powi = &kernels::powi;
  static constexpr auto int_powi_scalar = &kernels::powi_scalar;
  static constexpr auto int_neg = &kernels::neg;
  static constexpr auto int_matmul = &kernels::matmul;
  static constexpr auto int_abs = &kernels::abs;
  static constexpr auto int_sign = &kernels::sign;
  static constexpr auto int_equal = &kernels::equal;
  static constexpr auto int_not_equal = &kernels::not_equal;
  static constexpr auto int_greater = &kernels::greater;
  static constexpr auto int_greater_equal = &kernels::greater_equal;
  static constexpr auto int_lower = &kernels::lower;
  static constexpr auto int_lower_equal = &kernels::lower_equal;
  static constexpr auto int_equal_elem = &kernels::equal_elem;
  static constexpr auto int_not_equal_elem = &kernels::not_equal_elem;
  static constexpr auto int_greater_elem = &kernels::greater_elem;
  static constexpr auto int_greater_equal_elem = &kernels::greater_equal_elem;
  static constexpr auto int_lower_elem = &kernels::lower_elem;
  static constexpr auto int_lower_equal_elem = &kernels::lower_equal_elem;
  static constexpr auto int_bitwise_and = &kernels::bitwise_and;
  static constexpr auto int_bitwise_or = &kernels::bitwise_or;
  static constexpr auto int_bitwise_xor = &kernels::bitwise_xor;
  static constexpr auto int_bitwise_and_scalar = &kernels::bitwise_and_scalar;
  static constexpr auto int_bitwise_or_scalar = &kernels::bitwise_or_scalar;
  static constexpr auto int_bitwise_xor_scalar = &kernels::bitwise_xor_scalar;
  static constexpr auto int_bitwise_not = &kernels::bitwise_not;
  static constexpr auto int_bitwise_left_shift = &kernels::bitwise_left_shift;
  static constexpr auto int_bitwise_right_shift = &kernels::bitwise_right_shift;
  static constexpr auto int_bitwise_left_shift_scalar = &kernels::bitwise_left_shift_scalar;
  static constexpr auto int_bitwise_right_shift_scalar = &kernels::bitwise_right_shift_scalar;
  static constexpr auto int_clamp = &kernels::clamp;
  static constexpr auto int_clamp_min = &kernels::clamp_min;
  static constexpr auto int_clamp_max = &kernels::clamp_max;
  static constexpr auto int_mask_where = &kernels::mask_where;
  static constexpr auto int_mask_fill = &kernels::mask_fill;
  static constexpr auto int_sum = &kernels::sum;
  static constexpr auto int_sum_dim = &kernels::sum_dim;
  static constexpr auto int_mean = &kernels::mean;
  static constexpr auto int_mean_dim = &kernels::mean_dim;
  static constexpr auto int_prod = &kernels::prod;
  static constexpr auto int_prod_dim = &kernels::prod_dim;
  static constexpr auto int_max = &kernels::max;
  static constexpr auto int_max_dim = &kernels::max_dim;
  static constexpr auto int_min = &kernels::min;
  static constexpr auto int_min_dim = &kernels::min_dim;
  static constexpr auto int_argmax = &kernels::argmax;
  static constexpr auto int_argmin = &kernels::argmin;
  static constexpr auto int_max_dim_with_indices = &kernels::max_dim_with_indices;
  static constexpr auto int_min_dim_with_indices = &kernels::min_dim_with_indices;
  static constexpr auto int_cumsum = &kernels::cumsum;
  static constexpr auto int_cumprod = &kernels::cumprod;
  static constexpr auto int_cummin = &kernels::cummin;
  static constexpr auto int_cummax = &kernels::cummax;
  static constexpr auto int_reshape = &kernels::reshape;
  static constexpr auto int_permute = &kernels::permute;
  static constexpr auto int_swap_dims = &kernels::swap_dims;
  static constexpr auto int_flip = &kernels::flip;
  static constexpr auto int_expand = &kernels::expand;
  static constexpr auto int_slice = &kernels::slice;
  static constexpr auto int_slice_assign = &kernels::slice_assign;
  static constexpr auto int_cat = &kernels::cat;
  static constexpr auto int_repeat_dim = &kernels::repeat_dim;
  static constexpr auto int_unfold = &kernels::unfold;
  static constexpr auto int_gather = &kernels::gather;
  static constexpr auto int_scatter_add = &kernels::scatter_add;
  static constexpr auto int_select = &kernels::select;
  static constexpr auto int_select_add = &kernels::select_add;
  static constexpr auto int_sort = &kernels::sort;
  static constexpr auto int_sort_with_indices = &kernels::sort_with_indices;
  static constexpr auto int_argsort = &kernels::argsort;
};

}  // namespace scorch::backends::cpu

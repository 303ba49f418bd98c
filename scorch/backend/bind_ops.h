#pragma once
// The op-name bindings every kernel-namespace backend shares: a backend whose kernels live in one
// namespace (Cpu's kernels, LibTorch's ops) binds op_table.def's kind-prefixed names to them with
// these macros, so the name → kernel map is written once. The namespace must define each function
// named on the right (into_int/into_float map to cast; module unfold/fold to unfold4d/fold4d).

/// Binds every float op name to the same-named function of namespace ns.
#define SCORCH_BIND_FLOAT_OPS(ns) \
  static constexpr auto float_from_data = &ns::from_data; \
  static constexpr auto float_into_data = &ns::into_data; \
  static constexpr auto float_to_device = &ns::to_device; \
  static constexpr auto float_empty = &ns::empty; \
  static constexpr auto float_full = &ns::full; \
  static constexpr auto float_random = &ns::random; \
  static constexpr auto float_cast = &ns::cast; \
  static constexpr auto float_into_int = &ns::cast; \
  static constexpr auto float_add = &ns::add; \
  static constexpr auto float_sub = &ns::sub; \
  static constexpr auto float_mul = &ns::mul; \
  static constexpr auto float_div = &ns::div; \
  static constexpr auto float_remainder = &ns::remainder; \
  static constexpr auto float_powf = &ns::powf; \
  static constexpr auto float_atan2 = &ns::atan2; \
  static constexpr auto float_add_scalar = &ns::add_scalar; \
  static constexpr auto float_sub_scalar = &ns::sub_scalar; \
  static constexpr auto float_mul_scalar = &ns::mul_scalar; \
  static constexpr auto float_div_scalar = &ns::div_scalar; \
  static constexpr auto float_remainder_scalar = &ns::remainder_scalar; \
  static constexpr auto float_powf_scalar = &ns::powf_scalar; \
  static constexpr auto float_powi = &ns::powi; \
  static constexpr auto float_neg = &ns::neg; \
  static constexpr auto float_matmul = &ns::matmul; \
  static constexpr auto float_exp = &ns::exp; \
  static constexpr auto float_log = &ns::log; \
  static constexpr auto float_log1p = &ns::log1p; \
  static constexpr auto float_sqrt = &ns::sqrt; \
  static constexpr auto float_abs = &ns::abs; \
  static constexpr auto float_cos = &ns::cos; \
  static constexpr auto float_sin = &ns::sin; \
  static constexpr auto float_tan = &ns::tan; \
  static constexpr auto float_cosh = &ns::cosh; \
  static constexpr auto float_sinh = &ns::sinh; \
  static constexpr auto float_tanh = &ns::tanh; \
  static constexpr auto float_acos = &ns::acos; \
  static constexpr auto float_acosh = &ns::acosh; \
  static constexpr auto float_asin = &ns::asin; \
  static constexpr auto float_asinh = &ns::asinh; \
  static constexpr auto float_atan = &ns::atan; \
  static constexpr auto float_atanh = &ns::atanh; \
  static constexpr auto float_round = &ns::round; \
  static constexpr auto float_floor = &ns::floor; \
  static constexpr auto float_ceil = &ns::ceil; \
  static constexpr auto float_trunc = &ns::trunc; \
  static constexpr auto float_erf = &ns::erf; \
  static constexpr auto float_recip = &ns::recip; \
  static constexpr auto float_sign = &ns::sign; \
  static constexpr auto float_is_nan = &ns::is_nan; \
  static constexpr auto float_is_inf = &ns::is_inf; \
  static constexpr auto float_equal = &ns::equal; \
  static constexpr auto float_not_equal = &ns::not_equal; \
  static constexpr auto float_greater = &ns::greater; \
  static constexpr auto float_greater_equal = &ns::greater_equal; \
  static constexpr auto float_lower = &ns::lower; \
  static constexpr auto float_lower_equal = &ns::lower_equal; \
  static constexpr auto float_equal_elem = &ns::equal_elem; \
  static constexpr auto float_not_equal_elem = &ns::not_equal_elem; \
  static constexpr auto float_greater_elem = &ns::greater_elem; \
  static constexpr auto float_greater_equal_elem = &ns::greater_equal_elem; \
  static constexpr auto float_lower_elem = &ns::lower_elem; \
  static constexpr auto float_lower_equal_elem = &ns::lower_equal_elem; \
  static constexpr auto float_clamp = &ns::clamp; \
  static constexpr auto float_clamp_min = &ns::clamp_min; \
  static constexpr auto float_clamp_max = &ns::clamp_max; \
  static constexpr auto float_mask_where = &ns::mask_where; \
  static constexpr auto float_mask_fill = &ns::mask_fill; \
  static constexpr auto float_sum = &ns::sum; \
  static constexpr auto float_sum_dim = &ns::sum_dim; \
  static constexpr auto float_mean = &ns::mean; \
  static constexpr auto float_mean_dim = &ns::mean_dim; \
  static constexpr auto float_prod = &ns::prod; \
  static constexpr auto float_prod_dim = &ns::prod_dim; \
  static constexpr auto float_max = &ns::max; \
  static constexpr auto float_max_dim = &ns::max_dim; \
  static constexpr auto float_min = &ns::min; \
  static constexpr auto float_min_dim = &ns::min_dim; \
  static constexpr auto float_argmax = &ns::argmax; \
  static constexpr auto float_argmin = &ns::argmin; \
  static constexpr auto float_max_dim_with_indices = &ns::max_dim_with_indices; \
  static constexpr auto float_min_dim_with_indices = &ns::min_dim_with_indices; \
  static constexpr auto float_cumsum = &ns::cumsum; \
  static constexpr auto float_cumprod = &ns::cumprod; \
  static constexpr auto float_cummin = &ns::cummin; \
  static constexpr auto float_cummax = &ns::cummax; \
  static constexpr auto float_reshape = &ns::reshape; \
  static constexpr auto float_permute = &ns::permute; \
  static constexpr auto float_swap_dims = &ns::swap_dims; \
  static constexpr auto float_flip = &ns::flip; \
  static constexpr auto float_expand = &ns::expand; \
  static constexpr auto float_slice = &ns::slice; \
  static constexpr auto float_slice_assign = &ns::slice_assign; \
  static constexpr auto float_cat = &ns::cat; \
  static constexpr auto float_repeat_dim = &ns::repeat_dim; \
  static constexpr auto float_unfold = &ns::unfold; \
  static constexpr auto float_gather = &ns::gather; \
  static constexpr auto float_scatter_add = &ns::scatter_add; \
  static constexpr auto float_select = &ns::select; \
  static constexpr auto float_select_add = &ns::select_add; \
  static constexpr auto float_sort = &ns::sort; \
  static constexpr auto float_sort_with_indices = &ns::sort_with_indices; \
  static constexpr auto float_argsort = &ns::argsort; \
  static_assert(true)

/// Binds every int op name to the same-named function of namespace ns.
#define SCORCH_BIND_INT_OPS(ns) \
  static constexpr auto int_from_data = &ns::from_data; \
  static constexpr auto int_into_data = &ns::into_data; \
  static constexpr auto int_to_device = &ns::to_device; \
  static constexpr auto int_empty = &ns::empty; \
  static constexpr auto int_full = &ns::full; \
  static constexpr auto int_random = &ns::random; \
  static constexpr auto int_cast = &ns::cast; \
  static constexpr auto int_into_float = &ns::cast; \
  static constexpr auto int_add = &ns::add; \
  static constexpr auto int_sub = &ns::sub; \
  static constexpr auto int_mul = &ns::mul; \
  static constexpr auto int_div = &ns::div; \
  static constexpr auto int_remainder = &ns::remainder; \
  static constexpr auto int_add_scalar = &ns::add_scalar; \
  static constexpr auto int_sub_scalar = &ns::sub_scalar; \
  static constexpr auto int_mul_scalar = &ns::mul_scalar; \
  static constexpr auto int_div_scalar = &ns::div_scalar; \
  static constexpr auto int_remainder_scalar = &ns::remainder_scalar; \
  static constexpr auto int_powi = &ns::powi; \
  static constexpr auto int_powi_scalar = &ns::powi_scalar; \
  static constexpr auto int_neg = &ns::neg; \
  static constexpr auto int_matmul = &ns::matmul; \
  static constexpr auto int_abs = &ns::abs; \
  static constexpr auto int_sign = &ns::sign; \
  static constexpr auto int_equal = &ns::equal; \
  static constexpr auto int_not_equal = &ns::not_equal; \
  static constexpr auto int_greater = &ns::greater; \
  static constexpr auto int_greater_equal = &ns::greater_equal; \
  static constexpr auto int_lower = &ns::lower; \
  static constexpr auto int_lower_equal = &ns::lower_equal; \
  static constexpr auto int_equal_elem = &ns::equal_elem; \
  static constexpr auto int_not_equal_elem = &ns::not_equal_elem; \
  static constexpr auto int_greater_elem = &ns::greater_elem; \
  static constexpr auto int_greater_equal_elem = &ns::greater_equal_elem; \
  static constexpr auto int_lower_elem = &ns::lower_elem; \
  static constexpr auto int_lower_equal_elem = &ns::lower_equal_elem; \
  static constexpr auto int_bitwise_and = &ns::bitwise_and; \
  static constexpr auto int_bitwise_or = &ns::bitwise_or; \
  static constexpr auto int_bitwise_xor = &ns::bitwise_xor; \
  static constexpr auto int_bitwise_and_scalar = &ns::bitwise_and_scalar; \
  static constexpr auto int_bitwise_or_scalar = &ns::bitwise_or_scalar; \
  static constexpr auto int_bitwise_xor_scalar = &ns::bitwise_xor_scalar; \
  static constexpr auto int_bitwise_not = &ns::bitwise_not; \
  static constexpr auto int_bitwise_left_shift = &ns::bitwise_left_shift; \
  static constexpr auto int_bitwise_right_shift = &ns::bitwise_right_shift; \
  static constexpr auto int_bitwise_left_shift_scalar = &ns::bitwise_left_shift_scalar; \
  static constexpr auto int_bitwise_right_shift_scalar = &ns::bitwise_right_shift_scalar; \
  static constexpr auto int_clamp = &ns::clamp; \
  static constexpr auto int_clamp_min = &ns::clamp_min; \
  static constexpr auto int_clamp_max = &ns::clamp_max; \
  static constexpr auto int_mask_where = &ns::mask_where; \
  static constexpr auto int_mask_fill = &ns::mask_fill; \
  static constexpr auto int_sum = &ns::sum; \
  static constexpr auto int_sum_dim = &ns::sum_dim; \
  static constexpr auto int_mean = &ns::mean; \
  static constexpr auto int_mean_dim = &ns::mean_dim; \
  static constexpr auto int_prod = &ns::prod; \
  static constexpr auto int_prod_dim = &ns::prod_dim; \
  static constexpr auto int_max = &ns::max; \
  static constexpr auto int_max_dim = &ns::max_dim; \
  static constexpr auto int_min = &ns::min; \
  static constexpr auto int_min_dim = &ns::min_dim; \
  static constexpr auto int_argmax = &ns::argmax; \
  static constexpr auto int_argmin = &ns::argmin; \
  static constexpr auto int_max_dim_with_indices = &ns::max_dim_with_indices; \
  static constexpr auto int_min_dim_with_indices = &ns::min_dim_with_indices; \
  static constexpr auto int_cumsum = &ns::cumsum; \
  static constexpr auto int_cumprod = &ns::cumprod; \
  static constexpr auto int_cummin = &ns::cummin; \
  static constexpr auto int_cummax = &ns::cummax; \
  static constexpr auto int_reshape = &ns::reshape; \
  static constexpr auto int_permute = &ns::permute; \
  static constexpr auto int_swap_dims = &ns::swap_dims; \
  static constexpr auto int_flip = &ns::flip; \
  static constexpr auto int_expand = &ns::expand; \
  static constexpr auto int_slice = &ns::slice; \
  static constexpr auto int_slice_assign = &ns::slice_assign; \
  static constexpr auto int_cat = &ns::cat; \
  static constexpr auto int_repeat_dim = &ns::repeat_dim; \
  static constexpr auto int_unfold = &ns::unfold; \
  static constexpr auto int_gather = &ns::gather; \
  static constexpr auto int_scatter_add = &ns::scatter_add; \
  static constexpr auto int_select = &ns::select; \
  static constexpr auto int_select_add = &ns::select_add; \
  static constexpr auto int_sort = &ns::sort; \
  static constexpr auto int_sort_with_indices = &ns::sort_with_indices; \
  static constexpr auto int_argsort = &ns::argsort; \
  static_assert(true)

/// Binds every bool op name to the same-named function of namespace ns.
#define SCORCH_BIND_BOOL_OPS(ns) \
  static constexpr auto bool_from_data = &ns::from_data; \
  static constexpr auto bool_into_data = &ns::into_data; \
  static constexpr auto bool_to_device = &ns::to_device; \
  static constexpr auto bool_empty = &ns::empty; \
  static constexpr auto bool_full = &ns::full; \
  static constexpr auto bool_into_int = &ns::cast; \
  static constexpr auto bool_into_float = &ns::cast; \
  static constexpr auto bool_equal = &ns::equal; \
  static constexpr auto bool_not_equal = &ns::not_equal; \
  static constexpr auto bool_logical_not = &ns::logical_not; \
  static constexpr auto bool_logical_and = &ns::logical_and; \
  static constexpr auto bool_logical_or = &ns::logical_or; \
  static constexpr auto bool_logical_xor = &ns::logical_xor; \
  static constexpr auto bool_mask_where = &ns::mask_where; \
  static constexpr auto bool_mask_fill = &ns::mask_fill; \
  static constexpr auto bool_argwhere = &ns::argwhere; \
  static constexpr auto bool_reshape = &ns::reshape; \
  static constexpr auto bool_permute = &ns::permute; \
  static constexpr auto bool_swap_dims = &ns::swap_dims; \
  static constexpr auto bool_flip = &ns::flip; \
  static constexpr auto bool_expand = &ns::expand; \
  static constexpr auto bool_slice = &ns::slice; \
  static constexpr auto bool_slice_assign = &ns::slice_assign; \
  static constexpr auto bool_cat = &ns::cat; \
  static constexpr auto bool_repeat_dim = &ns::repeat_dim; \
  static constexpr auto bool_unfold = &ns::unfold; \
  static constexpr auto bool_gather = &ns::gather; \
  static constexpr auto bool_select = &ns::select; \
  static_assert(true)

/// Binds every activation op name to the same-named function of namespace ns.
#define SCORCH_BIND_ACTIVATION_OPS(ns) \
  static constexpr auto float_relu = &ns::relu; \
  static constexpr auto float_leaky_relu = &ns::leaky_relu; \
  static constexpr auto float_gelu = &ns::gelu; \
  static constexpr auto float_sigmoid = &ns::sigmoid; \
  static constexpr auto float_log_sigmoid = &ns::log_sigmoid; \
  static constexpr auto float_hard_sigmoid = &ns::hard_sigmoid; \
  static constexpr auto float_softmax = &ns::softmax; \
  static constexpr auto float_log_softmax = &ns::log_softmax; \
  static_assert(true)

/// Binds every module op name to the same-named function of namespace ns.
#define SCORCH_BIND_MODULE_OPS(ns) \
  static constexpr auto module_conv = &ns::conv; \
  static constexpr auto module_conv_backward = &ns::conv_backward; \
  static constexpr auto module_conv_transpose = &ns::conv_transpose; \
  static constexpr auto module_conv_transpose_backward = &ns::conv_transpose_backward; \
  static constexpr auto module_avg_pool = &ns::avg_pool; \
  static constexpr auto module_avg_pool_backward = &ns::avg_pool_backward; \
  static constexpr auto module_max_pool_with_indices = &ns::max_pool_with_indices; \
  static constexpr auto module_max_pool_backward = &ns::max_pool_backward; \
  static constexpr auto module_adaptive_avg_pool = &ns::adaptive_avg_pool; \
  static constexpr auto module_adaptive_avg_pool_backward = &ns::adaptive_avg_pool_backward; \
  static constexpr auto module_adaptive_max_pool_with_indices = &ns::adaptive_max_pool_with_indices; \
  static constexpr auto module_interpolate = &ns::interpolate; \
  static constexpr auto module_interpolate_backward = &ns::interpolate_backward; \
  static constexpr auto module_unfold = &ns::unfold4d; \
  static constexpr auto module_fold = &ns::fold4d; \
  static constexpr auto module_attention = &ns::attention; \
  static_assert(true)


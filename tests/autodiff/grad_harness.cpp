#include "grad_harness.h"

namespace scorch::gradcheck {

GradInputs::GradInputs(const std::vector<TensorData>& data) : data_(data), leaves_(data.size()) {
  for (size_t k = 0; k < data.size(); ++k) {
    if (!is_float(data[k].dtype())) continue;
    leaves_[k] = AD::float_set_require_grad(AD::float_from_data(data[k], Dyn::Device{}), true);
    float_inputs_.push_back(k);
  }
}

const AD::FloatTensor& GradInputs::leaf(size_t i) const {
  if (i >= leaves_.size() || !leaves_[i].node)
    throw ValueError("GradInputs", "input " + std::to_string(i) + " is not a float input");
  return leaves_[i];
}

std::vector<GradCase> all_grad_cases() {
  std::vector<GradCase> cases;
  add_math_grad_cases(cases);
  add_reduce_grad_cases(cases);
  add_layout_grad_cases(cases);
  add_module_grad_cases(cases);
  return cases;
}

const std::vector<std::string>& non_differentiable_ops() {
  static const std::vector<std::string> ops = {"float_from_data",
                                               "float_into_data",
                                               "float_empty",
                                               "float_full",
                                               "float_zeros",
                                               "float_ones",
                                               "float_random",
                                               "float_random_seed",
                                               "float_into_int",
                                               "float_equal",
                                               "float_not_equal",
                                               "float_greater",
                                               "float_greater_equal",
                                               "float_lower",
                                               "float_lower_equal",
                                               "float_equal_elem",
                                               "float_not_equal_elem",
                                               "float_greater_elem",
                                               "float_greater_equal_elem",
                                               "float_lower_elem",
                                               "float_lower_equal_elem",
                                               "float_is_nan",
                                               "float_is_inf",
                                               "float_argmax",
                                               "float_argmin",
                                               "float_any",
                                               "float_any_dim",
                                               "float_all",
                                               "float_all_dim",
                                               "float_argsort",
                                               "module_conv_backward",
                                               "module_conv_transpose_backward",
                                               "module_avg_pool_backward",
                                               "module_max_pool_backward",
                                               "module_adaptive_avg_pool_backward",
                                               "module_interpolate_backward",
                                               "module_attention_backward",
                                               "module_cross_entropy_backward",
                                               "module_linear_backward",
                                               "module_layer_norm_backward",
                                               "module_rms_norm_backward",
                                               "module_adam_update",
                                               "module_adam_update_many",
                                               "module_sgd_update_many",
                                               "module_quantize",
                                               "module_dequantize",
                                               "module_quantized_linear"};
  return ops;
}

}  // namespace scorch::gradcheck

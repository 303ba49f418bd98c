#include "grad_harness.h"

#include "scorch/gen/ops_without_gradient.h"

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
  static const std::vector<std::string> ops(kOpsWithoutGradient.begin(), kOpsWithoutGradient.end());
  return ops;
}

}  // namespace scorch::gradcheck

#pragma once
// The gradient-check harness, compiled once for Autodiff<Dyn> and run on the stack --stack names (default cpu;
// tests/support/stack_flag.h). A case maps inputs to one output tensor (flattened to rank 1);
// the loss is Σ_k out_k · w_k with w_k = sin(0.7·k + 0.3), the same weights the fixture script
// uses. Every float input is an f64 leaf that requires grad; its gradient is checked against
// PyTorch's (fixtures/gradients.json, from gen_grad_fixtures.py) and against central finite
// differences, with and without gradient checkpointing.
#include <functional>
#include <string>
#include <vector>

#include <scorch/scorch.hpp>
#include <scorch/stacks/dyn/autodiff.h>

namespace scorch::gradcheck {

using AD = Autodiff<Dyn>;

/// The inputs of one run of a case: float inputs are tracked leaves (the same leaf every time
/// an input is asked for), int and bool inputs plain tensors.
class GradInputs {
 public:
  explicit GradInputs(const std::vector<TensorData>& data);
  /// Float input i as a rank-D tensor that requires grad.
  template <size_t D> Tensor<AD, D> f(size_t i) const { return Tensor<AD, D>::from_primitive(leaf(i)); }
  /// Int input i.
  template <size_t D> Tensor<AD, D, Int> i(size_t i) const { return Tensor<AD, D, Int>::from_data(data_.at(i)); }
  /// Bool input i.
  template <size_t D> Tensor<AD, D, Bool> b(size_t i) const { return Tensor<AD, D, Bool>::from_data(data_.at(i)); }
  /// The leaf of float input i (for reading its gradient).
  const AD::FloatTensor& leaf(size_t i) const;
  /// Indices of the float inputs, in order.
  const std::vector<size_t>& float_inputs() const { return float_inputs_; }

 private:
  const std::vector<TensorData>& data_;
  std::vector<AD::FloatTensor> leaves_;
  std::vector<size_t> float_inputs_;
};

/// A case's body: inputs to one output, flattened.
using GradFn = std::function<Tensor<AD, 1>(const GradInputs&)>;

/// A registered case: its fixture name, the ops (op_table names) whose backward it checks, its body.
struct GradCase {
  std::string name;
  std::vector<std::string> covers;
  GradFn fn;
};

/// t flattened to rank 1.
template <size_t D> Tensor<AD, 1> flat(const Tensor<AD, D>& t) { return t.template reshape<1>({-1}); }
/// The flattened parts, concatenated.
inline Tensor<AD, 1> join(const std::vector<Tensor<AD, 1>>& parts) { return Tensor<AD, 1>::cat(parts, 0); }

/// Every gradient case (grad_cases_*.cpp).
std::vector<GradCase> all_grad_cases();
void add_math_grad_cases(std::vector<GradCase>& cases);
void add_reduce_grad_cases(std::vector<GradCase>& cases);
void add_layout_grad_cases(std::vector<GradCase>& cases);
void add_module_grad_cases(std::vector<GradCase>& cases);

/// Ops of op_table.txt whose grad attribute is none (creation, comparisons, arg-reductions, the
/// backward helpers); every other float_ and module_ op needs a gradient case.
const std::vector<std::string>& non_differentiable_ops();

}  // namespace scorch::gradcheck

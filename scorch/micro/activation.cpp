// Activations and shape ops (activation.h).
#include "scorch/micro/activation.h"

#include <cmath>

#include "scorch/backends/common/scalar_ops.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {

// The activations are the op table's functors (backends/common/scalar_ops.h), the ones Cpu's and Cuda's kernels map:
// one definition of the math, so a micro model computes what the Cpu backend computes.
float Gelu::apply(float x) { return scalar_ops::Gelu{}(x); }
float Sigmoid::apply(float x) { return scalar_ops::Sigmoid{}(x); }
float Tanh::apply(float x) { return scalar_ops::Tanh{}(x); }

Status Softmax::infer(const Shape* in, Shape& out) const {
  if (in[0].rank() == 0) return (Message(Code::shape, name()) << "input " << in[0] << " needs a dim");
  out = in[0];
  return {};
}

Status Softmax::forward(const Args& args) const {
  size_t n = args.in_shape[0].numel();
  for (size_t i = 0; i < n; ++i) args.out[i] = args.in[0][i];
  apply(args.out, args.in_shape[0].rows(), args.in_shape[0].last());
  return {};
}

void Softmax::apply(float* x, size_t rows, uint32_t n) {
  for (size_t r = 0; r < rows; ++r, x += n) {
    float top = -__builtin_inff(), sum = 0.0f;
    for (uint32_t j = 0; j < n; ++j) top = x[j] > top ? x[j] : top;
    for (uint32_t j = 0; j < n; ++j) sum += (x[j] = std::exp(x[j] - top));
    for (uint32_t j = 0; j < n; ++j) x[j] /= sum;
  }
}

Status Flatten::infer(const Shape* in, Shape& out) const {
  if (start_dim_ >= in[0].rank())
    return (Message(Code::shape, name()) << "start_dim " << int64_t(start_dim_) << " is not a dim of " << in[0]);
  out = Shape{};
  for (uint32_t i = 0; i < start_dim_; ++i) out = out.append(in[0][i]);
  uint32_t merged = 1;
  for (uint32_t i = start_dim_; i < in[0].rank(); ++i) merged *= in[0][i];
  out = out.append(merged);
  return {};
}

Status Add::infer(const Shape* in, Shape& out) const {
  if (!(in[0] == in[1])) return (Message(Code::shape, name()) << "operands " << in[0] << " and " << in[1] << " differ");
  out = in[0];
  return {};
}

Status Add::forward(const Args& args) const {
  size_t n = args.in_shape[0].numel();
  for (size_t i = 0; i < n; ++i) args.out[i] = args.in[0][i] + args.in[1][i];
  return {};
}

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro

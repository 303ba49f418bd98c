#pragma once
// Definitions of UnaryOps<B>; included by the translation unit that instantiates Autodiff<B>.
#include "scorch/autodiff/ops/unary_ops.h"
#include "scorch/gen/autodiff_rules_unary.h"

namespace scorch::autodiff {

// exp, log, ... and the rounding ops: their rules are written in the op table (grad: unary, flat).

template <class B> AutodiffTensor<B> UnaryOps<B>::relu(T x) {
  return R::unary(
      "relu", Bound::Memory, std::move(x), kOut, [](auto in) { return I::relu(std::move(in[0])); },
      [](auto& c) {
        c.to(0, [&] { return I::mask_fill(c.grad(), I::lower_equal_elem(c.output(), Scalar(0)), Scalar(0)); });
      });
}
template <class B> AutodiffTensor<B> UnaryOps<B>::leaky_relu(T x, Scalar slope) {
  return R::unary(
      "leaky_relu", Bound::Memory, std::move(x), in(0),
      [slope](auto in) { return I::leaky_relu(std::move(in[0]), slope); },
      [slope](auto& c) {
        c.to(0, [&] {
          return I::mask_where(c.grad(), I::lower_equal_elem(c.input(0), Scalar(0)), I::mul_scalar(c.grad(), slope));
        });
      });
}
// clamp(αx + β, 0, 1): the gradient is α inside (0, 1), else 0.
template <class B> AutodiffTensor<B> UnaryOps<B>::hard_sigmoid(T x, Scalar alpha, Scalar beta) {
  return R::unary(
      "hard_sigmoid", Bound::Memory, std::move(x), in(0),
      [alpha, beta](auto in) { return I::hard_sigmoid(std::move(in[0]), alpha, beta); },
      [alpha, beta](auto& c) {
        c.to(0, [&] {
          P pre = I::add_scalar(I::mul_scalar(c.input(0), alpha), beta);
          auto outside =
              KindOps<B, Bool>::logical_or(I::lower_equal_elem(pre, Scalar(0)), I::greater_equal_elem(pre, Scalar(1)));
          return I::mask_fill(I::mul_scalar(c.grad(), alpha), std::move(outside), Scalar(0));
        });
      });
}
// y = softmax(x): dx = y ⊙ (g − Σ g⊙y).
template <class B> AutodiffTensor<B> UnaryOps<B>::softmax(T x, size_t dim) {
  return R::unary(
      "softmax", Bound::Memory, std::move(x), kOut, [dim](auto in) { return I::softmax(std::move(in[0]), dim); },
      [dim](auto& c) {
        c.to(0, [&] {
          P y = c.output();
          P dot = I::sum_dim(I::mul(c.grad(), y), dim);
          return I::mul(std::move(y), I::sub(c.grad(), std::move(dot)));
        });
      });
}
// y = log_softmax(x): dx = g − exp(y) Σ g.
template <class B> AutodiffTensor<B> UnaryOps<B>::log_softmax(T x, size_t dim) {
  return R::unary(
      "log_softmax", Bound::Memory, std::move(x), kOut,
      [dim](auto in) { return I::log_softmax(std::move(in[0]), dim); },
      [dim](auto& c) {
        c.to(0, [&] { return I::sub(c.grad(), I::mul(I::exp(c.output()), I::sum_dim(c.grad(), dim))); });
      });
}

}  // namespace scorch::autodiff

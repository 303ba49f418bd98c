#pragma once
// Definitions of UnaryOps<B>; included by the translation unit that instantiates Autodiff<B>.
#include "scorch/autodiff/ops/unary_ops.h"

namespace scorch::autodiff {

// An elementwise op whose gradient is grad * DERIV, where DERIV may read x (the input) and y
// (the output); NEEDS says which of them the op keeps.
#define SCORCH_AD_UNARY(op, NEEDS, DERIV)                                                         \
  template <class B> AutodiffTensor<B> UnaryOps<B>::op(T x) {                                     \
    return R::unary(                                                                              \
        #op, Bound::Memory, std::move(x), NEEDS, [](auto in) { return I::op(std::move(in[0])); }, \
        [](auto& c) {                                                                             \
          c.to(0, [&] {                                                                           \
            [[maybe_unused]] auto x = [&] { return c.input(0); };                                 \
            [[maybe_unused]] auto y = [&] { return c.output(); };                                 \
            return I::mul(c.grad(), DERIV);                                                       \
          });                                                                                     \
        });                                                                                       \
  }
// An op whose gradient is zero (rounding, sign).
#define SCORCH_AD_FLAT(op)                                                                    \
  template <class B> AutodiffTensor<B> UnaryOps<B>::op(T x) {                                 \
    return R::unary(                                                                          \
        #op, Bound::Memory, std::move(x), 0, [](auto in) { return I::op(std::move(in[0])); }, \
        [](auto& c) { c.to(0, [&] { return zeros(c.shape(0), c.grad()); }); });               \
  }

SCORCH_AD_UNARY(exp, kOut, y())
SCORCH_AD_UNARY(log, in(0), I::recip(x()))
SCORCH_AD_UNARY(log1p, in(0), I::recip(I::add_scalar(x(), Scalar(1))))
SCORCH_AD_UNARY(logit, in(0), I::recip(I::mul(x(), rsub(1, x()))))
SCORCH_AD_UNARY(sqrt, kOut, I::div_scalar(I::recip(y()), Scalar(2)))
SCORCH_AD_UNARY(abs, in(0), I::sign(x()))
SCORCH_AD_UNARY(cos, in(0), I::neg(I::sin(x())))
SCORCH_AD_UNARY(sin, in(0), I::cos(x()))
SCORCH_AD_UNARY(tan, kOut, I::add_scalar(square(y()), Scalar(1)))
SCORCH_AD_UNARY(cosh, in(0), I::sinh(x()))
SCORCH_AD_UNARY(sinh, in(0), I::cosh(x()))
SCORCH_AD_UNARY(tanh, kOut, rsub(1, square(y())))
SCORCH_AD_UNARY(acos, in(0), I::neg(I::recip(I::sqrt(rsub(1, square(x()))))))
SCORCH_AD_UNARY(acosh, in(0), I::recip(I::sqrt(I::sub_scalar(square(x()), Scalar(1)))))
SCORCH_AD_UNARY(asin, in(0), I::recip(I::sqrt(rsub(1, square(x())))))
SCORCH_AD_UNARY(asinh, in(0), I::recip(I::sqrt(I::add_scalar(square(x()), Scalar(1)))))
SCORCH_AD_UNARY(atan, in(0), I::recip(I::add_scalar(square(x()), Scalar(1))))
SCORCH_AD_UNARY(atanh, in(0), I::recip(rsub(1, square(x()))))
SCORCH_AD_UNARY(erf, in(0), I::mul_scalar(I::exp(I::neg(square(x()))), Scalar(2 / std::sqrt(std::numbers::pi))))
SCORCH_AD_UNARY(recip, kOut, I::neg(square(y())))
SCORCH_AD_UNARY(sigmoid, kOut, I::mul(y(), rsub(1, y())))
SCORCH_AD_UNARY(log_sigmoid, in(0), I::sigmoid(I::neg(x())))
// Φ(x) + x·φ(x) for the exact (erf) GELU.
SCORCH_AD_UNARY(gelu, in(0),
                I::add(I::mul_scalar(I::add_scalar(I::erf(I::div_scalar(x(), Scalar(std::numbers::sqrt2))), Scalar(1)),
                                     Scalar(0.5)),
                       I::mul(x(), I::mul_scalar(I::exp(I::mul_scalar(square(x()), Scalar(-0.5))),
                                                 Scalar(0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2)))))
SCORCH_AD_FLAT(round)
SCORCH_AD_FLAT(floor)
SCORCH_AD_FLAT(ceil)
SCORCH_AD_FLAT(trunc)
SCORCH_AD_FLAT(sign)

#undef SCORCH_AD_UNARY
#undef SCORCH_AD_FLAT

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

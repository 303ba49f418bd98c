#pragma once
// Definitions of BasicOps<B>'s differentiable ops: arithmetic, matmul, clamps and masks.
#include "scorch/autodiff/ops/basic_ops.h"
#include "scorch/gen/autodiff_rules_basic.h"

namespace scorch::autodiff {

template <class B> AutodiffTensor<B> BasicOps<B>::add(T a, T b) {
  return R::binary(
      "add", Bound::Memory, std::move(a), std::move(b), {0, 0},
      [](auto in) { return I::add(std::move(in[0]), std::move(in[1])); },
      [](auto& c) {
        c.to(0, [&] { return c.grad(); });
        c.to(1, [&] { return c.grad(); });
      });
}
template <class B> AutodiffTensor<B> BasicOps<B>::sub(T a, T b) {
  return R::binary(
      "sub", Bound::Memory, std::move(a), std::move(b), {0, 0},
      [](auto in) { return I::sub(std::move(in[0]), std::move(in[1])); },
      [](auto& c) {
        c.to(0, [&] { return c.grad(); });
        c.to(1, [&] { return I::neg(c.grad()); });
      });
}
template <class B> AutodiffTensor<B> BasicOps<B>::mul(T a, T b) {
  return R::binary(
      "mul", Bound::Memory, std::move(a), std::move(b), {in(1), in(0)},
      [](auto in) { return I::mul(std::move(in[0]), std::move(in[1])); },
      [](auto& c) {
        c.to(0, [&] { return I::mul(c.grad(), c.input(1)); });
        c.to(1, [&] { return I::mul(c.grad(), c.input(0)); });
      });
}
template <class B> AutodiffTensor<B> BasicOps<B>::div(T a, T b) {
  return R::binary(
      "div", Bound::Memory, std::move(a), std::move(b), {in(1), in(0) | in(1)},
      [](auto in) { return I::div(std::move(in[0]), std::move(in[1])); },
      [](auto& c) {
        c.to(0, [&] { return I::div(c.grad(), c.input(1)); });
        c.to(1, [&] {
          P den = c.input(1);
          return I::neg(I::div(I::mul(c.grad(), c.input(0)), square(den)));
        });
      });
}
template <class B> AutodiffTensor<B> BasicOps<B>::remainder(T a, T b) {
  return R::binary(
      "remainder", Bound::Memory, std::move(a), std::move(b), {0, in(0) | in(1)},
      [](auto in) { return I::remainder(std::move(in[0]), std::move(in[1])); },
      [](auto& c) {
        c.to(0, [&] { return c.grad(); });
        c.to(1, [&] { return I::neg(I::mul(c.grad(), I::floor(I::div(c.input(0), c.input(1))))); });
      });
}
// d/da a^b = b a^(b-1) (0 where b == 0); d/db a^b = a^b ln a (0 where a == 0 and b >= 0), as PyTorch.
template <class B> AutodiffTensor<B> BasicOps<B>::powf(T a, T b) {
  return R::binary(
      "powf", Bound::Memory, std::move(a), std::move(b), {in(0) | in(1), in(0) | in(1) | kOut},
      [](auto in) { return I::powf(std::move(in[0]), std::move(in[1])); },
      [](auto& c) {
        c.to(0, [&] {
          P e = c.input(1);
          P d = I::mul(e, I::powf(c.input(0), I::sub_scalar(e, Scalar(1))));
          return I::mask_fill(I::mul(c.grad(), std::move(d)), I::equal_elem(e, Scalar(0)), Scalar(0));
        });
        c.to(1, [&] {
          P base = c.input(0);
          auto zero_base = KindOps<B, Bool>::logical_and(I::equal_elem(base, Scalar(0)),
                                                         I::greater_equal_elem(c.input(1), Scalar(0)));
          P d = I::mul(c.output(), I::log(base));
          return I::mul(c.grad(), I::mask_fill(std::move(d), std::move(zero_base), Scalar(0)));
        });
      });
}
template <class B> AutodiffTensor<B> BasicOps<B>::powi(T a, IntP b) {
  DType dtype = a.dtype();
  return powf(std::move(a), int_into_float(std::move(b), dtype));
}
template <class B> AutodiffTensor<B> BasicOps<B>::atan2(T a, T b) {
  return R::binary(
      "atan2", Bound::Memory, std::move(a), std::move(b), {in(0) | in(1), in(0) | in(1)},
      [](auto in) { return I::atan2(std::move(in[0]), std::move(in[1])); },
      [](auto& c) {
        P y = c.input(0), x = c.input(1);
        P den = I::add(square(y), square(x));
        c.to(0, [&] { return I::div(I::mul(c.grad(), x), den); });
        c.to(1, [&] { return I::neg(I::div(I::mul(c.grad(), y), den)); });
      });
}

// ---- scalar right-hand sides
template <class B> AutodiffTensor<B> BasicOps<B>::add_scalar(T a, Scalar s) {
  return R::unary(
      "add_scalar", Bound::Memory, std::move(a), 0, [s](auto in) { return I::add_scalar(std::move(in[0]), s); },
      [](auto& c) { c.to(0, [&] { return c.grad(); }); });
}
template <class B> AutodiffTensor<B> BasicOps<B>::sub_scalar(T a, Scalar s) {
  return R::unary(
      "sub_scalar", Bound::Memory, std::move(a), 0, [s](auto in) { return I::sub_scalar(std::move(in[0]), s); },
      [](auto& c) { c.to(0, [&] { return c.grad(); }); });
}
template <class B> AutodiffTensor<B> BasicOps<B>::mul_scalar(T a, Scalar s) {
  return R::unary(
      "mul_scalar", Bound::Memory, std::move(a), 0, [s](auto in) { return I::mul_scalar(std::move(in[0]), s); },
      [s](auto& c) { c.to(0, [&] { return I::mul_scalar(c.grad(), s); }); });
}
template <class B> AutodiffTensor<B> BasicOps<B>::div_scalar(T a, Scalar s) {
  return R::unary(
      "div_scalar", Bound::Memory, std::move(a), 0, [s](auto in) { return I::div_scalar(std::move(in[0]), s); },
      [s](auto& c) { c.to(0, [&] { return I::div_scalar(c.grad(), s); }); });
}
template <class B> AutodiffTensor<B> BasicOps<B>::remainder_scalar(T a, Scalar s) {
  return R::unary(
      "remainder_scalar", Bound::Memory, std::move(a), 0,
      [s](auto in) { return I::remainder_scalar(std::move(in[0]), s); },
      [](auto& c) { c.to(0, [&] { return c.grad(); }); });
}
template <class B> AutodiffTensor<B> BasicOps<B>::powf_scalar(T a, Scalar s) {
  return R::unary(
      "powf_scalar", Bound::Memory, std::move(a), in(0), [s](auto in) { return I::powf_scalar(std::move(in[0]), s); },
      [s](auto& c) {
        c.to(0, [&] {
          if (s.to_double() == 0) return zeros(c.shape(0), c.grad());
          P d = I::mul_scalar(I::powf_scalar(c.input(0), Scalar(s.to_double() - 1)), s);
          return I::mul(c.grad(), std::move(d));
        });
      });
}
template <class B> AutodiffTensor<B> BasicOps<B>::neg(T x) {
  return R::unary(
      "neg", Bound::Memory, std::move(x), 0, [](auto in) { return I::neg(std::move(in[0])); },
      [](auto& c) { c.to(0, [&] { return I::neg(c.grad()); }); });
}
// C = A·B over broadcast batches: dA = dC·Bᵀ, dB = Aᵀ·dC, each summed over the batch dims it broadcast.
template <class B> AutodiffTensor<B> BasicOps<B>::matmul(T a, T b) {
  return R::binary(
      "matmul", Bound::Compute, std::move(a), std::move(b), {in(1), in(0)},
      [](auto in) { return I::matmul(std::move(in[0]), std::move(in[1])); },
      [](auto& c) {
        size_t r = c.grad().shape().rank();
        c.to(0, [&] { return I::matmul(c.grad(), I::swap_dims(c.input(1), r - 2, r - 1)); });
        c.to(1, [&] { return I::matmul(I::swap_dims(c.input(0), r - 2, r - 1), c.grad()); });
      });
}

// ---- clamps and masks: the gradient passes where the value was not clamped (PyTorch's rule)
template <class B> AutodiffTensor<B> BasicOps<B>::clamp(T x, Scalar lo, Scalar hi) {
  return R::unary(
      "clamp", Bound::Memory, std::move(x), in(0), [lo, hi](auto in) { return I::clamp(std::move(in[0]), lo, hi); },
      [lo, hi](auto& c) {
        c.to(0, [&] {
          P v = c.input(0);
          auto kept = KindOps<B, Bool>::logical_and(I::greater_equal_elem(v, lo), I::lower_equal_elem(v, hi));
          return I::mask_fill(c.grad(), KindOps<B, Bool>::logical_not(std::move(kept)), Scalar(0));
        });
      });
}
template <class B> AutodiffTensor<B> BasicOps<B>::clamp_min(T x, Scalar lo) {
  return R::unary(
      "clamp_min", Bound::Memory, std::move(x), in(0), [lo](auto in) { return I::clamp_min(std::move(in[0]), lo); },
      [lo](auto& c) {
        c.to(0, [&] {
          return I::mask_fill(c.grad(), KindOps<B, Bool>::logical_not(I::greater_equal_elem(c.input(0), lo)),
                              Scalar(0));
        });
      });
}
template <class B> AutodiffTensor<B> BasicOps<B>::clamp_max(T x, Scalar hi) {
  return R::unary(
      "clamp_max", Bound::Memory, std::move(x), in(0), [hi](auto in) { return I::clamp_max(std::move(in[0]), hi); },
      [hi](auto& c) {
        c.to(0, [&] {
          return I::mask_fill(c.grad(), KindOps<B, Bool>::logical_not(I::lower_equal_elem(c.input(0), hi)), Scalar(0));
        });
      });
}
template <class B> AutodiffTensor<B> BasicOps<B>::mask_where(T x, BoolP mask, T values) {
  return R::binary(
      "mask_where", Bound::Memory, std::move(x), std::move(values), {0, 0},
      [mask](auto in) { return I::mask_where(std::move(in[0]), mask, std::move(in[1])); },
      [mask](auto& c) {
        c.to(0, [&] { return I::mask_fill(c.grad(), mask, Scalar(0)); });
        c.to(1, [&] { return I::mask_fill(c.grad(), KindOps<B, Bool>::logical_not(mask), Scalar(0)); });
      });
}
template <class B> AutodiffTensor<B> BasicOps<B>::mask_fill(T x, BoolP mask, Scalar value) {
  return R::unary(
      "mask_fill", Bound::Memory, std::move(x), 0,
      [mask, value](auto in) { return I::mask_fill(std::move(in[0]), mask, value); },
      [mask](auto& c) { c.to(0, [&] { return I::mask_fill(c.grad(), mask, Scalar(0)); }); });
}

}  // namespace scorch::autodiff

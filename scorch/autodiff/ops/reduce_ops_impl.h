#pragma once
// Definitions of ReduceOps<B>; included by the translation unit that instantiates Autodiff<B>.
#include "scorch/autodiff/ops/layout_ops.h"
#include "scorch/autodiff/ops/reduce_ops.h"

namespace scorch::autodiff {

template <class B> AutodiffTensor<B> ReduceOps<B>::sum(T x) {
  return R::unary(
      "sum", Bound::Memory, std::move(x), 0, [](auto in) { return I::sum(std::move(in[0])); },
      [](auto& c) { c.to(0, [&] { return expand_to(c.grad(), c.shape(0)); }); });
}
template <class B> AutodiffTensor<B> ReduceOps<B>::sum_dim(T x, size_t dim) {
  return R::unary(
      "sum_dim", Bound::Memory, std::move(x), 0, [dim](auto in) { return I::sum_dim(std::move(in[0]), dim); },
      [](auto& c) { c.to(0, [&] { return expand_to(c.grad(), c.shape(0)); }); });
}
template <class B> AutodiffTensor<B> ReduceOps<B>::mean(T x) {
  return R::unary(
      "mean", Bound::Memory, std::move(x), 0, [](auto in) { return I::mean(std::move(in[0])); },
      [](auto& c) {
        auto n = static_cast<double>(c.shape(0).num_elements());
        c.to(0, [&] { return expand_to(I::div_scalar(c.grad(), Scalar(n)), c.shape(0)); });
      });
}
template <class B> AutodiffTensor<B> ReduceOps<B>::mean_dim(T x, size_t dim) {
  return R::unary(
      "mean_dim", Bound::Memory, std::move(x), 0, [dim](auto in) { return I::mean_dim(std::move(in[0]), dim); },
      [dim](auto& c) {
        auto n = static_cast<double>(c.shape(0)[dim]);
        c.to(0, [&] { return expand_to(I::div_scalar(c.grad(), Scalar(n)), c.shape(0)); });
      });
}

// left[i] = Π_{k<i} x_k and right[i] = Π_{k>i} x_k from cumulative products of x and flipped x.
template <class B> typename B::FloatTensor ReduceOps<B>::others_product(const P& x, size_t dim) {
  size_t n = x.shape()[dim];
  if (n == 0) return x;  // nothing to multiply: the (empty) result has x's shape
  Shape one = x.shape();
  one[dim] = 1;
  P ones = I::full(one, Scalar(1), x.device(), x.dtype());
  if (n == 1) return ones;
  SliceRanges head(x.shape().rank()), tail(x.shape().rank());
  for (size_t d = 0; d < head.size(); ++d) head[d] = tail[d] = {0, x.shape()[d], 1};
  head[dim] = {0, n - 1, 1};
  tail[dim] = {1, n, 1};
  P left = I::cat(std::vector<P>{ones, I::slice(I::cumprod(x, dim), head)}, dim);
  P reversed = I::flip(I::cumprod(I::flip(x, std::vector<size_t>{dim}), dim), std::vector<size_t>{dim});
  P right = I::cat(std::vector<P>{I::slice(std::move(reversed), tail), ones}, dim);
  return I::mul(std::move(left), std::move(right));
}
template <class B> AutodiffTensor<B> ReduceOps<B>::prod_dim(T x, size_t dim) {
  return R::unary(
      "prod_dim", Bound::Memory, std::move(x), in(0), [dim](auto in) { return I::prod_dim(std::move(in[0]), dim); },
      [dim](auto& c) {
        c.to(0, [&] { return I::mul(expand_to(c.grad(), c.shape(0)), others_product(c.input(0), dim)); });
      });
}
template <class B> AutodiffTensor<B> ReduceOps<B>::prod(T x) {
  return R::unary(
      "prod", Bound::Memory, std::move(x), in(0), [](auto in) { return I::prod(std::move(in[0])); },
      [](auto& c) {
        c.to(0, [&] {
          const Shape& shape = c.shape(0);
          P flat = I::reshape(c.input(0), Shape{shape.num_elements()});
          P others = I::reshape(others_product(flat, 0), shape);
          return I::mul(expand_to(c.grad(), shape), std::move(others));
        });
      });
}

template <class B>
std::pair<AutodiffTensor<B>, typename B::IntTensor> ReduceOps<B>::extreme_with_indices(const char* name, T x,
                                                                                       size_t dim, bool largest) {
  auto [values, indices] =
      largest ? I::max_dim_with_indices(x.primitive, dim) : I::min_dim_with_indices(x.primitive, dim);
  T out = R::computed(name, std::array<T, 1>{std::move(x)}, {0}, std::move(values), [dim, indices = indices](auto& c) {
    c.to(0, [&] { return scatter_to(dim, c.shape(0), indices, c.grad()); });
  });
  return {std::move(out), std::move(indices)};
}
template <class B>
std::pair<AutodiffTensor<B>, typename B::IntTensor> ReduceOps<B>::max_dim_with_indices(T x, size_t dim) {
  return extreme_with_indices("max_dim", std::move(x), dim, true);
}
template <class B>
std::pair<AutodiffTensor<B>, typename B::IntTensor> ReduceOps<B>::min_dim_with_indices(T x, size_t dim) {
  return extreme_with_indices("min_dim", std::move(x), dim, false);
}
template <class B> AutodiffTensor<B> ReduceOps<B>::max_dim(T x, size_t dim) {
  if (!x.tracked()) return T(I::max_dim(std::move(x.primitive), dim));
  return extreme_with_indices("max_dim", std::move(x), dim, true).first;
}
template <class B> AutodiffTensor<B> ReduceOps<B>::min_dim(T x, size_t dim) {
  if (!x.tracked()) return T(I::min_dim(std::move(x.primitive), dim));
  return extreme_with_indices("min_dim", std::move(x), dim, false).first;
}
// max/min of all values: the extreme of the flattened tensor; the gradient goes to its first occurrence.
template <class B> AutodiffTensor<B> ReduceOps<B>::flat_extreme(T x, bool largest) {
  if (!x.tracked()) return T(largest ? I::max(std::move(x.primitive)) : I::min(std::move(x.primitive)));
  Shape flat{x.shape().num_elements()};
  return extreme_with_indices(largest ? "max" : "min", LayoutOps<B>::reshape(std::move(x), flat), 0, largest).first;
}
template <class B> AutodiffTensor<B> ReduceOps<B>::max(T x) { return flat_extreme(std::move(x), true); }
template <class B> AutodiffTensor<B> ReduceOps<B>::min(T x) { return flat_extreme(std::move(x), false); }

// y_j = Σ_{i<=j} x_i: dx_i = Σ_{j>=i} g_j, a reversed cumulative sum.
template <class B> AutodiffTensor<B> ReduceOps<B>::cumsum(T x, size_t dim) {
  return R::unary(
      "cumsum", Bound::Memory, std::move(x), 0, [dim](auto in) { return I::cumsum(std::move(in[0]), dim); },
      [dim](auto& c) { c.to(0, [&] { return reverse_cumsum(c.grad(), dim); }); });
}
template <class B> typename B::FloatTensor ReduceOps<B>::reverse_cumsum(P x, size_t dim) {
  const std::vector<size_t> axis{dim};
  return I::flip(I::cumsum(I::flip(std::move(x), axis), dim), axis);
}
// y_j = Π_{i<=j} x_i. Before a line's first zero, dx_i = Σ_{j>=i} g_j y_j / x_i (x_i is nonzero there); at
// the first zero z, dx_z = Σ_{j>=z} g_j y'_j, with y' the cumprod that reads x_z as 1; after it, 0 (every
// product holds x_z). Exact at zeros, like PyTorch's.
template <class B> AutodiffTensor<B> ReduceOps<B>::cumprod(T x, size_t dim) {
  return R::unary(
      "cumprod", Bound::Memory, std::move(x), in(0) | kOut,
      [dim](auto in) { return I::cumprod(std::move(in[0]), dim); },
      [dim](auto& c) { c.to(0, [&] { return cumprod_grad(c.input(0), c.output(), c.grad(), dim); }); });
}
template <class B>
typename B::FloatTensor ReduceOps<B>::cumprod_grad(const P& x, const P& y, const P& grad, size_t dim) {
  using Bools = KindOps<B, Bool>;
  BoolP zero = I::equal_elem(x, Scalar(0));
  P zeros_so_far = I::cumsum(Bools::into_float(zero, x.dtype()), dim);
  BoolP before_zero = I::equal_elem(zeros_so_far, Scalar(0));
  BoolP first_zero = Bools::logical_and(zero, I::equal_elem(zeros_so_far, Scalar(1)));
  P divided = I::div(reverse_cumsum(I::mul(grad, y), dim), I::mask_fill(x, zero, Scalar(1)));
  P skipping_zero = I::cumprod(I::mask_fill(x, first_zero, Scalar(1)), dim);
  P at_zero = reverse_cumsum(I::mul(grad, std::move(skipping_zero)), dim);
  P at_zero_only = I::mask_fill(std::move(at_zero), Bools::logical_not(std::move(first_zero)), Scalar(0));
  return I::mask_where(std::move(at_zero_only), std::move(before_zero), std::move(divided));
}
// The source of y_j is the last i <= j with x_i == y_j: a running max of those positions.
template <class B> AutodiffTensor<B> ReduceOps<B>::running_extreme(const char* name, T x, size_t dim, bool largest) {
  auto fwd = [dim, largest](auto in) {
    return largest ? I::cummax(std::move(in[0]), dim) : I::cummin(std::move(in[0]), dim);
  };
  return R::unary(name, Bound::Memory, std::move(x), in(0) | kOut, fwd, [dim](auto& c) {
    c.to(0, [&] {
      P v = c.input(0);
      const Shape& shape = c.shape(0);
      Shape line = shape;
      for (size_t d = 0; d < line.rank(); ++d) line[d] = d == dim ? shape[d] : 1;
      auto steps = KindOps<B, Int>::arange(0, static_cast<int64_t>(shape[dim]), 1, v.device(), DType::I64);
      P positions = I::expand(I::reshape(KindOps<B, Int>::into_float(std::move(steps), v.dtype()), line), shape);
      using Bools = KindOps<B, Bool>;  // a NaN output's source is the NaN that made it (NaN != NaN)
      auto same = Bools::logical_or(I::equal(v, c.output()), Bools::logical_and(I::is_nan(v), I::is_nan(c.output())));
      P sources =
          I::mask_where(I::full(shape, Scalar(-1), v.device(), v.dtype()), std::move(same), std::move(positions));
      auto indices = I::into_int(I::cummax(std::move(sources), dim), DType::I64);
      return scatter_to(dim, shape, indices, c.grad());
    });
  });
}
template <class B> AutodiffTensor<B> ReduceOps<B>::cummax(T x, size_t dim) {
  return running_extreme("cummax", std::move(x), dim, true);
}
template <class B> AutodiffTensor<B> ReduceOps<B>::cummin(T x, size_t dim) {
  return running_extreme("cummin", std::move(x), dim, false);
}

}  // namespace scorch::autodiff

#pragma once
// Definitions of LayoutOps<B>; included by the translation unit that instantiates Autodiff<B>.
#include <numeric>

#include "scorch/autodiff/ops/layout_ops.h"

namespace scorch::autodiff {

template <class B> AutodiffTensor<B> LayoutOps<B>::reshape(T x, Shape shape) {
  return R::unary(
      "reshape", Bound::Memory, std::move(x), 0, [shape](auto in) { return I::reshape(std::move(in[0]), shape); },
      [](auto& c) { c.to(0, [&] { return I::reshape(c.grad(), c.shape(0)); }); });
}
template <class B> AutodiffTensor<B> LayoutOps<B>::permute(T x, std::vector<size_t> axes) {
  std::vector<size_t> inverse(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) inverse[axes[i]] = i;
  return R::unary(
      "permute", Bound::Memory, std::move(x), 0, [axes](auto in) { return I::permute(std::move(in[0]), axes); },
      [inverse](auto& c) { c.to(0, [&] { return I::permute(c.grad(), inverse); }); });
}
template <class B> AutodiffTensor<B> LayoutOps<B>::swap_dims(T x, size_t a, size_t b) {
  return R::unary(
      "swap_dims", Bound::Memory, std::move(x), 0, [a, b](auto in) { return I::swap_dims(std::move(in[0]), a, b); },
      [a, b](auto& c) { c.to(0, [&] { return I::swap_dims(c.grad(), a, b); }); });
}
template <class B> AutodiffTensor<B> LayoutOps<B>::flip(T x, std::vector<size_t> axes) {
  return R::unary(
      "flip", Bound::Memory, std::move(x), 0, [axes](auto in) { return I::flip(std::move(in[0]), axes); },
      [axes](auto& c) { c.to(0, [&] { return I::flip(c.grad(), axes); }); });
}
// The gradient of a broadcast is the sum over the broadcast dims, which c.to does.
template <class B> AutodiffTensor<B> LayoutOps<B>::expand(T x, Shape shape) {
  return R::unary(
      "expand", Bound::Memory, std::move(x), 0, [shape](auto in) { return I::expand(std::move(in[0]), shape); },
      [](auto& c) { c.to(0, [&] { return c.grad(); }); });
}
template <class B> AutodiffTensor<B> LayoutOps<B>::slice(T x, SliceRanges ranges) {
  return R::unary(
      "slice", Bound::Memory, std::move(x), 0, [ranges](auto in) { return I::slice(std::move(in[0]), ranges); },
      [ranges](auto& c) { c.to(0, [&] { return I::slice_assign(zeros(c.shape(0), c.grad()), ranges, c.grad()); }); });
}
template <class B> AutodiffTensor<B> LayoutOps<B>::slice_assign(T x, SliceRanges ranges, T values) {
  return R::binary(
      "slice_assign", Bound::Memory, std::move(x), std::move(values), {0, 0},
      [ranges](auto in) { return I::slice_assign(std::move(in[0]), ranges, std::move(in[1])); },
      [ranges](auto& c) {
        c.to(0, [&] { return I::slice_assign(c.grad(), ranges, zeros(c.shape(1), c.grad())); });
        c.to(1, [&] { return I::slice(c.grad(), ranges); });
      });
}
template <class B> AutodiffTensor<B> LayoutOps<B>::cat(std::vector<T> parts, size_t dim) {
  std::vector<uint32_t> needs(parts.size(), 0);
  return R::op(
      "cat", Bound::Memory, std::move(parts), std::move(needs), [dim](auto in) { return I::cat(std::move(in), dim); },
      [dim](auto& c) {
        const Shape& out = c.grad().shape();
        SliceRanges ranges(out.rank());
        for (size_t d = 0; d < out.rank(); ++d) ranges[d] = {0, out[d], 1};
        size_t offset = 0;
        for (size_t i = 0; offset < out[dim]; ++i) {
          size_t len = c.shape(i)[dim];
          ranges[dim] = {offset, offset + len, 1};
          c.to(i, [&] { return I::slice(c.grad(), ranges); });
          offset += len;
        }
      });
}
// [.., times·n, ..] viewed as [.., times, n, ..] and summed over the copies.
template <class B> AutodiffTensor<B> LayoutOps<B>::repeat_dim(T x, size_t dim, size_t times) {
  return R::unary(
      "repeat_dim", Bound::Memory, std::move(x), 0,
      [dim, times](auto in) { return I::repeat_dim(std::move(in[0]), dim, times); },
      [dim, times](auto& c) {
        c.to(0, [&] {
          const Shape& shape = c.shape(0);
          if (shape.rank() < kMaxRank) {
            Shape split = shape;
            split.insert(dim, times);
            return I::reshape(I::sum_dim(I::reshape(c.grad(), split), dim), shape);
          }
          SliceRanges ranges(shape.rank());
          for (size_t d = 0; d < shape.rank(); ++d) ranges[d] = {0, shape[d], 1};
          P total = zeros(shape, c.grad());
          for (size_t t = 0; t < times; ++t) {
            ranges[dim] = {t * shape[dim], (t + 1) * shape[dim], 1};
            total = I::add(std::move(total), I::slice(c.grad(), ranges));
          }
          return total;
        });
      });
}
// Window w, offset k of the output came from position w·step + k along dim: for each k, add the
// k-th column of every window into a strided slice of the gradient.
template <class B> AutodiffTensor<B> LayoutOps<B>::unfold(T x, size_t dim, size_t size, size_t step) {
  return R::unary(
      "unfold", Bound::Memory, std::move(x), 0,
      [dim, size, step](auto in) { return I::unfold(std::move(in[0]), dim, size, step); },
      [dim, size, step](auto& c) {
        c.to(0, [&] {
          const Shape& shape = c.shape(0);
          const Shape& out = c.grad().shape();
          size_t windows = out[dim], last = out.rank() - 1;
          P total = zeros(shape, c.grad());
          SliceRanges column(out.rank()), target(shape.rank());
          for (size_t d = 0; d < out.rank(); ++d) column[d] = {0, out[d], 1};
          for (size_t d = 0; d < shape.rank(); ++d) target[d] = {0, shape[d], 1};
          Shape piece = shape;
          piece[dim] = windows;
          for (size_t k = 0; k < size && windows > 0; ++k) {
            column[last] = {k, k + 1, 1};
            target[dim] = {k, k + (windows - 1) * step + 1, static_cast<int64_t>(step)};
            P part = I::reshape(I::slice(c.grad(), column), piece);
            P updated = I::add(I::slice(total, target), std::move(part));
            total = I::slice_assign(std::move(total), target, std::move(updated));
          }
          return total;
        });
      });
}

template <class B> AutodiffTensor<B> LayoutOps<B>::gather(size_t dim, T x, IntP indices) {
  return R::unary(
      "gather", Bound::Memory, std::move(x), 0,
      [dim, indices](auto in) { return I::gather(dim, std::move(in[0]), indices); },
      [dim, indices](auto& c) { c.to(0, [&] { return scatter_to(dim, c.shape(0), indices, c.grad()); }); });
}
template <class B> AutodiffTensor<B> LayoutOps<B>::scatter_add(size_t dim, T x, IntP indices, T values) {
  return R::binary(
      "scatter_add", Bound::Memory, std::move(x), std::move(values), {0, 0},
      [dim, indices](auto in) { return I::scatter_add(dim, std::move(in[0]), indices, std::move(in[1])); },
      [dim, indices](auto& c) {
        c.to(0, [&] { return c.grad(); });
        c.to(1, [&] { return I::gather(dim, c.grad(), indices); });
      });
}
template <class B> AutodiffTensor<B> LayoutOps<B>::select(T x, size_t dim, IntP indices) {
  return R::unary(
      "select", Bound::Memory, std::move(x), 0,
      [dim, indices](auto in) { return I::select(std::move(in[0]), dim, indices); },
      [dim, indices](auto& c) {
        c.to(0, [&] { return I::select_add(zeros(c.shape(0), c.grad()), dim, indices, c.grad()); });
      });
}
template <class B> AutodiffTensor<B> LayoutOps<B>::select_add(T x, size_t dim, IntP indices, T values) {
  return R::binary(
      "select_add", Bound::Memory, std::move(x), std::move(values), {0, 0},
      [dim, indices](auto in) { return I::select_add(std::move(in[0]), dim, indices, std::move(in[1])); },
      [dim, indices](auto& c) {
        c.to(0, [&] { return c.grad(); });
        c.to(1, [&] { return I::select(c.grad(), dim, indices); });
      });
}

template <class B>
std::pair<AutodiffTensor<B>, typename B::IntTensor> LayoutOps<B>::sort_with_indices(T x, size_t dim, bool descending) {
  auto [values, indices] = I::sort_with_indices(x.primitive, dim, descending);
  T out = R::computed(
      "sort", std::array<T, 1>{std::move(x)}, {0}, std::move(values),
      [dim, indices = indices](auto& c) { c.to(0, [&] { return scatter_to(dim, c.shape(0), indices, c.grad()); }); });
  return {std::move(out), std::move(indices)};
}
template <class B> AutodiffTensor<B> LayoutOps<B>::sort(T x, size_t dim, bool descending) {
  if (!x.tracked()) return T(I::sort(std::move(x.primitive), dim, descending));
  return sort_with_indices(std::move(x), dim, descending).first;
}

}  // namespace scorch::autodiff

#pragma once
// Provided layout ops: swap_dims (a permute), cat (empty + slice_assign), repeat_dim (cat).
#include <numeric>
#include <vector>

#include "scorch/backend/options.h"
#include "scorch/core/shape.h"

namespace scorch {
template <class B, class K> struct KindOps;
struct Float;
struct Int;
struct Bool;

namespace provided {

template <class B, class K, class T> T swap_dims_of(T x, size_t a, size_t b) {
  std::vector<size_t> axes(x.shape().rank());
  std::iota(axes.begin(), axes.end(), size_t{0});
  std::swap(axes[a], axes[b]);
  return KindOps<B, K>::permute(std::move(x), axes);
}
/// Exchanges dims a and b.
template <class B> auto float_swap_dims(typename B::FloatTensor x, size_t a, size_t b) {
  return swap_dims_of<B, Float>(std::move(x), a, b);
}
template <class B> auto int_swap_dims(typename B::IntTensor x, size_t a, size_t b) {
  return swap_dims_of<B, Int>(std::move(x), a, b);
}
template <class B> auto bool_swap_dims(typename B::BoolTensor x, size_t a, size_t b) {
  return swap_dims_of<B, Bool>(std::move(x), a, b);
}

template <class B, class K, class T> T cat_of(const std::vector<T>& parts, size_t dim) {
  Shape shape = parts.front().shape();
  shape[dim] = 0;
  for (const T& p : parts) shape[dim] += p.shape()[dim];
  T out = KindOps<B, K>::empty(shape, parts.front().device(), parts.front().dtype());
  SliceRanges ranges(shape.rank());
  for (size_t i = 0; i < shape.rank(); ++i) ranges[i] = {0, shape[i], 1};
  size_t offset = 0;
  for (const T& p : parts) {
    ranges[dim] = {offset, offset + p.shape()[dim], 1};
    out = KindOps<B, K>::slice_assign(std::move(out), ranges, p);
    offset += p.shape()[dim];
  }
  return out;
}
/// Concatenates tensors along dim (shapes checked by callers).
template <class B> auto float_cat(const std::vector<typename B::FloatTensor>& p, size_t dim) {
  return cat_of<B, Float>(p, dim);
}
template <class B> auto int_cat(const std::vector<typename B::IntTensor>& p, size_t dim) {
  return cat_of<B, Int>(p, dim);
}
template <class B> auto bool_cat(const std::vector<typename B::BoolTensor>& p, size_t dim) {
  return cat_of<B, Bool>(p, dim);
}

template <class B, class K, class T> T repeat_dim_of(T x, size_t dim, size_t times) {
  return KindOps<B, K>::cat(std::vector<T>(times, x), dim);
}
/// Repeats the tensor times along dim.
template <class B> auto float_repeat_dim(typename B::FloatTensor x, size_t d, size_t n) {
  return repeat_dim_of<B, Float>(std::move(x), d, n);
}
template <class B> auto int_repeat_dim(typename B::IntTensor x, size_t d, size_t n) {
  return repeat_dim_of<B, Int>(std::move(x), d, n);
}
template <class B> auto bool_repeat_dim(typename B::BoolTensor x, size_t d, size_t n) {
  return repeat_dim_of<B, Bool>(std::move(x), d, n);
}

}  // namespace provided
}  // namespace scorch

#pragma once
// Provided reductions: mean, max, min, the *_with_indices pairs, any, all and logcumsumexp.
#include <utility>

#include "scorch/backend/options.h"

#include "scorch/core/scalar.h"
#include "scorch/core/shape.h"

namespace scorch {
template <class B, class K> struct KindOps;
struct Float;
struct Int;
struct Bool;

namespace provided {

/// log(cumsum(e^x)) along dim, as a doubling scan of logaddexp (⌈log2 n⌉ steps, each exact and overflow-free),
/// so Autodiff composes its gradient from those ops.
template <class B> auto float_logcumsumexp(typename B::FloatTensor x, size_t dim) {
  using F = KindOps<B, Float>;
  const Shape shape = x.shape();
  const size_t n = shape[dim];
  SliceRanges earlier(shape.rank()), later(shape.rank());
  for (size_t i = 0; i < shape.rank(); ++i) earlier[i] = later[i] = {0, shape[i], 1};
  for (size_t step = 1; step < n; step *= 2) {
    earlier[dim] = {0, n - step, 1};
    later[dim] = {step, n, 1};
    auto combined = F::logaddexp(F::slice(x, later), F::slice(x, earlier));
    x = F::slice_assign(std::move(x), later, std::move(combined));
  }
  return x;
}

template <class B, class K, class T> T mean_of(T x) {
  auto n = static_cast<int64_t>(x.shape().num_elements());
  return KindOps<B, K>::div_scalar(KindOps<B, K>::sum(std::move(x)), Scalar(n));
}
/// Mean of all values, shape [1].
template <class B> auto float_mean(typename B::FloatTensor x) { return mean_of<B, Float>(std::move(x)); }
template <class B> auto int_mean(typename B::IntTensor x) { return mean_of<B, Int>(std::move(x)); }

template <class B, class K, class T> T flat(T x) {
  Shape s{x.shape().num_elements()};
  return KindOps<B, K>::reshape(std::move(x), s);
}
/// Largest value, shape [1].
template <class B> auto float_max(typename B::FloatTensor x) {
  return KindOps<B, Float>::max_dim(flat<B, Float>(std::move(x)), 0);
}
template <class B> auto int_max(typename B::IntTensor x) {
  return KindOps<B, Int>::max_dim(flat<B, Int>(std::move(x)), 0);
}
/// Smallest value, shape [1].
template <class B> auto float_min(typename B::FloatTensor x) {
  return KindOps<B, Float>::min_dim(flat<B, Float>(std::move(x)), 0);
}
template <class B> auto int_min(typename B::IntTensor x) {
  return KindOps<B, Int>::min_dim(flat<B, Int>(std::move(x)), 0);
}

/// (max along dim, its index), both keeping dim with size 1.
template <class B> auto float_max_dim_with_indices(typename B::FloatTensor x, size_t dim) {
  auto idx = KindOps<B, Float>::argmax(x, dim);
  return std::make_pair(KindOps<B, Float>::max_dim(std::move(x), dim), std::move(idx));
}
template <class B> auto int_max_dim_with_indices(typename B::IntTensor x, size_t dim) {
  auto idx = KindOps<B, Int>::argmax(x, dim);
  return std::make_pair(KindOps<B, Int>::max_dim(std::move(x), dim), std::move(idx));
}
/// (min along dim, its index), both keeping dim with size 1.
template <class B> auto float_min_dim_with_indices(typename B::FloatTensor x, size_t dim) {
  auto idx = KindOps<B, Float>::argmin(x, dim);
  return std::make_pair(KindOps<B, Float>::min_dim(std::move(x), dim), std::move(idx));
}
template <class B> auto int_min_dim_with_indices(typename B::IntTensor x, size_t dim) {
  auto idx = KindOps<B, Int>::argmin(x, dim);
  return std::make_pair(KindOps<B, Int>::min_dim(std::move(x), dim), std::move(idx));
}

// any/all count the nonzero values in int64 and compare the count.
template <class B, class K, class T> auto nonzero_count(T x) {
  if constexpr (std::is_same_v<K, Bool>) return KindOps<B, Bool>::into_int(std::move(x), DType::I64);
  else {
    auto mask = KindOps<B, K>::not_equal_elem(std::move(x), Scalar(0));
    return KindOps<B, Bool>::into_int(std::move(mask), DType::I64);
  }
}
template <class B, class K, class T> auto any_of(T x) {
  return KindOps<B, Int>::greater_elem(KindOps<B, Int>::sum(nonzero_count<B, K>(std::move(x))), Scalar(0));
}
template <class B, class K, class T> auto any_dim_of(T x, size_t dim) {
  return KindOps<B, Int>::greater_elem(KindOps<B, Int>::sum_dim(nonzero_count<B, K>(std::move(x)), dim), Scalar(0));
}
template <class B, class K, class T> auto all_of(T x) {
  auto n = static_cast<int64_t>(x.shape().num_elements());
  return KindOps<B, Int>::equal_elem(KindOps<B, Int>::sum(nonzero_count<B, K>(std::move(x))), Scalar(n));
}
template <class B, class K, class T> auto all_dim_of(T x, size_t dim) {
  auto n = static_cast<int64_t>(x.shape()[dim]);
  return KindOps<B, Int>::equal_elem(KindOps<B, Int>::sum_dim(nonzero_count<B, K>(std::move(x)), dim), Scalar(n));
}
/// True (shape [1]) if any value is nonzero.
template <class B> auto float_any(typename B::FloatTensor x) { return any_of<B, Float>(std::move(x)); }
template <class B> auto int_any(typename B::IntTensor x) { return any_of<B, Int>(std::move(x)); }
template <class B> auto bool_any(typename B::BoolTensor x) { return any_of<B, Bool>(std::move(x)); }
/// True along dim (kept, size 1) if any value there is nonzero.
template <class B> auto float_any_dim(typename B::FloatTensor x, size_t d) {
  return any_dim_of<B, Float>(std::move(x), d);
}
template <class B> auto int_any_dim(typename B::IntTensor x, size_t d) { return any_dim_of<B, Int>(std::move(x), d); }
template <class B> auto bool_any_dim(typename B::BoolTensor x, size_t d) {
  return any_dim_of<B, Bool>(std::move(x), d);
}
/// True (shape [1]) if every value is nonzero.
template <class B> auto float_all(typename B::FloatTensor x) { return all_of<B, Float>(std::move(x)); }
template <class B> auto int_all(typename B::IntTensor x) { return all_of<B, Int>(std::move(x)); }
template <class B> auto bool_all(typename B::BoolTensor x) { return all_of<B, Bool>(std::move(x)); }
/// True along dim (kept, size 1) if every value there is nonzero.
template <class B> auto float_all_dim(typename B::FloatTensor x, size_t d) {
  return all_dim_of<B, Float>(std::move(x), d);
}
template <class B> auto int_all_dim(typename B::IntTensor x, size_t d) { return all_dim_of<B, Int>(std::move(x), d); }
template <class B> auto bool_all_dim(typename B::BoolTensor x, size_t d) {
  return all_dim_of<B, Bool>(std::move(x), d);
}

}  // namespace provided
}  // namespace scorch

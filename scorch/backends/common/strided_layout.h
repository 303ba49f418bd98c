#pragma once
// The layout ops of a backend whose tensors are strided views of shared storage (Cpu, Cuda), written
// once. Tensor type T provides storage(), shape(), strides(), offset(), dtype(), can_mut(), is_dense()
// and a view constructor T(storage, shape, strides, offset, dtype); its namespace provides
// contiguous(T), assign_view(dst, src), broadcast_strides(T, Shape) and fresh(like, shape, dtype).
#include <utility>
#include <vector>

#include "scorch/backend/options.h"
#include "scorch/backends/common/strides.h"
#include "scorch/core/shape.h"

namespace scorch::strided_layout {

template <class T, class S> T view(const T& x, Shape shape, const S& strides, int64_t offset) {
  return T(x.storage(), shape, strides, offset, x.dtype());
}

/// x with shape: a view when x's strides allow one (contiguous x, a dim of 1 added or removed, a split or merge of
/// evenly strided dims), else a view of a contiguous copy.
template <class T> T reshape(T x, Shape shape) {
  strides::Strides s;
  if (strides::view_as(x.shape(), x.strides(), shape, s)) return view(x, shape, s, x.offset());
  x = contiguous(std::move(x));
  return view(x, shape, contiguous_strides(shape), x.offset());
}

/// The view with dims reordered: dim i of the result is dim axes[i] of x.
template <class T> T permute(T x, const std::vector<size_t>& axes) {
  Shape shape = x.shape();
  auto strides = x.strides();
  for (size_t i = 0; i < axes.size(); ++i) {
    shape[i] = x.shape()[axes[i]];
    strides[i] = x.strides()[axes[i]];
  }
  return view(x, shape, strides, x.offset());
}

/// The view with dims a and b exchanged.
template <class T> T swap_dims(T x, size_t a, size_t b) {
  std::vector<size_t> axes(x.shape().rank());
  for (size_t i = 0; i < axes.size(); ++i) axes[i] = i;
  std::swap(axes[a], axes[b]);
  return permute(std::move(x), axes);
}

/// The view reversed along axes (negative strides).
template <class T> T flip(T x, const std::vector<size_t>& axes) {
  auto strides = x.strides();
  int64_t offset = x.offset();
  for (size_t a : axes) {
    if (x.shape()[a] == 0) continue;
    offset += strides[a] * static_cast<int64_t>(x.shape()[a] - 1);
    strides[a] = -strides[a];
  }
  return view(x, x.shape(), strides, offset);
}

/// The view broadcast to shape (stride 0 along expanded dims).
template <class T> T expand(T x, Shape shape) { return view(x, shape, broadcast_strides(x, shape), x.offset()); }

/// The view selecting ranges (one per leading dim).
template <class T> T slice(T x, const SliceRanges& ranges) {
  Shape shape = x.shape();
  auto strides = x.strides();
  int64_t offset = x.offset();
  for (size_t d = 0; d < ranges.size(); ++d) {
    const SliceRange& r = ranges[d];
    shape[d] = r.length();
    if (shape[d] > 0) offset += strides[d] * static_cast<int64_t>(r.index(0));
    strides[d] *= r.step;
  }
  return view(x, shape, strides, offset);
}

/// x with values written into ranges (in place when x is uniquely owned and dense).
template <class T> T slice_assign(T x, const SliceRanges& ranges, const T& values) {
  T out = (x.can_mut() && x.is_dense()) ? x : fresh(x, x.shape(), x.dtype());
  if (out.storage() != x.storage()) assign_view(out, x);
  x = T();
  assign_view(slice(out, ranges), values);
  return out;
}

/// parts joined along dim.
template <class T> T cat(const std::vector<T>& parts, size_t dim) {
  Shape shape = parts.front().shape();
  shape[dim] = 0;
  for (const T& p : parts) shape[dim] += p.shape()[dim];
  T out = fresh(parts.front(), shape, parts.front().dtype());
  SliceRanges ranges(shape.rank());
  for (size_t i = 0; i < shape.rank(); ++i) ranges[i] = {0, shape[i], 1};
  size_t offset = 0;
  for (const T& p : parts) {
    ranges[dim] = {offset, offset + p.shape()[dim], 1};
    if (p.numel()) assign_view(slice(out, ranges), p);
    offset += p.shape()[dim];
  }
  return out;
}

/// x repeated times along dim.
template <class T> T repeat_dim(T x, size_t dim, size_t times) {
  Shape up = x.shape();
  up.insert(dim, 1);
  T lifted = reshape(std::move(x), up);
  Shape big = up;
  big[dim] = times;
  T wide = contiguous(expand(lifted, big));
  Shape out = lifted.shape();
  out.remove(dim);
  out[dim] *= times;
  return reshape(std::move(wide), out);
}

/// The view of windows of size along dim every step, as a new last dim.
template <class T> T unfold(T x, size_t dim, size_t size, size_t step) {
  Shape shape = x.shape();
  auto strides = x.strides();
  size_t windows = shape[dim] >= size ? (shape[dim] - size) / step + 1 : 0;
  int64_t stride = strides[dim];
  shape[dim] = windows;
  strides[dim] = stride * static_cast<int64_t>(step);
  shape.push_back(size);
  strides[shape.rank() - 1] = stride;
  return view(x, shape, strides, x.offset());
}

}  // namespace scorch::strided_layout

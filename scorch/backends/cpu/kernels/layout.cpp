#include <cstring>

#include "scorch/backends/cpu/kernels/elementwise.h"
#include "scorch/backends/cpu/kernels/kernels.h"

namespace scorch::backends::cpu::kernels {
namespace {

// Copies src's values into the (possibly strided) view dst of the same shape and dtype.
void assign_view(const T& dst, const T& src) {
  size_t size = dtype_size(src.dtype());
  std::byte* d = dst.raw();
  const std::byte* s = src.raw();
  strided_rows<2>(dst.shape(), {&dst.strides(), &src.strides()}, [&](auto off, auto st, size_t n) {
    if (st[0] == 1 && st[1] == 1) {
      std::memmove(d + off[0] * static_cast<int64_t>(size), s + off[1] * static_cast<int64_t>(size), n * size);
      return;
    }
    for (size_t i = 0; i < n; ++i)
      std::memcpy(d + (off[0] + static_cast<int64_t>(i) * st[0]) * static_cast<int64_t>(size),
                  s + (off[1] + static_cast<int64_t>(i) * st[1]) * static_cast<int64_t>(size), size);
  });
}

T view(const T& x, Shape shape, Strides strides, int64_t offset) {
  return T(x.storage(), shape, strides, offset, x.dtype());
}

}  // namespace

T reshape(T x, Shape shape) {
  x = contiguous(std::move(x));
  return view(x, shape, contiguous_strides(shape), x.offset());
}

T permute(T x, std::vector<size_t> axes) {
  Shape shape = x.shape();
  Strides strides{};
  for (size_t i = 0; i < axes.size(); ++i) {
    shape[i] = x.shape()[axes[i]];
    strides[i] = x.strides()[axes[i]];
  }
  return view(x, shape, strides, x.offset());
}

T swap_dims(T x, size_t a, size_t b) {
  std::vector<size_t> axes(x.shape().rank());
  for (size_t i = 0; i < axes.size(); ++i) axes[i] = i;
  std::swap(axes[a], axes[b]);
  return permute(std::move(x), axes);
}

T flip(T x, std::vector<size_t> axes) {
  Strides strides = x.strides();
  int64_t offset = x.offset();
  for (size_t a : axes) {
    if (x.shape()[a] == 0) continue;
    offset += strides[a] * static_cast<int64_t>(x.shape()[a] - 1);
    strides[a] = -strides[a];
  }
  return view(x, x.shape(), strides, offset);
}

T expand(T x, Shape shape) {
  return view(x, shape, broadcast_strides(x, shape), x.offset());
}

T slice(T x, SliceRanges ranges) {
  Shape shape = x.shape();
  Strides strides = x.strides();
  int64_t offset = x.offset();
  for (size_t d = 0; d < ranges.size(); ++d) {
    const SliceRange& r = ranges[d];
    shape[d] = r.length();
    if (shape[d] > 0) offset += strides[d] * static_cast<int64_t>(r.index(0));
    strides[d] *= r.step;
  }
  return view(x, shape, strides, offset);
}

T slice_assign(T x, SliceRanges ranges, T values) {
  T out = (x.can_mut() && x.is_dense()) ? x : T(x.shape(), x.dtype());
  if (out.storage() != x.storage()) assign_view(out, x);
  x = T();
  assign_view(slice(out, ranges), values);
  return out;
}

T cat(std::vector<T> parts, size_t dim) {
  Shape shape = parts.front().shape();
  shape[dim] = 0;
  for (const T& p : parts) shape[dim] += p.shape()[dim];
  T out(shape, parts.front().dtype());
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

T repeat_dim(T x, size_t dim, size_t times) {
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

T unfold(T x, size_t dim, size_t size, size_t step) {
  Shape shape = x.shape();
  Strides strides = x.strides();
  size_t windows = shape[dim] >= size ? (shape[dim] - size) / step + 1 : 0;
  int64_t stride = strides[dim];
  shape[dim] = windows;
  strides[dim] = stride * static_cast<int64_t>(step);
  shape.push_back(size);
  strides[shape.rank() - 1] = stride;
  return view(x, shape, strides, x.offset());
}

}  // namespace scorch::backends::cpu::kernels

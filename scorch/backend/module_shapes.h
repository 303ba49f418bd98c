#pragma once
// Output-size arithmetic of the module ops, shared by front-end checks and backend kernels.
#include <cstddef>
#include <cstdint>

namespace scorch::module_shapes {

/// Output length of a convolution (or pooling without ceil mode) along one dim; ≤ 0 when the
/// window does not fit.
constexpr int64_t conv_out(size_t in, size_t kernel, size_t stride, size_t padding, size_t dilation) {
  int64_t span = static_cast<int64_t>(dilation * (kernel - 1) + 1);
  int64_t room = static_cast<int64_t>(in + 2 * padding) - span;
  return room < 0 ? 0 : room / static_cast<int64_t>(stride) + 1;
}

/// Output length of a transposed convolution along one dim.
constexpr int64_t conv_transpose_out(size_t in, size_t kernel, size_t stride, size_t padding, size_t dilation,
                                     size_t padding_out) {
  return static_cast<int64_t>((in - 1) * stride + dilation * (kernel - 1) + padding_out + 1) -
         2 * static_cast<int64_t>(padding);
}

/// Output length of a pooling window along one dim, PyTorch's rule: ceil mode rounds up but a
/// window may not start inside the right padding.
constexpr int64_t pool_out(size_t in, size_t kernel, size_t stride, size_t padding, size_t dilation, bool ceil_mode) {
  int64_t span = static_cast<int64_t>(dilation * (kernel - 1) + 1);
  int64_t room = static_cast<int64_t>(in + 2 * padding) - span;
  if (room < 0) return 0;
  int64_t s = static_cast<int64_t>(stride);
  int64_t out = (ceil_mode ? (room + s - 1) / s : room / s) + 1;
  if (ceil_mode && (out - 1) * s >= static_cast<int64_t>(in + padding)) --out;
  return out;
}

/// First input index of adaptive pooling window i of out over in.
constexpr size_t adaptive_start(size_t i, size_t out, size_t in) { return i * in / out; }
/// One past the last input index of adaptive pooling window i.
constexpr size_t adaptive_end(size_t i, size_t out, size_t in) { return ((i + 1) * in + out - 1) / out; }

}  // namespace scorch::module_shapes

#pragma once
// Sliding-window geometry shared by the Cpu convolution, pooling and unfold kernels: spatial
// dims are padded to three (depth, height, width) with unit dims, so one loop nest serves
// 1-d, 2-d and 3-d ops. im2col/col2im move between an image and its window columns.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "scorch/backend/module_options.h"
#include "scorch/backends/cpu/cpu_tensor.h"

namespace scorch::backends::cpu::window {

using Dims3 = std::array<size_t, 3>;

/// One window op over one image: input and output sizes and the window's shape.
struct Geometry {
  Dims3 in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1}, stride{1, 1, 1}, padding{0, 0, 0}, dilation{1, 1, 1};
  size_t in_size() const { return in[0] * in[1] * in[2]; }
  size_t out_size() const { return out[0] * out[1] * out[2]; }
  size_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
};

/// The last n dims of shape (n ≤ 3) right-aligned into three, leading ones 1.
Dims3 spatial(const Shape& shape, size_t n);
/// n values right-aligned into three, leading ones fill.
Dims3 pad3(const SpatialDims& v, size_t fill);
/// Geometry of a window op from input spatial dims, kernel, stride, padding, dilation and output dims.
Geometry make(const Dims3& in, const Dims3& kernel, const SpatialDims& stride, const SpatialDims& padding,
              const SpatialDims& dilation, const Dims3& out);

/// The outputs [lo, hi) of [0, count) whose input index off + t·stride lies in [0, in); the others read padding.
inline std::pair<int64_t, int64_t> valid_range(int64_t off, int64_t stride, int64_t in, int64_t count) {
  int64_t lo = std::min(count, off < 0 ? (-off + stride - 1) / stride : int64_t(0));
  int64_t hi = in - off <= 0 ? 0 : (in - off + stride - 1) / stride;
  return {lo, std::clamp(hi, lo, count)};
}

/// Writes count entries of im2col row `row` (channel, kz, ky, kx) starting at output pixel pix0:
/// the input value each window position reads, or 0 in the padding. x is [channels, in...].
template <class T> void im2col_row(const T* x, const Geometry& g, size_t row, size_t pix0, size_t count, T* dst);
/// cols [channels·kernel, out pixels] of image x [channels, in...].
template <class T> void im2col(const T* x, size_t channels, const Geometry& g, T* cols);
/// Adds cols [channels·kernel, out pixels] back onto image dst [channels, in...] (col2im).
template <class T> void col2im_add(const T* cols, size_t channels, const Geometry& g, T* dst);

/// Compute dtype of a float module op: f64 stays f64, every other float dtype runs in f32.
inline DType compute_dtype(DType d) { return d == DType::F64 ? DType::F64 : DType::F32; }
/// f(C{}) with C the C++ type of compute_dtype(d): double or float.
template <class F> auto in_compute_type(DType d, F f) {
  return compute_dtype(d) == DType::F64 ? f(double{}) : f(float{});
}

}  // namespace scorch::backends::cpu::window

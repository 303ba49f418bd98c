#include "scorch/backends/cpu/kernels/window.h"

#include <algorithm>
#include <cstring>

namespace scorch::backends::cpu::window {

Dims3 spatial(const Shape& shape, size_t n) {
  Dims3 d{1, 1, 1};
  for (size_t i = 0; i < n; ++i) d[3 - n + i] = shape[shape.rank() - n + i];
  return d;
}

Dims3 pad3(const SpatialDims& v, size_t fill) {
  Dims3 d{fill, fill, fill};
  for (size_t i = 0; i < v.size(); ++i) d[3 - v.size() + i] = v[i];
  return d;
}

Geometry make(const Dims3& in, const Dims3& kernel, const SpatialDims& stride, const SpatialDims& padding,
              const SpatialDims& dilation, const Dims3& out) {
  return Geometry{in, out, kernel, pad3(stride, 1), pad3(padding, 0), pad3(dilation, 1)};
}

namespace {
// Input coordinate of output position o with kernel offset k along dim d (may be negative).
inline int64_t source(const Geometry& g, size_t d, size_t o, size_t k) {
  return static_cast<int64_t>(o * g.stride[d] + k * g.dilation[d]) - static_cast<int64_t>(g.padding[d]);
}
inline bool inside(int64_t i, size_t n) { return i >= 0 && i < static_cast<int64_t>(n); }

/// dst[0, n) = src[0, n) for im2col's runs (a row of a small image, often 100 bytes): in WebAssembly as 16-byte
/// vector copies, where memcpy is a call that copies a word at a time (no_builtin keeps clang from turning the loop
/// back into that call); elsewhere memcpy, which the compiler and libc already do well.
#if defined(__wasm_simd128__)
template <class T> __attribute__((no_builtin("memcpy"))) void copy_run(const T* src, size_t n, T* dst) {
  typedef T Vec __attribute__((vector_size(16), aligned(alignof(T))));
  constexpr size_t L = 16 / sizeof(T);
  size_t i = 0;
  for (; i + L <= n; i += L) *reinterpret_cast<Vec*>(dst + i) = *reinterpret_cast<const Vec*>(src + i);
  for (; i < n; ++i) dst[i] = src[i];
}
#else
template <class T> void copy_run(const T* src, size_t n, T* dst) { std::memcpy(dst, src, n * sizeof(T)); }
#endif
}  // namespace

template <class T> void im2col_row(const T* x, const Geometry& g, size_t row, size_t pix0, size_t count, T* dst) {
  size_t kvol = g.kernel_size();
  size_t c = row / kvol, kr = row % kvol;
  size_t kx = kr % g.kernel[2], ky = (kr / g.kernel[2]) % g.kernel[1], kz = kr / (g.kernel[2] * g.kernel[1]);
  const T* plane = x + c * g.in_size();
  size_t ox = pix0 % g.out[2], oy = (pix0 / g.out[2]) % g.out[1], oz = pix0 / (g.out[2] * g.out[1]);
  size_t j = 0;
  while (j < count) {
    size_t run = std::min(count - j, g.out[2] - ox);
    int64_t iz = source(g, 0, oz, kz), iy = source(g, 1, oy, ky);
    T* out = dst + j;
    if (!inside(iz, g.in[0]) || !inside(iy, g.in[1])) {
      std::fill(out, out + run, T(0));
    } else {
      const T* src = plane + (static_cast<size_t>(iz) * g.in[1] + static_cast<size_t>(iy)) * g.in[2];
      int64_t ix0 = source(g, 2, ox, kx), sx = static_cast<int64_t>(g.stride[2]), w = static_cast<int64_t>(g.in[2]);
      // Outputs [lo, hi) read inside the row (ix0 + t·sx in [0, w)); the rest read the zero padding.
      auto [lo, hi] = valid_range(ix0, sx, w, static_cast<int64_t>(run));
      std::fill(out, out + lo, T(0));
      if (sx == 1 && hi > lo) copy_run(src + ix0 + lo, static_cast<size_t>(hi - lo), out + lo);
      else
        for (int64_t t = lo; t < hi; ++t) out[t] = src[ix0 + t * sx];
      std::fill(out + hi, out + run, T(0));
    }
    j += run;
    ox = 0;
    if (++oy == g.out[1]) {
      oy = 0;
      ++oz;
    }
  }
}

template <class T> void im2col(const T* x, size_t channels, const Geometry& g, T* cols) {
  size_t rows = channels * g.kernel_size(), n = g.out_size();
  for (size_t r = 0; r < rows; ++r) im2col_row(x, g, r, 0, n, cols + r * n);
}

template <class T> void col2im_add(const T* cols, size_t channels, const Geometry& g, T* dst) {
  size_t kvol = g.kernel_size(), n = g.out_size();
  for (size_t c = 0; c < channels; ++c) {
    T* plane = dst + c * g.in_size();
    for (size_t kr = 0; kr < kvol; ++kr) {
      size_t kx = kr % g.kernel[2], ky = (kr / g.kernel[2]) % g.kernel[1], kz = kr / (g.kernel[2] * g.kernel[1]);
      const T* row = cols + (c * kvol + kr) * n;
      for (size_t oz = 0; oz < g.out[0]; ++oz) {
        int64_t iz = source(g, 0, oz, kz);
        if (!inside(iz, g.in[0])) continue;
        for (size_t oy = 0; oy < g.out[1]; ++oy) {
          int64_t iy = source(g, 1, oy, ky);
          if (!inside(iy, g.in[1])) continue;
          T* line = plane + (static_cast<size_t>(iz) * g.in[1] + static_cast<size_t>(iy)) * g.in[2];
          const T* src = row + (oz * g.out[1] + oy) * g.out[2];
          for (size_t ox = 0; ox < g.out[2]; ++ox) {
            int64_t ix = source(g, 2, ox, kx);
            if (inside(ix, g.in[2])) line[ix] += src[ox];
          }
        }
      }
    }
  }
}

template void im2col_row<float>(const float*, const Geometry&, size_t, size_t, size_t, float*);
template void im2col_row<double>(const double*, const Geometry&, size_t, size_t, size_t, double*);
template void im2col<float>(const float*, size_t, const Geometry&, float*);
template void im2col<double>(const double*, size_t, const Geometry&, double*);
template void col2im_add<float>(const float*, size_t, const Geometry&, float*);
template void col2im_add<double>(const double*, size_t, const Geometry&, double*);

}  // namespace scorch::backends::cpu::window

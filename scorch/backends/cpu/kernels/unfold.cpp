// unfold (im2col) and fold (col2im) of [batch, channels, h, w] images.
#include "scorch/backend/module_shapes.h"
#include "scorch/backends/cpu/kernels/module_kernels.h"
#include "scorch/backends/cpu/kernels/window.h"
#include "scorch/backends/cpu/thread_pool.h"

namespace scorch::backends::cpu::kernels {
namespace {

// Geometry of windows of spec over an image of spatial size in.
window::Geometry windows(const SpatialDims& in, const PoolSpec& spec) {
  SpatialDims out(in.size());
  for (size_t d = 0; d < in.size(); ++d)
    out[d] = static_cast<size_t>(
        module_shapes::conv_out(in[d], spec.kernel[d], spec.stride[d], spec.padding[d], spec.dilation[d]));
  return window::make(window::pad3(in, 1), window::pad3(spec.kernel, 1), spec.stride, spec.padding, spec.dilation,
                      window::pad3(out, 1));
}

template <class C> void unfold_as(const T& x, T& out, const window::Geometry& g) {
  size_t batch = x.shape()[0], channels = x.shape()[1], rows = channels * g.kernel_size(), n = g.out_size();
  parallel_for(batch, 1, [&](size_t b0, size_t b1) {
    for (size_t b = b0; b < b1; ++b)
      window::im2col(x.data<C>() + b * channels * g.in_size(), channels, g, out.data<C>() + b * rows * n);
  });
}

template <class C> void fold_as(const T& x, T& out, size_t channels, const window::Geometry& g) {
  size_t batch = x.shape()[0], rows = channels * g.kernel_size(), n = g.out_size();
  parallel_for(batch, 1, [&](size_t b0, size_t b1) {
    for (size_t b = b0; b < b1; ++b) {
      C* dst = out.data<C>() + b * channels * g.in_size();
      std::fill(dst, dst + channels * g.in_size(), C(0));
      window::col2im_add(x.data<C>() + b * rows * n, channels, g, dst);
    }
  });
}

}  // namespace

T unfold4d(T x, const PoolSpec& spec) {
  DType d = x.dtype(), cd = window::compute_dtype(d);
  T xc = to_dtype(x, cd);
  const Shape& s = xc.shape();
  auto g = windows({s[2], s[3]}, spec);
  T out(Shape{s[0], s[1] * g.kernel_size(), g.out_size()}, cd);
  if (cd == DType::F64) unfold_as<double>(xc, out, g);
  else unfold_as<float>(xc, out, g);
  return to_dtype(out, d);
}

T fold4d(T x, const SpatialDims& output_size, const PoolSpec& spec) {
  DType d = x.dtype(), cd = window::compute_dtype(d);
  T xc = to_dtype(x, cd);
  auto g = windows(output_size, spec);
  size_t channels = xc.shape()[1] / g.kernel_size();
  T out(Shape{xc.shape()[0], channels, output_size[0], output_size[1]}, cd);
  if (cd == DType::F64) fold_as<double>(xc, out, channels, g);
  else fold_as<float>(xc, out, channels, g);
  return to_dtype(out, d);
}

}  // namespace scorch::backends::cpu::kernels

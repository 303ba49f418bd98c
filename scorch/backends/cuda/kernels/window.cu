// Interpolation (nearest, bilinear, bicubic; align_corners) and its gradient, and unfold/fold
// (im2col/col2im) of [batch, channels, spatial...] images, with the Cpu backend's coordinate
// rules and layouts. Spatial dims are right-aligned into three (unused ones of size 1). Each
// axis's taps are computed per thread without fused multiply-adds, so sample positions and
// forward sums match the Cpu backend bit for bit; gradients of interpolate scatter with atomics
// into a widened accumulator; fold gathers per output element in the Cpu's summation order.
#include <cmath>

#include "scorch/backend/module_shapes.h"
#include "scorch/backends/cuda/kernels/device.cuh"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda::kernels {
namespace {

// ---- exact (never fused) arithmetic, as the Cpu backend computes it

// a·b rounded once, never contracted into a multiply-add.
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
// a + b rounded once, never contracted into a multiply-add.
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }

// ---- interpolation

// Interpolation of planes images of spatial size in to size out (dims right-aligned into three).
struct Interp3 {
  int64_t planes = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  bool active[3] = {false, false, false};
  InterpolateMode mode = InterpolateMode::Nearest;
  bool align_corners = false;
  __host__ __device__ int64_t in_size() const { return in[0] * in[1] * in[2]; }
};

// The taps of one output index along one axis: source indices and weights.
struct Taps {
  int count = 0;
  int64_t index[4] = {};
  double weight[4] = {};
};

// Geometry of interpolating x [batch, channels, spatial...] by spec; output shape in out_shape.
Interp3 interp_geometry(const Shape& x, const InterpolateSpec& spec, Shape& out_shape) {
  size_t s = x.rank() - 2;
  Interp3 g;
  g.planes = static_cast<int64_t>(x[0] * x[1]);
  g.mode = spec.mode;
  g.align_corners = spec.align_corners;
  out_shape = x;
  for (size_t d = 0; d < s; ++d) {
    size_t k = 3 - s + d;
    g.in[k] = static_cast<int64_t>(x[d + 2]);
    g.out[k] = static_cast<int64_t>(spec.output_size[d]);
    g.active[k] = true;
    out_shape[d + 2] = spec.output_size[d];
  }
  return g;
}

// PyTorch's cubic convolution weight for |x| ≤ 1, unfused as on the Cpu.
__device__ double cubic_near(double x, double a) {
  return add_rn(mul_rn(mul_rn(add_rn(mul_rn(a + 2, x), -(a + 3)), x), x), 1.0);
}
// PyTorch's cubic convolution weight for 1 < |x| < 2, unfused as on the Cpu.
__device__ double cubic_far(double x, double a) {
  return add_rn(mul_rn(add_rn(mul_rn(add_rn(mul_rn(a, x), -5 * a), x), 8 * a), x), -4 * a);
}

// Taps of output o along axis d with the Cpu's rules, coordinates in R (float, or double for f64).
template <class R> __device__ Taps axis_taps(const Interp3& g, int d, int64_t o) {
  Taps t;
  int64_t in = g.in[d], out = g.out[d], last = in - 1;
  if (!g.active[d]) {
    t.count = 1;
    t.weight[0] = 1.0;
    return t;
  }
  if (g.mode == InterpolateMode::Nearest) {
    float scale = static_cast<float>(in) / static_cast<float>(out);
    auto i = static_cast<int64_t>(floorf(mul_rn(static_cast<float>(o), scale)));
    t.count = 1;
    t.index[0] = i < last ? i : last;
    t.weight[0] = 1.0;
    return t;
  }
  bool cubic = g.mode == InterpolateMode::Bicubic;
  R scale = g.align_corners ? (out > 1 ? static_cast<R>(in - 1) / static_cast<R>(out - 1) : R(0))
                            : static_cast<R>(in) / static_cast<R>(out);
  R src = g.align_corners ? mul_rn(scale, static_cast<R>(o))
                          : add_rn(mul_rn(scale, add_rn(static_cast<R>(o), R(0.5))), R(-0.5));
  if (!g.align_corners && !cubic && src < 0) src = 0;
  if (!cubic) {
    auto i0 = static_cast<int64_t>(src);
    double l1 = src - static_cast<R>(i0);
    t.count = 2;
    t.index[0] = i0;
    t.index[1] = i0 < last ? i0 + 1 : i0;
    t.weight[0] = 1.0 - l1;
    t.weight[1] = l1;
    return t;
  }
  auto i0 = static_cast<int64_t>(::floor(src));
  double f = src - static_cast<R>(i0), a = -0.75;
  t.count = 4;
  t.weight[0] = cubic_far(f + 1, a);
  t.weight[1] = cubic_near(f, a);
  t.weight[2] = cubic_near(1 - f, a);
  t.weight[3] = cubic_far(2 - f, a);
  for (int k = 0; k < 4; ++k) {
    int64_t i = i0 - 1 + k;
    t.index[k] = i < 0 ? 0 : (i > last ? last : i);
  }
  return t;
}

// Splits a flat index over planes of dims n[3] into plane and coordinates.
__device__ __forceinline__ void split3(const int64_t (&n)[3], int64_t i, int64_t& plane, int64_t (&c)[3]) {
  c[2] = i % n[2];
  i /= n[2];
  c[1] = i % n[1];
  i /= n[1];
  c[0] = i % n[0];
  plane = i / n[0];
}

// out[i] = Σ wz·(Σ wy·(Σ wx·x)) over output i's taps, summed innermost first as on the Cpu.
template <class E> __global__ void interpolate_kernel(const E* x, E* out, Interp3 g, int64_t n) {
  using C = dcompute_t<E>;
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t plane, o[3];
  split3(g.out, i, plane, o);
  Taps tz = axis_taps<C>(g, 0, o[0]), ty = axis_taps<C>(g, 1, o[1]), tx = axis_taps<C>(g, 2, o[2]);
  const E* p = x + plane * g.in_size();
  C acc = 0;
  for (int a = 0; a < tz.count; ++a) {
    C slab = 0;
    for (int b = 0; b < ty.count; ++b) {
      const E* line = p + (tz.index[a] * g.in[1] + ty.index[b]) * g.in[2];
      C row = 0;
      for (int c = 0; c < tx.count; ++c)
        row = add_rn(row, mul_rn(static_cast<C>(tx.weight[c]), load(line + tx.index[c])));
      slab = add_rn(slab, mul_rn(static_cast<C>(ty.weight[b]), row));
    }
    acc = add_rn(acc, mul_rn(static_cast<C>(tz.weight[a]), slab));
  }
  store(out + i, acc);
}

// acc[taps of grad i] += (wz·wy·wx)·grad[i] for every grad element i, atomically.
template <class E, class A> __global__ void interpolate_backward_kernel(const E* grad, A* acc, Interp3 g, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t plane, o[3];
  split3(g.out, i, plane, o);
  Taps tz = axis_taps<A>(g, 0, o[0]), ty = axis_taps<A>(g, 1, o[1]), tx = axis_taps<A>(g, 2, o[2]);
  A* p = acc + plane * g.in_size();
  A v = static_cast<A>(load(grad + i));
  for (int a = 0; a < tz.count; ++a)
    for (int b = 0; b < ty.count; ++b) {
      double w = tz.weight[a] * ty.weight[b];
      A* line = p + (tz.index[a] * g.in[1] + ty.index[b]) * g.in[2];
      for (int c = 0; c < tx.count; ++c) atomicAdd(line + tx.index[c], static_cast<A>(w * tx.weight[c]) * v);
    }
}

// ---- unfold / fold

// Sliding windows over planes' spatial dims right-aligned into three (as PoolSpec, output by conv_out).
struct Win3 {
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, padding[3] = {0, 0, 0}, dilation[3] = {1, 1, 1};
  __host__ __device__ int64_t in_size() const { return in[0] * in[1] * in[2]; }
  __host__ __device__ int64_t out_size() const { return out[0] * out[1] * out[2]; }
  __host__ __device__ int64_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
};

// Windows of spec over an image of spatial size in (one per spatial dim).
Win3 windows(const SpatialDims& in, const PoolSpec& spec) {
  size_t s = in.size();
  Win3 g;
  for (size_t d = 0; d < s; ++d) {
    size_t k = 3 - s + d;
    g.in[k] = static_cast<int64_t>(in[d]);
    g.out[k] = module_shapes::conv_out(in[d], spec.kernel[d], spec.stride[d], spec.padding[d], spec.dilation[d]);
    g.kernel[k] = static_cast<int64_t>(spec.kernel[d]);
    g.stride[k] = static_cast<int64_t>(spec.stride[d]);
    g.padding[k] = static_cast<int64_t>(spec.padding[d]);
    g.dilation[k] = static_cast<int64_t>(spec.dilation[d]);
  }
  return g;
}

// cols[b, c·kvol + kr, pix] = x[b, c, window pix at kernel offset kr], or 0 in the padding.
template <class E> __global__ void unfold_kernel(const E* x, E* cols, Win3 g, int64_t rows, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t pixels = g.out_size(), kvol = g.kernel_size();
  int64_t pix = i % pixels, r = (i / pixels) % rows, b = i / (pixels * rows);
  int64_t c = r / kvol, kr = r % kvol;
  int64_t k[3] = {kr / (g.kernel[2] * g.kernel[1]), (kr / g.kernel[2]) % g.kernel[1], kr % g.kernel[2]};
  int64_t o[3] = {pix / (g.out[2] * g.out[1]), (pix / g.out[2]) % g.out[1], pix % g.out[2]};
  int64_t at = 0;
  for (int d = 0; d < 3; ++d) {
    int64_t src = o[d] * g.stride[d] + k[d] * g.dilation[d] - g.padding[d];
    if (src < 0 || src >= g.in[d]) {
      cols[i] = to_storage<E>(0.0f);
      return;
    }
    at = at * g.in[d] + src;
  }
  cols[i] = x[(b * (rows / kvol) + c) * g.in_size() + at];
}

// The output position along dim d whose window reads input coordinate c at kernel offset k, or -1.
__device__ __forceinline__ int64_t reader(const Win3& g, int d, int64_t c, int64_t k) {
  int64_t t = c + g.padding[d] - k * g.dilation[d];
  if (t < 0 || t % g.stride[d] != 0) return -1;
  t /= g.stride[d];
  return t < g.out[d] ? t : -1;
}

// out[b, c, pixel] = Σ cols entries that unfold would read from pixel, in ascending kernel offset (Cpu order).
template <class E> __global__ void fold_kernel(const E* cols, E* out, Win3 g, int64_t channels, int64_t n) {
  using C = dcompute_t<E>;
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t plane, c[3];
  split3(g.in, i, plane, c);
  int64_t kvol = g.kernel_size(), pixels = g.out_size();
  const E* base = cols + plane * kvol * pixels;  // plane = b·channels + ch, rows of ch start at ch·kvol
  C sum = 0;
  for (int64_t kz = 0; kz < g.kernel[0]; ++kz) {
    int64_t oz = reader(g, 0, c[0], kz);
    if (oz < 0) continue;
    for (int64_t ky = 0; ky < g.kernel[1]; ++ky) {
      int64_t oy = reader(g, 1, c[1], ky);
      if (oy < 0) continue;
      for (int64_t kx = 0; kx < g.kernel[2]; ++kx) {
        int64_t ox = reader(g, 2, c[2], kx);
        if (ox < 0) continue;
        int64_t kr = (kz * g.kernel[1] + ky) * g.kernel[2] + kx;
        sum += load(base + kr * pixels + (oz * g.out[1] + oy) * g.out[2] + ox);
      }
    }
  }
  store(out + i, sum);
}

// Fills t with zeros on its stream.
void zero(const char* op, const T& t) {
  if (t.numel() != 0)
    check(cudaMemsetAsync(t.raw(), 0, t.numel() * dtype_size(t.dtype()), stream(t.device().index)), op);
}

}  // namespace

T interpolate(T x, const InterpolateSpec& spec) {
  const char* op = "interpolate";
  x = contiguous(std::move(x));
  Shape out_shape;
  Interp3 g = interp_geometry(x.shape(), spec, out_shape);
  T out(out_shape, x.dtype(), x.device());
  auto n = static_cast<int64_t>(out.numel());
  if (n == 0) return out;
  visit_float(op, x.dtype(), [&]<class E>() {
    interpolate_kernel<E><<<blocks_for(n), kThreads, 0, stream(x.device().index)>>>(x.data<E>(), out.data<E>(), g, n);
  });
  check_launch(op);
  return out;
}

T interpolate_backward(T x, T grad, const InterpolateSpec& spec) {
  const char* op = "interpolate_backward";
  DType d = x.dtype(), acc_dtype = d == DType::F64 ? DType::F64 : DType::F32;
  grad = grad.dtype() == d ? contiguous(std::move(grad)) : cast(std::move(grad), d);
  Shape out_shape;
  Interp3 g = interp_geometry(x.shape(), spec, out_shape);
  T acc(x.shape(), acc_dtype, x.device());
  zero(op, acc);
  auto n = static_cast<int64_t>(grad.numel());
  if (n != 0 && acc.numel() != 0) {
    visit_float(op, d, [&]<class E>() {
      using A = std::conditional_t<std::is_same_v<E, double>, double, float>;
      interpolate_backward_kernel<E, A>
          <<<blocks_for(n), kThreads, 0, stream(x.device().index)>>>(grad.data<E>(), acc.data<A>(), g, n);
    });
    check_launch(op);
  }
  return cast(std::move(acc), d);
}

T unfold4d(T x, const PoolSpec& spec) {
  const char* op = "unfold4d";
  x = contiguous(std::move(x));
  const Shape& s = x.shape();
  SpatialDims in(s.rank() - 2);
  for (size_t d = 0; d < in.size(); ++d) in[d] = s[d + 2];
  Win3 g = windows(in, spec);
  auto rows = static_cast<int64_t>(s[1]) * g.kernel_size();
  T out(Shape{s[0], static_cast<size_t>(rows), static_cast<size_t>(g.out_size())}, x.dtype(), x.device());
  auto n = static_cast<int64_t>(out.numel());
  if (n == 0) return out;
  visit_float(op, x.dtype(), [&]<class E>() {
    unfold_kernel<E><<<blocks_for(n), kThreads, 0, stream(x.device().index)>>>(x.data<E>(), out.data<E>(), g, rows, n);
  });
  check_launch(op);
  return out;
}

T fold4d(T x, const SpatialDims& output_size, const PoolSpec& spec) {
  const char* op = "fold4d";
  x = contiguous(std::move(x));
  Win3 g = windows(output_size, spec);
  auto channels = static_cast<int64_t>(x.shape()[1]) / g.kernel_size();
  Shape out_shape{x.shape()[0], static_cast<size_t>(channels)};
  for (size_t d : output_size) out_shape.push_back(d);
  T out(out_shape, x.dtype(), x.device());
  auto n = static_cast<int64_t>(out.numel());
  if (n == 0) return out;
  if (x.numel() == 0) {
    zero(op, out);
    return out;
  }
  visit_float(op, x.dtype(), [&]<class E>() {
    fold_kernel<E>
        <<<blocks_for(n), kThreads, 0, stream(x.device().index)>>>(x.data<E>(), out.data<E>(), g, channels, n);
  });
  check_launch(op);
  return out;
}

}  // namespace scorch::backends::cuda::kernels

// Pooling (average, max with indices, adaptive average/max) over 1 to 3 spatial dims and their
// gradients, with the Cpu backend's window, divisor and NaN rules. Spatial dims are padded to
// three (unit size, kernel 1, stride 1, padding 0, dilation 1 in front), one thread per output
// element forward; average gradients gather per input element (same summation order as Cpu),
// the max gradient scatters by the saved flat indices with atomics into a widened accumulator.
#include <cmath>
#include <string>

#include "scorch/backend/module_shapes.h"
#include "scorch/backends/cuda/kernels/device.cuh"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda::kernels {
namespace {

// Window geometry of one pooling op, spatial dims right-aligned into three.
struct Pool3 {
  int64_t planes = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, padding[3] = {0, 0, 0}, dilation[3] = {1, 1, 1};
  __host__ __device__ int64_t in_size() const { return in[0] * in[1] * in[2]; }
  __host__ __device__ int64_t out_size() const { return out[0] * out[1] * out[2]; }
};

// One window along one dim: [begin, end) clipped to the input, step between cells, and the
// unclipped length (count_include_pad).
struct Span {
  int64_t begin, end, step, padded;
};

enum class Kind { Avg, Max, Adaptive };

// The smaller / larger of two indices (min and max name tensor ops in this namespace).
__device__ __forceinline__ int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
__device__ __forceinline__ int64_t imax(int64_t a, int64_t b) { return a < b ? b : a; }

// Geometry of a (non-adaptive) pool of spec over x [batch, channels, spatial...]; output shape in out_shape.
Pool3 pool_geometry(const Shape& x, const PoolSpec& spec, Shape& out_shape) {
  size_t s = x.rank() - 2;
  Pool3 g;
  g.planes = static_cast<int64_t>(x[0] * x[1]);
  out_shape = x;
  for (size_t d = 0; d < s; ++d) {
    size_t k = 3 - s + d;
    int64_t o = module_shapes::pool_out(x[d + 2], spec.kernel[d], spec.stride[d], spec.padding[d], spec.dilation[d],
                                        spec.ceil_mode);
    g.in[k] = static_cast<int64_t>(x[d + 2]);
    g.out[k] = o;
    g.kernel[k] = static_cast<int64_t>(spec.kernel[d]);
    g.stride[k] = static_cast<int64_t>(spec.stride[d]);
    g.padding[k] = static_cast<int64_t>(spec.padding[d]);
    g.dilation[k] = static_cast<int64_t>(spec.dilation[d]);
    out_shape[d + 2] = static_cast<size_t>(o);
  }
  return g;
}

// Geometry of an adaptive pool of x to output_size (one per spatial dim); output shape in out_shape.
Pool3 adaptive_geometry(const Shape& x, const SpatialDims& output_size, Shape& out_shape) {
  size_t s = x.rank() - 2;
  Pool3 g;
  g.planes = static_cast<int64_t>(x[0] * x[1]);
  out_shape = x;
  for (size_t d = 0; d < s; ++d) {
    g.in[3 - s + d] = static_cast<int64_t>(x[d + 2]);
    g.out[3 - s + d] = static_cast<int64_t>(output_size[d]);
    out_shape[d + 2] = output_size[d];
  }
  return g;
}

// The window of output o along dim d, exactly as the Cpu backend clips it for each kind.
template <Kind K> __device__ Span span_of(const Pool3& g, int d, int64_t o) {
  if constexpr (K == Kind::Adaptive) {
    auto b = static_cast<int64_t>(module_shapes::adaptive_start(o, g.out[d], g.in[d]));
    auto e = static_cast<int64_t>(module_shapes::adaptive_end(o, g.out[d], g.in[d]));
    return {b, e, 1, e - b};
  } else if constexpr (K == Kind::Avg) {
    int64_t b = o * g.stride[d] - g.padding[d];
    int64_t e = imin(b + g.kernel[d], g.in[d] + g.padding[d]);
    return {imax(b, int64_t{0}), imin(e, g.in[d]), 1, e - b};
  } else {
    int64_t b = o * g.stride[d] - g.padding[d];
    int64_t e = imin(b + (g.kernel[d] - 1) * g.dilation[d] + 1, g.in[d]);
    while (b < 0) b += g.dilation[d];
    return {b, e, g.dilation[d], 0};
  }
}

// Splits a flat output index into plane and the three output coordinates.
__device__ __forceinline__ void split_out(const Pool3& g, int64_t i, int64_t& plane, int64_t (&o)[3]) {
  o[2] = i % g.out[2];
  i /= g.out[2];
  o[1] = i % g.out[1];
  i /= g.out[1];
  o[0] = i % g.out[0];
  plane = i / g.out[0];
}

// Splits a flat input index into plane and the three input coordinates.
__device__ __forceinline__ void split_in(const Pool3& g, int64_t i, int64_t& plane, int64_t (&c)[3]) {
  c[2] = i % g.in[2];
  i /= g.in[2];
  c[1] = i % g.in[1];
  i /= g.in[1];
  c[0] = i % g.in[0];
  plane = i / g.in[0];
}

// Divisor of an average window: the padded window when include_pad, else the cells inside.
template <class C> __device__ C divisor(const Span& z, const Span& y, const Span& x, bool include_pad) {
  int64_t count =
      include_pad ? z.padded * y.padded * x.padded : (z.end - z.begin) * (y.end - y.begin) * (x.end - x.begin);
  return static_cast<C>(count);
}

// out[i] = mean of x over output i's window (kind Avg or Adaptive), summed in the compute type.
template <class E, Kind K> __global__ void avg_pool_kernel(const E* x, E* out, Pool3 g, int64_t n, bool include_pad) {
  using C = dcompute_t<E>;
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t plane, o[3];
  split_out(g, i, plane, o);
  Span z = span_of<K>(g, 0, o[0]), y = span_of<K>(g, 1, o[1]), w = span_of<K>(g, 2, o[2]);
  const E* p = x + plane * g.in_size();
  C sum = 0;
  for (int64_t iz = z.begin; iz < z.end; ++iz)
    for (int64_t iy = y.begin; iy < y.end; ++iy)
      for (int64_t ix = w.begin; ix < w.end; ++ix) sum += load(p + (iz * g.in[1] + iy) * g.in[2] + ix);
  store(out + i, sum / divisor<C>(z, y, w, include_pad));
}

// The outputs along dim d whose windows (kind Avg or Adaptive) hold input coordinate c: [lo, hi).
template <Kind K> __device__ void covering(const Pool3& g, int d, int64_t c, int64_t& lo, int64_t& hi) {
  if constexpr (K == Kind::Adaptive) {
    lo = c * g.out[d] / g.in[d];
    hi = lo;
    while (hi < g.out[d] && static_cast<int64_t>(module_shapes::adaptive_start(hi, g.out[d], g.in[d])) <= c) ++hi;
  } else {
    int64_t top = c + g.padding[d];  // o·stride ≤ top and top < o·stride + kernel
    int64_t first = top - g.kernel[d] + 1;
    lo = first <= 0 ? 0 : (first + g.stride[d] - 1) / g.stride[d];
    hi = imin(top / g.stride[d] + 1, g.out[d]);
  }
}

// dx[i] = Σ grad[o] / divisor(o) over the windows o holding input i, in ascending o (Cpu order).
template <class E, Kind K>
__global__ void avg_pool_backward_kernel(const E* grad, E* dx, Pool3 g, int64_t n, bool include_pad) {
  using C = dcompute_t<E>;
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t plane, c[3], lo[3], hi[3];
  split_in(g, i, plane, c);
  for (int d = 0; d < 3; ++d) covering<K>(g, d, c[d], lo[d], hi[d]);
  const E* gp = grad + plane * g.out_size();
  C sum = 0;
  for (int64_t oz = lo[0]; oz < hi[0]; ++oz) {
    Span z = span_of<K>(g, 0, oz);
    if (c[0] < z.begin || c[0] >= z.end) continue;
    for (int64_t oy = lo[1]; oy < hi[1]; ++oy) {
      Span y = span_of<K>(g, 1, oy);
      if (c[1] < y.begin || c[1] >= y.end) continue;
      for (int64_t ox = lo[2]; ox < hi[2]; ++ox) {
        Span w = span_of<K>(g, 2, ox);
        if (c[2] < w.begin || c[2] >= w.end) continue;
        sum += load(gp + (oz * g.out[1] + oy) * g.out[2] + ox) / divisor<C>(z, y, w, include_pad);
      }
    }
  }
  store(dx + i, sum);
}

// out[i], idx[i] = max of x over output i's window (kind Max or Adaptive) and its flat index in the
// plane; a NaN wins over numbers and a later NaN over an earlier one; an empty window gives -inf at its start.
template <class E, Kind K> __global__ void max_pool_kernel(const E* x, E* out, int64_t* idx, Pool3 g, int64_t n) {
  using C = dcompute_t<E>;
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t plane, o[3];
  split_out(g, i, plane, o);
  Span z = span_of<K>(g, 0, o[0]), y = span_of<K>(g, 1, o[1]), w = span_of<K>(g, 2, o[2]);
  const E* p = x + plane * g.in_size();
  C best = -INFINITY;
  int64_t best_i = (z.begin * g.in[1] + y.begin) * g.in[2] + w.begin;
  for (int64_t iz = z.begin; iz < z.end; iz += z.step)
    for (int64_t iy = y.begin; iy < y.end; iy += y.step)
      for (int64_t ix = w.begin; ix < w.end; ix += w.step) {
        int64_t j = (iz * g.in[1] + iy) * g.in[2] + ix;
        C v = load(p + j);
        if (v > best || v != v) {
          best = v;
          best_i = j;
        }
      }
  store(out + i, best);
  idx[i] = best_i;
}

// acc[plane·in + idx[i]] += grad[i] for each output i of plane i / out; a bad index sets err instead.
template <class E, class A> __global__ void max_pool_backward_kernel(const E* grad, const int64_t* idx, A* acc,
                                                                     int64_t in, int64_t out, int64_t n,
                                                                     unsigned long long* err) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t j = idx[i];
  if (j < 0 || j >= in) {
    err[1] = static_cast<unsigned long long>(j);
    err[0] = 1;
    return;
  }
  atomicAdd(acc + (i / out) * in + j, static_cast<A>(load(grad + i)));
}

// A contiguous copy of t in dtype d (t itself when already so).
T dense_as(T t, DType d) { return t.dtype() == d ? contiguous(std::move(t)) : cast(std::move(t), d); }

// Average pool (Avg or Adaptive windows) of x into out_shape.
template <Kind K> T avg_forward(const char* op, T x, const Pool3& g, const Shape& out_shape, bool include_pad) {
  x = contiguous(std::move(x));
  T out(out_shape, x.dtype(), x.device());
  auto n = static_cast<int64_t>(out.numel());
  if (n == 0 || x.numel() == 0) return out;
  visit_float(op, x.dtype(), [&]<class E>() {
    avg_pool_kernel<E, K>
        <<<blocks_for(n), kThreads, 0, stream(x.device().index)>>>(x.data<E>(), out.data<E>(), g, n, include_pad);
  });
  check_launch(op);
  return out;
}

// Gradient of an average pool (Avg or Adaptive windows) with respect to x, from grad of the output.
// Non-overlapping windows that tile the input exactly (kernel = stride, no padding): each input
// cell gets its one window's gradient over the window size. I: index type (32-bit when it fits).
template <class E, class I>
__global__ void tiled_avg_backward_kernel(const E* grad, E* dx, I n, Pool3 g, I k0, I k1, I k2, dcompute_t<E> scale) {
  I i = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  I in1 = static_cast<I>(g.in[1]), in2 = static_cast<I>(g.in[2]), in0 = static_cast<I>(g.in[0]);
  I x2 = i % in2, r = i / in2, x1 = r % in1;
  r /= in1;
  I x0 = r % in0, plane = r / in0;
  I o = ((plane * static_cast<I>(g.out[0]) + x0 / k0) * static_cast<I>(g.out[1]) + x1 / k1) * static_cast<I>(g.out[2]) +
        x2 / k2;
  store(dx + i, load(grad + o) * scale);
}

// True when every window is [o·k, o·k + k) with k = in / out along each dim (adaptive pools of a
// divisible size, or average pools with kernel = stride and no padding).
template <Kind K> bool tiled(const Pool3& g, int64_t (&k)[3]) {
  for (int d = 0; d < 3; ++d) {
    if (g.out[d] == 0 || g.in[d] % g.out[d] != 0) return false;
    k[d] = g.in[d] / g.out[d];
    if (K == Kind::Avg && (g.kernel[d] != k[d] || g.stride[d] != k[d] || g.padding[d] != 0)) return false;
  }
  return true;
}

template <Kind K> T avg_backward(const char* op, const T& x, T grad, const Pool3& g, bool include_pad) {
  grad = dense_as(std::move(grad), x.dtype());
  T dx(x.shape(), x.dtype(), x.device());
  auto n = static_cast<int64_t>(dx.numel());
  if (n == 0) return dx;
  cudaStream_t s = stream(x.device().index);
  if (grad.numel() == 0) {
    check(cudaMemsetAsync(dx.raw(), 0, n * dtype_size(dx.dtype()), s), op);
    return dx;
  }
  int64_t k[3] = {1, 1, 1};
  bool tile = tiled<K>(g, k);
  visit_float(op, x.dtype(), [&]<class E>() {
    using C = dcompute_t<E>;
    C scale = C(1) / static_cast<C>(k[0] * k[1] * k[2]);
    if (tile && n < 0x7fffffff)
      tiled_avg_backward_kernel<E, uint32_t><<<blocks_for(n), kThreads, 0, s>>>(
          grad.data<E>(), dx.data<E>(), static_cast<uint32_t>(n), g, static_cast<uint32_t>(k[0]),
          static_cast<uint32_t>(k[1]), static_cast<uint32_t>(k[2]), scale);
    else if (tile)
      tiled_avg_backward_kernel<E, int64_t>
          <<<blocks_for(n), kThreads, 0, s>>>(grad.data<E>(), dx.data<E>(), n, g, k[0], k[1], k[2], scale);
    else
      avg_pool_backward_kernel<E, K>
          <<<blocks_for(n), kThreads, 0, s>>>(grad.data<E>(), dx.data<E>(), g, n, include_pad);
  });
  check_launch(op);
  return dx;
}

// Max pool (Max or Adaptive windows) of x: values of out_shape and I64 flat indices.
template <Kind K> std::pair<T, T> max_forward(const char* op, T x, const Pool3& g, const Shape& out_shape) {
  x = contiguous(std::move(x));
  T out(out_shape, x.dtype(), x.device()), idx(out_shape, DType::I64, x.device());
  auto n = static_cast<int64_t>(out.numel());
  if (n == 0) return {out, idx};
  visit_float(op, x.dtype(), [&]<class E>() {
    max_pool_kernel<E, K><<<blocks_for(n), kThreads, 0, stream(x.device().index)>>>(x.data<E>(), out.data<E>(),
                                                                                    idx.data<int64_t>(), g, n);
  });
  check_launch(op);
  return {out, idx};
}

// Throws ShapeError (as the Cpu backend) when the scatter flagged an index outside a channel's in values (unchecked
// while a graph is captured).
void check_scatter(const char* op, const T& err, int64_t in, cudaStream_t s) {
  if (is_capturing(s)) return;
  unsigned long long host[2] = {0, 0};
  check(cudaMemcpyAsync(host, err.raw(), sizeof(host), cudaMemcpyDeviceToHost, s), op);
  check(cudaStreamSynchronize(s), op);
  if (host[0] != 0)
    throw ShapeError(op, "index " + std::to_string(static_cast<int64_t>(host[1])) + " is outside the " +
                             std::to_string(in) + " values of a channel");
}

}  // namespace

T avg_pool(T x, const PoolSpec& spec) {
  Shape out_shape;
  Pool3 g = pool_geometry(x.shape(), spec, out_shape);
  return avg_forward<Kind::Avg>("avg_pool", std::move(x), g, out_shape, spec.count_include_pad);
}

T avg_pool_backward(T x, T grad, const PoolSpec& spec) {
  Shape out_shape;
  Pool3 g = pool_geometry(x.shape(), spec, out_shape);
  return avg_backward<Kind::Avg>("avg_pool_backward", x, std::move(grad), g, spec.count_include_pad);
}

std::pair<T, T> max_pool_with_indices(T x, const PoolSpec& spec) {
  Shape out_shape;
  Pool3 g = pool_geometry(x.shape(), spec, out_shape);
  return max_forward<Kind::Max>("max_pool_with_indices", std::move(x), g, out_shape);
}

std::pair<T, T> adaptive_max_pool_with_indices(T x, const SpatialDims& output_size) {
  Shape out_shape;
  Pool3 g = adaptive_geometry(x.shape(), output_size, out_shape);
  return max_forward<Kind::Adaptive>("adaptive_max_pool_with_indices", std::move(x), g, out_shape);
}

T max_pool_backward(T x, T grad, T indices) {
  const char* op = "max_pool_backward";
  DType d = x.dtype(), acc_dtype = d == DType::F64 ? DType::F64 : DType::F32;
  grad = dense_as(std::move(grad), d);
  indices = dense_as(std::move(indices), DType::I64);
  const Shape& s = x.shape();
  auto planes = static_cast<int64_t>(s[0] * s[1]);
  int64_t in = planes ? static_cast<int64_t>(x.numel()) / planes : 0,
          out = planes ? static_cast<int64_t>(grad.numel()) / planes : 0;
  T acc(s, acc_dtype, x.device());
  if (acc.numel() == 0) return dense_as(acc, d);
  cudaStream_t st = stream(x.device().index);
  check(cudaMemsetAsync(acc.raw(), 0, acc.numel() * dtype_size(acc_dtype), st), op);
  auto n = static_cast<int64_t>(grad.numel());
  if (n == 0) return dense_as(acc, d);
  T err(Shape{2}, DType::I64, x.device());
  check(cudaMemsetAsync(err.raw(), 0, 2 * sizeof(int64_t), st), op);
  auto* flag = reinterpret_cast<unsigned long long*>(err.raw());
  visit_float(op, d, [&]<class E>() {
    using A = std::conditional_t<std::is_same_v<E, double>, double, float>;
    max_pool_backward_kernel<E, A>
        <<<blocks_for(n), kThreads, 0, st>>>(grad.data<E>(), indices.data<int64_t>(), acc.data<A>(), in, out, n, flag);
  });
  check_launch(op);
  check_scatter(op, err, in, st);
  return dense_as(acc, d);
}

T adaptive_avg_pool(T x, const SpatialDims& output_size) {
  Shape out_shape;
  Pool3 g = adaptive_geometry(x.shape(), output_size, out_shape);
  return avg_forward<Kind::Adaptive>("adaptive_avg_pool", std::move(x), g, out_shape, true);
}

T adaptive_avg_pool_backward(T x, T grad) {
  size_t s = x.shape().rank() - 2;
  SpatialDims out(s);
  for (size_t i = 0; i < s; ++i) out[i] = grad.shape()[i + 2];
  Shape out_shape;
  Pool3 g = adaptive_geometry(x.shape(), out, out_shape);
  return avg_backward<Kind::Adaptive>("adaptive_avg_pool_backward", x, std::move(grad), g, true);
}

}  // namespace scorch::backends::cuda::kernels

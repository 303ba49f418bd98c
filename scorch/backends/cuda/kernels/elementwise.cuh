#pragma once
// Elementwise kernels and their host launchers (nvcc only). Contiguous operands run a kernel that
// moves 16 bytes per load; broadcast or strided binary operands run an offset-computing kernel.
// f16/bf16 compute in f32. A result reuses a uniquely owned, dense input buffer.
#include <utility>

#include "scorch/backends/cuda/kernels/device.cuh"

namespace scorch::backends::cuda {

template <class In, class Out> constexpr int kPairVec = kVec<In> < kVec<Out> ? kVec<In> : kVec<Out>;

template <class In, class Out, class F>
__global__ void map_contiguous_kernel(const In* __restrict__ x, Out* __restrict__ y, int64_t n, bool vec, F f) {
  constexpr int V = kPairVec<In, Out>;
  int64_t base = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * V;
  if (base >= n) return;
  if (vec && base + V <= n) {
    Pack<In, V> p = *reinterpret_cast<const Pack<In, V>*>(x + base);
    Pack<Out, V> q;
#pragma unroll
    for (int j = 0; j < V; ++j) q.v[j] = to_storage<Out>(f(load(&p.v[j])));
    *reinterpret_cast<Pack<Out, V>*>(y + base) = q;
    return;
  }
  for (int j = 0; j < V && base + j < n; ++j) store(y + base + j, f(load(x + base + j)));
}

template <class In, class Out, class F>
__global__ void zip_contiguous_kernel(const In* a, const In* b, Out* y, int64_t n, bool vec, F f) {
  constexpr int V = kPairVec<In, Out>;
  int64_t base = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * V;
  if (base >= n) return;
  if (vec && base + V <= n) {
    Pack<In, V> p = *reinterpret_cast<const Pack<In, V>*>(a + base);
    Pack<In, V> r = *reinterpret_cast<const Pack<In, V>*>(b + base);
    Pack<Out, V> q;
#pragma unroll
    for (int j = 0; j < V; ++j) q.v[j] = to_storage<Out>(f(load(&p.v[j]), load(&r.v[j])));
    *reinterpret_cast<Pack<Out, V>*>(y + base) = q;
    return;
  }
  for (int j = 0; j < V && base + j < n; ++j) store(y + base + j, f(load(a + base + j), load(b + base + j)));
}

template <class In, class Out, class F>
__global__ void zip_strided_kernel(const In* a, const In* b, Out* y, int64_t n, Geometry<2> g, F f) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t off[2];
  g.offsets(i, off);
  store(y + i, f(load(a + off[0]), load(b + off[1])));
}

// One full contiguous operand and one broadcast along rows (part[i % width], kColumn false) or
// along columns (part[i / width], kColumn true) of a [rows, width] result; width % V == 0 and all
// pointers 16-byte aligned, so both operands load 16 bytes at a time.
template <class In, class Out, class F, bool kColumn>
__global__ void zip_broadcast_kernel(const In* full, const In* part, Out* y, int64_t n, int64_t width, bool part_first,
                                     F f) {
  constexpr int V = kPairVec<In, Out>;
  int64_t base = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * V;
  if (base >= n) return;
  Pack<In, V> p = *reinterpret_cast<const Pack<In, V>*>(full + base);
  Pack<In, V> q;
  if constexpr (kColumn) {
#pragma unroll
    for (int j = 0; j < V; ++j) q.v[j] = part[base / width];
  } else {
    q = *reinterpret_cast<const Pack<In, V>*>(part + base % width);
  }
  Pack<Out, V> r;
#pragma unroll
  for (int j = 0; j < V; ++j)
    r.v[j] = to_storage<Out>(part_first ? f(load(&q.v[j]), load(&p.v[j])) : f(load(&p.v[j]), load(&q.v[j])));
  *reinterpret_cast<Pack<Out, V>*>(y + base) = r;
}

/// Launches zip_broadcast_kernel when g is [rows, width] with one operand dense and the other a row
/// or column broadcast that vector loads can serve; false otherwise.
template <class In, class Out, class F>
bool try_zip_broadcast(const Geometry<2>& g, const In* pa, const In* pb, Out* dst, int64_t n, cudaStream_t s, F f) {
  constexpr int V = kPairVec<In, Out>;
  if (g.rank != 2 || g.dims[1] % V != 0 || !aligned16(pa) || !aligned16(pb) || !aligned16(dst)) return false;
  int64_t w = g.dims[1];
  auto dense = [&](int k) { return g.strides[k][0] == w && g.strides[k][1] == 1; };
  auto row = [&](int k) { return g.strides[k][0] == 0 && g.strides[k][1] == 1; };
  auto column = [&](int k) { return g.strides[k][0] == 1 && g.strides[k][1] == 0; };
  for (int full = 0; full < 2; ++full) {
    int part = 1 - full;
    if (!dense(full) || !(row(part) || column(part))) continue;
    const In* pf = full == 0 ? pa : pb;
    const In* pp = full == 0 ? pb : pa;
    if (row(part))
      zip_broadcast_kernel<In, Out, F, false><<<blocks_for(n, V), kThreads, 0, s>>>(pf, pp, dst, n, w, part == 0, f);
    else zip_broadcast_kernel<In, Out, F, true><<<blocks_for(n, V), kThreads, 0, s>>>(pf, pp, dst, n, w, part == 0, f);
    return true;
  }
  return false;
}

/// f bound to a fixed right operand: x ↦ f(x, s).
template <class F, class C> struct BindRight {
  F f;
  C s;
  template <class X> __device__ __forceinline__ auto operator()(X x) const { return f(static_cast<C>(x), s); }
};

/// out[i] = f(x[i]) with device storage types In → Out; a strided x is made contiguous first.
template <class In, class Out, class F> CudaTensor map_unary(const char* op, CudaTensor x, DType out_dtype, F f) {
  x = contiguous(std::move(x));
  CudaTensor out = reuse_or_alloc(x, x.shape(), out_dtype);
  auto n = static_cast<int64_t>(x.numel());
  if (n == 0) return out;
  constexpr int V = kPairVec<In, Out>;
  const In* src = x.data<In>();
  Out* dst = out.data<Out>();
  map_contiguous_kernel<In, Out, F>
      <<<blocks_for(n, V), kThreads, 0, stream(x.device().index)>>>(src, dst, n, aligned16(src) && aligned16(dst), f);
  check_launch(op);
  return out;
}

/// Throws DeviceError unless a and b live on the same device.
inline void check_same_device(const char* op, const CudaTensor& a, const CudaTensor& b) {
  if (!(a.device() == b.device()))
    throw DeviceError(op, "operands on " + a.device().to_string() + " and " + b.device().to_string());
}

/// out[i] = f(a[i], b[i]) with broadcasting; storage types In, In → Out.
template <class In, class Out, class F>
CudaTensor map_binary(const char* op, CudaTensor a, CudaTensor b, DType out_dtype, F f) {
  check_same_device(op, a, b);
  Shape shape = broadcast_shapes(op, a.shape(), b.shape());
  CudaTensor out = reusable(a, shape, out_dtype)   ? a
                   : reusable(b, shape, out_dtype) ? b
                                                   : CudaTensor(shape, out_dtype, a.device());
  auto n = static_cast<int64_t>(out.numel());
  if (n == 0) return out;
  cudaStream_t s = stream(a.device().index);
  const In* pa = a.data<In>();
  const In* pb = b.data<In>();
  Out* dst = out.data<Out>();
  if (a.is_contiguous() && b.is_contiguous() && a.shape() == b.shape()) {
    constexpr int V = kPairVec<In, Out>;
    bool vec = aligned16(pa) && aligned16(pb) && aligned16(dst);
    zip_contiguous_kernel<In, Out, F><<<blocks_for(n, V), kThreads, 0, s>>>(pa, pb, dst, n, vec, f);
  } else {
    Strides sa = broadcast_strides(a, shape), sb = broadcast_strides(b, shape);
    const Strides* operands[2] = {&sa, &sb};
    Geometry<2> g(shape, operands);
    if (!try_zip_broadcast<In, Out, F>(g, pa, pb, dst, n, s, f))
      zip_strided_kernel<In, Out, F><<<blocks_for(n), kThreads, 0, s>>>(pa, pb, dst, n, g, f);
  }
  check_launch(op);
  return out;
}

/// f applied to every value of a float tensor; same dtype out.
template <class F> CudaTensor unary_float(const char* op, CudaTensor x, F f) {
  DType d = x.dtype();
  return visit_float(op, d, [&]<class E>() { return map_unary<E, E>(op, std::move(x), d, f); });
}
/// f applied to every value of a numeric tensor; same dtype out.
template <class F> CudaTensor unary_numeric(const char* op, CudaTensor x, F f) {
  DType d = x.dtype();
  return visit_numeric(op, d, [&]<class E>() { return map_unary<E, E>(op, std::move(x), d, f); });
}
/// f(a, b) on two tensors of one numeric dtype, broadcast; same dtype out.
template <class F> CudaTensor binary_numeric(const char* op, CudaTensor a, CudaTensor b, F f) {
  DType d = a.dtype();
  return visit_numeric(op, d, [&]<class E>() { return map_binary<E, E>(op, std::move(a), std::move(b), d, f); });
}
/// f(a, s) with the scalar converted to the tensor's compute type; same dtype out.
template <class F> CudaTensor scalar_numeric(const char* op, CudaTensor a, Scalar s, F f) {
  DType d = a.dtype();
  return visit_numeric(op, d, [&]<class E>() {
    using C = dcompute_t<E>;
    return map_unary<E, E>(op, std::move(a), d, BindRight<F, C>{f, scalar_as<E>(s)});
  });
}

/// Comparison f(a, b) → bool, broadcast, for any dtype.
template <class F> CudaTensor compare(const char* op, CudaTensor a, CudaTensor b, F f) {
  return visit_any(op, a.dtype(),
                   [&]<class E>() { return map_binary<E, bool>(op, std::move(a), std::move(b), DType::Bool, f); });
}
// Float tensors, and int tensors against a fractional scalar, compare in double (as the Cpu backend).
template <class F> CudaTensor compare_scalar(const char* op, CudaTensor a, Scalar s, F f) {
  return visit_any(op, a.dtype(), [&]<class E>() {
    if (kDeviceFloat<E> || s.is_float())
      return map_unary<E, bool>(op, std::move(a), DType::Bool, BindRight<F, double>{f, s.to_double()});
    return map_unary<E, bool>(op, std::move(a), DType::Bool, BindRight<F, dcompute_t<E>>{f, scalar_as<E>(s)});
  });
}
/// f(a, b) on two bool tensors, broadcast.
template <class F> CudaTensor bool_binary(const char* op, CudaTensor a, CudaTensor b, F f) {
  return map_binary<bool, bool>(op, std::move(a), std::move(b), DType::Bool, f);
}
/// f(a, b) on two tensors of one int dtype, broadcast; same dtype out.
template <class F> CudaTensor int_binary(const char* op, CudaTensor a, CudaTensor b, F f) {
  DType d = a.dtype();
  return visit_int(op, d, [&]<class E>() { return map_binary<E, E>(op, std::move(a), std::move(b), d, f); });
}
/// f(a, s) with the scalar as the tensor's int type; same dtype out.
template <class F> CudaTensor int_scalar(const char* op, CudaTensor a, Scalar s, F f) {
  DType d = a.dtype();
  return visit_int(op, d, [&]<class E>() {
    return map_unary<E, E>(op, std::move(a), d, BindRight<F, E>{f, static_cast<E>(s.to_int())});
  });
}

}  // namespace scorch::backends::cuda

#pragma once
// Elementwise loops: contiguous operands run a flat vectorizable loop; others (views,
// broadcasts) run strided rows. f16/bf16 compute in f32. Results reuse a uniquely owned input.
#include <cstring>
#include <limits>
#include <type_traits>

#include "scorch/backends/cpu/cpu_tensor.h"
#include "scorch/backends/cpu/kernels/strided.h"
#include "scorch/backends/cpu/kernels/visit.h"
#include "scorch/core/scalar.h"

namespace scorch::backends::cpu {

template <class T> inline compute_t<T> load(const T* p) { return static_cast<compute_t<T>>(*p); }
template <class T, class V> inline void store(T* p, V v) {
  if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
    *p = T(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && std::is_floating_point_v<V>) {
    // A float past the integer type's range saturates (NaN is 0): a cast of any value is defined.
    constexpr double lo = static_cast<double>(std::numeric_limits<T>::min());
    constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
    *p = !(v == v) ? T(0) : v <= lo ? std::numeric_limits<T>::min() : v >= hi ? std::numeric_limits<T>::max() : T(v);
  } else {
    *p = static_cast<T>(v);
  }
}

/// out[i] = f(x[i]) with storage types In → Out.
template <class In, class Out, class F> CpuTensor map_unary(CpuTensor x, DType out_dtype, F f) {
  CpuTensor out = reuse_or_alloc(x, x.shape(), out_dtype);
  const In* src = x.data<In>();
  Out* dst = out.data<Out>();
  if (x.is_contiguous()) {
    parallel_for(x.numel(), kElementwiseGrain, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) store(dst + i, f(load(src + i)));
    });
    return out;
  }
  strided_rows<2>(x.shape(), {&out.strides(), &x.strides()}, [&](auto off, auto st, size_t n) {
    for (size_t i = 0; i < n; ++i) store(dst + off[0] + i, f(load(src + off[1] + static_cast<int64_t>(i) * st[1])));
  });
  return out;
}

/// out[i] = f(a[i], b[i]) with broadcasting; storage types T, T → Out.
template <class T, class Out, class F>
CpuTensor map_binary(const char* op, CpuTensor a, CpuTensor b, DType out_dtype, F f) {
  Shape shape = broadcast_shapes(op, a.shape(), b.shape());
  CpuTensor out = reusable(a, shape, out_dtype) ? a : reusable(b, shape, out_dtype) ? b : CpuTensor(shape, out_dtype);
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  Out* dst = out.data<Out>();
  if (a.is_contiguous() && b.is_contiguous() && a.shape() == b.shape()) {
    parallel_for(out.numel(), kElementwiseGrain, [&](size_t lo, size_t hi) {
      for (size_t i = lo; i < hi; ++i) store(dst + i, f(load(pa + i), load(pb + i)));
    });
    return out;
  }
  Strides sa = broadcast_strides(a, shape), sb = broadcast_strides(b, shape);
  strided_rows<3>(shape, {&out.strides(), &sa, &sb}, [&](auto off, auto st, size_t n) {
    const T* ra = pa + off[1];
    const T* rb = pb + off[2];
    Out* ro = dst + off[0];
    if (st[1] == 1 && st[2] == 1) {  // rows of both (a bias added to every row)
      for (size_t i = 0; i < n; ++i) store(ro + i, f(load(ra + i), load(rb + i)));
    } else if (st[1] == 1 && st[2] == 0) {
      auto vb = load(rb);
      for (size_t i = 0; i < n; ++i) store(ro + i, f(load(ra + i), vb));
    } else if (st[1] == 0 && st[2] == 1) {
      auto va = load(ra);
      for (size_t i = 0; i < n; ++i) store(ro + i, f(va, load(rb + i)));
    } else {
      for (size_t i = 0; i < n; ++i)
        store(ro + i, f(load(ra + static_cast<int64_t>(i) * st[1]), load(rb + static_cast<int64_t>(i) * st[2])));
    }
  });
  return out;
}

/// f applied to every value of a float tensor; same dtype out.
template <class F> CpuTensor unary_float(const char* op, CpuTensor x, F f) {
  return visit_float(op, x.dtype(), [&]<class T>() { return map_unary<T, T>(std::move(x), x.dtype(), f); });
}
/// f applied to every value of a numeric tensor; same dtype out.
template <class F> CpuTensor unary_numeric(const char* op, CpuTensor x, F f) {
  return visit_numeric(op, x.dtype(), [&]<class T>() { return map_unary<T, T>(std::move(x), x.dtype(), f); });
}
/// f(a, b) on two tensors of one numeric dtype, broadcast; same dtype out.
template <class F> CpuTensor binary_numeric(const char* op, CpuTensor a, CpuTensor b, F f) {
  DType d = a.dtype();
  return visit_numeric(op, d, [&]<class T>() { return map_binary<T, T>(op, std::move(a), std::move(b), d, f); });
}
/// f(a, s) with a scalar converted to the tensor's compute type; same dtype out.
template <class F> CpuTensor scalar_numeric(const char* op, CpuTensor a, Scalar s, F f) {
  return visit_numeric(op, a.dtype(), [&]<class T>() {
    auto v = static_cast<compute_t<T>>(s.as<T>());
    if constexpr (std::is_floating_point_v<compute_t<T>>) v = static_cast<compute_t<T>>(s.to_double());
    return map_unary<T, T>(std::move(a), a.dtype(), [&](auto x) { return f(x, v); });
  });
}
/// Comparison f(a, b) → bool, broadcast, for any dtype.
template <class F> CpuTensor compare(const char* op, CpuTensor a, CpuTensor b, F f) {
  return visit_any(op, a.dtype(),
                   [&]<class T>() { return map_binary<T, bool>(op, std::move(a), std::move(b), DType::Bool, f); });
}
/// Comparison f(a, s) → bool against a scalar.
template <class F> CpuTensor compare_scalar(const char* op, CpuTensor a, Scalar s, F f) {
  return visit_any(op, a.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<compute_t<T>>) {
      double v = s.to_double();
      return map_unary<T, bool>(std::move(a), DType::Bool, [&](auto x) { return f(static_cast<double>(x), v); });
    } else {
      auto v = static_cast<compute_t<T>>(s.as<T>());
      if (s.is_float()) {  // an int tensor against a fractional scalar compares in double
        double dv = s.to_double();
        return map_unary<T, bool>(std::move(a), DType::Bool, [&](auto x) { return f(static_cast<double>(x), dv); });
      }
      return map_unary<T, bool>(std::move(a), DType::Bool, [&](auto x) { return f(x, v); });
    }
  });
}

/// f(a, b) on two bool tensors, broadcast.
template <class F> CpuTensor bool_binary(const char* op, CpuTensor a, CpuTensor b, F f) {
  return map_binary<bool, bool>(op, std::move(a), std::move(b), DType::Bool, f);
}
/// f(a, b) on two tensors of one int dtype, broadcast; same dtype out.
template <class F> CpuTensor int_binary(const char* op, CpuTensor a, CpuTensor b, F f) {
  DType d = a.dtype();
  return visit_int(op, d, [&]<class E>() { return map_binary<E, E>(op, std::move(a), std::move(b), d, f); });
}
/// f(a, s) with the scalar as the tensor's int type; same dtype out.
template <class F> CpuTensor int_scalar(const char* op, CpuTensor a, Scalar s, F f) {
  return visit_int(op, a.dtype(), [&]<class E>() {
    auto v = static_cast<compute_t<E>>(s.to_int());
    return map_unary<E, E>(std::move(a), a.dtype(), [&](auto x) { return f(x, v); });
  });
}

}  // namespace scorch::backends::cpu

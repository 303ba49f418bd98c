#pragma once
// Device-side building blocks shared by the Cuda kernels (nvcc only): device storage types per
// dtype, dispatch, loads/stores that compute f16/bf16 in f32, launch geometry and strided offsets.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "scorch/backends/cuda/cuda_tensor.h"
#include "scorch/backends/cuda/device_runtime.h"
#include "scorch/core/error.h"
#include "scorch/core/scalar.h"

namespace scorch::backends::cuda {

/// Calls f.template operator()<W>() with W an unsigned word of the given byte size (1, 2, 4, else 8): copies.
template <class F> void visit_word(size_t bytes, F&& f) {
  switch (bytes) {
    case 1: f.template operator()<uint8_t>(); break;
    case 2: f.template operator()<uint16_t>(); break;
    case 4: f.template operator()<uint32_t>(); break;
    default: f.template operator()<uint64_t>(); break;
  }
}

/// Arithmetic type for a device storage type: f32 for the 16-bit floats, itself otherwise.
template <class E> struct DeviceCompute { using type = E; };
template <> struct DeviceCompute<__half> { using type = float; };
template <> struct DeviceCompute<__nv_bfloat16> { using type = float; };
template <class E> using dcompute_t = typename DeviceCompute<E>::type;
template <class E> constexpr bool kDeviceFloat = std::is_floating_point_v<dcompute_t<E>>;

/// Accumulator of a reduction over E: double for floats, int64 for ints (as the Cpu backend).
template <class E> using dacc_t = std::conditional_t<kDeviceFloat<E>, double, int64_t>;

template <class E> __device__ __forceinline__ dcompute_t<E> load(const E* p) { return static_cast<dcompute_t<E>>(*p); }
template <class E, class V> __device__ __forceinline__ E to_storage(V v) {
  if constexpr (std::is_same_v<E, __half>) return __float2half_rn(static_cast<float>(v));
  else if constexpr (std::is_same_v<E, __nv_bfloat16>) return __float2bfloat16_rn(static_cast<float>(v));
  else return static_cast<E>(v);
}
template <class E, class V> __device__ __forceinline__ void store(E* p, V v) { *p = to_storage<E>(v); }
/// max that propagates NaN (fmax would drop it: a NaN input must give a NaN result, as PyTorch's).
template <class C> __device__ __forceinline__ C nan_max(C a, C b) { return (a != a || a > b) ? a : b; }

[[noreturn]] inline void unsupported_dtype(const char* op, DType d) {
  throw DTypeError(op, "dtype " + std::string(dtype_name(d)) + " is not supported");
}

/// Calls f.template operator()<E>() with E the device storage type of a float dtype.
template <class F> decltype(auto) visit_float(const char* op, DType d, F&& f) {
  switch (d) {
    case DType::F64: return f.template operator()<double>();
    case DType::F32: return f.template operator()<float>();
    case DType::F16: return f.template operator()<__half>();
    case DType::BF16: return f.template operator()<__nv_bfloat16>();
    default: unsupported_dtype(op, d);
  }
}
/// Same for an int dtype.
template <class F> decltype(auto) visit_int(const char* op, DType d, F&& f) {
  switch (d) {
    case DType::I64: return f.template operator()<int64_t>();
    case DType::I32: return f.template operator()<int32_t>();
    case DType::I16: return f.template operator()<int16_t>();
    case DType::I8: return f.template operator()<int8_t>();
    case DType::U8: return f.template operator()<uint8_t>();
    default: unsupported_dtype(op, d);
  }
}
/// Same for a float or int dtype.
template <class F> decltype(auto) visit_numeric(const char* op, DType d, F&& f) {
  if (is_float(d)) return visit_float(op, d, std::forward<F>(f));
  return visit_int(op, d, std::forward<F>(f));
}
/// Same for any dtype, bool included.
template <class F> decltype(auto) visit_any(const char* op, DType d, F&& f) {
  if (d == DType::Bool) return f.template operator()<bool>();
  return visit_numeric(op, d, std::forward<F>(f));
}

/// The scalar as the compute type of E (floats through double, ints truncated).
template <class E> dcompute_t<E> scalar_as(const Scalar& s) {
  if constexpr (kDeviceFloat<E>) return static_cast<dcompute_t<E>>(s.to_double());
  else if constexpr (std::is_same_v<E, bool>) return s.to_double() != 0.0;
  else return static_cast<E>(s.to_int());
}

inline constexpr int kThreads = 256;
/// Blocks of kThreads covering n items of per_thread each.
inline unsigned blocks_for(int64_t n, int per_thread = 1) {
  int64_t per_block = int64_t{kThreads} * per_thread;
  int64_t b = (n + per_block - 1) / per_block;
  return static_cast<unsigned>(b < 1 ? 1 : b);
}

/// Dims and N operands' element strides, collapsed to the fewest dims; offsets of a linear index.
template <int N> struct Geometry {
  int rank = 0;
  bool small = true;  ///< fewer than 2^31 elements: offsets use 32-bit division
  int64_t dims[kMaxRank] = {};
  int64_t strides[N][kMaxRank] = {};

  Geometry(const Shape& shape, const Strides* const (&operand)[N]) {
    for (size_t d = 0; d < shape.rank(); ++d) {
      if (shape[d] == 1) continue;
      bool merge = rank > 0;
      for (int k = 0; k < N && merge; ++k)
        merge = strides[k][rank - 1] == (*operand[k])[d] * static_cast<int64_t>(shape[d]);
      if (merge) {
        dims[rank - 1] *= static_cast<int64_t>(shape[d]);
        for (int k = 0; k < N; ++k) strides[k][rank - 1] = (*operand[k])[d];
        continue;
      }
      dims[rank] = static_cast<int64_t>(shape[d]);
      for (int k = 0; k < N; ++k) strides[k][rank] = (*operand[k])[d];
      ++rank;
    }
    if (rank == 0) {
      dims[0] = 1;
      rank = 1;
    }
    small = shape.num_elements() < 0x7fffffffu;
  }
  /// Element offset of operand k for the row-major linear index i (32-bit division below 2^31
  /// elements: 64-bit division costs several times more).
  __device__ __forceinline__ void offsets(int64_t i, int64_t (&off)[N]) const {
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = 0;
    if (small) {
      auto u = static_cast<uint32_t>(i);
      for (int d = rank - 1; d >= 0; --d) {
        auto size = static_cast<uint32_t>(dims[d]);
        uint32_t q = u / size, r = u - q * size;
        u = q;
#pragma unroll
        for (int k = 0; k < N; ++k) off[k] += static_cast<int64_t>(r) * strides[k][d];
      }
      return;
    }
    for (int d = rank - 1; d >= 0; --d) {
      int64_t q = i / dims[d], r = i - q * dims[d];
      i = q;
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] += r * strides[k][d];
    }
  }
};

/// V packed elements, loaded and stored as one aligned access.
template <class E, int V> struct alignas(sizeof(E) * V) Pack { E v[V]; };
/// Elements per thread so a load is 16 bytes (at most 8).
template <class E> constexpr int kVec = sizeof(E) >= 16 ? 1
                                                        : (16 / sizeof(E) > 8 ? 8 : 16 / static_cast<int>(sizeof(E)));
__host__ __device__ inline bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

}  // namespace scorch::backends::cuda

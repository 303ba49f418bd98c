// CudaTensor's layout helpers, strided copies and dtype conversion.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "scorch/backends/common/strides.h"
#include "scorch/backends/cuda/kernels/elementwise.cuh"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda {
namespace {

template <class W> __global__ void gather_strided_kernel(const W* src, W* dst, int64_t n, Geometry<1> g) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t off[1];
  g.offsets(i, off);
  dst[i] = src[off[0]];
}

template <class W> __global__ void scatter_strided_kernel(const W* src, W* dst, int64_t n, Geometry<2> g) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t off[2];
  g.offsets(i, off);
  dst[off[0]] = src[off[1]];
}

/// dst (fresh, so 16-byte aligned) [0, n) filled with the one value at src, 16 bytes per thread: the contiguous copy
/// of a broadcast value (the ones a sum's backward expands).
template <class W> __global__ void fill_from_kernel(const W* src, W* dst, int64_t n) {
  constexpr int kPer = sizeof(uint4) / sizeof(W);
  int64_t i = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * kPer;
  if (i >= n) return;
  W v = *src;
  if (i + kPer <= n) {
    union {
      W words[kPer];
      uint4 vector;
    } pack;
#pragma unroll
    for (int j = 0; j < kPer; ++j) pack.words[j] = v;
    *reinterpret_cast<uint4*>(dst + i) = pack.vector;
  } else {
    for (int64_t j = i; j < n; ++j) dst[j] = v;
  }
}

struct Identity {
  template <class V> __device__ V operator()(V v) const { return v; }
};

// Calls f.template operator()<W>() with W an unsigned word of the dtype's size.
template <class F> void visit_word(DType d, F&& f) {
  switch (dtype_size(d)) {
    case 1: f.template operator()<uint8_t>(); break;
    case 2: f.template operator()<uint16_t>(); break;
    case 4: f.template operator()<uint32_t>(); break;
    default: f.template operator()<uint64_t>(); break;
  }
}

/// g with its innermost dim grouped into 16-byte words of `per_word` elements, when that dim is contiguous and
/// every dim and stride divides into whole words (a permutation that keeps the last dim, e.g. attention's heads):
/// the copy then moves 16 bytes per thread and per offset computation instead of one element.
template <int N> std::optional<Geometry<N>> in_words(Geometry<N> g, int64_t per_word) {
  int last = g.rank - 1;
  if (per_word <= 1 || g.dims[last] % per_word != 0) return std::nullopt;
  for (int k = 0; k < N; ++k) {
    if (g.strides[k][last] != 1) return std::nullopt;
    for (int d = 0; d < last; ++d)
      if (g.strides[k][d] % per_word != 0) return std::nullopt;
  }
  g.dims[last] /= per_word;
  for (int k = 0; k < N; ++k)
    for (int d = 0; d < last; ++d) g.strides[k][d] /= per_word;
  return g;
}

}  // namespace

CudaTensor::CudaTensor(Shape shape, DType dtype, CudaDevice device)
    : storage_(std::make_shared<CudaStorage>(shape.num_elements() * dtype_size(dtype), device.index)),
      shape_(shape),
      strides_(contiguous_strides(shape)),
      dtype_(dtype) {}

bool CudaTensor::is_contiguous() const { return strides::row_major(shape_, strides_); }

Strides broadcast_strides(const CudaTensor& x, const Shape& shape) {
  return strides::broadcast(x.shape(), x.strides(), shape);
}

CudaTensor contiguous(CudaTensor x) {
  if (x.is_contiguous()) return x;
  CudaTensor out(x.shape(), x.dtype(), x.device());
  auto n = static_cast<int64_t>(x.numel());
  if (n == 0) return out;
  const auto& st = x.strides();
  if (std::all_of(st.begin(), st.begin() + x.shape().rank(), [](int64_t s) { return s == 0; })) {
    visit_word(x.dtype(), [&]<class W>() {
      constexpr int64_t kPer = sizeof(uint4) / sizeof(W);
      fill_from_kernel<W>
          <<<blocks_for((n + kPer - 1) / kPer), kThreads, 0, stream(x.device().index)>>>(x.data<W>(), out.data<W>(), n);
    });
    check_launch("contiguous");
    return out;
  }
  const Strides* operands[1] = {&x.strides()};
  Geometry<1> g(x.shape(), operands);
  auto per_word = static_cast<int64_t>(sizeof(uint4) / dtype_size(x.dtype()));
  auto words = in_words(g, per_word);
  if (words && reinterpret_cast<uintptr_t>(x.raw()) % sizeof(uint4) == 0) {
    gather_strided_kernel<uint4><<<blocks_for(n / per_word), kThreads, 0, stream(x.device().index)>>>(
        reinterpret_cast<const uint4*>(x.raw()), reinterpret_cast<uint4*>(out.raw()), n / per_word, *words);
    check_launch("contiguous");
    return out;
  }
  visit_word(x.dtype(), [&]<class W>() {
    gather_strided_kernel<W>
        <<<blocks_for(n), kThreads, 0, stream(x.device().index)>>>(x.data<W>(), out.data<W>(), n, g);
  });
  check_launch("contiguous");
  return out;
}

/// Copies src's values into the (possibly strided) view dst of the same shape and dtype.
void assign_view(const CudaTensor& dst, const CudaTensor& src) {
  auto n = static_cast<int64_t>(dst.numel());
  if (n == 0) return;
  const Strides* operands[2] = {&dst.strides(), &src.strides()};
  Geometry<2> g(dst.shape(), operands);
  visit_word(dst.dtype(), [&]<class W>() {
    scatter_strided_kernel<W>
        <<<blocks_for(n), kThreads, 0, stream(dst.device().index)>>>(src.data<W>(), dst.data<W>(), n, g);
  });
  check_launch("assign_view");
}

CudaTensor to_dtype(const CudaTensor& x, DType dtype) {
  if (x.dtype() == dtype) return contiguous(x);
  return visit_any("cast", x.dtype(), [&]<class In>() {
    return visit_any("cast", dtype, [&]<class Out>() { return map_unary<In, Out>("cast", x, dtype, Identity{}); });
  });
}

bool reusable(const CudaTensor& x, const Shape& shape, DType dtype) {
  return x.can_mut() && x.is_dense() && x.dtype() == dtype && x.shape() == shape;
}

CudaTensor reuse_or_alloc(CudaTensor& x, const Shape& shape, DType dtype) {
  if (reusable(x, shape, dtype)) return x;
  return CudaTensor(shape, dtype, x.device());
}

namespace kernels {
T cast(T x, DType dtype) {
  if (x.dtype() == dtype) return x;
  return to_dtype(x, dtype);
}
}  // namespace kernels

}  // namespace scorch::backends::cuda

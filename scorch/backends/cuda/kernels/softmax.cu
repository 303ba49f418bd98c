// Numerically stable softmax / log-softmax: subtract the lane's max (NaN propagates), sum the
// exponentials in f32 (f64 for f64), then scale or shift. Rows (the dim is last) run one block
// per row with the row cached in shared memory, so each value is read from device memory once.
#include "scorch/backends/cuda/kernels/kernels.h"
#include "scorch/backends/cuda/kernels/reduce.cuh"

namespace scorch::backends::cuda::kernels {
namespace {

// Rows cached in dynamic shared memory: 48 KiB a block may use in all without opting in, less the static scratch.
constexpr int64_t kMaxCachedBytes = 47 * 1024;


template <class E, bool kLog, bool kCache> __global__ void softmax_rows_kernel(const E* x, E* out, int64_t n) {
  using C = dcompute_t<E>;
  extern __shared__ unsigned char shared_bytes[];
  C* row = reinterpret_cast<C*>(shared_bytes);
  __shared__ C scratch[kThreads / 32];
  const E* p = x + static_cast<int64_t>(blockIdx.x) * n;
  E* q = out + static_cast<int64_t>(blockIdx.x) * n;
  constexpr int V = kVec<E>;
  bool vec = n % V == 0 && aligned16(p) && aligned16(q);
  C m = -INFINITY;
  if (vec) {
    for (int64_t k = threadIdx.x * V; k < n; k += kThreads * V) {
      Pack<E, V> pk = *reinterpret_cast<const Pack<E, V>*>(p + k);
#pragma unroll
      for (int j = 0; j < V; ++j) {
        C v = load(&pk.v[j]);
        if constexpr (kCache) row[k + j] = v;
        m = nan_max(m, v);
      }
    }
  } else {
    for (int64_t k = threadIdx.x; k < n; k += kThreads) {
      C v = load(p + k);
      if constexpr (kCache) row[k] = v;
      m = nan_max(m, v);
    }
  }
  m = block_reduce(m, scratch, [](C a, C b) { return nan_max(a, b); });
  C total = 0;
  for (int64_t k = threadIdx.x; k < n; k += kThreads) total += ::exp((kCache ? row[k] : load(p + k)) - m);
  total = block_reduce(total, scratch, [](C a, C b) { return a + b; });
  C shift = m + ::log(total), inv = C(1) / total;
  if (vec) {
    for (int64_t k = threadIdx.x * V; k < n; k += kThreads * V) {
      Pack<E, V> pk;
      if constexpr (!kCache) pk = *reinterpret_cast<const Pack<E, V>*>(p + k);
#pragma unroll
      for (int j = 0; j < V; ++j) {
        C v = kCache ? row[k + j] : load(&pk.v[j]);
        pk.v[j] = to_storage<E>(kLog ? v - shift : ::exp(v - m) * inv);
      }
      *reinterpret_cast<Pack<E, V>*>(q + k) = pk;
    }
    return;
  }
  for (int64_t k = threadIdx.x; k < n; k += kThreads) {
    C v = kCache ? row[k] : load(p + k);
    store(q + k, kLog ? v - shift : ::exp(v - m) * inv);
  }
}

// Short rows (n up to kWarpSoftmaxMax): one warp per row, reduced with shuffles (attention scores).
template <class E, bool kLog> __global__ void softmax_warp_rows_kernel(const E* x, E* out, int64_t rows, int64_t n) {
  using C = dcompute_t<E>;
  int64_t row = static_cast<int64_t>(blockIdx.x) * (kThreads / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= rows) return;  // the whole warp leaves together
  const E* p = x + row * n;
  E* q = out + row * n;
  C m = -INFINITY, total = 0;
  for (int64_t k = lane; k < n; k += 32) m = nan_max(m, static_cast<C>(load(p + k)));
  for (int s = 16; s > 0; s >>= 1) m = nan_max(m, __shfl_xor_sync(0xffffffffu, m, s));
  for (int64_t k = lane; k < n; k += 32) total += ::exp(load(p + k) - m);
  for (int s = 16; s > 0; s >>= 1) total += __shfl_xor_sync(0xffffffffu, total, s);
  C shift = m + ::log(total), inv = C(1) / total;
  for (int64_t k = lane; k < n; k += 32) {
    C v = load(p + k);
    store(q + k, kLog ? v - shift : ::exp(v - m) * inv);
  }
}
constexpr int64_t kWarpSoftmaxMax = 1024;

template <class E, bool kLog>
__global__ void softmax_cols_kernel(const E* x, E* out, int64_t lanes, int64_t n, int64_t inner) {
  using C = dcompute_t<E>;
  int64_t lane = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (lane >= lanes) return;
  int64_t o = lane / inner, i = lane - o * inner;
  const E* p = x + o * n * inner + i;
  E* q = out + o * n * inner + i;
  C m = -INFINITY, total = 0;
  for (int64_t k = 0; k < n; ++k) m = nan_max(m, static_cast<C>(load(p + k * inner)));
  for (int64_t k = 0; k < n; ++k) total += ::exp(load(p + k * inner) - m);
  C shift = m + ::log(total), inv = C(1) / total;
  for (int64_t k = 0; k < n; ++k) {
    C v = load(p + k * inner);
    store(q + k * inner, kLog ? v - shift : ::exp(v - m) * inv);
  }
}

template <bool kLog> T softmax_impl(const char* op, T x, size_t dim) {
  x = contiguous(std::move(x));
  Lanes g(x.shape(), dim);
  T out = reuse_or_alloc(x, x.shape(), x.dtype());
  if (x.numel() == 0) return out;
  cudaStream_t s = stream(x.device().index);
  visit_float(op, x.dtype(), [&]<class E>() {
    using C = dcompute_t<E>;
    if (g.inner > 1) {
      int64_t lanes = g.outer * g.inner;
      softmax_cols_kernel<E, kLog>
          <<<blocks_for(lanes), kThreads, 0, s>>>(x.data<E>(), out.data<E>(), lanes, g.n, g.inner);
      return;
    }
    if (g.n <= kWarpSoftmaxMax) {
      auto warps = static_cast<unsigned>((g.outer + kThreads / 32 - 1) / (kThreads / 32));
      softmax_warp_rows_kernel<E, kLog><<<warps, kThreads, 0, s>>>(x.data<E>(), out.data<E>(), g.outer, g.n);
      return;
    }
    auto blocks = static_cast<unsigned>(g.outer);
    auto bytes = static_cast<size_t>(g.n) * sizeof(C);
    if (static_cast<int64_t>(bytes) <= kMaxCachedBytes)
      softmax_rows_kernel<E, kLog, true><<<blocks, kThreads, bytes, s>>>(x.data<E>(), out.data<E>(), g.n);
    else softmax_rows_kernel<E, kLog, false><<<blocks, kThreads, 0, s>>>(x.data<E>(), out.data<E>(), g.n);
  });
  check_launch(op);
  return out;
}

}  // namespace

T softmax(T x, size_t dim) { return softmax_impl<false>("softmax", std::move(x), dim); }
T log_softmax(T x, size_t dim) { return softmax_impl<true>("log_softmax", std::move(x), dim); }

}  // namespace scorch::backends::cuda::kernels

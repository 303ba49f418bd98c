// Integer matmul (no cuBLAS path): one thread per output element, accumulated in int64 with
// two's complement wrap, as the Cpu backend.
#include "scorch/backends/cuda/kernels/device.cuh"

namespace scorch::backends::cuda {
namespace {

template <class E>
__global__ void int_matmul_kernel(const E* a, const E* b, E* out, int64_t total, int64_t m, int64_t k, int64_t n) {
  int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  int64_t j = idx % n, i = (idx / n) % m, batch = idx / (m * n);
  const E* ar = a + (batch * m + i) * k;
  const E* bc = b + batch * k * n + j;
  uint64_t acc = 0;
  for (int64_t p = 0; p < k; ++p)
    acc += static_cast<uint64_t>(static_cast<int64_t>(ar[p])) * static_cast<uint64_t>(static_cast<int64_t>(bc[p * n]));
  out[idx] = static_cast<E>(acc);
}

}  // namespace

/// out[batch, m, n] = a[batch, m, k] · b[batch, k, n] for contiguous int tensors of one dtype.
void int_matmul_batched(const CudaTensor& a, const CudaTensor& b, CudaTensor& out, int64_t batch, int64_t m, int64_t k,
                        int64_t n) {
  int64_t total = batch * m * n;
  visit_int("matmul", a.dtype(), [&]<class E>() {
    int_matmul_kernel<E><<<blocks_for(total), kThreads, 0, stream(a.device().index)>>>(a.data<E>(), b.data<E>(),
                                                                                       out.data<E>(), total, m, k, n);
  });
  check_launch("matmul");
}

}  // namespace scorch::backends::cuda

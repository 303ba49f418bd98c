#include <vector>

#include "scorch/backends/cpu/kernels/elementwise.h"
#include "scorch/backends/cpu/kernels/kernels.h"

namespace scorch::backends::cpu::kernels {
namespace {

// C[m, n] = A[m, k] · B[k, n] for row-major blocks; rows of C split over threads.
template <class C> void gemm(const C* a, const C* b, C* c, size_t m, size_t k, size_t n) {
  constexpr size_t kBlockK = 256;
  parallel_for(m, std::max<size_t>(1, 4096 / std::max<size_t>(n * k / 64 + 1, 1)), [&](size_t rb, size_t re) {
    for (size_t i = rb; i < re; ++i) std::fill(c + i * n, c + (i + 1) * n, C(0));
    for (size_t p0 = 0; p0 < k; p0 += kBlockK) {
      size_t p1 = std::min(k, p0 + kBlockK);
      for (size_t i = rb; i < re; ++i) {
        C* crow = c + i * n;
        for (size_t p = p0; p < p1; ++p) {
          C av = a[i * k + p];
          const C* brow = b + p * n;
          for (size_t j = 0; j < n; ++j) crow[j] += av * brow[j];
        }
      }
    }
  });
}

// Offsets (in elements) of each broadcast batch of operand x, whose batch dims are batch_rank long.
std::vector<size_t> batch_offsets(const Shape& x, const Shape& batch, size_t block) {
  size_t count = batch.num_elements(), rank = batch.rank();
  std::vector<size_t> offsets(count);
  Strides strides{};
  size_t stride = block;
  for (size_t d = rank; d-- > 0;) {
    strides[d] = x[d] == 1 ? 0 : static_cast<int64_t>(stride);
    stride *= x[d];
  }
  for (size_t i = 0; i < count; ++i) {
    size_t rem = i, off = 0;
    for (size_t d = rank; d-- > 0;) {
      off += (rem % batch[d]) * static_cast<size_t>(strides[d]);
      rem /= batch[d];
    }
    offsets[i] = off;
  }
  return offsets;
}

template <class C> T matmul_as(T a, T b, DType compute, DType out_dtype) {
  a = to_dtype(a, compute);
  b = to_dtype(b, compute);
  size_t r = a.shape().rank();
  size_t m = a.shape()[r - 2], k = a.shape()[r - 1], n = b.shape()[r - 1];
  Shape batch_a = a.shape(), batch_b = b.shape();
  batch_a.remove(r - 1); batch_a.remove(r - 2);
  batch_b.remove(r - 1); batch_b.remove(r - 2);
  Shape batch = broadcast_shapes("matmul", batch_a, batch_b);
  Shape out_shape = batch;
  out_shape.push_back(m);
  out_shape.push_back(n);
  T out(out_shape, compute);
  auto off_a = batch_offsets(batch_a, batch, m * k), off_b = batch_offsets(batch_b, batch, k * n);
  for (size_t i = 0; i < off_a.size(); ++i)
    gemm<C>(a.data<C>() + off_a[i], b.data<C>() + off_b[i], out.data<C>() + i * m * n, m, k, n);
  return compute == out_dtype ? out : to_dtype(out, out_dtype);
}

}  // namespace

T matmul(T a, T b) {
  DType d = a.dtype();
  switch (d) {
    case DType::F64: return matmul_as<double>(std::move(a), std::move(b), DType::F64, d);
    case DType::F32: case DType::F16: case DType::BF16: return matmul_as<float>(std::move(a), std::move(b), DType::F32, d);
    case DType::I64: return matmul_as<int64_t>(std::move(a), std::move(b), DType::I64, d);
    default: return matmul_as<int64_t>(std::move(a), std::move(b), DType::I64, d);
  }
}

}  // namespace scorch::backends::cpu::kernels

#include <optional>
#include <vector>

#include "scorch/backends/cpu/kernels/blas.h"
#include "scorch/backends/cpu/kernels/elementwise.h"
#include "scorch/backends/cpu/kernels/kernels.h"

namespace scorch::backends::cpu::kernels {
namespace {

// Integer C[m, n] = A[m, k] · B[k, n] (row-major); rows of C split over threads.
template <class C> void int_gemm(const C* a, const C* b, C* c, size_t m, size_t k, size_t n) {
  parallel_for(m, std::max<size_t>(1, 4096 / (n * k / 64 + 1)), [&](size_t rb, size_t re) {
    for (size_t i = rb; i < re; ++i) {
      C* crow = c + i * n;
      std::fill(crow, crow + n, C(0));
      for (size_t p = 0; p < k; ++p) {
        C av = a[i * k + p];
        const C* brow = b + p * n;
        for (size_t j = 0; j < n; ++j) crow[j] += av * brow[j];
      }
    }
  });
}

// Element offset of each broadcast batch of x (its dims before the last two) within batch.
std::vector<int64_t> batch_offsets(const CpuTensor& x, const Shape& batch) {
  size_t rank = batch.rank(), count = batch.num_elements();
  std::vector<int64_t> offsets(count);
  for (size_t i = 0; i < count; ++i) {
    size_t rem = i;
    int64_t off = 0;
    for (size_t d = rank; d-- > 0;) {
      size_t idx = rem % batch[d];
      rem /= batch[d];
      if (x.shape()[d] != 1) off += static_cast<int64_t>(idx) * x.strides()[d];
    }
    offsets[i] = off;
  }
  return offsets;
}

Shape batch_of(const Shape& s) {
  Shape b = s;
  b.remove(s.rank() - 1);
  b.remove(s.rank() - 2);
  return b;
}

// The broadcast batch of a·b, its result shape and each operand's per-batch element offsets.
struct BatchPlan {
  size_t m, k, n;
  Shape out_shape;
  std::vector<int64_t> off_a, off_b;
};

BatchPlan plan_batches(const T& a, const T& b) {
  size_t r = a.shape().rank();
  BatchPlan p{a.shape()[r - 2], a.shape()[r - 1], b.shape()[r - 1], {}, {}, {}};
  Shape batch = broadcast_shapes("matmul", batch_of(a.shape()), batch_of(b.shape()));
  p.out_shape = batch;
  p.out_shape.push_back(p.m);
  p.out_shape.push_back(p.n);
  p.off_a = batch_offsets(a, batch);
  p.off_b = batch_offsets(b, batch);
  return p;
}

// When every batch multiplies the same B and A's batches follow one another at m rows' distance, the batched
// product is one [count·m, k] · [k, n] product ([8, 128, 256] · [256, 256] as [1024, 256] · [256, 256]): the row
// stride of that tall A. With one row a batch (m = 1, as PyTorch exports attention's input projection,
// [197, 1, 768] · [768, 2304] from a transposed view) the row's own stride does not matter, only the batches' step.
std::optional<int64_t> folded_row_stride(const T& a, const BatchPlan& p) {
  if (p.off_a.size() < 2) return std::nullopt;
  int64_t row_stride = p.m == 1 ? p.off_a[1] - p.off_a[0] : a.strides()[a.shape().rank() - 2];
  for (size_t i = 0; i < p.off_a.size(); ++i)
    if (p.off_b[i] != p.off_b[0] || p.off_a[i] != p.off_a[0] + static_cast<int64_t>(i * p.m) * row_stride)
      return std::nullopt;
  return row_stride;
}

// Float matmul in compute type C, reading a and b through their strides (no copies).
template <class C> T float_matmul(const T& a, const T& b) {
  size_t r = a.shape().rank();
  const auto plan = plan_batches(a, b);  // named members, not a structured binding: clang 14 cannot capture those
  const size_t m = plan.m, k = plan.k, n = plan.n;
  const auto &off_a = plan.off_a, &off_b = plan.off_b;
  T out(plan.out_shape, a.dtype());
  const C* ap = a.data<C>();
  const C* bp = b.data<C>();
  C* cp = out.data<C>();
  auto operand = [&](const C* base, const CpuTensor& t, int64_t off) {
    return gemm::Strided<C>{base + off, ptrdiff_t(t.strides()[r - 2]), ptrdiff_t(t.strides()[r - 1])};
  };
  size_t count = off_a.size();
  if (auto row_stride = folded_row_stride(a, plan)) {  // one tall product: B packed once, full-size tiles
    gemm::Strided<C> tall{ap + off_a[0], ptrdiff_t(*row_stride), ptrdiff_t(a.strides()[r - 1])};
    blas::gemm_parallel<C>(count * m, n, k, tall, operand(bp, b, off_b[0]), cp, n);
    return out;
  }
  if (count >= num_threads() && count > 1) {
    parallel_for(count, 1, [&](size_t bb, size_t be) {
      for (size_t i = bb; i < be; ++i)
        gemm::strided<C>(m, n, k, operand(ap, a, off_a[i]), operand(bp, b, off_b[i]), cp + i * m * n, n, false);
    });
  } else {
    for (size_t i = 0; i < count; ++i)
      blas::gemm_parallel<C>(m, n, k, operand(ap, a, off_a[i]), operand(bp, b, off_b[i]), cp + i * m * n, n);
  }
  return out;
}

template <class C> T int_matmul(T a, T b, DType out_dtype) {
  a = to_dtype(a, DType::I64);
  b = to_dtype(b, DType::I64);
  auto [m, k, n, out_shape, off_a, off_b] = plan_batches(a, b);
  T out(out_shape, DType::I64);
  for (size_t i = 0; i < off_a.size(); ++i)
    int_gemm<C>(a.data<C>() + off_a[i], b.data<C>() + off_b[i], out.data<C>() + i * m * n, m, k, n);
  return out_dtype == DType::I64 ? out : to_dtype(out, out_dtype);
}

}  // namespace

T matmul(T a, T b) {
  DType d = a.dtype();
  switch (d) {
    case DType::F64: return float_matmul<double>(a, b);
    case DType::F32: return float_matmul<float>(a, b);
    case DType::F16:
    case DType::BF16: return to_dtype(float_matmul<float>(to_dtype(a, DType::F32), to_dtype(b, DType::F32)), d);
    default: return int_matmul<int64_t>(std::move(a), std::move(b), d);
  }
}

}  // namespace scorch::backends::cpu::kernels

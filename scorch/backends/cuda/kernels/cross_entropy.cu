// Cross-entropy over the classes of [rows, classes] logits, one block per row: the row's log-sum-exp (max, then
// the sum of exponentials, in f32; f64 for f64) and -log softmax at its target; the backward writes
// (softmax - one_hot(target))·grad in the logits' dtype. The logits are read in their own dtype, not widened first.
#include "scorch/backends/cuda/kernels/kernels.h"
#include "scorch/backends/cuda/kernels/reduce.cuh"

namespace scorch::backends::cuda::kernels {
namespace {

template <class E>
__global__ void cross_entropy_kernel(const E* logits, const int64_t* targets, dcompute_t<E>* nll,
                                     dcompute_t<E>* lse, int64_t classes) {
  using C = dcompute_t<E>;
  __shared__ C scratch[kThreads / 32];
  const E* row = logits + static_cast<int64_t>(blockIdx.x) * classes;
  C peak = -INFINITY;
  for (int64_t j = threadIdx.x; j < classes; j += kThreads) peak = nan_max(peak, load(row + j));
  peak = block_reduce(peak, scratch, [](C a, C b) { return nan_max(a, b); });
  C total = 0;
  if (peak != C(-INFINITY))
    for (int64_t j = threadIdx.x; j < classes; j += kThreads) total += ::exp(load(row + j) - peak);
  total = block_reduce(total, scratch, [](C a, C b) { return a + b; });
  if (threadIdx.x != 0) return;
  C l = peak == C(-INFINITY) ? peak : peak + ::log(total);
  lse[blockIdx.x] = l;
  nll[blockIdx.x] = l - load(row + targets[blockIdx.x]);
}

template <class E>
__global__ void cross_entropy_backward_kernel(const E* logits, const int64_t* targets, const dcompute_t<E>* lse,
                                              const dcompute_t<E>* grad, E* dx, int64_t classes) {
  using C = dcompute_t<E>;
  int64_t r = blockIdx.x, target = targets[r];
  const E* row = logits + r * classes;
  E* out = dx + r * classes;
  C l = lse[r], g = grad[r];
  for (int64_t j = threadIdx.x; j < classes; j += kThreads)
    store(out + j, ::exp(load(row + j) - l) * g - (j == target ? g : C(0)));  // PyTorch's inf arithmetic
}

/// rows as a grid size (one block per row); throws ShapeError past what a grid holds.
unsigned grid_of(const char* op, int64_t rows) {
  if (rows > 0x7fffffff) throw ShapeError(op, std::to_string(rows) + " rows are more than a grid holds");
  return static_cast<unsigned>(rows);
}


}  // namespace

std::pair<T, T> cross_entropy(T logits, T targets) {
  auto rows = static_cast<int64_t>(logits.shape()[0]), classes = static_cast<int64_t>(logits.shape()[1]);
  T target = read_indices("cross_entropy", targets, static_cast<size_t>(classes), logits.device());
  T x = contiguous(std::move(logits));
  DType wide = x.dtype() == DType::F64 ? DType::F64 : DType::F32;
  T nll(Shape{static_cast<size_t>(rows)}, wide, x.device()), lse(nll.shape(), wide, x.device());
  if (rows == 0) return {nll, lse};
  visit_float("cross_entropy", x.dtype(), [&]<class E>() {
    using C = dcompute_t<E>;
    cross_entropy_kernel<E><<<grid_of("cross_entropy", rows), kThreads, 0, stream(x.device().index)>>>(
        x.data<E>(), target.data<int64_t>(), nll.data<C>(), lse.data<C>(), classes);
  });
  check_launch("cross_entropy");
  return {nll, lse};
}

T cross_entropy_backward(T logits, T targets, T logsumexp, T grad) {
  auto rows = static_cast<int64_t>(logits.shape()[0]), classes = static_cast<int64_t>(logits.shape()[1]);
  T target = read_indices("cross_entropy_backward", targets, static_cast<size_t>(classes), logits.device());
  T x = contiguous(std::move(logits));
  T dx(x.shape(), x.dtype(), x.device());
  if (rows == 0 || classes == 0) return dx;
  DType wide = x.dtype() == DType::F64 ? DType::F64 : DType::F32;
  T l = to_dtype(logsumexp, wide), g = to_dtype(grad, wide);  // contiguous
  unsigned grid = grid_of("cross_entropy_backward", rows);
  visit_float("cross_entropy_backward", x.dtype(), [&]<class E>() {
    using C = dcompute_t<E>;
    cross_entropy_backward_kernel<E><<<grid, kThreads, 0, stream(x.device().index)>>>(
        x.data<E>(), target.data<int64_t>(), l.data<C>(), g.data<C>(), dx.data<E>(), classes);
  });
  check_launch("cross_entropy_backward");
  return dx;
}

}  // namespace scorch::backends::cuda::kernels

// Cross-entropy over the classes of [rows, classes] logits: each row's -log softmax at its target with the row's
// log-sum-exp, and the backward (softmax - one_hot(target))·grad, one pass over each row in f32 (f64 for f64).
#include <cmath>
#include <limits>
#include <vector>

#include "scorch/backends/cpu/kernels/kernels.h"
#include "scorch/backends/cpu/kernels/module_kernels.h"
#include "scorch/backends/cpu/kernels/window.h"
#include "scorch/backends/cpu/thread_pool.h"

namespace scorch::backends::cpu::kernels {
namespace {

// log Σ exp(x) over a row (NaN propagates; -inf when every entry is -inf).
template <class C> C row_logsumexp(const C* x, size_t n) {
  C peak = -std::numeric_limits<C>::infinity();
  for (size_t j = 0; j < n; ++j) peak = (x[j] != x[j] || x[j] > peak) ? x[j] : peak;
  if (peak == -std::numeric_limits<C>::infinity()) return peak;
  C total = 0;
  for (size_t j = 0; j < n; ++j) total += std::exp(x[j] - peak);
  return std::log(total) + peak;
}

size_t rows_per_task(size_t classes) { return std::max<size_t>(1, 8192 / std::max<size_t>(classes, 1)); }

}  // namespace

std::pair<T, T> cross_entropy(T logits, T targets) {
  size_t rows = logits.shape()[0], classes = logits.shape()[1];
  std::vector<int64_t> target = read_indices("cross_entropy", targets, classes);
  DType cd = window::compute_dtype(logits.dtype());
  T x = to_dtype(logits, cd), nll(Shape{rows}, cd), lse(Shape{rows}, cd);
  window::in_compute_type(cd, [&](auto zero) {
    using C = decltype(zero);
    const C* in = x.data<C>();
    C *out = nll.data<C>(), *l = lse.data<C>();
    parallel_for(rows, rows_per_task(classes), [&](size_t r0, size_t r1) {
      for (size_t r = r0; r < r1; ++r) {
        l[r] = row_logsumexp(in + r * classes, classes);
        out[r] = l[r] - in[r * classes + static_cast<size_t>(target[r])];
      }
    });
  });
  return {std::move(nll), std::move(lse)};
}

T cross_entropy_backward(T logits, T targets, T logsumexp, T grad) {
  size_t rows = logits.shape()[0], classes = logits.shape()[1];
  std::vector<int64_t> target = read_indices("cross_entropy_backward", targets, classes);
  DType cd = window::compute_dtype(logits.dtype());
  T x = to_dtype(logits, cd), l = to_dtype(logsumexp, cd), g = to_dtype(grad, cd), dx(logits.shape(), cd);
  window::in_compute_type(cd, [&](auto zero) {
    using C = decltype(zero);
    const C *in = x.data<C>(), *lse = l.data<C>(), *gr = g.data<C>();
    C* out = dx.data<C>();
    parallel_for(rows, rows_per_task(classes), [&](size_t r0, size_t r1) {
      for (size_t r = r0; r < r1; ++r) {
        for (size_t j = 0; j < classes; ++j) out[r * classes + j] = std::exp(in[r * classes + j] - lse[r]) * gr[r];
        out[r * classes + static_cast<size_t>(target[r])] -= gr[r];
      }
    });
  });
  return to_dtype(dx, logits.dtype());
}

}  // namespace scorch::backends::cpu::kernels

// Layer norm and RMS norm over the last dim, forward and backward, one pass over each row: f64 in
// f64, other float dtypes in f32; results in the input's dtype. The backward recomputes each row's
// statistics rather than reading saved ones (a row is in cache either way).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "scorch/backends/cpu/kernels/gemm.h"
#include "scorch/backends/cpu/kernels/module_kernels.h"
#include "scorch/backends/cpu/kernels/window.h"
#include "scorch/backends/cpu/thread_pool.h"

namespace scorch::backends::cpu::kernels {
namespace {

// The rows of a [..., d] tensor in compute type C, and the optional gamma and beta as C arrays.
template <class C> struct NormArgs {
  T x;
  std::optional<T> gamma, beta;
  size_t rows = 0, d = 0;
  C epsilon{};
  bool center = true;
  const C* row(size_t r) const { return x.data<C>() + r * d; }
  C scale(size_t j) const { return gamma ? gamma->data<C>()[j] : C(1); }
};

template <class C> NormArgs<C> norm_args(const T& x, const std::optional<T>& gamma, const std::optional<T>& beta,
                                         double epsilon, bool center) {
  DType cd = window::compute_dtype(x.dtype());
  NormArgs<C> a{to_dtype(x, cd), std::nullopt, std::nullopt, 0, 0, static_cast<C>(epsilon), center};
  if (gamma) a.gamma = to_dtype(*gamma, cd);
  if (beta) a.beta = to_dtype(*beta, cd);
  a.d = x.shape().rank() ? x.shape()[x.shape().rank() - 1] : 1;
  a.rows = a.d ? x.shape().num_elements() / a.d : 0;
  return a;
}

/// Σ f(x[j]) over a row of d values, in vector registers with four independent sums (f must be elementwise).
template <class C, class F> C row_sum(const C* x, size_t d, F f) {
  typedef C Vec __attribute__((vector_size(gemm::kVecBytes)));
  constexpr size_t L = gemm::kVecBytes / sizeof(C), U = 4;
  Vec acc[U] = {};
  size_t j = 0;
  for (; j + U * L <= d; j += U * L)
#pragma GCC unroll 4
    for (size_t u = 0; u < U; ++u) {
      Vec v;
      std::memcpy(&v, x + j + u * L, sizeof(Vec));
      acc[u] += f(v);
    }
  for (; j + L <= d; j += L) {
    Vec v;
    std::memcpy(&v, x + j, sizeof(Vec));
    acc[0] += f(v);
  }
  Vec total = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  C sum = 0;
  for (size_t l = 0; l < L; ++l) sum += total[l];
  for (; j < d; ++j) sum += f(x[j]);
  return sum;
}

// The row's mean (0 when not centering) and 1 / sqrt(variance or mean square + epsilon).
template <class C> std::pair<C, C> row_stats(const C* x, size_t d, C epsilon, bool center) {
  C mean = center ? row_sum(x, d, [](auto v) { return v; }) / static_cast<C>(d) : C(0);
  C square = row_sum(x, d, [mean](auto v) { return (v - mean) * (v - mean); });
  return {mean, C(1) / std::sqrt(square / static_cast<C>(d) + epsilon)};
}

template <class C> void norm_forward(const NormArgs<C>& a, C* y) {
  const C* gamma = a.gamma ? a.gamma->template data<C>() : nullptr;
  const C* beta = a.beta ? a.beta->template data<C>() : nullptr;
  parallel_for(a.rows, std::max<size_t>(1, 4096 / std::max<size_t>(a.d, 1)), [&](size_t r0, size_t r1) {
    for (size_t r = r0; r < r1; ++r) {
      const C* __restrict x = a.row(r);
      auto [mean, rstd] = row_stats(x, a.d, a.epsilon, a.center);
      C* __restrict out = y + r * a.d;
      if (gamma && beta)
        for (size_t j = 0; j < a.d; ++j) out[j] = (x[j] - mean) * rstd * gamma[j] + beta[j];
      else if (gamma)
        for (size_t j = 0; j < a.d; ++j) out[j] = (x[j] - mean) * rstd * gamma[j];
      else
        for (size_t j = 0; j < a.d; ++j) out[j] = (x[j] - mean) * rstd + (beta ? beta[j] : C(0));
    }
  });
}

// dx per row, and the normalized input x̂ kept in xhat for the gamma gradient.
template <class C> void norm_backward_rows(const NormArgs<C>& a, const C* grad, C* dx, C* xhat) {
  parallel_for(a.rows, std::max<size_t>(1, 4096 / std::max<size_t>(a.d, 1)), [&](size_t r0, size_t r1) {
    for (size_t r = r0; r < r1; ++r) {
      const C *x = a.row(r), *g = grad + r * a.d;
      auto [mean, rstd] = row_stats(x, a.d, a.epsilon, a.center);
      C* xh = xhat + r * a.d;
      C mean_g = 0, mean_gx = 0;
      for (size_t j = 0; j < a.d; ++j) {
        xh[j] = (x[j] - mean) * rstd;
        C gj = g[j] * a.scale(j);
        mean_g += gj;
        mean_gx += gj * xh[j];
      }
      mean_g = a.center ? mean_g / static_cast<C>(a.d) : C(0);
      mean_gx /= static_cast<C>(a.d);
      for (size_t j = 0; j < a.d; ++j) dx[r * a.d + j] = rstd * (g[j] * a.scale(j) - mean_g - xh[j] * mean_gx);
    }
  });
}

// Σ over rows of grad·x̂ (dgamma) and of grad (dbeta), by blocks of columns.
template <class C> void norm_param_grads(const NormArgs<C>& a, const C* grad, const C* xhat, C* dgamma, C* dbeta) {
  constexpr size_t kBlock = 64;
  parallel_for((a.d + kBlock - 1) / kBlock, 1, [&](size_t b0, size_t b1) {
    for (size_t b = b0; b < b1; ++b) {
      size_t j0 = b * kBlock, j1 = std::min(a.d, j0 + kBlock);
      for (size_t j = j0; j < j1; ++j) {
        if (dgamma) dgamma[j] = 0;
        if (dbeta) dbeta[j] = 0;
      }
      for (size_t r = 0; r < a.rows; ++r)
        for (size_t j = j0; j < j1; ++j) {
          if (dgamma) dgamma[j] += grad[r * a.d + j] * xhat[r * a.d + j];
          if (dbeta) dbeta[j] += grad[r * a.d + j];
        }
    }
  });
}

T normalize(const T& x, const std::optional<T>& gamma, const std::optional<T>& beta, double epsilon, bool center) {
  DType cd = window::compute_dtype(x.dtype());
  return window::in_compute_type(x.dtype(), [&](auto zero) {
    using C = decltype(zero);
    auto a = norm_args<C>(x, gamma, beta, epsilon, center);
    T y(x.shape(), cd);
    norm_forward(a, y.data<C>());
    return to_dtype(y, x.dtype());
  });
}

NormGradients<T> normalize_backward(const T& x, const std::optional<T>& gamma, bool has_beta, const T& grad,
                                    double epsilon, bool center) {
  DType cd = window::compute_dtype(x.dtype());
  return window::in_compute_type(x.dtype(), [&](auto zero) {
    using C = decltype(zero);
    auto a = norm_args<C>(x, gamma, std::nullopt, epsilon, center);
    T g = to_dtype(grad, cd), dx(x.shape(), cd);
    std::vector<C> xhat(a.rows * a.d);
    norm_backward_rows(a, g.data<C>(), dx.data<C>(), xhat.data());
    NormGradients<T> out{to_dtype(dx, x.dtype()), std::nullopt, std::nullopt};
    std::optional<T> dgamma, dbeta;
    if (gamma) dgamma = T(gamma->shape(), cd);
    if (has_beta) dbeta = T(Shape{a.d}, cd);
    norm_param_grads(a, g.data<C>(), xhat.data(), dgamma ? dgamma->data<C>() : nullptr,
                     dbeta ? dbeta->data<C>() : nullptr);
    if (dgamma) out.gamma = to_dtype(*dgamma, gamma->dtype());
    if (dbeta) out.beta = to_dtype(*dbeta, x.dtype());
    return out;
  });
}

}  // namespace

T layer_norm(T x, const std::optional<T>& gamma, const std::optional<T>& beta, double epsilon) {
  return normalize(x, gamma, beta, epsilon, true);
}
NormGradients<T> layer_norm_backward(T x, const std::optional<T>& gamma, bool has_beta, T grad, double epsilon) {
  return normalize_backward(x, gamma, has_beta, grad, epsilon, true);
}
T rms_norm(T x, const std::optional<T>& gamma, double epsilon) {
  return normalize(x, gamma, std::nullopt, epsilon, false);
}
NormGradients<T> rms_norm_backward(T x, const std::optional<T>& gamma, T grad, double epsilon) {
  return normalize_backward(x, gamma, false, grad, epsilon, false);
}

}  // namespace scorch::backends::cpu::kernels

// The fused Adam/AdamW step (the op table's module_adam_update): one pass over a parameter reads the parameter,
// its gradient and both moments and writes the three new tensors, in f32 (f64 for f64), where
// backend/provided's composition runs about 16 kernels. The coefficients (1 − β, lr·weight_decay) are computed in
// double on the host, as the composition's scalars are. A result overwrites its input only when that input is
// uniquely owned (reuse_or_alloc); the optimizer's state still holds the old moments, so it writes fresh buffers.
#include <cmath>

#include "scorch/backends/cuda/kernels/kernels.h"
#include "scorch/backends/cuda/kernels/reduce.cuh"

namespace scorch::backends::cuda::kernels {
namespace {

template <class C> struct AdamCoefficients {
  C lr, beta_1, beta_2, one_minus_beta_1, one_minus_beta_2, epsilon, weight_decay, lr_weight_decay, correction_1,
      correction_2;
  bool decoupled, decays;
};

template <class E>
__global__ void adam_kernel(const E* param, const E* grad, const E* moment_1, const E* moment_2, E* param_out,
                            E* moment_1_out, E* moment_2_out, int64_t n, AdamCoefficients<dcompute_t<E>> c) {
  using C = dcompute_t<E>;
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    C p = load(param + i), g = load(grad + i);
    if (c.decays && !c.decoupled) g += p * c.weight_decay;
    C m = load(moment_1 + i) * c.beta_1 + g * c.one_minus_beta_1;
    C v = load(moment_2 + i) * c.beta_2 + g * g * c.one_minus_beta_2;
    C direction = (m / c.correction_1) / (::sqrt(v / c.correction_2) + c.epsilon);
    if (c.decays && c.decoupled) p -= p * c.lr_weight_decay;
    store(param_out + i, p - direction * c.lr);
    store(moment_1_out + i, m);
    store(moment_2_out + i, v);
  }
}

/// x contiguous in dtype.
T dense(T x, DType dtype) { return contiguous(x.dtype() == dtype ? std::move(x) : cast(std::move(x), dtype)); }

}  // namespace

AdamUpdate<T> adam_update(T param, T grad, T moment_1, T moment_2, double lr, double beta_1, double beta_2,
                          double epsilon, double weight_decay, bool decoupled, double step) {
  DType dtype = param.dtype();
  param = contiguous(std::move(param));
  grad = dense(std::move(grad), dtype), moment_1 = dense(std::move(moment_1), dtype);
  moment_2 = dense(std::move(moment_2), dtype);
  const Shape& shape = param.shape();
  AdamUpdate<T> out{reuse_or_alloc(param, shape, dtype), reuse_or_alloc(moment_1, shape, dtype),
                    reuse_or_alloc(moment_2, shape, dtype)};
  int64_t n = static_cast<int64_t>(param.numel());
  if (n == 0) return out;
  visit_float("adam_update", dtype, [&]<class E>() {
    using C = dcompute_t<E>;
    AdamCoefficients<C> c{static_cast<C>(lr),
                          static_cast<C>(beta_1),
                          static_cast<C>(beta_2),
                          static_cast<C>(1.0 - beta_1),
                          static_cast<C>(1.0 - beta_2),
                          static_cast<C>(epsilon),
                          static_cast<C>(weight_decay),
                          static_cast<C>(lr * weight_decay),
                          static_cast<C>(1.0 - std::pow(beta_1, step)),
                          static_cast<C>(1.0 - std::pow(beta_2, step)),
                          decoupled,
                          weight_decay != 0};
    unsigned blocks = std::min<unsigned>(blocks_for(n), 65535u * 4);
    adam_kernel<E><<<blocks, kThreads, 0, stream(param.device().index)>>>(
        param.data<E>(), grad.data<E>(), moment_1.data<E>(), moment_2.data<E>(), out.param.data<E>(),
        out.moment_1.data<E>(), out.moment_2.data<E>(), n, c);
  });
  check_launch("adam_update");
  return out;
}

}  // namespace scorch::backends::cuda::kernels

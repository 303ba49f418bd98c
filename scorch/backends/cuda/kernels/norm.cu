// Layer norm and RMS norm over the last dim, forward and backward: one warp per row, statistics in
// f32 (f64 for f64) from two passes over the row (the second from cache). The backward writes each
// row's mean and 1/std for the gamma/beta gradients, which reduce over rows in two deterministic
// stages (row chunks, then the chunks' partial sums), in f32 (f64 for f64).
#include "scorch/backends/cuda/kernels/kernels.h"
#include "scorch/backends/cuda/kernels/reduce.cuh"

namespace scorch::backends::cuda::kernels {
namespace {

constexpr int kWarps = kThreads / 32;

template <class C> __device__ C warp_sum(C v) {
  for (int s = 16; s > 0; s >>= 1) v += __shfl_xor_sync(0xffffffffu, v, s);
  return v;
}

// The row's mean (0 when not centering) and 1 / sqrt(variance or mean square + epsilon).
template <class E, class C> __device__ void row_stats(const E* x, int64_t d, C epsilon, bool center, C& mean, C& rstd) {
  int lane = threadIdx.x % 32;
  C sum = 0;
  if (center)
    for (int64_t j = lane; j < d; j += 32) sum += load(x + j);
  mean = center ? warp_sum(sum) / static_cast<C>(d) : C(0);
  C square = 0;
  for (int64_t j = lane; j < d; j += 32) {
    C c = load(x + j) - mean;
    square += c * c;
  }
  rstd = C(1) / ::sqrt(warp_sum(square) / static_cast<C>(d) + epsilon);
}

template <class E>
__global__ void norm_forward_kernel(const E* x, const E* gamma, const E* beta, E* y, int64_t rows, int64_t d,
                                    dcompute_t<E> epsilon, bool center) {
  using C = dcompute_t<E>;
  int64_t row = static_cast<int64_t>(blockIdx.x) * kWarps + threadIdx.x / 32;
  if (row >= rows) return;  // the whole warp leaves together
  const E* xr = x + row * d;
  C mean, rstd;
  row_stats(xr, d, epsilon, center, mean, rstd);
  for (int64_t j = threadIdx.x % 32; j < d; j += 32) {
    C v = (load(xr + j) - mean) * rstd;
    if (gamma) v *= load(gamma + j);
    if (beta) v += load(beta + j);
    store(y + row * d + j, v);
  }
}

// dx = rstd·(g - mean(g) - x̂·mean(g·x̂)) with g = grad·gamma; stats[row] = (mean, rstd).
template <class E>
__global__ void norm_backward_kernel(const E* x, const E* gamma, const E* grad, E* dx, dcompute_t<E>* stats,
                                     int64_t rows, int64_t d, dcompute_t<E> epsilon, bool center) {
  using C = dcompute_t<E>;
  int64_t row = static_cast<int64_t>(blockIdx.x) * kWarps + threadIdx.x / 32;
  if (row >= rows) return;
  const E *xr = x + row * d, *gr = grad + row * d;
  C mean, rstd;
  row_stats(xr, d, epsilon, center, mean, rstd);
  int lane = threadIdx.x % 32;
  C sum_g = 0, sum_gx = 0;
  for (int64_t j = lane; j < d; j += 32) {
    C g = load(gr + j) * (gamma ? load(gamma + j) : C(1));
    sum_g += g;
    sum_gx += g * (load(xr + j) - mean) * rstd;
  }
  C mean_g = center ? warp_sum(sum_g) / static_cast<C>(d) : C(0), mean_gx = warp_sum(sum_gx) / static_cast<C>(d);
  for (int64_t j = lane; j < d; j += 32) {
    C g = load(gr + j) * (gamma ? load(gamma + j) : C(1));
    store(dx + row * d + j, rstd * (g - mean_g - (load(xr + j) - mean) * rstd * mean_gx));
  }
  if (stats && lane == 0) {
    stats[2 * row] = mean;
    stats[2 * row + 1] = rstd;
  }
}

constexpr int kParamRows = 8;  // threadIdx.y extent of the parameter-gradient blocks

// Partial Σ grad·x̂ and Σ grad over the rows of chunk blockIdx.y, for 32 columns per block.
template <class E>
__global__ void norm_param_partial_kernel(const E* x, const E* grad, const dcompute_t<E>* stats,
                                          dcompute_t<E>* partial_gamma, dcompute_t<E>* partial_beta, int64_t rows,
                                          int64_t d, int64_t rows_per_chunk) {
  using C = dcompute_t<E>;
  __shared__ C sg[kParamRows][33], sb[kParamRows][33];
  int64_t col = static_cast<int64_t>(blockIdx.x) * 32 + threadIdx.x;
  int64_t r0 = static_cast<int64_t>(blockIdx.y) * rows_per_chunk;
  int64_t r1 = r0 + rows_per_chunk < rows ? r0 + rows_per_chunk : rows;
  C acc_g = 0, acc_b = 0;
  if (col < d)
    for (int64_t r = r0 + threadIdx.y; r < r1; r += kParamRows) {
      C g = load(grad + r * d + col);
      acc_g += g * (load(x + r * d + col) - stats[2 * r]) * stats[2 * r + 1];
      acc_b += g;
    }
  sg[threadIdx.y][threadIdx.x] = acc_g;
  sb[threadIdx.y][threadIdx.x] = acc_b;
  __syncthreads();
  if (threadIdx.y != 0 || col >= d) return;
  for (int i = 1; i < kParamRows; ++i) {
    acc_g += sg[i][threadIdx.x];
    acc_b += sb[i][threadIdx.x];
  }
  if (partial_gamma) partial_gamma[blockIdx.y * d + col] = acc_g;
  if (partial_beta) partial_beta[blockIdx.y * d + col] = acc_b;
}

// out[col] = Σ over chunks of partial[chunk][col].
template <class C, class G> __global__ void sum_chunks_kernel(const C* partial, G* out, int64_t chunks, int64_t d) {
  int64_t col = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (col >= d) return;
  C acc = 0;
  for (int64_t c = 0; c < chunks; ++c) acc += partial[c * d + col];
  store(out + col, acc);
}

// x's rows and row length, and gamma/beta in x's dtype and contiguous.
struct Rows {
  int64_t rows, d;
};
Rows rows_of(const T& x) {
  int64_t d = x.shape().rank() ? static_cast<int64_t>(x.shape()[x.shape().rank() - 1]) : 1;
  return {d ? static_cast<int64_t>(x.numel()) / d : 0, d};
}
std::optional<T> like(const std::optional<T>& p, DType dtype) {
  if (!p) return std::nullopt;
  return contiguous(p->dtype() == dtype ? *p : cast(*p, dtype));
}
template <class E> E* ptr(const std::optional<T>& p) { return p ? p->data<E>() : nullptr; }
unsigned row_blocks(int64_t rows) { return static_cast<unsigned>((rows + kWarps - 1) / kWarps); }

T normalize(const char* op, T x, const std::optional<T>& gamma, const std::optional<T>& beta, double epsilon,
            bool center) {
  x = contiguous(std::move(x));
  auto [rows, d] = rows_of(x);
  auto g = like(gamma, x.dtype()), b = like(beta, x.dtype());
  T y = reuse_or_alloc(x, x.shape(), x.dtype());
  if (rows == 0 || d == 0) return y;
  visit_float(op, x.dtype(), [&]<class E>() {
    norm_forward_kernel<E><<<row_blocks(rows), kThreads, 0, stream(x.device().index)>>>(
        x.data<E>(), ptr<E>(g), ptr<E>(b), y.data<E>(), rows, d, static_cast<dcompute_t<E>>(epsilon), center);
  });
  check_launch(op);
  return y;
}

// The gamma and beta gradients from the rows' stats, summed over chunks of rows.
void param_grads(const char* op, const T& x, const T& grad, const T& stats, std::optional<T>& dgamma,
                 std::optional<T>& dbeta) {
  auto [rows, d] = rows_of(x);
  int64_t chunks = std::min<int64_t>(std::max<int64_t>(rows / 64, 1), 256), per = (rows + chunks - 1) / chunks;
  CudaDevice dev = x.device();
  Shape partial_shape{static_cast<size_t>(chunks), static_cast<size_t>(d)};
  std::optional<T> pg, pb;
  if (dgamma) pg = T(partial_shape, stats.dtype(), dev);
  if (dbeta) pb = T(partial_shape, stats.dtype(), dev);
  cudaStream_t s = stream(dev.index);
  visit_float(op, x.dtype(), [&]<class E>() {
    using C = dcompute_t<E>;
    dim3 grid(static_cast<unsigned>((d + 31) / 32), static_cast<unsigned>(chunks)), block(32, kParamRows);
    norm_param_partial_kernel<E><<<grid, block, 0, s>>>(x.data<E>(), grad.data<E>(), stats.data<C>(), ptr<C>(pg),
                                                        ptr<C>(pb), rows, d, per);
    auto sum = [&](const std::optional<T>& partial, std::optional<T>& out) {
      if (!out) return;
      visit_float(op, out->dtype(), [&]<class G>() {
        sum_chunks_kernel<C, G><<<blocks_for(d), kThreads, 0, s>>>(partial->data<C>(), out->data<G>(), chunks, d);
      });
    };
    sum(pg, dgamma);
    sum(pb, dbeta);
  });
  check_launch(op);
}

NormGradients<T> normalize_backward(const char* op, T x, const std::optional<T>& gamma, bool has_beta, T grad,
                                    double epsilon, bool center) {
  x = contiguous(std::move(x));
  grad = contiguous(grad.dtype() == x.dtype() ? std::move(grad) : cast(std::move(grad), x.dtype()));
  auto [rows, d] = rows_of(x);
  auto g = like(gamma, x.dtype());
  CudaDevice dev = x.device();
  NormGradients<T> out{T(x.shape(), x.dtype(), dev), std::nullopt, std::nullopt};
  if (gamma) out.gamma = T(gamma->shape(), gamma->dtype(), dev);
  if (has_beta) out.beta = T(Shape{static_cast<size_t>(d)}, x.dtype(), dev);
  if (d == 0) return out;
  if (rows == 0) {
    if (out.gamma) out.gamma = full(out.gamma->shape(), Scalar(0), dev, out.gamma->dtype());
    if (out.beta) out.beta = full(out.beta->shape(), Scalar(0), dev, out.beta->dtype());
    return out;
  }
  bool params = gamma || has_beta;
  std::optional<T> stats;
  if (params) stats = T(Shape{static_cast<size_t>(rows), 2}, x.dtype() == DType::F64 ? DType::F64 : DType::F32, dev);
  visit_float(op, x.dtype(), [&]<class E>() {
    norm_backward_kernel<E><<<row_blocks(rows), kThreads, 0, stream(dev.index)>>>(
        x.data<E>(), ptr<E>(g), grad.data<E>(), out.x.data<E>(), ptr<dcompute_t<E>>(stats), rows, d,
        static_cast<dcompute_t<E>>(epsilon), center);
  });
  check_launch(op);
  if (params) param_grads(op, x, grad, *stats, out.gamma, out.beta);
  return out;
}

}  // namespace

T layer_norm(T x, const std::optional<T>& gamma, const std::optional<T>& beta, double epsilon) {
  return normalize("layer_norm", std::move(x), gamma, beta, epsilon, true);
}
NormGradients<T> layer_norm_backward(T x, const std::optional<T>& gamma, bool has_beta, T grad, double epsilon) {
  return normalize_backward("layer_norm_backward", std::move(x), gamma, has_beta, std::move(grad), epsilon, true);
}
T rms_norm(T x, const std::optional<T>& gamma, double epsilon) {
  return normalize("rms_norm", std::move(x), gamma, std::nullopt, epsilon, false);
}
NormGradients<T> rms_norm_backward(T x, const std::optional<T>& gamma, T grad, double epsilon) {
  return normalize_backward("rms_norm_backward", std::move(x), gamma, false, std::move(grad), epsilon, false);
}

}  // namespace scorch::backends::cuda::kernels

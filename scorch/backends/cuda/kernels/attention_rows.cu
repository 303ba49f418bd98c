// One warp per query row of attention's scores: softmax with the row's log-sum-exp, the probabilities
// again from it, and the scores' gradient (see attention_rows.h). Rows are re-read from cache, not kept
// in registers, so any key length works.
#include "scorch/backends/cuda/kernels/attention_rows.h"
#include "scorch/backend/attention_dropout.h"
#include "scorch/backends/cuda/kernels/attention_mask.cuh"
#include "scorch/backends/cuda/kernels/device.cuh"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda::kernels::attention_rows {
namespace {

constexpr int kWarps = kThreads / 32;

template <class C> __device__ C warp_reduce_sum(C v) {
  for (int s = 16; s > 0; s >>= 1) v += __shfl_xor_sync(0xffffffffu, v, s);
  return v;
}
template <class C> __device__ C warp_reduce_max(C v) {
  for (int s = 16; s > 0; s >>= 1) v = nan_max(v, __shfl_xor_sync(0xffffffffu, v, s));
  return v;
}
__device__ inline int64_t warp_row() { return static_cast<int64_t>(blockIdx.x) * kWarps + threadIdx.x / 32; }

// The scaled score, -inf where masked.
template <class C>
__device__ C masked(const C* row, const MaskRows& m, const bool* mask, int64_t i, int64_t j, C scale) {
  return m.hides(mask, i, j) ? C(-INFINITY) : row[j] * scale;
}

// P: the probabilities' storage type (C itself when written in place).
template <class C, class P>
__global__ void softmax_lse_kernel(const C* scores, P* probs, C* lse, int64_t rows, int64_t n, C scale,
                                   MaskRows mask, DropoutMask dropout) {
  int64_t r = warp_row();
  if (r >= rows) return;
  const C* s = scores + r * n;
  P* out = probs + r * n;
  const bool* mr = mask.row(r);
  int64_t i = r % mask.n_queries;
  int lane = threadIdx.x % 32;
  C m = -INFINITY;
  for (int64_t j = lane; j < n; j += 32) m = nan_max(m, masked(s, mask, mr, i, j, scale));
  m = warp_reduce_max(m);
  C total = 0;
  if (m != C(-INFINITY))
    for (int64_t j = lane; j < n; j += 32) total += ::exp(masked(s, mask, mr, i, j, scale) - m);
  total = warp_reduce_sum(total);
  C inv = C(1) / total;  // inf for a fully masked row: its probabilities are 0·inf = NaN
  for (int64_t j = lane; j < n; j += 32)
    store(out + j, ::exp(masked(s, mask, mr, i, j, scale) - m) * inv * dropout.factor<C>(r * n + j));
  if (lane == 0) lse[r] = m == C(-INFINITY) ? m : m + ::log(total);
}

// copy: the probabilities times their dropout factors in P as well (nullptr: none).
template <class C, class P>
__global__ void probs_kernel(C* scores, P* copy, const C* lse, int64_t rows, int64_t n, C scale, MaskRows mask,
                             DropoutMask dropout) {
  int64_t r = warp_row();
  if (r >= rows) return;
  C* s = scores + r * n;
  const bool* mr = mask.row(r);
  int64_t i = r % mask.n_queries;
  C l = lse[r];
  for (int64_t j = threadIdx.x % 32; j < n; j += 32) {
    C p = mask.hides(mr, i, j) ? C(0) : ::exp(s[j] * scale - l);  // 0 where masked, whatever l is
    s[j] = p;
    if (copy) store(copy + r * n + j, p * dropout.factor<C>(r * n + j));
  }
}

template <class C, class P>
__global__ void score_grad_kernel(const C* dprobs, P* dscores, const C* probs, const C* grad, const C* out,
                                  int64_t rows, int64_t n, int64_t dv, C scale, DropoutMask dropout) {
  int64_t r = warp_row();
  if (r >= rows) return;
  int lane = threadIdx.x % 32;
  C delta = 0;
  for (int64_t c = lane; c < dv; c += 32) delta += grad[r * dv + c] * out[r * dv + c];
  delta = warp_reduce_sum(delta);
  const C* d = dprobs + r * n;
  const C* p = probs + r * n;
  // 0 where the probability is 0 (masked), even when the row's delta is NaN: PyTorch's masked scores get no gradient.
  for (int64_t j = lane; j < n; j += 32)
    store(dscores + r * n + j, p[j] == C(0) ? C(0) : p[j] * (d[j] * dropout.factor<C>(r * n + j) - delta) * scale);
}

struct Geometry {
  int64_t rows, n;
  unsigned blocks;
};
Geometry geometry(const CudaTensor& scores) {
  const Shape& s = scores.shape();
  int64_t rows = static_cast<int64_t>(s[0] * s[1] * s[2]), n = static_cast<int64_t>(s[3]);
  return {rows, n, static_cast<unsigned>((rows + kWarps - 1) / kWarps)};
}

// f(C{}, P{}) with C the scores' compute type and P the storage type of dtype `as` (C for the scores' own).
template <class F> void in_types(const CudaTensor& scores, DType as, F f) {
  if (scores.dtype() == DType::F64) return f(double{}, double{});
  if (as == scores.dtype()) return f(float{}, float{});
  visit_float("attention", as, [&]<class E>() { f(float{}, E{}); });
}
/// A tensor of the scores' shape in dtype `as`: the scores themselves for their own dtype.
CudaTensor output_as(CudaTensor& scores, DType as) {
  return as == scores.dtype() ? scores : CudaTensor(scores.shape(), as, scores.device());
}

}  // namespace

std::pair<CudaTensor, CudaTensor> softmax_with_lse(CudaTensor& scores, const std::optional<CudaTensor>& mask,
                                                   bool causal, const AttentionDropout& dropout, double scale,
                                                   DType as) {
  const Shape& s = scores.shape();
  CudaTensor lse(Shape{s[0], s[1], s[2]}, scores.dtype(), scores.device()), probs = output_as(scores, as);
  Geometry g = geometry(scores);
  if (g.rows == 0) return {probs, lse};
  in_types(scores, as, [&](auto c, auto p) {
    using C = decltype(c);
    using P = decltype(p);
    softmax_lse_kernel<C, P><<<g.blocks, kThreads, 0, stream(scores.device().index)>>>(
        scores.data<C>(), probs.data<P>(), lse.data<C>(), g.rows, g.n, static_cast<C>(scale),
        mask_rows(mask, s, causal), DropoutMask::of(dropout));
  });
  check_launch("attention_with_stats");
  return {probs, lse};
}

std::optional<CudaTensor> probs_from_lse(CudaTensor& scores, const std::optional<CudaTensor>& mask, bool causal,
                                         const AttentionDropout& dropout, const CudaTensor& lse, double scale,
                                         DType as) {
  std::optional<CudaTensor> copy;
  DropoutMask drop = DropoutMask::of(dropout);
  if (as != scores.dtype() || drop.active) copy = CudaTensor(scores.shape(), as, scores.device());
  Geometry g = geometry(scores);
  if (g.rows == 0 || g.n == 0) return copy;
  in_types(scores, as, [&](auto c, auto p) {
    using C = decltype(c);
    using P = decltype(p);
    probs_kernel<C, P><<<g.blocks, kThreads, 0, stream(scores.device().index)>>>(
        scores.data<C>(), copy ? copy->data<P>() : nullptr, lse.data<C>(), g.rows, g.n, static_cast<C>(scale),
        mask_rows(mask, scores.shape(), causal), drop);
  });
  check_launch("attention_backward");
  return copy;
}

CudaTensor score_grad(CudaTensor& dprobs, const CudaTensor& probs, const CudaTensor& grad, const CudaTensor& out,
                      const AttentionDropout& dropout, double scale, DType as) {
  CudaTensor dscores = output_as(dprobs, as);
  Geometry g = geometry(dprobs);
  if (g.rows == 0 || g.n == 0) return dscores;
  auto dv = static_cast<int64_t>(grad.shape()[3]);
  in_types(dprobs, as, [&](auto c, auto p) {
    using C = decltype(c);
    using P = decltype(p);
    score_grad_kernel<C, P><<<g.blocks, kThreads, 0, stream(dprobs.device().index)>>>(
        dprobs.data<C>(), dscores.data<P>(), probs.data<C>(), grad.data<C>(), out.data<C>(), g.rows, g.n, dv,
        static_cast<C>(scale), DropoutMask::of(dropout));
  });
  check_launch("attention_backward");
  return dscores;
}

}  // namespace scorch::backends::cuda::kernels::attention_rows

// Fused scaled dot-product attention, forward (with each query's log-sum-exp) and backward: per
// (batch, head), scores, mask, softmax and the products stay in thread-local buffers; nothing of size
// seq² is allocated per call.
#include <cmath>
#include <limits>
#include <vector>

#include "scorch/backends/cpu/kernels/gemm.h"
#include "scorch/backends/cpu/kernels/module_kernels.h"
#include "scorch/backends/cpu/kernels/window.h"
#include "scorch/backends/cpu/thread_pool.h"

namespace scorch::backends::cpu::kernels {
namespace {

// Element stride of each of the mask's 4 dims, 0 where it broadcasts.
std::array<size_t, 4> mask_strides(const T& m) {
  std::array<size_t, 4> s{};
  size_t step = 1;
  for (size_t d = 4; d-- > 0;) {
    s[d] = m.shape()[d] == 1 ? 0 : step;
    step *= m.shape()[d];
  }
  return s;
}

// Softmax of the row in place; returns the row's log-sum-exp.
template <class C> C softmax_row(C* row, size_t n) {
  C mx = -std::numeric_limits<C>::infinity();
  for (size_t j = 0; j < n; ++j) mx = (row[j] != row[j] || row[j] > mx) ? row[j] : mx;  // NaN propagates
  C sum = 0;
  for (size_t j = 0; j < n; ++j) {
    row[j] = std::exp(row[j] - mx);
    sum += row[j];
  }
  for (size_t j = 0; j < n; ++j) row[j] /= sum;
  return mx == -std::numeric_limits<C>::infinity() ? mx : std::log(sum) + mx;  // -inf: every key masked
}

// The [lq, lk] scores q·kᵀ·scale of one (batch, head), -inf where the mask is true and, when causal, where j > i.
template <class C> struct Scores {
  const T *q, *k, *mask;
  C scale;
  bool causal;
  std::array<size_t, 4> ms;
  void fill(size_t bh, C* scores) const {
    const Shape& s = q->shape();
    size_t heads = s[1], lq = s[2], d = s[3], lk = k->shape()[2], b = bh / heads, h = bh % heads;
    const C* qp = q->data<C>() + bh * lq * d;
    const C* kp = k->data<C>() + bh * lk * d;
    gemm::strided<C>(lq, lk, d, {qp, static_cast<ptrdiff_t>(d), 1}, {kp, 1, static_cast<ptrdiff_t>(d)}, scores, lk,
                     false);
    const bool* mp = mask ? mask->data<bool>() : nullptr;
    for (size_t i = 0; i < lq; ++i)
      for (size_t j = 0; j < lk; ++j) {
        C& x = scores[i * lk + j];
        x *= scale;
        if ((mp && mp[b * ms[0] + h * ms[1] + i * ms[2] + j * ms[3]]) || (causal && j > i))
          x = -std::numeric_limits<C>::infinity();
      }
  }
};

template <class C> Scores<C> scores_of(const T& q, const T& k, const T* mask, C scale, bool causal) {
  return {&q, &k, mask, scale, causal, mask ? mask_strides(*mask) : std::array<size_t, 4>{}};
}

// out (and, when given, the [batch·heads·lq] log-sum-exp) of attention, one (batch, head) per task.
template <class C> void attention_as(const T& q, const T& k, const T& v, const Scores<C>& scores_for, T& out, C* lse) {
  const Shape& s = q.shape();
  size_t lq = s[2], lk = k.shape()[2], dv = v.shape()[3];
  parallel_for(s[0] * s[1], 1, [&](size_t b0, size_t b1) {
    thread_local std::vector<C> scores;
    scores.resize(lq * lk);
    for (size_t bh = b0; bh < b1; ++bh) {
      scores_for.fill(bh, scores.data());
      for (size_t i = 0; i < lq; ++i) {
        C l = softmax_row(scores.data() + i * lk, lk);
        if (lse) lse[bh * lq + i] = l;
      }
      const C* vp = v.data<C>() + bh * lk * dv;
      gemm::strided<C>(lq, dv, lk, {scores.data(), static_cast<ptrdiff_t>(lk), 1}, {vp, static_cast<ptrdiff_t>(dv), 1},
                       out.data<C>() + bh * lq * dv, dv, false);
    }
  });
}

// The gradients of one (batch, head): P from the scores and lse, dv = Pᵀ·g, dS = P∘(g·vᵀ - rowsum(g∘out)),
// dq = dS·k·scale, dk = dSᵀ·q·scale.
template <class C> struct AttentionBackward {
  const T &q, &k, &v, &out, &grad;
  const C* lse;
  Scores<C> scores;
  T &dq, &dk, &dv;

  void run(size_t bh, std::vector<C>& p, std::vector<C>& dp) const {
    size_t lq = q.shape()[2], d = q.shape()[3], lk = k.shape()[2], e = v.shape()[3];
    auto at = [](const T& t, size_t offset) { return t.data<C>() + offset; };
    const C *qp = at(q, bh * lq * d), *kp = at(k, bh * lk * d), *vp = at(v, bh * lk * e);
    const C *op = at(out, bh * lq * e), *gp = at(grad, bh * lq * e);
    auto sd = static_cast<ptrdiff_t>(d), se = static_cast<ptrdiff_t>(e), sk = static_cast<ptrdiff_t>(lk);
    scores.fill(bh, p.data());
    for (size_t i = 0; i < lq; ++i)
      for (size_t j = 0; j < lk; ++j)  // 0 where masked (score -inf), whatever the log-sum-exp is
        p[i * lk + j] = p[i * lk + j] == -std::numeric_limits<C>::infinity() ? C(0)
                                                                           : std::exp(p[i * lk + j] - lse[bh * lq + i]);
    gemm::strided<C>(lk, e, lq, {p.data(), 1, sk}, {gp, se, 1}, dv.data<C>() + bh * lk * e, e, false);
    gemm::strided<C>(lq, lk, e, {gp, se, 1}, {vp, 1, se}, dp.data(), lk, false);
    for (size_t i = 0; i < lq; ++i) {
      C delta = 0;
      for (size_t c = 0; c < e; ++c) delta += gp[i * e + c] * op[i * e + c];
      for (size_t j = 0; j < lk; ++j)  // 0 where masked (p = 0) even when delta is NaN, as PyTorch's
        dp[i * lk + j] = p[i * lk + j] == C(0) ? C(0) : p[i * lk + j] * (dp[i * lk + j] - delta) * scores.scale;
    }
    gemm::strided<C>(lq, d, lk, {dp.data(), sk, 1}, {kp, sd, 1}, dq.data<C>() + bh * lq * d, d, false);
    gemm::strided<C>(lk, d, lq, {dp.data(), 1, sk}, {qp, sd, 1}, dk.data<C>() + bh * lk * d, d, false);
  }
};

// q, k, v (and out, grad) in the compute dtype, contiguous; the mask contiguous.
struct Prepared {
  DType dtype, compute;
  std::vector<T> tensors;
  std::optional<T> mask;
};
Prepared prepare(std::initializer_list<const T*> tensors, const std::optional<T>& mask) {
  DType d = (*tensors.begin())->dtype();
  Prepared p{d, window::compute_dtype(d), {}, std::nullopt};
  for (const T* t : tensors) p.tensors.push_back(to_dtype(*t, p.compute));
  if (mask) p.mask = contiguous(*mask);
  return p;
}

}  // namespace

std::pair<T, T> attention_with_stats(T q, T k, T v, const std::optional<T>& mask, double scale, bool causal) {
  Prepared p = prepare({&q, &k, &v}, mask);
  const Shape& s = q.shape();
  T out(Shape{s[0], s[1], s[2], v.shape()[3]}, p.compute), lse(Shape{s[0], s[1], s[2]}, p.compute);
  window::in_compute_type(p.dtype, [&](auto zero) {
    using C = decltype(zero);
    const T* m = p.mask ? &*p.mask : nullptr;
    auto scores = scores_of(p.tensors[0], p.tensors[1], m, static_cast<C>(scale), causal);
    attention_as<C>(p.tensors[0], p.tensors[1], p.tensors[2], scores, out, lse.data<C>());
  });
  return {to_dtype(out, p.dtype), std::move(lse)};
}

T attention(T q, T k, T v, const std::optional<T>& mask, double scale, bool causal) {
  Prepared p = prepare({&q, &k, &v}, mask);
  const Shape& s = q.shape();
  T out(Shape{s[0], s[1], s[2], v.shape()[3]}, p.compute);
  window::in_compute_type(p.dtype, [&](auto zero) {
    using C = decltype(zero);
    const T* m = p.mask ? &*p.mask : nullptr;
    auto scores = scores_of(p.tensors[0], p.tensors[1], m, static_cast<C>(scale), causal);
    attention_as<C>(p.tensors[0], p.tensors[1], p.tensors[2], scores, out, nullptr);
  });
  return to_dtype(out, p.dtype);
}

AttentionGradients<T> attention_backward(T q, T k, T v, const std::optional<T>& mask, double scale, bool causal, T out,
                                         T logsumexp, T grad) {
  Prepared p = prepare({&q, &k, &v, &out, &logsumexp, &grad}, mask);
  const auto& t = p.tensors;
  T dq(q.shape(), p.compute), dk(k.shape(), p.compute), dv(v.shape(), p.compute);
  window::in_compute_type(p.dtype, [&](auto zero) {
    using C = decltype(zero);
    const T* m = p.mask ? &*p.mask : nullptr;
    AttentionBackward<C> job{
        t[0], t[1], t[2], t[3], t[5], t[4].template data<C>(), scores_of(t[0], t[1], m, static_cast<C>(scale), causal),
        dq,   dk,   dv};
    size_t lq = q.shape()[2], lk = k.shape()[2];
    parallel_for(q.shape()[0] * q.shape()[1], 1, [&](size_t b0, size_t b1) {
      thread_local std::vector<C> probs, dprobs;
      probs.resize(lq * lk);
      dprobs.resize(lq * lk);
      for (size_t bh = b0; bh < b1; ++bh) job.run(bh, probs, dprobs);
    });
  });
  return {to_dtype(dq, p.dtype), to_dtype(dk, p.dtype), to_dtype(dv, p.dtype)};
}

}  // namespace scorch::backends::cpu::kernels

// Fused scaled dot-product attention on Cpu, forward (with each query's log-sum-exp) and backward, blocked as flash
// attention is: a task takes a block of kQueryBlock queries (forward) or a whole (batch, head) (backward) and streams
// the keys through in blocks of kKeyBlock, with an online softmax in the forward; the backward recomputes each
// block's probabilities from the log-sum-exp. Buffers are a few blocks per thread whatever the sequence lengths, and
// a causal block stops at its last query's key. Dropout draws DropoutMask's factors where they are used.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "scorch/backend/attention_dropout.h"
#include "scorch/backends/cpu/kernels/gemm.h"
#include "scorch/backends/cpu/kernels/module_kernels.h"
#include "scorch/backends/cpu/kernels/window.h"
#include "scorch/backends/cpu/thread_pool.h"

namespace scorch::backends::cpu::kernels {
namespace {

constexpr size_t kQueryBlock = 64;
constexpr size_t kKeyBlock = 256;

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

template <class C> C nan_max(C a, C b) { return (a != a || a > b) ? a : b; }  // NaN propagates

/// A block of queries [q0, q0 + nq) against keys [k0, k0 + nk) of one (batch, head).
struct Block {
  size_t bh, q0, nq, k0, nk;
};

// The operands of one call: q [b, h, lq, d], k [b, h, lk, d], v [b, h, lk, e], the mask, scale, causal and dropout.
template <class C> struct Problem {
  const T &q, &k, &v;
  const T* mask;
  C scale;
  bool causal;
  DropoutMask dropout;
  std::array<size_t, 4> ms;
  size_t heads() const { return q.shape()[1]; }
  size_t lq() const { return q.shape()[2]; }
  size_t d() const { return q.shape()[3]; }
  size_t lk() const { return k.shape()[2]; }
  size_t e() const { return v.shape()[3]; }
  /// The keys a block of queries ending before q_end sees: all, or with causal those up to its last query.
  size_t key_end(size_t q_end) const { return causal ? std::min(lk(), q_end) : lk(); }
  const C* at(const T& t, size_t bh, size_t row) const {
    return t.data<C>() + (bh * t.shape()[2] + row) * t.shape()[3];
  }
  /// The block's scaled scores [nq, nk] (row stride nk), -inf where the mask or causal hides a key.
  void scores(const Block& b, C* s) const {
    auto sd = static_cast<ptrdiff_t>(d());
    gemm::strided<C>(b.nq, b.nk, d(), {at(q, b.bh, b.q0), sd, 1}, {at(k, b.bh, b.k0), 1, sd}, s, b.nk, false);
    const bool* mp = mask ? mask->data<bool>() : nullptr;
    size_t batch = b.bh / heads(), head = b.bh % heads();
    for (size_t i = 0; i < b.nq; ++i)
      for (size_t j = 0; j < b.nk; ++j) {
        size_t qi = b.q0 + i, kj = b.k0 + j;
        C& x = s[i * b.nk + j];
        x *= scale;
        if ((mp && mp[batch * ms[0] + head * ms[1] + qi * ms[2] + kj * ms[3]]) || (causal && kj > qi))
          x = -std::numeric_limits<C>::infinity();
      }
  }
  /// The flat index of (query i, key j) of the block in the [b, h, lq, lk] probabilities (DropoutMask's).
  uint64_t flat(const Block& b, size_t i, size_t j) const { return (b.bh * lq() + b.q0 + i) * lk() + b.k0 + j; }
};

template <class C> Problem<C> problem_of(const T& q, const T& k, const T& v, const T* mask, double scale, bool causal,
                                         const AttentionDropout& dropout) {
  return {q, k, v, mask, static_cast<C>(scale), causal, DropoutMask::of(dropout),
          mask ? mask_strides(*mask) : std::array<size_t, 4>{}};
}

// The online softmax of a block of queries: running max, sum and output rows.
template <class C> struct RunningRows {
  std::vector<C> max, sum, acc;
  void reset(size_t nq, size_t e) {
    max.assign(nq, -std::numeric_limits<C>::infinity());
    sum.assign(nq, C(0));
    acc.assign(nq * e, C(0));
  }
  /// Turns the block's scores s into exp(s - running max) (then times the dropout factors), rescaling the sums and
  /// outputs to the new max; the sums count every probability, dropped or not.
  void update(const Problem<C>& p, const Block& b, C* s) {
    size_t e = p.e();
    for (size_t i = 0; i < b.nq; ++i) {
      C* row = s + i * b.nk;
      C next = max[i];
      for (size_t j = 0; j < b.nk; ++j) next = nan_max(next, row[j]);
      C base = next == -std::numeric_limits<C>::infinity() ? C(0) : next;  // a row with every key so far hidden
      C alpha = std::exp(max[i] - base);
      max[i] = next, sum[i] *= alpha;
      for (size_t c = 0; c < e; ++c) acc[i * e + c] *= alpha;
      for (size_t j = 0; j < b.nk; ++j) {
        row[j] = std::exp(row[j] - base);
        sum[i] += row[j];
        if (p.dropout.active) row[j] *= p.dropout.template factor<C>(p.flat(b, i, j));
      }
    }
  }
};

// Queries [q0, q0 + nq) of head bh: out rows and their log-sum-exp (lse may be null).
template <class C> void forward_block(const Problem<C>& p, size_t bh, size_t q0, size_t nq, C* out, C* lse) {
  thread_local std::vector<C> s;
  thread_local RunningRows<C> rows;
  size_t e = p.e();
  s.resize(nq * kKeyBlock);
  rows.reset(nq, e);
  auto se = static_cast<ptrdiff_t>(e);
  for (size_t k0 = 0, end = p.key_end(q0 + nq); k0 < end; k0 += kKeyBlock) {
    Block b{bh, q0, nq, k0, std::min(kKeyBlock, end - k0)};
    p.scores(b, s.data());
    rows.update(p, b, s.data());
    gemm::strided<C>(nq, e, b.nk, {s.data(), static_cast<ptrdiff_t>(b.nk), 1}, {p.at(p.v, bh, k0), se, 1},
                     rows.acc.data(), e, true);
  }
  for (size_t i = 0; i < nq; ++i) {
    // inf for a query whose keys are all hidden: its output is 0·inf = NaN; with no keys at all, an empty sum: 0.
    C inv = p.lk() == 0 ? C(0) : C(1) / rows.sum[i];
    for (size_t c = 0; c < e; ++c) out[(q0 + i) * e + c] = rows.acc[i * e + c] * inv;
    C m = rows.max[i];
    if (lse) lse[q0 + i] = m == -std::numeric_limits<C>::infinity() ? m : std::log(rows.sum[i]) + m;
  }
}

// out (and, when given, the [batch·heads·lq] log-sum-exp) of attention, a block of queries per task.
template <class C> void attention_as(const Problem<C>& p, T& out, C* lse) {
  size_t blocks = (p.lq() + kQueryBlock - 1) / kQueryBlock, bhs = p.q.shape()[0] * p.heads(), lq = p.lq();
  parallel_for(bhs * blocks, 1, [&](size_t t0, size_t t1) {
    for (size_t t = t0; t < t1; ++t) {
      size_t bh = t / blocks, q0 = (t % blocks) * kQueryBlock;
      forward_block(p, bh, q0, std::min(kQueryBlock, lq - q0), out.data<C>() + bh * lq * p.e(),
                    lse ? lse + bh * lq : nullptr);
    }
  });
}

// The gradients of one (batch, head), block by block: P from the scores and lse, Z the dropout factors (1 without),
// dS = P∘((g·vᵀ)∘Z - rowsum(g∘out)), dv += (P∘Z)ᵀ·g, dq += dS·k·scale, dk += dSᵀ·q·scale.
template <class C> struct AttentionBackward {
  const Problem<C>& p;
  const T &out, &grad;
  const C* lse;
  T &dq, &dk, &dv;

  void run(size_t bh, std::vector<C>& probs, std::vector<C>& dprobs, std::vector<C>& delta) const {
    size_t lq = p.lq(), e = p.e();
    const C *gp = p.at(grad, bh, 0), *op = p.at(out, bh, 0);
    delta.resize(lq);
    for (size_t i = 0; i < lq; ++i) {
      C total = 0;
      for (size_t c = 0; c < e; ++c) total += gp[i * e + c] * op[i * e + c];
      delta[i] = total;
    }
    for (size_t q0 = 0; q0 < lq; q0 += kQueryBlock) {
      size_t nq = std::min(kQueryBlock, lq - q0);
      for (size_t k0 = 0, end = p.key_end(q0 + nq); k0 < end; k0 += kKeyBlock)
        block({bh, q0, nq, k0, std::min(kKeyBlock, end - k0)}, probs.data(), dprobs.data(), delta.data());
    }
  }

  void block(const Block& b, C* pr, C* dp, const C* delta) const {
    size_t d = p.d(), e = p.e();
    auto sd = static_cast<ptrdiff_t>(d), se = static_cast<ptrdiff_t>(e), sk = static_cast<ptrdiff_t>(b.nk);
    auto out_row = [&](T& t, size_t row, size_t width) { return t.data<C>() + (b.bh * t.shape()[2] + row) * width; };
    p.scores(b, pr);
    gemm::strided<C>(b.nq, b.nk, e, {p.at(grad, b.bh, b.q0), se, 1}, {p.at(p.v, b.bh, b.k0), 1, se}, dp, b.nk, false);
    for (size_t i = 0; i < b.nq; ++i) {
      C l = lse[b.bh * p.lq() + b.q0 + i], dl = delta[b.q0 + i];
      for (size_t j = 0; j < b.nk; ++j) {
        C& x = pr[i * b.nk + j];
        x = x == -std::numeric_limits<C>::infinity() ? C(0) : std::exp(x - l);  // 0 where hidden, whatever l is
        C z = p.dropout.active ? p.dropout.template factor<C>(p.flat(b, i, j)) : C(1);
        C& g = dp[i * b.nk + j];  // 0 where hidden (p = 0) even when delta is NaN, as PyTorch's
        g = x == C(0) ? C(0) : x * (g * z - dl) * p.scale;
        x *= z;  // P∘Z for dv
      }
    }
    gemm::strided<C>(b.nk, e, b.nq, {pr, 1, sk}, {p.at(grad, b.bh, b.q0), se, 1}, out_row(dv, b.k0, e), e, true);
    gemm::strided<C>(b.nq, d, b.nk, {dp, sk, 1}, {p.at(p.k, b.bh, b.k0), sd, 1}, out_row(dq, b.q0, d), d, true);
    gemm::strided<C>(b.nk, d, b.nq, {dp, 1, sk}, {p.at(p.q, b.bh, b.q0), sd, 1}, out_row(dk, b.k0, d), d, true);
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

/// f(problem) for the prepared operands in their compute type.
template <class F> void with_problem(const Prepared& p, double scale, bool causal, const AttentionDropout& dropout,
                                     F&& f) {
  window::in_compute_type(p.dtype, [&](auto zero) {
    using C = decltype(zero);
    const T* m = p.mask ? &*p.mask : nullptr;
    f(problem_of<C>(p.tensors[0], p.tensors[1], p.tensors[2], m, scale, causal, dropout));
  });
}

}  // namespace

std::pair<T, T> attention_with_stats(T q, T k, T v, const std::optional<T>& mask, double scale, bool causal,
                                     const AttentionDropout& dropout) {
  Prepared p = prepare({&q, &k, &v}, mask);
  const Shape& s = q.shape();
  T out(Shape{s[0], s[1], s[2], v.shape()[3]}, p.compute), lse(Shape{s[0], s[1], s[2]}, p.compute);
  with_problem(p, scale, causal, dropout, [&](const auto& problem) {
    using C = std::decay_t<decltype(problem.scale)>;
    attention_as<C>(problem, out, lse.data<C>());
  });
  return {to_dtype(out, p.dtype), std::move(lse)};
}

T attention(T q, T k, T v, const std::optional<T>& mask, double scale, bool causal, const AttentionDropout& dropout) {
  Prepared p = prepare({&q, &k, &v}, mask);
  const Shape& s = q.shape();
  T out(Shape{s[0], s[1], s[2], v.shape()[3]}, p.compute);
  with_problem(p, scale, causal, dropout, [&](const auto& problem) {
    using C = std::decay_t<decltype(problem.scale)>;
    attention_as<C>(problem, out, nullptr);
  });
  return to_dtype(out, p.dtype);
}

AttentionGradients<T> attention_backward(T q, T k, T v, const std::optional<T>& mask, double scale, bool causal,
                                         const AttentionDropout& dropout, T out, T logsumexp, T grad) {
  Prepared p = prepare({&q, &k, &v, &out, &logsumexp, &grad}, mask);
  const auto& t = p.tensors;
  auto zeros = [&](const T& like) { return full(like.shape(), Scalar(0), CpuDevice{}, p.compute); };
  T dq = zeros(q), dk = zeros(k), dv = zeros(v);  // the blocks add into them
  with_problem(p, scale, causal, dropout, [&](const auto& problem) {
    using C = std::decay_t<decltype(problem.scale)>;
    AttentionBackward<C> job{problem, t[3], t[5], t[4].template data<C>(), dq, dk, dv};
    parallel_for(q.shape()[0] * q.shape()[1], 1, [&](size_t b0, size_t b1) {
      thread_local std::vector<C> probs, dprobs, delta;
      probs.resize(kQueryBlock * kKeyBlock);
      dprobs.resize(kQueryBlock * kKeyBlock);
      for (size_t bh = b0; bh < b1; ++bh) job.run(bh, probs, dprobs, delta);
    });
  });
  return {to_dtype(dq, p.dtype), to_dtype(dk, p.dtype), to_dtype(dv, p.dtype)};
}

}  // namespace scorch::backends::cpu::kernels

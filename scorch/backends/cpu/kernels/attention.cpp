// Fused scaled dot-product attention: per (batch, head), scores, mask, softmax and the
// product with v stay in a thread-local buffer; nothing of size seq² is allocated per call.
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

template <class C> void softmax_row(C* row, size_t n) {
  C mx = -std::numeric_limits<C>::infinity();
  for (size_t j = 0; j < n; ++j) mx = std::max(mx, row[j]);
  C sum = 0;
  for (size_t j = 0; j < n; ++j) {
    row[j] = std::exp(row[j] - mx);
    sum += row[j];
  }
  for (size_t j = 0; j < n; ++j) row[j] /= sum;
}

template <class C> void attention_as(const T& q, const T& k, const T& v, const T* mask, C scale, T& out) {
  const Shape& s = q.shape();
  size_t batch = s[0], heads = s[1], lq = s[2], d = s[3], lk = k.shape()[2], dv = v.shape()[3];
  auto ms = mask ? mask_strides(*mask) : std::array<size_t, 4>{};
  const bool* mp = mask ? mask->data<bool>() : nullptr;
  parallel_for(batch * heads, 1, [&](size_t b0, size_t b1) {
    thread_local std::vector<C> scores;
    scores.resize(lq * lk);
    for (size_t bh = b0; bh < b1; ++bh) {
      size_t b = bh / heads, h = bh % heads;
      const C* qp = q.data<C>() + bh * lq * d;
      const C* kp = k.data<C>() + bh * lk * d;
      const C* vp = v.data<C>() + bh * lk * dv;
      gemm::strided<C>(lq, lk, d, {qp, static_cast<ptrdiff_t>(d), 1}, {kp, 1, static_cast<ptrdiff_t>(d)}, scores.data(),
                       lk, false);
      for (size_t i = 0; i < lq; ++i) {
        C* row = scores.data() + i * lk;
        for (size_t j = 0; j < lk; ++j) {
          row[j] *= scale;
          if (mp && mp[b * ms[0] + h * ms[1] + i * ms[2] + j * ms[3]]) row[j] = -std::numeric_limits<C>::infinity();
        }
        softmax_row(row, lk);
      }
      gemm::strided<C>(lq, dv, lk, {scores.data(), static_cast<ptrdiff_t>(lk), 1}, {vp, static_cast<ptrdiff_t>(dv), 1},
                       out.data<C>() + bh * lq * dv, dv, false);
    }
  });
}

}  // namespace

T attention(T q, T k, T v, const std::optional<T>& mask, double scale) {
  DType d = q.dtype(), cd = window::compute_dtype(d);
  T qc = to_dtype(q, cd), kc = to_dtype(k, cd), vc = to_dtype(v, cd);
  std::optional<T> mc;
  if (mask) mc = contiguous(*mask);
  const Shape& s = qc.shape();
  T out(Shape{s[0], s[1], s[2], vc.shape()[3]}, cd);
  if (cd == DType::F64) attention_as<double>(qc, kc, vc, mc ? &*mc : nullptr, scale, out);
  else attention_as<float>(qc, kc, vc, mc ? &*mc : nullptr, static_cast<float>(scale), out);
  return to_dtype(out, d);
}

}  // namespace scorch::backends::cpu::kernels

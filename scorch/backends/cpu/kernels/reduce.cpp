#include "scorch/backends/cpu/kernels/reduce.h"

#include <cmath>
#include <vector>

#include "scorch/backends/common/empty_reduce.h"
#include "scorch/backends/common/scalar_ops.h"
#include "scorch/backends/cpu/kernels/elementwise.h"
#include "scorch/backends/cpu/kernels/kernels.h"

namespace scorch::backends::cpu::kernels {
namespace so = scalar_ops;
namespace {

// out[o, i] = fold of x[o, 0..n, i] with op, starting from x[o, 0, i]; then finish(acc). The caller
// handles an empty dim (empty_fold).
template <class E, class Op, class Finish> T fold_dim(const char* name, T x, size_t dim, Op op, Finish finish) {
  x = contiguous(std::move(x));
  Lanes g(x.shape(), dim);
  T out(keep_dim(x.shape(), dim), x.dtype());
  const E* src = x.data<E>();
  E* dst = out.data<E>();
  using A = acc_t<E>;
  size_t grain = std::max<size_t>(1, kElementwiseGrain / std::max<size_t>(g.n * g.inner, 1));
  parallel_for(g.outer, grain, [&](size_t ob, size_t oe) {
    std::vector<A> acc(g.inner);
    for (size_t o = ob; o < oe; ++o) {
      const E* base = src + o * g.n * g.inner;
      for (size_t i = 0; i < g.inner; ++i) acc[i] = static_cast<A>(load(base + i));
      for (size_t k = 1; k < g.n; ++k) {
        const E* row = base + k * g.inner;
        for (size_t i = 0; i < g.inner; ++i) acc[i] = op(acc[i], static_cast<A>(load(row + i)));
      }
      for (size_t i = 0; i < g.inner; ++i) store(dst + o * g.inner + i, finish(acc[i], g.n));
    }
  });
  return out;
}

struct Identity {
  template <class A> A operator()(A a, size_t) const { return a; }
};
struct DivideByCount {
  template <class A> A operator()(A a, size_t n) const { return so::Div{}(a, static_cast<A>(n)); }
};

// The reduction of an empty dim: PyTorch's identity for every output, or its error.
T empty_fold(const char* name, EmptyFold fold, const T& x, size_t dim) {
  Scalar value = empty_fold_value(name, fold, x.dtype(), x.shape(), dim);
  return full(keep_dim(x.shape(), dim), value, {}, x.dtype());
}

template <class Op, class Finish = Identity>
T fold_numeric(const char* name, EmptyFold fold, T x, size_t dim, Op op, Finish finish = {}) {
  if (x.shape()[dim] == 0) return empty_fold(name, fold, x, dim);
  return visit_numeric(name, x.dtype(), [&]<class E>() { return fold_dim<E>(name, std::move(x), dim, op, finish); });
}

T flatten(T x) { return reshape(std::move(x), Shape{x.numel()}); }

// Index of the extreme value along dim; better(v, best) says v replaces best. NaN wins.
template <class Better> T arg_extreme(const char* name, T x, size_t dim, Better better) {
  if (x.shape()[dim] == 0) empty_fold_value(name, EmptyFold::Extreme, x.dtype(), x.shape(), dim);  // throws
  x = contiguous(std::move(x));
  Lanes g(x.shape(), dim);
  T out(keep_dim(x.shape(), dim), DType::I64);
  int64_t* dst = out.data<int64_t>();
  visit_numeric(name, x.dtype(), [&]<class E>() {
    const E* src = x.data<E>();
    parallel_for(g.outer * g.inner, kElementwiseGrain / std::max<size_t>(g.n, 1) + 1, [&](size_t b, size_t e) {
      for (size_t lane = b; lane < e; ++lane) {
        const E* p = src + (lane / g.inner) * g.n * g.inner + lane % g.inner;
        auto best = load(p);
        int64_t best_k = 0;
        for (size_t k = 1; k < g.n && best == best; ++k) {
          auto v = load(p + k * g.inner);
          if (v != v || better(v, best)) {
            best = v;
            best_k = static_cast<int64_t>(k);
          }
        }
        dst[lane] = best_k;
      }
    });
  });
  return out;
}

// out[o, k, i] = op(out[o, k-1, i], x[o, k, i]).
template <class Op> T scan_dim(const char* name, T x, size_t dim, Op op) {
  x = contiguous(std::move(x));
  Lanes g(x.shape(), dim);
  T out(x.shape(), x.dtype());
  visit_numeric(name, x.dtype(), [&]<class E>() {
    const E* src = x.data<E>();
    E* dst = out.data<E>();
    using A = acc_t<E>;
    parallel_for(g.outer, 1, [&](size_t ob, size_t oe) {
      std::vector<A> acc(g.inner);
      for (size_t o = ob; o < oe; ++o) {
        size_t base = o * g.n * g.inner;
        for (size_t k = 0; k < g.n; ++k) {
          for (size_t i = 0; i < g.inner; ++i) {
            A v = static_cast<A>(load(src + base + k * g.inner + i));
            acc[i] = k == 0 ? v : op(acc[i], v);
            store(dst + base + k * g.inner + i, acc[i]);
          }
        }
      }
    });
  });
  return out;
}

}  // namespace

T sum_dim(T x, size_t dim) { return fold_numeric("sum_dim", EmptyFold::Sum, std::move(x), dim, so::Add{}); }
T mean_dim(T x, size_t dim) {
  return fold_numeric("mean_dim", EmptyFold::Mean, std::move(x), dim, so::Add{}, DivideByCount{});
}
T prod_dim(T x, size_t dim) { return fold_numeric("prod_dim", EmptyFold::Prod, std::move(x), dim, so::Mul{}); }
T max_dim(T x, size_t dim) { return fold_numeric("max_dim", EmptyFold::Extreme, std::move(x), dim, so::Maximum{}); }
T min_dim(T x, size_t dim) { return fold_numeric("min_dim", EmptyFold::Extreme, std::move(x), dim, so::Minimum{}); }
T sum(T x) {
  if (x.numel() == 0) return full(Shape{1}, Scalar(0), {}, x.dtype());
  return sum_dim(flatten(std::move(x)), 0);
}
T mean(T x) { return mean_dim(flatten(std::move(x)), 0); }
T prod(T x) {
  if (x.numel() == 0) return full(Shape{1}, Scalar(1), {}, x.dtype());
  return prod_dim(flatten(std::move(x)), 0);
}
T max(T x) { return max_dim(flatten(std::move(x)), 0); }
T min(T x) { return min_dim(flatten(std::move(x)), 0); }

T argmax(T x, size_t dim) {
  return arg_extreme("argmax", std::move(x), dim, [](auto v, auto b) { return v > b; });
}
T argmin(T x, size_t dim) {
  return arg_extreme("argmin", std::move(x), dim, [](auto v, auto b) { return v < b; });
}
IndexPair max_dim_with_indices(T x, size_t dim) {
  T idx = argmax(x, dim);
  return {max_dim(std::move(x), dim), std::move(idx)};
}
IndexPair min_dim_with_indices(T x, size_t dim) {
  T idx = argmin(x, dim);
  return {min_dim(std::move(x), dim), std::move(idx)};
}

T cumsum(T x, size_t dim) { return scan_dim("cumsum", std::move(x), dim, so::Add{}); }
T cumprod(T x, size_t dim) { return scan_dim("cumprod", std::move(x), dim, so::Mul{}); }
T cummin(T x, size_t dim) { return scan_dim("cummin", std::move(x), dim, so::Minimum{}); }
T cummax(T x, size_t dim) { return scan_dim("cummax", std::move(x), dim, so::Maximum{}); }

}  // namespace scorch::backends::cpu::kernels

#include <cfloat>
#include <climits>

#include "scorch/backends/common/empty_reduce.h"
#include "scorch/backends/common/scalar_ops.h"
#include "scorch/backends/cuda/kernels/kernels.h"
#include "scorch/backends/cuda/kernels/reduce.cuh"

namespace scorch::backends::cuda::kernels {
namespace so = scalar_ops;
namespace {

template <class A> __host__ __device__ A lowest() {
  if constexpr (std::is_floating_point_v<A>) return -INFINITY;
  else return LLONG_MIN;
}
template <class A> __host__ __device__ A highest() {
  if constexpr (std::is_floating_point_v<A>) return INFINITY;
  else return LLONG_MAX;
}

enum class Fold { Sum, Mean, Prod, Max, Min };

// Folds values in accumulator type A (double or int64) as the Cpu backend does.
template <class A, Fold kFold> struct Folder {
  using Acc = A;
  __device__ A identity() const {
    if constexpr (kFold == Fold::Prod) return A(1);
    else if constexpr (kFold == Fold::Max) return lowest<A>();
    else if constexpr (kFold == Fold::Min) return highest<A>();
    else return A(0);
  }
  template <class V> __device__ A make(V v, int64_t) const { return static_cast<A>(v); }
  __device__ A combine(A a, A b) const {
    if constexpr (kFold == Fold::Prod) return so::Mul{}(a, b);
    else if constexpr (kFold == Fold::Max) return so::Maximum{}(a, b);
    else if constexpr (kFold == Fold::Min) return so::Minimum{}(a, b);
    else return so::Add{}(a, b);
  }
  __device__ A finish(A a, int64_t n) const {
    if constexpr (kFold == Fold::Mean) return so::Div{}(a, static_cast<A>(n));
    else return a;
  }
};

template <class A> struct ArgAcc {
  A v;
  int64_t i;  // -1: empty
};
// Index of the extreme value (first on ties); NaN wins, the first NaN.
template <class A, bool kMax> struct ArgFolder {
  using Acc = ArgAcc<A>;
  __device__ Acc identity() const { return {A(0), -1}; }
  template <class V> __device__ Acc make(V v, int64_t k) const { return {static_cast<A>(v), k}; }
  __device__ Acc combine(Acc a, Acc b) const {
    if (b.i < 0) return a;
    if (a.i < 0) return b;
    bool an = a.v != a.v, bn = b.v != b.v;
    if (an || bn) return (an && bn) ? (a.i < b.i ? a : b) : (an ? a : b);
    bool b_better = kMax ? b.v > a.v : b.v < a.v, a_better = kMax ? a.v > b.v : a.v < b.v;
    if (b_better) return b;
    if (a_better) return a;
    return a.i < b.i ? a : b;
  }
  __device__ int64_t finish(Acc a, int64_t) const { return a.i; }
};

template <Fold kFold> T fold(const char* op, T x, size_t dim) {
  if (x.shape()[dim] == 0) {
    constexpr EmptyFold empty = kFold == Fold::Sum    ? EmptyFold::Sum
                                : kFold == Fold::Prod ? EmptyFold::Prod
                                : kFold == Fold::Mean ? EmptyFold::Mean
                                                      : EmptyFold::Extreme;
    Scalar value = empty_fold_value(op, empty, x.dtype(), x.shape(), dim);
    return full(keep_dim(x.shape(), dim), value, x.device(), x.dtype());
  }
  x = contiguous(std::move(x));
  T out(keep_dim(x.shape(), dim), x.dtype(), x.device());
  visit_numeric(op, x.dtype(), [&]<class E>() { reduce_dim<E, E>(op, x, out, dim, Folder<dacc_t<E>, kFold>{}); });
  return out;
}

template <bool kMax> T arg_extreme(const char* op, T x, size_t dim) {
  if (x.shape()[dim] == 0) empty_fold_value(op, EmptyFold::Extreme, x.dtype(), x.shape(), dim);  // throws
  x = contiguous(std::move(x));
  T out(keep_dim(x.shape(), dim), DType::I64, x.device());
  visit_numeric(op, x.dtype(),
                [&]<class E>() { reduce_dim<E, int64_t>(op, x, out, dim, ArgFolder<dacc_t<E>, kMax>{}); });
  return out;
}

T flatten(T x) { return reshape(std::move(x), Shape{x.numel()}); }

// out[o, k, i] = op(out[o, k-1, i], x[o, k, i]), one thread per (o, i) lane, in accumulator type.
template <class E, class Op>
__global__ void scan_kernel(const E* x, E* out, int64_t lanes, int64_t n, int64_t inner, Op op) {
  int64_t lane = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (lane >= lanes) return;
  int64_t o = lane / inner, i = lane - o * inner;
  int64_t base = o * n * inner + i;
  dacc_t<E> acc = 0;
  for (int64_t k = 0; k < n; ++k) {
    auto v = static_cast<dacc_t<E>>(load(x + base + k * inner));
    acc = k == 0 ? v : op(acc, v);
    store(out + base + k * inner, acc);
  }
}

template <class Op> T scan(const char* op, T x, size_t dim, Op f) {
  x = contiguous(std::move(x));
  T out(x.shape(), x.dtype(), x.device());
  Lanes g(x.shape(), dim);
  int64_t lanes = g.outer * g.inner;
  if (lanes == 0 || g.n == 0) return out;
  visit_numeric(op, x.dtype(), [&]<class E>() {
    scan_kernel<E><<<blocks_for(lanes), kThreads, 0, stream(x.device().index)>>>(x.data<E>(), out.data<E>(), lanes, g.n,
                                                                                 g.inner, f);
  });
  check_launch(op);
  return out;
}

}  // namespace

T sum_dim(T x, size_t dim) { return fold<Fold::Sum>("sum_dim", std::move(x), dim); }
T mean_dim(T x, size_t dim) { return fold<Fold::Mean>("mean_dim", std::move(x), dim); }
T prod_dim(T x, size_t dim) { return fold<Fold::Prod>("prod_dim", std::move(x), dim); }
T max_dim(T x, size_t dim) { return fold<Fold::Max>("max_dim", std::move(x), dim); }
T min_dim(T x, size_t dim) { return fold<Fold::Min>("min_dim", std::move(x), dim); }
T sum(T x) {
  if (x.numel() == 0) return full(Shape{1}, Scalar(0), x.device(), x.dtype());
  return sum_dim(flatten(std::move(x)), 0);
}
T mean(T x) { return mean_dim(flatten(std::move(x)), 0); }
T prod(T x) {
  if (x.numel() == 0) return full(Shape{1}, Scalar(1), x.device(), x.dtype());
  return prod_dim(flatten(std::move(x)), 0);
}
T max(T x) { return max_dim(flatten(std::move(x)), 0); }
T min(T x) { return min_dim(flatten(std::move(x)), 0); }

T argmax(T x, size_t dim) { return arg_extreme<true>("argmax", std::move(x), dim); }
T argmin(T x, size_t dim) { return arg_extreme<false>("argmin", std::move(x), dim); }
IndexPair max_dim_with_indices(T x, size_t dim) {
  T idx = argmax(x, dim);
  return {max_dim(std::move(x), dim), std::move(idx)};
}
IndexPair min_dim_with_indices(T x, size_t dim) {
  T idx = argmin(x, dim);
  return {min_dim(std::move(x), dim), std::move(idx)};
}

T cumsum(T x, size_t dim) { return scan("cumsum", std::move(x), dim, so::Add{}); }
T cumprod(T x, size_t dim) { return scan("cumprod", std::move(x), dim, so::Mul{}); }
T cummin(T x, size_t dim) { return scan("cummin", std::move(x), dim, so::Minimum{}); }
T cummax(T x, size_t dim) { return scan("cummax", std::move(x), dim, so::Maximum{}); }

}  // namespace scorch::backends::cuda::kernels

#include <algorithm>
#include <numeric>
#include <vector>

#include "scorch/backends/cpu/kernels/elementwise.h"
#include "scorch/backends/cpu/kernels/kernels.h"
#include "scorch/backends/cpu/kernels/reduce.h"

namespace scorch::backends::cpu::kernels {
namespace {

// Sorts every lane along dim (stable; NaN is the largest value); writes values and/or indices.
void sort_lanes(const T& x, size_t dim, bool descending, T* values, T* indices) {
  Lanes g(x.shape(), dim);
  visit_numeric("sort", x.dtype(), [&]<class E>() {
    const E* src = x.data<E>();
    E* vdst = values ? values->data<E>() : nullptr;
    int64_t* idst = indices ? indices->data<int64_t>() : nullptr;
    parallel_for(g.outer * g.inner, 1, [&](size_t b, size_t e) {
      std::vector<int64_t> order(g.n);
      std::vector<compute_t<E>> keys(g.n);
      for (size_t lane = b; lane < e; ++lane) {
        size_t base = (lane / g.inner) * g.n * g.inner + lane % g.inner;
        for (size_t k = 0; k < g.n; ++k) keys[k] = load(src + base + k * g.inner);
        std::iota(order.begin(), order.end(), int64_t{0});
        auto less = [&](int64_t i, int64_t j) {
          auto a = keys[static_cast<size_t>(i)], c = keys[static_cast<size_t>(j)];
          if (descending) std::swap(a, c);
          return (a < c) || (a == a && c != c);
        };
        std::stable_sort(order.begin(), order.end(), less);
        for (size_t k = 0; k < g.n; ++k) {
          if (vdst) store(vdst + base + k * g.inner, keys[static_cast<size_t>(order[k])]);
          if (idst) idst[base + k * g.inner] = order[k];
        }
      }
    });
  });
}

}  // namespace

T sort(T x, size_t dim, bool descending) {
  x = contiguous(std::move(x));
  T values(x.shape(), x.dtype());
  sort_lanes(x, dim, descending, &values, nullptr);
  return values;
}

IndexPair sort_with_indices(T x, size_t dim, bool descending) {
  x = contiguous(std::move(x));
  T values(x.shape(), x.dtype()), indices(x.shape(), DType::I64);
  sort_lanes(x, dim, descending, &values, &indices);
  return {std::move(values), std::move(indices)};
}

T argsort(T x, size_t dim, bool descending) {
  x = contiguous(std::move(x));
  T indices(x.shape(), DType::I64);
  sort_lanes(x, dim, descending, nullptr, &indices);
  return indices;
}

}  // namespace scorch::backends::cpu::kernels

// Reductions, layout, indexing and sorting on LibTorch. Reductions keep the input's dtype (ATen
// widens integer sums and products to i64; they are narrowed back, wrapping like Scorch's Cpu).
#include "scorch/backends/libtorch/interop.h"

namespace scorch::backends::libtorch::ops {
using namespace detail;
namespace {

int64_t d(size_t dim) { return static_cast<int64_t>(dim); }

/// fn(x) computed on x widened for the host, narrowed back to x's dtype and shaped [1] or keepdim.
template <class F> T reduce(const char* op, T a, F fn) {
  return guarded(op, [&] {
    at::Tensor x = take(a);
    at::ScalarType type = x.scalar_type();
    return wrap(fn(widened(x)).to(type));
  });
}

/// Floor division of an integer sum by a count (Scorch's integer mean).
at::Tensor int_mean(const at::Tensor& sum, int64_t count) { return at::div(sum, count, "floor"); }

}  // namespace

T sum(T a) {
  return reduce("sum", std::move(a), [](const at::Tensor& x) { return at::sum(x).reshape({1}); });
}
T sum_dim(T a, size_t dim) {
  return reduce("sum_dim", std::move(a), [&](const at::Tensor& x) { return at::sum(x, {d(dim)}, true); });
}
T mean(T a) {
  return reduce("mean", std::move(a), [](const at::Tensor& x) {
    return (x.is_floating_point() ? at::mean(x) : int_mean(at::sum(x), x.numel())).reshape({1});
  });
}
T mean_dim(T a, size_t dim) {
  return reduce("mean_dim", std::move(a), [&](const at::Tensor& x) {
    return x.is_floating_point() ? at::mean(x, {d(dim)}, true) : int_mean(at::sum(x, {d(dim)}, true), x.size(d(dim)));
  });
}
T prod(T a) {
  return reduce("prod", std::move(a), [](const at::Tensor& x) { return at::prod(x).reshape({1}); });
}
T prod_dim(T a, size_t dim) {
  return reduce("prod_dim", std::move(a), [&](const at::Tensor& x) { return at::prod(x, d(dim), true); });
}
T max(T a) {
  return reduce("max", std::move(a), [](const at::Tensor& x) { return at::max(x).reshape({1}); });
}
T min(T a) {
  return reduce("min", std::move(a), [](const at::Tensor& x) { return at::min(x).reshape({1}); });
}
T max_dim(T a, size_t dim) {
  return reduce("max_dim", std::move(a), [&](const at::Tensor& x) { return at::amax(x, {d(dim)}, true); });
}
T min_dim(T a, size_t dim) {
  return reduce("min_dim", std::move(a), [&](const at::Tensor& x) { return at::amin(x, {d(dim)}, true); });
}
T argmax(T a, size_t dim) {
  return guarded("argmax", [&] { return wrap(at::argmax(widened(take(a)), d(dim), true)); });
}
T argmin(T a, size_t dim) {
  return guarded("argmin", [&] { return wrap(at::argmin(widened(take(a)), d(dim), true)); });
}
IndexPair max_dim_with_indices(T a, size_t dim) {
  return guarded("max_dim_with_indices", [&] {
    at::Tensor x = take(a);
    auto [values, indices] = at::max(widened(x), d(dim), true);
    return IndexPair{wrap(values.to(x.scalar_type())), wrap(indices)};
  });
}
IndexPair min_dim_with_indices(T a, size_t dim) {
  return guarded("min_dim_with_indices", [&] {
    at::Tensor x = take(a);
    auto [values, indices] = at::min(widened(x), d(dim), true);
    return IndexPair{wrap(values.to(x.scalar_type())), wrap(indices)};
  });
}
T cumsum(T a, size_t dim) {
  return reduce("cumsum", std::move(a), [&](const at::Tensor& x) { return at::cumsum(x, d(dim)); });
}
T cumprod(T a, size_t dim) {
  return reduce("cumprod", std::move(a), [&](const at::Tensor& x) { return at::cumprod(x, d(dim)); });
}
T cummin(T a, size_t dim) {
  return reduce("cummin", std::move(a), [&](const at::Tensor& x) { return std::get<0>(at::cummin(x, d(dim))); });
}
T cummax(T a, size_t dim) {
  return reduce("cummax", std::move(a), [&](const at::Tensor& x) { return std::get<0>(at::cummax(x, d(dim))); });
}

// ---- layout
T reshape(T a, Shape shape) {
  return guarded("reshape", [&] { return wrap(take(a).reshape(sizes(shape))); });
}
T permute(T a, std::vector<size_t> axes) {
  return guarded("permute", [&] { return wrap(take(a).permute(sizes(axes))); });
}
T swap_dims(T a, size_t x, size_t y) {
  return guarded("swap_dims", [&] { return wrap(take(a).transpose(d(x), d(y))); });
}
T flip(T a, std::vector<size_t> axes) {
  return guarded("flip", [&] { return wrap(at::flip(take(a), sizes(axes))); });
}
T expand(T a, Shape shape) {
  return guarded("expand", [&] { return wrap(take(a).expand(sizes(shape))); });
}

namespace {
/// The view of x that ranges select with every step made positive, and the dims whose order it reverses.
std::pair<at::Tensor, std::vector<int64_t>> positive_view(at::Tensor x, const SliceRanges& ranges) {
  std::vector<int64_t> reversed;
  for (size_t i = 0; i < ranges.size(); ++i) {
    const SliceRange& r = ranges[i];
    int64_t len = static_cast<int64_t>(r.length()), step = r.step < 0 ? -r.step : r.step;
    int64_t first = r.step > 0 ? static_cast<int64_t>(r.start) : static_cast<int64_t>(r.end) - 1 - (len - 1) * step;
    if (len == 0) first = static_cast<int64_t>(r.start);
    x = x.slice(d(i), first, len == 0 ? first : static_cast<int64_t>(r.end), step);
    if (r.step < 0 && len > 1) reversed.push_back(d(i));
  }
  return {x, reversed};
}
}  // namespace

T slice(T a, SliceRanges ranges) {
  return guarded("slice", [&] {
    auto [view, reversed] = positive_view(take(a), ranges);
    return wrap(reversed.empty() ? view : at::flip(view, reversed));
  });
}

T slice_assign(T a, SliceRanges ranges, T values) {
  return guarded("slice_assign", [&] {
    at::Tensor x = take(a);
    if (!unique(x)) x = x.clone(at::MemoryFormat::Contiguous);
    auto [view, reversed] = positive_view(x, ranges);
    at::Tensor v = take(values);
    view.copy_(reversed.empty() ? v : at::flip(v, reversed));
    return wrap(std::move(x));
  });
}

T cat(std::vector<T> parts, size_t dim) {
  return guarded("cat", [&] {
    std::vector<at::Tensor> xs;
    xs.reserve(parts.size());
    for (auto& p : parts) xs.push_back(take(p));
    return wrap(at::cat(xs, d(dim)));
  });
}

T repeat_dim(T a, size_t dim, size_t times) {
  return guarded("repeat_dim", [&] {
    at::Tensor x = take(a);
    std::vector<int64_t> reps(x.dim(), 1);
    reps[dim] = static_cast<int64_t>(times);
    return wrap(x.repeat(reps));
  });
}

T unfold(T a, size_t dim, size_t size, size_t step) {
  return guarded("unfold",
                 [&] { return wrap(take(a).unfold(d(dim), static_cast<int64_t>(size), static_cast<int64_t>(step))); });
}

// ---- indexing
namespace {
at::Tensor long_indices(T& indices) { return take(indices).to(at::kLong); }
}  // namespace

T gather(size_t dim, T a, T indices) {
  return guarded("gather", [&] {
    at::Tensor x = take(a), idx = long_indices(indices);
    check_indices("gather", idx, x.size(d(dim)));
    return wrap(at::gather(x, d(dim), idx));
  });
}

T scatter_add(size_t dim, T a, T indices, T values) {
  return guarded("scatter_add", [&] {
    at::Tensor x = take(a), idx = long_indices(indices), v = take(values);
    check_indices("scatter_add", idx, x.size(d(dim)));
    if (low_precision_host(x))
      return wrap(at::scatter_add(x.to(at::kFloat), d(dim), idx, v.to(at::kFloat)).to(x.scalar_type()));
    if (unique(x)) return wrap(x.scatter_add_(d(dim), idx, v));
    return wrap(at::scatter_add(x, d(dim), idx, v));
  });
}

T select(T a, size_t dim, T indices) {
  return guarded("select", [&] {
    at::Tensor x = take(a), idx = long_indices(indices);
    check_indices("select", idx, x.size(d(dim)));
    return wrap(at::index_select(x, d(dim), idx));
  });
}

T select_add(T a, size_t dim, T indices, T values) {
  return guarded("select_add", [&] {
    at::Tensor x = take(a), idx = long_indices(indices), v = take(values);
    check_indices("select_add", idx, x.size(d(dim)));
    if (low_precision_host(x))
      return wrap(at::index_add(x.to(at::kFloat), d(dim), idx, v.to(at::kFloat)).to(x.scalar_type()));
    if (unique(x)) return wrap(x.index_add_(d(dim), idx, v));
    return wrap(at::index_add(x, d(dim), idx, v));
  });
}

T mask_where(T a, T mask, T values) {
  return guarded("mask_where", [&] {
    at::Tensor x = take(a);
    return wrap(at::where(take(mask), take(values), x));
  });
}

T mask_fill(T a, T mask, Scalar value) {
  return guarded("mask_fill", [&] {
    at::Tensor x = take(a), m = take(mask);
    at::Scalar v = scalar_for(from_torch(x.scalar_type()), value);
    if (unique(x) && x.sizes() == at::infer_size(x.sizes(), m.sizes())) return wrap(x.masked_fill_(m, v));
    return wrap(at::masked_fill(x.expand(at::infer_size(x.sizes(), m.sizes())), m, v));
  });
}

T argwhere(T mask) {
  return guarded("argwhere", [&] { return wrap(at::nonzero(take(mask))); });
}

// ---- sorting: stable; ATen also sorts NaN as the largest value
IndexPair sort_with_indices(T a, size_t dim, bool descending) {
  return guarded("sort_with_indices", [&] {
    at::Tensor x = take(a);
    auto [values, indices] = at::sort(widened(x), true, d(dim), descending);
    return IndexPair{wrap(values.to(x.scalar_type())), wrap(indices)};
  });
}
T sort(T a, size_t dim, bool descending) { return sort_with_indices(std::move(a), dim, descending).first; }
T argsort(T a, size_t dim, bool descending) { return sort_with_indices(std::move(a), dim, descending).second; }

}  // namespace scorch::backends::libtorch::ops

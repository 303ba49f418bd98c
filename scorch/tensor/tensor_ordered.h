#pragma once
// Ordered methods of Tensor (Float and Int): comparisons, sorting, top-k, min/max, clamps, one_hot.
#include <utility>

namespace scorch {

template <class B, size_t D, class K> class OrderedMethods {
  using Self = Tensor<B, D, K>;
  using Ops = KindOps<B, K>;
  using Mask = Tensor<B, D, Bool>;
  using Index = Tensor<B, D, Int>;
  // self() and prim() throw "[method] tensor is empty" for an empty handle, naming the method that calls them.
  const Self& self(const char* where = __builtin_FUNCTION()) const {
    static_cast<const Self&>(*this).require_values(where);
    return static_cast<const Self&>(*this);
  }
  auto prim(const char* where = __builtin_FUNCTION()) const { return static_cast<const Self&>(*this).primitive(where); }
  template <class F> Mask compare(const char* op, const Self& other, F f) const {
    return detail::checked_binary<Mask>(op, static_cast<const Self&>(*this), other, f);  // names op
  }
  size_t dim_of(const char* op, int64_t dim) const { return check::dim(op, dim, D); }

 public:
  /// self > other, broadcast.
  Mask greater(const Self& o) const requires NumericKind<K> {
    return compare("greater", o, [](auto a, auto b) { return Ops::greater(a, b); });
  }
  /// self >= other, broadcast.
  Mask greater_equal(const Self& o) const requires NumericKind<K> {
    return compare("greater_equal", o, [](auto a, auto b) { return Ops::greater_equal(a, b); });
  }
  /// self < other, broadcast.
  Mask lower(const Self& o) const requires NumericKind<K> {
    return compare("lower", o, [](auto a, auto b) { return Ops::lower(a, b); });
  }
  /// self <= other, broadcast.
  Mask lower_equal(const Self& o) const requires NumericKind<K> {
    return compare("lower_equal", o, [](auto a, auto b) { return Ops::lower_equal(a, b); });
  }
  /// self > s.
  Mask greater_elem(Scalar s) const requires NumericKind<K> { return Mask(Ops::greater_elem(prim(), s)); }
  /// self >= s.
  Mask greater_equal_elem(Scalar s) const requires NumericKind<K> { return Mask(Ops::greater_equal_elem(prim(), s)); }
  /// self < s.
  Mask lower_elem(Scalar s) const requires NumericKind<K> { return Mask(Ops::lower_elem(prim(), s)); }
  /// self <= s.
  Mask lower_equal_elem(Scalar s) const requires NumericKind<K> { return Mask(Ops::lower_equal_elem(prim(), s)); }

  // ---- sorting (stable; NaN sorts as the largest value)
  /// Values sorted ascending along dim (stable; NaN sorts as the largest value).
  Self sort(int64_t dim) const requires NumericKind<K> { return Self(Ops::sort(prim(), dim_of("sort", dim), false)); }
  /// Values sorted descending along dim (stable; NaN first).
  Self sort_descending(int64_t dim) const requires NumericKind<K> {
    return Self(Ops::sort(prim(), dim_of("sort", dim), true));
  }
  /// sort and the source index of each sorted value.
  std::pair<Self, Index> sort_with_indices(int64_t dim) const requires NumericKind<K> {
    return sorted_pair(dim, false);
  }
  /// sort_descending and the source index of each sorted value.
  std::pair<Self, Index> sort_descending_with_indices(int64_t dim) const requires NumericKind<K> {
    return sorted_pair(dim, true);
  }
  /// The indices that sort dim ascending (stable).
  Index argsort(int64_t dim) const requires NumericKind<K> {
    return Index(Ops::argsort(prim(), dim_of("argsort", dim), false));
  }
  /// The indices that sort dim descending (stable).
  Index argsort_descending(int64_t dim) const requires NumericKind<K> {
    return Index(Ops::argsort(prim(), dim_of("argsort", dim), true));
  }
  /// The k largest values along dim, largest first.
  Self topk(size_t k, int64_t dim) const requires NumericKind<K> { return topk_with_indices(k, dim).first; }
  /// The k largest values along dim and their indices.
  std::pair<Self, Index> topk_with_indices(size_t k, int64_t dim) const requires NumericKind<K> {
    size_t d = dim_of("topk", dim);
    if (k > self().shape()[d])
      throw ShapeError("topk", "k = " + std::to_string(k) + " exceeds dim " + std::to_string(d) + " of " +
                                   self().shape().to_string());
    auto [values, indices] = sorted_pair(dim, true);
    return {values.narrow(dim, 0, k), indices.narrow(dim, 0, k)};
  }
  /// Indices of the k largest values along dim.
  Index argtopk(size_t k, int64_t dim) const requires NumericKind<K> { return topk_with_indices(k, dim).second; }

  // ---- extremes
  /// Index of the largest value along dim (the first on ties), dim kept with size 1.
  Index argmax(int64_t dim) const requires NumericKind<K> { return Index(Ops::argmax(prim(), dim_of("argmax", dim))); }
  /// Index of the smallest value along dim (the first on ties), dim kept with size 1.
  Index argmin(int64_t dim) const requires NumericKind<K> { return Index(Ops::argmin(prim(), dim_of("argmin", dim))); }
  /// The largest value, shape [1] (NaN if any; a tensor without values throws).
  Tensor<B, 1, K> max() const requires NumericKind<K> {
    non_empty("max");
    return Tensor<B, 1, K>(Ops::max(prim()));
  }
  /// The smallest value, shape [1] (NaN if any; a tensor without values throws).
  Tensor<B, 1, K> min() const requires NumericKind<K> {
    non_empty("min");
    return Tensor<B, 1, K>(Ops::min(prim()));
  }
  /// Largest value along dim, kept with size 1.
  Self max_dim(int64_t dim) const requires NumericKind<K> { return Self(Ops::max_dim(prim(), dim_of("max_dim", dim))); }
  /// Smallest value along dim, kept with size 1.
  Self min_dim(int64_t dim) const requires NumericKind<K> { return Self(Ops::min_dim(prim(), dim_of("min_dim", dim))); }
  /// max_dim and argmax together.
  std::pair<Self, Index> max_dim_with_indices(int64_t dim) const requires NumericKind<K> {
    auto [v, i] = Ops::max_dim_with_indices(prim(), dim_of("max_dim_with_indices", dim));
    return {Self(std::move(v)), Index(std::move(i))};
  }
  /// min_dim and argmin together.
  std::pair<Self, Index> min_dim_with_indices(int64_t dim) const requires NumericKind<K> {
    auto [v, i] = Ops::min_dim_with_indices(prim(), dim_of("min_dim_with_indices", dim));
    return {Self(std::move(v)), Index(std::move(i))};
  }
  /// Largest |value|, shape [1].
  Tensor<B, 1, K> max_abs() const requires NumericKind<K> { return self().abs().max(); }
  /// Largest |value| along dim, kept with size 1.
  Self max_abs_dim(int64_t dim) const requires NumericKind<K> { return self().abs().max_dim(dim); }
  /// Elementwise maximum of two tensors (NaN propagates), broadcast.
  Self max_pair(const Self& other) const requires NumericKind<K> {
    auto take_other = other.greater(self()).bool_or(other.is_nan_mask());
    return self().expand_to(take_other.shape()).mask_where(take_other, other);
  }
  /// Elementwise minimum of two tensors (NaN propagates), broadcast.
  Self min_pair(const Self& other) const requires NumericKind<K> {
    auto take_other = other.lower(self()).bool_or(other.is_nan_mask());
    return self().expand_to(take_other.shape()).mask_where(take_other, other);
  }
  /// Running minimum along dim.
  Self cummin(int64_t dim) const requires NumericKind<K> { return Self(Ops::cummin(prim(), dim_of("cummin", dim))); }
  /// Running maximum along dim.
  Self cummax(int64_t dim) const requires NumericKind<K> { return Self(Ops::cummax(prim(), dim_of("cummax", dim))); }
  /// Values clamped to [lo, hi] (NaN stays NaN). lo > hi is a ValueError, for every clamp-like op (clamp,
  /// hardtanh): PyTorch's clamp gives hi everywhere there, which hides the swapped bounds (its Hardtanh raises).
  Self clamp(Scalar lo, Scalar hi) const requires NumericKind<K> {
    if (lo.to_double() > hi.to_double())
      throw ValueError("clamp", "min " + lo.to_string() + " exceeds max " + hi.to_string());
    return Self(Ops::clamp(prim(), lo, hi));
  }
  /// max(self, lo) (NaN stays NaN).
  Self clamp_min(Scalar lo) const requires NumericKind<K> { return Self(Ops::clamp_min(prim(), lo)); }
  /// min(self, hi) (NaN stays NaN).
  Self clamp_max(Scalar hi) const requires NumericKind<K> { return Self(Ops::clamp_max(prim(), hi)); }
  /// One-hot encoding of class indices along a new last dim of num_classes (values outside throw).
  Tensor<B, D + 1, K> one_hot(size_t num_classes) const requires NumericKind<K> {
    auto as_int = Tensor<B, D, Int>(to_int_prim());
    auto bad = as_int.lower_elem(Scalar(0))
                   .bool_or(as_int.greater_equal_elem(Scalar(static_cast<int64_t>(num_classes))))
                   .any();
    if (bad.into_scalar().to_bool())
      throw ValueError("one_hot", "a class index is outside [0, " + std::to_string(num_classes) + ")");
    auto classes = Tensor<B, 1, Int>::arange(0, static_cast<int64_t>(num_classes), self().device())
                       .template reshape<D + 1>(class_shape(num_classes));
    auto hits = as_int.cast(DType::I64).template unsqueeze_dim<D + 1>(-1).equal(classes);
    if constexpr (std::same_as<K, Float>) return hits.float_().cast(self().dtype());
    else return hits.int_().cast(self().dtype());
  }

 private:
  std::pair<Self, Index> sorted_pair(int64_t dim, bool descending) const {
    auto [v, i] = Ops::sort_with_indices(prim(), dim_of("sort_with_indices", dim), descending);
    return {Self(std::move(v)), Index(std::move(i))};
  }
  static Shape class_shape(size_t num_classes) {
    Shape s;
    for (size_t i = 0; i < D; ++i) s.push_back(1);
    s.push_back(num_classes);
    return s;
  }
  void non_empty(const char* op) const {
    if (self().num_elements() == 0) throw ShapeError(op, "tensor of shape " + self().shape().to_string() + " is empty");
  }
  Mask is_nan_mask() const {
    if constexpr (std::same_as<K, Float>) return Mask(Ops::is_nan(prim()));
    else return Mask(KindOps<B, Bool>::full(self().shape(), Scalar(false), self().device(), DType::Bool));
  }
  auto to_int_prim() const {
    if constexpr (std::same_as<K, Float>) return Ops::into_int(prim(), DType::I64);
    else return prim();
  }
};

}  // namespace scorch

#pragma once
// Indexing and equality methods of Tensor (every kind): gather, scatter, select, masks, any/all.
#include <vector>

namespace scorch {

template <class B, size_t D, class K> class IndexMethods {
  using Self = Tensor<B, D, K>;
  using Ops = KindOps<B, K>;
  using Mask = Tensor<B, D, Bool>;
  using Index = Tensor<B, D, Int>;
  using Index1 = Tensor<B, 1, Int>;
  // self() and prim() throw "[method] tensor is empty" for an empty handle, naming the method that calls them.
  const Self& self(const char* where = __builtin_FUNCTION()) const {
    static_cast<const Self&>(*this).require_values(where);
    return static_cast<const Self&>(*this);
  }
  auto prim(const char* where = __builtin_FUNCTION()) const { return static_cast<const Self&>(*this).primitive(where); }

 public:
  /// out[..i..] = self[.. indices[..i..] at dim ..] (torch.gather).
  Self gather(int64_t dim, const Index& indices) const {
    size_t d = check::dim("gather", dim, D);
    check::gather("gather", self().shape(), indices.shape(), d);
    return Self(Ops::gather(d, prim(), indices.primitive()));
  }
  /// A copy with values added at the positions indices name along dim (torch.scatter_add).
  Self scatter(int64_t dim, const Index& indices, const Self& values) const requires NumericKind<K> {
    size_t d = check::dim("scatter", dim, D);
    check::scatter(self().shape(), indices.shape(), values.shape(), d);
    auto [base, fill] = amp::to_common(self(), values);  // promoted inside an autocast scope
    check::same_dtype("scatter", base.dtype(), fill.dtype());
    return Self(Ops::scatter_add(d, base.primitive(), indices.primitive(), fill.primitive()));
  }
  /// The slices of dim listed by a rank-1 index tensor (torch.index_select).
  Self select(int64_t dim, const Index1& indices) const {
    size_t d = check::dim("select", dim, D);
    check::select("select", indices.shape());
    return Self(Ops::select(prim(), d, indices.primitive()));
  }
  /// A copy with values added to the slices of dim listed by indices (torch.index_add).
  Self select_assign(int64_t dim, const Index1& indices, const Self& values) const requires NumericKind<K> {
    size_t d = check::dim("select_assign", dim, D);
    check::select("select_assign", indices.shape());
    check::select_assign(self().shape(), d, indices.shape()[0], values.shape());
    auto [base, fill] = amp::to_common(self(), values);  // promoted inside an autocast scope
    check::same_dtype("select_assign", base.dtype(), fill.dtype());
    return Self(Ops::select_add(base.primitive(), d, indices.primitive(), fill.primitive()));
  }
  /// values where mask is true, self elsewhere (broadcast).
  Self mask_where(const Mask& mask, const Self& values) const {
    check::broadcast("mask_where", check::broadcast("mask_where", self().shape(), mask.shape()), values.shape());
    auto [base, fill] = amp::to_common(self(), values);  // promoted inside an autocast scope
    check::same_dtype("mask_where", base.dtype(), fill.dtype());
    return Self(Ops::mask_where(base.primitive(), mask.primitive(), fill.primitive()));
  }
  /// value where mask is true, self elsewhere (broadcast).
  Self mask_fill(const Mask& mask, Scalar value) const {
    Shape out = check::broadcast("mask_fill", self().shape(), mask.shape());
    if (!(out == self().shape())) return expand_to(out).mask_fill(mask, value);
    return Self(Ops::mask_fill(prim(), mask.primitive(), value));
  }
  /// The values where mask is true, in row-major order (rank 1).
  Tensor<B, 1, K> mask_select(const Mask& mask) const {
    Shape out = check::broadcast("mask_select", self().shape(), mask.shape());
    size_t n = out.num_elements();
    auto flat_mask = mask.expand_to(out).template reshape<1>({n});
    auto where = Tensor<B, 2, Int>(KindOps<B, Bool>::argwhere(flat_mask.primitive())).template reshape<1>({-1});
    return expand_to(out).template reshape<1>({n}).select(0, where);
  }

  // ---- equality and truth
  /// Elementwise ==, broadcast.
  Mask equal(const Self& other) const {
    return compare_with("equal", other, [](auto a, auto b) { return Ops::equal(a, b); });
  }
  /// Elementwise !=, broadcast.
  Mask not_equal(const Self& other) const {
    return compare_with("not_equal", other, [](auto a, auto b) { return Ops::not_equal(a, b); });
  }
  /// Elementwise == scalar.
  Mask equal_elem(Scalar s) const requires(!BoolKind<K>) { return Mask(Ops::equal_elem(prim(), s)); }
  /// Elementwise != scalar.
  Mask not_equal_elem(Scalar s) const requires(!BoolKind<K>) { return Mask(Ops::not_equal_elem(prim(), s)); }
  /// True (shape [1]) if any value is nonzero / true.
  Tensor<B, 1, Bool> any() const { return Tensor<B, 1, Bool>(Ops::any(prim())); }
  /// True (shape [1]) if every value is nonzero / true.
  Tensor<B, 1, Bool> all() const { return Tensor<B, 1, Bool>(Ops::all(prim())); }
  /// any along dim, which is kept with size 1.
  Mask any_dim(int64_t dim) const { return Mask(Ops::any_dim(prim(), check::dim("any_dim", dim, D))); }
  /// all along dim, which is kept with size 1.
  Mask all_dim(int64_t dim) const { return Mask(Ops::all_dim(prim(), check::dim("all_dim", dim, D))); }

  /// The tensor broadcast to shape (a view where the backend allows).
  Self expand_to(const Shape& shape) const {
    if (shape == self().shape()) return self();
    std::vector<int64_t> dims(shape.begin(), shape.end());
    return Self(Ops::expand(prim(), check::expand(self().shape(), dims)));
  }

 private:
  template <class F> Mask compare_with(const char* op, const Self& other, F f) const {
    return detail::checked_binary<Mask>(op, self(), other, f);
  }
};

}  // namespace scorch

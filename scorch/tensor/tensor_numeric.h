#pragma once
// Numeric methods of Tensor (Float and Int): arithmetic, sums and products, matmul, pad, triangles.
#include <utility>
#include <vector>

#include "scorch/tensor/pad_mode.h"

namespace scorch {

template <class B, size_t D>
Tensor<B, D, Bool> triangle_mask(const Shape& shape, int64_t offset, bool upper, const typename B::Device& device);

template <class B, size_t D, class K> class NumericMethods {
  using Self = Tensor<B, D, K>;
  using Ops = KindOps<B, K>;
  // self() and prim() throw "[method] tensor is empty" for an empty handle, naming the method that calls them.
  const Self& self(const char* where = __builtin_FUNCTION()) const {
    static_cast<const Self&>(*this).require_values(where);
    return static_cast<const Self&>(*this);
  }
  auto prim(const char* where = __builtin_FUNCTION()) const { return static_cast<const Self&>(*this).primitive(where); }
  // The primitive in f32 when it is f16/bf16 inside an autocast scope (the policy for sums).
  auto full_prim(const char* where = __builtin_FUNCTION()) const { return amp::to_full(self(where)).primitive(); }
  template <class F> Self binary(const char* op, const Self& other, F f) const {
    return detail::checked_binary<Self>(op, static_cast<const Self&>(*this), other, f);  // names op
  }

 public:
  /// self + other, broadcast.
  Self add(const Self& o) const requires NumericKind<K> {
    return binary("add", o, [](auto a, auto b) { return Ops::add(std::move(a), std::move(b)); });
  }
  /// self - other, broadcast.
  Self sub(const Self& o) const requires NumericKind<K> {
    return binary("sub", o, [](auto a, auto b) { return Ops::sub(std::move(a), std::move(b)); });
  }
  /// self * other, broadcast.
  Self mul(const Self& o) const requires NumericKind<K> {
    return binary("mul", o, [](auto a, auto b) { return Ops::mul(std::move(a), std::move(b)); });
  }
  /// self / other, broadcast (ints: floor division; zero divisors throw ValueError).
  Self div(const Self& o) const requires NumericKind<K> {
    return binary("div", o, [](auto a, auto b) { return Ops::div(std::move(a), std::move(b)); });
  }
  /// Remainder with the divisor's sign (torch.remainder), broadcast.
  Self remainder(const Self& o) const requires NumericKind<K> {
    return binary("remainder", o, [](auto a, auto b) { return Ops::remainder(std::move(a), std::move(b)); });
  }
  /// self + s.
  Self add_scalar(Scalar s) const requires NumericKind<K> { return Self(Ops::add_scalar(prim(), s)); }
  /// self - s.
  Self sub_scalar(Scalar s) const requires NumericKind<K> { return Self(Ops::sub_scalar(prim(), s)); }
  /// self * s.
  Self mul_scalar(Scalar s) const requires NumericKind<K> { return Self(Ops::mul_scalar(prim(), s)); }
  /// self / s (ints: floor division; a zero divisor throws ValueError).
  Self div_scalar(Scalar s) const requires NumericKind<K> { return Self(Ops::div_scalar(prim(), s)); }
  /// Remainder of self / s with the divisor's sign (torch.remainder).
  Self remainder_scalar(Scalar s) const requires NumericKind<K> { return Self(Ops::remainder_scalar(prim(), s)); }
  /// -self.
  Self neg() const requires NumericKind<K> { return Self(Ops::neg(prim())); }
  /// -1, 0 or 1 by sign.
  Self sign() const requires NumericKind<K> { return Self(Ops::sign(prim())); }
  /// |self|.
  Self abs() const requires NumericKind<K> { return Self(Ops::abs(prim())); }
  /// self * self.
  Self square() const requires NumericKind<K> { return Self(Ops::mul(prim(), prim())); }
  /// self ^ other with an int exponent tensor, broadcast.
  Self powi(const Tensor<B, D, Int>& exponent) const requires NumericKind<K> {
    check::broadcast("powi", self().shape(), exponent.shape());
    if constexpr (std::same_as<K, Float>) return Self(Ops::powi(prim(), exponent.primitive()));
    else {
      check::same_dtype("powi", self().dtype(), exponent.dtype());
      return Self(Ops::powi(prim(), exponent.primitive()));
    }
  }
  /// self ^ exponent for an integer exponent.
  Self powi_scalar(int64_t exponent) const requires NumericKind<K> {
    if constexpr (std::same_as<K, Float>) return Self(Ops::powf_scalar(prim(), Scalar(static_cast<double>(exponent))));
    else return Self(Ops::powi_scalar(prim(), Scalar(exponent)));
  }

  // ---- reductions: full ones give shape [1]; *_dim keep the dim with size 1
  // (inside an autocast scope, f16/bf16 values are summed in f32: full_prim)
  /// Sum of all values, shape [1].
  Tensor<B, 1, K> sum() const requires NumericKind<K> { return Tensor<B, 1, K>(Ops::sum(full_prim())); }
  /// Mean of all values, shape [1] (NaN for zero values, as PyTorch).
  Tensor<B, 1, K> mean() const requires NumericKind<K> { return Tensor<B, 1, K>(Ops::mean(full_prim())); }
  /// Product of all values, shape [1] (1 for zero values).
  Tensor<B, 1, K> prod() const requires NumericKind<K> { return Tensor<B, 1, K>(Ops::prod(full_prim())); }
  /// Sum along dim, which is kept with size 1.
  Self sum_dim(int64_t dim) const requires NumericKind<K> {
    return Self(Ops::sum_dim(full_prim(), check::dim("sum_dim", dim, D)));
  }
  /// Mean along dim, which is kept with size 1.
  Self mean_dim(int64_t dim) const requires NumericKind<K> {
    return Self(Ops::mean_dim(full_prim(), check::dim("mean_dim", dim, D)));
  }
  /// Product along dim, which is kept with size 1.
  Self prod_dim(int64_t dim) const requires NumericKind<K> {
    return Self(Ops::prod_dim(full_prim(), check::dim("prod_dim", dim, D)));
  }
  /// sum_dim over each listed dim (all kept with size 1).
  Self sum_dims(std::initializer_list<int64_t> dims) const requires NumericKind<K> {
    return over_dims("sum_dims", dims, &Self::sum_dim);
  }
  /// mean_dim over each listed dim (all kept with size 1).
  Self mean_dims(std::initializer_list<int64_t> dims) const requires NumericKind<K> {
    return over_dims("mean_dims", dims, &Self::mean_dim);
  }
  /// prod_dim over each listed dim (all kept with size 1).
  Self prod_dims(std::initializer_list<int64_t> dims) const requires NumericKind<K> {
    return over_dims("prod_dims", dims, &Self::prod_dim);
  }
  /// Running sum along dim.
  Self cumsum(int64_t dim) const requires NumericKind<K> {
    return Self(Ops::cumsum(prim(), check::dim("cumsum", dim, D)));
  }
  /// Running product along dim.
  Self cumprod(int64_t dim) const requires NumericKind<K> {
    return Self(Ops::cumprod(prim(), check::dim("cumprod", dim, D)));
  }

  /// Matrix product over the last two dims; leading dims broadcast.
  /// Inside an autocast scope, f32 operands are multiplied in the autocast dtype.
  Self matmul(const Self& other) const requires NumericKind<K> {
    other.require_values("matmul");
    check::matmul(self().shape(), other.shape());
    auto lhs = amp::to_autocast(self()), rhs = amp::to_autocast(other);
    check::same_dtype("matmul", lhs.dtype(), rhs.dtype());
    return Self(Ops::matmul(lhs.primitive(), rhs.primitive()));
  }
  /// Sum of the elementwise product of two rank-1 tensors, shape [1].
  Tensor<B, 1, K> dot(const Self& other) const requires(NumericKind<K>&& D == 1) {
    if (!(self().shape() == other.shape()))
      throw ShapeError("dot",
                       "lhs " + self().shape().to_string() + " and rhs " + other.shape().to_string() + " differ");
    return mul(other).sum();
  }
  /// The n×n identity matrix.
  static Self eye(size_t n, const typename B::Device& device = {}) requires(NumericKind<K>&& D == 2) {
    auto mask =
        triangle_mask<B, 2>(Shape{n, n}, 0, true, device).bool_and(triangle_mask<B, 2>(Shape{n, n}, 0, false, device));
    return Self::zeros(Shape{n, n}, device).mask_fill(mask, Scalar(1));
  }
  /// Keeps values on and above the diagonal offset in the last two dims; zeros the rest.
  Self triu(int64_t diagonal) const requires NumericKind<K> {
    return self().mask_fill(triangle_mask<B, D>(self().shape(), diagonal - 1, false, self().device()), Scalar(0));
  }
  /// Keeps values on and below the diagonal offset in the last two dims; zeros the rest.
  Self tril(int64_t diagonal) const requires NumericKind<K> {
    return self().mask_fill(triangle_mask<B, D>(self().shape(), diagonal + 1, true, self().device()), Scalar(0));
  }
  /// True where the value is nonzero.
  Tensor<B, D, Bool> bool_() const requires NumericKind<K> { return self().not_equal_elem(Scalar(0)); }
  /// Pads trailing dims: padding[i] = (before, after) for dim D-1-i (torch.nn.functional.pad order).
  Self pad(const std::vector<std::pair<size_t, size_t>>& padding,
           PadMode mode = PadMode::constant(Scalar(0))) const requires NumericKind<K> {
    if (padding.size() > D)
      throw ShapeError("pad", std::to_string(padding.size()) + " pad pairs for rank " + std::to_string(D));
    Self out = self();
    for (size_t i = 0; i < padding.size(); ++i)
      out = out.pad_dim(static_cast<int64_t>(D - 1 - i), padding[i].first, padding[i].second, mode);
    return out;
  }

 private:
  template <class F> Self over_dims(const char* op, std::initializer_list<int64_t> dims, F f) const {
    Self out = self();
    for (size_t d : check::dims(op, std::vector<int64_t>(dims), D)) out = (out.*f)(static_cast<int64_t>(d));
    return out;
  }
  Self border(int64_t dim, size_t count, bool before, PadMode mode) const {
    size_t n = self().shape()[static_cast<size_t>(dim)];
    auto len = static_cast<int64_t>(n);
    if (mode.kind == PadMode::Kind::Constant) {
      Shape s = self().shape();
      s[static_cast<size_t>(dim)] = count;
      return Self::full(s, mode.value, self().device(), self().dtype());
    }
    if (n == 0 || (mode.kind == PadMode::Kind::Reflect && count >= n))
      throw ShapeError("pad", "cannot pad dim " + std::to_string(dim) + " of " + self().shape().to_string() + " by " +
                                  std::to_string(count));
    if (mode.kind == PadMode::Kind::Edge)
      return self().slice_dim(dim, Slice(before ? 0 : len - 1)).repeat_dim(dim, count);
    auto c = static_cast<int64_t>(count);
    Slice s = before ? Slice(1, 1 + c) : Slice(len - 1 - c, len - 1);
    return self().slice_dim(dim, s).flip({dim});
  }
  Self pad_dim(int64_t dim, size_t before, size_t after, PadMode mode) const {
    std::vector<Self> parts;
    if (before) parts.push_back(border(dim, before, true, mode));
    parts.push_back(self());
    if (after) parts.push_back(border(dim, after, false, mode));
    return parts.size() == 1 ? self() : Self::cat(parts, dim);
  }

  template <class, size_t, class> friend class NumericMethods;
};

}  // namespace scorch

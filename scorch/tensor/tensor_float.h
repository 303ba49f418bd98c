#pragma once
// Float methods of Tensor: elementwise math, powers, variance, closeness, NaN tests, autodiff hooks.
#include <cmath>
#include <numbers>
#include <utility>

namespace scorch {

template <class B, size_t D, class K> class FloatMethods {
  using Self = Tensor<B, D, K>;
  using Ops = KindOps<B, K>;
  using Mask = Tensor<B, D, Bool>;
  // self() and prim() throw "[method] tensor is empty" for an empty handle, naming the method that calls them.
  const Self& self(const char* where = __builtin_FUNCTION()) const {
    static_cast<const Self&>(*this).require_values(where);
    return static_cast<const Self&>(*this);
  }
  Self& moved() { return static_cast<Self&>(*this); }
  auto prim(const char* where = __builtin_FUNCTION()) const { return static_cast<const Self&>(*this).primitive(where); }
  // The buffer of an rvalue tensor, handed to the op (which may then write in place).
  auto take(const char* where = __builtin_FUNCTION()) { return std::move(moved()).into_primitive(where); }
  template <class F> Self binary(const char* op, const Self& other, F f) const {
    return detail::checked_binary<Self>(op, static_cast<const Self&>(*this), other, f);  // names op
  }

 public:
  // Each unary method in two forms: on an lvalue (shares the buffer) and on an rvalue (may write in place).
  /// e^x.
  Self exp() const& requires FloatKind<K> { return Self(Ops::exp(prim())); }
  Self exp() && requires FloatKind<K> { return Self(Ops::exp(take())); }
  /// Natural logarithm.
  Self log() const& requires FloatKind<K> { return Self(Ops::log(prim())); }
  Self log() && requires FloatKind<K> { return Self(Ops::log(take())); }
  /// log(1 + x), exact for small x.
  Self log1p() const& requires FloatKind<K> { return Self(Ops::log1p(prim())); }
  Self log1p() && requires FloatKind<K> { return Self(Ops::log1p(take())); }
  /// log(x / (1 - x)), the inverse of sigmoid (torch.logit without eps).
  Self logit() const& requires FloatKind<K> { return Self(Ops::logit(prim())); }
  Self logit() && requires FloatKind<K> { return Self(Ops::logit(take())); }
  /// Square root.
  Self sqrt() const& requires FloatKind<K> { return Self(Ops::sqrt(prim())); }
  Self sqrt() && requires FloatKind<K> { return Self(Ops::sqrt(take())); }
  /// Cosine.
  Self cos() const& requires FloatKind<K> { return Self(Ops::cos(prim())); }
  Self cos() && requires FloatKind<K> { return Self(Ops::cos(take())); }
  /// Sine.
  Self sin() const& requires FloatKind<K> { return Self(Ops::sin(prim())); }
  Self sin() && requires FloatKind<K> { return Self(Ops::sin(take())); }
  /// Tangent.
  Self tan() const& requires FloatKind<K> { return Self(Ops::tan(prim())); }
  Self tan() && requires FloatKind<K> { return Self(Ops::tan(take())); }
  /// Hyperbolic cosine.
  Self cosh() const& requires FloatKind<K> { return Self(Ops::cosh(prim())); }
  Self cosh() && requires FloatKind<K> { return Self(Ops::cosh(take())); }
  /// Hyperbolic sine.
  Self sinh() const& requires FloatKind<K> { return Self(Ops::sinh(prim())); }
  Self sinh() && requires FloatKind<K> { return Self(Ops::sinh(take())); }
  /// Hyperbolic tangent.
  Self tanh() const& requires FloatKind<K> { return Self(Ops::tanh(prim())); }
  Self tanh() && requires FloatKind<K> { return Self(Ops::tanh(take())); }
  /// Arc cosine.
  Self acos() const& requires FloatKind<K> { return Self(Ops::acos(prim())); }
  Self acos() && requires FloatKind<K> { return Self(Ops::acos(take())); }
  /// Inverse hyperbolic cosine.
  Self acosh() const& requires FloatKind<K> { return Self(Ops::acosh(prim())); }
  Self acosh() && requires FloatKind<K> { return Self(Ops::acosh(take())); }
  /// Arc sine.
  Self asin() const& requires FloatKind<K> { return Self(Ops::asin(prim())); }
  Self asin() && requires FloatKind<K> { return Self(Ops::asin(take())); }
  /// Inverse hyperbolic sine.
  Self asinh() const& requires FloatKind<K> { return Self(Ops::asinh(prim())); }
  Self asinh() && requires FloatKind<K> { return Self(Ops::asinh(take())); }
  /// Arc tangent.
  Self atan() const& requires FloatKind<K> { return Self(Ops::atan(prim())); }
  Self atan() && requires FloatKind<K> { return Self(Ops::atan(take())); }
  /// Inverse hyperbolic tangent.
  Self atanh() const& requires FloatKind<K> { return Self(Ops::atanh(prim())); }
  Self atanh() && requires FloatKind<K> { return Self(Ops::atanh(take())); }
  /// Error function.
  Self erf() const& requires FloatKind<K> { return Self(Ops::erf(prim())); }
  Self erf() && requires FloatKind<K> { return Self(Ops::erf(take())); }
  /// 1 / x.
  Self recip() const& requires FloatKind<K> { return Self(Ops::recip(prim())); }
  Self recip() && requires FloatKind<K> { return Self(Ops::recip(take())); }
  /// Rounds half to even (torch.round).
  Self round() const& requires FloatKind<K> { return Self(Ops::round(prim())); }
  Self round() && requires FloatKind<K> { return Self(Ops::round(take())); }
  /// Rounds down.
  Self floor() const& requires FloatKind<K> { return Self(Ops::floor(prim())); }
  Self floor() && requires FloatKind<K> { return Self(Ops::floor(take())); }
  /// Rounds up.
  Self ceil() const& requires FloatKind<K> { return Self(Ops::ceil(prim())); }
  Self ceil() && requires FloatKind<K> { return Self(Ops::ceil(take())); }
  /// Rounds toward zero.
  Self trunc() const& requires FloatKind<K> { return Self(Ops::trunc(prim())); }
  Self trunc() && requires FloatKind<K> { return Self(Ops::trunc(take())); }

  /// atan2(self, other), broadcast.
  Self atan2(const Self& o) const requires FloatKind<K> {
    return binary("atan2", o, [](auto a, auto b) { return Ops::atan2(a, b); });
  }
  /// log(e^self + e^other), broadcast, without overflow (torch.logaddexp).
  Self logaddexp(const Self& o) const requires FloatKind<K> {
    return binary("logaddexp", o, [](auto a, auto b) { return Ops::logaddexp(a, b); });
  }
  /// log(cumsum(e^self)) along dim, without overflow (torch.logcumsumexp).
  Self logcumsumexp(int64_t dim) const requires FloatKind<K> {
    return Self(Ops::logcumsumexp(prim(), check::dim("logcumsumexp", dim, D)));
  }
  /// sqrt(self² + other²), broadcast.
  Self hypot(const Self& o) const requires FloatKind<K> { return self().square().add(o.square()).sqrt(); }
  /// self ^ other, broadcast.
  Self powf(const Self& o) const requires FloatKind<K> {
    return binary("powf", o, [](auto a, auto b) { return Ops::powf(a, b); });
  }
  /// self ^ exponent.
  Self powf_scalar(Scalar e) const requires FloatKind<K> { return Self(Ops::powf_scalar(prim(), e)); }
  /// Degrees to radians.
  Self deg2rad() const requires FloatKind<K> { return self().mul_scalar(Scalar(std::numbers::pi / 180.0)); }
  /// Radians to degrees.
  Self rad2deg() const requires FloatKind<K> { return self().mul_scalar(Scalar(180.0 / std::numbers::pi)); }
  /// Remainder with the dividend's sign (C fmod, torch.fmod), broadcast.
  Self fmod(const Self& o) const requires FloatKind<K> { return to_fmod(self().remainder(o), self(), o); }
  /// fmod with a scalar divisor (the result takes the dividend's sign).
  Self fmod_scalar(Scalar s) const requires FloatKind<K> {
    return to_fmod(self().remainder_scalar(s), self(), self().full_like(s));
  }
  /// Cross product of 3-vectors along dim, broadcast.
  Self cross(const Self& o, int64_t dim) const requires FloatKind<K> {
    size_t d = check::dim("cross", dim, D);
    Shape s = check::broadcast("cross", self().shape(), o.shape());
    if (s[d] != 3) throw ShapeError("cross", "dim " + std::to_string(d) + " of " + s.to_string() + " must have size 3");
    auto a = self().expand_to(s), b = o.expand_to(s);
    auto at = [&](const Self& t, int64_t i) { return t.slice_dim(static_cast<int64_t>(d), Slice(i)); };
    auto c0 = at(a, 1).mul(at(b, 2)).sub(at(a, 2).mul(at(b, 1)));
    auto c1 = at(a, 2).mul(at(b, 0)).sub(at(a, 0).mul(at(b, 2)));
    auto c2 = at(a, 0).mul(at(b, 1)).sub(at(a, 1).mul(at(b, 0)));
    return Self::cat({c0, c1, c2}, static_cast<int64_t>(d));
  }
  /// Values truncated toward zero into an i64 tensor.
  Tensor<B, D, Int> int_() const requires FloatKind<K> {
    return Tensor<B, D, Int>(Ops::into_int(prim(), Int::default_dtype));
  }

  /// Unbiased variance along dim (kept with size 1); NaN where dim has fewer than 2 values, as in PyTorch.
  Self var(int64_t dim) const requires FloatKind<K> { return var_mean_impl(dim, 1).first; }
  /// Biased (population) variance along dim.
  Self var_bias(int64_t dim) const requires FloatKind<K> { return var_mean_impl(dim, 0).first; }
  /// (unbiased variance, mean) along dim.
  std::pair<Self, Self> var_mean(int64_t dim) const requires FloatKind<K> { return var_mean_impl(dim, 1); }
  /// (biased variance, mean) along dim.
  std::pair<Self, Self> var_mean_bias(int64_t dim) const requires FloatKind<K> { return var_mean_impl(dim, 0); }

  /// self == other or |self - other| <= atol + rtol * |other|, elementwise (NaNs are never close; equal
  /// infinities are, as in PyTorch).
  Mask is_close(const Self& o, double rtol = 1e-5, double atol = 1e-8) const requires FloatKind<K> {
    auto diff = self().sub(o).abs();
    return diff.lower_equal(o.abs().mul_scalar(Scalar(rtol)).add_scalar(Scalar(atol))).bool_or(self().equal(o));
  }
  /// True if every pair of values is close.
  bool all_close(const Self& o, double rtol = 1e-5, double atol = 1e-8) const requires FloatKind<K> {
    return is_close(o, rtol, atol).all().into_scalar().to_bool();
  }
  /// True where the value is NaN.
  Mask is_nan() const requires FloatKind<K> { return Mask(Ops::is_nan(prim())); }
  /// True where the value is +inf or -inf.
  Mask is_inf() const requires FloatKind<K> { return Mask(Ops::is_inf(prim())); }
  /// Neither NaN nor infinite.
  Mask is_finite() const requires FloatKind<K> { return is_nan().bool_or(is_inf()).bool_not(); }
  /// True if any value is NaN.
  bool contains_nan() const requires FloatKind<K> { return is_nan().any().into_scalar().to_bool(); }

  /// The tensor in f32 (f64 stays f64) for precision-sensitive work.
  Self to_full_precision() const requires FloatKind<K> {
    return self().dtype() == DType::F64 ? self() : self().cast(DType::F32);
  }
  /// Back from full precision to dtype.
  Self from_full_precision(DType dtype) const requires FloatKind<K> { return self().cast(dtype); }
  /// A float literal, like from_data.
  static Self from_floats(nested_t<double, D> literal, const typename B::Device& device = {}) requires FloatKind<K> {
    return Self::from_data(literal, device);
  }

  // ---- autodiff hooks: no-ops unless B tracks gradients
  /// The same values cut from the autodiff graph: no gradient flows back through the result.
  Self detach() const requires FloatKind<K> {
    if constexpr (requires { B::float_detach(prim()); }) return Self(B::float_detach(prim()));
    else return self();
  }
  /// Marks a leaf as needing its gradient (autodiff backends; elsewhere the tensor unchanged).
  Self set_require_grad(bool require) const requires FloatKind<K> {
    if constexpr (requires { B::float_set_require_grad(prim(), require); })
      return Self(B::float_set_require_grad(prim(), require));
    else return self();
  }
  /// set_require_grad(true).
  Self require_grad() const requires FloatKind<K> { return self().set_require_grad(true); }
  /// True if backward() computes a gradient for this tensor (false off autodiff backends).
  bool is_require_grad() const requires FloatKind<K> {
    if constexpr (requires { B::float_is_require_grad(prim()); }) return B::float_is_require_grad(prim());
    else return false;
  }

 private:
  std::pair<Self, Self> var_mean_impl(int64_t dim, size_t correction) const {
    size_t d = check::dim("var", dim, D);
    size_t n = self().shape()[d];
    auto mean = self().mean_dim(static_cast<int64_t>(d));
    auto centered = self().sub(mean);
    double divisor = static_cast<double>(n > correction ? n - correction : 0);  // 0: NaN, as PyTorch
    auto var = centered.square().sum_dim(static_cast<int64_t>(d)).div_scalar(Scalar(divisor));
    return {var, mean};
  }
  // remainder r has the divisor's sign; where the dividend's sign differs, fmod = r - divisor.
  static Self to_fmod(const Self& r, const Self& dividend, const Self& divisor) {
    auto signs_differ = dividend.lower_elem(Scalar(0)).bool_xor(divisor.lower_elem(Scalar(0)));
    auto fix = r.not_equal_elem(Scalar(0)).bool_and(signs_differ);
    return r.mask_where(fix, r.sub(divisor));
  }
};

}  // namespace scorch

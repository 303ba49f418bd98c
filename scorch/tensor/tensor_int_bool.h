#pragma once
// Int-only methods (arange, bitwise ops, float_) and Bool-only methods (logic, argwhere, masks).
#include <vector>

namespace scorch {

template <class B, size_t D, class K> class IntBoolMethods {
  using Self = Tensor<B, D, K>;
  using Ops = KindOps<B, K>;
  // self() and prim() throw "[method] tensor is empty" for an empty handle, naming the method that calls them.
  const Self& self(const char* where = __builtin_FUNCTION()) const {
    static_cast<const Self&>(*this).require_values(where);
    return static_cast<const Self&>(*this);
  }
  auto prim(const char* where = __builtin_FUNCTION()) const { return static_cast<const Self&>(*this).primitive(where); }
  template <class F> Self binary(const char* op, const Self& other, F f) const {
    return detail::checked_binary<Self>(op, static_cast<const Self&>(*this), other, f);  // names op
  }

 public:
  // ---- Int
  /// start, start+1, ... below end.
  static Self arange(int64_t start, int64_t end, const typename B::Device& device = {}) requires(IntKind<K>&& D == 1) {
    return arange_step(start, end, 1, device);
  }
  /// start, start+step, ... below end (step > 0).
  static Self arange_step(int64_t start, int64_t end, int64_t step,
                          const typename B::Device& device = {}) requires(IntKind<K>&& D == 1) {
    check::positive("arange_step", "step", step);
    return Self(Ops::arange(start, end, step, device, Int::default_dtype));
  }
  /// An int literal, like from_data.
  static Self from_ints(nested_t<int64_t, D> literal, const typename B::Device& device = {}) requires IntKind<K> {
    return Self::from_data(literal, device);
  }
  /// Values converted to f32.
  Tensor<B, D, Float> float_() const requires(!FloatKind<K>) {
    return Tensor<B, D, Float>(Ops::into_float(prim(), Float::default_dtype));
  }
  /// Values converted to i64 (true → 1).
  Tensor<B, D, Int> int_() const requires BoolKind<K> {
    return Tensor<B, D, Int>(Ops::into_int(prim(), Int::default_dtype));
  }
  /// Bitwise and, broadcast.
  Self bitwise_and(const Self& o) const requires IntKind<K> {
    return binary("bitwise_and", o, [](auto a, auto b) { return Ops::bitwise_and(a, b); });
  }
  /// Bitwise or, broadcast.
  Self bitwise_or(const Self& o) const requires IntKind<K> {
    return binary("bitwise_or", o, [](auto a, auto b) { return Ops::bitwise_or(a, b); });
  }
  /// Bitwise exclusive or, broadcast.
  Self bitwise_xor(const Self& o) const requires IntKind<K> {
    return binary("bitwise_xor", o, [](auto a, auto b) { return Ops::bitwise_xor(a, b); });
  }
  /// self << other, broadcast.
  Self bitwise_left_shift(const Self& o) const requires IntKind<K> {
    return binary("bitwise_left_shift", o, [](auto a, auto b) { return Ops::bitwise_left_shift(a, b); });
  }
  /// self >> other (arithmetic shift), broadcast.
  Self bitwise_right_shift(const Self& o) const requires IntKind<K> {
    return binary("bitwise_right_shift", o, [](auto a, auto b) { return Ops::bitwise_right_shift(a, b); });
  }
  /// Bitwise and with a scalar.
  Self bitwise_and_scalar(Scalar s) const requires IntKind<K> { return Self(Ops::bitwise_and_scalar(prim(), s)); }
  /// Bitwise or with a scalar.
  Self bitwise_or_scalar(Scalar s) const requires IntKind<K> { return Self(Ops::bitwise_or_scalar(prim(), s)); }
  /// Bitwise exclusive or with a scalar.
  Self bitwise_xor_scalar(Scalar s) const requires IntKind<K> { return Self(Ops::bitwise_xor_scalar(prim(), s)); }
  /// self << s.
  Self bitwise_left_shift_scalar(Scalar s) const requires IntKind<K> {
    return Self(Ops::bitwise_left_shift_scalar(prim(), s));
  }
  /// self >> s (arithmetic shift).
  Self bitwise_right_shift_scalar(Scalar s) const requires IntKind<K> {
    return Self(Ops::bitwise_right_shift_scalar(prim(), s));
  }
  /// Bitwise complement (~self).
  Self bitwise_not() const requires IntKind<K> { return Self(Ops::bitwise_not(prim())); }

  // ---- Bool
  /// A bool literal, like from_data.
  static Self from_bool(nested_t<bool, D> literal, const typename B::Device& device = {}) requires BoolKind<K> {
    return Self::from_data(literal, device);
  }
  /// Logical not.
  Self bool_not() const requires BoolKind<K> { return Self(Ops::logical_not(prim())); }
  /// Logical and, broadcast.
  Self bool_and(const Self& o) const requires BoolKind<K> {
    return binary("bool_and", o, [](auto a, auto b) { return Ops::logical_and(a, b); });
  }
  /// Logical or, broadcast.
  Self bool_or(const Self& o) const requires BoolKind<K> {
    return binary("bool_or", o, [](auto a, auto b) { return Ops::logical_or(a, b); });
  }
  /// Logical exclusive or, broadcast.
  Self bool_xor(const Self& o) const requires BoolKind<K> {
    return binary("bool_xor", o, [](auto a, auto b) { return Ops::logical_xor(a, b); });
  }
  /// Coordinates of the true values, one row each: shape [count, D].
  Tensor<B, 2, Int> argwhere() const requires BoolKind<K> { return Tensor<B, 2, Int>(Ops::argwhere(prim())); }
  /// One rank-1 tensor per dim with the coordinates of the true values (torch.nonzero(as_tuple=True)).
  std::vector<Tensor<B, 1, Int>> nonzero() const requires BoolKind<K> {
    auto coords = argwhere();
    std::vector<Tensor<B, 1, Int>> out;
    for (size_t d = 0; d < D; ++d)
      out.push_back(coords.slice_dim(1, Slice(static_cast<int64_t>(d))).template reshape<1>({-1}));
    return out;
  }
  /// True where col - row < offset: the part triu(offset) removes.
  static Self triu_mask(const Shape& shape, int64_t offset,
                        const typename B::Device& device = {}) requires BoolKind<K> {
    return triangle_mask<B, D>(shape, offset - 1, false, device);
  }
  /// True where col - row > offset: the part tril(offset) removes.
  static Self tril_mask(const Shape& shape, int64_t offset,
                        const typename B::Device& device = {}) requires BoolKind<K> {
    return triangle_mask<B, D>(shape, offset + 1, true, device);
  }
  /// True everywhere except the diagonal at offset.
  static Self diag_mask(const Shape& shape, int64_t offset,
                        const typename B::Device& device = {}) requires BoolKind<K> {
    return triangle_mask<B, D>(shape, offset - 1, false, device)
        .bool_or(triangle_mask<B, D>(shape, offset + 1, true, device));
  }
};

}  // namespace scorch

#pragma once
// Operators on tensors: + - * / % for Float and Int (tensor ⊕ tensor with broadcasting, tensor ⊕
// scalar, scalar ⊕ tensor for + - * /), unary -, and ! & | ^ on Bool. Operands passed as
// temporaries hand their buffers on, so `a + b + c` writes the second sum in place.
#include <ostream>

#include "scorch/tensor/display.h"

namespace scorch {
/// a + b, broadcast; a's buffer is reused when a is a temporary.
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
operator+(Tensor<B, D, K> a, const Tensor<B, D, K>& b) {
  return detail::checked_binary<Tensor<B, D, K>>(
      "add", std::move(a), b, [](auto x, auto y) { return KindOps<B, K>::add(std::move(x), std::move(y)); });
}
/// The same with a scalar right operand.
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
operator+(Tensor<B, D, K> a, Scalar s) {
  return Tensor<B, D, K>(KindOps<B, K>::add_scalar(std::move(a).into_primitive(), s));
}
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
&operator+=(Tensor<B, D, K>& a, const Tensor<B, D, K>& b) { return a = std::move(a) + b; }

/// a - b, broadcast; a's buffer is reused when a is a temporary.
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
operator-(Tensor<B, D, K> a, const Tensor<B, D, K>& b) {
  return detail::checked_binary<Tensor<B, D, K>>(
      "sub", std::move(a), b, [](auto x, auto y) { return KindOps<B, K>::sub(std::move(x), std::move(y)); });
}
/// The same with a scalar right operand.
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
operator-(Tensor<B, D, K> a, Scalar s) {
  return Tensor<B, D, K>(KindOps<B, K>::sub_scalar(std::move(a).into_primitive(), s));
}
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
&operator-=(Tensor<B, D, K>& a, const Tensor<B, D, K>& b) { return a = std::move(a) - b; }

/// a * b, broadcast; a's buffer is reused when a is a temporary.
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
operator*(Tensor<B, D, K> a, const Tensor<B, D, K>& b) {
  return detail::checked_binary<Tensor<B, D, K>>(
      "mul", std::move(a), b, [](auto x, auto y) { return KindOps<B, K>::mul(std::move(x), std::move(y)); });
}
/// The same with a scalar right operand.
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
operator*(Tensor<B, D, K> a, Scalar s) {
  return Tensor<B, D, K>(KindOps<B, K>::mul_scalar(std::move(a).into_primitive(), s));
}
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
&operator*=(Tensor<B, D, K>& a, const Tensor<B, D, K>& b) { return a = std::move(a) * b; }

/// a / b (floor division for Int), broadcast; a's buffer is reused when a is a temporary.
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
operator/(Tensor<B, D, K> a, const Tensor<B, D, K>& b) {
  return detail::checked_binary<Tensor<B, D, K>>(
      "div", std::move(a), b, [](auto x, auto y) { return KindOps<B, K>::div(std::move(x), std::move(y)); });
}
/// The same with a scalar right operand.
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
operator/(Tensor<B, D, K> a, Scalar s) {
  return Tensor<B, D, K>(KindOps<B, K>::div_scalar(std::move(a).into_primitive(), s));
}
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
&operator/=(Tensor<B, D, K>& a, const Tensor<B, D, K>& b) { return a = std::move(a) / b; }

/// a % b with the divisor's sign (Python's %), broadcast; a's buffer is reused when a is a temporary.
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
operator%(Tensor<B, D, K> a, const Tensor<B, D, K>& b) {
  return detail::checked_binary<Tensor<B, D, K>>("remainder", std::move(a), b, [](auto x, auto y) {
    return KindOps<B, K>::remainder(std::move(x), std::move(y));
  });
}
/// The same with a scalar right operand.
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
operator%(Tensor<B, D, K> a, Scalar s) {
  return Tensor<B, D, K>(KindOps<B, K>::remainder_scalar(std::move(a).into_primitive(), s));
}
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
&operator%=(Tensor<B, D, K>& a, const Tensor<B, D, K>& b) { return a = std::move(a) % b; }

/// s + t.
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
operator+(Scalar s, Tensor<B, D, K> t) { return std::move(t) + s; }
/// s * t.
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
operator*(Scalar s, Tensor<B, D, K> t) { return std::move(t) * s; }
/// s - t.
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
operator-(Scalar s, Tensor<B, D, K> t) {
  return Tensor<B, D, K>(KindOps<B, K>::add_scalar(KindOps<B, K>::neg(std::move(t).into_primitive()), s));
}
/// s / t.
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
operator/(Scalar s, Tensor<B, D, K> t) {
  auto num = KindOps<B, K>::full(t.shape(), s, t.device(), t.dtype());
  return Tensor<B, D, K>(KindOps<B, K>::div(std::move(num), std::move(t).into_primitive()));
}
/// -t.
template <class B, size_t D, class K>
requires NumericKind<K> Tensor<B, D, K>
operator-(Tensor<B, D, K> t) { return Tensor<B, D, K>(KindOps<B, K>::neg(std::move(t).into_primitive("neg"))); }

/// Logical not.
template <class B, size_t D> Tensor<B, D, Bool> operator!(const Tensor<B, D, Bool>& t) { return t.bool_not(); }
/// Logical and, broadcast.
template <class B, size_t D> Tensor<B, D, Bool> operator&(const Tensor<B, D, Bool>& a, const Tensor<B, D, Bool>& b) {
  return a.bool_and(b);
}
/// Logical or, broadcast.
template <class B, size_t D> Tensor<B, D, Bool> operator|(const Tensor<B, D, Bool>& a, const Tensor<B, D, Bool>& b) {
  return a.bool_or(b);
}
/// Logical xor, broadcast.
template <class B, size_t D> Tensor<B, D, Bool> operator^(const Tensor<B, D, Bool>& a, const Tensor<B, D, Bool>& b) {
  return a.bool_xor(b);
}

/// Prints data, shape, device, backend, kind and dtype; an empty handle prints as one line that says so.
template <class B, size_t D, class K> std::ostream& operator<<(std::ostream& os, const Tensor<B, D, K>& t) {
  if (t.is_empty()) return os << "Tensor { empty (moved from or default-constructed) }";
  format_tensor(os, t.to_data(), TensorDescription{t.device().to_string(), B::name(), std::string(K::name)});
  return os;
}

}  // namespace scorch

#pragma once
// How a dispatching backend (Router, Dyn) hands an op to the backend that runs it: take<At>() unwraps each operand,
// Wrap<R>::from<At>() wraps the result, field by field through optionals, lists, pairs and the gradient and update
// structs. At names the backend that runs the op (Router: its position; Dyn: the backend type). A dispatching
// backend specializes Operand<T> for its tensors and devices and Wrap<R> for its tensors; every other type passes
// through as it is.
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "scorch/backend/module_options.h"

namespace scorch::operand {

/// A type no dispatching backend wraps: passed through.
template <class T> struct Operand { static constexpr bool wrapped = false; };
/// Whether A (any reference and const) holds a dispatching backend's tensor or device.
template <class A> constexpr bool kWrapped = Operand<std::remove_cvref_t<A>>::wrapped;

/// An operand as At's: wrapped tensors, devices and their optionals and lists unwrapped; others as they are.
template <class At, class A> decltype(auto) take(A&& a) {
  if constexpr (!kWrapped<A>) return std::forward<A>(a);
  else return Operand<std::remove_cvref_t<A>>::template take<At>(std::forward<A>(a));
}

template <class T> struct Operand<std::optional<T>> {
  static constexpr bool wrapped = Operand<T>::wrapped;
  template <class At, class O> static auto take(O&& t) {
    using Inner = std::remove_cvref_t<decltype(operand::take<At>(std::move(*t)))>;
    if (!t) return std::optional<Inner>();
    if constexpr (std::is_lvalue_reference_v<O>) return std::optional<Inner>(operand::take<At>(*t));
    else return std::optional<Inner>(operand::take<At>(std::move(*t)));
  }
};
template <class T> struct Operand<std::vector<T>> {
  static constexpr bool wrapped = Operand<T>::wrapped;
  template <class At, class V> static auto take(V&& list) {
    using Inner = std::remove_cvref_t<decltype(operand::take<At>(std::move(list[0])))>;
    std::vector<Inner> out;
    out.reserve(list.size());
    for (auto& t : list) {
      if constexpr (std::is_lvalue_reference_v<V>) out.push_back(operand::take<At>(t));
      else out.push_back(operand::take<At>(std::move(t)));
    }
    return out;
  }
};

/// At's result as the dispatching backend's R: tensors wrapped (by the backend's specialization), pairs, optionals,
/// lists and gradient/update structs field by field; values (TensorData, counts) as they are.
template <class R> struct Wrap {
  template <class At, class A> static R from(A&& a) { return R(std::forward<A>(a)); }
};
template <class A, class B> struct Wrap<std::pair<A, B>> {
  template <class At, class P> static std::pair<A, B> from(P&& p) {
    return {Wrap<A>::template from<At>(std::move(p.first)), Wrap<B>::template from<At>(std::move(p.second))};
  }
};
template <class T> struct Wrap<std::optional<T>> {
  template <class At, class O> static std::optional<T> from(O&& o) {
    if (!o) return std::nullopt;
    return Wrap<T>::template from<At>(std::move(*o));
  }
};
template <class T> struct Wrap<std::vector<T>> {
  template <class At, class V> static std::vector<T> from(V&& list) {
    std::vector<T> out;
    out.reserve(list.size());
    for (auto& x : list) out.push_back(Wrap<T>::template from<At>(std::move(x)));
    return out;
  }
};
template <class T> struct Wrap<AdamUpdate<T>> {
  template <class At, class U> static AdamUpdate<T> from(U&& u) {
    return {Wrap<T>::template from<At>(std::move(u.param)), Wrap<T>::template from<At>(std::move(u.moment_1)),
            Wrap<T>::template from<At>(std::move(u.moment_2))};
  }
};
template <class T> struct Wrap<SgdUpdate<T>> {
  template <class At, class U> static SgdUpdate<T> from(U&& u) {
    return {Wrap<T>::template from<At>(std::move(u.param)), Wrap<std::optional<T>>::template from<At>(u.velocity)};
  }
};
template <class T> struct Wrap<ConvGradients<T>> {
  template <class At, class G> static ConvGradients<T> from(G&& g) {
    return {Wrap<T>::template from<At>(std::move(g.x)), Wrap<T>::template from<At>(std::move(g.weight)),
            Wrap<std::optional<T>>::template from<At>(g.bias)};
  }
};
template <class T> struct Wrap<AttentionGradients<T>> {
  template <class At, class G> static AttentionGradients<T> from(G&& g) {
    return {Wrap<T>::template from<At>(std::move(g.q)), Wrap<T>::template from<At>(std::move(g.k)),
            Wrap<T>::template from<At>(std::move(g.v))};
  }
};
template <class T> struct Wrap<NormGradients<T>> {
  template <class At, class G> static NormGradients<T> from(G&& g) {
    return {Wrap<T>::template from<At>(std::move(g.x)), Wrap<std::optional<T>>::template from<At>(g.gamma),
            Wrap<std::optional<T>>::template from<At>(g.beta)};
  }
};

}  // namespace scorch::operand

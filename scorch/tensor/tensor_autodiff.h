#pragma once
// Autodiff methods of Tensor: backward, grad, grad_remove, grad_replace, inner and from_inner.
// They exist only on autodiff backends (AutodiffBackend<B>): calling backward() on Cpu is a compile
// error that says so. detach / require_grad live with the float methods and are no-ops elsewhere.
#include <optional>

#include "scorch/tensor/functional_checks.h"

namespace scorch {

template <class B, size_t D, class K> class AutodiffMethods {
  using Self = Tensor<B, D, K>;
  using InnerTensor = Tensor<InnerOf<B>, D, K>;
  using Grads = GradientsOf<B>;
  // self() and prim() throw "[method] tensor is empty" for an empty handle, naming the method that calls them.
  const Self& self(const char* where = __builtin_FUNCTION()) const {
    static_cast<const Self&>(*this).require_values(where);
    return static_cast<const Self&>(*this);
  }

 public:
  /// Backpropagates from this tensor, seeded with ones; returns every kept gradient.
  Grads backward() const requires(AutodiffBackend<B>&& FloatKind<K>) { return B::backward(self().primitive()); }
  /// On a backend without gradients: a compile error (where the call is compiled) that says what to use instead.
  template <class Plain = B> Grads backward() const requires(!AutodiffBackend<Plain>) {
    static_assert(sizeof(Plain) == 0,
                  "backward() needs an Autodiff backend: compute on Tensor<Autodiff<B>, D> (e.g. Autodiff<Cpu>), "
                  "mark the leaves with require_grad(), then call backward() on the result");
    return {};
  }
  /// This tensor's gradient (on the inner backend), if grads has one.
  std::optional<InnerTensor> grad(const Grads& grads) const requires(AutodiffBackend<B>&& FloatKind<K>) {
    auto g = B::grad(self().primitive(), grads);
    if (!g) return std::nullopt;
    return InnerTensor(std::move(*g));
  }
  /// Takes this tensor's gradient out of grads.
  std::optional<InnerTensor> grad_remove(Grads& grads) const requires(AutodiffBackend<B>&& FloatKind<K>) {
    auto g = B::grad_remove(self().primitive(), grads);
    if (!g) return std::nullopt;
    return InnerTensor(std::move(*g));
  }
  /// Sets this tensor's gradient in grads; the shapes must match.
  void grad_replace(Grads& grads, const InnerTensor& grad) const requires(AutodiffBackend<B>&& FloatKind<K>) {
    check::same_shape("grad_replace", self().shape(), grad.shape());
    B::grad_replace(self().primitive(), grads, grad.primitive());
  }
  /// The same values on the inner backend, without the graph.
  InnerTensor inner() const requires AutodiffBackend<B> {
    if constexpr (FloatKind<K>) return InnerTensor(B::inner(self().primitive()));
    else return InnerTensor(self().primitive());
  }
  /// An (untracked) tensor of this backend holding an inner tensor's values.
  static Self from_inner(const InnerTensor& t) requires AutodiffBackend<B> {
    if constexpr (FloatKind<K>) return Self(B::from_inner(t.primitive()));
    else return Self(t.primitive());
  }
};

}  // namespace scorch

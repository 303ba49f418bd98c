#pragma once
// The backend contract as concepts: a backend is a type with static ops on rank-erased
// primitives. Each op group (gen/op_concepts.h, from op_table.txt) checks every required op's signature.
#include <concepts>
#include <cstdint>
#include <string>

#include "scorch/core/dtype.h"
#include "scorch/core/shape.h"

namespace scorch {

/// What every primitive reports about itself.
template <class P>
concept TensorPrimitive = std::copyable<P> && requires(const P& p) {
  { p.shape() } -> std::convertible_to<Shape>;
  { p.dtype() } -> std::convertible_to<DType>;
  p.device();
};

/// A device handle: comparable and printable.
template <class D>
concept DeviceHandle = std::regular<D> && requires(const D& d) {
  { d.to_string() } -> std::convertible_to<std::string>;
};

}  // namespace scorch

#include "scorch/gen/op_concepts.h"

namespace scorch {

/// A complete backend: device, primitives, every op group, seeding and sync.
template <class B>
concept Backend = DeviceHandle<typename B::Device> && requires {
  { B::name() } -> std::convertible_to<std::string>;
} && FloatOps<B> && IntOps<B> && BoolOps<B> && ModuleOps<B> &&
    requires(uint64_t seed, const typename B::Device& device) {
  B::seed(seed);
  B::sync(device);
};

/// A backend that records graphs and computes gradients (`Autodiff<B>`); only it offers backward().
template <class B>
concept AutodiffBackend = Backend<B> && Backend<typename B::InnerBackend> &&
    requires(typename B::FloatTensor t, typename B::Gradients g) {
  { B::backward(t) } -> std::same_as<typename B::Gradients>;
  B::grad(t, g);
  B::grad_remove(t, g);
  B::inner(t);
  B::from_inner(B::inner(t));
};

/// Stands in for the gradients type of a backend without autodiff.
struct NoGradients {};
namespace detail {
template <class B> struct AutodiffTraits {
  using Inner = B;
  using Gradients = NoGradients;
};
template <AutodiffBackend B> struct AutodiffTraits<B> {
  using Inner = typename B::InnerBackend;
  using Gradients = typename B::Gradients;
};
}  // namespace detail
/// B's inner backend (B itself when B has no autodiff).
template <class B> using InnerOf = typename detail::AutodiffTraits<B>::Inner;
/// B's gradients container (NoGradients when B has no autodiff).
template <class B> using GradientsOf = typename detail::AutodiffTraits<B>::Gradients;

}  // namespace scorch

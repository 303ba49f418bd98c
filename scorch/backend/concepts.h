#pragma once
// The backend contract as concepts: a backend is a type with static ops on rank-erased
// primitives. Each op group checks that every required op of op_table.def exists.
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

#define SCORCH_OP(kind, name, arity, cls, status) SCORCH_REQUIRE_##kind##_##status(name)
#define SCORCH_REQUIRE_float_required(name) &&requires { B::float_##name; }
#define SCORCH_REQUIRE_float_provided(name)
#define SCORCH_REQUIRE_int_required(name)
#define SCORCH_REQUIRE_int_provided(name)
#define SCORCH_REQUIRE_bool_required(name)
#define SCORCH_REQUIRE_bool_provided(name)
#define SCORCH_REQUIRE_module_required(name)
#define SCORCH_REQUIRE_module_provided(name)
/// Every required float op exists.
template <class B>
concept FloatOps = TensorPrimitive<typename B::FloatTensor>
#include "scorch/backend/op_table.def"
    ;
#undef SCORCH_REQUIRE_float_required
#define SCORCH_REQUIRE_float_required(name)
#undef SCORCH_REQUIRE_int_required
#define SCORCH_REQUIRE_int_required(name) &&requires { B::int_##name; }
/// Every required int op exists.
template <class B>
concept IntOps = TensorPrimitive<typename B::IntTensor>
#include "scorch/backend/op_table.def"
    ;
#undef SCORCH_REQUIRE_int_required
#define SCORCH_REQUIRE_int_required(name)
#undef SCORCH_REQUIRE_bool_required
#define SCORCH_REQUIRE_bool_required(name) &&requires { B::bool_##name; }
/// Every required bool op exists.
template <class B>
concept BoolOps = TensorPrimitive<typename B::BoolTensor>
#include "scorch/backend/op_table.def"
    ;
#undef SCORCH_REQUIRE_bool_required
#define SCORCH_REQUIRE_bool_required(name)
#undef SCORCH_REQUIRE_module_required
#define SCORCH_REQUIRE_module_required(name) &&requires { B::module_##name; }
/// Every required module op (convolution, pooling, interpolation, unfold/fold) exists.
template <class B>
concept ModuleOps = TensorPrimitive<typename B::FloatTensor>
#include "scorch/backend/op_table.def"
    ;
#undef SCORCH_OP
#undef SCORCH_REQUIRE_module_required
#undef SCORCH_REQUIRE_module_provided
#undef SCORCH_REQUIRE_float_required
#undef SCORCH_REQUIRE_float_provided
#undef SCORCH_REQUIRE_int_required
#undef SCORCH_REQUIRE_int_provided
#undef SCORCH_REQUIRE_bool_required
#undef SCORCH_REQUIRE_bool_provided

/// Activation ops are all provided; a backend may override any of them.
template <class B>
concept ActivationOps = true;

/// A complete backend: device, primitives, every op group, seeding and sync.
template <class B>
concept Backend = DeviceHandle<typename B::Device> && requires { { B::name() } -> std::convertible_to<std::string>; } && FloatOps<B> && IntOps<B> && BoolOps<B> && ModuleOps<B> &&
                  ActivationOps<B> && requires(uint64_t seed, const typename B::Device& device) {
                    B::seed(seed);
                    B::sync(device);
                  };

/// A backend that records graphs and computes gradients (Autodiff<B>); only it offers backward().
template <class B>
concept AutodiffBackend = Backend<B> && Backend<typename B::InnerBackend> && requires(typename B::FloatTensor t, typename B::Gradients g) {
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

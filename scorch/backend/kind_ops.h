#pragma once
// KindOps<B, K>: the Tensor front end's view of a backend. KindOps<B, Float>::add calls
// B::float_add; for a provided op it calls the backend's override if there is one, else the
// default in backend/provided. Generated from op_table.def.
#include <utility>

#include "scorch/backend/kind.h"

namespace scorch {

template <class B, class K> struct KindOps;
/// The module ops of backend B (conv, pools, ...), prefix-free; provided ones fall back to defaults.
template <class B> struct ModuleOpsOf;

}  // namespace scorch

#include "scorch/backend/provided/provided.h"

namespace scorch {

#define SCORCH_FORWARD_REQUIRED(prefix, name)                                 \
  template <class... A> static decltype(auto) name(A&&... a) {                \
    return B::prefix##_##name(std::forward<A>(a)...);                          \
  }
#define SCORCH_FORWARD_PROVIDED(prefix, name)                                 \
  template <class... A> static decltype(auto) name(A&&... a) {                \
    if constexpr (requires { B::prefix##_##name(std::forward<A>(a)...); })   \
      return B::prefix##_##name(std::forward<A>(a)...);                        \
    else                                                                       \
      return provided::prefix##_##name<B>(std::forward<A>(a)...);             \
  }
#define SCORCH_OP(kind, name, arity, cls, status) SCORCH_DISPATCH_##kind##_##status(name)
#define SCORCH_SKIP(name)
#define SCORCH_DISPATCH_module_required(name) SCORCH_SKIP(name)
#define SCORCH_DISPATCH_module_provided(name) SCORCH_SKIP(name)

#define SCORCH_DISPATCH_float_required(name) SCORCH_FORWARD_REQUIRED(float, name)
#define SCORCH_DISPATCH_float_provided(name) SCORCH_FORWARD_PROVIDED(float, name)
#define SCORCH_DISPATCH_int_required(name) SCORCH_SKIP(name)
#define SCORCH_DISPATCH_int_provided(name) SCORCH_SKIP(name)
#define SCORCH_DISPATCH_bool_required(name) SCORCH_SKIP(name)
#define SCORCH_DISPATCH_bool_provided(name) SCORCH_SKIP(name)
/// Float ops of backend B under their kind-free names.
template <class B> struct KindOps<B, Float> {
  using Primitive = typename B::FloatTensor;
#include "scorch/backend/op_table.def"
};
#undef SCORCH_DISPATCH_float_required
#undef SCORCH_DISPATCH_float_provided
#undef SCORCH_DISPATCH_int_required
#undef SCORCH_DISPATCH_int_provided
#define SCORCH_DISPATCH_float_required(name) SCORCH_SKIP(name)
#define SCORCH_DISPATCH_float_provided(name) SCORCH_SKIP(name)
#define SCORCH_DISPATCH_int_required(name) SCORCH_FORWARD_REQUIRED(int, name)
#define SCORCH_DISPATCH_int_provided(name) SCORCH_FORWARD_PROVIDED(int, name)
/// Int ops of backend B under their kind-free names.
template <class B> struct KindOps<B, Int> {
  using Primitive = typename B::IntTensor;
#include "scorch/backend/op_table.def"
};
#undef SCORCH_DISPATCH_int_required
#undef SCORCH_DISPATCH_int_provided
#undef SCORCH_DISPATCH_bool_required
#undef SCORCH_DISPATCH_bool_provided
#define SCORCH_DISPATCH_int_required(name) SCORCH_SKIP(name)
#define SCORCH_DISPATCH_int_provided(name) SCORCH_SKIP(name)
#define SCORCH_DISPATCH_bool_required(name) SCORCH_FORWARD_REQUIRED(bool, name)
#define SCORCH_DISPATCH_bool_provided(name) SCORCH_FORWARD_PROVIDED(bool, name)
/// Bool ops of backend B under their kind-free names.
template <class B> struct KindOps<B, Bool> {
  using Primitive = typename B::BoolTensor;
#include "scorch/backend/op_table.def"
};
#undef SCORCH_DISPATCH_bool_required
#undef SCORCH_DISPATCH_bool_provided
#define SCORCH_DISPATCH_bool_required(name) SCORCH_SKIP(name)
#define SCORCH_DISPATCH_bool_provided(name) SCORCH_SKIP(name)
#undef SCORCH_DISPATCH_module_required
#undef SCORCH_DISPATCH_module_provided
#define SCORCH_DISPATCH_module_required(name) SCORCH_FORWARD_REQUIRED(module, name)
#define SCORCH_DISPATCH_module_provided(name) SCORCH_FORWARD_PROVIDED(module, name)
/// Module ops of backend B under their prefix-free names.
template <class B> struct ModuleOpsOf {
#include "scorch/backend/op_table.def"
};
#undef SCORCH_DISPATCH_float_required
#undef SCORCH_DISPATCH_float_provided
#undef SCORCH_DISPATCH_int_required
#undef SCORCH_DISPATCH_int_provided
#undef SCORCH_DISPATCH_bool_required
#undef SCORCH_DISPATCH_bool_provided
#undef SCORCH_DISPATCH_module_required
#undef SCORCH_DISPATCH_module_provided
#undef SCORCH_OP
#undef SCORCH_SKIP
#undef SCORCH_FORWARD_REQUIRED
#undef SCORCH_FORWARD_PROVIDED

}  // namespace scorch

#pragma once
// How Router<Bs...> runs an op as its IR record (scorch/gen/router_ops.h): the op's record is built with its operands
// named 1, 2, ... (RecordIds, which moves each operand's backend-K primitive into a RecordEnv), then run on backend K
// by ir::execute (scorch/gen/ir_execute.h) with the RecordEnv as its env, and its result wrapped as the router's.
#include <any>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "scorch/backend/module_options.h"
#include "scorch/core/error.h"
#include "scorch/gen/ir_execute.h"
#include "scorch/ir/tensor_ir.h"
#include "scorch/router/route.h"
#include "scorch/router/router_tensor.h"

namespace scorch::router {

/// ir::execute's env over one op's operands as backend B's (operand id k is the k-th held) and its result, kept as
/// B returned it until the router wraps it. Routing checks nothing beyond B's own op (Remote's server does).
template <class B> class RecordEnv {
 public:
  /// Keeps t as operand id size() + 1, which it returns.
  template <class Kind> uint64_t hold(typename Kind::template Primitive<B> t) {
    operands_.emplace_back(std::in_place_index<Kind::index>, std::move(t));
    return operands_.size();
  }
  /// Keeps d as the device of a creation op.
  void hold_device(typename B::Device d) { device_ = std::move(d); }

  // What the generated executor calls.
  template <class Kind> typename Kind::template Primitive<B> in(const ir::TensorIr& t) {
    return std::get<Kind::index>(std::move(operands_.at(t.id - 1)));
  }
  /// Operand t's shape and dtype (ir::validate reads them).
  ir::Meta meta(const ir::TensorIr& t) const {
    return std::visit(
        [](const auto& p) {
          return ir::Meta{Shape(p.shape()), DType(p.dtype())};
        },
        operands_.at(t.id - 1));
  }
  template <class Kind> std::vector<typename Kind::template Primitive<B>> list(const std::vector<ir::TensorIr>& ts) {
    std::vector<typename Kind::template Primitive<B>> out;
    out.reserve(ts.size());
    for (const ir::TensorIr& t : ts) out.push_back(in<Kind>(t));
    return out;
  }
  template <class Kind>
  std::optional<typename Kind::template Primitive<B>> optional(const std::optional<ir::TensorIr>& t) {
    if (!t) return std::nullopt;
    return in<Kind>(*t);
  }
  const typename B::Device& device() const {
    if (!device_) throw ValueError("router", "a creation op's record names no device (a router bug: report it)");
    return *device_;
  }
  template <class Out, class R> bool put(Out&, R result) {
    result_ = std::move(result);
    return true;
  }
  template <class V> bool value(V v) {
    result_ = std::move(v);
    return true;
  }
  template <class... A> void check_size(const A&...) const {}
  void check_broadcast(std::initializer_list<const ir::TensorIr*>) const {}
  template <class... A> void check_matmul(const A&...) const {}
  template <class... A> void check_repeat(const A&...) const {}
  template <class... A> void check_arange(const A&...) const {}

  /// The op's result as R, B's result type of the op; a ValueError naming op when it made another.
  template <class R> R take(const char* op) {
    if (R* r = std::any_cast<R>(&result_)) return std::move(*r);
    throw ValueError(op, std::string("the backend's result is not the op's result type (a router bug: report it)"));
  }

 private:
  std::vector<std::variant<typename B::FloatTensor, typename B::IntTensor, typename B::BoolTensor>> operands_;
  std::optional<typename B::Device> device_;
  std::any result_;
};

/// ir::build's naming of a router op's operands for backend K: each tensor is moved into env (the op owns its
/// operands: they are its by-value parameters) and named by its position; a device is kept as the op's device.
template <size_t K, class... Bs> class RecordIds {
 public:
  using B = Nth<K, Bs...>;
  explicit RecordIds(RecordEnv<B>& env) : env_(env) {}

  template <class Kind> ir::TensorIr operator()(const RouterTensor<Kind, Bs...>& t) {
    auto& owned = const_cast<RouterTensor<Kind, Bs...>&>(t);  // the op's own by-value operand, moved once
    return ir::TensorIr{env_.template hold<Kind>(std::move(owned.template get<K>())), {}, {}};
  }
  template <class T> std::vector<ir::TensorIr> operator()(const std::vector<T>& list) {
    std::vector<ir::TensorIr> out;
    out.reserve(list.size());
    for (const T& t : list) out.push_back((*this)(t));
    return out;
  }
  template <class T> std::optional<ir::TensorIr> operator()(const std::optional<T>& t) {
    if (!t) return std::nullopt;
    return (*this)(*t);
  }
  ir::DeviceIr operator()(const RouterDevice<Bs...>& d) {
    env_.hold_device(std::get<K>(d.device));
    return {};
  }

 private:
  RecordEnv<B>& env_;
};

/// Backend K's result type for the router's result type R: tensors as K's primitives, through pairs, optionals,
/// lists and the gradient and update structs; values (TensorData, counts) as they are.
template <class R, size_t K, class... Bs> struct BackendResult { using type = R; };
template <class R, size_t K, class... Bs> using BackendResultT = typename BackendResult<R, K, Bs...>::type;
template <class Kind, size_t K, class... Bs> struct BackendResult<RouterTensor<Kind, Bs...>, K, Bs...> {
  using type = typename RouterTensor<Kind, Bs...>::template Inner<K>;
};
template <class A, class C, size_t K, class... Bs> struct BackendResult<std::pair<A, C>, K, Bs...> {
  using type = std::pair<BackendResultT<A, K, Bs...>, BackendResultT<C, K, Bs...>>;
};
template <class T, size_t K, class... Bs> struct BackendResult<std::optional<T>, K, Bs...> {
  using type = std::optional<BackendResultT<T, K, Bs...>>;
};
template <class T, size_t K, class... Bs> struct BackendResult<std::vector<T>, K, Bs...> {
  using type = std::vector<BackendResultT<T, K, Bs...>>;
};
#define SCORCH_ROUTER_STRUCT_RESULT(S)                                             \
  template <class T, size_t K, class... Bs> struct BackendResult<S<T>, K, Bs...> { \
    using type = S<BackendResultT<T, K, Bs...>>;                                   \
  };
SCORCH_ROUTER_STRUCT_RESULT(ConvGradients)
SCORCH_ROUTER_STRUCT_RESULT(NormGradients)
SCORCH_ROUTER_STRUCT_RESULT(AttentionGradients)
SCORCH_ROUTER_STRUCT_RESULT(AdamUpdate)
SCORCH_ROUTER_STRUCT_RESULT(SgdUpdate)
#undef SCORCH_ROUTER_STRUCT_RESULT

/// Runs op on the backend at position backend: build(ids) makes its record (ir::build), ir::execute runs it there,
/// and its result comes back as the router's R.
template <class R, class... Bs, class Build> R run(size_t backend, const char* op, Build&& build) {
  return at_backend<Bs...>(backend, [&]<size_t K>() -> R {
    using B = Nth<K, Bs...>;
    RecordEnv<B> env;
    ir::OpRecord record(build(RecordIds<K, Bs...>(env)));
    if (!ir::execute<B>(env, record)) throw ValueError(op, "no op of the table has this record (a router bug)");
    return operand::Wrap<R>::template from<At<K>>(env.template take<BackendResultT<R, K, Bs...>>(op));
  });
}

}  // namespace scorch::router

#pragma once
// How Fusion<B> names a pending op's operands in its IR record (InputIds: positions among the node's inputs) and runs
// the record on B when it is not fused (run_pending: ir::execute with the inputs' values).
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "scorch/core/error.h"
#include "scorch/fusion/node.h"
#include "scorch/gen/ir_execute.h"

namespace scorch::fusion {

/// Names a call's tensor operands 1, 2, ... in the order the record builder asks for them (ir::build): the
/// positions, plus one, of the node's inputs, which Stream::record receives in the same order.
class InputIds {
 public:
  template <class T> ir::TensorIr operator()(const T& tensor) { return {++count_, {}, tensor.dtype()}; }

 private:
  uint64_t count_ = 0;
};

/// ir::execute's env over a pending op's input values: operand id k is input k - 1; the one result is kept with
/// the node's kind. Fusion records only ops on plain tensors with one result, so the rest of the interface throws.
template <class B> class InputEnv {
 public:
  InputEnv(Args<B>& args, size_t kind, typename B::Device device) : args_(args), kind_(kind), device_(device) {}

  template <class K> typename K::template Primitive<B> in(const ir::TensorIr& t) {
    return args_.template take<K>(static_cast<size_t>(t.id - 1));
  }
  /// Operand t's shape and dtype (ir::validate reads them).
  ir::Meta meta(const ir::TensorIr& t) const {
    return std::visit([](const auto& p) { return ir::Meta{Shape(p.shape()), DType(p.dtype())}; },
                      args_.values.at(static_cast<size_t>(t.id - 1)).primitive);
  }
  template <class K> std::vector<typename K::template Primitive<B>> list(const std::vector<ir::TensorIr>&) {
    throw unsupported();
  }
  template <class K> std::optional<typename K::template Primitive<B>> optional(const std::optional<ir::TensorIr>&) {
    throw unsupported();
  }
  const typename B::Device& device() const { return device_; }
  template <class Out, class R> bool put(Out&, R result) {
    if constexpr (std::is_same_v<R, typename B::FloatTensor> || std::is_same_v<R, typename B::IntTensor> ||
                  std::is_same_v<R, typename B::BoolTensor>) {
      result_ = value_of(std::move(result));
      return true;
    } else {
      throw unsupported();
    }
  }
  template <class V> bool value(V) { throw unsupported(); }
  template <class... A> void check_size(const A&...) const {}
  void check_broadcast(std::initializer_list<const ir::TensorIr*>) const {}
  template <class... A> void check_matmul(const A&...) const {}
  template <class... A> void check_repeat(const A&...) const {}
  template <class... A> void check_arange(const A&...) const {}

  /// The op's result; throws when the op stored none.
  Value<B> take_result() {
    if (!result_) throw unsupported();
    return std::move(*result_);
  }

 private:
  template <class R> Value<B> value_of(R result) const {
    using FT = typename B::FloatTensor;
    using IT = typename B::IntTensor;
    using BT = typename B::BoolTensor;
    if constexpr (std::is_same_v<FT, IT> && std::is_same_v<FT, BT>) return Value<B>::of_kind(kind_, std::move(result));
    else if constexpr (std::is_same_v<R, FT>) return Value<B>::template of<Float>(std::move(result));
    else if constexpr (std::is_same_v<R, IT>) return Value<B>::template of<Int>(std::move(result));
    else return Value<B>::template of<Bool>(std::move(result));
  }
  static ValueError unsupported() {
    return ValueError("fusion", "a recorded op takes and returns plain tensors (a decorator bug: report it)");
  }

  Args<B>& args_;
  size_t kind_;
  typename B::Device device_;
  std::optional<Value<B>> result_;
};

/// Runs node's pending op on B over args (its inputs' values, in order): its record through ir::execute.
template <class B> Value<B> run_pending(const Node<B>& node, Args<B>& args) {
  ir::OpRecord record = node.pending->record;  // execute moves the record's values out; a failed run may be retried
  InputEnv<B> env(args, node.kind, node.device);
  if (!ir::execute<B>(env, record))
    throw ValueError("fusion", "no op of the table has the record of " + std::string(kOpNames[record.index()]));
  return env.take_result();
}

}  // namespace scorch::fusion

#pragma once
// Fusion<B>'s primitives: a tensor is a node that either holds B's primitive or waits in the stream as an
// op's IR record over other nodes (scorch/fusion/stream.h runs it). Shape, dtype and device are known at once.
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "scorch/backend/kind.h"
#include "scorch/core/scalar.h"
#include "scorch/core/shape.h"
#include "scorch/gen/op_info.h"
#include "scorch/ir/op_record.h"

namespace scorch::fusion {

/// One of B's primitives, tagged with its kind (a backend may use one type for every kind).
template <class B> struct Value {
  std::variant<typename B::FloatTensor, typename B::IntTensor, typename B::BoolTensor> primitive;

  /// p as a value of kind K.
  template <class K> static Value of(typename K::template Primitive<B> p) {
    return {decltype(primitive)(std::in_place_index<K::index>, std::move(p))};
  }
  /// The primitive of kind K (a copy: storage is shared).
  template <class K> typename K::template Primitive<B> get() const { return std::get<K::index>(primitive); }
  /// p as a value of the kind whose index (Float::index, ...) is kind.
  static Value of_kind(size_t kind, typename B::FloatTensor p) requires(
      std::is_same_v<typename B::FloatTensor, typename B::IntTensor>&&
          std::is_same_v<typename B::FloatTensor, typename B::BoolTensor>) {
    return kind == 0 ? of<Float>(std::move(p)) : kind == 1 ? of<Int>(std::move(p)) : of<Bool>(std::move(p));
  }
  /// The primitive of kind K, moved out.
  template <class K> typename K::template Primitive<B> take() { return std::get<K::index>(std::move(primitive)); }
};

/// The operands a recorded op runs on, in its table order.
template <class B> struct Args {
  std::vector<Value<B>> values;
  template <class K> typename K::template Primitive<B> take(size_t i) { return values[i].template take<K>(); }
};

template <class B> struct Node;
using NodeCount = uint32_t;

/// An op waiting in the stream: elementwise, a reduction over its input's graph (and ops fused after it), or a
/// product heading a graph.
template <class B> struct PendingOp {
  /// The op and its arguments; its tensor operands name positions among inputs (ids 1, 2, ...: InputIds).
  ir::OpRecord record;
  std::vector<std::shared_ptr<Node<B>>> inputs;
  NodeCount chain = 1;  // ops waiting in this node's graph (counting shared ones once per path): bounds its size
  std::optional<size_t> reduce_dim{};  // set for a reduction (along this dim of its one input)
  bool head = false;  // opens its program (a product): runs on B first unless the executor folds its readers in
  std::weak_ptr<Node<B>> after{};  // a reduction (itself) and the ops fused after it: that reduction's node

  /// The op the record is of.
  OpId op() const { return record.op(); }
};

/// A tensor of `Fusion<B>`: its value, or the op that will compute it.
template <class B> struct Node {
  Shape shape;
  DType dtype = DType::F32;
  typename B::Device device{};
  size_t kind = 0;  // its kind's index (Float::index, Int::index, Bool::index)
  std::optional<Value<B>> value;
  std::unique_ptr<PendingOp<B>> pending;
};

/// `Fusion<B>`'s primitive of kind K: a shared node.
template <class B, class K> class FusionTensor {
 public:
  FusionTensor() = default;
  explicit FusionTensor(std::shared_ptr<Node<B>> n) : node(std::move(n)) {}
  /// B's primitive p, already computed.
  static FusionTensor wrap(typename K::template Primitive<B> p) {
    auto n = std::make_shared<Node<B>>();
    n->shape = p.shape();
    n->dtype = p.dtype();
    n->device = p.device();
    n->kind = K::index;
    n->value = Value<B>::template of<K>(std::move(p));
    return FusionTensor(std::move(n));
  }

  // A default-constructed tensor (no node) reports what B's default primitive reports.
  const Shape& shape() const { return node ? node->shape : empty().shape(); }
  DType dtype() const { return node ? node->dtype : empty().dtype(); }
  typename B::Device device() const { return node ? node->device : empty().device(); }
  /// True while the value waits in the stream.
  bool is_pending() const { return node && node->pending != nullptr; }

  /// B's default primitive of kind K.
  static const typename K::template Primitive<B>& empty() {
    static const typename K::template Primitive<B> p{};
    return p;
  }

  std::shared_ptr<Node<B>> node;
};

}  // namespace scorch::fusion

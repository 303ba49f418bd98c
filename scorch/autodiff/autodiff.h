#pragma once
// Autodiff<B>: the backend decorator that adds backpropagation to any backend B. Float
// primitives carry a graph node; int and bool primitives and ops are B's own. backward()
// returns a Gradients container; nothing is stored on the tensors. Every op of the table is
// written out in gen/autodiff_ops.h (from op_table.txt), so no op of B is inherited unrecorded.
#include <optional>
#include <string>

#include "scorch/autodiff/backward.h"
#include "scorch/backend/graph_capture.h"
#include "scorch/autodiff/checkpointing.h"
#include "scorch/autodiff/ops/basic_ops.h"
#include "scorch/autodiff/ops/layout_ops.h"
#include "scorch/autodiff/ops/module_ops.h"
#include "scorch/autodiff/ops/reduce_ops.h"
#include "scorch/autodiff/ops/unary_ops.h"
#include "scorch/gen/autodiff_ops.h"

namespace scorch {

using autodiff::BalancedCheckpointing;
using autodiff::CheckpointingStrategy;
using autodiff::NoCheckpointing;

namespace autodiff {
/// `Autodiff<B>`'s float op groups under one name (module ops stay in `ModuleOps<B>`).
template <class B> struct TensorOps : BasicOps<B>, UnaryOps<B>, ReduceOps<B>, LayoutOps<B> {};
}  // namespace autodiff

/// B with gradients: `Autodiff<Cpu>` trains, Cpu (its InnerBackend) runs inference.
template <class B> struct Autodiff : autodiff::GeneratedOps<B> {
  using InnerBackend = B;
  using FloatTensor = autodiff::AutodiffTensor<B>;
  using IntTensor = typename B::IntTensor;
  using BoolTensor = typename B::BoolTensor;
  using Device = typename B::Device;
  using Gradients = autodiff::Gradients<B>;

  /// "autodiff<" + B::name() + ">".
  static std::string name() { return "autodiff<" + B::name() + ">"; }
  /// Seeds B's random stream.
  static void seed(uint64_t s) { B::seed(s); }
  /// Waits for B's queued work on device.
  static void sync(const Device& device) { B::sync(device); }

  // ---- backpropagation
  /// Gradients of every tensor that keeps its gradient, seeded with ones at t.
  static Gradients backward(const FloatTensor& t) { return autodiff::run_backward<B>(t); }
  /// t's gradient in grads, if it has one.
  static std::optional<typename B::FloatTensor> grad(const FloatTensor& t, const Gradients& grads) {
    return t.node ? grads.get(t.node->id()) : std::nullopt;
  }
  /// Takes t's gradient out of grads.
  static std::optional<typename B::FloatTensor> grad_remove(const FloatTensor& t, Gradients& grads) {
    return t.node ? grads.remove(t.node->id()) : std::nullopt;
  }
  /// Sets t's gradient in grads (t must be tracked).
  static void grad_replace(const FloatTensor& t, Gradients& grads, typename B::FloatTensor grad) {
    if (!t.node) throw ValueError("grad_replace", "the tensor is not tracked");
    grads.replace(t.node->id(), std::move(grad));
  }
  /// The inner primitive, without the graph.
  static typename B::FloatTensor inner(const FloatTensor& t) { return t.primitive; }
  /// An untracked tensor around an inner primitive.
  static FloatTensor from_inner(typename B::FloatTensor p) { return FloatTensor(std::move(p)); }
  /// t cut from its graph.
  static FloatTensor float_detach(const FloatTensor& t) { return FloatTensor(t.primitive); }
  /// true: t becomes a leaf that keeps its gradient (or, if already tracked, keeps it too);
  /// false: t is detached.
  static FloatTensor float_set_require_grad(const FloatTensor& t, bool require) {
    if (!require) return FloatTensor(t.primitive);
    if (t.node) {
      t.node->set_keeps_grad(true);
      return t;
    }
    return FloatTensor(t.primitive, std::make_shared<autodiff::LeafNode<typename B::FloatTensor>>());
  }
  /// True when t keeps its gradient.
  static bool float_is_require_grad(const FloatTensor& t) { return t.node && t.node->keeps_grad(); }

  // ---- gradient checkpointing
  /// The strategy for every device without its own.
  static void set_checkpointing(CheckpointingStrategy s) {
    autodiff::CheckpointingTable<Device>::instance().set_global(s);
  }
  /// The strategy for one device.
  static void set_checkpointing(const Device& device, CheckpointingStrategy s) {
    autodiff::CheckpointingTable<Device>::instance().set(device, s);
  }
  /// NoCheckpointing everywhere.
  static void reset_checkpointing() { autodiff::CheckpointingTable<Device>::instance().reset(); }
};

/// `Autodiff<B>` captures what B captures (its float tensors by their inner primitive).
template <class B> struct GraphCapture<Autodiff<B>> : GraphCapture<B> {
  using GraphCapture<B>::handle;
  static typename GraphCapture<B>::Handle handle(const autodiff::AutodiffTensor<B>& t) {
    return GraphCapture<B>::handle(t.primitive);
  }
};

}  // namespace scorch

/// Declares `Autodiff<B>`'s op groups as compiled elsewhere (autodiff/instantiate/*.cpp built for B).
#define SCORCH_AUTODIFF_EXTERN(B)                                              \
  namespace scorch::autodiff {                                                 \
  extern template class Gradients<B>;                                          \
  extern template Gradients<B> run_backward<B>(const AutodiffTensor<B>& root); \
  extern template struct BasicOps<B>;                                          \
  extern template struct UnaryOps<B>;                                          \
  extern template struct ReduceOps<B>;                                         \
  extern template struct LayoutOps<B>;                                         \
  extern template struct ModuleOps<B>;                                         \
  }                                                                            \
  static_assert(true)

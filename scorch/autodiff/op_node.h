#pragma once
// OpNode: the node of one recorded op. It holds the parents, what the op's backward reads
// (inputs and output, saved or recomputed under checkpointing), the backward function and,
// for recomputable ops, the forward function. BackwardContext is the view a backward gets.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scorch/autodiff/node.h"
#include "scorch/gen/kind_ops.h"
#include "scorch/core/error.h"
#include "scorch/core/shape.h"

namespace scorch::autodiff {

/// Bit of a `needs` mask: the backward reads input i.
constexpr uint32_t in(size_t i) { return uint32_t{1} << i; }
/// Bit of a `needs` mask: the backward reads the op's output.
constexpr uint32_t kOut = uint32_t{1} << 31;

/// Same container kind as L (std::array<_, N> or std::vector<_>) holding T.
template <class L, class T> struct Rebind;
template <class U, size_t N, class T> struct Rebind<std::array<U, N>, T> {
  using type = std::array<T, N>;
  static type make(size_t) { return {}; }
};
template <class U, class T> struct Rebind<std::vector<U>, T> {
  using type = std::vector<T>;
  static type make(size_t n) { return type(n); }
};
template <class L, class T> using RebindT = typename Rebind<L, T>::type;

/// Sums grad over the dims where shape has size 1 and grad does not (undoes broadcasting).
template <class B> typename B::FloatTensor unbroadcast(typename B::FloatTensor grad, const Shape& shape) {
  if (grad.shape() == shape) return grad;
  Shape g = grad.shape();
  for (size_t d = 0; d < shape.rank() && d < g.rank(); ++d)
    if (shape[d] == 1 && g[d] != 1) grad = KindOps<B, Float>::sum_dim(std::move(grad), d);
  if (grad.shape() != shape)
    throw ShapeError("backward", "gradient of shape " + grad.shape().to_string() + " does not reduce to input shape " +
                                     shape.to_string());
  return grad;
}

/// The state every op node has, whatever its forward and backward functions.
template <class B, class List> class OpNodeCore : public NodeBase<typename B::FloatTensor> {
 public:
  using P = typename B::FloatTensor;
  using Ref = NodeRef<P>;

  const char* op_name() const override { return name_; }
  size_t num_parents() const override { return parents_.size(); }
  Ref parent_ref(size_t i) const override { return parents_[i]; }
  NodeBase<P>* parent(size_t i) const override { return parents_[i].get(); }
  bool consumed() const override { return consumed_; }
  uint32_t recompute_depth() const override { return depth_; }
  bool parent_tracked(size_t i) const { return parents_[i] != nullptr; }
  uint64_t parent_id(size_t i) const { return parents_[i]->id(); }
  const Shape& input_shape(size_t i) const { return shapes_[i]; }
  /// Input i as the forward saw it: saved, or recomputed by its producing parent.
  P input(size_t i) const {
    if (saved_[i]) return *saved_[i];
    if (parents_[i] && parents_[i]->produces_value()) return parents_[i]->value();
    throw Error(name_, "backward read input " + std::to_string(i) + ", which the op did not save");
  }

 protected:
  OpNodeCore(const char* name, RebindT<List, Ref> parents, RebindT<List, Shape> shapes)
      : name_(name),
        parents_(std::move(parents)),
        saved_(Rebind<List, std::optional<P>>::make(parents_.size())),
        shapes_(std::move(shapes)) {}
  ~OpNodeCore() override { this->release_parents(parents_); }
  /// Frees everything backward needed; the node stays as a marker of a used graph.
  void release_state() {
    consumed_ = true;
    for (auto& s : saved_) s.reset();
    kept_.reset();
    cache_.reset();
    this->release_parents(parents_);
  }

  const char* name_;
  RebindT<List, Ref> parents_;
  RebindT<List, std::optional<P>> saved_;
  RebindT<List, Shape> shapes_;
  std::optional<P> kept_;   ///< the output, when backward reads it or it closes a checkpoint segment
  std::optional<P> cache_;  ///< the output recomputed during backward
  uint32_t depth_ = 0;
  bool consumed_ = false;

  template <class, class, class, class> friend class OpNode;
  template <class> friend struct Graph;
};

/// What a backward function sees: the incoming gradient, the saved values and where to send
/// each input's gradient.
template <class B, class Core> class BackwardContext {
 public:
  using P = typename B::FloatTensor;
  BackwardContext(Core& node, P grad, GradSink<P>& sink) : node_(node), grad_(std::move(grad)), sink_(sink) {}
  /// The gradient of the op's output.
  const P& grad() const { return grad_; }
  /// Input i (saved in forward, or recomputed).
  P input(size_t i) const { return node_.input(i); }
  /// The op's output (saved in forward, or recomputed).
  P output() const { return node_.output(); }
  /// True when input i needs a gradient.
  bool tracked(size_t i) const { return node_.parent_tracked(i); }
  /// Input i's shape.
  const Shape& shape(size_t i) const { return node_.input_shape(i); }
  /// When input i is tracked, sends f() to it as its gradient, summed over broadcast dims.
  template <class F> void to(size_t i, F&& f) {
    if (!tracked(i)) return;
    sink_.accumulate(node_.parent_id(i), unbroadcast<B>(f(), shape(i)));
  }

 private:
  Core& node_;
  P grad_;
  GradSink<P>& sink_;
};

/// Marks an op whose output cannot be recomputed (it was computed outside the recorder).
struct NoForward {};

/// A recorded op with forward function Fwd (NoForward if not recomputable) and backward Bwd.
template <class B, class List, class Fwd, class Bwd> class OpNode final : public OpNodeCore<B, List> {
  using Core = OpNodeCore<B, List>;
  using P = typename B::FloatTensor;

 public:
  OpNode(const char* name, RebindT<List, NodeRef<P>> parents, RebindT<List, Shape> shapes, std::optional<Fwd> fwd,
         Bwd bwd)
      : Core(name, std::move(parents), std::move(shapes)), fwd_(std::move(fwd)), bwd_(std::move(bwd)) {}

  bool produces_value() const override { return !this->consumed_ && (this->kept_ || fwd_); }
  P value() override { return output(); }
  void drop_cache() override { this->cache_.reset(); }
  /// The output: kept, cached, or recomputed from the inputs.
  P output() {
    if (this->kept_) return *this->kept_;
    if (this->cache_) return *this->cache_;
    if constexpr (!std::is_same_v<Fwd, NoForward>) {
      if (fwd_ && !this->consumed_) {
        auto inputs = Rebind<List, P>::make(this->parents_.size());
        for (size_t i = 0; i < inputs.size(); ++i) inputs[i] = this->input(i);
        this->cache_ = (*fwd_)(std::move(inputs));
        return *this->cache_;
      }
    }
    throw Error(this->name_, "backward read the output, which the op did not save");
  }
  void backward(P grad, GradSink<P>& sink) override {
    BackwardContext<B, OpNode> ctx(*this, std::move(grad), sink);
    (*bwd_)(ctx);
    this->release_state();
    fwd_.reset();
    bwd_.reset();
  }

 private:
  std::optional<Fwd> fwd_;
  std::optional<Bwd> bwd_;
};

}  // namespace scorch::autodiff

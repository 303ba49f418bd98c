#pragma once
// Graph<B>: the one helper every differentiable op of Autodiff<B> goes through. It runs the
// forward on the inner backend; when an input is tracked it builds the op's node, saving what
// the backward needs (or, under BalancedCheckpointing, only what cannot be recomputed).
//
//   static FloatTensor float_exp(FloatTensor x) {
//     return R::op("exp", Bound::Memory, std::array{std::move(x)}, {kOut},
//                  [](auto in) { return I::exp(std::move(in[0])); },
//                  [](auto& c) { c.to(0, [&] { return I::mul(c.grad(), c.output()); }); });
//   }
//
// `needs[i]` lists what the gradient of input i reads (in(j) bits, kOut); only tracked inputs'
// needs are saved. A backward sends gradients with c.to(i, f): f runs only if input i is tracked
// and its result is summed over broadcast dims.
#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "scorch/autodiff/autodiff_tensor.h"
#include "scorch/autodiff/checkpointing.h"
#include "scorch/autodiff/op_node.h"

namespace scorch::autodiff {

template <class B> struct Graph {
  using P = typename B::FloatTensor;
  using T = AutodiffTensor<B>;

  /// Runs fwd on the inputs' primitives and records the op when an input is tracked; fwd must
  /// be callable again on the same inputs (it recomputes memory-bound ops under checkpointing).
  template <class List, class Fwd, class Bwd>
  static T op(const char* name, Bound bound, List inputs, RebindT<List, uint32_t> needs, Fwd fwd, Bwd bwd) {
    if (!any_tracked(inputs)) return T(fwd(primitives(std::move(inputs))));
    auto segment = CheckpointingTable<typename B::Device>::instance().balanced_segment(inputs[0].device());
    bool recompute = segment && bound == Bound::Memory;
    using Node = OpNode<B, List, Fwd, Bwd>;
    auto node = std::make_shared<Node>(name, parents(inputs), shapes(inputs),
                                       recompute ? std::optional<Fwd>(fwd) : std::nullopt, std::move(bwd));
    uint32_t need = save_inputs(*node, inputs, needs, segment.has_value(), recompute);
    P out = fwd(primitives(std::move(inputs)));
    finish(*node, out, need, recompute ? *segment : 0);
    return T(std::move(out), std::move(node));
  }

  /// Records an op whose output was already computed (ops with extra outputs such as indices);
  /// it is never recomputed.
  template <class List, class Bwd>
  static T computed(const char* name, const List& inputs, RebindT<List, uint32_t> needs, P out, Bwd bwd) {
    if (!any_tracked(inputs)) return T(std::move(out));
    bool checkpointing =
        CheckpointingTable<typename B::Device>::instance().balanced_segment(inputs[0].device()).has_value();
    using Node = OpNode<B, List, NoForward, Bwd>;
    auto node = std::make_shared<Node>(name, parents(inputs), shapes(inputs), std::nullopt, std::move(bwd));
    uint32_t need = save_inputs(*node, inputs, needs, checkpointing, false);
    finish(*node, out, need, 0);
    return T(std::move(out), std::move(node));
  }

  /// op() for one input.
  template <class Fwd, class Bwd> static T unary(const char* name, Bound bound, T x, uint32_t needs, Fwd fwd, Bwd bwd) {
    return op(name, bound, std::array<T, 1>{std::move(x)}, {needs}, std::move(fwd), std::move(bwd));
  }
  /// op() for two inputs.
  template <class Fwd, class Bwd>
  static T binary(const char* name, Bound bound, T a, T b, std::array<uint32_t, 2> needs, Fwd fwd, Bwd bwd) {
    return op(name, bound, std::array<T, 2>{std::move(a), std::move(b)}, needs, std::move(fwd), std::move(bwd));
  }

  template <class List> static bool any_tracked(const List& inputs) {
    return std::any_of(inputs.begin(), inputs.end(), [](const T& t) { return t.node != nullptr; });
  }

 private:
  template <class List> static auto primitives(List inputs) {
    auto out = Rebind<List, P>::make(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) out[i] = std::move(inputs[i].primitive);
    return out;
  }
  template <class List> static auto parents(const List& inputs) {
    auto out = Rebind<List, NodeRef<P>>::make(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) out[i] = inputs[i].node;
    return out;
  }
  template <class List> static auto shapes(const List& inputs) {
    auto out = Rebind<List, Shape>::make(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) out[i] = inputs[i].shape();
    return out;
  }
  /// Saves the inputs the backward reads (all of them when the op is recomputed), except those
  /// a producing parent can recompute under checkpointing; returns the combined needs mask.
  template <class Node, class List> static uint32_t save_inputs(Node& node, const List& inputs,
                                                                const RebindT<List, uint32_t>& needs,
                                                                bool checkpointing, bool recompute) {
    uint32_t need = 0;
    for (size_t i = 0; i < inputs.size() && i < needs.size(); ++i)
      if (inputs[i].node) need |= needs[i];
    node.depth_ = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!recompute && !(need & in(i))) continue;
      const auto& parent = inputs[i].node;
      if (checkpointing && parent && parent->produces_value()) {
        node.depth_ = std::max(node.depth_, parent->recompute_depth());
        continue;
      }
      node.saved_[i] = inputs[i].primitive;
    }
    return need;
  }
  /// Keeps the output when the backward reads it and it cannot be recomputed, or when it
  /// closes a checkpoint segment.
  template <class Node> static void finish(Node& node, const P& out, uint32_t need, size_t segment) {
    if (segment == 0) {
      if (need & kOut) node.kept_ = out;
      return;
    }
    node.depth_ += 1;
    if (node.depth_ >= segment) {
      node.kept_ = out;
      node.depth_ = 0;
    }
  }
};

}  // namespace scorch::autodiff

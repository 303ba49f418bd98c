#pragma once
// The backward pass: walk the graph from the root, run each node's backward in decreasing id
// order (children before parents), keep the gradients of nodes that keep theirs and free each
// node's saved state as soon as it has run.
#include <algorithm>
#include <atomic>
#include <vector>

#include "scorch/autodiff/autodiff_tensor.h"
#include "scorch/autodiff/gradients.h"
#include "scorch/gen/kind_ops.h"
#include "scorch/core/autocast.h"
#include "scorch/core/error.h"

namespace scorch::autodiff {

/// Every node reachable from root, children first.
template <class P> std::vector<NodeRef<P>> reverse_topological(const NodeRef<P>& root) {
  static std::atomic<uint64_t> epochs{1};
  uint64_t epoch = epochs.fetch_add(1, std::memory_order_relaxed);
  std::vector<NodeRef<P>> order, stack{root};
  root->mark = epoch;
  while (!stack.empty()) {
    NodeRef<P> node = std::move(stack.back());
    stack.pop_back();
    for (size_t i = 0; i < node->num_parents(); ++i) {
      NodeBase<P>* parent = node->parent(i);
      if (!parent || parent->mark == epoch) continue;
      parent->mark = epoch;
      stack.push_back(node->parent_ref(i));
    }
    order.push_back(std::move(node));
  }
  std::sort(order.begin(), order.end(), [](const NodeRef<P>& a, const NodeRef<P>& b) { return a->id() > b->id(); });
  return order;
}

/// Runs backward from root, seeding it with ones (with the loss scale of an active amp::Autocast scope); returns
/// the kept gradients.
template <class B> Gradients<B> run_backward(const AutodiffTensor<B>& root) {
  if (!root.node)
    throw ValueError("backward", "the tensor of shape " + Shape(root.shape()).to_string() +
                                     " is not tracked: no input requires grad (call require_grad() on one)");
  using P = typename B::FloatTensor;
  auto order = reverse_topological<P>(root.node);
  Gradients<B> grads;
  grads.accumulate(root.node->id(), KindOps<B, Float>::full(root.shape(), Scalar(amp::autocast_state().loss_scale),
                                                            root.device(), root.dtype()));
  for (auto& node : order) {
    std::optional<P> grad = node->keeps_grad() ? grads.get(node->id()) : grads.remove(node->id());
    if (grad && node->consumed())
      throw ValueError("backward",
                       std::string("the graph through op '") + node->op_name() +
                           "' was already used by an earlier backward(); add the losses and call backward() once");
    if (grad && node->keeps_grad() && node->num_parents() == 0)  // a leaf: nothing adds to its gradient any more
      if (auto* observer = leaf_gradient_observer<P>()) observer->leaf_ready(node->id(), *grad);
    if (grad) node->backward(std::move(*grad), grads);
    else node->drop_cache();
    node.reset();
  }
  return grads;
}

}  // namespace scorch::autodiff

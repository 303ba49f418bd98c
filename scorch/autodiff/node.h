#pragma once
// Graph nodes of Autodiff<B>. A tracked float tensor points at the node that produced it; a
// node owns its parents, so a graph lives exactly as long as some tensor (or a later node)
// can reach it, and is freed without a global registry. Destruction is iterative, so a chain
// of a million ops does not overflow the stack.
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace scorch::autodiff {

/// Nodes alive in this process (for leak tests and memory statistics).
inline std::atomic<int64_t>& live_node_count() {
  static std::atomic<int64_t> count{0};
  return count;
}
inline int64_t live_nodes() { return live_node_count().load(std::memory_order_relaxed); }

/// A fresh node id; ids grow, so every node's id is larger than its parents'.
inline uint64_t next_node_id() {
  static std::atomic<uint64_t> counter{1};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

template <class P> class NodeBase;
template <class P> using NodeRef = std::shared_ptr<NodeBase<P>>;

/// Where a backward step sends the gradient of one parent.
template <class P> class GradSink {
 public:
  virtual ~GradSink() = default;
  /// Adds grad to the gradient of node id (the first registration stores it).
  virtual void accumulate(uint64_t id, P grad) = 0;
};

namespace detail {
/// Parents waiting to be released, drained iteratively by the first destructor on the stack.
template <class P> struct ReleaseQueue {
  std::vector<NodeRef<P>> pending;
  bool draining = false;
};
template <class P> ReleaseQueue<P>& release_queue() {
  thread_local ReleaseQueue<P> queue;
  return queue;
}
}  // namespace detail

/// A node of the graph: a leaf (a tensor that requires grad) or an op's output.
template <class P> class NodeBase {
 public:
  NodeBase() { live_node_count().fetch_add(1, std::memory_order_relaxed); }
  NodeBase(const NodeBase&) = delete;
  NodeBase& operator=(const NodeBase&) = delete;
  virtual ~NodeBase() { live_node_count().fetch_sub(1, std::memory_order_relaxed); }

  /// Unique, and larger than every parent's id.
  uint64_t id() const { return id_; }
  /// True for leaves made by require_grad and for nodes whose gradient the user asked to keep.
  bool keeps_grad() const { return keeps_grad_; }
  void set_keeps_grad(bool keep) { keeps_grad_ = keep; }
  /// The op that made this node ("leaf" for leaves).
  virtual const char* op_name() const { return "leaf"; }
  /// Parents (null entries are untracked inputs); empty once the node ran its backward.
  virtual size_t num_parents() const { return 0; }
  virtual NodeBase* parent(size_t) const { return nullptr; }
  virtual NodeRef<P> parent_ref(size_t) const { return nullptr; }
  /// True once backward consumed this node's saved state.
  virtual bool consumed() const { return false; }
  /// Sends grad (the gradient of this node's output) to the parents, then frees saved state.
  virtual void backward(P grad, GradSink<P>& sink) {}
  /// True when value() can give this node's output (kept, or recomputed from its parents).
  virtual bool produces_value() const { return false; }
  /// This node's output, kept or recomputed (under checkpointing).
  virtual P value() { return P{}; }
  /// Drops a value recomputed during backward.
  virtual void drop_cache() {}
  /// Ops since the last kept value on the longest recompute path (checkpointing segments).
  virtual uint32_t recompute_depth() const { return 0; }

  /// Graph walks mark nodes with the walk's epoch.
  uint64_t mark = 0;

 protected:
  /// Hands the parents to the release queue so deep graphs are freed iteratively.
  template <class Range> static void release_parents(Range& parents) {
    auto& q = detail::release_queue<P>();
    for (auto& p : parents)
      if (p) q.pending.push_back(std::move(p));
    if (q.draining) return;
    q.draining = true;
    while (!q.pending.empty()) {
      NodeRef<P> last = std::move(q.pending.back());
      q.pending.pop_back();
      last.reset();  // may push this node's parents
    }
    q.draining = false;
  }

 private:
  uint64_t id_ = next_node_id();
  bool keeps_grad_ = false;
};

/// Told of each leaf's gradient as soon as backward has finished it (a data-parallel reducer starts summing it
/// across ranks while the rest of the backward pass runs).
template <class P> class LeafGradientObserver {
 public:
  virtual ~LeafGradientObserver() = default;
  /// grad is the final gradient of leaf node id in this backward pass.
  virtual void leaf_ready(uint64_t id, const P& grad) = 0;
};
/// The observer of this thread's backward passes (null: none).
template <class P> LeafGradientObserver<P>*& leaf_gradient_observer() {
  thread_local LeafGradientObserver<P>* observer = nullptr;
  return observer;
}

/// A tensor created by require_grad: it has no parents and keeps its gradient.
template <class P> class LeafNode final : public NodeBase<P> {
 public:
  LeafNode() { this->set_keeps_grad(true); }
};

}  // namespace scorch::autodiff

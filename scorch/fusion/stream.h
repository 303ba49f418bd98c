#pragma once
// The op stream of Fusion<B>: elementwise ops are recorded as pending nodes and return at once; a value is
// computed when something needs it (reading data, an op that is not elementwise, a chain reaching
// kMaxChain ops, a broadcast of a pending value, B's sync), together with every other waiting op of its graph,
// as one Program run by Executor<B>. Intermediates no handle holds are never written to memory.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "scorch/backend/module_options.h"
#include "scorch/fusion/program.h"

namespace scorch::fusion {

/// Ops a pending graph may hold before its inputs are computed (bounds program size and held memory).
inline constexpr NodeCount kMaxChain = 64;

template <class B> class Stream {
 public:
  using NodePtr = std::shared_ptr<Node<B>>;

  /// A pending node of kind K for record's op over inputs (shape: their broadcast; the record names them by
  /// InputIds), run later, fused or by run_pending.
  template <class K> static NodePtr record(std::vector<NodePtr> inputs, DType dtype, ir::OpRecord record) {
    std::lock_guard lock(state().mutex);
    const OpId op = record.op();
    Shape shape = inputs.front()->shape;
    for (size_t i = 1; i < inputs.size(); ++i)
      shape = broadcast_shapes(kOpNames[static_cast<size_t>(op)].data(), shape, inputs[i]->shape);
    const std::shared_ptr<Node<B>> after = fused_after(inputs, shape);
    NodeCount chain = 1;
    for (auto& in : inputs) {
      // A pending input of another shape (broadcast), a long chain or a reduction is computed first: programs
      // keep one shape, and a reduction closes its program unless this op is fused after it.
      if (in->pending && !after &&
          (in->shape != shape || in->pending->chain >= kMaxChain || in->pending->reduce_dim || closes(*in)))
        compute(in);
      if (in->pending) chain += in->pending->chain;
    }
    auto node = std::make_shared<Node<B>>();
    node->shape = shape;
    node->dtype = dtype;
    node->kind = K::index;
    node->device = inputs.front()->device;
    node->pending.reset(new PendingOp<B>{std::move(record), std::move(inputs), std::min(chain, kMaxChain)});
    node->pending->after = after;
    remember(node);
    return node;
  }

  /// A pending node of kind K for record's reduction along dim of input (shape: input's with dim kept as 1 when
  /// keep_dim, else input's), run later; nullptr when `Executor<B>` does not fuse reductions or input is not
  /// pending (then there is nothing to fuse: the caller runs the op at once).
  template <class K>
  static NodePtr record_reduction(const NodePtr& input, size_t dim, bool keep_dim, ir::OpRecord record) {
    if constexpr (!Executor<B>::kFusesReductions) {
      return nullptr;
    } else {
      std::lock_guard lock(state().mutex);
      // An empty dim runs at once: B reports what it cannot reduce (max/min) when the op is called.
      if (!input || !input->pending || dim >= input->shape.rank() || input->shape[dim] == 0) return nullptr;
      if (closes(*input) || input->pending->chain >= kMaxChain) return nullptr;
      auto node = std::make_shared<Node<B>>();
      node->shape = input->shape;
      if (keep_dim) node->shape[dim] = 1;
      node->dtype = input->dtype;
      node->kind = K::index;
      node->device = input->device;
      node->pending.reset(
          new PendingOp<B>{std::move(record), {input}, static_cast<NodeCount>(input->pending->chain + 1), dim});
      node->pending->after = node;
      remember(node);
      return node;
    }
  }

  /// A pending node of kind K heading its own program: record's op over computed inputs (pending ones are computed
  /// first), of shape and dtype, run later by run_pending, or by `Executor<B>::run_head` together with the
  /// elementwise ops reading it.
  template <class K>
  static NodePtr record_head(std::vector<NodePtr> inputs, Shape shape, DType dtype, ir::OpRecord record) {
    std::lock_guard lock(state().mutex);
    for (auto& in : inputs)
      if (in->pending) run_graph({in});
    auto node = std::make_shared<Node<B>>();
    node->shape = std::move(shape);
    node->dtype = dtype;
    node->kind = K::index;
    node->device = inputs.front()->device;
    node->pending.reset(new PendingOp<B>{std::move(record), std::move(inputs), 1});
    node->pending->head = true;
    remember(node);
    return node;
  }

  /// node's value, computing it (and its graph's other waiting ops) first.
  static const Value<B>& compute(const NodePtr& node) {
    std::lock_guard lock(state().mutex);
    if (node->pending) run_graph({node});
    return *node->value;
  }

  /// Computes every pending value that a handle still holds.
  static void flush() {
    std::lock_guard lock(state().mutex);
    // Each reduction, with the ops fused after it, is its own program; only those are held meanwhile, so the
    // intermediates of their graphs stay unheld (not outputs).
    std::vector<std::pair<const Node<B>*, std::vector<NodePtr>>> reductions;
    for (auto& weak : state().live) {
      auto node = weak.lock();
      const Node<B>* reduction = node && node->pending ? node->pending->after.lock().get() : nullptr;
      if (!reduction) continue;
      auto group = std::find_if(reductions.begin(), reductions.end(), [&](auto& g) { return g.first == reduction; });
      if (group == reductions.end()) reductions.push_back({reduction, {std::move(node)}});
      else group->second.push_back(std::move(node));
    }
    for (auto& group : reductions) run_graph(std::move(group.second));
    reductions.clear();
    // One program per shape: record() computes a pending input of another shape first, so roots of different
    // shapes share no waiting op, and a program of one shape runs fused (a mixed one would run op by op).
    std::vector<std::vector<NodePtr>> groups;
    for (auto& weak : state().live) {
      auto node = weak.lock();
      if (!node || !node->pending) continue;
      auto group =
          std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.front()->shape == node->shape; });
      if (group == groups.end()) groups.push_back({std::move(node)});
      else group->push_back(std::move(node));
    }
    for (auto& group : groups) run_graph(std::move(group));
    state().live.clear();  // after the runs: a failed run leaves its nodes findable by the next flush
    state().pruned_size = 0;
  }

  /// What the stream has run so far.
  static Stats stats() {
    std::lock_guard lock(state().mutex);
    return state().stats;
  }
  /// Counts an op run at once on B.
  static void count_eager() {
    std::lock_guard lock(state().mutex);
    ++state().stats.eager_ops;
  }

 private:
  struct State {
    std::recursive_mutex mutex;  // compute may run while record holds it (a broadcast input)
    std::vector<std::weak_ptr<Node<B>>> live;
    size_t pruned_size = 0;
    Stats stats;
  };
  static State& state() {
    static State s;
    return s;
  }
  /// Adds node to the live list, pruning the list when it has doubled.
  static void remember(const NodePtr& node) {
    state().live.push_back(node);
    if (state().live.size() >= 2 * state().pruned_size + 1024) prune();
  }
  /// True when node is a pending reduction or a pending op fused after one (whose reduction is still alive).
  static bool closes(const Node<B>& node) { return node.pending && !node.pending->after.expired(); }
  static void prune() {
    auto& live = state().live;
    live.erase(std::remove_if(live.begin(), live.end(),
                              [](const auto& w) {
                                auto n = w.lock();
                                return !n || !n->pending;
                              }),
               live.end());
    state().pruned_size = live.size();
  }

  /// True when op may be fused after the reduction its inputs read: every input is that reduction or an op fused
  /// after it, of shape, and the executor fuses ops after such a reduction. Returns the reduction, else nullptr.
  static std::shared_ptr<Node<B>> fused_after(const std::vector<NodePtr>& inputs, const Shape& shape) {
    // The reduction may be gone (an op reading another fused op keeps it only through that op) or computed.
    auto after = inputs.front()->pending ? inputs.front()->pending->after.lock() : nullptr;
    if (!after || !after->pending || !Executor<B>::fuses_after(after->pending->op())) return nullptr;
    for (auto& in : inputs)
      if (!in->pending || in->pending->after.lock() != after || in->shape != shape || in->pending->chain >= kMaxChain)
        return nullptr;
    return after;
  }

  /// Runs the pending graph under roots as one program. A node becomes an output when something outside the
  /// graph holds it: a handle, a pending op elsewhere, or a root's caller. Callers hand their roots over (moved),
  /// since every other reference to a node makes it an output. A product heading the graph runs first,
  /// with the readers its executor folds in; the rest then runs as its own program.
  static void run_graph(std::vector<NodePtr> roots) {
    // A computed root needs nothing; a root only roots holds is needed by no one (an intermediate of a product's
    // folded chain, or one whose readers already ran).
    // Dropping one may leave another unheld (its reader): repeat until none goes.
    for (size_t before = 0; before != roots.size();) {
      before = roots.size();
      roots.erase(std::remove_if(roots.begin(), roots.end(),
                                 [](const NodePtr& r) { return !r->pending || r.use_count() == 1; }),
                  roots.end());
    }
    if (roots.empty()) return;
    Program<B> program;
    std::unordered_map<const Node<B>*, long> holders;  // references from inside the graph (and from roots)
    std::unordered_map<const Node<B>*, long> counts;   // each op's use_count, from one of its references
    std::unordered_map<const Node<B>*, bool> seen;
    auto visit = [&](auto& self, const NodePtr& ref) -> void {
      Node<B>* n = ref.get();
      if (!n->pending) {
        if (!seen[n]) program.leaves.push_back(n);
        seen[n] = true;
        return;
      }
      counts[n] = ref.use_count();
      if (seen[n]) return;
      seen[n] = true;
      for (auto& in : n->pending->inputs) {
        if (in->pending) ++holders[in.get()];
        self(self, in);
      }
      program.position[n] = program.ops.size();
      program.ops.push_back(n);
    };
    for (auto& root : roots) {
      ++holders[root.get()];
      visit(visit, root);
    }
    for (size_t i = 0; i < program.ops.size(); ++i)
      if (counts[program.ops[i]] > holders[program.ops[i]]) program.outputs.push_back(i);
    if (roots.size() == 1 && !std::count(program.outputs.begin(), program.outputs.end(), program.ops.size() - 1))
      program.outputs.push_back(program.ops.size() - 1);
    if (run_head(program)) return run_graph(std::move(roots));
    if (const Node<B>* reduction = program.reduction()) {
      // A reduction with ops fused after it is always stored (its kernel writes it before them).
      size_t at = program.position.at(reduction);
      if (!std::count(program.outputs.begin(), program.outputs.end(), at)) {
        program.outputs.push_back(at);
        std::sort(program.outputs.begin(), program.outputs.end());
      }
      return run_reduction(program, roots);
    }
    store(program, Executor<B>::run(program, state().stats));
  }

  /// Runs the program's first head with the chain of ops after it that read only it (each the one reader of the
  /// one before, none an output) as far as `Executor<B>::run_head` folds them in; false when it has no head.
  static bool run_head(const Program<B>& program) {
    auto head = std::find_if(program.ops.begin(), program.ops.end(), [](auto* n) { return n->pending->head; });
    if (head == program.ops.end()) return false;
    std::vector<size_t> uses = count_uses(program);
    std::vector<Node<B>*> chain{*head};
    for (size_t at = static_cast<size_t>(head - program.ops.begin()); uses[at] == 1;) {
      auto reader = std::find_if(program.ops.begin() + static_cast<long>(at) + 1, program.ops.end(), [&](auto* n) {
        return std::any_of(n->pending->inputs.begin(), n->pending->inputs.end(),
                           [&](const NodePtr& in) { return in.get() == program.ops[at]; });
      });
      if (reader == program.ops.end() || (*reader)->pending->head || closes(**reader)) break;
      chain.push_back(*reader);
      at = static_cast<size_t>(reader - program.ops.begin());
    }
    auto [folded, value] = Executor<B>::run_head(program, chain, state().stats);
    Program<B> done;  // the folded ops as a program of one output, for store
    done.ops.assign(chain.begin(), chain.begin() + static_cast<long>(folded));
    done.outputs = {folded - 1};
    std::vector<Value<B>> values;
    values.push_back(std::move(value));
    store(done, std::move(values));
    return true;
  }

  /// Prints "fusion program [shape]: op op ..." to stderr (SCORCH_FUSION_TRACE).
  static void print_program(const Program<B>& program) {
    std::string line = "fusion program " + program.ops.back()->shape.to_string() + ":";
    for (const Node<B>* n : program.ops) line += " " + std::string(kOpNames[static_cast<size_t>(n->pending->op())]);
    std::fprintf(stderr, "%s\n", line.c_str());
  }

  /// Runs a program with a reduction fused, or else computes the reduction first (its input fused as elementwise,
  /// then the reduction alone) and then the ops fused after it as their own program.
  static void run_reduction(Program<B>& program, std::vector<NodePtr>& roots) {
    if (auto values = Executor<B>::run_reduction(program, state().stats)) return store(program, std::move(*values));
    Node<B>* reduction = const_cast<Node<B>*>(program.reduction());
    if (reduction != program.ops.back()) {
      for (auto* op : program.ops)
        for (auto& in : op->pending->inputs)
          if (in.get() == reduction) {
            run_graph({NodePtr(in)});
            return run_graph(std::move(roots));
          }
    }
    const NodePtr& input = reduction->pending->inputs.front();
    if (input->pending) run_graph({input});
    Program<B> alone;
    alone.ops = {reduction};
    alone.position[reduction] = 0;
    alone.leaves = {input.get()};
    alone.outputs = {0};
    store(alone, run_unfused(alone));
  }

  /// Gives the program's outputs their values and releases their pending ops.
  static void store(const Program<B>& program, std::vector<Value<B>> values) {
    static const bool trace = std::getenv("SCORCH_FUSION_TRACE") != nullptr;
    if (trace) print_program(program);
    auto& stats = state().stats;
    ++stats.programs;
    stats.ops += program.ops.size();
    std::vector<std::unique_ptr<PendingOp<B>>> done;  // freed last: they hold the graph's intermediates
    for (size_t k = 0; k < program.outputs.size(); ++k) {
      Node<B>* n = program.ops[program.outputs[k]];
      n->value = std::move(values[k]);
      done.push_back(std::move(n->pending));
    }
  }
};

/// B's primitive of x, computing it first when it waits in the stream.
template <class B, class K> typename K::template Primitive<B> inner(FusionTensor<B, K> x) {
  if (!x.node) return FusionTensor<B, K>::empty();
  return Stream<B>::compute(x.node).template get<K>();
}
template <class B, class K>
std::optional<typename K::template Primitive<B>> inner(const std::optional<FusionTensor<B, K>>& x) {
  if (!x) return std::nullopt;
  return inner(*x);
}
template <class B, class K> std::vector<typename K::template Primitive<B>> inner(std::vector<FusionTensor<B, K>> xs) {
  std::vector<typename K::template Primitive<B>> out;
  out.reserve(xs.size());
  for (auto& x : xs) out.push_back(inner(std::move(x)));
  return out;
}

/// The shape of a·b when a product head may record it (two float matrices of one dtype on one device, inner
/// extents equal, none zero), else nullopt (B runs it at once and reports what is wrong).
template <class B>
std::optional<Shape> product_shape(const FusionTensor<B, Float>& a, const FusionTensor<B, Float>& b) {
  if (!a.node || !b.node || a.shape().rank() != 2 || b.shape().rank() != 2 || a.shape()[1] != b.shape()[0])
    return std::nullopt;
  if (a.dtype() != b.dtype() || !(a.device() == b.device()) || a.shape().num_elements() == 0 ||
      b.shape().num_elements() == 0)
    return std::nullopt;
  return Shape{a.shape()[0], b.shape()[1]};
}

/// B's pair result as `Fusion<B>`'s.
template <class P, class Q, class Pair> std::pair<P, Q> wrap_pair(Pair r) {
  return {P::wrap(std::move(r.first)), Q::wrap(std::move(r.second))};
}
/// B's optional primitive as `Fusion<B>`'s.
template <class P, class Q> std::optional<P> wrap_optional(std::optional<Q> q) {
  return q ? std::optional<P>(P::wrap(std::move(*q))) : std::nullopt;
}
/// B's convolution gradients as `Fusion<B>`'s.
template <class P, class Q> ConvGradients<P> wrap_grads(ConvGradients<Q> g) {
  return {P::wrap(std::move(g.x)), P::wrap(std::move(g.weight)), wrap_optional<P>(std::move(g.bias))};
}
/// B's attention gradients as `Fusion<B>`'s.
template <class P, class Q> AttentionGradients<P> wrap_grads(AttentionGradients<Q> g) {
  return {P::wrap(std::move(g.q)), P::wrap(std::move(g.k)), P::wrap(std::move(g.v))};
}
/// B's Adam update as `Fusion<B>`'s.
template <class P, class Q> AdamUpdate<P> wrap_grads(AdamUpdate<Q> u) {
  return {P::wrap(std::move(u.param)), P::wrap(std::move(u.moment_1)), P::wrap(std::move(u.moment_2))};
}
/// B's normalization gradients as `Fusion<B>`'s.
template <class P, class Q> NormGradients<P> wrap_grads(NormGradients<Q> g) {
  return {P::wrap(std::move(g.x)), wrap_optional<P>(std::move(g.gamma)), wrap_optional<P>(std::move(g.beta))};
}
/// B's SGD update as `Fusion<B>`'s.
template <class P, class Q> SgdUpdate<P> wrap_grads(SgdUpdate<Q> u) {
  return {P::wrap(std::move(u.param)), wrap_optional<P>(std::move(u.velocity))};
}
/// B's list of updates as `Fusion<B>`'s.
template <class P, template <class> class R, class Q> std::vector<R<P>> wrap_each(std::vector<R<Q>> results) {
  std::vector<R<P>> out;
  out.reserve(results.size());
  for (auto& r : results) out.push_back(wrap_grads<P>(std::move(r)));
  return out;
}

}  // namespace scorch::fusion

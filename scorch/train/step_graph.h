#pragma once
// StepGraph: a training or inference step captured once and replayed with one launch (CUDA Graphs on the Cuda stacks,
// what torch.compile's reduce-overhead does). Opt-in: the caller names the step's inputs and the state it carries
// (module parameters, optimizer moments); each replay copies new inputs into the captured ones, and the graph ends
// by copying the new state onto the captured state, so the caller's handles stay valid from step to step.
// Backends that cannot capture (Cpu, LibTorch) run the step each time. See scorch/fusion/README.md.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "scorch/backend/graph_capture.h"
#include "scorch/core/error.h"
#include "scorch/module/module.h"
#include "scorch/optim/optimizer.h"

namespace scorch::train {

/// The tensors a step reads or carries, in a fixed order, with their shapes and dtypes.
template <class B> class StepTensors {
 public:
  using Handle = typename GraphCapture<B>::Handle;

  /// Adds t, a tensor of B or of B's inner backend (optimizer states live there).
  template <class T> StepTensors& add(const T& t) {
    add_primitive<typename T::Backend>(t.primitive(), t.shape(), t.dtype());
    return *this;
  }
  /// Adds every parameter of m, depth first in field order.
  template <Module M> StepTensors& add_module(const M& m) {
    ParamAdder adder{*this};
    visit_module(m, adder);
    return *this;
  }
  /// Adds every state tensor of optimizer kept on B's inner backend, by parameter id then name.
  template <class Rule> StepTensors& add_optimizer(const optim::OptimizerAdaptor<Rule>& optimizer) {
    using Inner = typename optim::detail::InnerOf<B>::type;
    optimizer.template visit_states<Inner>([&](ParamId, const std::string&, const typename Inner::FloatTensor& t) {
      add_primitive<Inner>(t, t.shape(), t.dtype());
    });
    return *this;
  }

  const std::vector<Handle>& handles() const { return handles_; }
  /// Shapes and dtypes, one "dtype[dims]" per tensor: equal signatures can share a captured graph.
  const std::string& signature() const { return signature_; }
  size_t size() const { return handles_.size(); }

 private:
  template <class TB, class P> void add_primitive(const P& p, const Shape& shape, DType dtype) {
    static_assert(std::is_same_v<typename GraphCapture<TB>::Handle, Handle>, "a tensor of another device stack");
    if constexpr (GraphCapture<B>::kSupported) handles_.push_back(GraphCapture<TB>::handle(p));
    else handles_.emplace_back();
    signature_ += std::string(dtype_name(dtype)) + shape.to_string() + ";";
  }
  struct ParamAdder {
    StepTensors& self;
    template <class P> void visit(const std::string&, const P& p) {
      if constexpr (!std::is_void_v<typename P::Quantized>)
        if (p.is_quantized()) {  // the stored integers and parameters, not a dequantized copy
          const auto& q = p.quantized();
          self.add(q.values), self.add(q.scales), self.add(q.offsets);
          return;
        }
      self.add(p.val());
    }
  };
  std::vector<Handle> handles_;
  std::string signature_;
};

/// What a StepGraph did so far.
struct StepGraphStats {
  uint64_t eager_steps = 0;  ///< steps that ran the body (warm-up, fallbacks, backends without capture)
  uint64_t captures = 0;     ///< graphs captured (each launched once at once)
  uint64_t replays = 0;      ///< graph launches, the capture steps' included
  uint64_t fallbacks = 0;    ///< steps run eagerly because their inputs' shapes differed from the graph's
  size_t graph_kernels = 0;  ///< kernels in the current graph
  std::string eager_reason;  ///< why every later step runs eagerly (empty while capturing works)
};

/// Captures a step on its first run after warm-up and replays it while its inputs keep their shapes.
template <class B> class StepGraph {
 public:
  using Capture = GraphCapture<B>;
  using Handle = typename Capture::Handle;
  using Tensors = StepTensors<B>;

  /// warmup_steps run eagerly first (kernels compile, optimizer states appear) before the capture.
  explicit StepGraph(typename B::Device device = {}, size_t warmup_steps = 1)
      : device_(device), warmup_(warmup_steps) {}

  /// One step. body runs the step on the tensors named by inputs (reading them from its captures) and leaves its
  /// results in the caller's variables; state() lists what the step carries, before and after it (same order, shapes
  /// and dtypes). Replays write the results into the captured step's tensors, which the caller's variables hold, and
  /// copy each step's inputs into the captured step's inputs (those tensors' values change).
  /// host_key lists host values the step bakes in (a learning rate): a change captures again, as does a state of other
  /// shapes. A body run under capture must not read device values (nor make tensors from host data); a new input
  /// shape runs that step eagerly.
  void step(const Tensors& inputs, const std::function<Tensors()>& state, const std::function<void()>& body,
            const std::vector<double>& host_key = {});

  const StepGraphStats& stats() const { return stats_; }
  /// The captured graph (nullptr before the capture or after a failed one).
  const typename Capture::Graph* graph() const { return graph_.get(); }
  /// Forgets the graph: the next step captures again.
  void reset() {
    graph_.reset();
    state_in_.clear();
    state_out_.clear();
    inputs_.clear();
  }
  /// True on stacks that replay graphs (Cuda); elsewhere each step runs its body.
  static constexpr bool captures() { return Capture::kSupported; }

 private:
  void run_eager(const std::function<void()>& body) {
    body();
    ++stats_.eager_steps;
  }
  void capture(const Tensors& inputs, const std::function<Tensors()>& state, const std::function<void()>& body);
  void replay(const Tensors& inputs, const std::function<Tensors()>& state, const std::function<void()>& body);
  /// After a failed capture: the values of before copied into the handles the step left in its state.
  void restore(const Tensors& before, const std::function<Tensors()>& state);
  void launch() {
    graph_->replay();
    ++stats_.replays;
  }

  typename B::Device device_;
  size_t warmup_;
  StepGraphStats stats_;
  std::unique_ptr<typename Capture::Graph> graph_;
  std::string input_signature_, state_signature_;
  std::vector<double> host_key_;
  std::vector<Handle> state_in_, state_out_, inputs_;  // the captured step's tensors, kept alive for its replays
};

template <class B> void StepGraph<B>::step(const Tensors& inputs, const std::function<Tensors()>& state,
                                           const std::function<void()>& body, const std::vector<double>& host_key) {
  if (!Capture::kSupported || !stats_.eager_reason.empty() || stats_.eager_steps < warmup_) return run_eager(body);
  if (graph_ && host_key == host_key_) {
    if (inputs.signature() == input_signature_) return replay(inputs, state, body);
    ++stats_.fallbacks;
    return run_eager(body);
  }
  host_key_ = host_key;
  capture(inputs, state, body);
}

template <class B> void StepGraph<B>::capture(const Tensors& inputs, const std::function<Tensors()>& state,
                                              const std::function<void()>& body) {
  reset();
  Capture::prepare(device_);
  Tensors before = state();
  Capture::prepare(device_);  // listing the state may have queued recorded ops
  Tensors after;
  try {
    graph_ = Capture::capture(device_, [&] {
      StepCaptureScope scope;
      body();
      Capture::prepare(device_);  // recorded ops still reading the old state run before it is overwritten
      after = state();
      if (after.signature() != before.signature()) return;  // no copies: this graph runs once
      for (size_t i = 0; i < after.size(); ++i)
        if (!Capture::same(before.handles()[i], after.handles()[i]))
          Capture::copy(before.handles()[i], after.handles()[i]);
    });
  } catch (const std::exception& e) {
    stats_.eager_reason = std::string("capture failed: ") + e.what();
    restore(before, state);
    throw Error("StepGraph::step",
                "capturing the step failed (a captured step must not read device values); the "
                "state is as before the step, later steps run eagerly: " +
                    std::string(e.what()));
  }
  ++stats_.captures;
  stats_.graph_kernels = graph_->kernels();
  launch();  // the captured step itself
  if (after.signature() != before.signature()) {
    stats_.eager_reason =
        "the step changed its state's shapes (" + before.signature() + " -> " + after.signature() + ")";
    reset();
    return;
  }
  state_in_ = before.handles();
  state_out_ = after.handles();
  inputs_ = inputs.handles();
  input_signature_ = inputs.signature();
  state_signature_ = before.signature();
}

template <class B> void StepGraph<B>::restore(const Tensors& before, const std::function<Tensors()>& state) {
  try {
    Tensors now = state();  // the handles the failed step left, whose values were never computed
    if (now.signature() != before.signature()) return;
    for (size_t i = 0; i < now.size(); ++i)
      if (!Capture::same(now.handles()[i], before.handles()[i])) Capture::copy(now.handles()[i], before.handles()[i]);
  } catch (const std::exception&) {  // the capture's own error is the one to report
  }
}

template <class B> void StepGraph<B>::replay(const Tensors& inputs, const std::function<Tensors()>& state,
                                             const std::function<void()>& body) {
  Capture::prepare(device_);  // recorded ops reading the captured tensors run before the replay overwrites them
  Tensors current = state();
  if (current.signature() != state_signature_) return capture(inputs, state, body);  // a state of other shapes
  for (size_t j = 0; j < inputs_.size(); ++j)
    if (!Capture::same(inputs.handles()[j], inputs_[j])) Capture::copy(inputs_[j], inputs.handles()[j]);
  std::vector<size_t> moved;  // state the caller holds elsewhere (after an eager step): copied in, then back
  for (size_t i = 0; i < current.size(); ++i) {
    const Handle& h = current.handles()[i];
    if (Capture::same(h, state_out_[i]) || Capture::same(h, state_in_[i])) continue;
    Capture::copy(state_in_[i], h);
    moved.push_back(i);
  }
  launch();
  for (size_t i : moved) Capture::copy(current.handles()[i], state_out_[i]);
}

}  // namespace scorch::train

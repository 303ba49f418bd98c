#pragma once
// GraphCapture<B>: how StepGraph (scorch/train/step_graph.h) captures a step on backend B and replays it. This primary
// template captures nothing (the step runs each time); Cuda specializes it (backends/cuda/cuda_backend.h) and the
// decorators forward to their inner backend (fusion/fusion.h, autodiff/autodiff.h).
#include <cstddef>
#include <functional>
#include <memory>
#include <variant>

namespace scorch {

/// True while this thread captures a step for replay: a host value computed now is frozen into the replays.
inline thread_local bool t_step_capture_active = false;
inline bool step_capture_active() { return t_step_capture_active; }
/// Marks this thread as capturing a step while it lives.
struct StepCaptureScope {
  StepCaptureScope() { t_step_capture_active = true; }
  ~StepCaptureScope() { t_step_capture_active = false; }
  StepCaptureScope(const StepCaptureScope&) = delete;
  StepCaptureScope& operator=(const StepCaptureScope&) = delete;
};

/// B cannot capture: StepGraph runs every step.
template <class B> struct GraphCapture {
  static constexpr bool kSupported = false;
  /// Where a tensor's values live on the device.
  using Handle = std::monostate;
  struct Graph {
    void replay() {}
    size_t kernels() const { return 0; }
  };
  template <class P> static Handle handle(const P&) { return {}; }
  /// Queues every op still recorded, so that nothing from before the step lands in its graph.
  static void prepare(const typename B::Device&) {}
  static std::unique_ptr<Graph> capture(const typename B::Device&, const std::function<void()>& fn) {
    fn();
    return std::make_unique<Graph>();
  }
  /// Queues a copy of src's values into dst (same shape and dtype).
  static void copy(const Handle&, const Handle&) {}
  /// True when a and b are the same values in the same place.
  static bool same(const Handle&, const Handle&) { return true; }
};

}  // namespace scorch

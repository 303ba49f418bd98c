#pragma once
// CudaGraph: the work a function queues on a device's stream, captured once and replayed with one launch (the Cuda
// side of StepGraph, scorch/train/step_graph.h). No CUDA header needed.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace scorch::backends::cuda {

/// Work captured from one device's stream; replay() queues all of it again with one graph launch.
class CudaGraph {
 public:
  /// Captures what fn queues on device's stream; nothing runs. Blocks allocated meanwhile come from a pool private to
  /// this graph (kept for its replays while it lives); random ops draw from a device counter each replay advances.
  /// Rethrows what fn throws (an op that waits on the device fails while capturing); throws DeviceError "cuda.graph"
  /// when the capture cannot be made into a graph.
  static std::unique_ptr<CudaGraph> capture(int device, const std::function<void()>& fn);
  ~CudaGraph();
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;

  /// Queues the captured work again: one graph launch on the device's stream (while that stream is itself being
  /// captured, one child-graph node of that capture, which then writes this graph's memory: keep this graph alive
  /// while that one lives).
  void replay();
  /// Kernel nodes in the graph.
  size_t kernels() const;
  /// Each kernel node's function name, demangled without arguments ("generated" for NVRTC kernels).
  std::vector<std::string> kernel_names() const;

 private:
  struct Impl;
  explicit CudaGraph(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace scorch::backends::cuda

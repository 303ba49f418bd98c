#pragma once
// Fusion<B>: the backend decorator that records elementwise ops lazily and runs each computed graph as one
// program (scorch/fusion/README.md): on Cpu block by block in one pass over memory, elsewhere op after op
// until B has a fusing executor. Every op of the table is written out in gen/fusion_ops.h.
#include <cstdint>
#include <string>

#include "scorch/backend/graph_capture.h"
#include "scorch/gen/fusion_ops.h"

namespace scorch {

/// B with lazily recorded, fused elementwise ops; same results as B.
template <class B> struct Fusion : fusion::GeneratedOps<B> {
  using Inner = B;
  using FloatTensor = fusion::FusionTensor<B, Float>;
  using IntTensor = fusion::FusionTensor<B, Int>;
  using BoolTensor = fusion::FusionTensor<B, Bool>;
  using Device = typename B::Device;

  /// "fusion<" + B::name() + ">".
  static std::string name() { return "fusion<" + B::name() + ">"; }
  /// Seeds B's random stream.
  static void seed(uint64_t s) { B::seed(s); }
  /// Runs every recorded op a handle still needs (queued on B, not waited for).
  static void flush() { fusion::Stream<B>::flush(); }
  /// Runs every recorded op a handle still needs, then waits for B's queued work on device.
  static void sync(const Device& device) {
    fusion::Stream<B>::flush();
    B::sync(device);
  }
  /// What the stream has run so far (programs, fused programs, ops).
  static fusion::Stats stats() { return fusion::Stream<B>::stats(); }
};

/// Fusion<B> captures what B captures; recorded ops are run first, and the step's last ones inside the capture.
template <class B> struct GraphCapture<Fusion<B>> : GraphCapture<B> {
  using Inner = GraphCapture<B>;
  template <class K> static typename Inner::Handle handle(const fusion::FusionTensor<B, K>& t) {
    return Inner::handle(fusion::inner(t));
  }
  static void prepare(const typename B::Device& device) {
    Fusion<B>::flush();
    Inner::prepare(device);
  }
  static auto capture(const typename B::Device& device, const std::function<void()>& fn) {
    return Inner::capture(device, [&] {
      fn();
      Fusion<B>::flush();
    });
  }
};

}  // namespace scorch

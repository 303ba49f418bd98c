#pragma once
// Fusion<B>: the backend decorator that records elementwise ops lazily and runs each computed graph as one
// program (scorch/fusion/README.md): on Cpu block by block in one pass over memory, elsewhere op after op
// until B has a fusing executor. Every op of the table is written out in gen/fusion_ops.h.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scorch/backend/graph_capture.h"
#include "scorch/backend/provided/fused_defaults.h"
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

  /// a·b. When B's executor asks for it, a product of two float matrices is recorded as the head of a program, so
  /// the scale, bias, residual and relu after it can run in the product's own kernel.
  static FloatTensor float_matmul(FloatTensor a, FloatTensor b) {
    if constexpr (fusion::Executor<B>::kRecordsProducts) {
      if (auto shape = fusion::product_shape(a, b)) {
        fusion::InputIds in;
        auto record = ir::build::float_matmul(in, a, b);
        return FloatTensor(fusion::Stream<B>::template record_head<Float>({a.node, b.node}, std::move(*shape),
                                                                          a.dtype(), std::move(record)));
      }
    }
    return fusion::GeneratedOps<B>::float_matmul(std::move(a), std::move(b));
  }

  /// x·weight + bias, then relu when asked, as the recorded product, add and relu (backend/provided's composition),
  /// so that the program the product heads folds them, and what follows them, as B's executor can (cuBLASLt's
  /// epilogue on Cuda, one pass on Cpu). The backward stays B's linear_backward.
  static FloatTensor module_linear(FloatTensor x, FloatTensor weight, const std::optional<FloatTensor>& bias,
                                   bool relu) {
    return provided::module_linear<Fusion<B>>(x, weight, bias, relu);
  }

  /// conv(x, w) + bias. When B's executor asks for it, the bias of an f32 or f64 convolution is added by a recorded
  /// op, so it fuses with the activation after it into one pass over the output. An f16/bf16 convolution keeps its
  /// bias: its output rounded to 16 bits before the add would round twice where B (and PyTorch) round once.
  static FloatTensor module_conv(FloatTensor x, FloatTensor w, std::optional<FloatTensor> bias, const ConvSpec& spec) {
    if constexpr (fusion::Executor<B>::kSplitsConvBias) {
      // Anything else (a bias that does not match the output channels included) goes to B, which reports it.
      bool wide = x.dtype() == DType::F32 || x.dtype() == DType::F64;
      if (wide && bias && bias->shape().rank() == 1 && w.shape().rank() >= 3 && w.shape()[0] == bias->shape()[0] &&
          bias->dtype() == x.dtype()) {
        auto y = FloatTensor::wrap(ModuleOpsOf<B>::conv(fusion::inner(x), fusion::inner(w), std::nullopt, spec));
        std::vector<size_t> channels(y.shape().rank(), 1);
        channels[1] = y.shape()[1];
        auto view = fusion::GeneratedOps<B>::float_reshape(std::move(*bias), Shape(channels));
        return fusion::GeneratedOps<B>::float_add(std::move(y), std::move(view));
      }
    }
    return fusion::GeneratedOps<B>::module_conv(std::move(x), std::move(w), std::move(bias), spec);
  }
};

/// `Fusion<B>` captures what B captures; recorded ops are run first, and the step's last ones inside the capture.
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

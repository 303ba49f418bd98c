#pragma once
// Cuda: Scorch's first-party NVIDIA GPU backend. Every kind uses CudaTensor; CudaKernelOps
// (generated from op_table.txt) binds the table's op names to backends/cuda/kernels. Ops are queued on one stream per
// device and return at once; reading values (into_data) waits for them. Device memory comes from a caching pool
// (runtime.h). Only backends/cuda sources include CUDA headers: using this backend needs no CUDA compiler.
#include <cstdint>
#include <string>

#include "scorch/backend/graph_capture.h"
#include "scorch/backends/cuda/graph.h"
#include "scorch/backends/cuda/kernels/kernels.h"
#include "scorch/backends/cuda/runtime.h"

namespace scorch::backends::cuda {

/// NVIDIA GPUs through the CUDA runtime, cuBLASLt and cuDNN: devices CudaDevice{index}.
struct Cuda : CudaKernelOps {
  using Device = CudaDevice;
  using FloatTensor = CudaTensor;
  using IntTensor = CudaTensor;
  using BoolTensor = CudaTensor;

  /// "cuda".
  static std::string name() { return "cuda"; }
  /// Restarts the Philox random stream: the same seed gives the same random tensors.
  static void seed(uint64_t s) { kernels::seed(s); }
  /// Waits until the device's queued work is done.
  static void sync(const Device& device) { synchronize(device.index); }
  /// One kernel per Adam/AdamW step of a parameter (kernels/optimizer.cu) in place of backend/provided's composition.
  static AdamUpdate<CudaTensor> module_adam_update(CudaTensor param, CudaTensor grad, CudaTensor moment_1,
                                                   CudaTensor moment_2, double lr, double beta_1, double beta_2,
                                                   double epsilon, double weight_decay, bool decoupled, double step) {
    return kernels::adam_update(std::move(param), std::move(grad), std::move(moment_1), std::move(moment_2), lr, beta_1,
                                beta_2, epsilon, weight_decay, decoupled, step);
  }
  /// The multi-tensor Adam/AdamW step: a launch per table of up to 24 parameters (kernels/optimizer.cu).
  static std::vector<AdamUpdate<CudaTensor>> module_adam_update_many(std::vector<CudaTensor> params,
                                                                     std::vector<CudaTensor> grads,
                                                                     std::vector<CudaTensor> moments_1,
                                                                     std::vector<CudaTensor> moments_2,
                                                                     const AdamStep& step) {
    return kernels::adam_update_many(std::move(params), std::move(grads), std::move(moments_1), std::move(moments_2),
                                     step);
  }
  /// A linear layer's product with its bias and relu in one cuBLASLt call (kernels/matmul.cpp).
  static CudaTensor module_linear(CudaTensor x, CudaTensor weight, const std::optional<CudaTensor>& bias, bool relu) {
    return kernels::linear(std::move(x), std::move(weight), bias, relu);
  }
  /// Its gradients, bias's summed by the weight gradient's product (kernels/matmul.cpp).
  static ConvGradients<CudaTensor> module_linear_backward(CudaTensor x, CudaTensor weight, bool has_bias, bool relu,
                                                          CudaTensor output, CudaTensor grad) {
    return kernels::linear_backward(std::move(x), std::move(weight), has_bias, relu, std::move(output),
                                    std::move(grad));
  }
  /// cuBLASLt's int8 product (IMMA) or the weight-only product for small batches (kernels/quantized_linear.cpp),
  /// else the provided composition.
  static CudaTensor module_quantized_linear(CudaTensor x, CudaTensor weight, CudaTensor scales, CudaTensor offsets,
                                            const std::optional<CudaTensor>& bias, const QuantScheme& scheme,
                                            const InputQuant& input, bool relu);
  /// The multi-tensor SGD step (kernels/optimizer.cu).
  static std::vector<SgdUpdate<CudaTensor>> module_sgd_update_many(std::vector<CudaTensor> params,
                                                                   std::vector<CudaTensor> grads,
                                                                   std::vector<CudaTensor> velocities,
                                                                   const SgdStep& step) {
    return kernels::sgd_update_many(std::move(params), std::move(grads), std::move(velocities), step);
  }
};

}  // namespace scorch::backends::cuda

namespace scorch {
using backends::cuda::Cuda;
using backends::cuda::CudaDevice;

/// Cuda steps are captured into CUDA graphs (backends/cuda/graph.h).
template <> struct GraphCapture<Cuda> {
  static constexpr bool kSupported = true;
  using Handle = backends::cuda::CudaTensor;
  using Graph = backends::cuda::CudaGraph;
  static Handle handle(const Handle& t) { return t; }
  static void prepare(const CudaDevice&) {}
  static std::unique_ptr<Graph> capture(const CudaDevice& device, const std::function<void()>& fn) {
    return Graph::capture(device.index, fn);
  }
  static void copy(const Handle& dst, const Handle& src) { backends::cuda::assign_view(dst, src); }
  static bool same(const Handle& a, const Handle& b) {
    return a.storage() == b.storage() && a.offset() == b.offset() && a.shape() == b.shape() &&
           a.strides() == b.strides() && a.dtype() == b.dtype();
  }
};
}  // namespace scorch

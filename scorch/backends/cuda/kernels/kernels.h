#pragma once
// The Cuda backend's kernels: one function serves every kind whose dtype it supports; their declarations
// and the Cuda struct's bindings are generated from op_table.txt (gen/cuda_kernel_ops.h). No CUDA header.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "scorch/backend/module_options.h"
#include "scorch/backend/options.h"
#include "scorch/backends/cuda/cuda_tensor.h"
#include "scorch/gen/cuda_kernel_ops.h"
#include "scorch/core/distribution.h"
#include "scorch/core/scalar.h"
#include "scorch/core/tensor_data.h"

namespace scorch::backends::cuda::kernels {

using T = CudaTensor;
using IndexPair = std::pair<CudaTensor, CudaTensor>;
using Device = CudaDevice;
// Kernel files: creation.cu, cast.cu, unary.cu, binary.cu, compare.cu, reduce.cu, softmax.cu,
// layout.cpp, index.cu, sort.cu, matmul.cpp; module ops: conv.cpp, pool.cu, window.cu, attention.cpp (with
// attention_rows.cu and flash_attention.cu), norm.cu, cross_entropy.cu, optimizer.cu.

/// Restarts the Philox random stream: the same seed gives the same random tensors.
void seed(uint64_t seed);
/// While a graph is captured on device, random ops use a key of their own and draw number *base + n (n counting the
/// graph's draws), so each replay draws fresh values once the graph advances *base (a device counter).
void begin_graph_random(int device, uint64_t* base);
/// Ends begin_graph_random; with advance, queues (into the graph) the kernel that advances *base. Returns the draws
/// captured.
uint64_t end_graph_random(int device, bool advance);

/// The fused Adam/AdamW step (optimizer.cu), the op table's module_adam_update (bound by the Cuda struct: the other
/// kernel backends use backend/provided's composition).
AdamUpdate<T> adam_update(T param, T grad, T moment_1, T moment_2, double lr, double beta_1, double beta_2,
                          double epsilon, double weight_decay, bool decoupled, double step);
/// Adam/AdamW steps of many parameters in a few launches (module_adam_update_many; optimizer.cu).
std::vector<AdamUpdate<T>> adam_update_many(std::vector<T> params, std::vector<T> grads, std::vector<T> moments_1,
                                            std::vector<T> moments_2, const AdamStep& step);
/// SGD steps of many parameters in a few launches (module_sgd_update_many; optimizer.cu).
std::vector<SgdUpdate<T>> sgd_update_many(std::vector<T> params, std::vector<T> grads, std::vector<T> velocities,
                                          const SgdStep& step);

/// What cuBLASLt applies to a float product as it writes it: out = act(alpha · a·b + residual + bias).
struct MatmulEpilogue {
  double alpha = 1;
  const CudaTensor* bias = nullptr;      // [n], contiguous, of the product's dtype: added to every row
  const CudaTensor* residual = nullptr;  // the product's shape, contiguous, of its dtype
  bool relu = false;
  CudaTensor* bias_grad = nullptr;  // [n], contiguous, of the product's dtype: written with b's sums over k (alone)
};
/// a·b (float, rank 2, on one device) with the epilogue applied in the same cuBLASLt call; nullopt when cuBLASLt has
/// no algorithm for it (the caller then runs the ops apart).
std::optional<CudaTensor> matmul_with_epilogue(T a, T b, const MatmulEpilogue& epilogue);
/// module_linear: x·weight with bias and relu applied by cuBLASLt as it writes the product (matmul.cpp), or the ops
/// apart when it has no algorithm for them.
CudaTensor linear(T x, T weight, const std::optional<T>& bias, bool relu);
/// grad where output > 0 (or NaN), else 0: relu's gradient from its output, one kernel (binary.cu).
CudaTensor relu_grad(T grad, T output);
/// module_linear_backward: weight's gradient from one product whose epilogue also sums bias's (cuBLASLt's BGRADA)
/// where cuBLASLt takes it (matmul.cpp).
ConvGradients<CudaTensor> linear_backward(T x, T weight, bool has_bias, bool relu, T output, T grad);
/// Indices as a fresh contiguous I64 tensor resolved against dim_size (negative counts from the end); throws
/// ShapeError naming op and the first index out of range, after a stream synchronization (none while a graph is
/// captured: an index out of range then reads element 0). index.cu.
CudaTensor read_indices(const char* op, const T& indices, size_t dim_size, Device device);
/// matmul written in out_dtype: the operands' own, or f32 for f16/bf16 operands (tensor-core products whose f32
/// accumulators are kept, as attention's scores need). Throws DTypeError for another pairing.
CudaTensor matmul_to(T a, T b, DType out_dtype);
/// The device's cuBLASLt handle (a cublasLtHandle_t) and its workspace, shared with quantized_linear.cpp.
void* lt_handle(int device, void*& workspace, size_t& workspace_bytes);
/// quantized_linear through cuBLASLt's int8 product or the weight-only product (quantized_linear.cpp), or nullopt
/// where neither applies (the provided composition then runs).
std::optional<CudaTensor> quantized_linear(const T& x, const T& weight, const T& scales, const T& offsets,
                                           const std::optional<T>& bias, const QuantScheme& scheme,
                                           const InputQuant& input, bool relu);

}  // namespace scorch::backends::cuda::kernels

// quantized_linear on the Cuda backend. An int8 weight with one scale per tensor or per output column multiplies the
// input quantized to int8 on the tensor cores (cuBLASLt's int8 product, int32 sums), then one kernel removes the
// offsets' cross terms and scales (quantized.cu). A weight-only scheme (float input) with up to kWeightOnlyRows rows
// runs the product that dequantizes int8 or q4 weights as it loads them. Anything else runs the provided composition.
#include <cublasLt.h>

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <optional>

#include "scorch/backends/cuda/cuda_backend.h"
#include "scorch/backends/cuda/device_runtime.h"
#include "scorch/backends/cuda/kernels/kernels.h"
#include "scorch/backends/cuda/kernels/quantized.h"
#include "scorch/backends/cuda/runtime.h"
#include "scorch/gen/kind_ops.h"

namespace scorch::backends::cuda::kernels {
namespace {

constexpr size_t kWeightOnlyRows = 16;

// The descriptors of one int8 product, destroyed with it.
struct Int8Problem {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  ~Int8Problem() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (desc) cublasLtMatmulDescDestroy(desc);
  }
};

// cuBLASLt's algorithm for an int8 product of one shape on one device, asked for once (the heuristic query costs
// about as much as a small product); nullopt when it has none.
using ProductKey = std::array<uint64_t, 4>;
template <class Ask> std::optional<cublasLtMatmulAlgo_t> cached_algo(ProductKey key, Ask&& ask) {
  static std::mutex mutex;
  static auto* algos = new std::map<ProductKey, std::optional<cublasLtMatmulAlgo_t>>();
  std::lock_guard lock(mutex);
  auto it = algos->find(key);
  if (it != algos->end()) return it->second;
  cublasLtMatmulAlgo_t algo{};
  std::optional<cublasLtMatmulAlgo_t> found;
  if (ask(algo)) found = algo;
  return (*algos)[key] = found;
}

// acc [m, n] (int32) = xq [m, k] · wr [n, k]ᵀ (int8, k contiguous): cuBLASLt's column-major Wᵀ·X; false when
// cuBLASLt has no algorithm for it.
bool int8_product(const T& xq, const T& wr, T& acc) {
  int device = xq.device().index;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  auto handle = static_cast<cublasLtHandle_t>(lt_handle(device, workspace, workspace_bytes));
  auto m = static_cast<uint64_t>(xq.shape()[0]), k = static_cast<uint64_t>(xq.shape()[1]);
  auto n = static_cast<uint64_t>(wr.shape()[0]);
  Int8Problem p;
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  bool ok = cublasLtMatmulDescCreate(&p.desc, CUBLAS_COMPUTE_32I, CUDA_R_32I) == CUBLAS_STATUS_SUCCESS &&
            cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)) == 0 &&
            cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)) == 0 &&
            cublasLtMatrixLayoutCreate(&p.a, CUDA_R_8I, k, n, static_cast<int64_t>(k)) == 0 &&
            cublasLtMatrixLayoutCreate(&p.b, CUDA_R_8I, k, m, static_cast<int64_t>(k)) == 0 &&
            cublasLtMatrixLayoutCreate(&p.c, CUDA_R_32I, n, m, static_cast<int64_t>(n)) == 0 &&
            cublasLtMatmulPreferenceCreate(&p.pref) == 0;
  if (!ok) return false;
  auto algo = cached_algo({uint64_t(device), m, k, n}, [&](cublasLtMatmulAlgo_t& found) {
    cublasLtMatmulPreferenceSetAttribute(p.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                         sizeof(workspace_bytes));
    cublasLtMatmulHeuristicResult_t result{};
    int count = 0;
    if (cublasLtMatmulAlgoGetHeuristic(handle, p.desc, p.a, p.b, p.c, p.c, p.pref, 1, &result, &count) != 0)
      return false;
    found = result.algo;
    return count > 0;
  });
  if (!algo) return false;
  int32_t alpha = 1, beta = 0;
  return cublasLtMatmul(handle, p.desc, &alpha, wr.raw(), p.a, xq.raw(), p.b, &beta, acc.raw(), p.c, acc.raw(), p.c,
                        &*algo, workspace, workspace_bytes, stream(device)) == CUBLAS_STATUS_SUCCESS;
}

// w [k, n] (a view) as [n, k] with k contiguous: its own memory when it is the transpose of a contiguous tensor.
T weight_rows(const T& w) {
  Strides swapped{w.strides()[1], w.strides()[0]};
  return contiguous(T(w.storage(), Shape{w.shape()[1], w.shape()[0]}, swapped, w.offset(), w.dtype()));
}

bool per_column_params(const T& scales, size_t n) { return scales.numel() == 1 || scales.shape() == Shape{1, n}; }

std::optional<T> int8_linear(const T& x, const T& weight, const T& scales, const T& offsets,
                             const std::optional<T>& bias, const InputQuant& input, bool relu) {
  size_t m = x.shape()[0], k = x.shape()[1], n = weight.shape()[1];
  T xf = to_dtype(contiguous(x), DType::F32);
  QuantParams params{static_cast<float>(input.scale), input.offset};
  if (input.dynamic) params = provided::input_params<Cuda>(xf, input);
  CudaDevice device = x.device();
  T xq(Shape{m, k}, DType::I8, device), row_sums(Shape{m}, DType::I32, device);
  int32_t shift = quantize_rows_s8(xf, params, input.value, xq, row_sums);
  T wr = weight_rows(weight), col_sums(Shape{n}, DType::I32, device), acc(Shape{m, n}, DType::I32, device);
  weight_row_sums(wr, col_sums);
  if (!int8_product(xq, wr, acc)) return std::nullopt;
  T sw = to_dtype(contiguous(scales), DType::F32), zw = to_dtype(contiguous(offsets), DType::I32);
  std::optional<T> b;
  if (bias) b = to_dtype(contiguous(*bias), DType::F32);
  T y(Shape{m, n}, DType::F32, device);
  QuantEpilogue e{params.scale,
                  static_cast<int32_t>(params.offset) - shift,
                  row_sums.data<int32_t>(),
                  col_sums.data<int32_t>(),
                  zw.data<int32_t>(),
                  sw.data<float>(),
                  b ? b->data<float>() : nullptr,
                  sw.numel() > 1,
                  zw.numel() > 1,
                  relu};
  int8_epilogue(acc, static_cast<int64_t>(k), e, y);
  return y;
}

// The weight-only product applies: a row-major weight [k, n] (q4: [k, n / 2]) with scales per tensor, per column or
// per block of rows.
bool weight_only_fits(const T& x, const T& weight, const T& scales, const QuantScheme& s) {
  if (x.shape()[0] > kWeightOnlyRows || !weight.is_contiguous()) return false;
  size_t n = weight.shape()[1] * (s.value == QuantValue::Q4 ? 2 : 1);
  if (s.level == QuantLevel::Channel) return s.axis == 1 && scales.shape() == Shape{1, n};
  if (s.level == QuantLevel::Block) return s.axis == 0 && scales.shape()[1] == n;
  return scales.numel() == 1;
}

T weight_only_linear(const T& x, const T& weight, const T& scales, const T& offsets, const std::optional<T>& bias,
                     const QuantScheme& s, bool relu) {
  bool q4 = s.value == QuantValue::Q4;
  size_t m = x.shape()[0], k = x.shape()[1], n = weight.shape()[1] * (q4 ? 2 : 1);
  T xf = to_dtype(contiguous(x), DType::F32);
  T sw = to_dtype(contiguous(scales), DType::F32), zw = to_dtype(contiguous(offsets), DType::I32);
  std::optional<T> b;
  if (bias) b = to_dtype(contiguous(*bias), DType::F32);
  int64_t block_rows = s.level == QuantLevel::Block ? static_cast<int64_t>(s.block_size) : static_cast<int64_t>(k);
  WeightOnly p{sw.data<float>(),
               zw.data<int32_t>(),
               std::max<int64_t>(block_rows, 1),
               s.level != QuantLevel::Tensor,
               zw.numel() > 1,
               b ? b->data<float>() : nullptr,
               relu};
  T y(Shape{m, n}, DType::F32, x.device());
  weight_only_product(xf, weight, q4, p, y);
  return y;
}

}  // namespace

std::optional<CudaTensor> quantized_linear(const T& x, const T& weight, const T& scales, const T& offsets,
                                           const std::optional<T>& bias, const QuantScheme& scheme,
                                           const InputQuant& input, bool relu) {
  if (x.shape().rank() != 2 || weight.shape().rank() != 2 || !is_float(x.dtype())) return std::nullopt;
  if (x.numel() == 0 || weight.numel() == 0) return std::nullopt;  // empty products: the composition's zeros
  if (x.shape()[1] != weight.shape()[0]) return std::nullopt;      // the composition names the mismatch
  if (input.weight_only) {
    if (!weight_only_fits(x, weight, scales, scheme)) return std::nullopt;
    return weight_only_linear(x, weight, scales, offsets, bias, scheme, relu);
  }
  size_t k = x.shape()[1], n = weight.shape()[1];
  bool int8 = scheme.value == QuantValue::Int8 && weight.dtype() == DType::I8 && input.value != QuantValue::Q4;
  bool levels = scheme.level == QuantLevel::Tensor || (scheme.level == QuantLevel::Channel && scheme.axis == 1);
  if (!int8 || !levels || !per_column_params(scales, n) || k % 4 != 0) return std::nullopt;
  return int8_linear(x, weight, scales, offsets, bias, input, relu);
}

}  // namespace scorch::backends::cuda::kernels

namespace scorch::backends::cuda {

CudaTensor Cuda::module_quantized_linear(CudaTensor x, CudaTensor weight, CudaTensor scales, CudaTensor offsets,
                                         const std::optional<CudaTensor>& bias, const QuantScheme& scheme,
                                         const InputQuant& input, bool relu) {
  provided::check_quantized_linear(x, weight, scales, offsets, bias, scheme);
  if (auto y = kernels::quantized_linear(x, weight, scales, offsets, bias, scheme, input, relu)) return *y;
  return provided::module_quantized_linear<Cuda>(x, weight, scales, offsets, bias, scheme, input, relu);
}

}  // namespace scorch::backends::cuda

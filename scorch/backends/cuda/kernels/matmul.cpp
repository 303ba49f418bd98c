// Float matmul through cuBLASLt: row-major operands (or transposed views, passed as transposed
// operands without a copy) and broadcast batches with one batch stride each. The algorithm is
// chosen by benchmarking cuBLASLt's candidates once per (shape, layout, dtype, device) when autotune
// is on, else cuBLASLt's first heuristic choice. f32 follows f32_matmul(): exact by default, one TF32 pass, or
// three (tf32_split.h) for products large enough to repay the operands' split.
#include <cublasLt.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <mutex>
#include <string>
#include <vector>

#include "scorch/backends/cuda/autotune.h"
#include "scorch/backends/cuda/device_runtime.h"
#include "scorch/backends/cuda/kernels/kernels.h"
#include "scorch/backends/cuda/kernels/tf32_split.h"
#include "scorch/backends/cuda/runtime.h"
#include "scorch/core/error.h"

namespace scorch::backends::cuda {
void int_matmul_batched(const CudaTensor& a, const CudaTensor& b, CudaTensor& out, int64_t batch, int64_t m, int64_t k,
                        int64_t n);
}

namespace scorch::backends::cuda::kernels {
namespace {

constexpr size_t kWorkspaceBytes = 32u << 20;

void check_lt(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw DeviceError("matmul",
                      std::string(what) + " failed: cuBLAS status " + std::to_string(static_cast<int>(status)));
}

struct DeviceBlas {
  cublasLtHandle_t handle = nullptr;
  CudaTensor workspace;
};
DeviceBlas& blas(int device) {
  static std::mutex mutex;
  static std::vector<DeviceBlas>* all = new std::vector<DeviceBlas>();
  std::lock_guard lock(mutex);
  if (all->size() <= static_cast<size_t>(device)) all->resize(static_cast<size_t>(device) + 1);
  DeviceBlas& b = (*all)[static_cast<size_t>(device)];
  if (!b.handle) {
    stream(device);
    check_lt(cublasLtCreate(&b.handle), "cublasLtCreate");
    b.workspace = CudaTensor(Shape{kWorkspaceBytes}, DType::U8, CudaDevice{device});
  }
  return b;
}

// One operand as cuBLAS sees it: a column-major matrix, transposed or not, with a batch stride.
struct Operand {
  const void* ptr;
  bool trans;
  int64_t rows, cols, ld, batch_stride;
};

// The batch offsets of x broadcast to batch: a single stride when they are evenly spaced.
bool uniform_batch_stride(const T& x, const Shape& batch, int64_t& stride) {
  size_t rank = batch.rank(), count = batch.num_elements();
  std::vector<int64_t> offsets(count);
  size_t lead = batch.rank() - (x.shape().rank() - 2);
  for (size_t i = 0; i < count; ++i) {
    size_t rem = i;
    int64_t off = 0;
    for (size_t d = rank; d-- > 0;) {
      size_t idx = rem % batch[d];
      rem /= batch[d];
      if (d >= lead && x.shape()[d - lead] != 1) off += static_cast<int64_t>(idx) * x.strides()[d - lead];
    }
    offsets[i] = off;
  }
  stride = count > 1 ? offsets[1] - offsets[0] : 0;
  for (size_t i = 0; i < count; ++i)
    if (offsets[i] != static_cast<int64_t>(i) * stride) return false;
  return true;
}

// Row-major x[rows, cols] (last two dims) as a cuBLAS operand of the swapped (column-major) product.
bool as_operand(const T& x, const Shape& batch, Operand& op) {
  size_t r = x.shape().rank();
  int64_t rows = static_cast<int64_t>(x.shape()[r - 2]), cols = static_cast<int64_t>(x.shape()[r - 1]);
  int64_t s_row = x.strides()[r - 2], s_col = x.strides()[r - 1];
  if (!uniform_batch_stride(x, batch, op.batch_stride)) return false;
  op.ptr = x.raw();
  if ((s_col == 1 || cols == 1) && (s_row >= std::max<int64_t>(cols, 1) || rows == 1)) {
    op = {x.raw(), false, cols, rows, std::max<int64_t>(rows == 1 ? cols : s_row, 1), op.batch_stride};
    return true;
  }
  if ((s_row == 1 || rows == 1) && (s_col >= std::max<int64_t>(rows, 1) || cols == 1)) {
    op = {x.raw(), true, rows, cols, std::max<int64_t>(cols == 1 ? rows : s_col, 1), op.batch_stride};
    return true;
  }
  return false;
}

Operand operand_of(T& x, const Shape& batch) {
  Operand op{};
  if (as_operand(x, batch, op)) return op;
  Shape full = batch;
  full.push_back(x.shape()[x.shape().rank() - 2]);
  full.push_back(x.shape()[x.shape().rank() - 1]);
  x = contiguous(expand(x, full));  // kept alive by the caller's handle
  as_operand(x, batch, op);
  return op;
}

struct LtTypes {
  cudaDataType_t data, scale;
  cublasComputeType_t compute;
};
LtTypes lt_types(DType d, bool tf32 = false) {
  switch (d) {
    case DType::F64: return {CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F};
    case DType::F32: return {CUDA_R_32F, CUDA_R_32F, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F};
    case DType::F16: return {CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    case DType::BF16: return {CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    default: throw DTypeError("matmul", "dtype " + std::string(dtype_name(d)) + " is not supported");
  }
}

// RAII holders of the cuBLASLt descriptors of one product.
struct LtProblem {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  ~LtProblem() {
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (desc) cublasLtMatmulDescDestroy(desc);
  }
};

void layout(cublasLtMatrixLayout_t& l, cudaDataType_t type, int64_t rows, int64_t cols, int64_t ld, int64_t batch,
            int64_t stride) {
  check_lt(cublasLtMatrixLayoutCreate(&l, type, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols), ld),
           "layout");
  if (batch <= 1) return;
  auto count = static_cast<int32_t>(batch);
  check_lt(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)),
           "batch count");
  check_lt(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)),
           "batch stride");
}

std::string hex(const cublasLtMatmulAlgo_t& algo) {
  static const char* digits = "0123456789abcdef";
  const auto* bytes = reinterpret_cast<const unsigned char*>(&algo);
  std::string s;
  for (size_t i = 0; i < sizeof(algo); ++i) {
    s += digits[bytes[i] >> 4];
    s += digits[bytes[i] & 15];
  }
  return s;
}
bool unhex(const std::string& s, cublasLtMatmulAlgo_t& algo) {
  if (s.size() != 2 * sizeof(algo)) return false;
  auto* bytes = reinterpret_cast<unsigned char*>(&algo);
  for (size_t i = 0; i < sizeof(algo); ++i)
    bytes[i] = static_cast<unsigned char>(std::stoi(s.substr(2 * i, 2), nullptr, 16));
  return true;
}

struct Call {
  cublasLtHandle_t handle;
  const LtProblem& p;
  const void *alpha, *beta, *A, *B, *C;  // C: the added matrix (read when beta is not zero)
  void* D;
  void* workspace;
  cudaStream_t stream;
  cublasStatus_t run(const cublasLtMatmulAlgo_t* algo) const {
    return cublasLtMatmul(handle, p.desc, alpha, A, p.a, B, p.b, beta, C, p.c, D, p.c, algo, workspace, kWorkspaceBytes,
                          stream);
  }
};

// Milliseconds one run of algo takes (median of 3 after a warm-up); negative when it fails.
float time_algo(const Call& call, const cublasLtMatmulAlgo_t& algo) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  float best = -1;
  if (call.run(&algo) == CUBLAS_STATUS_SUCCESS) {
    std::vector<float> times;
    for (int i = 0; i < 3; ++i) {
      cudaEventRecord(start, call.stream);
      call.run(&algo);
      cudaEventRecord(stop, call.stream);
      cudaEventSynchronize(stop);
      float ms = 0;
      cudaEventElapsedTime(&ms, start, stop);
      times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    best = times[1];
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaGetLastError();
  return best;
}

/// The largest power of two up to 256 dividing p's address: the alignment cuBLASLt's algorithms are asked to accept.
uint32_t alignment(const void* p) {
  auto address = reinterpret_cast<uintptr_t>(p);
  uint32_t a = 256;
  while (a > 1 && address % a != 0) a /= 2;
  return a;
}

/// The algorithm for call (autotuned or cuBLASLt's first choice, cached under shape_key and the operands' alignments);
/// nullopt when cuBLASLt has none.
std::optional<cublasLtMatmulAlgo_t> choose_algo(const Call& call, const std::string& shape_key) {
  std::array<uint32_t, 4> align{alignment(call.A), alignment(call.B), alignment(call.C), alignment(call.D)};
  std::string key = shape_key;
  if (align != std::array<uint32_t, 4>{256, 256, 256, 256}) {
    key += "|align";
    for (uint32_t a : align) key.append(" ").append(std::to_string(a));
  }
  cublasLtMatmulAlgo_t algo{};
  if (auto cached = autotune::lookup(key); cached && unhex(*cached, algo)) return algo;
  cublasLtMatmulPreference_t pref;
  check_lt(cublasLtMatmulPreferenceCreate(&pref), "preference");
  size_t ws = kWorkspaceBytes;
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));
  const cublasLtMatmulPreferenceAttributes_t align_attributes[] = {
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
  for (size_t i = 0; i < 4; ++i)
    cublasLtMatmulPreferenceSetAttribute(pref, align_attributes[i], &align[i], sizeof(align[i]));
  cublasLtMatmulHeuristicResult_t results[8];
  int found = 0;
  bool tune = autotune_enabled();
  cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(call.handle, call.p.desc, call.p.a, call.p.b, call.p.c, call.p.c,
                                                     pref, tune ? 8 : 1, results, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  if (st != CUBLAS_STATUS_SUCCESS || found == 0) {
    static std::atomic<bool> logged{false};
    if (key.find("|epilogue") != std::string::npos && !logged.exchange(true))
      std::fprintf(stderr, "[matmul] cuBLASLt has no algorithm for %s (status %d, %d found); its ops run apart\n",
                   key.c_str(), static_cast<int>(st), found);
    return std::nullopt;
  }
  algo = results[0].algo;
  if (!tune) return algo;
  float best = -1;
  for (int i = 0; i < found; ++i) {
    float ms = time_algo(call, results[i].algo);
    if (ms >= 0 && (best < 0 || ms < best)) {
      best = ms;
      algo = results[i].algo;
    }
  }
  autotune::count_benchmark();
  autotune::store(key, hex(algo));
  return algo;
}

/// The cuBLASLt epilogue doing e's bias and relu, or its bias gradient.
cublasLtEpilogue_t epilogue_of(const MatmulEpilogue& e) {
  if (e.bias_grad) return CUBLASLT_EPILOGUE_BGRADA;  // cuBLAS's A is our b: its sums over k, one per row of out^T
  if (e.bias) return e.relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
  return e.relu ? CUBLASLT_EPILOGUE_RELU : CUBLASLT_EPILOGUE_DEFAULT;
}

/// True when splitting an f32 product's operands (traffic ∝ (m + n)·k) costs less than the TF32 passes save
/// (work ∝ m·n·k): on the H200 and the transformer layer's shapes the split lost at m·n / (m + n) = 256.
bool tf32x3_pays(int64_t m, int64_t n, int64_t k, int64_t batch) {
  bool small_enough = 3 * std::max(m, n) * k * batch < (int64_t{1} << 32) && batch <= 65535;  // grid.z: the batch
  return small_enough && k % 4 == 0 && m * n >= 384 * (m + n);  // k % 4: the copies' columns stay 16-byte aligned
}

/// op's 3xTF32 copy (tf32_split.h), k-major, held by keep; k is op's rows when k_is_rows, else its columns. The copy
/// is cuBLAS's first operand (op(A) = [n, k]: stored [3k, n], transposed) when first, else its second ([3k, m]).
Operand split_operand(const Operand& op, bool k_is_rows, bool first, int64_t batch, CudaTensor& keep, int device) {
  Tf32x3Layout l;
  l.rows = static_cast<uint32_t>(op.rows), l.cols = static_cast<uint32_t>(op.cols);
  l.batch = op.batch_stride == 0 ? 1u : static_cast<uint32_t>(batch);
  l.ld = op.ld, l.batch_stride = op.batch_stride, l.k_is_rows = k_is_rows;
  int64_t k = k_is_rows ? op.rows : op.cols, other = k_is_rows ? op.cols : op.rows;
  l.out_batch_stride = op.batch_stride == 0 ? 0 : 3 * k * other;
  l.small_pieces = first ? 1u : 2u;  // first (our b): small, big, big; second (our a): big, small, big
  keep = CudaTensor(Shape{static_cast<size_t>(3 * k * other * l.batch)}, DType::F32, CudaDevice{device});
  split_tf32x3(static_cast<const float*>(op.ptr), keep.data<float>(), l, device);
  return {keep.raw(), first, 3 * k, other, 3 * k, l.out_batch_stride};
}

/// out = a·b with epilogue e in one cuBLASLt call, the operands of dtype in (out's, or f16/bf16 for an f32 out),
/// f32 through TF32 tensor cores when tf32; false (nothing run) when cuBLASLt has no algorithm for it.
bool lt_gemm(const Operand& oa, const Operand& ob, T& out, int64_t batch, int64_t m, int64_t k, int64_t n,
             const MatmulEpilogue& e, DType in, bool tf32) {
  // Column-major view: out^T[n, m] = b^T[n, k] · a^T[k, m]; a bias of n entries adds along out^T's rows.
  int device = out.device().index;
  DeviceBlas& bl = blas(device);
  LtTypes t = lt_types(in, tf32), t_out = lt_types(out.dtype());
  LtProblem p;
  check_lt(cublasLtMatmulDescCreate(&p.desc, t.compute, t.scale), "desc");
  cublasOperation_t ta = ob.trans ? CUBLAS_OP_T : CUBLAS_OP_N, tb = oa.trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta));
  cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb));
  cublasLtEpilogue_t epi = epilogue_of(e);
  if (epi != CUBLASLT_EPILOGUE_DEFAULT)
    check_lt(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)), "epilogue");
  if (e.bias || e.bias_grad) {
    const void* bias = e.bias ? e.bias->raw() : e.bias_grad->raw();
    check_lt(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)), "bias");
  }
  layout(p.a, t.data, ob.rows, ob.cols, ob.ld, batch, ob.batch_stride);
  layout(p.b, t.data, oa.rows, oa.cols, oa.ld, batch, oa.batch_stride);
  layout(p.c, t_out.data, n, m, n, batch, m * n);
  double alpha64 = e.alpha, beta64 = e.residual ? 1 : 0;
  float alpha32 = static_cast<float>(e.alpha), beta32 = e.residual ? 1.0f : 0.0f;
  bool f64 = out.dtype() == DType::F64;
  Call call{bl.handle,
            p,
            f64 ? static_cast<const void*>(&alpha64) : &alpha32,
            f64 ? static_cast<const void*>(&beta64) : &beta32,
            ob.ptr,
            oa.ptr,
            e.residual ? static_cast<const void*>(e.residual->raw()) : out.raw(),
            out.raw(),
            bl.workspace.raw(),
            stream(device)};
  std::string key = "matmul|" + std::string(dtype_name(out.dtype())) + "|" +
                    std::to_string(static_cast<int>(t.compute)) + "|" + std::to_string(ta) + std::to_string(tb) + "|" +
                    std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + "x" +
                    std::to_string(batch) + "|" + std::to_string(ob.ld) + "," + std::to_string(oa.ld) + "," +
                    std::to_string(ob.batch_stride) + "," + std::to_string(oa.batch_stride) + "|" +
                    autotune::device_name(device);
  if (epi != CUBLASLT_EPILOGUE_DEFAULT || e.residual)
    key += "|epilogue " + std::to_string(static_cast<int>(epi)) + (e.residual ? "+c" : "");
  if (in != out.dtype()) key += "|from " + std::string(dtype_name(in));
  auto algo = choose_algo(call, key);
  if (!algo) return false;
  cublasStatus_t status = call.run(&*algo);
  // An epilogue's operands may not suit the algorithm found (their alignment): the caller runs the ops apart.
  if (status == CUBLAS_STATUS_NOT_SUPPORTED && epi != CUBLASLT_EPILOGUE_DEFAULT) return false;
  check_lt(status, "cublasLtMatmul");
  profile_mark(epi != CUBLASLT_EPILOGUE_DEFAULT || e.residual || e.alpha != 1 ? "matmul+epilogue" : "matmul");
  return true;
}

/// out = a·b (f32) in 3xTF32: one TF32 product over the tripled k, the corrections' blocks (big·small, small·big)
/// first and big·big last. A tensor core's accumulator truncates what it adds: with big·big first, the corrections
/// were added to a large accumulator and the error grew to ten times f32's (3.2e-6 against 7.5e-7 here).
bool tf32x3_gemm(const Operand& oa, const Operand& ob, T& out, int64_t batch, int64_t m, int64_t k, int64_t n,
                 const MatmulEpilogue& e) {
  int device = out.device().index;
  CudaTensor a_pieces, b_pieces;  // a: (big, small, big), b: (small, big, big) along k
  Operand a3 = split_operand(oa, !oa.trans, false, batch, a_pieces, device);
  Operand b3 = split_operand(ob, ob.trans, true, batch, b_pieces, device);
  return lt_gemm(a3, b3, out, batch, m, 3 * k, n, e, DType::F32, true);
}

/// out = a·b with epilogue e, the operands of dtype in (out's, or f16/bf16 for an f32 out), f32 as f32_matmul() says;
/// false when cuBLASLt has no algorithm for it (out is then unspecified: the caller runs the ops apart).
bool float_gemm(const Operand& oa, const Operand& ob, T& out, int64_t batch, int64_t m, int64_t k, int64_t n,
                const MatmulEpilogue& e = {}, std::optional<DType> in = std::nullopt) {
  DType from = in.value_or(out.dtype());
  bool f32 = out.dtype() == DType::F32 && from == DType::F32;
  if (f32 && f32_matmul() == F32Matmul::Tf32x3 && tf32x3_pays(m, n, k, batch)) {
    if (e.bias_grad) return false;  // the split's pieces would each enter the sums: the caller sums apart
    return tf32x3_gemm(oa, ob, out, batch, m, k, n, e);
  }
  return lt_gemm(oa, ob, out, batch, m, k, n, e, from, f32 && f32_matmul() == F32Matmul::Tf32);
}

/// True when x's data starts on a 16-byte boundary (what cuBLASLt's epilogue operands are asked to meet).
bool aligned16(const T& x) { return reinterpret_cast<uintptr_t>(x.raw()) % 16 == 0; }

Shape batch_of(const Shape& s) {
  Shape b = s;
  b.remove(s.rank() - 1);
  b.remove(s.rank() - 2);
  return b;
}

}  // namespace

T matmul(T a, T b) {
  DType d = a.dtype();
  return matmul_to(std::move(a), std::move(b), d);
}

T matmul_to(T a, T b, DType out_dtype) {
  if (!(a.device() == b.device()))
    throw DeviceError("matmul", "operands on " + a.device().to_string() + " and " + b.device().to_string());
  if (a.dtype() != b.dtype())
    throw DTypeError(
        "matmul", "operands of " + std::string(dtype_name(a.dtype())) + " and " + std::string(dtype_name(b.dtype())));
  bool widened = out_dtype != a.dtype();
  if (widened && !((a.dtype() == DType::F16 || a.dtype() == DType::BF16) && out_dtype == DType::F32))
    throw DTypeError("matmul", "a product of " + std::string(dtype_name(a.dtype())) + " operands is not written in " +
                                   std::string(dtype_name(out_dtype)) + " (only f16/bf16 into f32)");
  size_t r = a.shape().rank();
  auto m = static_cast<int64_t>(a.shape()[r - 2]), k = static_cast<int64_t>(a.shape()[r - 1]);
  auto n = static_cast<int64_t>(b.shape()[r - 1]);
  Shape batch = broadcast_shapes("matmul", batch_of(a.shape()), batch_of(b.shape()));
  Shape out_shape = batch;
  out_shape.push_back(static_cast<size_t>(m));
  out_shape.push_back(static_cast<size_t>(n));
  auto count = static_cast<int64_t>(batch.num_elements());
  if (k == 0) return full(out_shape, Scalar(0), a.device(), out_dtype);
  T out(out_shape, out_dtype, a.device());
  if (out.numel() == 0) return out;
  if (!is_float(a.dtype())) {
    Shape fa = batch, fb = batch;
    fa.push_back(static_cast<size_t>(m)), fa.push_back(static_cast<size_t>(k));
    fb.push_back(static_cast<size_t>(k)), fb.push_back(static_cast<size_t>(n));
    int_matmul_batched(contiguous(expand(a, fa)), contiguous(expand(b, fb)), out, count, m, k, n);
    return out;
  }
  Operand oa = operand_of(a, batch), ob = operand_of(b, batch);
  if (!float_gemm(oa, ob, out, count, m, k, n, {}, a.dtype()))
    throw DeviceError("matmul", "cuBLASLt found no algorithm for " + a.shape().to_string() + " · " +
                                    b.shape().to_string() + " in " + std::string(dtype_name(a.dtype())));
  return out;
}

std::optional<CudaTensor> matmul_with_epilogue(T a, T b, const MatmulEpilogue& e) {
  if (a.shape().rank() != 2 || b.shape().rank() != 2 || !is_float(a.dtype()) || a.dtype() != b.dtype() ||
      !(a.device() == b.device()) || a.shape()[1] != b.shape()[0])
    return std::nullopt;
  auto m = static_cast<int64_t>(a.shape()[0]), k = static_cast<int64_t>(a.shape()[1]);
  auto n = static_cast<int64_t>(b.shape()[1]);
  if (m == 0 || k == 0 || n == 0) return std::nullopt;
  Shape out_shape{static_cast<size_t>(m), static_cast<size_t>(n)};
  if (e.bias && (e.bias->numel() != static_cast<size_t>(n) || !e.bias->is_contiguous() ||
                 e.bias->dtype() != a.dtype() || !aligned16(*e.bias)))
    return std::nullopt;
  if (e.residual && (e.residual->shape() != out_shape || !e.residual->is_contiguous() ||
                     e.residual->dtype() != a.dtype() || !aligned16(*e.residual)))
    return std::nullopt;
  T out(out_shape, a.dtype(), a.device());
  Shape batch{};
  Operand oa = operand_of(a, batch), ob = operand_of(b, batch);
  if (!float_gemm(oa, ob, out, 1, m, k, n, e)) return std::nullopt;
  return out;
}

T linear(T x, T weight, const std::optional<T>& bias, bool relu) {
  MatmulEpilogue e;
  e.bias = bias ? &*bias : nullptr;
  e.relu = relu;
  if (auto y = matmul_with_epilogue(x, weight, e)) return std::move(*y);
  T y = matmul(std::move(x), std::move(weight));
  if (bias) y = add(std::move(y), reshape(*bias, Shape{1, bias->numel()}));
  return relu ? kernels::relu(std::move(y)) : y;
}

ConvGradients<T> linear_backward(T x, T weight, bool has_bias, bool relu, T output, T grad) {
  T g = relu ? relu_grad(std::move(grad), std::move(output)) : std::move(grad);
  T dx = matmul(g, swap_dims(std::move(weight), 0, 1));
  T xt = swap_dims(std::move(x), 0, 1);
  auto m = static_cast<int64_t>(xt.shape()[0]), k = static_cast<int64_t>(xt.shape()[1]);
  auto n = static_cast<int64_t>(g.shape()[1]);
  Shape batch{};
  Operand ob = operand_of(g, batch);  // cuBLAS's A: BGRADA takes it untransposed
  bool split = g.dtype() == DType::F32 && f32_matmul() == F32Matmul::Tf32x3 && tf32x3_pays(m, n, k, 1);
  if (has_bias && m > 0 && k > 0 && n > 0 && is_float(g.dtype()) && xt.dtype() == g.dtype() && !ob.trans && !split) {
    T db(Shape{static_cast<size_t>(n)}, g.dtype(), g.device());
    T dw(Shape{static_cast<size_t>(m), static_cast<size_t>(n)}, g.dtype(), g.device());
    MatmulEpilogue e;
    e.bias_grad = &db;
    if (float_gemm(operand_of(xt, batch), ob, dw, 1, m, k, n, e)) return {std::move(dx), std::move(dw), db};
  }
  T dw = matmul(xt, g);
  std::optional<T> db;
  if (has_bias) db = reshape(sum_dim(g, 0), Shape{static_cast<size_t>(n)});
  return {std::move(dx), std::move(dw), std::move(db)};
}

void* lt_handle(int device, void*& workspace, size_t& workspace_bytes) {
  DeviceBlas& b = blas(device);
  workspace = b.workspace.raw();
  workspace_bytes = kWorkspaceBytes;
  return b.handle;
}

}  // namespace scorch::backends::cuda::kernels

// Convolution, transposed convolution and their gradients through cuDNN (1-d runs as 2-d with a
// unit height). The algorithm of each (direction, shape, dtype, device) is cuDNN's measured fastest
// when autotune is on (cached in memory and on disk), else its first heuristic choice. f32 runs
// without TF32 unless allow_tf32(); f16/bf16 compute in f32 (as the Cpu backend: cuDNN's
// half-precision paths round intermediates); workspaces come from the caching pool.
#include <cudnn.h>

#include <mutex>
#include <string>
#include <vector>

#include "scorch/backend/module_shapes.h"
#include "scorch/backends/cuda/autotune.h"
#include "scorch/backends/cuda/device_runtime.h"
#include "scorch/backends/cuda/kernels/kernels.h"
#include "scorch/backends/cuda/runtime.h"
#include "scorch/core/error.h"

namespace scorch::backends::cuda::kernels {
namespace {

void check_dnn(cudnnStatus_t status, const char* op) {
  if (status != CUDNN_STATUS_SUCCESS) throw DeviceError(op, std::string("cuDNN: ") + cudnnGetErrorString(status));
}

cudnnHandle_t dnn(int device) {
  static std::mutex mutex;
  static std::vector<cudnnHandle_t>* handles = new std::vector<cudnnHandle_t>();
  std::lock_guard lock(mutex);
  if (handles->size() <= static_cast<size_t>(device)) handles->resize(static_cast<size_t>(device) + 1, nullptr);
  cudnnHandle_t& h = (*handles)[static_cast<size_t>(device)];
  cudaStream_t s = stream(device);
  if (!h) {
    check_dnn(cudnnCreate(&h), "conv");
    check_dnn(cudnnSetStream(h, s), "conv");
  }
  return h;
}

cudnnDataType_t dnn_type(DType d) {
  switch (d) {
    case DType::F64: return CUDNN_DATA_DOUBLE;
    case DType::F32: return CUDNN_DATA_FLOAT;
    case DType::F16: return CUDNN_DATA_HALF;
    case DType::BF16: return CUDNN_DATA_BFLOAT16;
    default: throw DTypeError("conv", "dtype " + std::string(dtype_name(d)) + " is not supported");
  }
}

// Dims of a [batch, channels, spatial...] shape, padded to at least 2 spatial dims (1-d as 2-d).
std::vector<int> dims_of(const Shape& s) {
  std::vector<int> d;
  for (size_t i = 0; i < s.rank(); ++i) d.push_back(static_cast<int>(s[i]));
  if (s.rank() == 3) d.insert(d.begin() + 2, 1);
  return d;
}

// The descriptors of one convolution x ⋆ w → y (x, w, y in cuDNN's forward roles).
struct Problem {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  std::string key;
  Problem(const Shape& xs, const Shape& ws, const Shape& ys, const ConvSpec& spec, DType dtype, int device) {
    cudnnDataType_t t = dnn_type(dtype);
    auto tensor = [&](cudnnTensorDescriptor_t& desc, const Shape& s) {
      std::vector<int> d = dims_of(s), strides(d.size());
      int step = 1;
      for (size_t i = d.size(); i-- > 0;) {
        strides[i] = step;
        step *= d[i];
      }
      check_dnn(cudnnCreateTensorDescriptor(&desc), "conv");
      check_dnn(cudnnSetTensorNdDescriptor(desc, t, static_cast<int>(d.size()), d.data(), strides.data()), "conv");
    };
    tensor(x, xs);
    tensor(y, ys);
    std::vector<int> wd = dims_of(ws);
    check_dnn(cudnnCreateFilterDescriptor(&w), "conv");
    check_dnn(cudnnSetFilterNdDescriptor(w, t, CUDNN_TENSOR_NCHW, static_cast<int>(wd.size()), wd.data()), "conv");
    std::vector<int> pad, stride, dil;
    if (spec.stride.size() == 1) pad = {0}, stride = {1}, dil = {1};
    for (size_t i = 0; i < spec.stride.size(); ++i) {
      pad.push_back(static_cast<int>(spec.padding[i]));
      stride.push_back(static_cast<int>(spec.stride[i]));
      dil.push_back(static_cast<int>(spec.dilation[i]));
    }
    check_dnn(cudnnCreateConvolutionDescriptor(&conv), "conv");
    cudnnDataType_t compute = dtype == DType::F64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    check_dnn(cudnnSetConvolutionNdDescriptor(conv, static_cast<int>(pad.size()), pad.data(), stride.data(), dil.data(),
                                              CUDNN_CROSS_CORRELATION, compute),
              "conv");
    check_dnn(cudnnSetConvolutionGroupCount(conv, static_cast<int>(spec.groups)), "conv");
    cudnnMathType_t math = dtype == DType::F32 && !allow_tf32() ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
    check_dnn(cudnnSetConvolutionMathType(conv, math), "conv");
    key = xs.to_string() + ws.to_string() + ys.to_string() + "|" + std::string(dtype_name(dtype)) + "|g" +
          std::to_string(spec.groups) + "|" + std::to_string(static_cast<int>(math));
    for (size_t i = 0; i < pad.size(); ++i)
      key.append(",")
          .append(std::to_string(pad[i]))
          .append("/")
          .append(std::to_string(stride[i]))
          .append("/")
          .append(std::to_string(dil[i]));
    key += "|" + autotune::device_name(device);
  }
  ~Problem() {
    if (x) cudnnDestroyTensorDescriptor(x);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
  }
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;
};

// Picks an algorithm: cached, else measured (autotune) or the first heuristic one that succeeds.
template <class Perf, class Find, class Get> int choose(const std::string& key, Find find, Get get) {
  if (auto cached = autotune::lookup(key)) return std::stoi(*cached);
  Perf perf[16];
  int found = 0;
  bool tune = autotune_enabled();
  check_dnn(tune ? find(perf, &found) : get(perf, &found), "conv");
  int algo = -1;
  for (int i = 0; i < found && algo < 0; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS) algo = static_cast<int>(perf[i].algo);
  if (algo < 0) throw DeviceError("conv", "cuDNN has no algorithm for " + key);
  if (tune) {
    autotune::count_benchmark();
    autotune::store(key, std::to_string(algo));
  }
  return algo;
}

CudaTensor workspace(size_t bytes, CudaDevice device) {
  return CudaTensor(Shape{std::max<size_t>(bytes, 1)}, DType::U8, device);
}

struct Scale {
  double one64 = 1, zero64 = 0;
  float one32 = 1, zero32 = 0;
  bool f64;
  explicit Scale(DType d) : f64(d == DType::F64) {}
  const void* one() const { return f64 ? static_cast<const void*>(&one64) : &one32; }
  const void* zero() const { return f64 ? static_cast<const void*>(&zero64) : &zero32; }
};

// y = x ⋆ w (cuDNN forward).
void forward(const Problem& p, const T& x, const T& w, T& y) {
  int dev = x.device().index;
  cudnnHandle_t h = dnn(dev);
  auto algo = static_cast<cudnnConvolutionFwdAlgo_t>(choose<cudnnConvolutionFwdAlgoPerf_t>(
      "conv_fwd|" + p.key,
      [&](auto* perf, int* n) { return cudnnFindConvolutionForwardAlgorithm(h, p.x, p.w, p.conv, p.y, 16, n, perf); },
      [&](auto* perf, int* n) {
        return cudnnGetConvolutionForwardAlgorithm_v7(h, p.x, p.w, p.conv, p.y, 16, n, perf);
      }));
  size_t bytes = 0;
  check_dnn(cudnnGetConvolutionForwardWorkspaceSize(h, p.x, p.w, p.conv, p.y, algo, &bytes), "conv");
  T ws = workspace(bytes, x.device());
  Scale s(x.dtype());
  check_dnn(cudnnConvolutionForward(h, s.one(), p.x, x.raw(), p.w, w.raw(), p.conv, algo, ws.raw(), bytes, s.zero(),
                                    p.y, y.raw()),
            "conv");
  profile_mark("conv_forward");
}

// dx = gradient of x ⋆ w with respect to x, given dy (cuDNN backward data).
void backward_data(const Problem& p, const T& w, const T& dy, T& dx) {
  int dev = dy.device().index;
  cudnnHandle_t h = dnn(dev);
  auto algo = static_cast<cudnnConvolutionBwdDataAlgo_t>(choose<cudnnConvolutionBwdDataAlgoPerf_t>(
      "conv_bwd_data|" + p.key,
      [&](auto* perf, int* n) {
        return cudnnFindConvolutionBackwardDataAlgorithm(h, p.w, p.y, p.conv, p.x, 16, n, perf);
      },
      [&](auto* perf, int* n) {
        return cudnnGetConvolutionBackwardDataAlgorithm_v7(h, p.w, p.y, p.conv, p.x, 16, n, perf);
      }));
  size_t bytes = 0;
  check_dnn(cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.w, p.y, p.conv, p.x, algo, &bytes), "conv");
  T ws = workspace(bytes, dy.device());
  Scale s(dy.dtype());
  check_dnn(cudnnConvolutionBackwardData(h, s.one(), p.w, w.raw(), p.y, dy.raw(), p.conv, algo, ws.raw(), bytes,
                                         s.zero(), p.x, dx.raw()),
            "conv");
  profile_mark("conv_backward_data");
}

// dw = gradient of x ⋆ w with respect to w, given dy (cuDNN backward filter).
void backward_filter(const Problem& p, const T& x, const T& dy, T& dw) {
  int dev = x.device().index;
  cudnnHandle_t h = dnn(dev);
  auto algo = static_cast<cudnnConvolutionBwdFilterAlgo_t>(choose<cudnnConvolutionBwdFilterAlgoPerf_t>(
      "conv_bwd_filter|" + p.key,
      [&](auto* perf, int* n) {
        return cudnnFindConvolutionBackwardFilterAlgorithm(h, p.x, p.y, p.conv, p.w, 16, n, perf);
      },
      [&](auto* perf, int* n) {
        return cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, p.x, p.y, p.conv, p.w, 16, n, perf);
      }));
  size_t bytes = 0;
  check_dnn(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p.x, p.y, p.conv, p.w, algo, &bytes), "conv");
  T ws = workspace(bytes, x.device());
  Scale s(x.dtype());
  check_dnn(cudnnConvolutionBackwardFilter(h, s.one(), p.x, x.raw(), p.y, dy.raw(), p.conv, algo, ws.raw(), bytes,
                                           s.zero(), p.w, dw.raw()),
            "conv");
  profile_mark("conv_backward_filter");
}

// bias [C] viewed as [1, C, 1, ...] to broadcast over y.
T bias_view(const T& bias, const Shape& y) {
  Shape s = y;
  for (size_t i = 0; i < s.rank(); ++i) s[i] = i == 1 ? y[1] : 1;
  return reshape(bias, s);
}

// Sum of g over every dim but the channels: [C].
T channel_sum(T g) {
  const Shape& s = g.shape();
  size_t spatial = 1;
  for (size_t i = 2; i < s.rank(); ++i) spatial *= s[i];
  T r = reshape(std::move(g), Shape{s[0], s[1], spatial});
  r = sum_dim(sum_dim(std::move(r), 2), 0);
  return reshape(std::move(r), Shape{s[1]});
}

Shape conv_out_shape(const Shape& x, const Shape& w, const ConvSpec& spec) {
  Shape out{x[0], w[0]};
  for (size_t i = 0; i + 2 < x.rank(); ++i)
    out.push_back(static_cast<size_t>(
        module_shapes::conv_out(x[i + 2], w[i + 2], spec.stride[i], spec.padding[i], spec.dilation[i])));
  return out;
}

Shape transpose_out_shape(const Shape& x, const Shape& w, const ConvSpec& spec) {
  Shape out{x[0], w[1] * spec.groups};
  for (size_t i = 0; i + 2 < x.rank(); ++i) {
    size_t pad_out = spec.padding_out.empty() ? 0 : spec.padding_out[i];
    out.push_back(static_cast<size_t>(module_shapes::conv_transpose_out(x[i + 2], w[i + 2], spec.stride[i],
                                                                        spec.padding[i], spec.dilation[i], pad_out)));
  }
  return out;
}

// cuDNN rejects zero-size tensors: a convolution with nothing to sum is zeros (then the bias).
bool nothing_to_sum(const T& a, const T& b, const T& c) { return a.numel() == 0 || b.numel() == 0 || c.numel() == 0; }
T zeros_like(const T& t) { return full(t.shape(), Scalar(0), t.device(), t.dtype()); }

T conv_as(T x, T w, std::optional<T> bias, const ConvSpec& spec) {
  x = contiguous(std::move(x));
  w = contiguous(std::move(w));
  T y(conv_out_shape(x.shape(), w.shape(), spec), x.dtype(), x.device());
  if (y.numel() == 0) return y;
  if (nothing_to_sum(x, w, y)) {
    y = zeros_like(y);
  } else {
    Problem p(x.shape(), w.shape(), y.shape(), spec, x.dtype(), x.device().index);
    forward(p, x, w, y);
  }
  if (bias) y = add(std::move(y), bias_view(*bias, y.shape()));
  return y;
}

ConvGradients<T> conv_backward_as(T x, T w, bool has_bias, T grad, const ConvSpec& spec) {
  x = contiguous(std::move(x));
  w = contiguous(std::move(w));
  grad = contiguous(std::move(grad));
  ConvGradients<T> out{T(x.shape(), x.dtype(), x.device()), T(w.shape(), w.dtype(), w.device()), std::nullopt};
  if (has_bias) out.bias = channel_sum(grad);
  if (nothing_to_sum(x, w, grad)) return {zeros_like(out.x), zeros_like(out.weight), out.bias};
  Problem p(x.shape(), w.shape(), grad.shape(), spec, x.dtype(), x.device().index);
  backward_data(p, w, grad, out.x);
  backward_filter(p, x, grad, out.weight);
  return out;
}

T conv_transpose_as(T x, T w, std::optional<T> bias, const ConvSpec& spec) {
  x = contiguous(std::move(x));
  w = contiguous(std::move(w));
  T y(transpose_out_shape(x.shape(), w.shape(), spec), x.dtype(), x.device());
  if (y.numel() == 0) return y;
  if (nothing_to_sum(x, w, y)) {
    y = zeros_like(y);
  } else {
    Problem p(y.shape(), w.shape(), x.shape(), spec, x.dtype(), x.device().index);  // y plays the forward input
    backward_data(p, w, x, y);
  }
  if (bias) y = add(std::move(y), bias_view(*bias, y.shape()));
  return y;
}

ConvGradients<T> conv_transpose_backward_as(T x, T w, bool has_bias, T grad, const ConvSpec& spec) {
  x = contiguous(std::move(x));
  w = contiguous(std::move(w));
  grad = contiguous(std::move(grad));
  ConvGradients<T> out{T(x.shape(), x.dtype(), x.device()), T(w.shape(), w.dtype(), w.device()), std::nullopt};
  if (has_bias) out.bias = channel_sum(grad);
  if (nothing_to_sum(x, w, grad)) return {zeros_like(out.x), zeros_like(out.weight), out.bias};
  Problem p(grad.shape(), w.shape(), x.shape(), spec, x.dtype(), x.device().index);
  forward(p, grad, w, out.x);
  backward_filter(p, grad, x, out.weight);
  return out;
}

// The dtype a convolution computes in: f32 for f16/bf16.
DType compute_dtype(DType d) { return d == DType::F16 || d == DType::BF16 ? DType::F32 : d; }
std::optional<T> cast_opt(const std::optional<T>& t, DType d) {
  if (!t) return std::nullopt;
  return cast(*t, d);
}
ConvGradients<T> cast_grads(ConvGradients<T> g, DType d) {
  if (g.x.dtype() == d) return g;
  return {cast(g.x, d), cast(g.weight, d), cast_opt(g.bias, d)};
}

}  // namespace

T conv(T x, T w, std::optional<T> bias, const ConvSpec& spec) {
  DType d = x.dtype(), c = compute_dtype(d);
  return cast(conv_as(cast(std::move(x), c), cast(std::move(w), c), cast_opt(bias, c), spec), d);
}

ConvGradients<T> conv_backward(T x, T w, bool has_bias, T grad, const ConvSpec& spec) {
  DType d = x.dtype(), c = compute_dtype(d);
  return cast_grads(
      conv_backward_as(cast(std::move(x), c), cast(std::move(w), c), has_bias, cast(std::move(grad), c), spec), d);
}

T conv_transpose(T x, T w, std::optional<T> bias, const ConvSpec& spec) {
  DType d = x.dtype(), c = compute_dtype(d);
  return cast(conv_transpose_as(cast(std::move(x), c), cast(std::move(w), c), cast_opt(bias, c), spec), d);
}

ConvGradients<T> conv_transpose_backward(T x, T w, bool has_bias, T grad, const ConvSpec& spec) {
  DType d = x.dtype(), c = compute_dtype(d);
  return cast_grads(conv_transpose_backward_as(cast(std::move(x), c), cast(std::move(w), c), has_bias,
                                               cast(std::move(grad), c), spec),
                    d);
}

}  // namespace scorch::backends::cuda::kernels

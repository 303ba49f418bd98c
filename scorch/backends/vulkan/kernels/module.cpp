// Convolution as im2col (window.comp) and batched matmuls, or as implicit GEMM (matmul.comp's IM2COL build reads the
// input's windows in place) with SCORCH_VULKAN_IMPLICIT_CONV=1, the weight gradient likewise, the input gradient as
// W[g]ᵀ · grad then col2im; the transposed convolution as that input gradient (its gradients as a convolution and a
// weight gradient); unfold/fold as im2col/col2im; and adaptive average pooling (adaptive_pool.comp). f16/bf16 compute
// in f32, as on Cpu.
#include <array>
#include <cstdlib>

#include "scorch/backend/module_shapes.h"
#include "scorch/backends/common/strided_layout.h"
#include "scorch/backends/vulkan/kernels/dispatch.h"
#include "scorch/gen/vulkan_kernel_ops.h"

namespace scorch::backends::vulkan::kernels {
using T = VulkanTensor;

namespace {

using Dims3 = std::array<int32_t, 3>;

/// window.comp's WindowParams (std430).
struct WindowParams {
  uint32_t x_addr[2], cols_addr[2];
  int32_t batch, channels, groups, total;
  Dims3 in_size, out_size, kernel, stride, padding, dilation;
};
static_assert(sizeof(WindowParams) == 104, "must match window.comp");

// dims' last `count` entries (a shape's spatial dims, or a spec's), right-aligned into 3 with fill before.
Dims3 pad3(const std::vector<size_t>& dims, size_t first, int32_t fill) {
  Dims3 out{fill, fill, fill};
  size_t n = dims.size() - first;
  for (size_t d = 0; d < n; ++d) out[3 - n + d] = static_cast<int32_t>(dims[first + d]);
  return out;
}
std::vector<size_t> dims_of(const Shape& s) { return std::vector<size_t>(s.begin(), s.end()); }

DType compute_dtype(DType d) { return d == DType::F16 || d == DType::BF16 ? DType::F32 : d; }

// The geometry of a convolution of x by w under spec.
struct ConvGeometry {
  WindowParams p{};
  size_t n, c, o, g, k, l;
  Shape out_shape;
};

// The convolution of x by w under spec; its output's spatial dims are out_dims where given (a transposed convolution's
// input, whose extent padding_out may leave short of conv_out's), else conv_out's.
ConvGeometry geometry(const Shape& x, const Shape& w, const ConvSpec& spec,
                      const std::vector<size_t>* out_dims = nullptr) {
  ConvGeometry geo;
  size_t s = x.rank() - 2;
  geo.n = x[0];
  geo.c = x[1];
  geo.o = w[0];
  geo.g = spec.groups;
  geo.out_shape = x;
  geo.out_shape[1] = geo.o;
  std::vector<size_t> out(s);
  for (size_t d = 0; d < s; ++d) {
    out[d] = out_dims ? (*out_dims)[d]
                      : static_cast<size_t>(module_shapes::conv_out(x[d + 2], w[d + 2], spec.stride[d], spec.padding[d],
                                                                    spec.dilation[d]));
    geo.out_shape[d + 2] = out[d];
  }
  WindowParams& p = geo.p;
  p.batch = static_cast<int32_t>(geo.n);
  p.channels = static_cast<int32_t>(geo.c);
  p.groups = static_cast<int32_t>(geo.g);
  p.in_size = pad3(dims_of(x), 2, 1);
  p.out_size = pad3(out, 0, 1);
  p.kernel = pad3(dims_of(w), 2, 1);
  p.stride = pad3(spec.stride, 0, 1);
  p.padding = pad3(spec.padding, 0, 0);
  p.dilation = pad3(spec.dilation, 0, 1);
  geo.k = static_cast<size_t>(p.kernel[0]) * p.kernel[1] * p.kernel[2];
  geo.l = static_cast<size_t>(p.out_size[0]) * p.out_size[1] * p.out_size[2];
  return geo;
}

void run_window(ConvGeometry geo, const T& x, const T& cols, int mode) {
  size_t total = mode == 0 ? cols.numel() : x.numel();
  if (total == 0) return;
  check_index_range("conv", cols);
  check_index_range("conv", x);
  geo.p.total = static_cast<int32_t>(total);
  split_words(geo.p.x_addr, address_of(x));
  split_words(geo.p.cols_addr, address_of(cols));
  detail::Context& ctx = context_of(x);
  uint32_t push[2] = {0, 0};  // the parameter block's address
  int32_t spec[] = {static_cast<int32_t>(x.dtype()), mode};
  ctx.dispatch_with_params(variant("window", {x.dtype()}), spec, &geo.p, sizeof(geo.p), push, sizeof(push),
                           groups_for(static_cast<int64_t>(total)));
}

// x's windows as cols [n, g, c/g · k, l].
T im2col(const ConvGeometry& geo, const T& x) {
  T cols(Shape{geo.n, geo.g, geo.c / geo.g * geo.k, geo.l}, x.dtype(), x.device());
  run_window(geo, x, cols, 0);
  return cols;
}

T reshaped(T x, Shape s) { return strided_layout::reshape(std::move(x), s); }

ConvWindow window_of(const ConvGeometry& geo) {
  const WindowParams& p = geo.p;
  return {p.batch,
          p.groups,
          p.channels / p.groups,
          static_cast<int32_t>(geo.k),
          static_cast<int32_t>(geo.l),
          p.in_size,
          p.out_size,
          p.kernel,
          p.stride,
          p.padding,
          p.dilation};
}

// a[g] · im2col(x)[n, g] (transposed: a[n, g] · im2col(x)[n, g]ᵀ) through a written column buffer, or with
// SCORCH_VULKAN_IMPLICIT_CONV=1 read in place by the implicit-GEMM build (no column buffer: less memory, but on an
// H200 the guide's b64 step took 1.54 ms against 1.24 ms: its few output tiles leave each workgroup walking the
// whole inner dim through the window arithmetic).
T window_product(const ConvGeometry& geo, const T& a, const T& x, bool transposed) {
  const char* implicit = std::getenv("SCORCH_VULKAN_IMPLICIT_CONV");
  if (implicit && std::string(implicit) == "1")
    if (auto out = conv_product(a, x, window_of(geo), transposed)) return *out;
  T cols = im2col(geo, x);
  return matmul(a, transposed ? strided_layout::swap_dims(cols, 2, 3) : cols);
}

// The input gradient of a convolution of geometry geo by w: col2im(W[g]ᵀ · grad[n, g]) as a tensor of x_shape.
T data_gradient(const ConvGeometry& geo, const T& w, const T& grad_g, const Shape& x_shape) {
  size_t og = geo.o / geo.g, ck = geo.c / geo.g * geo.k;
  T wt = strided_layout::swap_dims(reshaped(w, Shape{1, geo.g, og, ck}), 2, 3);
  T dcols = matmul(wt, grad_g);
  T dx(x_shape, dcols.dtype(), dcols.device());
  run_window(geo, dx, dcols, 1);
  return dx;
}

// The weight gradient Σ_n a[n, g] · cols(x)[n, g]ᵀ: one product per sample and group, summed over the samples (a
// single product over n·l would leave one workgroup walking the whole batch).
T weight_gradient(const ConvGeometry& geo, const T& a_g, const T& x, const Shape& w_shape) {
  return reshaped(sum_dim(window_product(geo, a_g, x, true), 0), w_shape);
}

// grad [n, c, spatial...] summed over all but its channel dim: a bias's gradient.
T channel_sum(const T& grad) {
  const Shape& s = grad.shape();
  size_t rest = 1;
  for (size_t d = 2; d < s.rank(); ++d) rest *= s[d];
  return reshaped(sum_dim(sum_dim(reshaped(grad, Shape{s[0], s[1], rest}), 2), 0), Shape{s[1]});
}

T bias_added(T out, const std::optional<T>& bias, DType cd) {
  if (!bias) return out;
  Shape b = out.shape();
  for (size_t d = 0; d < b.rank(); ++d) b[d] = d == 1 ? b[d] : 1;
  return add(std::move(out), reshaped(contiguous(cast(*bias, cd)), b));
}

ConvGradients<T> cast_gradients(ConvGradients<T> g, DType d) {
  std::optional<T> bias;
  if (g.bias) bias = cast(std::move(*g.bias), d);
  return {cast(std::move(g.x), d), cast(std::move(g.weight), d), std::move(bias)};
}

// conv_transpose's output shape: the forward convolution's input that x is the output of.
Shape transposed_shape(const Shape& x, const Shape& w, const ConvSpec& spec) {
  Shape out = x;
  out[1] = w[1] * spec.groups;
  for (size_t d = 0; d + 2 < x.rank(); ++d) {
    size_t extra = spec.padding_out.empty() ? 0 : spec.padding_out[d];
    out[d + 2] = static_cast<size_t>(module_shapes::conv_transpose_out(x[d + 2], w[d + 2], spec.stride[d],
                                                                       spec.padding[d], spec.dilation[d], extra));
  }
  return out;
}

}  // namespace

T conv(T x, T w, std::optional<T> bias, const ConvSpec& spec) {
  DType d = x.dtype(), cd = compute_dtype(d);
  x = dense_from_start(cast(std::move(x), cd));
  w = contiguous(cast(std::move(w), cd));
  ConvGeometry geo = geometry(x.shape(), w.shape(), spec);
  size_t og = geo.o / geo.g, ck = geo.c / geo.g * geo.k;
  T out = window_product(geo, reshaped(w, Shape{1, geo.g, og, ck}), x, false);  // [n, g, o/g, l]
  return cast(bias_added(reshaped(std::move(out), geo.out_shape), bias, cd), d);
}

ConvGradients<T> conv_backward(T x, T w, bool has_bias, T grad, const ConvSpec& spec) {
  DType d = x.dtype(), cd = compute_dtype(d);
  Shape x_shape = x.shape(), w_shape = w.shape();
  x = dense_from_start(cast(std::move(x), cd));
  w = contiguous(cast(std::move(w), cd));
  grad = contiguous(cast(std::move(grad), cd));
  ConvGeometry geo = geometry(x_shape, w_shape, spec);
  T grad_g = reshaped(grad, Shape{geo.n, geo.g, geo.o / geo.g, geo.l});
  ConvGradients<T> out{data_gradient(geo, w, grad_g, x_shape), weight_gradient(geo, grad_g, x, w_shape), std::nullopt};
  if (has_bias) out.bias = channel_sum(grad);
  return cast_gradients(std::move(out), d);
}

// The transposed convolution is the input gradient of the convolution whose output x is (the same weight).
T conv_transpose(T x, T w, std::optional<T> bias, const ConvSpec& spec) {
  DType d = x.dtype(), cd = compute_dtype(d);
  x = contiguous(cast(std::move(x), cd));
  w = contiguous(cast(std::move(w), cd));
  Shape y_shape = transposed_shape(x.shape(), w.shape(), spec);
  std::vector<size_t> x_dims(x.shape().begin() + 2, x.shape().end());
  ConvGeometry geo = geometry(y_shape, w.shape(), spec, &x_dims);
  T y = data_gradient(geo, w, reshaped(x, Shape{geo.n, geo.g, geo.o / geo.g, geo.l}), y_shape);
  return cast(bias_added(std::move(y), bias, cd), d);
}

// Its gradients: the convolution of grad by w (input), Σ_n x[n, g] · cols(grad)[n, g]ᵀ (weight).
ConvGradients<T> conv_transpose_backward(T x, T w, bool has_bias, T grad, const ConvSpec& spec) {
  DType d = x.dtype(), cd = compute_dtype(d);
  Shape x_shape = x.shape(), w_shape = w.shape();
  x = contiguous(cast(std::move(x), cd));
  w = contiguous(cast(std::move(w), cd));
  grad = dense_from_start(cast(std::move(grad), cd));
  std::vector<size_t> x_dims(x_shape.begin() + 2, x_shape.end());
  ConvGeometry geo = geometry(grad.shape(), w_shape, spec, &x_dims);
  size_t og = geo.o / geo.g, ck = geo.c / geo.g * geo.k;
  T dx = reshaped(window_product(geo, reshaped(w, Shape{1, geo.g, og, ck}), grad, false), x_shape);
  T x_g = reshaped(x, Shape{geo.n, geo.g, og, geo.l});
  ConvGradients<T> out{std::move(dx), weight_gradient(geo, x_g, grad, w_shape), std::nullopt};
  if (has_bias) out.bias = channel_sum(grad);
  return cast_gradients(std::move(out), d);
}

namespace {

// unfold/fold's windows as a convolution's of one group over an image of image_shape ([n, c, spatial...]).
ConvGeometry unfold_geometry(const Shape& image_shape, const PoolSpec& spec) {
  Shape w{1, image_shape[1]};
  for (size_t k : spec.kernel) w.push_back(k);
  return geometry(image_shape, w, ConvSpec{spec.stride, spec.padding, spec.dilation, {}, 1});
}

}  // namespace

T unfold4d(T x, const PoolSpec& spec) {
  DType d = x.dtype();
  x = dense_from_start(cast(std::move(x), compute_dtype(d)));
  ConvGeometry geo = unfold_geometry(x.shape(), spec);
  T cols = im2col(geo, x);  // [n, 1, c·k, l]
  return cast(reshaped(std::move(cols), Shape{geo.n, geo.c * geo.k, geo.l}), d);
}

T fold4d(T x, const SpatialDims& output_size, const PoolSpec& spec) {
  DType d = x.dtype();
  x = dense_from_start(cast(std::move(x), compute_dtype(d)));
  size_t k = 1;
  for (size_t s : spec.kernel) k *= s;
  Shape image{x.shape()[0], x.shape()[1] / k};
  for (size_t s : output_size) image.push_back(s);
  ConvGeometry geo = unfold_geometry(image, spec);
  T out(image, x.dtype(), x.device());
  run_window(geo, out, x, 1);
  return cast(std::move(out), d);
}

namespace {

struct PoolPush {
  uint32_t src_addr[2], dst_addr[2];
  int32_t planes, in0, in1, in2, out0, out1, out2;
};

void run_adaptive(const T& src, const T& dst, const Shape& in, const Shape& out, int mode) {
  size_t total = dst.numel();
  if (total == 0) return;
  check_index_range("adaptive_avg_pool", src);
  check_index_range("adaptive_avg_pool", dst);
  PoolPush p{};
  split_words(p.src_addr, address_of(src));
  split_words(p.dst_addr, address_of(dst));
  p.planes = static_cast<int32_t>(in[0] * in[1]);
  Dims3 i3 = pad3(dims_of(in), 2, 1), o3 = pad3(dims_of(out), 2, 1);
  p.in0 = i3[0], p.in1 = i3[1], p.in2 = i3[2];
  p.out0 = o3[0], p.out1 = o3[1], p.out2 = o3[2];
  int32_t spec[] = {static_cast<int32_t>(src.dtype()), mode};
  context_of(src).dispatch(variant("adaptive_pool", {src.dtype()}), spec, &p, sizeof(p),
                           groups_for(static_cast<int64_t>(total)));
}

}  // namespace

T adaptive_avg_pool(T x, const SpatialDims& output_size) {
  x = dense_from_start(std::move(x));
  Shape out_shape = x.shape();
  for (size_t d = 0; d < output_size.size(); ++d) out_shape[d + 2] = output_size[d];
  T out(out_shape, x.dtype(), x.device());
  bool empty_window = false;
  for (size_t d = 2; d < x.shape().rank(); ++d) empty_window = empty_window || (x.shape()[d] == 0 && out_shape[d] > 0);
  if (empty_window) throw ShapeError("adaptive_avg_pool", "input " + x.shape().to_string() + " has an empty dim");
  run_adaptive(x, out, x.shape(), out_shape, 0);
  return out;
}

T adaptive_avg_pool_backward(T x, T grad) {
  grad = dense_from_start(std::move(grad));
  T dx(x.shape(), grad.dtype(), x.device());
  run_adaptive(grad, dx, x.shape(), grad.shape(), 1);
  return dx;
}

}  // namespace scorch::backends::vulkan::kernels

// Neural-network operators: MatMul, Gemm, Conv, ConvTranspose, MaxPool, AveragePool, the global pools,
// BatchNormalization (inference), InstanceNormalization, LayerNormalization, LpNormalization,
// MeanVarianceNormalization, LRN, Resize and Upsample. Spatial options follow ONNX: pads list every dim's begin,
// then every dim's end; unequal begin/end pads and auto_pad SAME_* pad the input explicitly.
#include <cmath>
#include <limits>

#include "scorch/import/onnx/runtime/op_call_impl.h"

namespace scorch::onnx {
namespace {

template <class B> using Values = std::vector<Value<B>>;
template <class B> using F = typename B::FloatTensor;
template <class B> using FO = KindOps<B, Float>;
template <class B> using MO = ModuleOpsOf<B>;

template <class B> Value<B> fv(F<B> x) { return Value<B>::template of<Float>(std::move(x)); }

/// a @ b with numpy's rules: 1-D operands gain a dim that is then dropped, batch dims broadcast.
template <class B> Value<B> matmul(const OpCall<B>& c, Value<B> a, Value<B> b) {
  check::same_dtype(c.op(), a.dtype(), b.dtype());
  Shape sa = a.shape(), sb = b.shape();
  if (sa.rank() == 0 || sb.rank() == 0) c.template fail<ShapeError>("operands must have rank 1 or more");
  bool vec_a = sa.rank() == 1, vec_b = sb.rank() == 1;
  if (vec_a) a = reshape(std::move(a), Shape{1, sa[0]});
  if (vec_b) b = reshape(std::move(b), Shape{sb[0], 1});
  size_t rank = std::max(a.shape().rank(), b.shape().rank());
  a = left_pad_rank(std::move(a), rank), b = left_pad_rank(std::move(b), rank);
  check::matmul(a.shape(), b.shape());
  Value<B> r = visit_numeric(c, 0, std::move(a), [&]<class K>(auto x) {
    return Value<B>::template of<K>(KindOps<B, K>::matmul(x, std::move(b).template take<K>()));
  });
  Shape out, rs = r.shape();
  for (size_t i = 0; i + 2 < rs.rank(); ++i) out.push_back(rs[i]);
  if (!vec_a) out.push_back(rs[rs.rank() - 2]);
  if (!vec_b) out.push_back(rs[rs.rank() - 1]);
  return reshape(std::move(r), out);
}

template <class B> Value<B> gemm(const OpCall<B>& c) {
  F<B> a = c.in_float(0), b = c.in_float(1);
  if (a.shape().rank() != 2 || b.shape().rank() != 2) c.template fail<ShapeError>("A and B must be 2-D");
  if (c.attr_int("transA", 0)) a = FO<B>::permute(a, {1, 0});
  if (c.attr_int("transB", 0)) b = FO<B>::permute(b, {1, 0});
  check::matmul(a.shape(), b.shape());
  F<B> y = FO<B>::matmul(a, b);
  double alpha = c.attr_float("alpha", 1.0), beta = c.attr_float("beta", 1.0);
  if (alpha != 1.0) y = FO<B>::mul_scalar(y, Scalar(alpha));
  if (!c.has(2) || beta == 0.0) return fv<B>(y);
  Value<B> bias = c.in(2);
  if (!bias.template is<Float>()) c.fail_dtype(2, bias.dtype());
  if (beta != 1.0) bias = fv<B>(FO<B>::mul_scalar(std::move(bias).template take<Float>(), Scalar(beta)));
  auto [yy, bb] = align_ranks(c, fv<B>(y), std::move(bias));
  return fv<B>(FO<B>::add(std::move(yy).template take<Float>(), std::move(bb).template take<Float>()));
}

/// The spatial options of a conv or pool node, with explicit begin/end pads.
struct Window {
  SpatialDims kernel, stride, dilation;
  std::vector<size_t> begin, end;
  bool symmetric() const { return begin == end; }
};

/// Reads kernel_shape (or the weight's), strides, dilations, pads and auto_pad for spatial dims of x.
template <class B> Window window(const OpCall<B>& c, const Shape& x, const std::vector<size_t>& kernel) {
  size_t n = x.rank() - 2;
  Window w;
  auto get = [&](const char* name, size_t fallback) {
    auto v = c.attr_ints(name);
    if (!v.empty() && v.size() != n)
      c.template fail<ShapeError>(std::string(name) + " must have one value per spatial dim");
    std::vector<size_t> out;
    for (size_t i = 0; i < n; ++i) {
      if (!v.empty() && v[i] < 0) c.template fail<ValueError>(std::string(name) + " must not be negative");
      out.push_back(v.empty() ? fallback : size_t(v[i]));
    }
    return out;
  };
  w.kernel = kernel.empty() ? get("kernel_shape", 1) : kernel;
  w.stride = get("strides", 1), w.dilation = get("dilations", 1);
  auto pads = c.attr_ints("pads");
  if (!pads.empty() && pads.size() != 2 * n) c.template fail<ShapeError>("pads must have two values per spatial dim");
  w.begin.assign(n, 0), w.end.assign(n, 0);
  for (size_t i = 0; i < n && !pads.empty(); ++i) {
    if (pads[i] < 0 || pads[i + n] < 0) c.template fail<ValueError>("pads must not be negative");
    w.begin[i] = size_t(pads[i]), w.end[i] = size_t(pads[i + n]);
  }
  std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i) {
      size_t in = x[i + 2], s = std::max<size_t>(w.stride[i], 1), out = (in + s - 1) / s;
      int64_t span = int64_t((w.kernel[i] - 1) * w.dilation[i] + 1);
      size_t total = size_t(std::max<int64_t>(0, int64_t((out - 1) * s) + span - int64_t(in)));
      w.begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.end[i] = total - w.begin[i];
    }
  } else if (auto_pad == "VALID") {
    w.begin.assign(n, 0), w.end.assign(n, 0);
  } else if (auto_pad != "NOTSET") {
    c.template fail<ValueError>("auto_pad '" + auto_pad + "' is not supported");
  }
  double padded = double(x[0]) * double(x[1]);
  for (size_t i = 0; i < n; ++i) {
    if (w.kernel[i] == 0 || w.stride[i] == 0 || w.dilation[i] == 0)
      c.template fail<ValueError>("zero kernel, stride or dilation");
    padded *= double(x[i + 2]) + double(w.begin[i]) + double(w.end[i]);
  }
  check_created(c, padded);
  return w;
}

/// x with its spatial dims padded by begin/end elements of value.
template <class B> F<B> pad_spatial(const OpCall<B>& c, F<B> x, const Window& w, double value) {
  Shape s = x.shape(), out = s;
  SliceRanges at;
  at.push_back({0, s[0], 1}), at.push_back({0, s[1], 1});
  for (size_t i = 0; i + 2 < s.rank(); ++i) {
    out[i + 2] = s[i + 2] + w.begin[i] + w.end[i];
    at.push_back({w.begin[i], w.begin[i] + s[i + 2], 1});
  }
  return FO<B>::slice_assign(FO<B>::full(out, Scalar(value), c.device(), x.dtype()), at, x);
}

template <class B> F<B> channel_view(F<B> v, size_t rank) {
  Shape s{1, v.shape().num_elements()};
  while (s.rank() < rank) s.push_back(1);
  return FO<B>::reshape(v, s);
}

template <class B> Value<B> conv(const OpCall<B>& c) {
  F<B> x = c.in_float(0), w = c.in_float(1);
  Shape xs = x.shape(), ws = w.shape();
  if (xs.rank() < 3 || xs.rank() > 5 || ws.rank() != xs.rank())
    c.template fail<ShapeError>("input " + xs.to_string() + " and weight " + ws.to_string() +
                                " must be [N, C, 1 to 3 spatial dims]");
  Window win = window(c, xs, std::vector<size_t>(ws.begin() + 2, ws.end()));
  ConvSpec spec{win.stride, win.begin, win.dilation, SpatialDims(win.kernel.size(), 0), size_t(c.attr_int("group", 1))};
  if (spec.groups == 0 || xs[1] != ws[1] * spec.groups || ws[0] % spec.groups)
    c.template fail<ShapeError>("input channels " + std::to_string(xs[1]) + " do not match weight " + ws.to_string() +
                                " and group " + std::to_string(spec.groups));
  if (!win.symmetric()) {
    x = pad_spatial(c, x, win, 0.0);
    spec.padding.assign(win.kernel.size(), 0);
  }
  std::optional<F<B>> bias;
  if (c.has(2)) bias = c.in_float(2);
  if (bias && bias->shape() != Shape{ws[0]})
    c.template fail<ShapeError>("bias " + bias->shape().to_string() + " must be [" + std::to_string(ws[0]) + "]");
  return fv<B>(MO<B>::conv(x, w, bias, spec));
}

/// Checks ConvTranspose's group, output_padding and output_shape, and caps the unpadded output's size.
template <class B> void check_conv_transpose(const OpCall<B>& c, const Shape& xs, const Shape& ws, const Window& win,
                                             size_t groups, const std::vector<int64_t>& out_pad,
                                             const std::vector<int64_t>& out_shape) {
  size_t n = xs.rank() - 2;
  if (groups == 0 || xs[1] % groups)
    c.template fail<ShapeError>("group " + std::to_string(groups) + " does not divide the input channels");
  if ((!out_pad.empty() && out_pad.size() != n) ||
      (!out_shape.empty() && out_shape.size() != n && out_shape.size() != n + 2))
    c.template fail<ShapeError>("output_padding and output_shape must have one value per spatial dim");
  double full_size = double(xs[0]) * double(ws[1] * groups);
  for (size_t i = 0; i < n; ++i) {
    if ((!out_pad.empty() && out_pad[i] < 0) || (!out_shape.empty() && out_shape[out_shape.size() - n + i] < 0))
      c.template fail<ValueError>("output_padding and output_shape must not be negative");
    full_size *= double(xs[i + 2]) * double(win.stride[i]) + double(win.kernel[i]) * double(win.dilation[i]);
  }
  check_created(c, full_size);
}

template <class B> Value<B> conv_transpose(const OpCall<B>& c) {
  F<B> x = c.in_float(0), w = c.in_float(1);
  Shape xs = x.shape(), ws = w.shape();
  if (xs.rank() < 3 || xs.rank() > 5 || ws.rank() != xs.rank() || ws[0] != xs[1])
    c.template fail<ShapeError>("input " + xs.to_string() + " and weight " + ws.to_string() + " do not match");
  size_t n = xs.rank() - 2, groups = size_t(c.attr_int("group", 1));
  Window win = window(c, xs, std::vector<size_t>(ws.begin() + 2, ws.end()));
  auto out_pad = c.attr_ints("output_padding"), out_shape = c.attr_ints("output_shape");
  check_conv_transpose(c, xs, ws, win, groups, out_pad, out_shape);
  ConvSpec spec{win.stride, SpatialDims(n, 0), win.dilation, SpatialDims(n, 0), groups};
  F<B> full = MO<B>::conv_transpose(x, w, std::nullopt, spec);  // no padding: crop below
  Shape fs = full.shape(), target = fs;
  std::vector<size_t> begin(n);
  for (size_t i = 0; i < n; ++i) {
    size_t extra = out_pad.empty() ? 0 : size_t(out_pad.at(i));
    size_t fsz = fs[i + 2];
    if (!out_shape.empty()) {
      int64_t total = int64_t(fsz + extra) - out_shape.at(out_shape.size() - n + i);
      bool upper = c.attr_string("auto_pad", "NOTSET") != "SAME_LOWER";
      int64_t lo = upper ? total / 2 : total - total / 2;
      begin[i] = size_t(std::max<int64_t>(lo, 0));
      target[i + 2] = size_t(out_shape.at(out_shape.size() - n + i));
    } else if (std::string ap = c.attr_string("auto_pad", "NOTSET"); ap == "SAME_UPPER" || ap == "SAME_LOWER") {
      target[i + 2] = xs[i + 2] * win.stride[i];
      size_t total = fsz + extra - std::min(fsz + extra, target[i + 2]);
      begin[i] = ap == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else {
      begin[i] = win.begin[i];
      int64_t size = int64_t(fsz + extra) - int64_t(win.begin[i] + win.end[i]);
      if (size < 0) c.template fail<ShapeError>("pads remove the whole output");
      target[i + 2] = size_t(size);
    }
  }
  // Crop the padding; output_padding cells past the full result hold only the bias.
  Shape grown = fs;
  for (size_t i = 0; i < n; ++i) grown[i + 2] = std::max(fs[i + 2], begin[i] + target[i + 2]);
  check_created(c, grown);
  if (grown != fs) {
    SliceRanges at;
    for (size_t d : fs) at.push_back({0, d, 1});
    full = FO<B>::slice_assign(FO<B>::zeros(grown, c.device(), full.dtype()), at, full);
  }
  SliceRanges keep{{0, fs[0], 1}, {0, fs[1], 1}};
  for (size_t i = 0; i < n; ++i) keep.push_back({begin[i], begin[i] + target[i + 2], 1});
  F<B> y = FO<B>::slice(full, keep);
  if (c.has(2) && c.in(2).shape() != Shape{fs[1]})
    c.template fail<ShapeError>("bias must be [" + std::to_string(fs[1]) + "]");
  if (c.has(2)) y = FO<B>::add(y, channel_view<B>(c.in_float(2), y.shape().rank()));
  return fv<B>(y);
}

template <class B> Values<B> max_pool(const OpCall<B>& c) {
  if (c.in(0).template is<Int>()) {  // integers pool exactly in f64
    DType dtype = c.in(0).dtype();
    Node node = c.node();
    OpCall<B> wide(node, {cast(Value<B>(c.in(0)), DType::F64)}, c.opset(), c.device());
    Values<B> out = max_pool(wide);
    out[0] = cast(std::move(out[0]), dtype);
    return out;
  }
  F<B> x = c.in_float(0);
  Shape xs = x.shape();
  if (xs.rank() < 3 || xs.rank() > 5)
    c.template fail<ShapeError>("input must be [N, C, 1 to 3 spatial dims], got " + xs.to_string());
  Window win = window(c, xs, {});
  PoolSpec spec{win.kernel, win.stride, win.begin, win.dilation, c.attr_int("ceil_mode", 0) != 0, true};
  bool want_indices = c.node().outputs.size() > 1 && !c.node().outputs[1].empty();
  if (!win.symmetric()) {
    if (want_indices) c.template fail<ValueError>("Indices with unequal pads are not supported");
    x = pad_spatial(c, x, win, -std::numeric_limits<double>::infinity());
    spec.padding.assign(win.kernel.size(), 0);
  }
  if (!want_indices) return {fv<B>(MO<B>::max_pool(x, spec))};
  auto [y, idx] = MO<B>::max_pool_with_indices(x, spec);
  // ONNX counts indices over the whole tensor: add each (n, c) plane's offset.
  size_t plane = 1;
  for (size_t i = 2; i < xs.rank(); ++i) plane *= xs[i];
  Shape ys = y.shape();
  auto offsets = KindOps<B, Int>::arange(0, int64_t(xs[0] * xs[1] * plane), int64_t(plane), c.device(), DType::I64);
  Shape line{xs[0], xs[1]};
  while (line.rank() < ys.rank()) line.push_back(1);
  using IO = KindOps<B, Int>;
  idx = IO::cast(idx, DType::I64);
  if (c.attr_int("storage_order", 0) != 0) {  // column-major planes: h·W + w becomes w·H + h
    if (xs.rank() != 4) c.template fail<ValueError>("storage_order 1 needs 2 spatial dims");
    auto h = IO::div_scalar(idx, Scalar(int64_t(xs[3]))), w = IO::remainder_scalar(idx, Scalar(int64_t(xs[3])));
    idx = IO::add(IO::mul_scalar(w, Scalar(int64_t(xs[2]))), h);
  }
  idx = IO::add(idx, IO::reshape(offsets, line));
  return {fv<B>(y), Value<B>::template of<Int>(idx)};
}

template <class B> Value<B> avg_pool(const OpCall<B>& c) {
  F<B> x = c.in_float(0);
  Shape xs = x.shape();
  if (xs.rank() < 3 || xs.rank() > 5)
    c.template fail<ShapeError>("input must be [N, C, 1 to 3 spatial dims], got " + xs.to_string());
  Window win = window(c, xs, {});
  bool include_pad = c.attr_int("count_include_pad", 0) != 0;
  PoolSpec spec{win.kernel, win.stride, win.begin, win.dilation, c.attr_int("ceil_mode", 0) != 0, include_pad};
  if (win.symmetric()) return fv<B>(MO<B>::avg_pool(x, spec));
  spec.padding.assign(win.kernel.size(), 0), spec.count_include_pad = true;
  F<B> sum_mean = MO<B>::avg_pool(pad_spatial(c, x, win, 0.0), spec);
  if (include_pad) return fv<B>(sum_mean);
  // Divide by the real elements of each window: the same pool over ones padded with zeros.
  F<B> ones = FO<B>::ones(Shape{1, 1}, c.device(), x.dtype());
  Shape one_plane = xs;
  one_plane[0] = 1, one_plane[1] = 1;
  F<B> count = MO<B>::avg_pool(
      pad_spatial(c, FO<B>::expand(FO<B>::reshape(ones, Shape(std::vector<size_t>(xs.rank(), 1))), one_plane), win,
                  0.0),
      spec);
  return fv<B>(FO<B>::div(sum_mean, count));
}

template <class B> Value<B> global_pool(const OpCall<B>& c, bool max) {
  F<B> x = c.in_float(0);
  for (size_t d = 2; d < x.shape().rank(); ++d) x = max ? FO<B>::max_dim(x, d) : FO<B>::mean_dim(x, d);
  return fv<B>(x);
}

/// (x − mean) / sqrt(var + eps) over dims, with the mean and 1/std (reduced dims kept).
template <class B> std::tuple<F<B>, F<B>, F<B>> normalize(F<B> x, const std::vector<size_t>& dims, double eps) {
  F<B> mean = x;
  for (size_t d : dims) mean = FO<B>::mean_dim(mean, d);
  F<B> centered = FO<B>::sub(x, mean);
  F<B> var = FO<B>::mul(centered, centered);
  for (size_t d : dims) var = FO<B>::mean_dim(var, d);
  F<B> inv_std = FO<B>::recip(FO<B>::sqrt(FO<B>::add_scalar(var, Scalar(eps))));
  return {FO<B>::mul(centered, inv_std), mean, inv_std};
}

/// Training mode normalizes with the batch's statistics (biased variance) and also returns the running mean and
/// variance moved toward them by 1 − momentum.
template <class B> Values<B> batch_norm(const OpCall<B>& c) {
  F<B> x = c.in_float(0);
  size_t r = x.shape().rank();
  if (r < 2) c.template fail<ShapeError>("input must be [N, C, ...]");
  double eps = c.attr_float("epsilon", 1e-5);
  auto param = [&](size_t i) { return FO<B>::cast(c.in_float(i), x.dtype()); };  // ONNX lets mean/var differ
  F<B> mean = param(3), var = param(4);
  Values<B> running;
  if (c.attr_int("training_mode", 0)) {
    std::vector<size_t> dims{0};
    for (size_t d = 2; d < r; ++d) dims.push_back(d);
    F<B> batch_mean = x;
    for (size_t d : dims) batch_mean = FO<B>::mean_dim(batch_mean, d);
    F<B> centered = FO<B>::sub(x, batch_mean), batch_var = FO<B>::mul(centered, centered);
    for (size_t d : dims) batch_var = FO<B>::mean_dim(batch_var, d);
    Shape cs{x.shape()[1]};
    batch_mean = FO<B>::reshape(batch_mean, cs), batch_var = FO<B>::reshape(batch_var, cs);
    double m = c.attr_float("momentum", 0.9);
    auto blend = [&](F<B> old, F<B> now) {
      return FO<B>::add(FO<B>::mul_scalar(old, Scalar(m)), FO<B>::mul_scalar(now, Scalar(1 - m)));
    };
    running = {fv<B>(blend(mean, batch_mean)), fv<B>(blend(var, batch_var))};
    mean = batch_mean, var = batch_var;
  }
  F<B> inv = FO<B>::recip(FO<B>::sqrt(FO<B>::add_scalar(var, Scalar(eps))));
  F<B> scale = FO<B>::mul(param(1), inv);
  F<B> shift = FO<B>::sub(param(2), FO<B>::mul(mean, scale));
  Values<B> out{fv<B>(FO<B>::add(FO<B>::mul(x, channel_view<B>(scale, r)), channel_view<B>(shift, r)))};
  out.insert(out.end(), running.begin(), running.end());
  return out;
}

template <class B> Value<B> instance_norm(const OpCall<B>& c) {
  F<B> x = c.in_float(0);
  size_t r = x.shape().rank();
  std::vector<size_t> dims;
  for (size_t d = 2; d < r; ++d) dims.push_back(d);
  F<B> y = std::get<0>(normalize<B>(x, dims, c.attr_float("epsilon", 1e-5)));
  return fv<B>(FO<B>::add(FO<B>::mul(y, channel_view<B>(c.in_float(1), r)), channel_view<B>(c.in_float(2), r)));
}

template <class B> Values<B> layer_norm(const OpCall<B>& c) {
  F<B> x = c.in_float(0);
  Shape s = x.shape();
  size_t axis = c.axis(c.attr_int("axis", -1), s.rank());
  std::vector<size_t> dims;
  for (size_t d = axis; d < s.rank(); ++d) dims.push_back(d);
  bool only_y = c.node().outputs.size() < 2 ||
                (c.node().outputs[1].empty() && (c.node().outputs.size() < 3 || c.node().outputs[2].empty()));
  auto row = [&](size_t i) {
    return c.has(i) && c.in(i).template is<Float>() && c.in(i).dtype() == x.dtype() &&
           c.in(i).shape() == Shape{s[s.rank() - 1]};
  };
  if (only_y && axis + 1 == s.rank() && row(1) && (!c.has(2) || row(2))) {  // the backend's fused kernel
    std::optional<F<B>> beta;
    if (c.has(2)) beta = c.in_float(2);
    return {fv<B>(MO<B>::layer_norm(x, c.in_float(1), beta, c.attr_float("epsilon", 1e-5)))};
  }
  auto [y, mean, inv_std] = normalize<B>(x, dims, c.attr_float("epsilon", 1e-5));
  auto affine = [&](size_t i) {
    if (!c.in(i).template is<Float>() || c.in(i).dtype() != x.dtype()) c.fail_dtype(i, c.in(i).dtype());
    Value<B> p = left_pad_rank(Value<B>(c.in(i)), s.rank());
    broadcast_shape(c.op(), s, p.shape());
    return std::move(p).template take<Float>();
  };
  y = FO<B>::mul(y, affine(1));
  if (c.has(2)) y = FO<B>::add(y, affine(2));
  return {fv<B>(y), fv<B>(mean), fv<B>(inv_std)};
}

template <class B> Value<B> lp_norm(const OpCall<B>& c) {
  F<B> x = c.in_float(0);
  size_t axis = c.axis(c.attr_int("axis", -1), x.shape().rank());
  int64_t p = c.attr_int("p", 2);
  F<B> norm = p == 1 ? FO<B>::sum_dim(FO<B>::abs(x), axis) : FO<B>::sqrt(FO<B>::sum_dim(FO<B>::mul(x, x), axis));
  if (p != 1 && p != 2) c.template fail<ValueError>("p must be 1 or 2");
  return fv<B>(FO<B>::div(x, norm));
}

template <class B> Value<B> mean_variance_norm(const OpCall<B>& c) {
  F<B> x = c.in_float(0);
  std::vector<size_t> dims = axes_attr(c, x.shape().rank());
  if (!c.has_attr("axes"))
    dims = {c.axis(0, x.shape().rank()), c.axis(2, x.shape().rank()), c.axis(3, x.shape().rank())};
  return fv<B>(std::get<0>(normalize<B>(x, dims, 1e-9)));
}

template <class B> Value<B> lrn(const OpCall<B>& c) {
  F<B> x = c.in_float(0);
  Shape s = x.shape();
  int64_t size_attr = c.attr_int("size", 0);
  if (s.rank() < 3 || size_attr <= 0 || size_attr > 4096)
    c.template fail<ShapeError>("needs [N, C, ...] input and a size in [1, 4096]");
  auto size = size_t(size_attr);
  double alpha = c.attr_float("alpha", 1e-4), beta = c.attr_float("beta", 0.75), bias = c.attr_float("bias", 1.0);
  size_t before = (size - 1) / 2, after = size - 1 - before;
  F<B> sq = FO<B>::mul(x, x);
  Shape padded = s;
  padded[1] += before + after;
  SliceRanges at;
  for (size_t i = 0; i < s.rank(); ++i) at.push_back({i == 1 ? before : 0, i == 1 ? before + s[1] : s[i], 1});
  F<B> sqp = FO<B>::slice_assign(FO<B>::zeros(padded, c.device(), x.dtype()), at, sq);
  F<B> sum = FO<B>::zeros(s, c.device(), x.dtype());
  for (size_t k = 0; k < size; ++k) {
    SliceRanges r;
    for (size_t i = 0; i < s.rank(); ++i) r.push_back({i == 1 ? k : 0, i == 1 ? k + s[1] : s[i], 1});
    sum = FO<B>::add(sum, FO<B>::slice(sqp, r));
  }
  F<B> denom = FO<B>::powf_scalar(FO<B>::add_scalar(FO<B>::mul_scalar(sum, Scalar(alpha / double(size))), Scalar(bias)),
                                  Scalar(beta));
  return fv<B>(FO<B>::div(x, denom));
}

}  // namespace

template <class B> void register_nn_ops(OpTable<B>& t) {
  t["MatMul"] = [](const OpCall<B>& c) -> Values<B> { return {matmul(c, c.take(0), c.take(1))}; };
  t["Gemm"] = [](const OpCall<B>& c) -> Values<B> { return {gemm(c)}; };
  t["Conv"] = [](const OpCall<B>& c) -> Values<B> { return {conv(c)}; };
  t["ConvTranspose"] = [](const OpCall<B>& c) -> Values<B> { return {conv_transpose(c)}; };
  t["MaxPool"] = [](const OpCall<B>& c) -> Values<B> { return max_pool(c); };
  t["AveragePool"] = [](const OpCall<B>& c) -> Values<B> { return {avg_pool(c)}; };
  t["GlobalAveragePool"] = [](const OpCall<B>& c) -> Values<B> { return {global_pool(c, false)}; };
  t["GlobalMaxPool"] = [](const OpCall<B>& c) -> Values<B> { return {global_pool(c, true)}; };
  t["BatchNormalization"] = [](const OpCall<B>& c) { return batch_norm(c); };
  t["InstanceNormalization"] = [](const OpCall<B>& c) -> Values<B> { return {instance_norm(c)}; };
  t["LayerNormalization"] = [](const OpCall<B>& c) -> Values<B> { return layer_norm(c); };
  t["LpNormalization"] = [](const OpCall<B>& c) -> Values<B> { return {lp_norm(c)}; };
  t["MeanVarianceNormalization"] = [](const OpCall<B>& c) -> Values<B> { return {mean_variance_norm(c)}; };
  t["LRN"] = [](const OpCall<B>& c) -> Values<B> { return {lrn(c)}; };
}

}  // namespace scorch::onnx

SCORCH_ONNX_INSTANTIATE(register_nn_ops)

// Resize (and the older Upsample) as ONNX's reference computes it: each resized axis in turn, every output
// element a weighted sum of a few input elements along that axis. The source coordinate comes from the
// coordinate_transformation_mode, the taps and weights from the mode (nearest with its rounding, linear, cubic with
// cubic_coeff_a and exclude_outside); taps past the edge repeat the edge element. Taps and weights are computed on
// the host per axis; the device gathers the taps (select) and sums them weighted.
#include <cmath>

#include "scorch/import/onnx/runtime/op_call_impl.h"

namespace scorch::onnx {
namespace {

template <class B> using Values = std::vector<Value<B>>;

/// How one axis is resized.
struct AxisResize {
  size_t in = 0, out = 0;
  double scale = 1;  // output_width / input_width as ONNX's reference uses it
  double roi_start = 0, roi_end = 1;
};

/// The node's resize options.
struct ResizeMode {
  std::string mode, coords, nearest;
  double cubic_a = -0.75, extrapolation = 0;
  bool exclude_outside = false;
};

/// One output element's taps along an axis: input indices (clamped), weights, and whether it is extrapolated.
struct Taps {
  std::vector<int64_t> index;
  std::vector<double> weight;
  bool outside = false;
};

double source_coordinate(const ResizeMode& m, const AxisResize& a, double x) {
  double in = double(a.in), out_width = a.scale * double(a.in);
  if (m.coords == "align_corners") return a.out == 1 || out_width == 1 ? 0.0 : x * (in - 1) / (out_width - 1);
  if (m.coords == "asymmetric") return x / a.scale;
  if (m.coords == "pytorch_half_pixel") return out_width == 1 ? -0.5 : (x + 0.5) / a.scale - 0.5;
  if (m.coords == "tf_half_pixel_for_nn") return (x + 0.5) / a.scale;
  if (m.coords == "tf_crop_and_resize") {
    double span = (a.roi_end - a.roi_start) * (in - 1);
    return (out_width == 1 ? span / 2 : x * span / (out_width - 1)) + a.roi_start * (in - 1);
  }
  return (x + 0.5) / a.scale - 0.5;  // half_pixel
}

/// The mode's coefficients at ratio in (0, 1] (1 when the coordinate is whole: all weight on the right tap).
std::vector<double> coefficients(const ResizeMode& m, double r) {
  if (m.mode == "nearest") {
    if (r == 1) return {0, 1};
    if (m.nearest == "round_prefer_ceil") return {double(r < 0.5), double(r >= 0.5)};
    if (m.nearest == "floor") return {1, 0};
    if (m.nearest == "ceil") return {0, 1};
    return {double(r <= 0.5), double(r > 0.5)};  // round_prefer_floor
  }
  if (m.mode == "linear") return {1 - r, r};
  double A = m.cubic_a, u = r + 1, v = 1 - r, w = 2 - r;
  return {((A * u - 5 * A) * u + 8 * A) * u - 4 * A, ((A + 2) * r - (A + 3)) * r * r + 1,
          ((A + 2) * v - (A + 3)) * v * v + 1, ((A * w - 5 * A) * w + 8 * A) * w - 4 * A};
}

Taps taps_at(const ResizeMode& m, const AxisResize& a, size_t o) {
  double x = source_coordinate(m, a, double(o));
  Taps t;
  if (m.coords == "tf_crop_and_resize" && (x < 0 || x > double(a.in) - 1)) {
    t.outside = true;
    return t;
  }
  double whole = std::floor(x), r = x == whole ? 1.0 : x - whole;
  int64_t base = int64_t(r == 1.0 ? x - 1 : whole);
  std::vector<double> coeff = coefficients(m, r);
  int64_t n = int64_t(coeff.size()), first = base - (n / 2 - 1);
  double total = 0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t i = first + k;
    if (m.exclude_outside && (i < 0 || i >= int64_t(a.in))) coeff[size_t(k)] = 0;
    total += coeff[size_t(k)];
  }
  for (int64_t k = 0; k < n; ++k) {
    t.index.push_back(std::clamp<int64_t>(first + k, 0, int64_t(a.in) - 1));
    t.weight.push_back(m.exclude_outside && total != 0 ? coeff[size_t(k)] / total : coeff[size_t(k)]);
  }
  return t;
}

/// x resized along dim: Σ_k select(x, taps k) · weight k, plus the extrapolation value where outside.
template <class B>
Value<B> resize_axis(const OpCall<B>& c, Value<B> x, size_t dim, const ResizeMode& m, const AxisResize& a) {
  check_created(c, 4.0 * double(a.out));
  std::vector<Taps> all;
  for (size_t o = 0; o < a.out; ++o) all.push_back(taps_at(m, a, o));
  size_t n = m.mode == "nearest" ? 1 : m.mode == "linear" ? 2 : 4;
  Shape line(std::vector<size_t>(x.shape().rank(), 1));
  line[dim] = a.out;
  auto upload_ints = [&](std::vector<int64_t> v) {
    return KindOps<B, Int>::from_data(TensorData(v, Shape{v.size()}), c.device());
  };
  if (m.mode == "nearest") {  // one tap: the one with weight 1 (any kind), or the extrapolation value outside
    std::vector<int64_t> pick;
    std::vector<uint8_t> outside;
    for (const Taps& t : all) {
      pick.push_back(t.outside ? 0 : t.weight[0] > 0.5 ? t.index[0] : t.index[1]);
      outside.push_back(t.outside);
    }
    Value<B> y = select(std::move(x), dim, upload_ints(pick));
    if (std::find(outside.begin(), outside.end(), 1) == outside.end()) return y;
    Shape ys = y.shape();
    auto mask = KindOps<B, Bool>::expand(
        KindOps<B, Bool>::from_data(TensorData(outside, line).convert(DType::Bool), c.device()), ys);
    return visit_kind(std::move(y), [&]<class K>(auto p) {
      Scalar fill = std::is_same_v<K, Float> ? Scalar(m.extrapolation) : Scalar(int64_t(m.extrapolation));
      if constexpr (std::is_same_v<K, Bool>) fill = Scalar(m.extrapolation != 0);
      return Value<B>::template of<K>(KindOps<B, K>::mask_fill(p, mask, fill));
    });
  }
  if (!x.template is<Float>()) c.fail_dtype(0, x.dtype());
  auto xf = std::move(x).template take<Float>();
  using FO = KindOps<B, Float>;
  std::optional<typename B::FloatTensor> sum;
  for (size_t k = 0; k < n; ++k) {
    std::vector<int64_t> idx;
    std::vector<double> w;
    for (const Taps& t : all) idx.push_back(t.outside ? 0 : t.index[k]), w.push_back(t.outside ? 0 : t.weight[k]);
    auto wt = FO::from_data(TensorData(w, line).convert(xf.dtype()), c.device());
    auto term = FO::mul(FO::select(xf, dim, upload_ints(idx)), wt);
    sum = sum ? FO::add(*sum, term) : term;
  }
  if (m.coords == "tf_crop_and_resize") {
    std::vector<double> outside;
    for (const Taps& t : all) outside.push_back(t.outside ? m.extrapolation : 0);
    sum = FO::add(*sum, FO::from_data(TensorData(outside, line).convert(xf.dtype()), c.device()));
  }
  return Value<B>::template of<Float>(*sum);
}

template <class B> ResizeMode resize_mode(const OpCall<B>& c, bool upsample) {
  ResizeMode m;
  bool modern = !upsample && c.opset() >= 11;
  m.mode = c.attr_string("mode", "nearest");
  if (m.mode == "bilinear") m.mode = "linear";
  if (m.mode != "nearest" && m.mode != "linear" && m.mode != "cubic")
    c.template fail<ValueError>("mode '" + m.mode + "' is not supported");
  m.coords = modern ? c.attr_string("coordinate_transformation_mode", "half_pixel") : "asymmetric";
  m.nearest = modern ? c.attr_string("nearest_mode", "round_prefer_floor") : "floor";
  m.cubic_a = c.attr_float("cubic_coeff_a", -0.75);
  m.exclude_outside = c.attr_int("exclude_outside", 0) != 0;
  m.extrapolation = c.attr_float("extrapolation_value", 0.0);
  static const char* known[] = {"half_pixel", "pytorch_half_pixel",   "align_corners",
                                "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  if (std::find(std::begin(known), std::end(known), m.coords) == std::end(known))
    c.template fail<ValueError>("coordinate_transformation_mode '" + m.coords + "' is not supported");
  return m;
}

template <class B> Value<B> resize(const OpCall<B>& c) {
  bool upsample = c.node().op_type == "Upsample";
  Shape s = c.in(0).shape();
  std::vector<double> scales, roi;
  std::vector<int64_t> sizes;
  if (upsample) scales = c.opset() >= 9 ? c.host_doubles(1) : c.attr_floats("scales");
  else if (c.opset() >= 11) {
    if (c.has(3)) sizes = c.host_ints(3);
    else if (c.has(2)) scales = c.host_doubles(2);
    if (c.has(1)) roi = c.host_doubles(1);
  } else {
    scales = c.host_doubles(1);
  }
  if (scales.empty() && sizes.empty()) c.template fail<ValueError>("neither scales nor sizes is given");
  if ((!scales.empty() && scales.size() != s.rank()) || (!sizes.empty() && sizes.size() != s.rank()))
    c.template fail<ShapeError>("scales or sizes must have one value per dim of " + s.to_string());
  ResizeMode m = resize_mode(c, upsample);
  double total = 1;
  for (size_t d = 0; d < s.rank(); ++d)
    total *= sizes.empty() ? std::floor(double(s[d]) * scales[d]) : double(sizes[d]);
  check_created(c, total);
  Value<B> x = c.take(0);
  for (size_t d = 0; d < s.rank(); ++d) {
    AxisResize a;
    a.in = s[d];
    if (!sizes.empty()) {
      if (sizes[d] < 0 || sizes[d] > int64_t(1) << 31) c.template fail<ValueError>("size " + std::to_string(sizes[d]));
      a.out = size_t(sizes[d]), a.scale = a.in ? double(a.out) / double(a.in) : 1.0;
    } else {
      if (!(scales[d] > 0) || double(a.in) * scales[d] > double(int64_t(1) << 31))
        c.template fail<ValueError>("scale " + std::to_string(scales[d]));
      a.scale = scales[d], a.out = size_t(std::floor(double(a.in) * a.scale));
    }
    if (roi.size() == 2 * s.rank()) a.roi_start = roi[d], a.roi_end = roi[d + s.rank()];
    bool identity = a.out == a.in && a.scale == 1.0 && m.coords != "tf_crop_and_resize";
    if (identity) continue;
    if (a.in == 0 || a.out == 0)
      c.template fail<ShapeError>("cannot resize dim " + std::to_string(d) + " of " + s.to_string() + " to " +
                                  std::to_string(a.out));
    x = resize_axis(c, std::move(x), d, m, a);
  }
  return x;
}

}  // namespace

template <class B> void register_resize_ops(OpTable<B>& t) {
  t["Resize"] = [](const OpCall<B>& c) -> Values<B> { return {resize(c)}; };
  t["Upsample"] = t["Resize"];
}

}  // namespace scorch::onnx

SCORCH_ONNX_INSTANTIATE(register_resize_ops)

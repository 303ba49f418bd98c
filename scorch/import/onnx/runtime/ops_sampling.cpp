// Sampling operators computed on the host as PyTorch and ONNX's reference define them: GridSample (bilinear,
// nearest, bicubic; zeros, border, reflection padding) and RoiAlign (avg and max pooling of bilinear samples).
#include <cmath>

#include "scorch/import/onnx/runtime/op_call_impl.h"

namespace scorch::onnx {
namespace {

template <class B> using Values = std::vector<Value<B>>;

/// A [N, C, H, W] image on the host, in f64.
struct Image {
  std::vector<double> v;
  size_t n, c, h, w;
  double at(size_t b, size_t ch, int64_t y, int64_t x) const {
    if (y < 0 || x < 0 || y >= int64_t(h) || x >= int64_t(w)) return 0.0;
    return v[((b * c + ch) * h + size_t(y)) * w + size_t(x)];
  }
};

template <class B> Image host_image(const OpCall<B>& c, size_t input) {
  TensorData d = c.in(input).to_data();
  Shape s = d.shape();
  if (s.rank() != 4)
    c.template fail<ShapeError>("input " + std::to_string(input) + " must be [N, C, H, W], got " + s.to_string());
  return {d.convert(DType::F64).to_vector<double>(), s[0], s[1], s[2], s[3]};
}

/// PyTorch's reflect_coordinates: coord reflected into [low/2, high/2].
double reflect(double coord, double twice_low, double twice_high) {
  if (twice_low == twice_high) return 0;
  double low = twice_low / 2, span = (twice_high - twice_low) / 2;
  coord = std::fabs(coord - low);
  double extra = std::fmod(coord, span);
  int64_t flips = int64_t(std::floor(coord / span));
  return flips % 2 == 0 ? extra + low : span - extra + low;
}

struct GridMode {
  std::string mode, padding;
  bool align = false;
  /// A padded coordinate along a dim of size n (border clips, reflection reflects then clips).
  double pad(double x, size_t n) const {
    if (padding == "border") return std::clamp(x, 0.0, double(n) - 1);
    if (padding == "reflection") {
      x = align ? reflect(x, 0, 2 * (double(n) - 1)) : reflect(x, -1, 2 * double(n) - 1);
      return std::clamp(x, 0.0, double(n) - 1);
    }
    return x;
  }
};

double cubic_near(double x, double a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
double cubic_far(double x, double a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

double grid_sample_at(const Image& im, const GridMode& m, size_t b, size_t ch, double gx, double gy) {
  auto unnormalize = [&](double g, size_t n) {
    return m.align ? (g + 1) / 2 * (double(n) - 1) : ((g + 1) * double(n) - 1) / 2;
  };
  double x = unnormalize(gx, im.w), y = unnormalize(gy, im.h);
  if (m.mode == "bicubic") {  // taps padded one by one
    double x0 = std::floor(x), y0 = std::floor(y), tx = x - x0, ty = y - y0, a = -0.75;
    double cx[4] = {cubic_far(tx + 1, a), cubic_near(tx, a), cubic_near(1 - tx, a), cubic_far(2 - tx, a)};
    double cy[4] = {cubic_far(ty + 1, a), cubic_near(ty, a), cubic_near(1 - ty, a), cubic_far(2 - ty, a)};
    double sum = 0;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        double px = m.pad(x0 - 1 + j, im.w), py = m.pad(y0 - 1 + i, im.h);
        sum += cy[i] * cx[j] * im.at(b, ch, int64_t(py), int64_t(px));
      }
    return sum;
  }
  x = m.pad(x, im.w), y = m.pad(y, im.h);
  if (m.mode == "nearest") return im.at(b, ch, int64_t(std::nearbyint(y)), int64_t(std::nearbyint(x)));
  double x0 = std::floor(x), y0 = std::floor(y), tx = x - x0, ty = y - y0;
  auto X = int64_t(x0), Y = int64_t(y0);
  return im.at(b, ch, Y, X) * (1 - tx) * (1 - ty) + im.at(b, ch, Y, X + 1) * tx * (1 - ty) +
         im.at(b, ch, Y + 1, X) * (1 - tx) * ty + im.at(b, ch, Y + 1, X + 1) * tx * ty;
}

template <class B> Value<B> grid_sample(const OpCall<B>& c) {
  Image im = host_image(c, 0);
  TensorData g = c.in(1).to_data();
  Shape gs = g.shape();
  if (gs.rank() != 4 || gs[0] != im.n || gs[3] != 2)
    c.template fail<ShapeError>("grid " + gs.to_string() + " must be [N, H_out, W_out, 2]");
  GridMode m{c.attr_string("mode", "bilinear"), c.attr_string("padding_mode", "zeros"),
             c.attr_int("align_corners", 0) != 0};
  if (m.mode != "bilinear" && m.mode != "nearest" && m.mode != "bicubic")
    c.template fail<ValueError>("mode '" + m.mode + "' is not supported");
  if (m.padding != "zeros" && m.padding != "border" && m.padding != "reflection")
    c.template fail<ValueError>("padding_mode '" + m.padding + "' is not supported");
  auto grid = g.convert(DType::F64).to_vector<double>();
  size_t ho = gs[1], wo = gs[2];
  check_created(c, double(im.n) * double(im.c) * double(ho) * double(wo));
  std::vector<double> out(im.n * im.c * ho * wo);
  for (size_t b = 0; b < im.n; ++b)
    for (size_t ch = 0; ch < im.c; ++ch)
      for (size_t i = 0; i < ho * wo; ++i) {
        const double* p = &grid[(b * ho * wo + i) * 2];
        out[(b * im.c + ch) * ho * wo + i] = grid_sample_at(im, m, b, ch, p[0], p[1]);
      }
  return Value<B>::from_data(TensorData(out, Shape{im.n, im.c, ho, wo}).convert(c.in(0).dtype()), c.device());
}

/// RoiAlign's bilinear sample (zero outside [-1, size]; clamped at the far edge), as ONNX Runtime computes it.
double roi_sample(const Image& im, size_t b, size_t ch, double y, double x) {
  if (y < -1.0 || y > double(im.h) || x < -1.0 || x > double(im.w)) return 0;
  y = std::max(y, 0.0), x = std::max(x, 0.0);
  auto y0 = int64_t(y), x0 = int64_t(x);
  int64_t y1 = y0 + 1, x1 = x0 + 1;
  if (y0 >= int64_t(im.h) - 1) y0 = y1 = int64_t(im.h) - 1, y = double(y0);
  if (x0 >= int64_t(im.w) - 1) x0 = x1 = int64_t(im.w) - 1, x = double(x0);
  double ly = y - double(y0), lx = x - double(x0), hy = 1 - ly, hx = 1 - lx;
  return hy * hx * im.at(b, ch, y0, x0) + hy * lx * im.at(b, ch, y0, x1) + ly * hx * im.at(b, ch, y1, x0) +
         ly * lx * im.at(b, ch, y1, x1);
}

template <class B> Value<B> roi_align(const OpCall<B>& c) {
  Image im = host_image(c, 0);
  auto rois = c.host_doubles(1);
  auto batch = c.host_ints(2);
  size_t count = batch.size();
  if (rois.size() != count * 4) c.template fail<ShapeError>("rois must be [num_rois, 4] with one batch index each");
  int64_t oh_attr = c.attr_int("output_height", 1), ow_attr = c.attr_int("output_width", 1);
  int64_t ratio = c.attr_int("sampling_ratio", 0);
  if (oh_attr < 1 || ow_attr < 1 || ratio < 0 || ratio > 64)
    c.template fail<ValueError>("output sizes must be positive and sampling_ratio in [0, 64]");
  size_t oh = size_t(oh_attr), ow = size_t(ow_attr);
  check_created(c, double(count) * double(im.c) * double(oh) * double(ow));
  double scale = c.attr_float("spatial_scale", 1.0);
  // Opset 16 added coordinate_transformation_mode (default half_pixel); earlier opsets behave as output_half_pixel.
  bool half_pixel = c.attr_string("coordinate_transformation_mode",
                                  c.opset() >= 16 ? "half_pixel" : "output_half_pixel") == "half_pixel";
  bool max_mode = c.attr_string("mode", "avg") == "max";
  std::vector<double> out(count * im.c * oh * ow);
  for (size_t r = 0; r < count; ++r) {
    if (batch[r] < 0 || size_t(batch[r]) >= im.n)
      c.template fail<ShapeError>("batch index " + std::to_string(batch[r]));
    double offset = half_pixel ? 0.5 : 0.0;
    double x1 = rois[r * 4] * scale - offset, y1 = rois[r * 4 + 1] * scale - offset;
    double rw = rois[r * 4 + 2] * scale - offset - x1, rh = rois[r * 4 + 3] * scale - offset - y1;
    if (!half_pixel) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
    double bh = rh / double(oh), bw = rw / double(ow);
    double grid_h = ratio > 0 ? double(ratio) : std::ceil(rh / double(oh));
    double grid_w = ratio > 0 ? double(ratio) : std::ceil(rw / double(ow));
    if (!(grid_h >= 0 && grid_w >= 0 && grid_h * grid_w <= 65536))  // also refuses NaN from non-finite rois
      c.template fail<ValueError>("roi " + std::to_string(r) + " needs " + std::to_string(grid_h * grid_w) +
                                  " samples per bin");
    auto gh = size_t(grid_h), gw = size_t(grid_w);
    double samples = double(std::max<size_t>(gh * gw, 1));
    for (size_t ch = 0; ch < im.c; ++ch)
      for (size_t py = 0; py < oh; ++py)
        for (size_t px = 0; px < ow; ++px) {
          double acc = 0;
          bool first = true;
          for (size_t iy = 0; iy < gh; ++iy)
            for (size_t ix = 0; ix < gw; ++ix) {
              double y = y1 + double(py) * bh + (double(iy) + 0.5) * bh / double(gh);
              double x = x1 + double(px) * bw + (double(ix) + 0.5) * bw / double(gw);
              double v = roi_sample(im, size_t(batch[r]), ch, y, x);
              acc = max_mode ? (first ? v : std::max(acc, v)) : acc + v;
              first = false;
            }
          out[((r * im.c + ch) * oh + py) * ow + px] = max_mode ? acc : acc / samples;
        }
  }
  return Value<B>::from_data(TensorData(out, Shape{count, im.c, oh, ow}).convert(c.in(0).dtype()), c.device());
}

}  // namespace

template <class B> void register_sampling_ops(OpTable<B>& t) {
  t["GridSample"] = [](const OpCall<B>& c) -> Values<B> { return {grid_sample(c)}; };
  t["RoiAlign"] = [](const OpCall<B>& c) -> Values<B> { return {roi_align(c)}; };
}

}  // namespace scorch::onnx

SCORCH_ONNX_INSTANTIATE(register_sampling_ops)

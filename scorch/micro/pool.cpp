// Pool and AdaptiveAvgPool2d (pool.h).
#include "scorch/micro/pool.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {
namespace {

Pool2dOptions square(uint32_t kernel, uint32_t stride, uint32_t padding, bool include_pad, uint32_t spatial) {
  Pool2dOptions o;
  uint32_t s = stride ? stride : kernel;
  o.kernel[0] = spatial == 2 ? kernel : 1, o.kernel[1] = kernel;
  o.stride[0] = spatial == 2 ? s : 1, o.stride[1] = s;
  o.padding[0] = spatial == 2 ? padding : 0, o.padding[1] = padding;
  o.count_include_pad = include_pad;
  return o;
}

}  // namespace

Pool MaxPool2d(uint32_t k, uint32_t s, uint32_t p) { return Pool(Pool::Kind::max, 2, square(k, s, p, true, 2)); }
Pool AvgPool2d(uint32_t k, uint32_t s, uint32_t p, bool include_pad) {
  return Pool(Pool::Kind::average, 2, square(k, s, p, include_pad, 2));
}
Pool MaxPool1d(uint32_t k, uint32_t s, uint32_t p) { return Pool(Pool::Kind::max, 1, square(k, s, p, true, 1)); }
Pool AvgPool1d(uint32_t k, uint32_t s, uint32_t p, bool include_pad) {
  return Pool(Pool::Kind::average, 1, square(k, s, p, include_pad, 1));
}

const char* Pool::name() const {
  if (kind_ == Kind::max) return spatial_ == 2 ? "micro::MaxPool2d" : "micro::MaxPool1d";
  return spatial_ == 2 ? "micro::AvgPool2d" : "micro::AvgPool1d";
}

Status Pool::infer(const Shape* in, Shape& out) const {
  if (in[0].rank() != spatial_ + 2)
    return (Message(Code::shape, name()) << "input " << in[0] << " should have rank " << int64_t(spatial_ + 2));
  for (uint32_t d = 0; d < 2; ++d)
    if (!o_.kernel[d] || !o_.stride[d] || !o_.dilation[d])
      return (Message(Code::value, name()) << "window, stride and dilation must be at least 1");
  uint32_t h = spatial_ == 2 ? in[0][2] : 1, w = in[0][spatial_ + 1];
  uint32_t oh = window_outputs(h, o_.kernel[0], o_.stride[0], o_.padding[0], o_.dilation[0]);
  uint32_t ow = window_outputs(w, o_.kernel[1], o_.stride[1], o_.padding[1], o_.dilation[1]);
  if (oh == 0 || ow == 0)
    return (Message(Code::shape, name()) << "input " << in[0] << " is smaller than the window "
                                         << int64_t(o_.kernel[1]));
  if (o_.padding[0] * 2 > o_.kernel[0] || o_.padding[1] * 2 > o_.kernel[1])
    return (Message(Code::value, name()) << "padding " << int64_t(o_.padding[1]) << " exceeds half the window "
                                         << int64_t(o_.kernel[1]));
  out = in[0];
  if (spatial_ == 2) out.set(2, oh);
  out.set(spatial_ + 1, ow);
  return {};
}

Status Pool::forward(const Args& args) const {
  const Shape& in = args.in_shape[0];
  uint32_t h = spatial_ == 2 ? in[2] : 1, w = in[spatial_ + 1];
  uint32_t oh = spatial_ == 2 ? args.out_shape[2] : 1, ow = args.out_shape[spatial_ + 1];
  size_t planes = size_t(in[0]) * in[1];
  float* y = args.out;
  for (size_t p = 0; p < planes; ++p) {
    const float* x = args.in[0] + p * h * w;
    for (uint32_t oy = 0; oy < oh; ++oy)
      for (uint32_t ox = 0; ox < ow; ++ox) {
        float best = -__builtin_inff(), sum = 0.0f;
        uint32_t inside = 0;
        for (uint32_t ky = 0; ky < o_.kernel[0]; ++ky)
          for (uint32_t kx = 0; kx < o_.kernel[1]; ++kx) {
            int64_t iy = int64_t(oy) * o_.stride[0] - o_.padding[0] + int64_t(ky) * o_.dilation[0];
            int64_t ix = int64_t(ox) * o_.stride[1] - o_.padding[1] + int64_t(kx) * o_.dilation[1];
            if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
            float v = x[size_t(iy) * w + size_t(ix)];
            best = v > best || v != v ? v : best;  // NaN wins, as PyTorch's max pool
            sum += v;
            ++inside;
          }
        uint32_t count = o_.count_include_pad ? o_.kernel[0] * o_.kernel[1] : inside;
        *y++ = kind_ == Kind::max ? best : sum / float(count);
      }
  }
  return {};
}

Status AdaptiveAvgPool2d::infer(const Shape* in, Shape& out) const {
  if (in[0].rank() != 4 || out_h_ == 0 || out_w_ == 0 || in[0][2] == 0 || in[0][3] == 0)
    return (Message(Code::shape, name()) << "input " << in[0] << " should have rank 4 and nonzero height and width, "
                                         << "the output size " << int64_t(out_h_) << "x" << int64_t(out_w_) << " too");
  out = Shape{in[0][0], in[0][1], out_h_, out_w_};
  return {};
}

Status AdaptiveAvgPool2d::forward(const Args& args) const {
  const Shape& in = args.in_shape[0];
  uint32_t h = in[2], w = in[3];
  size_t planes = size_t(in[0]) * in[1];
  float* y = args.out;
  for (size_t p = 0; p < planes; ++p) {
    const float* x = args.in[0] + p * h * w;
    for (uint32_t oy = 0; oy < out_h_; ++oy) {
      uint32_t y0 = oy * h / out_h_, y1 = ((oy + 1) * h + out_h_ - 1) / out_h_;
      for (uint32_t ox = 0; ox < out_w_; ++ox) {
        uint32_t x0 = ox * w / out_w_, x1 = ((ox + 1) * w + out_w_ - 1) / out_w_;
        float sum = 0.0f;
        for (uint32_t iy = y0; iy < y1; ++iy)
          for (uint32_t ix = x0; ix < x1; ++ix) sum += x[iy * w + ix];
        *y++ = sum / float((y1 - y0) * (x1 - x0));
      }
    }
  }
  return {};
}

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro

// Conv1d and Conv2d (conv.h): direct loops over the output, one multiply-add per weight tap.
#include "scorch/micro/conv.h"

#include "scorch/micro/quant.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {
namespace {

// The output size along one dim, or 0 when the kernel does not fit.
uint32_t out_size(uint32_t in, uint32_t kernel, uint32_t stride, uint32_t padding, uint32_t dilation) {
  int64_t span = int64_t(dilation) * (kernel - 1) + 1, padded = int64_t(in) + 2 * int64_t(padding);
  return padded < span || stride == 0 ? 0 : uint32_t((padded - span) / stride + 1);
}

}  // namespace

Status Conv2d::load(const WeightTable& table, const char* prefix) {
  SCORCH_MICRO_TRY(table.get(name(), prefix, "weight", &weight_));
  SCORCH_MICRO_TRY(check_weight(name(), *weight_, spatial_ + 2, 0));
  uint32_t out = weight_->shape[0];
  if (options_.groups == 0 || out % options_.groups != 0)
    return raise(Message(Code::value, name())
                 << "groups " << int64_t(options_.groups) << " must divide the " << int64_t(out) << " output channels");
  SCORCH_MICRO_TRY(table.get(name(), prefix, "bias", &bias_, true));
  if (bias_ && (bias_->dtype != DType::f32 || !(bias_->shape == Shape{out})))
    return raise(Message(Code::shape, name())
                 << "bias '" << bias_->name << "' " << bias_->shape << " should be f32 [" << int64_t(out) << "]");
  return {};
}

ConvGeometry Conv2d::geometry(const Shape& in) const {
  const Shape& w = weight_->shape;
  bool two = spatial_ == 2;
  ConvGeometry g{in[0], in[1], two ? in[2] : 1, in[spatial_ + 1], w[0], two ? w[2] : 1, w[spatial_ + 1], 0, 0};
  const Conv2dOptions& o = options_;
  g.out_h = out_size(g.height, g.kernel_h, o.stride[0], o.padding[0], o.dilation[0]);
  g.out_w = out_size(g.width, g.kernel_w, o.stride[1], o.padding[1], o.dilation[1]);
  return g;
}

Status Conv2d::infer(const Shape* in, Shape& out) const {
  if (!weight_) return raise(Message(Code::value, name()) << "used before load()");
  if (in[0].rank() != spatial_ + 2)
    return raise(Message(Code::shape, name()) << "input " << in[0] << " should have rank " << int64_t(spatial_ + 2));
  ConvGeometry g = geometry(in[0]);
  if (g.in_channels != weight_->shape[1] * options_.groups)
    return raise(Message(Code::shape, name())
                 << "input " << in[0] << " has " << int64_t(g.in_channels) << " channels; the weight " << weight_->shape
                 << " takes " << int64_t(weight_->shape[1] * options_.groups));
  if (g.out_h == 0 || g.out_w == 0)
    return raise(Message(Code::shape, name()) << "input " << in[0] << " is smaller than the kernel " << weight_->shape);
  out = spatial_ == 2 ? Shape{g.batch, g.out_channels, g.out_h, g.out_w} : Shape{g.batch, g.out_channels, g.out_w};
  return {};
}

size_t Conv2d::scratch_bytes(const Shape* in) const {
  return weight_ && weight_->dtype == DType::i8 ? align16(in[0].numel() * sizeof(int16_t)) : 0;
}

Status Conv2d::forward(const Args& args) const {
  ConvGeometry g = geometry(args.in_shape[0]);
  if (weight_->dtype == DType::i8) run_int8(g, args.in[0], args.out, static_cast<int16_t*>(args.scratch));
  else run_f32(g, args.in[0], args.out);
  return {};
}

// One loop nest for both value types: T is float or int16 (the quantized input), A its accumulator; finish maps an
// output channel's sum to the float output.
template <class T, class W, class A, class Finish>
void convolve(const ConvGeometry& g, const Conv2dOptions& o, const T* x, const W* w, float* y, Finish finish) {
  uint32_t in_per_group = g.in_channels / o.groups, out_per_group = g.out_channels / o.groups;
  size_t taps = size_t(in_per_group) * g.kernel_h * g.kernel_w;
  for (uint32_t n = 0; n < g.batch; ++n)
    for (uint32_t co = 0; co < g.out_channels; ++co) {
      const W* wc = w + co * taps;
      const T* xg = x + (size_t(n) * g.in_channels + (co / out_per_group) * in_per_group) * g.height * g.width;
      for (uint32_t oy = 0; oy < g.out_h; ++oy)
        for (uint32_t ox = 0; ox < g.out_w; ++ox) {
          A acc = 0;
          const W* wt = wc;
          for (uint32_t ci = 0; ci < in_per_group; ++ci)
            for (uint32_t ky = 0; ky < g.kernel_h; ++ky) {
              int64_t iy = int64_t(oy) * o.stride[0] - o.padding[0] + int64_t(ky) * o.dilation[0];
              if (iy < 0 || iy >= g.height) {  // a padding row
                wt += g.kernel_w;
                continue;
              }
              const T* row = xg + (size_t(ci) * g.height + size_t(iy)) * g.width;
              for (uint32_t kx = 0; kx < g.kernel_w; ++kx, ++wt) {
                int64_t ix = int64_t(ox) * o.stride[1] - o.padding[1] + int64_t(kx) * o.dilation[1];
                if (ix >= 0 && ix < g.width) acc += A(row[ix]) * A(*wt);
              }
            }
          *y++ = finish(acc, co);
        }
    }
}

void Conv2d::run_f32(const ConvGeometry& g, const float* x, float* y) const {
  const float* bias = bias_ ? bias_->f32() : nullptr;
  convolve<float, float, float>(g, options_, x, weight_->f32(), y,
                                [&](float acc, uint32_t co) { return bias ? acc + bias[co] : acc; });
}

void Conv2d::run_int8(const ConvGeometry& g, const float* x, float* y, int16_t* xq) const {
  size_t count = size_t(g.batch) * g.in_channels * g.height * g.width;
  InputQuantizer q = InputQuantizer::dynamic(x, count);
  for (size_t i = 0; i < count; ++i) xq[i] = q(x[i]);
  const float* bias = bias_ ? bias_->f32() : nullptr;
  const float* scales = weight_->scales;
  convolve<int16_t, int8_t, int32_t>(g, options_, xq, weight_->i8(), y, [&](int32_t acc, uint32_t co) {
    return q.dequantize(acc, scales[co]) + (bias ? bias[co] : 0.0f);
  });
}

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro

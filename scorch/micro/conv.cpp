// Conv1d and Conv2d (conv.h): each weight tap (or kernel row of three) multiplied into a whole output plane.
#include "scorch/micro/conv.h"

#include <cstring>
#include <type_traits>

#if defined(__ARM_FEATURE_SIMD32)
#include <arm_acle.h>
#endif

#include "scorch/micro/quant.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {
Status Conv2d::load(const WeightTable& table, const char* prefix) {
  const Weight *weight = nullptr, *bias = nullptr;  // kept only when everything checks out
  SCORCH_MICRO_TRY(table.get(name(), prefix, "weight", &weight));
  SCORCH_MICRO_TRY(check_weight(name(), *weight, spatial_ + 2, 0));
  uint32_t out = weight->shape[0];
  const Conv2dOptions& o = options_;
  if (!o.stride[0] || !o.stride[1] || !o.dilation[0] || !o.dilation[1])
    return raise(Message(Code::value, name()) << "stride and dilation must be at least 1");
  if (options_.groups == 0 || out % options_.groups != 0)
    return raise(Message(Code::value, name())
                 << "groups " << int64_t(options_.groups) << " must divide the " << int64_t(out) << " output channels");
  SCORCH_MICRO_TRY(table.get(name(), prefix, "bias", &bias, true));
  if (bias && (bias->dtype != DType::f32 || !(bias->shape == Shape{out})))
    return raise(Message(Code::shape, name())
                 << "bias '" << bias->name << "' " << bias->shape << " should be f32 [" << int64_t(out) << "]");
  weight_ = weight, bias_ = bias;
  return {};
}

ConvGeometry Conv2d::geometry(const Shape& in) const {
  const Shape& w = weight_->shape;
  bool two = spatial_ == 2;
  ConvGeometry g{in[0], in[1], two ? in[2] : 1, in[spatial_ + 1], w[0], two ? w[2] : 1, w[spatial_ + 1], 0, 0};
  const Conv2dOptions& o = options_;
  g.out_h = window_outputs(g.height, g.kernel_h, o.stride[0], o.padding[0], o.dilation[0]);
  g.out_w = window_outputs(g.width, g.kernel_w, o.stride[1], o.padding[1], o.dilation[1]);
  return g;
}

Status Conv2d::infer(const Shape* in, Shape& out) const {
  if (!weight_) return (Message(Code::value, name()) << "used before load()");
  if (in[0].rank() != spatial_ + 2)
    return (Message(Code::shape, name()) << "input " << in[0] << " should have rank " << int64_t(spatial_ + 2));
  ConvGeometry g = geometry(in[0]);
  if (g.in_channels != weight_->shape[1] * options_.groups)
    return (Message(Code::shape, name()) << "input " << in[0] << " has " << int64_t(g.in_channels)
                                         << " channels; the weight " << weight_->shape << " takes "
                                         << int64_t(weight_->shape[1] * options_.groups));
  if (g.out_h == 0 || g.out_w == 0)
    return (Message(Code::shape, name()) << "input " << in[0] << " is smaller than the kernel " << weight_->shape);
  out = spatial_ == 2 ? Shape{g.batch, g.out_channels, g.out_h, g.out_w} : Shape{g.batch, g.out_channels, g.out_w};
  return {};
}

uint64_t Conv2d::scratch_bytes(const Shape* in) const {
  if (!weight_ || weight_->dtype != DType::i8) return 0;  // the quantized input, then one plane of int32 sums
  ConvGeometry g = geometry(in[0]);
  return align16(in[0].count() * sizeof(int16_t)) + uint64_t(g.out_h) * g.out_w * sizeof(int32_t);
}

Status Conv2d::forward(const Args& args) const {
  ConvGeometry g = geometry(args.in_shape[0]);
  if (weight_->dtype == DType::i8) run_int8(g, args.in[0], args.out, static_cast<int16_t*>(args.scratch));
  else run_f32(g, args.in[0], args.out);
  return {};
}

namespace {

// The outputs [lo, hi) of a row whose input column ix = ox·stride + shift lies in [0, width); shift = kx·dilation −
// padding.
struct Columns {
  ptrdiff_t lo = 0, hi = 0, shift = 0;
};

Columns columns(const ConvGeometry& g, const Conv2dOptions& o, uint32_t kx) {
  Columns c;
  c.shift = ptrdiff_t(kx) * o.dilation[1] - o.padding[1];
  if (ptrdiff_t(g.width) - 1 - c.shift < 0) return c;
  c.lo = c.shift >= 0 ? 0 : (-c.shift + o.stride[1] - 1) / o.stride[1];
  ptrdiff_t hi = (ptrdiff_t(g.width) - 1 - c.shift) / o.stride[1] + 1;
  c.hi = hi < ptrdiff_t(g.out_w) ? hi : ptrdiff_t(g.out_w);
  return c;
}

// out[ox] += x[ox + shift]·w0 + x[ox + shift + 1]·w1 over [lo, hi): one SMLAD (two 16-bit products) where the Arm
// core has the DSP extension. Integer sums: the order does not matter.
void add_pairs(int32_t* out, const int16_t* in, ptrdiff_t lo, ptrdiff_t hi, int16_t w0, int16_t w1) {
  int32_t* end = out + hi;  // pointers, not 64-bit indices: a 32-bit core's loop stays a few instructions
#if defined(__ARM_FEATURE_SIMD32)
  int16x2_t packed = int16x2_t(uint32_t(uint16_t(w0)) | (uint32_t(uint16_t(w1)) << 16));
  for (out += lo; out != end; ++out, ++in) {
    int16x2_t pair;
    std::memcpy(&pair, in, sizeof pair);
    *out = __smlad(pair, packed, *out);
  }
#else
  for (out += lo; out != end; ++out, ++in) *out += int32_t(in[0]) * w0 + int32_t(in[1]) * w1;
#endif
}

// A three-tap kernel row (the common 3-wide kernel) over outputs [lo, hi), each output loaded and stored once:
// v = out; v += x0·t0; v += x1·t1; v += x2·t2 (the taps' order, as one tap at a time would add them). in points at
// output lo's first tap; step is the stride, gap the dilation.
template <class T, class A>
void add_three_taps(A* out, const T* in, ptrdiff_t lo, ptrdiff_t hi, uint32_t step, uint32_t gap, const A* t) {
  A* end = out + hi;
  out += lo;
  if constexpr (std::is_same_v<T, int16_t>) {
#if defined(__ARM_FEATURE_SIMD32)
    if (gap == 1) {  // the first two taps' inputs sit side by side: one SMLAD
      int16x2_t packed = int16x2_t(uint32_t(uint16_t(t[0])) | (uint32_t(uint16_t(t[1])) << 16));
      for (ptrdiff_t j = 0; out != end; ++out, j += step) {  // indices: no pointer past the row
        int16x2_t pair;
        std::memcpy(&pair, in + j, sizeof pair);
        *out = __smlad(pair, packed, *out) + int32_t(in[j + 2]) * t[2];
      }
      return;
    }
#endif
  }
  for (ptrdiff_t j = 0; out != end; ++out, j += step) {
    A v = *out;
    v += A(in[j]) * t[0];
    v += A(in[j + gap]) * t[1];
    v += A(in[j + 2 * gap]) * t[2];
    *out = v;
  }
}

// Sums of one output plane (acc) over one input channel group (x): T is float or int16 (the quantized input), A the
// sum type. Each weight tap is multiplied into the whole plane in turn (the tap stays in a register, the inner loop
// walks a row), and every output gets its taps in the order a loop over the taps would add them; a 3-wide kernel row
// goes in one pass, int16 inputs take neighbouring taps two at a time (SMLAD).
template <class T, class A> struct PlaneSums {
  const ConvGeometry& g;
  const Conv2dOptions& o;
  const T* x;
  A* acc;

  // Input row iy = oy·stride − padding + ky·dilation of channel ci, or nullptr for a padding row.
  const T* row(uint32_t ci, uint32_t oy, uint32_t ky) const {
    ptrdiff_t iy = ptrdiff_t(oy) * o.stride[0] - o.padding[0] + ptrdiff_t(ky) * o.dilation[0];
    return iy < 0 || iy >= ptrdiff_t(g.height) ? nullptr : x + (size_t(ci) * g.height + size_t(iy)) * g.width;
  }
  // tap·x over the outputs [lo, hi) of every row.
  void add_tap(uint32_t ci, uint32_t ky, A tap, ptrdiff_t lo, ptrdiff_t hi, ptrdiff_t shift) const {
    for (uint32_t oy = 0; oy < g.out_h && lo < hi; ++oy) {
      const T* r = row(ci, oy, ky);
      if (!r) continue;
      const T* in = r + (lo * o.stride[1] + shift);
      A *out = acc + size_t(oy) * g.out_w + lo, *end = out + (hi - lo);
      if (o.stride[1] == 1)
        while (out != end) *out++ += A(*in++) * tap;
      else  // indices: a pointer stepped past the row's end would be undefined
        for (ptrdiff_t j = 0, step = o.stride[1]; out != end; ++j) *out++ += A(in[j * step]) * tap;
    }
  }
  // The tap over c's columns outside [lo, hi) (those the other taps of its group do not reach: padding).
  void add_border(uint32_t ci, uint32_t ky, A tap, const Columns& c, ptrdiff_t lo, ptrdiff_t hi) const {
    add_tap(ci, ky, tap, c.lo, lo < c.hi ? lo : c.hi, c.shift);
    add_tap(ci, ky, tap, hi > c.lo ? hi : c.lo, c.hi, c.shift);
  }
  // The columns every one of n taps reaches: [lo, hi), empty at c[0].lo when there are none.
  static void common(const Columns* c, uint32_t n, ptrdiff_t& lo, ptrdiff_t& hi) {
    lo = c[0].lo, hi = c[0].hi;
    for (uint32_t k = 1; k < n; ++k) lo = c[k].lo > lo ? c[k].lo : lo, hi = c[k].hi < hi ? c[k].hi : hi;
    if (lo >= hi) lo = hi = c[0].lo;
  }
  // Kernel row ky of a 3-wide kernel (taps t).
  void add_row3(uint32_t ci, uint32_t ky, const A* t) const {
    Columns c[3] = {columns(g, o, 0), columns(g, o, 1), columns(g, o, 2)};
    ptrdiff_t lo, hi;
    common(c, 3, lo, hi);
    for (uint32_t oy = 0; oy < g.out_h && lo < hi; ++oy)
      if (const T* r = row(ci, oy, ky))
        add_three_taps(acc + size_t(oy) * g.out_w, r + (lo * o.stride[1] + c[0].shift), lo, hi, o.stride[1],
                       o.dilation[1], t);
    for (uint32_t kx = 0; kx < 3; ++kx) add_border(ci, ky, t[kx], c[kx], lo, hi);
  }
  // Taps kx and kx + 1 of int16 inputs at stride and dilation 1.
  void add_pair(uint32_t ci, uint32_t ky, uint32_t kx, int16_t w0, int16_t w1) const {
    Columns c[2] = {columns(g, o, kx), columns(g, o, kx + 1)};
    ptrdiff_t lo, hi;
    common(c, 2, lo, hi);
    for (uint32_t oy = 0; oy < g.out_h && lo < hi; ++oy)
      if (const T* r = row(ci, oy, ky)) add_pairs(acc + size_t(oy) * g.out_w, r + (lo + c[0].shift), lo, hi, w0, w1);
    add_border(ci, ky, A(w0), c[0], lo, hi);
    add_border(ci, ky, A(w1), c[1], lo, hi);
  }
  // Kernel row ky of input channel ci with its taps w (kernel_w of them).
  template <class W> void add_kernel_row(uint32_t ci, uint32_t ky, const W* w) const {
    if (g.kernel_w == 3) {
      A t[3] = {A(w[0]), A(w[1]), A(w[2])};
      return add_row3(ci, ky, t);
    }
    [[maybe_unused]] bool pairs = o.stride[1] == 1 && o.dilation[1] == 1;
    for (uint32_t kx = 0; kx < g.kernel_w; ++kx) {
      if constexpr (std::is_same_v<T, int16_t>) {
        if (pairs && kx + 1 < g.kernel_w) {
          add_pair(ci, ky, kx, int16_t(w[kx]), int16_t(w[kx + 1]));
          ++kx;
          continue;
        }
      }
      Columns c = columns(g, o, kx);
      add_tap(ci, ky, A(w[kx]), c.lo, c.hi, c.shift);
    }
  }
};

// The convolution: per output channel, its plane's sums (float sums straight into y; int32 ones into scratch, one
// plane), then finish(sum, channel) into y.
template <class T, class W, class A, class Finish> void convolve(const ConvGeometry& g, const Conv2dOptions& o,
                                                                 const T* x, const W* w, A* scratch, float* y,
                                                                 Finish finish) {
  uint32_t in_per_group = g.in_channels / o.groups, out_per_group = g.out_channels / o.groups;
  size_t plane = size_t(g.out_h) * g.out_w, taps = size_t(g.kernel_h) * g.kernel_w;
  for (uint32_t n = 0; n < g.batch; ++n)
    for (uint32_t co = 0; co < g.out_channels; ++co, y += plane) {
      A* acc = scratch;
      if constexpr (std::is_same_v<A, float>) acc = y;
      for (size_t i = 0; i < plane; ++i) acc[i] = 0;
      size_t first = size_t(n) * g.in_channels + (co / out_per_group) * in_per_group;
      PlaneSums<T, A> sums{g, o, x + first * g.height * g.width, acc};
      const W* wc = w + size_t(co) * in_per_group * taps;
      for (uint32_t ci = 0; ci < in_per_group; ++ci)
        for (uint32_t ky = 0; ky < g.kernel_h; ++ky)
          sums.add_kernel_row(ci, ky, wc + (ci * g.kernel_h + ky) * g.kernel_w);
      for (size_t i = 0; i < plane; ++i) y[i] = finish(acc[i], co);
    }
}

}  // namespace

void Conv2d::run_f32(const ConvGeometry& g, const float* x, float* y) const {
  const float* bias = bias_ ? bias_->f32() : nullptr;
  convolve<float, float, float>(g, options_, x, weight_->f32(), nullptr, y,
                                [&](float acc, uint32_t co) { return bias ? acc + bias[co] : acc; });
}

void Conv2d::run_int8(const ConvGeometry& g, const float* x, float* y, int16_t* xq) const {
  size_t count = size_t(g.batch) * g.in_channels * g.height * g.width;
  InputQuantizer q = InputQuantizer::dynamic(x, count);
  for (size_t i = 0; i < count; ++i) xq[i] = q(x[i]);
  const float* bias = bias_ ? bias_->f32() : nullptr;
  const float* scales = weight_->scales;
  auto* acc = reinterpret_cast<int32_t*>(reinterpret_cast<char*>(xq) + align16(count * sizeof(int16_t)));
  convolve<int16_t, int8_t, int32_t>(g, options_, xq, weight_->i8(), acc, y, [&](int32_t acc, uint32_t co) {
    return q.dequantize(acc, scales[co]) + (bias ? bias[co] : 0.0f);
  });
}

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro

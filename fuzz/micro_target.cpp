// The micro runtime under fuzzing (target micro_graph): the bytes describe a model — an input shape, then layers
// with their options (convolutions of any kernel, stride, padding, dilation and groups; pools; Linear; f32 or int8
// weights) — which is wired, planned and run over an arena of exactly the planned size. Every convolution is also
// checked against a direct loop over its taps (int8: exactly; f32: within rounding), so a border the planner or
// the kernels get wrong shows up as a sanitizer report or an abort.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <vector>

#include "fuzz/targets.h"
#include "scorch/micro/micro.h"
#include "scorch/micro/quant.h"

namespace scorch::fuzz {
namespace {

namespace m = scorch::micro;

// Bytes read one at a time; 0 past the end.
struct Bytes {
  std::span<const std::byte> data;
  size_t at = 0;
  uint32_t next(uint32_t count) { return at < data.size() ? uint32_t(data[at++]) % count : 0; }
};

// Weights made for one layer, kept alive with the model.
struct Store {
  std::deque<std::vector<float>> floats;
  std::deque<std::vector<int8_t>> ints;
  std::deque<m::Weight> weights;
  uint32_t seed = 1;
  float value() {
    seed = seed * 1664525u + 1013904223u;
    return float(int32_t(seed >> 8) % 2001 - 1000) / 500.0f;
  }
  const m::Weight* add(const char* name, m::Shape shape, bool int8, uint32_t axis) {
    size_t n = shape.numel();
    if (!int8) {
      auto& v = floats.emplace_back(n);
      for (float& x : v) x = value();
      return &weights.emplace_back(m::Weight{name, m::DType::f32, shape, v.data(), nullptr, 0});
    }
    auto& q = ints.emplace_back(n);
    for (int8_t& x : q) x = int8_t(int32_t(value() * 60.0f));
    auto& s = floats.emplace_back(shape[axis]);
    for (float& x : s) x = std::fabs(value()) / 100.0f + 1e-3f;
    return &weights.emplace_back(m::Weight{name, m::DType::i8, shape, q.data(), s.data(), axis});
  }
};

// out[co][oy][ox] = Σ taps in order, as the layer defines it (the quantized input as the layer quantizes it).
std::vector<float> direct_conv(const m::Shape& in, const std::vector<float>& x, const m::Weight& w, const m::Weight* b,
                               const m::Conv2dOptions& o, const m::Shape& out) {
  uint32_t groups = o.groups, cin = in[1] / groups, cout = w.shape[0], per = cout / groups;
  uint32_t kh = w.shape[2], kw = w.shape[3], H = in[2], W = in[3], oh = out[2], ow = out[3];
  m::InputQuantizer q = m::InputQuantizer::dynamic(x.data(), x.size());
  std::vector<float> y(out.numel());
  for (uint32_t co = 0; co < cout; ++co)
    for (uint32_t oy = 0; oy < oh; ++oy)
      for (uint32_t ox = 0; ox < ow; ++ox) {
        float sum = 0.0f;
        int32_t isum = 0;
        for (uint32_t ci = 0; ci < cin; ++ci)
          for (uint32_t ky = 0; ky < kh; ++ky)
            for (uint32_t kx = 0; kx < kw; ++kx) {
              int64_t iy = int64_t(oy) * o.stride[0] - o.padding[0] + int64_t(ky) * o.dilation[0];
              int64_t ix = int64_t(ox) * o.stride[1] - o.padding[1] + int64_t(kx) * o.dilation[1];
              if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
              float v = x[((co / per) * cin + ci) * H * W + size_t(iy) * W + size_t(ix)];
              size_t t = ((size_t(co) * cin + ci) * kh + ky) * kw + kx;
              if (w.dtype == m::DType::i8) isum += int32_t(q(v)) * w.i8()[t];
              else sum += v * w.f32()[t];
            }
        float r = w.dtype == m::DType::i8 ? q.dequantize(isum, w.scales[co]) : sum;
        y[(size_t(co) * oh + oy) * ow + ox] = r + (b ? b->f32()[co] : 0.0f);
      }
  return y;
}

// Runs g (finished) over an arena of exactly its plan; the output's values.
std::vector<float> run(const m::GraphBase& g, m::Value out, const std::vector<float>& x) {
  std::vector<uint8_t> arena(g.arena_bytes() + 16);
  void* base = arena.data() + (16 - reinterpret_cast<uintptr_t>(arena.data()) % 16) % 16;
  std::vector<float> y(g.shape(out).numel());
  g.run(base, g.arena_bytes(), x.data(), y.data());
  return y;
}

void check_conv(Bytes& b, Store& store) {
  uint32_t groups = 1 + b.next(2), cin = groups * (1 + b.next(3)), cout = groups * (1 + b.next(3));
  m::Shape in{1, cin, 1 + b.next(9), 1 + b.next(9)};
  m::Conv2dOptions o{{1 + b.next(3), 1 + b.next(3)}, {b.next(3), b.next(3)}, {1 + b.next(2), 1 + b.next(2)}, groups};
  bool int8 = b.next(2);
  const m::Weight* w = store.add("c.weight", {cout, cin / groups, 1 + b.next(4), 1 + b.next(4)}, int8, 0);
  const m::Weight* bias = b.next(2) ? store.add("c.bias", {cout}, false, 0) : nullptr;
  m::Weight entries[2] = {*w, bias ? *bias : m::Weight{"none", m::DType::f32, {1}, nullptr, nullptr, 0}};
  m::Conv2d conv(o);
  conv.load(m::WeightTable{entries, bias ? 2u : 1u}, "c");
  m::Graph<2> g;
  m::Value out = g.add(conv, g.input(in));  // throws when the kernel does not fit: a clear error
  g.finish(out);
  std::vector<float> x(in.numel());
  for (float& v : x) v = store.value();
  std::vector<float> got = run(g, out, x), want = direct_conv(in, x, *w, bias, o, g.shape(out));
  for (size_t i = 0; i < got.size(); ++i)
    if (std::fabs(got[i] - want[i]) > (int8 ? 0.0f : 1e-4f) * (1.0f + std::fabs(want[i]))) {
      std::fprintf(stderr, "micro_graph: conv output %zu is %g, a direct loop gives %g\n", i, got[i], want[i]);
      std::abort();
    }
}

}  // namespace

void micro_graph(std::span<const std::byte> bytes) {
  Bytes b{bytes};
  Store store;
  store.seed += b.next(256);
  check_conv(b, store);
  // Then a chain of layers on a fresh input, for the plan and the other layers' borders.
  m::Shape shape{1, 1 + b.next(3), 1 + b.next(12), 1 + b.next(12)};
  std::deque<m::Conv2d> convs;
  std::deque<m::Pool> pools;
  std::deque<m::Linear> linears;
  std::deque<m::AdaptiveAvgPool2d> adaptive;
  m::Relu relu;
  m::Gelu gelu;
  m::Flatten flatten;
  m::Graph<12> g;
  m::Value x = g.input(shape);
  for (uint32_t step = 0; step < 8 && b.at < bytes.size(); ++step) {
    m::Shape s = g.shape(x);
    switch (b.next(6)) {
      case 0: {
        uint32_t k = 1 + b.next(3), stride = 1 + b.next(2), pad = b.next(2);
        pools.push_back(b.next(2) ? m::MaxPool2d(k, stride, pad) : m::AvgPool2d(k, stride, pad, b.next(2)));
        x = g.add(pools.back(), x);
        break;
      }
      case 1: x = g.add(b.next(2) ? static_cast<const m::Layer&>(relu) : gelu, x); break;
      case 2: x = g.add(adaptive.emplace_back(1 + b.next(4), 1 + b.next(4)), x); break;
      case 3: {
        if (s.rank() != 4) break;
        const m::Weight* w = store.add("weight", {1 + b.next(4), s[1], 1 + b.next(3), 1 + b.next(3)}, b.next(2), 0);
        m::Conv2d& c = convs.emplace_back(m::Conv2dOptions{{1, 1}, {b.next(2), b.next(2)}, {1, 1}, 1});
        c.load(m::WeightTable{w, 1}, "");
        x = g.add(c, x);
        break;
      }
      default: {
        if (s.rank() == 4) x = g.add(flatten, x), s = g.shape(x);
        const m::Weight* w = store.add("weight", {s.last(), 1 + b.next(8)}, b.next(2), 1);
        m::Linear& l = linears.emplace_back();
        l.load(m::WeightTable{w, 1}, "");
        x = g.add(l, x);
      }
    }
  }
  g.finish(x);
  std::vector<float> input(shape.numel());
  for (float& v : input) v = store.value();
  for (float v : run(g, x, input)) (void)std::isfinite(v);
}

}  // namespace scorch::fuzz

// Quantized Linear workloads paired with bench/anchors/torch_quant_anchor.py: x [m, k] · W [n, k]ᵀ + b in f32,
// int8 with dynamic and static (calibrated) inputs, and q4 weights (blocks of 32, dequantized as they are used), on
// three shapes (a single row, batch 64, a 256-row batch into a 4× wider layer); each quantized row prints its speed
// over f32, and a last line per shape the parameters' bytes (weights and bias) in f32, int8 and q4.
#include <cstdio>

#include "bench.h"

namespace scorch::bench {
namespace {

struct Shape3 {
  size_t m, k, n;
};

template <class B> void linear_shape(const Options& o, Shape3 s) {
  auto layer = nn::LinearConfig(s.k, s.n).with_layout(nn::LinearLayout::Col).template init<B>();
  auto x = Tensor<B, 2>::random({s.m, s.k}, Distribution::normal(0, 1));
  std::string tag = "m" + std::to_string(s.m) + "_k" + std::to_string(s.k) + "_n" + std::to_string(s.n);
  double flop = 2.0 * double(s.m) * double(s.k) * double(s.n);
  auto gflops = [flop](double ms) { return flop / ms / 1e6; };
  double f32_ms = 0;
  run(
      o, "linear_f32_" + tag, 3, [&] { (void)layer.forward(x); }, "gflops",
      [&](double ms) {
        f32_ms = ms;
        return gflops(ms);
      });
  auto speedup = [&](double ms) { return f32_ms > 0 ? f32_ms / ms : 0.0; };
  auto dynamic = quant::quantize(layer);
  run(
      o, "linear_int8_dynamic_" + tag, 3, [&] { (void)dynamic.forward(x); }, "speedup_vs_f32", speedup);
  auto calibrated = quant::quantize(layer, {}, {}, [&](const nn::Linear<B>& l) { (void)l.forward(x); });
  run(
      o, "linear_int8_static_" + tag, 3, [&] { (void)calibrated.forward(x); }, "speedup_vs_f32", speedup);
  quant::QuantizeOptions q4;
  q4.weights = QuantScheme::q4_blocks(0, 32);
  // q4 packs pairs along the last dim: in Burn's [in, out] layout that is the output features, which the weight-only
  // product reads as stored (PyTorch's [out, in] layout would pack along the sums and dequantize first).
  auto small = quant::quantize(nn::LinearConfig(s.k, s.n).template init<B>(), q4);
  run(
      o, "linear_q4_weight_only_" + tag, 2, [&] { (void)small.forward(x); }, "speedup_vs_f32", speedup);
  if (selected(o, "linear_param_bytes_" + tag))
    std::printf(
        "{\"bench\": \"linear_param_bytes_%s\", \"backend\": \"%s\", \"f32\": %zu, \"int8\": %zu, "
        "\"q4\": %zu}\n",
        tag.c_str(), o.backend_name.c_str(), quant::param_bytes(layer).first, quant::param_bytes(dynamic).first,
        quant::param_bytes(small).first);
}

}  // namespace

template <class B> void quant_workloads(const Options& o) {
  for (Shape3 s : {Shape3{1, 1024, 1024}, Shape3{64, 1024, 1024}, Shape3{256, 1024, 4096}}) linear_shape<B>(o, s);
}
SCORCH_BENCH_INSTANTIATE(quant_workloads);

}  // namespace scorch::bench

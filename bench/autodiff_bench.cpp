// Autodiff<B> workloads: host overhead per op on tiny tensors (plain, untracked, recorded,
// recorded + backward) and a transformer encoder layer forward + backward.
#include "bench.h"

#include <cmath>

namespace scorch::bench {
namespace {

constexpr int kChain = 1000;

// A chain of kChain adds on [4, 4] tensors; the reported figure is µs per op.
template <class Backend> void add_chain(const Options& o, const std::string& name, bool tracked, bool backward) {
  auto x = Tensor<Backend, 2>::random({4, 4}, Distribution::Default);
  auto y = Tensor<Backend, 2>::random({4, 4}, Distribution::Default);
  if constexpr (AutodiffBackend<Backend>)
    if (tracked) x = x.require_grad();
  int n = backward ? kChain / 10 : kChain;
  auto body = [&] {
    auto a = x;
    for (int i = 0; i < n; ++i) a = a + y;
    if constexpr (AutodiffBackend<Backend>)
      if (backward) (void)a.sum().backward();
  };
  run(o, name, 20, body, "us_per_op", [n](double ms) { return ms * 1e3 / n; });
}

/// x·w + b for [rows, in] inputs and [in, out] weights.
template <class AD> Tensor<AD, 2> linear(const Tensor<AD, 2>& x, const Tensor<AD, 2>& w, const Tensor<AD, 2>& b) {
  return x.matmul(w) + b;
}

/// (x − mean) / sqrt(var + 1e-5) · γ + β over the last dim.
template <class AD>
Tensor<AD, 2> layer_norm(const Tensor<AD, 2>& x, const Tensor<AD, 2>& gamma, const Tensor<AD, 2>& beta) {
  auto [var, mean] = x.var_mean_bias(1);
  return (x - mean) / (var + 1e-5).sqrt() * gamma + beta;
}

// PyTorch's TransformerEncoderLayer(256, 8, 1024, dropout=0, batch_first=True), written with tensor
// ops (the nn::TransformerEncoder version is transformer_layer_d256_fwd_bwd in nn_bench.cpp).
template <class AD> void transformer_layer_of_ops(const Options& o) {
  const size_t batch = 8, seq = 128, d = 256, heads = 8, ff = 1024, rows = batch * seq;
  auto param = [](size_t r, size_t c, double scale) -> Tensor<AD, 2> {
    return Tensor<AD, 2>::random({r, c}, Distribution::normal(0, scale)).require_grad();
  };
  auto wq = param(d, d, 0.06), wk = param(d, d, 0.06), wv = param(d, d, 0.06), wo = param(d, d, 0.06);
  auto bq = param(1, d, 0.02), bk = param(1, d, 0.02), bv = param(1, d, 0.02), bo = param(1, d, 0.02);
  auto w1 = param(d, ff, 0.06), b1 = param(1, ff, 0.02), w2 = param(ff, d, 0.03), b2 = param(1, d, 0.02);
  auto g1 = Tensor<AD, 2>::ones({1, d}).require_grad(), g2 = Tensor<AD, 2>::ones({1, d}).require_grad();
  auto n1 = Tensor<AD, 2>::zeros({1, d}).require_grad(), n2 = Tensor<AD, 2>::zeros({1, d}).require_grad();
  auto x = Tensor<AD, 2>::random({rows, d}, Distribution::normal(0, 1)).require_grad();
  auto split = [&](const Tensor<AD, 2>& t) -> Tensor<AD, 4> {
    return t.template reshape<4>({batch, seq, heads, d / heads}).swap_dims(1, 2);
  };
  auto body = [&] {
    auto attn = functional::attention(split(linear(x, wq, bq)), split(linear(x, wk, bk)), split(linear(x, wv, bv)));
    auto merged = attn.swap_dims(1, 2).template reshape<2>({rows, d});
    auto h = layer_norm(x + linear(merged, wo, bo), g1, n1);
    auto out = layer_norm(h + linear(activation::relu(linear(h, w1, b1)), w2, b2), g2, n2);
    (void)out.sum().backward();
  };
  run(o, "transformer_layer_d256_fwd_bwd_ops", 2, body, "gflops_fwd", [&](double ms) {
    double flop = 2.0 * rows * d * (4.0 * d + 2.0 * ff) + 4.0 * batch * heads * seq * seq * (d / heads);
    return flop / ms / 1e6;
  });
}

}  // namespace

template <class B> void autodiff_workloads(const Options& o) {
  using AD = Autodiff<B>;
  add_chain<B>(o, "op_overhead_add_4x4_cpu", false, false);
  add_chain<AD>(o, "op_overhead_add_4x4_autodiff_untracked", false, false);
  add_chain<AD>(o, "op_overhead_add_4x4_autodiff_tracked", true, false);
  add_chain<AD>(o, "op_overhead_add_4x4_autodiff_fwd_bwd", true, true);
  transformer_layer_of_ops<AD>(o);
}
SCORCH_BENCH_INSTANTIATE(autodiff_workloads);

}  // namespace scorch::bench

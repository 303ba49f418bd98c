// GPU workloads paired with bench/anchors/torch_gpu_anchor.py, under the same names: 4096²
// matmul in f32, tf32 and bf16; the gelu_custom chain and single elementwise ops on 64M f32 (their
// GB/s compare with the anchor's copy_64M, the bandwidth floor); softmax over 8192×8192; the guide CNN train step at
// batch 64 and 1024; a Linear with bias and relu (eager and fused); one transformer encoder layer (d512, 8 heads,
// ff 2048, seq 256, batch 32) forward + backward; the guide step and the transformer layer replayed as CUDA graphs
// by train::StepGraph (_graph); the layer under autocast bf16 and the GPT example's train step in f32 and AMP bf16.
// Each timed repetition runs the workload kInner times between device syncs, so launch queuing overlaps as in
// PyTorch eager and one sync is amortized.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

#include "bench.h"
#include "guide/model_forward.hpp"
#include "text-generation/gpt.h"
#include "scorch/train/step_graph.h"

#ifdef SCORCH_HAVE_CUDA
#include <scorch/stacks/cuda/autodiff.h>
#include <scorch/stacks/fusion_cuda/autodiff.h>
#endif
#ifdef SCORCH_HAVE_VULKAN
#include <scorch/stacks/vulkan/autodiff.h>
#endif

namespace scorch::bench {
namespace {

constexpr int kInner = 10;

[[maybe_unused]] void run_gpu(const Options& o, const std::string& name, const std::function<void()>& fn,
                              const std::string& key, const std::function<double(double)>& extra) {
#ifdef SCORCH_HAVE_CUDA
  if (o.backend_name == "cuda" && o.filter == name) {  // profiling one workload: keep first-call autotuning out
    fn();
    (void)backends::cuda::profile_report(0);
  }
#endif
  run_repeated(o, name, 2, kInner, fn, key, extra);
#ifdef SCORCH_HAVE_CUDA
  if (o.backend_name == "cuda")
    if (auto profile = backends::cuda::profile_report(0); !profile.empty())
      std::fprintf(stderr, "== profile of %s\n%s", name.c_str(), profile.c_str());
#endif
#ifdef SCORCH_HAVE_VULKAN
  if (o.backend_name == "vulkan")  // SCORCH_VULKAN_PROFILE=1: GPU time per shader, warm-up and repetitions together
    if (auto profile = backends::vulkan::profile_report(0); !profile.empty())
      std::fprintf(stderr, "== profile of %s\n%s", name.c_str(), profile.c_str());
#endif
}

template <class B> void gemm(const Options& o) {
  const size_t n = 4096;
  auto tflops = [&](double ms) { return 2.0 * n * n * n / ms / 1e9; };
  auto a = Tensor<B, 2>::random({n, n}, Distribution::normal(0, 1));
  auto b = Tensor<B, 2>::random({n, n}, Distribution::normal(0, 1));
  run_gpu(
      o, "matmul_f32_4096", [&] { (void)a.matmul(b); }, "tflops", tflops);
  auto a16 = a.cast(DType::BF16), b16 = b.cast(DType::BF16);
  run_gpu(
      o, "matmul_bf16_4096", [&] { (void)a16.matmul(b16); }, "tflops", tflops);
#ifdef SCORCH_HAVE_CUDA
  if constexpr (std::is_same_v<B, Cuda>) {
    auto mode = backends::cuda::f32_matmul();
    backends::cuda::set_allow_tf32(true);
    run_gpu(
        o, "matmul_tf32_4096", [&] { (void)a.matmul(b); }, "tflops", tflops);
    backends::cuda::set_f32_matmul(backends::cuda::F32Matmul::Tf32x3);
    run_gpu(
        o, "matmul_tf32x3_4096", [&] { (void)a.matmul(b); }, "tflops", tflops);
    backends::cuda::set_f32_matmul(mode);
  }
#endif
}

// The f32 products of a transformer layer's forward and backward: NN, NT (x·Wᵀ) and TN (xᵀ·g),
// named gemm_MxKxN_layout (_bf16 in bf16; bench/anchors/gemm_shapes.py times the same in PyTorch), then mode.
template <class B> void gemm_shapes(const Options& o, DType dtype, const std::string& mode = "") {
  struct Case {
    size_t m, k, n;
  };
  for (Case c : {Case{8192, 512, 512}, Case{8192, 512, 2048}, Case{8192, 2048, 512}, Case{512, 8192, 512},
                 Case{512, 8192, 2048}}) {
    auto tflops = [&](double ms) { return 2.0 * c.m * c.k * c.n / ms / 1e9; };
    std::string shape = std::to_string(c.m) + "x" + std::to_string(c.k) + "x" + std::to_string(c.n);
    std::string suffix = (dtype == DType::F32 ? "" : "_" + std::string(dtype_name(dtype))) + mode;
    auto make = [&](size_t rows, size_t cols) {
      return Tensor<B, 2>::random({rows, cols}, Distribution::normal(0, 1)).cast(dtype);
    };
    auto a = make(c.m, c.k), b = make(c.k, c.n), at = make(c.k, c.m).transpose(), bt = make(c.n, c.k).transpose();
    run_gpu(
        o, "gemm_" + shape + "_NN" + suffix, [&] { (void)a.matmul(b); }, "tflops", tflops);
    run_gpu(
        o, "gemm_" + shape + "_NT" + suffix, [&] { (void)a.matmul(bt); }, "tflops", tflops);
    run_gpu(
        o, "gemm_" + shape + "_TN" + suffix, [&] { (void)at.matmul(b); }, "tflops", tflops);
  }
}

template <class B> void bandwidth(const Options& o) {
  const size_t n = 64 * 1024 * 1024;
  auto x = Tensor<B, 1>::random({n}, Distribution::normal(0, 1));
  auto y = Tensor<B, 1>::random({n}, Distribution::normal(0, 1));
  auto gbs = [&](double bytes_per_elem) { return [=](double ms) { return bytes_per_elem * n / ms / 1e6; }; };
  run_gpu(
      o, "gelu_custom_eager_64M", [&] { (void)((x * ((x / std::sqrt(2.0)).erf() + 1.0)) / 2.0); }, "gb_per_s_eff",
      gbs(8));
  run_gpu(
      o, "mul_scalar_64M", [&] { (void)(x * 1.0); }, "gb_per_s", gbs(8));
  run_gpu(
      o, "add_64M", [&] { (void)(x + y); }, "gb_per_s", gbs(12));
  run_gpu(
      o, "exp_64M", [&] { (void)x.exp(); }, "gb_per_s", gbs(8));
  run_gpu(
      o, "gelu_builtin_64M", [&] { (void)activation::gelu(x); }, "gb_per_s", gbs(8));
  auto z = Tensor<B, 2>::random({8192, 8192}, Distribution::normal(0, 1));
  run_gpu(
      o, "softmax_8192x8192", [&] { (void)activation::softmax(z, -1); }, "gb_per_s",
      [](double ms) { return 2.0 * 8192 * 8192 * 4 / ms / 1e6; });
  auto bias = Tensor<B, 2>::random({1, 8192}, Distribution::normal(0, 1));
  run_gpu(
      o, "softmax_expr_8192x8192", [&] { (void)activation::softmax(z * 0.125 + bias, -1); }, "gb_per_s_eff",
      [](double ms) { return 2.0 * 8192 * 8192 * 4 / ms / 1e6; });
}

// The same chains on Fusion<Cuda>: each runs as one generated kernel. Each result is queued at once with
// Fusion::flush (a value no handle holds is never computed, and the bench's sync is Cuda's).
template <class B> void fused_bandwidth(const Options& o) {
  const size_t n = 64 * 1024 * 1024;
  auto x = Tensor<B, 1>::random({n}, Distribution::normal(0, 1));
  Tensor<B, 1> out;
  auto gbs = [&](double bytes_per_elem) { return [=](double ms) { return bytes_per_elem * n / ms / 1e6; }; };
  run_gpu(
      o, "gelu_custom_fused_64M",
      [&] {
        out = (x * ((x / std::sqrt(2.0)).erf() + 1.0)) / 2.0;
        B::flush();
      },
      "gb_per_s_eff", gbs(8));
  run_gpu(
      o, "copy_fused_64M",
      [&] {
        out = (x * 1.0) + 0.0;
        B::flush();
      },
      "gb_per_s", gbs(8));
  // Softmax of an expression: the scale and bias are computed as the softmax kernel reads them.
  auto z = Tensor<B, 2>::random({8192, 8192}, Distribution::normal(0, 1));
  auto bias = Tensor<B, 2>::random({1, 8192}, Distribution::normal(0, 1));
  Tensor<B, 2> soft;
  run_gpu(
      o, "softmax_expr_fused_8192x8192",
      [&] {
        soft = activation::softmax(z * 0.125 + bias, -1);
        B::flush();
      },
      "gb_per_s_eff", [](double ms) { return 2.0 * 8192 * 8192 * 4 / ms / 1e6; });
  run_gpu(
      o, "softmax_scaled_fused_8192x8192",  // contiguous leaves: no offsets
      [&] {
        soft = activation::softmax(z * 0.125, -1);
        B::flush();
      },
      "gb_per_s_eff", [](double ms) { return 2.0 * 8192 * 8192 * 4 / ms / 1e6; });
}

/// Queues what a Fusion stack has recorded (the bench's sync is the inner backend's); nothing otherwise.
template <class AD> void flush_recorded() {
  if constexpr (requires { InnerOf<AD>::flush(); }) InnerOf<AD>::flush();
}

template <class AD> void guide_step(const Options& o, size_t batch, const std::string& name) {
  auto model = guide::ModelConfig(10, 512).template init<AD>();
  auto optim = optim::AdamConfig().init();
  auto images = Tensor<AD, 3>::random({batch, 28, 28}, Distribution::normal(0, 1));
  auto labels = Tensor<AD, 1, Int>::random({batch}, Distribution::uniform(0, 10));
  auto loss_fn = nn::CrossEntropyLossConfig().template init<AD>();
  run_gpu(
      o, name,
      [&] {
        auto loss = loss_fn.forward(model.forward(images), labels);
        auto grads = optim::GradientsParams::from_grads(loss.backward(), model);
        model = optim.step(1e-4, model, std::move(grads));
        flush_recorded<AD>();
      },
      "img_per_s", [=](double ms) { return batch / ms * 1e3; });
}

/// Prints how many kernels the workload's graph holds (and, with SCORCH_GRAPH_KERNELS=1, how many of each).
template <class AD> void report_graph(const Options& o, const std::string& name, const train::StepGraph<AD>& graph) {
  if (!selected(o, name) || !graph.graph()) return;
  std::fprintf(stderr, "%s: %zu kernels in the graph\n", name.c_str(), graph.stats().graph_kernels);
  if (!std::getenv("SCORCH_GRAPH_KERNELS")) return;
  std::map<std::string, int> counts;
  for (const auto& kernel : graph.graph()->kernel_names()) ++counts[kernel];
  for (const auto& [kernel, count] : counts) std::fprintf(stderr, "  %4d  %s\n", count, kernel.c_str());
}

/// The guide's step captured once by a StepGraph and replayed (Adam counting steps on the device).
template <class AD> void guide_step_graphed(const Options& o, size_t batch, const std::string& name) {
  auto model = guide::ModelConfig(10, 512).template init<AD>();
  auto optim = optim::AdamConfig().with_capturable(true).init();
  auto images = Tensor<AD, 3>::random({batch, 28, 28}, Distribution::normal(0, 1));
  auto labels = Tensor<AD, 1, Int>::random({batch}, Distribution::uniform(0, 10));
  auto loss_fn = nn::CrossEntropyLossConfig().template init<AD>();
  using Graph = train::StepGraph<AD>;
  Graph graph;
  const auto inputs = typename Graph::Tensors().add(images).add(labels);
  run_gpu(
      o, name,
      [&] {
        graph.step(
            inputs, [&] { return typename Graph::Tensors().add_module(model).add_optimizer(optim); },
            [&] {
              auto loss = loss_fn.forward(model.forward(images), labels);
              auto grads = optim::GradientsParams::from_grads(loss.backward(), model);
              model = optim.step(1e-4, model, std::move(grads));
            });
      },
      "img_per_s", [=](double ms) { return batch / ms * 1e3; });
  report_graph(o, name, graph);
}

/// autocast: the forward inside an amp::Autocast scope of that dtype (the AMP twin).
template <class AD>
void transformer(const Options& o, const std::string& name, std::optional<DType> autocast = std::nullopt) {
  const size_t batch = 32, seq = 256, d = 512, heads = 8, ff = 2048;
  auto config = nn::TransformerEncoderConfig(d, ff, heads, 1)
                    .with_dropout(0.0)
                    .with_activation(nn::ActivationConfig::of(nn::ActivationKind::Relu));
  auto encoder = config.template init<AD>();
  auto x = Tensor<AD, 3>::random({batch, seq, d}, Distribution::normal(0, 1)).require_grad();
  run_gpu(
      o, name,
      [&] {
        std::optional<Tensor<AD, 3>> y;
        {
          amp::Autocast scope(autocast);  // nullopt: full precision
          y = encoder.forward(nn::TransformerEncoderInput<AD>(x));
        }
        auto grads = y->cast(DType::F32).sum().backward();
        flush_recorded<AD>();  // before grads go: a value no handle holds is never computed
      },
      "tflops_fwd",
      [&](double ms) {
        return (2.0 * batch * seq * d * (4.0 * d + 2.0 * ff) + 4.0 * batch * heads * seq * seq * (d / heads)) / ms /
               1e9;
      });
}

/// The transformer layer's forward and backward captured once and replayed; the input's gradient is its output.
template <class AD> void transformer_graphed(const Options& o, const std::string& name) {
  const size_t batch = 32, seq = 256, d = 512, heads = 8, ff = 2048;
  auto encoder = nn::TransformerEncoderConfig(d, ff, heads, 1)
                     .with_dropout(0.0)
                     .with_activation(nn::ActivationConfig::of(nn::ActivationKind::Relu))
                     .template init<AD>();
  auto x = Tensor<AD, 3>::random({batch, seq, d}, Distribution::normal(0, 1)).require_grad();
  std::optional<Tensor<typename AD::InnerBackend, 3>> dx;
  using Graph = train::StepGraph<AD>;
  Graph graph;
  const auto inputs = typename Graph::Tensors().add(x);
  run_gpu(
      o, name,
      [&] {
        graph.step(
            inputs, [] { return typename Graph::Tensors(); },
            [&] {
              auto grads = encoder.forward(nn::TransformerEncoderInput<AD>(x)).sum().backward();
              dx = x.grad(grads);
              flush_recorded<AD>();  // every gradient, as PyTorch's backward computes (not only dx's graph)
            });
      },
      "tflops_fwd",
      [&](double ms) {
        return (2.0 * batch * seq * d * (4.0 * d + 2.0 * ff) + 4.0 * batch * heads * seq * seq * (d / heads)) / ms /
               1e9;
      });
  report_graph(o, name, graph);
}

}  // namespace

/// relu(x·W + b), x [8192, 1024], W [1024, 4096], f32: a Linear's forward with its bias and relu (three kernels
/// eager; one cuBLASLt call with its RELU_BIAS epilogue on Fusion<Cuda>).
template <class B> void linear_relu(const Options& o, const std::string& name) {
  auto x = Tensor<B, 2>::random({8192, 1024}, Distribution::normal(0, 1));
  auto w = Tensor<B, 2>::random({1024, 4096}, Distribution::normal(0, 0.03));
  auto b = Tensor<B, 2>::random({1, 4096}, Distribution::normal(0, 1));
  Tensor<B, 2> out;
  run_gpu(
      o, name,
      [&] {
        out = activation::relu(x.matmul(w) + b);
        if constexpr (requires { B::flush(); }) B::flush();
      },
      "tflops", [](double ms) { return 2.0 * 8192 * 1024 * 4096 / ms / 1e9; });
}

/// Layer norm of x [8192, 512] with gamma and beta, forward and backward of its sum (PyTorch's twin:
/// ln(x).sum().backward()): reads x twice and the gradient once, writes y and dx.
template <class AD> void layer_norm_step(const Options& o, const std::string& name) {
  auto x = Tensor<AD, 2>::random({8192, 512}, Distribution::normal(0, 1)).require_grad();
  auto ln = nn::LayerNormConfig(512).template init<AD>();
  run_gpu(
      o, name,
      [&] {
        auto grads = ln.forward(x).sum().backward();
        flush_recorded<AD>();
      },
      "gb_per_s", [](double ms) { return 4.0 * 8192 * 512 * 4 / ms / 1e6; });
}

/// Scaled dot-product attention of q, k, v [32, 8, 256, 64] of dtype, forward and backward of its sum, with dropout
/// of that probability inside the op.
template <class AD> void attention_step(const Options& o, const std::string& name, DType dtype, double dropout = 0) {
  auto make = [&] {
    return Tensor<AD, 4>::random({32, 8, 256, 64}, Distribution::normal(0, 1)).cast(dtype).detach().require_grad();
  };
  auto q = make(), k = make(), v = make();
  run_gpu(
      o, name,
      [&] {
        auto grads = functional::attention(q, k, v, std::nullopt, std::nullopt, false, dropout).sum().backward();
        flush_recorded<AD>();
      },
      "tflops", [](double ms) { return 3.5 * 4.0 * 32 * 8 * 256.0 * 256 * 64 / ms / 1e9; });
}

/// The attention kernels alone on backend B (no Autodiff): forward with statistics, and backward, of q, k, v
/// [32, 8, 256, 64] in dtype.
template <class B> void attention_kernels(const Options& o, const std::string& name, DType dtype) {
  auto make = [&] { return Tensor<B, 4>::random({32, 8, 256, 64}, Distribution::normal(0, 1)).cast(dtype); };
  auto q = make(), k = make(), v = make(), grad = make();
  auto fwd_flops = [](double ms) { return 4.0 * 32 * 8 * 256.0 * 256 * 64 / ms / 1e9; };
  run_gpu(
      o, name + "_fwd", [&] { (void)functional::attention_with_stats(q, k, v); }, "tflops", fwd_flops);
  auto [out, lse] = functional::attention_with_stats(q, k, v);
  run_gpu(
      o, name + "_bwd", [&] { (void)functional::attention_backward(q, k, v, out, lse, grad); }, "tflops",
      [&](double ms) { return 2.5 * fwd_flops(ms); });
}

/// One AdamW train step of the 6-layer GPT (examples/text-generation/gpt.h: d512, 8 heads, seq 512, batch 16,
/// vocab 8192; the forward inside an autocast scope of autocast's dtype when given), and the step's peak memory.
template <class AD> void gpt_step(const Options& o, const std::string& name, std::optional<DType> autocast) {
  if (!selected(o, name)) return;  // building the model is costly: skip it when filtered out
  const size_t batch = 16, seq = 512, vocab = 8192;
  AD::seed(0);
  auto config = textgen::GptConfig(vocab).with_max_seq(seq).with_d_model(512).with_n_heads(8).with_n_layers(6);
  auto model = config.with_d_ff(2048).with_dropout(0.0).template init<AD>();
  auto optim = optim::AdamWConfig().init();
  auto ids = [&] { return Tensor<AD, 2>::random({batch, seq}, Distribution::uniform(0, vocab - 1)).int_(); };
  textgen::TokenBatch<AD> tokens{ids(), ids()};
  auto step = [&] {
    std::optional<Tensor<AD, 1>> loss;
    {
      amp::Autocast scope(autocast);  // nullopt: full precision
      loss = model.forward_classification(tokens).loss;
    }
    auto grads = optim::GradientsParams::from_grads(loss->backward(), model);
    model = optim.step(3e-4, model, std::move(grads));
  };
  for (int i = 0; i < 3; ++i) step();
#ifdef SCORCH_HAVE_CUDA
  o.sync();
  backends::cuda::reset_peak(0);
#endif
  run_gpu(o, name, step, "tok_per_s", [=](double ms) { return batch * seq / ms * 1e3; });
#ifdef SCORCH_HAVE_CUDA
  std::printf("{\"bench\": \"%s_peak_mb\", \"backend\": \"%s\", \"peak_in_use_mb\": %.1f}\n", name.c_str(),
              o.backend_name.c_str(), backends::cuda::pool_stats(0).peak_in_use / 1048576.0);
#endif
}

/// One AdamW step alone (no forward or backward) over the 6-layer GPT's parameters with fixed gradients: the
/// multi-tensor update, reading parameter, gradient and moments and writing three of them.
template <class AD> void adamw_step(const Options& o, const std::string& name) {
  if (!selected(o, name)) return;
  AD::seed(0);
  auto config = textgen::GptConfig(8192).with_max_seq(512).with_d_model(512).with_n_heads(8).with_n_layers(6);
  auto model = config.with_d_ff(2048).with_dropout(0.0).template init<AD>();
  auto ids = [&] { return Tensor<AD, 2>::random({2, 512}, Distribution::uniform(0, 8191)).int_(); };
  textgen::TokenBatch<AD> tokens{ids(), ids()};
  auto grads = optim::GradientsParams::from_grads(model.forward_classification(tokens).loss.backward(), model);
  auto optim = optim::AdamWConfig().init();
  double bytes = 7.0 * 4 * static_cast<double>(num_params(model));
  run_gpu(
      o, name, [&] { model = optim.step(3e-4, model, grads); }, "gb_per_s",
      [=](double ms) { return bytes / ms / 1e6; });
}

/// The f32 training workloads with F32Matmul::Tf32x3 (names ending _tf32x3; their PyTorch twins are the exact f32
/// ones, which PyTorch runs with f32 FMA).
template <class B> void tf32x3_workloads(const Options& o) {
#ifdef SCORCH_HAVE_CUDA
  auto mode = backends::cuda::f32_matmul();
  backends::cuda::set_f32_matmul(backends::cuda::F32Matmul::Tf32x3);
  gemm_shapes<B>(o, DType::F32, "_tf32x3");  // gemm_512x8192x512 stays exact (m·n / (m + n) = 256)
  transformer<Autodiff<B>>(o, "transformer_layer_fwd_bwd_f32_tf32x3");
  gpt_step<Autodiff<B>>(o, "gpt6_d512_s512_b16_train_step_f32_tf32x3", std::nullopt);
  backends::cuda::set_f32_matmul(mode);
#endif
}

template <class B> void gpu_workloads(const Options& o) {
  gemm<B>(o);
  gemm_shapes<B>(o, DType::F32);
  gemm_shapes<B>(o, DType::BF16);
  bandwidth<B>(o);
  guide_step<Autodiff<B>>(o, 64, "mnist_guide_train_step_b64");
  guide_step<Autodiff<B>>(o, 1024, "mnist_guide_train_step_b1024");
  transformer<Autodiff<B>>(o, "transformer_layer_fwd_bwd_f32");
  transformer<Autodiff<B>>(o, "transformer_layer_fwd_bwd_amp_bf16", DType::BF16);
  gpt_step<Autodiff<B>>(o, "gpt6_d512_s512_b16_train_step_f32", std::nullopt);
  gpt_step<Autodiff<B>>(o, "gpt6_d512_s512_b16_train_step_amp_bf16", DType::BF16);
  linear_relu<B>(o, "linear_relu_f32_8192x1024x4096");
  layer_norm_step<Autodiff<B>>(o, "layer_norm_8192x512_fwd_bwd_f32");
  attention_step<Autodiff<B>>(o, "sdpa_b32_h8_s256_d64_fwd_bwd_f32", DType::F32);
  attention_step<Autodiff<B>>(o, "sdpa_b32_h8_s256_d64_fwd_bwd_bf16", DType::BF16);
  attention_step<Autodiff<B>>(o, "sdpa_b32_h8_s256_d64_fwd_bwd_bf16_dropout", DType::BF16, 0.1);
  attention_kernels<B>(o, "sdpa_b32_h8_s256_d64_bf16", DType::BF16);
  attention_kernels<B>(o, "sdpa_b32_h8_s256_d64_f32", DType::F32);
  adamw_step<Autodiff<B>>(o, "adamw_step_gpt6_params");
  fused_bandwidth<Fusion<B>>(o);
  linear_relu<Fusion<B>>(o, "linear_relu_f32_8192x1024x4096_fused");
  guide_step<Autodiff<Fusion<B>>>(o, 64, "mnist_guide_train_step_b64_fused");
  transformer<Autodiff<Fusion<B>>>(o, "transformer_layer_fwd_bwd_f32_fused");
  guide_step_graphed<Autodiff<B>>(o, 64, "mnist_guide_train_step_b64_graph");
  guide_step_graphed<Autodiff<Fusion<B>>>(o, 64, "mnist_guide_train_step_b64_graph_fused");
  transformer_graphed<Autodiff<B>>(o, "transformer_layer_fwd_bwd_f32_graph");
  transformer_graphed<Autodiff<Fusion<B>>>(o, "transformer_layer_fwd_bwd_f32_graph_fused");
  tf32x3_workloads<B>(o);
}
#ifdef SCORCH_HAVE_CUDA
template void gpu_workloads<Cuda>(const Options&);  // GPU workloads only for the GPU backend
#endif

/// The GPU workloads the Vulkan backend runs (its GEMMs, the elementwise ops against copy bandwidth, softmax, the guide
/// step), under the same names as Cuda's and the anchor's.
template <class B> void vulkan_workloads(const Options& o) {
  gemm<B>(o);
  const size_t n = 4096;
  auto a = Tensor<B, 2>::random({n, n}, Distribution::normal(0, 1)).cast(DType::F16);
  auto b = Tensor<B, 2>::random({n, n}, Distribution::normal(0, 1)).cast(DType::F16);
  auto tflops = [&](double ms) { return 2.0 * n * n * n / ms / 1e9; };
  run_gpu(
      o, "matmul_f16_4096", [&] { (void)a.matmul(b); }, "tflops", tflops);
  bandwidth<B>(o);
  guide_step<Autodiff<B>>(o, 64, "mnist_guide_train_step_b64");
  guide_step<Autodiff<B>>(o, 1024, "mnist_guide_train_step_b1024");
}
#ifdef SCORCH_HAVE_VULKAN
template void vulkan_workloads<Vulkan>(const Options&);
#endif

}  // namespace scorch::bench

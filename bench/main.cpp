// scorch-bench: one JSON line per workload, named as in bench/anchors/torch_cpu_anchor.py so
// each result pairs with PyTorch's. Method: warm up, time repetitions, report the median; the
// last line reports the process's peak resident memory.
// Usage: scorch-bench [--filter SUBSTRING[,SUBSTRING...]] [--reps N]
//                     [--backend cpu|fusion-cpu|libtorch|cuda|vulkan|remote|remote-cuda]
// --backend remote (remote-cuda) runs Remote's workloads against a scorch-server over Cpu (Cuda) in this process
// (bench/remote_bench.cpp).
// --backend vulkan runs the Vulkan backend's GPU workloads (bench/gpu_bench.cpp's vulkan_workloads) on Vulkan(0).
// --backend cuda runs the GPU anchor's workloads (bench/anchors/torch_gpu_anchor.py) on Cuda(0)
// under its names, then the backend workloads, and reports the caching pool's peak.
// --backend libtorch runs the backend workloads (tensor ops, autodiff, nn) on LibTorch with the
// same names, so Cpu-vs-LibTorch ratios come from one binary; machine peak, data loading and
// record save/load do not depend on the backend and run with cpu only.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <scorch/backends/cpu/kernels/gemm.h>

#include "bench.h"
#include "scorch/remote/server.h"
#ifdef SCORCH_HAVE_VULKAN
#include <scorch/backends/vulkan/vulkan_backend.h>
#endif

namespace scorch::bench {

namespace {

double median_ms(const std::function<void()>& fn, int warm, int reps, const std::function<void()>& sync) {
  for (int i = 0; i < warm; ++i) fn();
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    sync();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void report(const Options& o, const std::string& name, double ms, const std::string& extra_key, double extra) {
  std::printf(
      "{\"bench\": \"%s\", \"backend\": \"%s\", \"threads\": %zu, \"median_ms\": %.4f, \"%s\": %.2f, \"peak_rss_mb\": "
      "%.1f}\n",
      name.c_str(), o.backend_name.c_str(), o.threads, ms, extra_key.c_str(), extra, peak_rss_mb());
  std::fflush(stdout);
}

// The machine's FP32 FMA peak on the pool's threads: 24 independent vector FMA chains each.
void fp32_peak(const Options& o) {
  typedef float Vec __attribute__((vector_size(backends::cpu::gemm::kVecBytes)));
  constexpr size_t kChains = 24, kLanes = sizeof(Vec) / sizeof(float);
  const size_t iters = 2'000'000, threads = backends::cpu::num_threads();
  std::vector<float> sink(threads);
  auto body = [&] {
    backends::cpu::parallel_for(threads, 1, [&](size_t b, size_t e) {
      for (size_t t = b; t < e; ++t) {
        Vec acc[kChains];
        for (size_t i = 0; i < kChains; ++i) acc[i] = Vec{} + static_cast<float>(i) * 1e-3f;
        Vec a = Vec{} + 0.999999f, c = Vec{} + 1e-7f;
        for (size_t it = 0; it < iters; ++it)
#pragma GCC unroll 24
          for (size_t i = 0; i < kChains; ++i) acc[i] = acc[i] * a + c;
        float s = 0;
        for (size_t i = 0; i < kChains; ++i) s += acc[i][0];
        sink[t] = s;
      }
    });
  };
  const double flop = 2.0 * kLanes * kChains * iters * threads;
  run(o, "fp32_fma_peak", 1, body, "gflops", [&](double ms) { return flop / ms / 1e6; });
}

/// The convolutions of ResNet-18 at batch 1 (input channels, size, kernel, stride, output channels), one by one.
template <class B> void conv_batch1(const Options& o) {
  struct Layer {
    size_t cin, size, kernel, stride, cout;
  };
  const Layer layers[] = {{3, 224, 7, 2, 64},   {64, 56, 3, 1, 64},   {64, 56, 3, 2, 128},
                          {128, 28, 3, 1, 128}, {128, 28, 3, 2, 256}, {256, 14, 3, 1, 256},
                          {256, 14, 3, 2, 512}, {512, 7, 3, 1, 512},  {256, 14, 1, 2, 512}};
  for (const auto& l : layers) {
    auto x = Tensor<B, 4>::random({1, l.cin, l.size, l.size}, Distribution::normal(0, 1));
    auto w = Tensor<B, 4>::random({l.cout, l.cin, l.kernel, l.kernel}, Distribution::normal(0, 1));
    size_t pad = l.kernel / 2, out = (l.size + 2 * pad - l.kernel) / l.stride + 1;
    functional::ConvOptions<2> opts{{l.stride, l.stride}, {pad, pad}, {1, 1}, 1};
    const double flop = 2.0 * l.cout * l.cin * l.kernel * l.kernel * out * out;
    std::string name = "conv2d_b1_c" + std::to_string(l.cin) + "_" + std::to_string(l.size) + "_k" +
                       std::to_string(l.kernel) + "s" + std::to_string(l.stride) + "_to" + std::to_string(l.cout);
    run(
        o, name, 10, [&] { (void)functional::conv2d(x, w, std::nullopt, opts); }, "gflops",
        [&](double ms) { return flop / ms / 1e6; });
  }
  // MobileNetV2's depthwise 3 × 3 convolutions (channels, size, stride).
  const Layer depthwise[] = {{96, 112, 3, 2, 96}, {144, 56, 3, 1, 144}, {576, 14, 3, 1, 576}, {960, 7, 3, 1, 960}};
  for (const auto& l : depthwise) {
    auto x = Tensor<B, 4>::random({1, l.cin, l.size, l.size}, Distribution::normal(0, 1));
    auto w = Tensor<B, 4>::random({l.cout, 1, l.kernel, l.kernel}, Distribution::normal(0, 1));
    size_t out = (l.size + 2 - l.kernel) / l.stride + 1;
    functional::ConvOptions<2> opts{{l.stride, l.stride}, {1, 1}, {1, 1}, l.cin};
    const double flop = 2.0 * l.cout * l.kernel * l.kernel * out * out;
    run(
        o, "dwconv2d_b1_c" + std::to_string(l.cin) + "_" + std::to_string(l.size) + "_k3s" + std::to_string(l.stride),
        10, [&] { (void)functional::conv2d(x, w, std::nullopt, opts); }, "gflops",
        [&](double ms) { return flop / ms / 1e6; });
  }
  auto stem = Tensor<B, 4>::random({1, 64, 112, 112}, Distribution::normal(0, 1));
  run(
      o, "max_pool2d_b1_c64_112_k3s2", 10,
      [&] {
        (void)functional::max_pool(stem, {3, 3}, {2, 2}, {1, 1}, {1, 1});
      },
      "gb_per_s", [](double ms) { return (64.0 * 112 * 112 + 64.0 * 56 * 56) * 4 / ms / 1e6; });
}

template <class B> void linalg(const Options& o) {
  const size_t n = 1024;
  auto a = Tensor<B, 2>::random({n, n}, Distribution::normal(0, 1));
  auto b = Tensor<B, 2>::random({n, n}, Distribution::normal(0, 1));
  const double flop = 2.0 * n * n * n;
  run(
      o, "matmul_f32_1024", 5, [&] { (void)a.matmul(b); }, "gflops", [&](double ms) { return flop / ms / 1e6; });
  auto bt = b.transpose();
  run(
      o, "matmul_f32_1024_bT", 2, [&] { (void)a.matmul(bt); }, "gflops", [&](double ms) { return flop / ms / 1e6; });
  auto act = Tensor<B, 3>::random({8, 128, 256}, Distribution::normal(0, 1));
  auto weight = Tensor<B, 2>::random({256, 256}, Distribution::normal(0, 1)).template unsqueeze<3>();
  run(
      o, "matmul_f32_b8x128x256_w256", 5, [&] { (void)act.matmul(weight); }, "gflops",
      [&](double ms) { return 2.0 * 8 * 128 * 256 * 256 / ms / 1e6; });
  // Attention scores through einsum (a ViT-B/16 block's shape: batch 8, 12 heads, 197 tokens of 64): one batched
  // matmul of [96, 197, 64] · [96, 64, 197] after the planner's permutes.
  auto q = Tensor<B, 4>::random({8, 12, 197, 64}, Distribution::normal(0, 1));
  auto k = Tensor<B, 4>::random({8, 12, 197, 64}, Distribution::normal(0, 1));
  run(
      o, "einsum_attention_b8_h12_s197_d64", 5, [&] { (void)einsum<"bhqd,bhkd->bhqk">(q, k); }, "gflops",
      [&](double ms) { return 2.0 * 8 * 12 * 197 * 197 * 64 / ms / 1e6; });
  // ViT-B/16's attention input projection as PyTorch exports it: [197, 1, 768] (a transposed view) · [768, 2304].
  auto tokens_seq_first = Tensor<B, 3>::random({1, 197, 768}, Distribution::normal(0, 1)).swap_dims(0, 1);
  auto in_proj = Tensor<B, 2>::random({768, 2304}, Distribution::normal(0, 1)).template unsqueeze<3>();
  run(
      o, "matmul_f32_197x1x768_w2304", 5, [&] { (void)tokens_seq_first.matmul(in_proj); }, "gflops",
      [&](double ms) { return 2.0 * 197 * 768 * 2304 / ms / 1e6; });
  // The ONNX encoder's MLP projections (onnx_encoder_b8_s128): [1024, 256] · [256, 1024] and back.
  auto hidden = Tensor<B, 2>::random({1024, 1024}, Distribution::normal(0, 1));
  auto up = Tensor<B, 2>::random({256, 1024}, Distribution::normal(0, 1));
  auto down = Tensor<B, 2>::random({1024, 256}, Distribution::normal(0, 1));
  auto tokens = hidden.narrow(1, 0, 256) * 1.0;
  const double mlp_flop = 2.0 * 1024 * 256 * 1024;
  run(
      o, "matmul_f32_1024x256_up1024", 5, [&] { (void)tokens.matmul(up); }, "gflops",
      [&](double ms) { return mlp_flop / ms / 1e6; });
  run(
      o, "matmul_f32_1024x1024_down256", 5, [&] { (void)hidden.matmul(down); }, "gflops",
      [&](double ms) { return mlp_flop / ms / 1e6; });
  auto a64 = a.cast(DType::F64), b64 = b.cast(DType::F64);
  run(
      o, "matmul_f64_1024", 1, [&] { (void)a64.matmul(b64); }, "gflops", [&](double ms) { return flop / ms / 1e6; });
  auto x = Tensor<B, 4>::random({32, 64, 56, 56}, Distribution::normal(0, 1));
  auto w = Tensor<B, 4>::random({64, 64, 3, 3}, Distribution::normal(0, 1));
  const double conv_flop = 2.0 * 32 * 64 * 64 * 9 * 56 * 56;
  functional::ConvOptions<2> same{{1, 1}, {1, 1}, {1, 1}, 1};
  run(
      o, "conv2d_b32_c64_56x56_k3", 1, [&] { (void)functional::conv2d(x, w, std::nullopt, same); }, "gflops",
      [&](double ms) { return conv_flop / ms / 1e6; });
  conv_batch1<B>(o);
}

// Results are kept in `out` until the next run: on Fusion<B>, a value no handle holds is never computed.
template <class B> void elementwise(const Options& o) {
  auto x = Tensor<B, 1>::random({16 * 1024 * 1024}, Distribution::normal(0, 1));
  Tensor<B, 1> out;
  const double bytes = 2.0 * 16 * 1024 * 1024 * 4;
  auto gbs = [&](double ms) { return bytes / ms / 1e6; };
  run(
      o, "gelu_custom_16M", 3, [&] { out = (x * ((x / std::sqrt(2.0)).erf() + 1.0)) / 2.0; }, "gb_per_s_eff", gbs);
  run(
      o, "gelu_builtin_16M", 3, [&] { out = activation::gelu(x); }, "gb_per_s_eff", gbs);
  run(
      o, "copy_16M", 3, [&] { out = x * 1.0; }, "gb_per_s", gbs);
  auto z = Tensor<B, 2>::random({2048, 2048}, Distribution::normal(0, 1));
  Tensor<B, 2> out2;
  run(
      o, "softmax_2048x2048", 3, [&] { out2 = activation::softmax(z, -1); }, "gb_per_s_eff",
      [](double ms) { return 2.0 * 2048 * 2048 * 4 / ms / 1e6; });
  auto bias = Tensor<B, 2>::random({1, 2048}, Distribution::normal(0, 1));
  run(
      o, "softmax_expr_2048x2048", 3, [&] { out2 = activation::softmax(z * 0.125 + bias, -1); }, "gb_per_s_eff",
      [](double ms) { return 2.0 * 2048 * 2048 * 4 / ms / 1e6; });
}

/// Host cost of recording one elementwise op on Fusion<Cpu>: 1,000 ops whose results are dropped before they are
/// needed (so nothing is computed), per op.
void fusion_recording(const Options& o) {
  auto x = Tensor<FusionCpu, 1>::random({8}, Distribution::normal(0, 1));
  Tensor<FusionCpu, 1> out;
  run(
      o, "fusion_record_op", 3,
      [&] {
        for (int i = 0; i < 1000; ++i) out = x + 1.0;
      },
      "us_per_op", [](double ms) { return ms; });  // ms per 1,000 ops = µs per op
}

}  // namespace

bool selected(const Options& o, const std::string& name) {
  if (o.filter.empty()) return true;
  for (size_t start = 0; start <= o.filter.size();) {
    size_t end = std::min(o.filter.find(',', start), o.filter.size());
    if (end > start && name.find(o.filter.substr(start, end - start)) != std::string::npos) return true;
    start = end + 1;
  }
  return false;
}

void run(const Options& o, const std::string& name, int warm, const std::function<void()>& fn, const std::string& key,
         const std::function<double(double)>& extra) {
  if (!selected(o, name)) return;
  double ms = median_ms(fn, warm, o.reps, o.sync);
  report(o, name, ms, key, extra(ms));
}

void run_repeated(const Options& o, const std::string& name, int warm, int inner, const std::function<void()>& fn,
                  const std::string& key, const std::function<double(double)>& extra) {
  if (!selected(o, name)) return;
  double ms = median_ms(
                  [&] {
                    for (int i = 0; i < inner; ++i) fn();
                  },
                  warm, o.reps, o.sync) /
              inner;
  report(o, name, ms, key, extra(ms));
}

template <class B> void tensor_workloads(const Options& o) {
  linalg<B>(o);
  elementwise<B>(o);
}
SCORCH_BENCH_INSTANTIATE(tensor_workloads);

/// The backend's name, threads and sync in o, then every workload of the backend.
template <class B> void run_backend(Options& o) {
  o.backend_name = B::name();
  o.sync = [] { B::sync(typename B::Device{}); };
  B::seed(0);
  tensor_workloads<B>(o);
  autodiff_workloads<B>(o);
  if constexpr (std::is_same_v<B, Cpu>) dyn_workloads(o);
  nn_workloads<B>(o);
  quant_workloads<B>(o);
#ifdef SCORCH_HAVE_CUDA
  constexpr bool onnx_backend = std::is_same_v<B, Cpu> || std::is_same_v<B, Cuda>;
#else
  constexpr bool onnx_backend = std::is_same_v<B, Cpu>;
#endif
  if constexpr (onnx_backend) onnx_workloads<B>(o);
}

constexpr const char* kUsage =
    "usage: scorch-bench [--filter SUBSTRING[,SUBSTRING...]] [--reps N]\n"
    "                    [--backend cpu|fusion-cpu|libtorch|cuda|vulkan|remote|remote-cuda]\n"
    "Prints one JSON line per workload (the median of N timed repetitions after warm-up), named as the PyTorch\n"
    "anchors in bench/anchors/ name theirs, then the process's peak memory. bench/compare.py pairs them.\n";

/// --filter, --reps and --backend from the command line; --help prints the usage and exits.
Options parse_options(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") != 0 && std::strcmp(argv[i], "-h") != 0) continue;
    std::fputs(kUsage, stdout);
    std::exit(0);
  }
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--filter") == 0) o.filter = argv[i + 1];
    else if (std::strcmp(argv[i], "--reps") == 0) o.reps = std::max(1, std::atoi(argv[i + 1]));
    else if (std::strcmp(argv[i], "--backend") == 0) o.backend = argv[i + 1];
  }
  return o;
}

/// --backend vulkan: the Vulkan workloads on Vulkan(0), then the pool's and the command stream's counters; 2 without
/// a device or the backend.
int run_vulkan(Options& o) {
#ifdef SCORCH_HAVE_VULKAN
  if (!scorch::backends::vulkan::is_available()) {
    std::fprintf(stderr, "scorch-bench: no Vulkan device (%s)\n",
                 scorch::backends::vulkan::unavailable_reason().c_str());
    return 2;
  }
  o.threads = 0;
  o.backend_name = scorch::Vulkan::name();
  o.sync = [] { scorch::Vulkan::sync(scorch::VulkanDevice{0}); };
  scorch::Vulkan::seed(0);
  auto info = scorch::backends::vulkan::device_info(0);
  std::printf("{\"bench\": \"vulkan_device\", \"backend\": \"vulkan\", \"device\": \"%s\", \"driver\": \"%s\"}\n",
              info.name.c_str(), info.driver.c_str());
  vulkan_workloads<scorch::Vulkan>(o);
  auto stats = scorch::backends::vulkan::pool_stats(0);
  auto work = scorch::backends::vulkan::work_stats(0);
  std::printf(
      "{\"bench\": \"vulkan_pool\", \"backend\": \"vulkan\", \"peak_in_use_mb\": %.1f, \"device_mallocs\": %llu, "
      "\"dispatches\": %llu, \"submissions\": %llu, \"host_fallbacks\": %llu}\n",
      stats.peak_in_use / 1048576.0, static_cast<unsigned long long>(stats.device_mallocs),
      static_cast<unsigned long long>(work.dispatches), static_cast<unsigned long long>(work.submissions),
      static_cast<unsigned long long>(work.host_fallbacks));
  return 0;
#else
  (void)o;
  std::fprintf(stderr, "scorch-bench: built without the Vulkan backend (SCORCH_BUILD_VULKAN=OFF)\n");
  return 2;
#endif
}

/// --backend remote (remote-cuda): Remote's workloads against a server over Cpu (Cuda) in this process; 2 without a
/// device or the backend.
int run_remote(Options& o) {
  if (o.backend == "remote") {
    remote_workloads<scorch::Cpu>(o, scorch::remote::cpu_sessions());
    return 0;
  }
#ifdef SCORCH_HAVE_CUDA
  if (!scorch::backends::cuda::is_available()) {
    std::fprintf(stderr, "scorch-bench: no CUDA device visible\n");
    return 2;
  }
  o.threads = 0;
  remote_workloads<scorch::Cuda>(o, scorch::remote::cuda_sessions());
  return 0;
#else
  std::fprintf(stderr, "scorch-bench: built without the Cuda backend (SCORCH_BUILD_CUDA=OFF)\n");
  return 2;
#endif
}

}  // namespace scorch::bench

int main(int argc, char** argv) {
  using namespace scorch::bench;
  Options o = parse_options(argc, argv);
  o.threads = scorch::backends::cpu::num_threads();
  if (o.backend == "libtorch") {
#ifdef SCORCH_HAVE_LIBTORCH
    scorch::backends::libtorch::ops::set_num_threads(o.threads);  // the same threads as the Cpu pool
    o.threads = scorch::backends::libtorch::ops::num_threads();
    run_backend<scorch::LibTorch>(o);
#else
    std::fprintf(stderr, "scorch-bench: built without LibTorch (SCORCH_BUILD_LIBTORCH=OFF)\n");
    return 2;
#endif
  } else if (o.backend == "cuda") {
#ifdef SCORCH_HAVE_CUDA
    if (!scorch::backends::cuda::is_available()) {
      std::fprintf(stderr, "scorch-bench: no CUDA device visible\n");
      return 2;
    }
    o.threads = 0;
    o.backend_name = scorch::Cuda::name();
    o.sync = [] { scorch::Cuda::sync(scorch::CudaDevice{0}); };
    scorch::Cuda::seed(0);
    gpu_workloads<scorch::Cuda>(o);
    run_backend<scorch::Cuda>(o);
    auto stats = scorch::backends::cuda::pool_stats(0);
    std::printf(
        "{\"bench\": \"cuda_pool\", \"backend\": \"cuda\", \"peak_in_use_mb\": %.1f, \"peak_reserved_mb\": %.1f, "
        "\"device_mallocs\": %llu, \"cache_hits\": %llu, \"allocations\": %llu}\n",
        stats.peak_in_use / 1048576.0, stats.peak_reserved / 1048576.0,
        static_cast<unsigned long long>(stats.device_mallocs), static_cast<unsigned long long>(stats.cache_hits),
        static_cast<unsigned long long>(stats.allocations));
#else
    std::fprintf(stderr, "scorch-bench: built without the Cuda backend (SCORCH_BUILD_CUDA=OFF)\n");
    return 2;
#endif
  } else if (o.backend == "vulkan") {
    if (int rc = run_vulkan(o)) return rc;
  } else if (o.backend == "remote" || o.backend == "remote-cuda") {
    if (int rc = run_remote(o)) return rc;
  } else if (o.backend == "fusion-cpu") {
    o.backend_name = scorch::FusionCpu::name();
    o.sync = [] { scorch::FusionCpu::sync({}); };
    scorch::Cpu::seed(0);
    elementwise<scorch::FusionCpu>(o);
    fusion_recording(o);
  } else if (o.backend == "cpu") {
    run_backend<scorch::Cpu>(o);
    fp32_peak(o);
    data_workloads(o);
    module_workloads(o);
  } else {
    std::fprintf(stderr, "scorch-bench: unknown backend '%s' (cpu, fusion-cpu, libtorch, cuda, vulkan, remote)\n",
                 o.backend.c_str());
    return 2;
  }
  std::printf("{\"bench\": \"peak_rss\", \"backend\": \"%s\", \"peak_rss_mb\": %.1f}\n", o.backend_name.c_str(),
              peak_rss_mb());
  return 0;
}

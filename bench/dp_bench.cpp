// Data-parallel scaling on Cuda, one process per GPU under scorch-run (paired with bench/anchors/torch_ddp_anchor.py,
// PyTorch DDP under torchrun, same names): the guide CNN's Adam step at batch 1024 per GPU and the 6-layer GPT's
// AdamW step (d512, 8 heads, seq 512, batch 16 per GPU), gradients averaged by GradientReducer on NCCL while backward
// runs. Rank 0 prints one JSON line per workload: the world size, the median step time and samples per second over
// all GPUs (weak scaling: efficiency = samples_per_s(N) / (N · samples_per_s(1))).
//   scorch-run --nproc N scorch-dp-bench [--reps R] [--filter name]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "guide/model_forward.hpp"
#include "guide/training.hpp"
#include "scorch/distributed/data_parallel.h"
#include "scorch/stacks/cuda/autodiff.h"
#include "text-generation/gpt.h"
#include <scorch/core/cli.h>

namespace {

using namespace scorch;
using AD = Autodiff<Cuda>;

struct Args {
  int reps = 20;
  std::string filter;
};

// Times reps steps (after 5 warm-up steps) in one-step windows; returns the median in ms.
template <class Step> double median_ms(const Args& a, int device, Step step) {
  for (int i = 0; i < 5; ++i) step();
  Cuda::sync(CudaDevice{device});
  std::vector<double> times;
  for (int i = 0; i < a.reps; ++i) {
    auto start = std::chrono::steady_clock::now();
    step();
    Cuda::sync(CudaDevice{device});
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void report(distributed::ProcessGroup* g, const std::string& name, double ms, size_t per_gpu) {
  int world = g ? g->size() : 1;
  double slowest = ms;  // the step ends when the slowest rank's does
  if (g) g->all_reduce(&slowest, 1, distributed::ReduceOp::max);
  if (g && g->rank() != 0) return;
  std::printf(
      "{\"bench\": \"%s\", \"backend\": \"scorch-cuda\", \"world\": %d, \"ms\": %.3f, \"samples_per_s\": %.1f}\n",
      name.c_str(), world, slowest, double(per_gpu) * world / slowest * 1e3);
  std::fflush(stdout);
}

// One data-parallel step: reducer around the train step, then the optimizer.
template <class M, class Batch, class Optim>
void dp_step(M& model, const Batch& batch, Optim& optim, double lr, distributed::GradientReducer<M>* reducer) {
  if (reducer) reducer->begin(model);
  auto out = model.train_step(batch);
  auto grads = reducer ? reducer->finish(model, std::move(out.grads)) : std::move(out.grads);
  model = optim.step(lr, model, std::move(grads));
}

void bench_guide(const Args& a, std::shared_ptr<distributed::ProcessGroup> g, int device) {
  const size_t batch = 1024;
  std::string name = "dp_guide_b1024_per_gpu";
  if (!a.filter.empty() && name.find(a.filter) == std::string::npos) return;
  CudaDevice d{device};
  auto model = guide::ModelConfig(10, 512).with_dropout(0.0).init<AD>(d);
  if (g) model = distributed::broadcast_module(*g, model);
  auto reducer = g ? distributed::make_gradient_reducer<guide::Model<AD>>(g, d) : nullptr;
  auto optim = optim::AdamConfig().init();
  guide::MnistBatch<AD> b{Tensor<AD, 3>::random({batch, 28, 28}, Distribution::normal(0, 1), d),
                          Tensor<AD, 1, Int>::random({batch}, Distribution::uniform(0, 10), d)};
  report(g.get(), name, median_ms(a, device, [&] { dp_step(model, b, optim, 1e-4, reducer.get()); }), batch);
}

void gpt(const Args& a, std::shared_ptr<distributed::ProcessGroup> g, int device) {
  const size_t batch = 16, seq = 512, vocab = 8192;
  std::string name = "dp_gpt6_d512_s512_b16_per_gpu";
  if (!a.filter.empty() && name.find(a.filter) == std::string::npos) return;
  CudaDevice d{device};
  auto config = textgen::GptConfig(vocab).with_max_seq(seq).with_d_model(512).with_n_heads(8).with_n_layers(6);
  auto model = config.with_d_ff(2048).with_dropout(0.0).init<AD>(d);
  if (g) model = distributed::broadcast_module(*g, model);
  using Model = decltype(model);
  auto reducer = g ? distributed::make_gradient_reducer<Model>(g, d) : nullptr;
  auto optim = optim::AdamWConfig().init();
  auto ids = [&] { return Tensor<AD, 2>::random({batch, seq}, Distribution::uniform(0, vocab - 1), d).int_(); };
  textgen::TokenBatch<AD> tokens{ids(), ids()};
  report(g.get(), name, median_ms(a, device, [&] { dp_step(model, tokens, optim, 3e-4, reducer.get()); }), batch * seq);
}

}  // namespace

int main(int argc, char** argv) {
  scorch::cli::answer_help(
      argc, argv,
      "usage: scorch-run --nproc N scorch-dp-bench [--reps R] [--filter NAME]\nData-parallel scaling on Cuda: "
      "one JSON line per workload from rank 0 (world size, median step time, samples per second).");
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--reps")) a.reps = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--filter")) a.filter = argv[i + 1];
  }
  if (!backends::cuda::is_available()) return std::fputs("scorch-dp-bench: no CUDA device\n", stderr), 2;
  try {
    auto g = distributed::default_group();  // null for one process: the 1-GPU baseline, no reducer
    int device = g ? g->local_rank() : 0;
    std::string why;
    if (g && !distributed::nccl_available(&why)) std::fprintf(stderr, "scorch-dp-bench: %s\n", why.c_str());
    AD::seed(0);
    bench_guide(a, g, device);
    gpt(a, g, device);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scorch-dp-bench: %s\n", e.what());
    return 1;
  }
}

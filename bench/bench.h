#pragma once
// The benchmark driver's shared pieces: options and run(), which times a workload and prints
// its JSON line.
#include <functional>
#include <string>

#include <scorch/scorch.hpp>
#include <scorch/stacks/fusion_cpu/autodiff.h>
#ifdef SCORCH_HAVE_LIBTORCH
#include <scorch/stacks/libtorch/autodiff.h>
#endif
#ifdef SCORCH_HAVE_CUDA
#include <scorch/stacks/cuda/autodiff.h>
#endif

namespace scorch::remote {
class SessionBase;
}  // namespace scorch::remote

namespace scorch::bench {

/// Command-line options (a name filter, the number of timed repetitions, the backend) and what
/// the backend reports in each JSON line.
struct Options {
  std::string filter;
  int reps = 15;
  std::string backend = "cpu";  ///< --backend: cpu, libtorch or cuda
  std::string backend_name;     ///< B::name() of the backend under test
  size_t threads = 1;           ///< its intra-op threads
  std::function<void()> sync;   ///< waits for the backend's queued work
};

/// True when name passes the filter: it is empty, or name contains one of its comma-separated parts.
bool selected(const Options& o, const std::string& name);

/// Runs one workload if its name passes the filter: fn is timed (median of o.reps after warm
/// runs) and extra(ms) gives the figure printed under key.
void run(const Options& o, const std::string& name, int warm, const std::function<void()>& fn, const std::string& key,
         const std::function<double(double)>& extra);

/// As run(), but fn performs the workload `inner` times between syncs; the time reported (and given
/// to extra) is per workload.
void run_repeated(const Options& o, const std::string& name, int warm, int inner, const std::function<void()>& fn,
                  const std::string& key, const std::function<double(double)>& extra);

/// Matmul, convolution and elementwise workloads on backend B (main.cpp).
template <class B> void tensor_workloads(const Options& o);
/// Per-op overhead of B and Autodiff<B>, and a transformer layer forward + backward (autodiff_bench.cpp).
template <class B> void autodiff_workloads(const Options& o);
/// Dyn's host cost per op beside the static Cpu stack's, plain and under Autodiff (dyn_bench.cpp).
void dyn_workloads(const Options& o);
/// DataLoader throughput on Fashion-MNIST (data_bench.cpp).
void data_workloads(const Options& o);
/// Save/load speed of a 100M-parameter model per recorder (module_bench.cpp).
void module_workloads(const Options& o);
/// The guide CNN train/infer steps and an nn::TransformerEncoder layer on Autodiff<B> (nn_bench.cpp).
template <class B> void nn_workloads(const Options& o);

/// Linear in f32, int8 (dynamic and static inputs) and q4 weights (quant_bench.cpp).
template <class B> void quant_workloads(const Options& o);

/// ONNX models run through onnx::load<B> (onnx_bench.cpp; Cpu and Cuda).
template <class B> void onnx_workloads(const Options& o);

/// The GPU anchor's workloads (bench/anchors/torch_gpu_anchor.py) on B (gpu_bench.cpp).
template <class B> void gpu_workloads(const Options& o);
/// The GPU workloads the Vulkan backend runs (gpu_bench.cpp).
template <class B> void vulkan_workloads(const Options& o);

/// Remote's round trip, op stream and guide inference against a server in this process over Local, and the same
/// inference on Local (remote_bench.cpp).
template <class Local>
void remote_workloads(const Options& o, std::function<std::unique_ptr<remote::SessionBase>(uint64_t)> sessions);

/// Instantiates a backend workload template for every backend the bench is built with.
#ifdef SCORCH_HAVE_LIBTORCH
#define SCORCH_BENCH_LIBTORCH(fn) template void fn<LibTorch>(const Options&);
#else
#define SCORCH_BENCH_LIBTORCH(fn)
#endif
#ifdef SCORCH_HAVE_CUDA
#define SCORCH_BENCH_CUDA(fn) template void fn<Cuda>(const Options&);
#else
#define SCORCH_BENCH_CUDA(fn)
#endif
#define SCORCH_BENCH_INSTANTIATE(fn) \
  SCORCH_BENCH_LIBTORCH(fn)          \
  SCORCH_BENCH_CUDA(fn)              \
  template void fn<Cpu>(const Options&)

}  // namespace scorch::bench

#pragma once
// The benchmark driver's shared pieces: options and run(), which times a workload and prints
// its JSON line.
#include <functional>
#include <string>

#include <scorch/scorch.hpp>

namespace scorch::bench {

/// Command-line options: a name filter and the number of timed repetitions.
struct Options {
  std::string filter;
  int reps = 15;
};

/// Runs one workload if its name passes the filter: fn is timed (median of o.reps after warm
/// runs) and extra(ms) gives the figure printed under key.
void run(const Options& o, const std::string& name, int warm, const std::function<void()>& fn, const std::string& key,
         const std::function<double(double)>& extra);

/// Per-op overhead of Autodiff<Cpu> and a transformer layer forward + backward (autodiff_bench.cpp).
void autodiff_workloads(const Options& o);
/// DataLoader throughput on Fashion-MNIST (data_bench.cpp).
void data_workloads(const Options& o);
/// Save/load speed of a 100M-parameter model per recorder (module_bench.cpp).
void module_workloads(const Options& o);
/// The guide CNN train/infer steps and an nn::TransformerEncoder layer (nn_bench.cpp).
void nn_workloads(const Options& o);

}  // namespace scorch::bench

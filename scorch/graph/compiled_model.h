#pragma once
// A model compiled for the Cpu: its graph seen whole before it runs, shapes fixed by example inputs, operators fused
// into oneDNN primitives (convolution + activation + residual add, products with bias and activation, pooling) in
// the layouts oneDNN chooses for the machine, weights reordered once, every value placed in one arena by a liveness
// plan. Nodes the plan does not lower run through the ONNX interpreter's own kernels. scorch/graph/README.md, book
// ch. 10.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "scorch/core/tensor_data.h"
#include "scorch/import/onnx/onnx_model.h"

namespace scorch::graph {

/// How compile() builds the plan.
struct CompileOptions {
  /// oneDNN's threads (0: the CPUs this process may run on, as the Cpu backend's pool).
  size_t threads = 0;
  /// Fuse activations and residual adds into the primitive before them (off: one primitive per node).
  bool fuse = true;
  /// Lower supported nodes to oneDNN (off: every node runs through the interpreter, in the arena's plan).
  bool lower = true;
};

/// One step of the plan, as profile() and summary() report it.
struct StepInfo {
  std::string kind;   ///< "conv", "matmul", "pool", "eltwise", "binary", "reorder", "interpreter"
  std::string nodes;  ///< the ONNX nodes it runs, joined by '+'
  std::string ops;    ///< their op types, joined by '+' ("Conv+Add+Relu")
  double ms = 0;      ///< time spent in it over the runs since the last reset_profile()
};

/// A compiled model: run() many times on inputs of the shapes it was compiled for, one run at a time (a run writes
/// the model's arena: give each thread its own CompiledModel).
class CompiledModel {
 public:
  CompiledModel(CompiledModel&&) noexcept;
  CompiledModel& operator=(CompiledModel&&) noexcept;
  ~CompiledModel();

  /// Runs on inputs in input_names() order (dtypes and shapes as compiled; an Error naming the input otherwise);
  /// returns the outputs in the graph's order.
  std::vector<TensorData> run(const std::vector<TensorData>& inputs);
  /// As run(), into outputs: an element that already has its output's shape and dtype is overwritten in place, so a
  /// model whose nodes are all lowered allocates nothing on the heap per run after the first.
  void run_into(const std::vector<TensorData>& inputs, std::vector<TensorData>& outputs);

  const std::vector<std::string>& input_names() const;
  const std::vector<std::string>& output_names() const;
  /// The steps in run order, with the time each took since the last reset_profile() (when profiling is on).
  std::vector<StepInfo> profile() const;
  /// Times every step from now on (off by default: a run then reads no clock).
  void set_profiling(bool on);
  void reset_profile();
  /// Bytes of the arena every intermediate value lives in.
  size_t arena_bytes() const;
  /// What compiling did: steps by kind, nodes fused, nodes left to the interpreter, the arena's size.
  std::string summary() const;

  struct Impl;

 private:
  friend CompiledModel compile(onnx::Model, const std::vector<TensorData>&, const CompileOptions&);
  explicit CompiledModel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Compiles model for inputs of example_inputs' shapes and dtypes (in the order of the graph inputs that have no
/// initializer): the interpreter's load-time folding first, then one run of the example to learn every value's
/// shape, then fusion, layout choice, weight reordering and the arena plan. Throws Error starting with
/// "graph::compile" for a wrong number of inputs or a model whose values are not all tensors (sequences,
/// optionals, subgraphs: run those through onnx::load).
CompiledModel compile(onnx::Model model, const std::vector<TensorData>& example_inputs,
                      const CompileOptions& options = {});

}  // namespace scorch::graph

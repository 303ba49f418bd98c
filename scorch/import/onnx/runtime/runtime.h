#pragma once
// Run-time loading of ONNX models: onnx::load<B>(path) reads a model and runs its graph directly on backend B, for
// models chosen at run time. Instantiated for Cpu (scorch_onnx_runtime) and Cuda (scorch_onnx_runtime_cuda).
// docs/onnx-import.md lists the operators and what each supports.
#include <map>
#include <string>
#include <vector>

#include "scorch/import/onnx/onnx_model.h"
#include "scorch/import/onnx/runtime/value.h"

namespace scorch::onnx {

/// A loaded model: its graph, its initializers uploaded to the device, ready to run many times.
template <class B> class Runtime {
 public:
  using Device = typename B::Device;
  /// Checks that every node's operator is supported (an Error naming the node, its op type and opset otherwise),
  /// uploads the initializers and folds what does not depend on the inputs: nodes on constants run once here, and
  /// Conv + BatchNormalization pairs become one Conv (SCORCH_ONNX_NO_FOLDING=1 turns folding off).
  explicit Runtime(Model model, Device device = {});

  const Model& model() const { return model_; }
  /// The graph that runs: the model's nodes minus those folded at load.
  const Graph& plan() const { return plan_; }
  /// The graph inputs a caller must feed (those without an initializer), in the graph's order.
  const std::vector<std::string>& input_names() const { return input_names_; }
  std::vector<std::string> output_names() const;

  /// Runs on inputs given in input_names() order; returns the outputs in the graph's order.
  std::vector<TensorData> run(const std::vector<TensorData>& inputs) const;
  /// Runs on inputs by name (an initializer-backed input may be overridden); returns outputs by name.
  std::map<std::string, TensorData> run(const std::map<std::string, TensorData>& inputs) const;
  /// Runs on values already on the device; returns the outputs in the graph's order.
  std::vector<Value<B>> run_values(std::map<std::string, Value<B>> inputs) const;

 private:
  Model model_;
  Graph plan_;  // the nodes left to run after load-time folding (optimize.h)
  Device device_;
  std::map<std::string, Value<B>> weights_;
  std::vector<std::string> input_names_;
};

/// Reads the .onnx file at path (read_model) and prepares it to run on device.
template <class B> Runtime<B> load(const std::string& path, typename B::Device device = {}) {
  return Runtime<B>(read_model(path), std::move(device));
}

}  // namespace scorch::onnx

// An ONNX model exported from PyTorch, run by Scorch's interpreter: circle.onnx (make_model.py) is an MLP that tells
// points inside the unit circle from those outside. onnx::load<B> reads the file and runs its graph on any backend;
// here Cpu. Given another .onnx file, the example runs it once on zeros (symbolic dims as 1) and prints its outputs'
// shapes. SCORCH_ONNX_PROFILE=1 prints the time spent per operator type.
// Usage: onnx-inference [model.onnx]
#include <iostream>

#include <scorch/import/onnx/runtime/runtime.h>
#include <scorch/scorch.hpp>

#include "pytorch-import/circle_grid.h"

using namespace scorch;

/// Runs any model on zeros of its declared input shapes and prints what comes out.
void run_any(const std::string& path) {
  auto model = onnx::load<Cpu>(path);
  std::cout << path << ": opset " << model.model().opset << ", " << model.model().graph.nodes.size() << " nodes\n";
  std::vector<TensorData> inputs;
  for (const auto& info : model.model().graph.inputs) {
    if (model.model().graph.initializers.count(info.name)) continue;
    Shape shape;
    for (const auto& d : info.shape.value_or(std::vector<std::optional<int64_t>>{}))
      shape.push_back(size_t(d.value_or(1)));
    inputs.push_back(TensorData::zeros(shape, info.dtype.value_or(DType::F32)));
    std::cout << "  input  " << info.name << " " << shape.to_string() << "\n";
  }
  auto outputs = model.run(inputs);
  auto names = model.output_names();
  for (size_t i = 0; i < outputs.size(); ++i)
    std::cout << "  output " << names[i] << " " << outputs[i].shape().to_string() << " "
              << dtype_name(outputs[i].dtype()) << "\n";
}

int main(int argc, char** argv) {
  try {
    if (argc > 1) {
      run_any(argv[1]);
      return 0;
    }
    auto model = onnx::load<Cpu>(std::string(SCORCH_EXAMPLE_DIR) + "/circle.onnx");
    TensorData probe({0.0f, 0.0f, 1.2f, 1.2f, 0.5f, -0.5f, -1.4f, 0.1f}, Shape{4, 2});
    TensorData logits = model.run(std::vector<TensorData>{probe}).at(0);
    std::cout << "logits (PyTorch printed the same when it exported the model):\n"
              << Tensor<Cpu, 2>::from_data(logits) << "\n";
    // Accuracy on a grid over [-1.5, 1.5]²: the label is whether the point lies inside the unit circle.
    circle::Grid g = circle::grid(61);
    auto grid =
        model.run(std::map<std::string, TensorData>{{"points", TensorData(g.points, Shape{g.inside.size(), 2})}});
    auto predicted = Tensor<Cpu, 2>::from_data(grid.at("logits")).argmax(1).to_data().to_vector<int64_t>();
    std::cout << "grid accuracy: " << circle::accuracy(predicted, g.inside) << "% of " << g.inside.size()
              << " points\n";
  } catch (const Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}

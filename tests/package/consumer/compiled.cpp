// An installed Scorch's compiled inference (Scorch::graph): a product with bias and ReLU built as an ONNX graph,
// compiled and run, equal to the values computed here. Prints "compiled ok" and exits 0 when they are right.
#include <cmath>
#include <cstdio>

#include <scorch/core/cli.h>
#include <scorch/graph/compiled_model.h>

using namespace scorch;

int main(int argc, char** argv) {
  cli::answer_help(argc, argv,
                   "usage: compiled\nAn installed Scorch's compiled inference: a product with bias and ReLU "
                   "compiled and run; prints \"compiled ok\". No options.");
  onnx::Model m;
  m.opset = 17;
  m.graph.inputs.push_back({"x", true, DType::F32, std::vector<std::optional<int64_t>>{2, 3}});
  m.graph.initializers.emplace("w", TensorData(std::vector<float>{1, -1, 0.5f, 2, 1, -2}, Shape{3, 2}));
  m.graph.initializers.emplace("b", TensorData(std::vector<float>{0.25f, -0.5f}, Shape{2}));
  onnx::Node product, bias, relu;
  product.name = "product", product.op_type = "MatMul", product.inputs = {"x", "w"}, product.outputs = {"p"};
  bias.name = "bias", bias.op_type = "Add", bias.inputs = {"p", "b"}, bias.outputs = {"q"};
  relu.name = "relu", relu.op_type = "Relu", relu.inputs = {"q"}, relu.outputs = {"y"};
  m.graph.nodes = {product, bias, relu};
  m.graph.outputs.push_back({"y", true, DType::F32, std::nullopt});
  TensorData x(std::vector<float>{1, 2, 3, -1, 0, 1}, Shape{2, 3});
  auto compiled = graph::compile(m, {x});
  auto y = compiled.run({x}).at(0).to_vector<float>();
  // x·w + b, then ReLU: row 1 (1 + 1 + 3 + 0.25, -1 + 4 - 6 - 0.5 < 0), row 2 (-1 + 1 + 0.25, 1 - 2 - 0.5 < 0).
  const float expected[] = {5.25f, 0.0f, 0.25f, 0.0f};
  for (size_t i = 0; i < 4; ++i)
    if (std::fabs(y.at(i) - expected[i]) > 1e-5f) {
      std::fprintf(stderr, "compiled: y[%zu] = %g, expected %g\n", i, y[i], expected[i]);
      return 1;
    }
  std::printf("compiled ok\n");
}

// Compiled inference: a small residual CNN written as an ONNX graph, compiled for one input shape
// (graph::compile), run, and compared with the interpreter (onnx::load) on the same input.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <scorch/graph/compiled_model.h>
#include <scorch/import/onnx/runtime/runtime.h>
#include <scorch/scorch.hpp>
#include <scorch/core/cli.h>

using namespace scorch;

// Deterministic weights of shape: sin of the element index, scaled.
TensorData weights(Shape shape, float scale) {
  std::vector<float> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = scale * std::sin(float(i) * 0.7f + scale);
  return TensorData(v, shape);
}

onnx::Node node(std::string op, std::vector<std::string> in, std::string out) {
  onnx::Node n;
  n.name = out, n.op_type = std::move(op), n.inputs = std::move(in), n.outputs = {std::move(out)};
  return n;
}

// x [1, 3, 16, 16], Conv 3x3 + Relu, Conv 3x3 + residual Add + Relu, global average, Gemm: logits [1, 4].
onnx::Model residual_cnn() {
  onnx::Model m;
  m.opset = 17;
  m.graph.inputs.push_back({"x", true, DType::F32, std::vector<std::optional<int64_t>>{1, 3, 16, 16}});
  m.graph.initializers = {{"w1", weights({8, 3, 3, 3}, 0.3f)},
                          {"b1", weights({8}, 0.1f)},
                          {"w2", weights({8, 8, 3, 3}, 0.2f)},
                          {"fc", weights({4, 8}, 0.5f)},
                          {"fc_b", weights({4}, 0.05f)}};
  onnx::Attribute pads{onnx::Attribute::Kind::Ints};
  pads.ints = {1, 1, 1, 1};
  auto conv1 = node("Conv", {"x", "w1", "b1"}, "c1"), conv2 = node("Conv", {"r1", "w2"}, "c2");
  conv1.attributes["pads"] = conv2.attributes["pads"] = pads;
  auto gemm = node("Gemm", {"flat", "fc", "fc_b"}, "logits");
  gemm.attributes["transB"] = onnx::Attribute{onnx::Attribute::Kind::Int, 1};
  m.graph.nodes = {conv1,
                   node("Relu", {"c1"}, "r1"),
                   conv2,
                   node("Add", {"c2", "r1"}, "sum"),
                   node("Relu", {"sum"}, "r2"),
                   node("GlobalAveragePool", {"r2"}, "pooled"),
                   node("Flatten", {"pooled"}, "flat"),
                   gemm};
  m.graph.outputs.push_back({"logits", true, DType::F32, std::nullopt});
  return m;
}

int main(int argc, char** argv) {
  cli::answer_help(argc, argv,
                   "usage: compiled\nCompiles a small residual CNN written as an ONNX graph and compares "
                   "it with the interpreter. No options.");
  TensorData x = weights({1, 3, 16, 16}, 1.0f);
  graph::CompiledModel compiled = graph::compile(residual_cnn(), {x});
  TensorData logits = compiled.run({x}).at(0);
  for (const auto& step : compiled.profile())  // what fused: each oneDNN convolution and product with its epilogue
    if (step.kind == "conv" || step.kind == "matmul") std::printf("%-6s %s\n", step.kind.c_str(), step.ops.c_str());
  onnx::Runtime<Cpu> interpreter(residual_cnn());
  TensorData expected = interpreter.run(std::vector<TensorData>{x}).at(0);
  auto a = logits.to_vector<float>(), b = expected.to_vector<float>();
  float diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff = std::max(diff, std::abs(a[i] - b[i]));
  std::printf("logits %s, within 1e-5 of the interpreter's: %s\n", logits.shape().to_string().c_str(),
              diff <= 1e-5f * std::max(1.0f, std::abs(b[0])) ? "yes" : "no");
  return 0;
}

// ONNX inference through onnx::load<B> on the architectures of bench/onnx (gen_models.py's inference-sized
// variants: ResNet-18 and MobileNetV2 on one 224×224 image, a 4-layer BERT-like encoder on 8×128 tokens, a
// bidirectional LSTM tagger on 16×64 tokens), paired with bench/anchors/ort_anchor.js (ONNX Runtime) and
// bench/anchors/torch_onnx_models.py (PyTorch eager) under the same names.
#include <filesystem>

#include "bench.h"
#include "module/onnx_fixture_weights.h"
#include "scorch/import/onnx/runtime/runtime.h"

namespace scorch::bench {
namespace {
namespace fs = std::filesystem;

/// A deterministic input of the model's declared shape: an image in [-1, 1) or token ids in [1, vocab).
TensorData bench_input(const onnx::ValueInfo& info) {
  Shape shape;
  for (const auto& d : *info.shape) shape.push_back(size_t(d.value_or(1)));
  size_t n = shape.num_elements();
  if (info.dtype == DType::I64) {
    std::vector<int64_t> ids(n);
    for (size_t i = 0; i < n; ++i) ids[i] = 1 + int64_t(onnx::fixtures::uniform01(995, i) * 40);
    return TensorData(ids, shape);
  }
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = 2 * onnx::fixtures::uniform01(998, i) - 1;
  return TensorData(x, shape);
}

template <class B> void onnx_model(const Options& o, const std::string& name, const std::string& bench_name) {
  if (!selected(o, bench_name)) return;
  // SCORCH_BENCH_ONNX_KEEP=dir keeps the materialized models (model.onnx + weights.bin) there for the peers.
  const char* keep = std::getenv("SCORCH_BENCH_ONNX_KEEP");
  fs::path tmp = keep ? fs::path(keep) / name
                      : fs::temp_directory_path() / ("scorch_bench_onnx_" + name + "_" + std::to_string(::getpid()));
  fs::path model = onnx::fixtures::materialize(fs::path(SCORCH_BENCH_ONNX_DIR) / name, tmp);
  auto rt = onnx::load<B>(model.string());
  const auto& info = rt.model().graph.inputs.at(0);
  auto input = onnx::Value<B>::from_data(bench_input(info), typename B::Device{});
  run(
      o, bench_name, 2,
      [&] {
        auto out = rt.run_values({{info.name, input}});
        (void)out;
      },
      "per_s", [](double ms) { return 1e3 / ms; });
  if (!keep) fs::remove_all(tmp);
}

/// x [1, 64] through 16 × (Add an initializer, Relu): 32 nodes of 64 elements, so a run is almost all the
/// interpreter's fixed cost (name lookups, value handling, dispatch); bench/anchors/ort_anchor.py builds the same
/// graph.
onnx::Model fixed_cost_chain(size_t pairs) {
  onnx::Model m;
  m.opset = 13;
  m.graph.inputs.push_back({"x", true, DType::F32, std::vector<std::optional<int64_t>>{1, 64}});
  std::string last = "x";
  for (size_t i = 0; i < pairs; ++i) {
    std::string w = "w" + std::to_string(i), sum = "s" + std::to_string(i), out = "r" + std::to_string(i);
    std::vector<float> values(64);
    for (size_t k = 0; k < 64; ++k) values[k] = onnx::fixtures::uniform01(990 + i, k) - 0.5f;
    m.graph.initializers.emplace(w, TensorData(values, Shape{1, 64}));
    onnx::Node add, relu;
    add.name = "add" + std::to_string(i), add.op_type = "Add", add.inputs = {last, w}, add.outputs = {sum};
    relu.name = "relu" + std::to_string(i), relu.op_type = "Relu", relu.inputs = {sum}, relu.outputs = {out};
    m.graph.nodes.push_back(add), m.graph.nodes.push_back(relu);
    last = out;
  }
  m.graph.nodes.back().outputs = {"y"};
  m.graph.outputs.push_back({"y", true, DType::F32, std::nullopt});
  return m;
}

template <class B> void onnx_fixed_cost(const Options& o) {
  const char* name = "onnx_fixed_cost_chain32_1x64";
  if (!selected(o, name)) return;
  onnx::Runtime<B> rt(fixed_cost_chain(16));
  std::vector<float> x(64);
  for (size_t k = 0; k < 64; ++k) x[k] = onnx::fixtures::uniform01(989, k) - 0.5f;
  auto input = onnx::Value<B>::from_data(TensorData(x, Shape{1, 64}), typename B::Device{});
  run_repeated(
      o, name, 1, 100,
      [&] {
        (void)rt.run_values({{"x", input}});
      },
      "per_s", [](double ms) { return 1e3 / ms; });
}

}  // namespace

template <class B> void onnx_workloads(const Options& o) {
  onnx_fixed_cost<B>(o);
  onnx_model<B>(o, "resnet18", "onnx_resnet18_b1_224");
  onnx_model<B>(o, "mobilenet_v2", "onnx_mobilenet_v2_b1_224");
  onnx_model<B>(o, "encoder", "onnx_encoder_b8_s128");
  onnx_model<B>(o, "lstm_tagger", "onnx_lstm_tagger_b16_s64");
}
template void onnx_workloads<Cpu>(const Options&);
#ifdef SCORCH_HAVE_CUDA
template void onnx_workloads<Cuda>(const Options&);
#endif

}  // namespace scorch::bench

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

}  // namespace

template <class B> void onnx_workloads(const Options& o) {
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

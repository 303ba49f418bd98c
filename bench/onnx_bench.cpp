// ONNX inference through onnx::load<B> on the architectures of bench/onnx (gen_models.py's inference-sized
// variants: ResNet-18 and MobileNetV2 on one 224×224 image, a 4-layer BERT-like encoder on 8×128 tokens, a
// bidirectional LSTM tagger on 16×64 tokens), paired with bench/anchors/ort_anchor.js (ONNX Runtime) and
// bench/anchors/torch_onnx_models.py (PyTorch eager) under the same names.
#include <filesystem>

#include "bench.h"
#include "module/onnx_fixture_weights.h"
#include "scorch/import/onnx/runtime/runtime.h"
#ifdef SCORCH_HAVE_GRAPH
#include "scorch/graph/compiled_model.h"
#endif

namespace scorch::bench {
namespace {
namespace fs = std::filesystem;

#ifdef SCORCH_HAVE_GRAPH
constexpr bool graph_built = true;
#else
constexpr bool graph_built = false;
#endif

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

/// The model through the interpreter (onnx::load<B>) under bench_name, and on the Cpu also compiled (scorch/graph),
/// which takes bench_name while the interpreter's row becomes onnx_interpreter_*.
template <class B>
void onnx_model(const Options& o, const std::string& name, const std::string& bench_name, size_t batch = 0) {
  bool compiled = std::is_same_v<B, Cpu> && graph_built;
  std::string interpreter_name = compiled ? "onnx_interpreter_" + bench_name.substr(5) : bench_name;
  if (!selected(o, bench_name) && !selected(o, interpreter_name)) return;
  // SCORCH_BENCH_ONNX_KEEP=dir keeps the materialized models (model.onnx + weights.bin) there for the peers.
  const char* keep = std::getenv("SCORCH_BENCH_ONNX_KEEP");
  fs::path tmp = keep ? fs::path(keep) / name
                      : fs::temp_directory_path() / ("scorch_bench_onnx_" + name + "_" + std::to_string(::getpid()));
  fs::path model = onnx::fixtures::materialize(fs::path(SCORCH_BENCH_ONNX_DIR) / name, tmp);
  onnx::Model read = onnx::read_model(model.string());
  if (batch) {  // the same model on batch images: its input's and output's first dim changed
    (*read.graph.inputs.at(0).shape)[0] = int64_t(batch);
    if (read.graph.outputs.at(0).shape) (*read.graph.outputs.at(0).shape)[0] = int64_t(batch);
  }
  onnx::Runtime<B> rt(read);
  const auto& info = rt.model().graph.inputs.at(0);
  TensorData data = bench_input(info);
  auto input = onnx::Value<B>::from_data(data, typename B::Device{});
  if (selected(o, interpreter_name))
    run(
        o, interpreter_name, 2,
        [&] {
          auto out = rt.run_values({{info.name, input}});
          (void)out;
        },
        "per_s", [](double ms) { return 1e3 / ms; });
#ifdef SCORCH_HAVE_GRAPH
  if (compiled && selected(o, bench_name)) {
    graph::CompiledModel plan = graph::compile(read, {data});
    std::vector<TensorData> inputs{data};
    run(
        o, bench_name, 2, [&] { (void)plan.run(inputs); }, "per_s", [](double ms) { return 1e3 / ms; });
  }
#endif
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

/// NonMaxSuppression over one class of kNmsBoxes boxes (sides 0.005-0.035 in a unit square, IoU threshold 0.55: 14,862
/// kept), the size of an SSDLite run's candidates; bench/anchors/ort_anchor.py draws the same boxes.
constexpr size_t kNmsBoxes = 16592;

onnx::Model nms_model() {
  onnx::Model m;
  m.opset = 13;
  auto dims = [](std::vector<int64_t> d) { return std::vector<std::optional<int64_t>>(d.begin(), d.end()); };
  m.graph.inputs.push_back({"boxes", true, DType::F32, dims({1, int64_t(kNmsBoxes), 4})});
  m.graph.inputs.push_back({"scores", true, DType::F32, dims({1, 1, int64_t(kNmsBoxes)})});
  m.graph.initializers.emplace("max_out", TensorData(std::vector<int64_t>{int64_t(kNmsBoxes)}, Shape{1}));
  m.graph.initializers.emplace("iou", TensorData(std::vector<float>{0.55f}, Shape{1}));
  onnx::Node nms;
  nms.name = "nms", nms.op_type = "NonMaxSuppression", nms.inputs = {"boxes", "scores", "max_out", "iou"};
  nms.outputs = {"selected"};
  m.graph.nodes.push_back(nms);
  m.graph.outputs.push_back({"selected", true, DType::I64, std::nullopt});
  return m;
}

/// Box i: center (u(980, i), u(981, i)), height and width 0.005 + 0.03·u(982|983, i), score u(984, i).
std::pair<TensorData, TensorData> nms_inputs() {
  std::vector<float> boxes, scores;
  for (size_t i = 0; i < kNmsBoxes; ++i) {
    using onnx::fixtures::uniform01;
    float cy = uniform01(980, i), cx = uniform01(981, i);
    float h = 0.005f + 0.03f * uniform01(982, i), w = 0.005f + 0.03f * uniform01(983, i);
    boxes.insert(boxes.end(), {cy - h / 2, cx - w / 2, cy + h / 2, cx + w / 2});
    scores.push_back(uniform01(984, i));
  }
  return {TensorData(boxes, Shape{1, kNmsBoxes, 4}), TensorData(scores, Shape{1, 1, kNmsBoxes})};
}

template <class B> void onnx_nms(const Options& o) {
  const char* name = "onnx_nms_16592_boxes";
  if (!selected(o, name)) return;
  onnx::Runtime<B> rt(nms_model());
  auto [boxes, scores] = nms_inputs();
  typename B::Device device{};
  auto feeds = std::map<std::string, onnx::Value<B>>{{"boxes", onnx::Value<B>::from_data(boxes, device)},
                                                     {"scores", onnx::Value<B>::from_data(scores, device)}};
  run(
      o, name, 1, [&] { (void)rt.run_values(feeds); }, "per_s", [](double ms) { return 1e3 / ms; });
}

}  // namespace

template <class B> void onnx_workloads(const Options& o) {
  onnx_nms<B>(o);
  onnx_fixed_cost<B>(o);
  onnx_model<B>(o, "resnet18", "onnx_resnet18_b1_224");
  onnx_model<B>(o, "mobilenet_v2", "onnx_mobilenet_v2_b1_224");
  onnx_model<B>(o, "resnet18", "onnx_resnet18_b8_224", 8);
  onnx_model<B>(o, "mobilenet_v2", "onnx_mobilenet_v2_b8_224", 8);
  onnx_model<B>(o, "encoder", "onnx_encoder_b8_s128");
  onnx_model<B>(o, "lstm_tagger", "onnx_lstm_tagger_b16_s64");
}
template void onnx_workloads<Cpu>(const Options&);
#ifdef SCORCH_HAVE_CUDA
template void onnx_workloads<Cuda>(const Options&);
#endif

}  // namespace scorch::bench

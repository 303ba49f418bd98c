// scorch-onnx's compiled-path commands (tool.h): bench, profile and run of a model compiled by graph::compile.
#include "scorch/graph/tool.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/core/error.h"
#include "scorch/core/median_time.h"
#include "scorch/graph/compiled_model.h"
#include "scorch/import/onnx/runtime/runtime.h"

namespace scorch::graph {
namespace {

struct ToolOptions {
  std::string model;
  std::vector<std::string> input_files;  // --input FILE (TensorProto), one per graph input
  std::vector<size_t> shape;             // --shape 1,3,224,224: the first input's shape, for symbolic dims
  size_t threads = 0;
  int reps = 20;
};

// A non-negative count given after option; an Error naming the option otherwise.
size_t parse_count(const std::string& option, const std::string& text) {
  size_t used = 0;
  unsigned long value = 0;
  try {
    value = std::stoul(text, &used);
  } catch (const std::exception&) { used = 0; }
  if (text.empty() || used != text.size() || text[0] == '-')
    throw Error("scorch-onnx", option + " wants a non-negative number, not '" + text + "' (see --help)");
  return value;
}

std::vector<size_t> parse_dims(const std::string& text) {
  std::vector<size_t> dims;
  for (size_t at = 0; at <= text.size();) {
    size_t comma = std::min(text.find(',', at), text.size());
    dims.push_back(parse_count("--shape (comma-separated sizes such as 1,3,224,224)", text.substr(at, comma - at)));
    at = comma + 1;
  }
  return dims;
}

// A deterministic input for info: the file given, else values in [-1, 1) (token ids 1..40 for integer inputs) of
// its declared shape, symbolic dims from --shape or 1.
TensorData input_for(const onnx::ValueInfo& info, size_t i, const ToolOptions& o) {
  if (i < o.input_files.size()) return onnx::read_tensor(o.input_files[i]);
  if (!info.shape) throw Error("scorch-onnx", "input '" + info.name + "' declares no shape: give --input FILE");
  Shape shape;
  for (size_t d = 0; d < info.shape->size(); ++d) {
    size_t fallback = i == 0 && d < o.shape.size() ? o.shape[d] : 1;
    shape.push_back(i == 0 && !o.shape.empty() ? fallback : size_t((*info.shape)[d].value_or(int64_t(fallback))));
  }
  size_t n = shape.num_elements();
  if (info.dtype && *info.dtype == DType::I64) {
    std::vector<int64_t> ids(n);
    for (size_t k = 0; k < n; ++k) ids[k] = 1 + int64_t(k * 7 % 40);
    return TensorData(ids, shape);
  }
  std::vector<float> x(n);
  for (size_t k = 0; k < n; ++k) x[k] = float(std::sin(double(k)));
  return TensorData(x, shape).convert(info.dtype.value_or(DType::F32));
}

std::vector<TensorData> inputs_for(const onnx::Model& model, const ToolOptions& o) {
  std::vector<TensorData> inputs;
  for (const auto& info : model.graph.inputs)
    if (!model.graph.initializers.count(info.name)) inputs.push_back(input_for(info, inputs.size(), o));
  return inputs;
}

int bench(const ToolOptions& o) {
  onnx::Model model = onnx::read_model(o.model);
  auto inputs = inputs_for(model, o);
  auto rt = onnx::Runtime<Cpu>(model);
  double interpreted = median_ms([&] { (void)rt.run(inputs); }, o.reps);
  auto t0 = std::chrono::steady_clock::now();
  CompiledModel compiled = compile(std::move(model), inputs, {o.threads, true, true});
  double compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  double ms = median_ms([&] { (void)compiled.run(inputs); }, o.reps);
  std::printf(
      "{\"model\": \"%s\", \"interpreter_ms\": %.4f, \"compiled_ms\": %.4f, \"compile_ms\": %.1f, "
      "\"arena_bytes\": %zu}\n",
      o.model.c_str(), interpreted, ms, compile_ms, compiled.arena_bytes());
  std::printf("%s\n", compiled.summary().c_str());
  return 0;
}

int profile(const ToolOptions& o) {
  onnx::Model model = onnx::read_model(o.model);
  auto inputs = inputs_for(model, o);
  CompiledModel compiled = compile(std::move(model), inputs, {o.threads, true, true});
  compiled.run(inputs);
  compiled.set_profiling(true);
  for (int i = 0; i < o.reps; ++i) compiled.run(inputs);
  std::map<std::string, double> by_kind;
  double total = 0;
  for (const auto& s : compiled.profile()) {
    std::printf("%-12s %9.4f ms  %-28s %s\n", s.kind.c_str(), s.ms / o.reps, s.ops.c_str(), s.nodes.c_str());
    by_kind[s.kind] += s.ms / o.reps, total += s.ms / o.reps;
  }
  for (const auto& [kind, ms] : by_kind) std::printf("total %-12s %9.4f ms\n", kind.c_str(), ms);
  std::printf("total %9.4f ms a run; %s\n", total, compiled.summary().c_str());
  return 0;
}

int run(const ToolOptions& o) {
  onnx::Model model = onnx::read_model(o.model);
  auto inputs = inputs_for(model, o);
  CompiledModel compiled = compile(std::move(model), inputs, {o.threads, true, true});
  auto outputs = compiled.run(inputs);
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto v = outputs[i].convert(DType::F64).to_vector<double>();
    std::printf("%s %s:", compiled.output_names()[i].c_str(), outputs[i].shape().to_string().c_str());
    for (size_t k = 0; k < std::min<size_t>(v.size(), 10); ++k) std::printf(" %.6g", v[k]);
    std::printf("%s\n", v.size() > 10 ? " ..." : "");
  }
  return 0;
}

}  // namespace

const char* kToolUsage =
    "scorch-onnx bench|profile|run MODEL.onnx [--input FILE.pb]... [--shape D,D,...] [--threads N] [--reps N]\n"
    "  bench: median ms of the interpreter (onnx::load) and of the compiled plan (graph::compile), one JSON line,\n"
    "         then what compiling did; profile: each step's ms (kind, op types, nodes) and totals by kind;\n"
    "  run: the compiled plan's outputs (first values). Inputs: the TensorProto files given, else deterministic\n"
    "  values of the declared shapes (--shape sets the first input's dims).\n";

int run_tool(int argc, char** argv) {
  std::string command = argv[1];
  ToolOptions o;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    bool value = i + 1 < argc;
    if (a == "--input" && value) o.input_files.push_back(argv[++i]);
    else if (a == "--shape" && value) o.shape = parse_dims(argv[++i]);
    else if (a == "--threads" && value) o.threads = parse_count(a, argv[++i]);
    else if (a == "--reps" && value) o.reps = int(std::max<size_t>(1, parse_count(a, argv[++i])));
    else if (a.rfind("--", 0) == 0) throw Error("scorch-onnx", "unknown or incomplete option " + a + " (see --help)");
    else o.model = a;
  }
  if (o.model.empty()) throw Error("scorch-onnx", command + " needs a model file (see --help)");
  if (command == "bench") return bench(o);
  if (command == "profile") return profile(o);
  return run(o);
}

}  // namespace scorch::graph

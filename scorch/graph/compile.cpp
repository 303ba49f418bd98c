// compile(): the interpreter's folding, the example run that fixes every value's shape, the grouping pass, then one
// step per group (oneDNN primitives in the layouts they choose, reorders where layouts meet, the interpreter's
// kernels for the rest) and the arena plan over every buffer's lifetime.
#include <algorithm>

#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/backends/cpu/thread_pool.h"
#include "scorch/core/error.h"
#include "scorch/graph/lower.h"
#include "scorch/graph/plan_impl.h"
#include "scorch/import/onnx/runtime/bridge.h"

namespace scorch::graph {
namespace {

using onnx::Node;
using onnx::Value;

bool has_subgraph(const std::vector<Node>& nodes) {
  for (const auto& n : nodes)
    for (const auto& [name, a] : n.attributes)
      if (!a.graphs.empty()) return true;
  return false;
}

// Every value's shape and dtype, from one run of the folded graph on the example inputs.
void probe_shapes(CompiledModel::Impl& m, const std::vector<TensorData>& examples) {
  const auto& interp = *m.interpreter;
  onnx::Graph g = interp.plan();
  std::map<std::string, Value<Dyn>> env = interp.weights();
  for (size_t i = 0; i < examples.size(); ++i) {
    env.insert_or_assign(m.inputs[i], Value<Dyn>::from_data(examples[i], interp.device()));
    m.meta[m.inputs[i]] = {examples[i].shape(), examples[i].dtype()};
  }
  g.outputs.clear();
  for (const auto& n : g.nodes)
    for (const auto& out : n.outputs)
      if (!out.empty()) g.outputs.push_back({out, true, std::nullopt, std::nullopt});
  auto values = onnx::detail::run_graph_on_dyn(g, std::move(env), interp.model().opset, interp.device());
  for (size_t i = 0; i < values.size(); ++i) {
    if (!values[i].is_tensor())
      throw Error("graph::compile", "value '" + g.outputs[i].name +
                                        "' is a sequence or an optional; the compiled path holds tensors only: run "
                                        "this model through onnx::load");
    m.meta[g.outputs[i].name] = {values[i].shape(), values[i].dtype()};
  }
}

void check_examples(const CompiledModel::Impl& m, const std::vector<TensorData>& examples) {
  if (examples.size() != m.inputs.size()) {
    std::string names;
    for (const auto& n : m.inputs) names += (names.empty() ? "" : ", ") + n;
    throw Error("graph::compile", "the model takes " + std::to_string(m.inputs.size()) + " inputs (" + names + "), " +
                                      std::to_string(examples.size()) + " examples were given");
  }
}

}  // namespace

CompiledModel compile(onnx::Model model, const std::vector<TensorData>& example_inputs, const CompileOptions& options) {
  auto m = std::make_unique<CompiledModel::Impl>();
  m->threads = options.threads ? options.threads : backends::cpu::default_num_threads();
  m->interpreter = std::make_unique<onnx::detail::Interpreter>(std::move(model), onnx::Bridge<Cpu>::device({}));
  const auto& interp = *m->interpreter;
  if (has_subgraph(interp.plan().nodes))
    throw Error("graph::compile",
                "the model has If/Loop/Scan bodies; the compiled path runs flat graphs only: run "
                "it through onnx::load");
  m->inputs = interp.input_names();
  for (const auto& out : interp.model().graph.outputs) m->outputs.push_back(out.name);
  check_examples(*m, example_inputs);
  probe_shapes(*m, example_inputs);
  for (const auto& n : interp.plan().nodes)
    for (const auto& in : n.inputs)
      if (auto w = interp.weights().find(in); w != interp.weights().end() && !m->constants.count(in))
        if (w->second.is_tensor()) m->constants.emplace(in, w->second.to_data());
  GraphFacts facts{&m->meta,
                   [&](const std::string& name) -> const TensorData* {
                     auto it = m->constants.find(name);
                     return it == m->constants.end() ? nullptr : &it->second;
                   },
                   {}};
  for (const auto& out : m->outputs) facts.graph_outputs.insert(out);
  facts.opset = interp.model().opset;
  auto groups = group_nodes(interp.plan().nodes, facts, options.fuse, options.lower);
  Lowering lower(*m);
  for (const auto& name : m->inputs) lower.define_input(name);
  for (const auto& g : groups) lower.add(g);
  lower.finish();
  return CompiledModel(std::move(m));
}

}  // namespace scorch::graph

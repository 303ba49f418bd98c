// Nodes the plan does not lower: run through the ONNX interpreter's kernels, their values held as the interpreter's
// (lower.h).
#include <algorithm>

#include "scorch/core/error.h"
#include "scorch/graph/host_values.h"
#include "scorch/graph/lower.h"
#include "scorch/import/onnx/runtime/op_call_impl.h"

namespace scorch::graph {

using onnx::Node;

namespace {

// An operand of a node the interpreter runs: omitted, a constant, a value in the arena, or a held value (moved into
// the call at its last read).
struct NodeInput {
  std::optional<onnx::Value<Dyn>> constant;
  std::optional<size_t> buffer, held;
  ValueMeta meta;
};

std::vector<std::optional<onnx::Value<Dyn>>> node_operands(CompiledModel::Impl& m, const std::vector<NodeInput>& inputs,
                                                           size_t step) {
  const auto& device = m.interpreter->device();
  std::vector<std::optional<onnx::Value<Dyn>>> values;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const NodeInput& in = inputs[k];
    if (in.constant) {
      values.emplace_back(*in.constant);
    } else if (in.held) {
      bool again =
          std::any_of(inputs.begin() + k + 1, inputs.end(), [&](const NodeInput& o) { return o.held == in.held; });
      if (m.held_last[*in.held] == step && !again)
        values.emplace_back(std::move(m.held[*in.held])), m.held[*in.held].reset();
      else values.emplace_back(m.held[*in.held]);
    } else if (!in.buffer) {
      values.emplace_back();
    } else {
      values.emplace_back(copy_in(m.data(*in.buffer), in.meta.shape, in.meta.dtype, device));
    }
  }
  return values;
}

// Runs node n through the interpreter's kernel; its outputs are held (outputs[i]: the index in Impl::held).
void run_node(CompiledModel::Impl& m, const Node& n, const std::vector<NodeInput>& inputs,
              const std::vector<std::optional<size_t>>& outputs, size_t step) {
  m.stream.wait();
  onnx::OpCall<Dyn> call(n, node_operands(m, inputs, step), m.interpreter->model().opset, m.interpreter->device());
  auto results = onnx::op_table<Dyn>().at(onnx::op_key(n))(call);
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i]) continue;
    const ValueMeta& want = m.meta.at(n.outputs[i]);
    bool same = i < results.size() && results[i].is_tensor() && results[i].shape() == want.shape &&
                results[i].dtype() == want.dtype;
    if (!same)
      throw Error("graph::run",
                  "node '" + n.name + "' (" + n.op_type + ") made " +
                      (i < results.size() && results[i].is_tensor()
                           ? results[i].shape().to_string() + " " + std::string(dtype_name(results[i].dtype()))
                           : std::string("no tensor")) +
                      " for '" + n.outputs[i] + "'; the plan was compiled for " + want.shape.to_string() + " " +
                      std::string(dtype_name(want.dtype)) +
                      ": this model's shapes depend on its input values, run it through onnx::load");
    m.held[*outputs[i]] = std::move(results[i]);
  }
}

}  // namespace

void Lowering::add_interpreter(size_t node_index) {
  const Node& n = m_.interpreter->plan().nodes[node_index];
  std::vector<NodeInput> inputs;
  const auto& weights = m_.interpreter->weights();
  for (const auto& name : n.inputs) {
    NodeInput in;
    if (auto w = weights.find(name); !name.empty() && w != weights.end()) {
      in.constant = w->second;
    } else if (!name.empty()) {
      auto s = m_.slots.find(name);
      if (s == m_.slots.end())
        throw Error("graph::compile", "node '" + n.name + "' (" + n.op_type + ") reads '" + name +
                                          "', which no earlier node computes (a compiler bug: report it)");
      in.meta = s->second.meta;
      if (s->second.held) in.held = s->second.held;
      else in.buffer = dense_f32(s->second.meta) ? as_plain(name) : s->second.buffer;
    }
    inputs.push_back(std::move(in));
  }
  for (const auto& in : inputs) {
    if (in.buffer) use(*in.buffer);
    if (in.held) use_held(*in.held);
  }
  std::vector<std::optional<size_t>> outputs;
  for (const auto& name : n.outputs) {
    if (name.empty() || !m_.meta.count(name)) {
      outputs.emplace_back();
      continue;
    }
    m_.held.emplace_back();
    m_.held_last.push_back(m_.steps.size());
    m_.slots.insert_or_assign(name, Slot{0, m_.meta.at(name), true, false, m_.held.size() - 1});
    outputs.emplace_back(m_.held.size() - 1);
  }
  Step step;
  step.info = StepInfo{"interpreter", n.name, n.op_type, 0};
  CompiledModel::Impl* m = &m_;
  size_t index = m_.steps.size();
  step.bind = [m, &n, inputs, outputs, index]() -> std::function<void()> {
    return [m, &n, inputs, outputs, index]() { run_node(*m, n, inputs, outputs, index); };
  };
  m_.steps.push_back(std::move(step));
  ++m_.interpreted;
}

}  // namespace scorch::graph

#pragma once
// What code written by scorch-onnx (codegen.h) includes: builders that spell a graph's nodes and attributes in C++,
// and the conversions between a module's typed tensors and the interpreter's values. A generated module runs its
// graph with onnx::run_graph<B> (Cpu and Cuda).
#include <map>
#include <string>
#include <vector>

#include "scorch/import/onnx/runtime/runtime.h"
#include "scorch/tensor/tensor.h"

namespace scorch::onnx::gen {

inline Attribute i(int64_t v) {
  Attribute a;
  a.kind = Attribute::Kind::Int, a.i = v;
  return a;
}
inline Attribute f(double v) {
  Attribute a;
  a.kind = Attribute::Kind::Float, a.f = v;
  return a;
}
inline Attribute s(std::string v) {
  Attribute a;
  a.kind = Attribute::Kind::String, a.s = std::move(v);
  return a;
}
inline Attribute ints(std::vector<int64_t> v) {
  Attribute a;
  a.kind = Attribute::Kind::Ints, a.ints = std::move(v);
  return a;
}
inline Attribute floats(std::vector<double> v) {
  Attribute a;
  a.kind = Attribute::Kind::Floats, a.floats = std::move(v);
  return a;
}
inline Attribute strings(std::vector<std::string> v) {
  Attribute a;
  a.kind = Attribute::Kind::Strings, a.strings = std::move(v);
  return a;
}
inline Attribute tensor(TensorData t) {
  Attribute a;
  a.kind = Attribute::Kind::Tensor, a.t = std::move(t);
  return a;
}

/// One node as the file has it.
inline Node n(std::string op, std::string name, std::vector<std::string> inputs, std::vector<std::string> outputs,
              std::map<std::string, Attribute> attributes = {}) {
  Node node;
  node.op_type = std::move(op), node.name = std::move(name);
  node.inputs = std::move(inputs), node.outputs = std::move(outputs), node.attributes = std::move(attributes);
  return node;
}

/// A graph of nodes producing outputs, with small constant initializers embedded in the code.
inline Graph graph(std::vector<Node> nodes, const std::vector<std::string>& outputs,
                   std::map<std::string, TensorData> constants = {}) {
  Graph g;
  g.nodes = std::move(nodes);
  for (const auto& name : outputs) g.outputs.push_back({name, true, std::nullopt, std::nullopt});
  g.initializers = std::move(constants);
  return g;
}

/// A module's tensor as an interpreter value.
template <class B, size_t D, class K> Value<B> value(const Tensor<B, D, K>& t) {
  return Value<B>::template of<K>(t.primitive());
}

/// An output value as a tensor of rank D and kind K; an Error naming the output otherwise.
template <class B, size_t D, class K = Float> Tensor<B, D, K> tensor_of(Value<B> v, const std::string& name) {
  if (!v.template is<K>() || v.shape().rank() != D)
    throw ValueError("onnx", "output '" + name + "' is " + v.shape().to_string() + " of " +
                                 std::string(dtype_name(v.dtype())) + ", the generated code expects rank " +
                                 std::to_string(D) + " of kind " + std::string(K::name));
  return Tensor<B, D, K>(std::move(v).template take<K>());
}

}  // namespace scorch::onnx::gen

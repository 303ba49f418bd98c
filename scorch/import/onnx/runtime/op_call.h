#pragma once
// What an operator implementation sees: the node, its inputs as values on backend B, the model's opset, and helpers
// that read attributes and host-side operands with errors naming the node. The op table maps op types to
// implementations; each ops_*.cpp registers one group.
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "scorch/import/onnx/onnx_model.h"
#include "scorch/import/onnx/runtime/value.h"

namespace scorch::onnx {

template <class B> class OpCall;
/// Runs the graph g with the outer scope's values visible (If's and Loop's bodies); returns g's outputs.
template <class B> using SubgraphRunner =
    std::function<std::vector<Value<B>>(const Graph& g, const std::map<std::string, Value<B>>& extra)>;

/// One node's execution on B.
template <class B> class OpCall {
 public:
  using F = typename B::FloatTensor;
  using I = typename B::IntTensor;
  using Bt = typename B::BoolTensor;
  using Device = typename B::Device;

  OpCall(const Node& node, std::vector<std::optional<Value<B>>> inputs, int64_t opset, Device device,
         SubgraphRunner<B> subgraphs = {})
      : node_(node),
        inputs_(std::move(inputs)),
        opset_(opset),
        device_(std::move(device)),
        subgraphs_(std::move(subgraphs)) {}

  const Node& node() const { return node_; }
  const char* op() const { return node_.op_type.c_str(); }
  int64_t opset() const { return opset_; }
  const Device& device() const { return device_; }
  const SubgraphRunner<B>& subgraphs() const { return subgraphs_; }

  size_t num_inputs() const { return inputs_.size(); }
  /// True when input i is given (not omitted, not past the end).
  bool has(size_t i) const { return i < inputs_.size() && inputs_[i].has_value(); }
  /// Input i; an error naming the node when it is omitted.
  const Value<B>& in(size_t i) const;
  /// Input i moved out of the call (an op that takes the last reference may write its result there).
  Value<B> take(size_t i) const {
    in(i);
    Value<B> v = std::move(*inputs_[i]);
    inputs_[i].reset();
    return v;
  }
  /// Input i of kind K; an error naming its dtype otherwise.
  template <class K> typename K::template Primitive<B> in_as(size_t i) const;
  /// A float input.
  F in_float(size_t i) const { return in_as<Float>(i); }
  /// Input i read on the host as int64 values (shapes, axes, indices given as tensors).
  std::vector<int64_t> host_ints(size_t i) const;
  /// Input i read on the host as doubles (scalar bounds given as tensors).
  std::vector<double> host_doubles(size_t i) const;

  bool has_attr(const std::string& name) const { return node_.attributes.count(name) > 0; }
  int64_t attr_int(const std::string& name, int64_t fallback) const;
  double attr_float(const std::string& name, double fallback) const;
  std::string attr_string(const std::string& name, const std::string& fallback) const;
  /// The ints of an INTS attribute; empty when absent.
  std::vector<int64_t> attr_ints(const std::string& name) const;
  std::vector<double> attr_floats(const std::string& name) const;
  const Attribute* attr(const std::string& name) const;

  /// "node 'name' (Op_type, opset N)", for error messages.
  std::string where() const;
  /// Throws an Error of type E naming the node.
  template <class E = Error> [[noreturn]] void fail(const std::string& message) const {
    throw E(std::string("onnx ") + node_.op_type, where() + ": " + message);
  }
  /// Resolves a possibly negative axis against rank; a ShapeError naming the node when out of range.
  size_t axis(int64_t axis, size_t rank) const;
  /// A kind/dtype the op does not accept.
  [[noreturn]] void fail_dtype(size_t input, DType dtype) const;

 private:
  const Node& node_;
  mutable std::vector<std::optional<Value<B>>> inputs_;
  int64_t opset_;
  Device device_;
  SubgraphRunner<B> subgraphs_;
};

/// An operator: the node's output values, in order (trailing optional outputs may be left out).
template <class B> using OpFn = std::function<std::vector<Value<B>>(const OpCall<B>&)>;
/// Op key (op_key) → implementation.
template <class B> using OpTable = std::map<std::string, OpFn<B>>;
/// A node's key in the op table: its op type, or "domain.OpType" outside the default domain ("" or "ai.onnx").
inline std::string op_key(const Node& node) {
  return node.domain.empty() || node.domain == "ai.onnx" ? node.op_type : node.domain + "." + node.op_type;
}

/// The op groups (ops_*.cpp); each adds its operators to table.
template <class B> void register_elementwise_ops(OpTable<B>& table);
template <class B> void register_layout_ops(OpTable<B>& table);
template <class B> void register_reduce_ops(OpTable<B>& table);
template <class B> void register_nn_ops(OpTable<B>& table);
template <class B> void register_resize_ops(OpTable<B>& table);
template <class B> void register_recurrent_ops(OpTable<B>& table);
template <class B> void register_control_ops(OpTable<B>& table);
template <class B> void register_einsum_ops(OpTable<B>& table);
template <class B> void register_host_ops(OpTable<B>& table);
template <class B> void register_quant_ops(OpTable<B>& table);
template <class B> void register_sampling_ops(OpTable<B>& table);
template <class B> void register_signal_ops(OpTable<B>& table);
template <class B> void register_index_ops(OpTable<B>& table);
template <class B> void register_sequence_ops(OpTable<B>& table);
/// Every operator the interpreter runs on B.
template <class B> const OpTable<B>& op_table();

}  // namespace scorch::onnx

#pragma once
// Load-time graph optimizations of the interpreter (runtime.cpp): nodes whose inputs are all constants run once
// when the model loads (their outputs join the weights), and a Conv followed by an inference BatchNormalization
// on constant parameters becomes one Conv with scaled weights and a bias.
#include <set>

#include "scorch/import/onnx/runtime/op_call_impl.h"

namespace scorch::onnx {

/// Constant values by name (the initializers, then what folding adds).
template <class B> using Constants = std::map<std::string, Value<B>>;

/// g's nodes minus those folded into constants. A node is folded when every input it names is in `constant`
/// (initializers that are not graph inputs, and earlier folded outputs) and it has no subgraph; one that fails
/// stays in the graph, so its error surfaces when the model runs.
template <class B> std::vector<Node> fold_constants(const Graph& g, int64_t opset, const typename B::Device& device,
                                                    Constants<B>& weights, std::set<std::string>& constant) {
  std::vector<Node> kept;
  for (const Node& node : g.nodes) {
    bool foldable = !node.outputs.empty();
    for (const auto& [name, attr] : node.attributes) foldable &= attr.graphs.empty();
    for (const auto& name : node.inputs) foldable &= name.empty() || constant.count(name) > 0;
    if (foldable) {
      std::vector<std::optional<Value<B>>> inputs;
      for (const auto& name : node.inputs) {
        if (name.empty()) inputs.emplace_back();
        else inputs.emplace_back(weights.at(name));
      }
      try {
        OpCall<B> call(node, std::move(inputs), opset, device);
        std::vector<Value<B>> out = op_table<B>().at(node.op_type)(call);
        for (size_t i = 0; i < node.outputs.size() && i < out.size(); ++i) {
          if (node.outputs[i].empty()) continue;
          weights.insert_or_assign(node.outputs[i], std::move(out[i]));
          constant.insert(node.outputs[i]);
        }
        if (out.size() >= node.outputs.size()) continue;
      } catch (const std::exception&) {  // left to run (and fail, naming the node) with the inputs
      }
    }
    kept.push_back(node);
  }
  return kept;
}

/// Conv → BatchNormalization (inference, constant parameters, the Conv's output read by nothing else) fused:
/// W' = W · s and b' = (b − mean) · s + beta per output channel, with s = gamma / sqrt(var + epsilon).
template <class B> void fold_batch_norms(std::vector<Node>& nodes, const Graph& g, Constants<B>& weights,
                                         const std::set<std::string>& constant) {
  using FO = KindOps<B, Float>;
  std::map<std::string, size_t> readers;
  for (const Node& n : nodes)
    for (const auto& name : n.inputs) ++readers[name];
  for (const auto& out : g.outputs) ++readers[out.name];
  auto is_const_float = [&](const std::string& name) {
    return constant.count(name) && weights.at(name).template is<Float>();
  };
  for (size_t i = 0; i < nodes.size(); ++i) {
    Node& bn = nodes[i];
    if (bn.op_type != "BatchNormalization" || bn.inputs.size() < 5 || bn.outputs.size() != 1) continue;
    auto training = bn.attributes.find("training_mode");
    if (training != bn.attributes.end() && training->second.i != 0) continue;
    bool params = true;
    for (size_t k = 1; k < 5; ++k) params &= is_const_float(bn.inputs[k]);
    auto conv = std::find_if(nodes.begin(), nodes.end(), [&](const Node& n) {
      return n.op_type == "Conv" && n.outputs.size() == 1 && n.outputs[0] == bn.inputs[0];
    });
    if (!params || conv == nodes.end() || readers[bn.inputs[0]] != 1 || conv->inputs.size() < 2) continue;
    bool has_bias = conv->inputs.size() > 2 && !conv->inputs[2].empty();
    if (!is_const_float(conv->inputs[1]) || (has_bias && !is_const_float(conv->inputs[2]))) continue;
    auto w = weights.at(conv->inputs[1]).template get<Float>();
    size_t out_channels = w.shape()[0];
    auto get = [&](size_t k) { return weights.at(bn.inputs[k]).template get<Float>(); };
    if (get(1).shape().num_elements() != out_channels || get(1).dtype() != w.dtype()) continue;
    auto eps = bn.attributes.count("epsilon") ? bn.attributes.at("epsilon").f : 1e-5;
    auto s = FO::mul(get(1), FO::recip(FO::sqrt(FO::add_scalar(get(4), Scalar(eps)))));
    Shape per_channel(std::vector<size_t>(w.shape().rank(), 1));
    per_channel[0] = out_channels;
    auto bias = has_bias ? weights.at(conv->inputs[2]).template get<Float>()
                         : FO::zeros(Shape{out_channels}, w.device(), w.dtype());
    std::string prefix = "scorch.folded." + std::to_string(i) + ".";
    weights.insert_or_assign(prefix + "weight", Value<B>::template of<Float>(FO::mul(w, FO::reshape(s, per_channel))));
    weights.insert_or_assign(prefix + "bias",
                             Value<B>::template of<Float>(FO::add(FO::mul(FO::sub(bias, get(3)), s), get(2))));
    conv->inputs = {conv->inputs[0], prefix + "weight", prefix + "bias"};
    conv->outputs = bn.outputs;
    nodes.erase(nodes.begin() + std::ptrdiff_t(i));
    --i;
  }
}

/// The layer normalization PyTorch exports before opset 17, nine nodes over the last axis:
///   m = ReduceMean(x); d = Sub(x, m); v = ReduceMean(Pow(d, 2)); y = Div(d, Sqrt(Add(v, eps))); Mul(y, gamma);
///   Add(., beta)
/// becomes one LayerNormalization node (the backend's fused kernel) when eps, gamma and beta are constants and the
/// intermediate values are read by nothing else.
template <class B> class LayerNormFuser {
 public:
  LayerNormFuser(std::vector<Node>& nodes, const Graph& g, Constants<B>& weights, const std::set<std::string>& constant)
      : nodes_(nodes), g_(g), weights_(weights), constant_(constant) {}

  void run() {
    recount();
    for (size_t i = 0; i < nodes_.size(); ++i)
      if (try_fuse(i)) recount(), i = 0;
  }

 private:
  void recount() {
    readers_.clear(), producer_.clear();
    for (size_t i = 0; i < nodes_.size(); ++i) {
      for (const auto& name : nodes_[i].inputs) ++readers_[name];
      for (const auto& name : nodes_[i].outputs) producer_[name] = i;
    }
    for (const auto& out : g_.outputs) ++readers_[out.name];
  }
  const Node* made_by(const std::string& name, const char* op) const {
    auto it = producer_.find(name);
    return it != producer_.end() && nodes_[it->second].op_type == op ? &nodes_[it->second] : nullptr;
  }
  std::optional<double> scalar(const std::string& name) const {
    if (!constant_.count(name) || !weights_.at(name).template is<Float>() ||
        weights_.at(name).shape().num_elements() != 1)
      return std::nullopt;
    return weights_.at(name).to_data().convert(DType::F64).template to_vector<double>()[0];
  }
  static bool last_axis_mean(const Node* n) {
    if (!n || n->inputs.size() != 1) return false;
    auto axes = n->attributes.find("axes");
    return axes != n->attributes.end() && axes->second.ints == std::vector<int64_t>{-1} &&
           (!n->attributes.count("keepdims") || n->attributes.at("keepdims").i == 1);
  }
  /// The node of type op reading `name` with a constant second input, when it is name's only reader.
  Node* only_reader(const std::string& name, const char* op) {
    if (readers_[name] != 1) return nullptr;
    for (auto& n : nodes_)
      if (n.op_type == op && n.inputs.size() == 2 && n.inputs[0] == name && constant_.count(n.inputs[1])) return &n;
    return nullptr;
  }
  /// Fuses the pattern ending in Div node i (then Mul, Add); false when it is not one.
  bool try_fuse(size_t i) {
    const Node& div = nodes_[i];
    if (div.op_type != "Div" || div.inputs.size() != 2) return false;
    const Node* sub = made_by(div.inputs[0], "Sub");
    const Node* sqrt = made_by(div.inputs[1], "Sqrt");
    const Node* add_eps = sqrt ? made_by(sqrt->inputs[0], "Add") : nullptr;
    const Node* var = add_eps ? made_by(add_eps->inputs[0], "ReduceMean") : nullptr;
    const Node* pow = var ? made_by(var->inputs[0], "Pow") : nullptr;
    const Node* mean = sub ? made_by(sub->inputs[1], "ReduceMean") : nullptr;
    if (!sub || !pow || !last_axis_mean(var) || !last_axis_mean(mean) || mean->inputs[0] != sub->inputs[0] ||
        pow->inputs[0] != sub->outputs[0] || scalar(pow->inputs[1]) != 2.0 || !scalar(add_eps->inputs[1]))
      return false;
    Node* mul = only_reader(div.outputs[0], "Mul");
    Node* add = mul ? only_reader(mul->outputs[0], "Add") : nullptr;
    bool private_values = readers_[sub->outputs[0]] == 2 && readers_[mean->outputs[0]] == 1 &&
                          readers_[pow->outputs[0]] == 1 && readers_[var->outputs[0]] == 1 &&
                          readers_[add_eps->outputs[0]] == 1 && readers_[sqrt->outputs[0]] == 1;
    if (!mul || !private_values) return false;
    Node fused;
    fused.name = div.name + ".layer_norm", fused.op_type = "LayerNormalization";
    fused.inputs = {sub->inputs[0], mul->inputs[1]};
    if (add) fused.inputs.push_back(add->inputs[1]);
    fused.outputs = {add ? add->outputs[0] : mul->outputs[0]};
    Attribute axis, epsilon;
    axis.kind = Attribute::Kind::Int, axis.i = -1;
    epsilon.kind = Attribute::Kind::Float, epsilon.f = *scalar(add_eps->inputs[1]);
    fused.attributes = {{"axis", axis}, {"epsilon", epsilon}};
    std::set<const Node*> gone{sub, sqrt, add_eps, var, pow, mean, mul, add, &div};
    std::vector<Node> next;
    for (const auto& n : nodes_) {
      if (&n == &div) next.push_back(fused);  // where the Div was: every input is ready by then
      else if (!gone.count(&n)) next.push_back(n);
    }
    nodes_ = std::move(next);
    return true;
  }

  std::vector<Node>& nodes_;
  const Graph& g_;
  Constants<B>& weights_;
  const std::set<std::string>& constant_;
  std::map<std::string, size_t> readers_, producer_;
};

template <class B> void fuse_layer_norms(std::vector<Node>& nodes, const Graph& g, Constants<B>& weights,
                                         const std::set<std::string>& constant) {
  LayerNormFuser<B>(nodes, g, weights, constant).run();
}

}  // namespace scorch::onnx

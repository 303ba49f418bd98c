#pragma once
// Load-time graph optimizations of the interpreter (runtime.cpp): nodes whose inputs are all constants run once
// when the model loads (their outputs join the weights), and a Conv followed by an inference BatchNormalization
// on constant parameters becomes one Conv with scaled weights and a bias; constants nothing reads are released.
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
        std::vector<Value<B>> out = op_table<B>().at(op_key(node))(call);
        bool all_named = true;  // every output the graph names was produced
        for (size_t i = 0; i < node.outputs.size(); ++i) {
          if (node.outputs[i].empty()) continue;
          if (i >= out.size()) {
            all_named = false;
            continue;
          }
          weights.insert_or_assign(node.outputs[i], std::move(out[i]));
          constant.insert(node.outputs[i]);
        }
        if (all_named) continue;
      } catch (const std::exception&) {  // left to run (and fail, naming the node) with the inputs
      }
    }
    kept.push_back(node);
  }
  return kept;
}

/// Conv → BatchNormalization (inference, constant parameters, the Conv's output read by nothing else) fused:
/// W' = W · s and b' = (b − mean) · s + beta per output channel, with s = gamma / sqrt(var + epsilon).
/// A weight name no initializer or earlier fold uses, from `base`.
template <class B> std::string fresh_name(const Constants<B>& weights, std::string base) {
  while (weights.count(base)) base += "_";
  return base;
}

/// Folds BatchNormalization node bn into its Conv when the parameters are constant rows of W's dtype; false
/// otherwise (nothing changed).
template <class B>
bool fold_one_batch_norm(const Node& bn, Node& conv, Constants<B>& weights, const std::set<std::string>& constant) {
  using FO = KindOps<B, Float>;
  bool has_bias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
  std::vector<std::string> names{bn.inputs[1], bn.inputs[2], bn.inputs[3], bn.inputs[4], conv.inputs[1]};
  if (has_bias) names.push_back(conv.inputs[2]);
  for (const auto& name : names)
    if (!constant.count(name) || !weights.at(name).template is<Float>()) return false;
  auto w = weights.at(conv.inputs[1]).template get<Float>();
  if (w.shape().rank() < 3) return false;
  size_t out_channels = w.shape()[0];
  for (size_t k = 0; k < names.size(); ++k) {
    const Value<B>& v = weights.at(names[k]);
    if (k != 4 && (v.dtype() != w.dtype() || v.shape() != Shape{out_channels})) return false;
  }
  const Attribute* eps_attr = bn.attributes.count("epsilon") ? &bn.attributes.at("epsilon") : nullptr;
  double eps = !eps_attr ? 1e-5 : eps_attr->kind == Attribute::Kind::Int ? double(eps_attr->i) : eps_attr->f;
  auto get = [&](size_t k) { return weights.at(names[k]).template get<Float>(); };
  auto s = FO::mul(get(0), FO::recip(FO::sqrt(FO::add_scalar(get(3), Scalar(eps)))));
  Shape per_channel(std::vector<size_t>(w.shape().rank(), 1));
  per_channel[0] = out_channels;
  auto bias = has_bias ? get(5) : FO::zeros(Shape{out_channels}, w.device(), w.dtype());
  std::string weight_name = fresh_name(weights, "scorch.folded." + bn.outputs[0] + ".weight");
  std::string bias_name = fresh_name(weights, "scorch.folded." + bn.outputs[0] + ".bias");
  weights.insert_or_assign(weight_name, Value<B>::template of<Float>(FO::mul(w, FO::reshape(s, per_channel))));
  weights.insert_or_assign(bias_name, Value<B>::template of<Float>(FO::add(FO::mul(FO::sub(bias, get(2)), s), get(1))));
  conv.inputs = {conv.inputs[0], weight_name, bias_name};
  conv.outputs = bn.outputs;
  return true;
}

/// Conv → BatchNormalization (inference, constant parameters, the Conv's output read by nothing else) fused:
/// W' = W · s and b' = (b − mean) · s + beta per output channel, with s = gamma / sqrt(var + epsilon).
template <class B> void fold_batch_norms(std::vector<Node>& nodes, const Graph& g, Constants<B>& weights,
                                         const std::set<std::string>& constant) {
  std::map<std::string, size_t> readers;
  for (const Node& n : nodes)
    for (const auto& name : n.inputs) ++readers[name];
  for (const auto& out : g.outputs) ++readers[out.name];
  for (size_t i = 0; i < nodes.size(); ++i) {
    Node& bn = nodes[i];
    if (bn.op_type != "BatchNormalization" || bn.inputs.size() < 5 || bn.outputs.size() != 1) continue;
    auto training = bn.attributes.find("training_mode");
    if (training != bn.attributes.end() && training->second.i != 0) continue;
    auto conv = std::find_if(nodes.begin(), nodes.end(), [&](const Node& n) {
      return n.op_type == "Conv" && n.outputs.size() == 1 && n.outputs[0] == bn.inputs[0] && n.inputs.size() >= 2;
    });
    if (conv == nodes.end() || readers[bn.inputs[0]] != 1) continue;
    bool folded = false;
    try {
      folded = fold_one_batch_norm(bn, *conv, weights, constant);
    } catch (const std::exception&) {  // left unfolded: the nodes run (and report) as written
    }
    if (!folded) continue;
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
  /// The node of type op with `inputs` inputs and one output that produces name.
  const Node* made_by(const std::string& name, const char* op, size_t inputs) const {
    auto it = producer_.find(name);
    if (it == producer_.end()) return nullptr;
    const Node& n = nodes_[it->second];
    return n.op_type == op && n.inputs.size() == inputs && n.outputs.size() == 1 ? &n : nullptr;
  }
  /// The value of a one-element constant of rank 0 or 1.
  std::optional<double> scalar(const std::string& name) const {
    if (!constant_.count(name) || !weights_.at(name).template is<Float>() ||
        weights_.at(name).shape().num_elements() != 1 || weights_.at(name).shape().rank() > 1)
      return std::nullopt;
    return weights_.at(name).to_data().convert(DType::F64).template to_vector<double>()[0];
  }
  static bool last_axis_mean(const Node* n) {
    if (!n) return false;
    auto axes = n->attributes.find("axes");
    return axes != n->attributes.end() && axes->second.ints == std::vector<int64_t>{-1} &&
           (!n->attributes.count("keepdims") || n->attributes.at("keepdims").i == 1);
  }
  /// The node of type op reading `name` with a constant row as second input, when it is name's only reader.
  Node* only_reader(const std::string& name, const char* op) {
    if (readers_[name] != 1) return nullptr;
    for (auto& n : nodes_)
      if (n.op_type == op && n.inputs.size() == 2 && n.outputs.size() == 1 && n.inputs[0] == name &&
          constant_.count(n.inputs[1]) && weights_.at(n.inputs[1]).is_tensor() &&
          weights_.at(n.inputs[1]).shape().rank() == 1)
        return &n;
    return nullptr;
  }
  /// Fuses the pattern ending in Div node i (then Mul, Add); false when it is not one.
  bool try_fuse(size_t i) {
    const Node& div = nodes_[i];
    if (div.op_type != "Div" || div.inputs.size() != 2 || div.outputs.size() != 1) return false;
    const Node* sub = made_by(div.inputs[0], "Sub", 2);
    const Node* sqrt = made_by(div.inputs[1], "Sqrt", 1);
    const Node* add_eps = sqrt ? made_by(sqrt->inputs[0], "Add", 2) : nullptr;
    const Node* var = add_eps ? made_by(add_eps->inputs[0], "ReduceMean", 1) : nullptr;
    const Node* pow = var ? made_by(var->inputs[0], "Pow", 2) : nullptr;
    const Node* mean = sub ? made_by(sub->inputs[1], "ReduceMean", 1) : nullptr;
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

/// After folding: constants no kept node, graph output or subgraph can read are released, and the outputs of folded
/// Transposes are laid out afresh (a transposed weight is otherwise a strided view that every run re-reads through
/// its strides; a reshape to one dim copies it). Other views stay views: a folded Expand is a stride-0 view whose
/// copy could be far larger than its source. With subgraphs nothing is released, so nothing is copied either.
template <class B> void settle_constants(const std::vector<Node>& nodes, const Graph& g, Constants<B>& weights,
                                         const std::set<std::string>& fed, bool subgraphs) {
  if (subgraphs) return;
  std::set<std::string> read(fed.begin(), fed.end()), transposed;
  for (const Node& n : nodes) read.insert(n.inputs.begin(), n.inputs.end());
  for (const auto& out : g.outputs) read.insert(out.name);
  for (const Node& n : g.nodes)
    if (n.op_type == "Transpose" && n.domain.empty()) transposed.insert(n.outputs.begin(), n.outputs.end());
  for (auto it = weights.begin(); it != weights.end();) {
    if (!read.count(it->first)) {
      it = weights.erase(it);
      continue;
    }
    Value<B>& v = it->second;
    if (transposed.count(it->first) && v.is_tensor() && v.shape().rank() > 1) {
      Shape shape = v.shape();
      v = reshape(reshape(std::move(v), Shape{shape.num_elements()}), shape);
    }
    ++it;
  }
}

}  // namespace scorch::onnx

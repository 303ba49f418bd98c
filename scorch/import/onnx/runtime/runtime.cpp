// The graph interpreter: runs nodes in order over values by slot (names resolved once at load: SlotPlan), releasing
// each value after its last use so the backend can reuse its buffer; graphs with If/Loop bodies run over a
// name → value map instead, so a body sees the outer values by name.
// Compiled once, on Dyn; Runtime<Dyn> is instantiated here, the static backends' runtimes in their bridges.
#include "scorch/import/onnx/runtime/runtime.h"

#include <chrono>
#include <cstdio>
#include <set>

#include "scorch/import/onnx/runtime/bridge.h"
#include "scorch/import/onnx/runtime/op_call_impl.h"
#include "scorch/import/onnx/runtime/node_passes.h"
#include "scorch/import/onnx/runtime/optimize.h"

namespace scorch::onnx {
namespace {

template <class B> using Env = std::map<std::string, Value<B>>;

/// The newest default-domain opset whose operator forms the interpreter implements (Debian's onnx 1.12).
constexpr int64_t kNewestOpset = 17;

/// Throws an Error naming the first node (here or in a subgraph) whose operator the table lacks.
template <class B> void check_supported(const Graph& g, int64_t opset) {
  const OpTable<B>& table = op_table<B>();
  for (const Node& node : g.nodes) {
    bool known = table.count(op_key(node)) > 0;
    if (!known) {
      std::string domain = node.domain.empty() ? "" : node.domain + ".";
      throw Error("onnx", "node '" + node.name + "' (" + domain + node.op_type + ", opset " + std::to_string(opset) +
                              "): unsupported operator");
    }
    for (const auto& [name, attr] : node.attributes)
      for (const Graph& body : attr.graphs) check_supported<B>(body, opset);
  }
}

/// What SCORCH_ONNX_PROFILE's keys name: op types (=1), op types and output shapes (=shapes), nodes (=nodes).
enum class ProfileDetail { Ops, Shapes, Nodes };

ProfileDetail profile_detail(const std::string& setting) {
  if (setting == "nodes") return ProfileDetail::Nodes;
  return setting == "shapes" ? ProfileDetail::Shapes : ProfileDetail::Ops;
}

/// How many times each name is read by g's nodes; names a subgraph may read are never released.
std::map<std::string, size_t> use_counts(const Graph& g, bool& has_subgraphs) {
  std::map<std::string, size_t> uses;
  has_subgraphs = false;
  for (const Node& node : g.nodes) {
    for (const auto& name : node.inputs) ++uses[name];
    for (const auto& [name, attr] : node.attributes) has_subgraphs |= !attr.graphs.empty();
  }
  for (const auto& out : g.outputs) uses[out.name] += 1;
  return uses;
}

/// True when a node of nodes holds a subgraph (If, Loop, Scan).
bool any_subgraph(const std::vector<Node>& nodes) {
  for (const Node& n : nodes)
    for (const auto& [name, attr] : n.attributes)
      if (!attr.graphs.empty()) return true;
  return false;
}

}  // namespace

namespace detail {
/// A graph's names resolved to slots once, at load: each node's input and output slots and the slots to release
/// after it reads them (their last read), so a run indexes a vector where it would look names up. For graphs
/// without subgraphs (a body may read any outer value by name).
struct SlotPlan {
  struct Step {
    const Node* node;
    std::vector<std::optional<size_t>> inputs, outputs;  // none: an omitted optional input or output
    std::vector<size_t> release;                         // slots read for the last time here
  };
  std::vector<std::string> names;  // slot -> name
  std::map<std::string, size_t> slot_of;
  std::vector<Step> steps;
  std::vector<size_t> outputs;  // the graph's outputs

  explicit SlotPlan(const Graph& g) {
    std::map<size_t, size_t> last_read;  // slot -> step of its last read
    for (const Node& node : g.nodes) {
      Step step{&node, {}, {}, {}};
      for (const auto& name : node.inputs) {
        step.inputs.push_back(name.empty() ? std::nullopt : std::optional(slot(name)));
        if (!name.empty()) last_read[*step.inputs.back()] = steps.size();
      }
      for (const auto& name : node.outputs)
        step.outputs.push_back(name.empty() ? std::nullopt : std::optional(slot(name)));
      steps.push_back(std::move(step));
    }
    for (const auto& out : g.outputs) outputs.push_back(slot(out.name)), last_read.erase(outputs.back());
    for (auto [s, at] : last_read) steps[at].release.push_back(s);
  }
  /// name's slot, made on first sight.
  size_t slot(const std::string& name) {
    auto [it, added] = slot_of.emplace(name, names.size());
    if (added) names.push_back(name);
    return it->second;
  }
};
}  // namespace detail

namespace {

using detail::SlotPlan;

template <class B> class GraphRunner {
 public:
  GraphRunner(int64_t opset, typename B::Device device) : opset_(opset), device_(std::move(device)) {}

  /// Runs plan's graph over env (a value or none per slot: its inputs and weights); returns the graph's outputs.
  std::vector<Value<B>> run(const SlotPlan& plan, std::vector<std::optional<Value<B>>> env) const {
    for (const auto& step : plan.steps) {
      std::vector<std::optional<Value<B>>> inputs;
      inputs.reserve(step.inputs.size());
      for (const auto& s : step.inputs) {
        if (s && !env[*s]) throw_unproduced(*step.node, plan.names[*s]);
        inputs.push_back(s ? env[*s] : std::nullopt);
      }
      for (size_t s : step.release) env[s].reset();
      OpCall<B> call(*step.node, std::move(inputs), opset_, device_);
      std::vector<Value<B>> outputs = timed(call);
      for (size_t i = 0; i < step.outputs.size(); ++i) {
        if (!step.outputs[i]) continue;
        if (i >= outputs.size()) call.template fail<>("output " + std::to_string(i) + " is not supported");
        env[*step.outputs[i]] = std::move(outputs[i]);
      }
    }
    std::vector<Value<B>> outputs;
    for (size_t s : plan.outputs) {
      if (!env[s]) throw Error("onnx", "graph output '" + plan.names[s] + "' is produced by no node");
      outputs.push_back(*env[s]);
    }
    return outputs;
  }

  /// Runs g over env (its inputs and the outer scope's values); returns g's outputs.
  std::vector<Value<B>> run(const Graph& g, Env<B> env) const {
    for (const auto& [name, data] : g.initializers)  // the main graph's are in env already
      if (!env.count(name)) env.emplace(name, Value<B>::from_data(data, device_));
    bool has_subgraphs = false;
    auto uses = use_counts(g, has_subgraphs);
    for (const Node& node : g.nodes) run_node(node, env, uses, has_subgraphs);
    std::vector<Value<B>> outputs;
    for (const auto& out : g.outputs) {
      auto it = env.find(out.name);
      if (it == env.end()) throw Error("onnx", "graph output '" + out.name + "' is produced by no node");
      outputs.push_back(it->second);
    }
    return outputs;
  }

 private:
  void run_node(const Node& node, Env<B>& env, std::map<std::string, size_t>& uses, bool keep_all) const {
    std::vector<std::optional<Value<B>>> inputs;
    for (const auto& name : node.inputs) {
      if (name.empty()) {
        inputs.emplace_back();
        continue;
      }
      auto it = env.find(name);
      if (it == env.end()) throw_unproduced(node, name);
      inputs.emplace_back(it->second);
      if (!keep_all && --uses[name] == 0) env.erase(it);
    }
    SubgraphRunner<B> sub = [this, &env](const Graph& g, const Env<B>& extra) {
      Env<B> scope = env;
      for (const auto& [k, v] : extra) scope.insert_or_assign(k, v);
      return run(g, std::move(scope));
    };
    OpCall<B> call(node, std::move(inputs), opset_, device_, std::move(sub));
    std::vector<Value<B>> outputs = timed(call);
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (node.outputs[i].empty()) continue;
      if (i >= outputs.size()) call.template fail<>("output " + std::to_string(i) + " is not supported");
      env.insert_or_assign(node.outputs[i], std::move(outputs[i]));
    }
  }

  [[noreturn]] static void throw_unproduced(const Node& node, const std::string& name) {
    throw Error("onnx", "node '" + node.name + "' (" + node.op_type + "): input '" + name +
                            "' is neither a graph input, an initializer nor an earlier node's output");
  }

  /// The node's operator (run_op), its time added to the profile when profiling.
  std::vector<Value<B>> timed(const OpCall<B>& call) const {
    if (!profile_) return run_op(call);
    const Node& node = call.node();
    auto start = std::chrono::steady_clock::now();
    std::vector<Value<B>> outputs = run_op(call);
    B::sync(device_);
    std::string key = node.op_type;
    if (profile_detail_ == ProfileDetail::Nodes)  // an unnamed node by its first output (names are unique)
      key = (node.name.empty() && !node.outputs.empty() ? node.outputs[0] : node.name) + " (" + node.op_type + ")";
    if (profile_detail_ != ProfileDetail::Ops && !outputs.empty() && outputs[0].is_tensor())
      key += " -> " + outputs[0].shape().to_string();
    (*profile_)[key] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return outputs;
  }

  /// The node's operator; a backend or check error that does not name the node is rethrown (same type) naming it.
  static std::vector<Value<B>> run_op(const OpCall<B>& call) {
    try {
      return op_table<B>().at(op_key(call.node()))(call);
    } catch (const Error& e) {
      std::string what = e.what();
      if (what.rfind("[onnx " + call.node().op_type + "] node", 0) == 0) throw;  // names the node already
      std::string message = call.where() + ": " + what;
      std::string op = "onnx " + call.node().op_type;
      if (dynamic_cast<const ShapeError*>(&e)) throw ShapeError(op, message);
      if (dynamic_cast<const DTypeError*>(&e)) throw DTypeError(op, message);
      if (dynamic_cast<const ValueError*>(&e)) throw ValueError(op, message);
      if (dynamic_cast<const DeviceError*>(&e)) throw DeviceError(op, message);
      if (dynamic_cast<const FormatError*>(&e)) throw FormatError(op, message);
      throw Error(op, message);
    } catch (const std::bad_alloc&) {
      throw ValueError("onnx " + call.node().op_type, call.where() + ": out of memory");
    } catch (const std::exception& e) {  // a bad list length or kind an operator did not check: still an Error
      throw ValueError("onnx " + call.node().op_type,
                       call.where() + ": invalid operands or attributes (" + e.what() + ")");
    }
  }

  int64_t opset_;
  typename B::Device device_;

 public:
  std::map<std::string, double>* profile_ = nullptr;   // op type → milliseconds, when profiling
  ProfileDetail profile_detail_ = ProfileDetail::Ops;  // what the profile's keys name
};

/// The kind of value info declares, as Value names it (Float for any tensor).
const char* type_name(ValueType type) {
  switch (type) {
    case ValueType::Tensor: return "a tensor";
    case ValueType::Sequence: return "a sequence";
    case ValueType::Optional: return "an optional";
    default: return "a map or unknown type";
  }
}

/// What v is, as a graph's declarations name it.
template <class B> ValueType value_type(const Value<B>& v) {
  using K = typename Value<B>::Kind;
  return v.kind() == K::Sequence   ? ValueType::Sequence
         : v.kind() == K::Optional ? ValueType::Optional
                                   : ValueType::Tensor;
}

/// Checks a fed value against the graph's declaration of it: its container kinds, then (for a tensor) dtype, rank
/// and fixed dims.
template <class B> void check_input(const ValueInfo& info, const Value<B>& v);

/// Checks a fed tensor against the graph's declaration of it (dtype, rank, fixed dims).
void check_input(const ValueInfo& info, const Shape& shape, DType dtype) {
  if (info.dtype && *info.dtype != dtype)
    throw DTypeError("onnx", "input '" + info.name + "' has dtype " + std::string(dtype_name(dtype)) +
                                 ", the model declares " + std::string(dtype_name(*info.dtype)));
  if (!info.shape) return;
  bool ok = info.shape->size() == shape.rank();
  for (size_t i = 0; ok && i < shape.rank(); ++i) ok = !(*info.shape)[i] || *(*info.shape)[i] == int64_t(shape[i]);
  if (ok) return;
  std::string declared = "[";
  for (size_t i = 0; i < info.shape->size(); ++i)
    declared += (i ? ", " : "") + ((*info.shape)[i] ? std::to_string(*(*info.shape)[i]) : std::string("?"));
  throw ShapeError(
      "onnx", "input '" + info.name + "' has shape " + shape.to_string() + ", the model declares " + declared + "]");
}

template <class B> void check_input(const ValueInfo& info, const Value<B>& v) {
  ValueType declared = info.containers.empty() ? ValueType::Tensor : info.containers.front();
  ValueType given = value_type(v);
  if (declared != given && declared != ValueType::Other)
    throw ValueError(
        "onnx", "input '" + info.name + "' is " + type_name(given) + ", the model declares " + type_name(declared));
  if (given == ValueType::Tensor) check_input(info, v.shape(), v.dtype());
}

/// A host value uploaded to device as B's values.
template <class B> Value<B> upload(const HostValue& value, const typename B::Device& device) {
  if (value.type == ValueType::Tensor) return Value<B>::from_data(value.tensor, device);
  std::vector<Value<B>> elements;
  for (const auto& e : value.elements) elements.push_back(upload<B>(e, device));
  if (value.type == ValueType::Sequence) return Value<B>::sequence(std::move(elements), value.element_dtype);
  if (value.type != ValueType::Optional || elements.size() > 1)
    throw ValueError("onnx", "a host value that is neither a tensor, a sequence nor an optional of at most one value");
  std::optional<Value<B>> held;
  if (!elements.empty()) held = std::move(elements.front());
  return Value<B>::optional(std::move(held), value.element_dtype);
}

/// value's data on the host.
template <class B> HostValue download(const Value<B>& value) {
  if (value.is_tensor()) return HostValue{ValueType::Tensor, value.to_data(), {}, DType::F32};
  HostValue out{value_type(value), {}, {}, value.element_dtype()};
  for (const auto& e : value.elements()) out.elements.push_back(download(e));
  return out;
}

}  // namespace

template <class B> const OpTable<B>& op_table() {
  static const OpTable<B> table = [] {
    OpTable<B> t;
    register_elementwise_ops<B>(t);
    register_layout_ops<B>(t);
    register_reduce_ops<B>(t);
    register_nn_ops<B>(t);
    register_resize_ops<B>(t);
    register_recurrent_ops<B>(t);
    register_control_ops<B>(t);
    register_einsum_ops<B>(t);
    register_host_ops<B>(t);
    register_quant_ops<B>(t);
    register_sampling_ops<B>(t);
    register_signal_ops<B>(t);
    register_index_ops<B>(t);
    register_sequence_ops<B>(t);
    return t;
  }();
  return table;
}

namespace detail {

struct Interpreter::Loaded {
  dyn::DynDevice device;
  std::map<std::string, Value<Dyn>> weights;            // the initializers, uploaded (and those folding made)
  std::optional<SlotPlan> slots;                        // the plan's names as slots (none: the plan has subgraphs)
  std::vector<std::optional<Value<Dyn>>> weight_slots;  // the weights the plan reads, by slot
};

Interpreter::~Interpreter() = default;

const dyn::DynDevice& Interpreter::device() const { return loaded_->device; }

const std::map<std::string, Value<Dyn>>& Interpreter::weights() const { return loaded_->weights; }

Interpreter::Interpreter(Model model, const dyn::DynDevice& device)
    : model_(std::move(model)), loaded_(std::make_unique<Loaded>(Loaded{device, {}, std::nullopt, {}})) {
  const dyn::DynDevice& on = loaded_->device;
  auto& weights = loaded_->weights;
  if (model_.opset > kNewestOpset)
    throw Error("onnx", "the model's opset " + std::to_string(model_.opset) +
                            " is newer than the newest this interpreter knows (" + std::to_string(kNewestOpset) +
                            "); re-export it with opset_version <= " + std::to_string(kNewestOpset));
  check_supported<Dyn>(model_.graph, model_.opset);
  for (const auto& [name, data] : model_.graph.initializers) weights.emplace(name, Value<Dyn>::from_data(data, on));
  std::set<std::string> constant, fed;
  for (const auto& in : model_.graph.inputs) {
    fed.insert(in.name);
    if (!model_.graph.initializers.count(in.name)) input_names_.push_back(in.name);
  }
  for (const auto& [name, data] : model_.graph.initializers)  // an initializer that is an input may be overridden
    if (!fed.count(name)) constant.insert(name);
  plan_ = model_.graph;
  plan_.initializers.clear();  // uploaded: loaded_->weights
  if (!std::getenv("SCORCH_ONNX_NO_FOLDING")) {
    plan_.nodes = fold_constants<Dyn>(model_.graph, model_.opset, on, weights, constant);
    bool subgraphs = any_subgraph(plan_.nodes);  // a body may read any outer value by name: rewrites would hide it
    if (!subgraphs) {
      fold_batch_norms<Dyn>(plan_.nodes, model_.graph, weights, constant);
      fuse_layer_norms<Dyn>(plan_.nodes, model_.graph, weights, constant);
      merge_common_subexpressions(plan_.nodes, model_.graph);
      remove_dead_nodes(plan_.nodes, model_.graph);
    }
    settle_constants<Dyn>(plan_.nodes, model_.graph, weights, fed, subgraphs);
  }
  if (any_subgraph(plan_.nodes)) return;  // a body reads outer values by name
  const SlotPlan& slots = loaded_->slots.emplace(plan_);
  loaded_->weight_slots.resize(slots.names.size());
  for (const auto& [name, value] : weights)
    if (auto it = slots.slot_of.find(name); it != slots.slot_of.end()) loaded_->weight_slots[it->second] = value;
}

std::vector<Value<Dyn>> Interpreter::run_values(std::map<std::string, Value<Dyn>> inputs) const {
  const std::optional<SlotPlan>& slots = loaded_->slots;
  Env<Dyn> env;
  std::vector<std::optional<Value<Dyn>>> slot_env;
  if (slots) slot_env = loaded_->weight_slots;
  else env = loaded_->weights;
  for (const auto& info : model_.graph.inputs) {
    auto it = inputs.find(info.name);
    if (it == inputs.end()) {
      if (!loaded_->weights.count(info.name)) throw ValueError("onnx", "input '" + info.name + "' is not given");
      continue;
    }
    check_input(info, it->second);
    if (!slots) env.insert_or_assign(info.name, std::move(it->second));
    else if (auto s = slots->slot_of.find(info.name); s != slots->slot_of.end())
      slot_env[s->second] = std::move(it->second);
    inputs.erase(it);
  }
  if (!inputs.empty()) throw ValueError("onnx", "'" + inputs.begin()->first + "' is not an input of the model");
  GraphRunner<Dyn> runner(model_.opset, loaded_->device);
  std::map<std::string, double> profile;
  const char* profiling = std::getenv("SCORCH_ONNX_PROFILE");
  if (profiling && (std::string(profiling).empty() || std::string(profiling) == "0")) profiling = nullptr;
  if (profiling) runner.profile_ = &profile;
  if (profiling) runner.profile_detail_ = profile_detail(profiling);
  auto outputs = slots ? runner.run(*slots, std::move(slot_env)) : runner.run(plan_, std::move(env));
  for (const auto& [op, ms] : profile) std::fprintf(stderr, "onnx profile: %-40s %9.3f ms\n", op.c_str(), ms);
  return outputs;
}

std::vector<TensorData> Interpreter::run(const std::vector<TensorData>& inputs) const {
  if (inputs.size() != input_names_.size())
    throw ValueError("onnx", "the model takes " + std::to_string(input_names_.size()) + " inputs, " +
                                 std::to_string(inputs.size()) + " were given");
  std::map<std::string, Value<Dyn>> fed;
  for (size_t i = 0; i < inputs.size(); ++i)
    fed.emplace(input_names_[i], Value<Dyn>::from_data(inputs[i], loaded_->device));
  std::vector<TensorData> out;
  for (const auto& v : run_values(std::move(fed))) out.push_back(v.to_data());
  return out;
}

std::map<std::string, HostValue> Interpreter::run_host_values(const std::map<std::string, HostValue>& inputs) const {
  std::map<std::string, Value<Dyn>> fed;
  for (const auto& [name, value] : inputs) fed.emplace(name, upload<Dyn>(value, loaded_->device));
  std::vector<Value<Dyn>> values = run_values(std::move(fed));
  std::map<std::string, HostValue> out;
  for (size_t i = 0; i < values.size(); ++i) out.emplace(model_.graph.outputs[i].name, download(values[i]));
  return out;
}

std::map<std::string, TensorData> Interpreter::run(const std::map<std::string, TensorData>& inputs) const {
  std::map<std::string, Value<Dyn>> fed;
  for (const auto& [name, data] : inputs) fed.emplace(name, Value<Dyn>::from_data(data, loaded_->device));
  std::vector<Value<Dyn>> values = run_values(std::move(fed));
  std::map<std::string, TensorData> out;
  for (size_t i = 0; i < values.size(); ++i) out.emplace(model_.graph.outputs[i].name, values[i].to_data());
  return out;
}

std::vector<Value<Dyn>> run_graph_on_dyn(const Graph& g, std::map<std::string, Value<Dyn>> env, int64_t opset,
                                         const dyn::DynDevice& device) {
  check_supported<Dyn>(g, opset);
  return GraphRunner<Dyn>(opset, device).run(g, std::move(env));
}

Value<Dyn> from_host_on_dyn(const HostValue& value, const dyn::DynDevice& device) { return upload<Dyn>(value, device); }

HostValue to_host_on_dyn(const Value<Dyn>& value) { return download(value); }

}  // namespace detail

template class OpCall<Dyn>;
template const OpTable<Dyn>& op_table<Dyn>();
SCORCH_ONNX_BRIDGE(Dyn)

}  // namespace scorch::onnx

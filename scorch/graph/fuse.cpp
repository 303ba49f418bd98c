// The grouping pass (fuse.h): lowerable heads, then what fuses after each.
#include "scorch/graph/fuse.h"

#include "scorch/graph/node_attrs.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace scorch::graph {
namespace {

using onnx::Attribute;
using onnx::Node;

// Facts about values, by name.
struct Values {
  const GraphFacts& facts;
  const ValueMeta* meta(const std::string& name) const {
    auto it = facts.meta->find(name);
    return it == facts.meta->end() ? nullptr : &it->second;
  }
  bool constant(const std::string& name) const { return !name.empty() && facts.constant(name) != nullptr; }
  // A value the plan computes or is fed: not a constant, a tensor of dtype f32 with at least one element.
  bool computed_f32(const std::string& name, size_t rank_lo = 1, size_t rank_hi = 6) const {
    const ValueMeta* m = meta(name);
    return !name.empty() && !constant(name) && m && m->dtype == DType::F32 && m->shape.num_elements() > 0 &&
           m->shape.rank() >= rank_lo && m->shape.rank() <= rank_hi;
  }
  bool constant_f32(const std::string& name, size_t rank) const {
    const TensorData* t = name.empty() ? nullptr : facts.constant(name);
    return t && t->dtype() == DType::F32 && t->shape().rank() == rank && t->num_elements() > 0;
  }
};

// A 1-D, 2-D or 3-D convolution (or transposed one) with constant weights and bias.
bool lowerable_conv(const Node& n, const Values& v) {
  if (n.inputs.size() < 2 || !v.computed_f32(n.inputs[0], 3, 5)) return false;
  size_t rank = v.meta(n.inputs[0])->shape.rank();
  if (!v.constant_f32(n.inputs[1], rank)) return false;
  if (n.inputs.size() > 2 && !n.inputs[2].empty() && !v.constant_f32(n.inputs[2], 1)) return false;
  std::string auto_pad = attr_string(n, "auto_pad", "NOTSET");
  if (n.op_type == "ConvTranspose" && auto_pad != "NOTSET" && auto_pad != "VALID") return false;
  return n.outputs.size() == 1 && v.computed_f32(n.outputs[0], rank, rank);
}

bool lowerable_pool(const Node& n, const Values& v, const std::map<std::string, size_t>& uses) {
  if (n.inputs.empty() || !v.computed_f32(n.inputs[0], 3, 5) || !v.computed_f32(n.outputs[0], 3, 5)) return false;
  if (n.op_type == "GlobalAveragePool" || n.op_type == "GlobalMaxPool") return true;
  const Attribute* kernel = attr(n, "kernel_shape");
  if (!kernel || kernel->ints.size() + 2 != v.meta(n.inputs[0])->shape.rank()) return false;
  if (n.op_type == "MaxPool")
    return attr_int(n, "storage_order", 0) == 0 &&
           (n.outputs.size() == 1 || n.outputs[1].empty() ||
            (!uses.count(n.outputs[1]) && !v.facts.graph_outputs.count(n.outputs[1])));
  return n.op_type == "AveragePool";
}

bool lowerable_matmul(const Node& n, const Values& v) {
  if (n.inputs.size() < 2 || !v.constant_f32(n.inputs[1], 2)) return false;
  if (n.op_type == "MatMul") return v.computed_f32(n.inputs[0], 2, 6);  // leading dims flattened into rows
  if (!v.computed_f32(n.inputs[0], 2, 2)) return false;
  if (attr_int(n, "transA", 0) != 0 || attr_float(n, "alpha", 1.0) != 1.0) return false;
  if (n.inputs.size() < 3 || n.inputs[2].empty()) return true;
  const TensorData* c = v.facts.constant(n.inputs[2]);
  size_t cols = v.facts.constant(n.inputs[1])->shape()[attr_int(n, "transB", 0) ? 0 : 1];
  return c && c->dtype() == DType::F32 && c->num_elements() == cols && c->shape().rank() <= 2 &&
         attr_float(n, "beta", 1.0) == 1.0;
}

// An LSTM or GRU oneDNN runs as it is: default activations, no clip, peepholes or coupled gates, full sequences.
bool lowerable_rnn(const Node& n, const Values& v) {
  bool lstm = n.op_type == "LSTM";
  auto given = [&](size_t i) { return i < n.inputs.size() && !n.inputs[i].empty(); };
  if (!v.computed_f32(n.inputs[0], 3, 3) || !v.constant_f32(n.inputs[1], 3) || !v.constant_f32(n.inputs[2], 3))
    return false;
  if ((given(3) && !v.constant_f32(n.inputs[3], 2)) || given(7)) return false;
  if (given(4)) {
    const TensorData* lens = v.facts.constant(n.inputs[4]);
    size_t steps = v.meta(n.inputs[0])->shape[0];
    if (!lens) return false;
    for (size_t i = 0; i < lens->num_elements(); ++i)
      if (lens->value_at(i) != double(steps)) return false;
  }
  for (size_t i : {size_t(5), size_t(6)})
    if (given(i) && !v.computed_f32(n.inputs[i], 3, 3) && !v.constant_f32(n.inputs[i], 3)) return false;
  if (!lstm && given(6)) return false;
  if (attr(n, "clip") || attr_int(n, "input_forget", 0) != 0 || attr_int(n, "layout", 0) != 0) return false;
  if (const onnx::Attribute* acts = attr(n, "activations"))
    for (size_t i = 0; i < acts->strings.size(); ++i)
      if (acts->strings[i] != (i % (lstm ? 3 : 2) == 0 ? "Sigmoid" : "Tanh")) return false;
  for (const auto& out : n.outputs)
    if (!out.empty() && !v.computed_f32(out)) return false;
  return true;
}

// True when only the first output is read (the others omitted or read by nothing).
bool first_output_only(const Node& n, const std::map<std::string, size_t>& uses, const GraphFacts& facts) {
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (!n.outputs[i].empty() && (uses.count(n.outputs[i]) || facts.graph_outputs.count(n.outputs[i]))) return false;
  return true;
}

// A layer norm over the last axis with constant scale (and bias) rows.
bool lowerable_layer_norm(const Node& n, const Values& v, const std::map<std::string, size_t>& uses) {
  if (n.inputs.size() < 2 || !v.computed_f32(n.inputs[0], 2, 5) || !v.computed_f32(n.outputs[0], 2, 5)) return false;
  size_t rank = v.meta(n.inputs[0])->shape.rank(), width = v.meta(n.inputs[0])->shape[rank - 1];
  int64_t axis = attr_int(n, "axis", -1);
  if (axis != -1 && axis != int64_t(rank) - 1) return false;
  for (size_t i : {size_t(1), size_t(2)}) {
    if (i == 2 && (n.inputs.size() < 3 || n.inputs[2].empty())) continue;
    const TensorData* t = v.facts.constant(n.inputs[i]);
    if (!t || t->dtype() != DType::F32 || t->num_elements() != width) return false;
  }
  return first_output_only(n, uses, v.facts);
}

// Softmax along the last axis (the same under every opset's semantics).
bool lowerable_softmax(const Node& n, const Values& v) {
  if (n.inputs.empty() || !v.computed_f32(n.inputs[0]) || n.outputs.size() != 1) return false;
  int64_t rank = int64_t(v.meta(n.inputs[0])->shape.rank()), axis = attr_int(n, "axis", -1);
  return axis == -1 || axis == rank - 1;
}

// A product of two computed values of one rank whose batch dims are equal or 1.
bool lowerable_batch_matmul(const Node& n, const Values& v) {
  if (n.op_type != "MatMul" || n.inputs.size() != 2 || !v.computed_f32(n.inputs[0], 2, 6) ||
      !v.computed_f32(n.inputs[1], 2, 6) || !v.computed_f32(n.outputs[0], 2, 6))
    return false;
  const Shape &a = v.meta(n.inputs[0])->shape, &b = v.meta(n.inputs[1])->shape;
  if (a.rank() != b.rank()) return false;
  for (size_t d = 0; d + 2 < a.rank(); ++d)
    if (a[d] != b[d] && a[d] != 1 && b[d] != 1) return false;
  return true;
}

// Concatenation of computed values of one rank along one axis.
bool lowerable_concat(const Node& n, const Values& v) {
  if (n.inputs.size() < 2 || n.outputs.size() != 1 || !v.computed_f32(n.outputs[0])) return false;
  for (const auto& in : n.inputs)
    if (!v.computed_f32(in) || v.meta(in)->shape.rank() != v.meta(n.outputs[0])->shape.rank()) return false;
  return attr(n, "axis") != nullptr;
}

// An inference BatchNormalization on constant rows (one left where no convolution before it absorbed it).
bool lowerable_batch_norm(const Node& n, const Values& v, const std::map<std::string, size_t>& uses) {
  if (n.inputs.size() != 5 || !v.computed_f32(n.inputs[0], 2, 5) || attr_int(n, "training_mode", 0) != 0) return false;
  size_t channels = v.meta(n.inputs[0])->shape[1];
  for (size_t i = 1; i < 5; ++i) {
    const TensorData* t = v.facts.constant(n.inputs[i]);
    if (!t || t->dtype() != DType::F32 || t->num_elements() != channels) return false;
  }
  return first_output_only(n, uses, v.facts);
}

// Where(cond, x, y) on float values, the condition a bool tensor: the plan's select kernel.
bool lowerable_where(const Node& n, const Values& v) {
  if (n.op_type != "Where" || n.inputs.size() != 3 || n.outputs.size() != 1 || !v.computed_f32(n.outputs[0]))
    return false;
  auto dtype_of = [&](const std::string& name) -> std::optional<DType> {
    if (const TensorData* c = v.facts.constant(name)) return c->dtype();
    const ValueMeta* m = v.meta(name);
    return m ? std::optional<DType>(m->dtype) : std::nullopt;
  };
  return dtype_of(n.inputs[0]) == DType::Bool && dtype_of(n.inputs[1]) == DType::F32 &&
         dtype_of(n.inputs[2]) == DType::F32;
}

// True when b broadcasts to shape (ranks aligned from the right, each dim equal or 1).
bool broadcasts_to(const Shape& b, const Shape& shape) {
  if (b.rank() > shape.rank()) return false;
  for (size_t i = 0; i < b.rank(); ++i) {
    size_t d = b[b.rank() - 1 - i];
    if (d != 1 && d != shape[shape.rank() - 1 - i]) return false;
  }
  return true;
}

// A binary op whose first operand (after swapping a commutative pair) has the result's shape.
bool lowerable_binary(const Node& n, const Values& v, bool& swap) {
  static const std::set<std::string> ops{"Add", "Sub", "Mul", "Div"};
  if (!ops.count(n.op_type) || n.inputs.size() != 2 || !v.computed_f32(n.outputs[0])) return false;
  const Shape& out = v.meta(n.outputs[0])->shape;
  auto shape_of = [&](const std::string& name) -> std::optional<Shape> {
    if (const TensorData* c = v.facts.constant(name))
      return c->dtype() == DType::F32 ? c->shape() : std::optional<Shape>();
    const ValueMeta* m = v.meta(name);
    return m && m->dtype == DType::F32 ? m->shape : std::optional<Shape>();
  };
  auto a = shape_of(n.inputs[0]), b = shape_of(n.inputs[1]);
  if (!a || !b) return false;
  bool commutative = n.op_type == "Add" || n.op_type == "Mul";
  swap = false;
  if (*a == out && v.computed_f32(n.inputs[0]) && broadcasts_to(*b, out)) return true;
  swap = commutative && *b == out && v.computed_f32(n.inputs[1]) && broadcasts_to(*a, out);
  return swap;
}

bool lowerable_reshape(const Node& n, const Values& v) {
  static const std::set<std::string> ops{"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"};
  return ops.count(n.op_type) && !n.inputs.empty() && n.outputs.size() == 1 && v.computed_f32(n.inputs[0]) &&
         v.computed_f32(n.outputs[0]);
}

// A Resize oneDNN's resampling computes alike: nearest with asymmetric coordinates and floor rounding by whole
// factors, or linear with half-pixel coordinates (pytorch_half_pixel where no output dim is 1); N and C kept, a
// scales input (when given) equal to the output/input ratio, no cubic, no crop.
bool lowerable_resize(const Node& n, const Values& v) {
  if (n.op_type != "Resize" || v.facts.opset < 11 || n.outputs.size() != 1 || !v.computed_f32(n.inputs[0], 3, 5) ||
      !v.computed_f32(n.outputs[0], 3, 5))
    return false;
  const Shape &in = v.meta(n.inputs[0])->shape, &out = v.meta(n.outputs[0])->shape;
  if (in.rank() != out.rank() || in[0] != out[0] || in[1] != out[1]) return false;
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    const TensorData* scales = v.facts.constant(n.inputs[2]);
    if (!scales) return false;
    auto given = scales->to_vector<double>();
    for (size_t d = 0; d < given.size() && d < in.rank(); ++d)
      if (std::abs(given[d] - double(out[d]) / double(in[d])) > 1e-6) return false;
  }
  std::string mode = attr_string(n, "mode", "nearest"),
              coords = attr_string(n, "coordinate_transformation_mode", "half_pixel");
  bool one = false, whole = true;
  for (size_t d = 2; d < in.rank(); ++d) one |= out[d] == 1, whole &= out[d] % in[d] == 0;
  if (mode == "linear") return coords == "half_pixel" || (coords == "pytorch_half_pixel" && !one);
  return mode == "nearest" && coords == "asymmetric" &&
         attr_string(n, "nearest_mode", "round_prefer_floor") == "floor" && whole;
}

// A reduction oneDNN has (mean, sum, max, min, product, L1, L2, sum of squares) over known axes of a computed value.
bool lowerable_reduce(const Node& n, const Values& v) {
  static const std::set<std::string> ops{"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin",
                                         "ReduceProd", "ReduceL1",  "ReduceL2",  "ReduceSumSquare"};
  if (!ops.count(n.op_type) || n.outputs.size() != 1 || !v.computed_f32(n.inputs[0]) || !v.computed_f32(n.outputs[0]))
    return false;
  const Shape& xs = v.meta(n.inputs[0])->shape;
  auto axes = reduced_axes(n, xs.rank(), v.facts);  // and one of them longer than 1 (oneDNN reduces something)
  return axes && std::any_of(axes->begin(), axes->end(), [&](size_t d) { return xs[d] > 1; });
}

std::optional<float> scalar_constant(const Node& n, size_t i, const Values& v) {
  if (i >= n.inputs.size() || n.inputs[i].empty()) return std::nullopt;
  const TensorData* t = v.facts.constant(n.inputs[i]);
  if (!t || t->num_elements() != 1) return std::nullopt;
  return static_cast<float>(t->value_at(0));
}

}  // namespace

std::optional<std::vector<size_t>> reduced_axes(const Node& n, size_t rank, const GraphFacts& facts) {
  std::vector<int64_t> axes = attr_ints(n, "axes", {});
  bool axes_input = n.op_type == "ReduceSum" && facts.opset >= 13;
  if (axes_input && n.inputs.size() > 1 && !n.inputs[1].empty()) {
    const TensorData* t = facts.constant(n.inputs[1]);
    if (!t || t->dtype() != DType::I64) return std::nullopt;
    axes = t->to_vector<int64_t>();
  }
  if (axes.empty() && axes_input && attr_int(n, "noop_with_empty_axes", 0) != 0) return std::nullopt;
  std::set<size_t> dims;
  for (int64_t a : axes) {
    if (a < -int64_t(rank) || a >= int64_t(rank)) return std::nullopt;
    dims.insert(size_t(a < 0 ? a + int64_t(rank) : a));
  }
  if (axes.empty())
    for (size_t d = 0; d < rank; ++d) dims.insert(d);
  return std::vector<size_t>(dims.begin(), dims.end());
}

std::optional<std::vector<Activation>> activation_of(const Node& n, const GraphFacts& facts) {
  using K = Activation::Kind;
  Values v{facts};
  const std::string& op = n.op_type;
  if (!n.domain.empty() && n.domain != "ai.onnx") return std::nullopt;
  if (op == "Relu") return std::vector<Activation>{{K::Relu, 0, 0}};
  if (op == "LeakyRelu") return std::vector<Activation>{{K::Relu, float(attr_float(n, "alpha", 0.01)), 0}};
  if (op == "Sigmoid") return std::vector<Activation>{{K::Logistic, 0, 0}};
  if (op == "Tanh") return std::vector<Activation>{{K::Tanh, 0, 0}};
  if (op == "HardSwish") return std::vector<Activation>{{K::HardSwish, 0, 0}};
  if (op == "Elu") return std::vector<Activation>{{K::Elu, float(attr_float(n, "alpha", 1.0)), 0}};
  if (op == "HardSigmoid")
    return std::vector<Activation>{{K::Linear, float(attr_float(n, "alpha", 0.2)), float(attr_float(n, "beta", 0.5))},
                                   {K::Clip, 0, 1}};
  if ((op == "Mul" || op == "Div" || op == "Add" || op == "Sub") && n.inputs.size() == 2 && !v.constant(n.inputs[0])) {
    auto c = scalar_constant(n, 1, v);  // x ∘ c, c one constant element of no higher rank than x
    const ValueMeta* x = v.meta(n.inputs[0]);
    if (!c || !x || facts.constant(n.inputs[1])->shape().rank() > x->shape.rank()) return std::nullopt;
    if (op == "Mul") return std::vector<Activation>{{K::Linear, *c, 0}};
    if (op == "Div") return std::vector<Activation>{{K::Linear, 1 / *c, 0}};
    return std::vector<Activation>{{K::Linear, 1, op == "Add" ? *c : -*c}};
  }
  if (op == "Clip") {
    float lo = -std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::max();
    if (attr(n, "min") || attr(n, "max")) {  // opset < 11: bounds as attributes
      lo = float(attr_float(n, "min", lo)), hi = float(attr_float(n, "max", hi));
    } else {
      for (size_t i : {size_t(1), size_t(2)}) {
        if (i >= n.inputs.size() || n.inputs[i].empty()) continue;
        auto bound = scalar_constant(n, i, v);
        if (!bound) return std::nullopt;  // a bound computed at run time
        (i == 1 ? lo : hi) = *bound;
      }
    }
    return std::vector<Activation>{{K::Clip, lo, hi}};
  }
  return std::nullopt;
}

namespace {

// The fusion state over one node list: who reads what, what is taken.
struct Fuser {
  const std::vector<Node>& nodes;
  const GraphFacts& facts;
  Values v;
  std::map<std::string, std::vector<size_t>> readers;
  std::map<std::string, size_t> producer;
  std::vector<bool> taken;

  Fuser(const std::vector<Node>& n, const GraphFacts& f) : nodes(n), facts(f), v{f}, taken(n.size(), false) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      for (const auto& in : nodes[i].inputs)
        if (!in.empty()) readers[in].push_back(i);
      for (const auto& out : nodes[i].outputs) producer[out] = i;
    }
  }
  // The one node reading name, when nothing else (no other node, no graph output) does.
  std::optional<size_t> only_reader(const std::string& name, const char* op = nullptr) const {
    auto it = readers.find(name);
    if (it == readers.end() || it->second.size() != 1 || facts.graph_outputs.count(name)) return std::nullopt;
    size_t c = it->second[0];
    if (taken[c] || (op && nodes[c].op_type != op)) return std::nullopt;
    return c;
  }
  bool scalar_near(const std::string& name, double value) const {
    const TensorData* t = facts.constant(name);
    return t && t->num_elements() == 1 && std::abs(t->value_at(0) - value) < 1e-3 * std::abs(value);
  }
  // The operand of binary node n that is not x ("" when both are x or neither is).
  static std::string other(const Node& n, const std::string& x) {
    if (n.inputs.size() != 2 || n.inputs[0] == n.inputs[1]) return "";
    return n.inputs[0] == x ? n.inputs[1] : n.inputs[1] == x ? n.inputs[0] : "";
  }
  // A region of elementwise nodes on x and one-element constants: its nodes in order and the one value it gives out.
  struct Region {
    std::vector<size_t> nodes;
    std::string output;
  };
  // The nodes after x's producer that read only x, one-element constants and each other (up to 16), in order.
  std::vector<size_t> elementwise_nodes(const std::string& x) const {
    static const std::set<std::string> ops{"Mul", "Add", "Sub", "Div", "Pow", "Tanh", "Erf", "Sqrt", "Sigmoid"};
    const ValueMeta* xm = v.meta(x);
    auto p = producer.find(x);
    std::set<std::string> inside{x};
    std::vector<size_t> found;
    for (size_t i = p == producer.end() ? 0 : p->second + 1; xm && i < nodes.size() && found.size() < 16; ++i) {
      const Node& n = nodes[i];
      if (taken[i] || !ops.count(n.op_type) || n.outputs.size() != 1 || !(n.domain.empty() || n.domain == "ai.onnx"))
        continue;
      bool reads_region = false, eligible = true;
      for (const auto& in : n.inputs) {
        const TensorData* c = facts.constant(in);
        reads_region |= inside.count(in) > 0;
        eligible &= inside.count(in) || (c && c->num_elements() == 1 && c->shape().rank() <= xm->shape.rank());
      }
      if (reads_region && eligible) found.push_back(i), inside.insert(n.outputs[0]);
    }
    return found;
  }
  // The region of the given nodes over x when every reader of x is among them and only the last one's value is read
  // outside (or is a graph output).
  std::optional<Region> closed_region(std::vector<size_t> members, const std::string& x) const {
    std::set<size_t> in(members.begin(), members.end());
    auto read_outside = [&](const std::string& name) {
      auto it = readers.find(name);
      if (facts.graph_outputs.count(name)) return true;
      return it != readers.end() &&
             std::any_of(it->second.begin(), it->second.end(), [&](size_t k) { return !in.count(k); });
    };
    if (members.size() < 2 || read_outside(x)) return std::nullopt;
    for (size_t k = 0; k + 1 < members.size(); ++k)
      if (read_outside(nodes[members[k]].outputs[0])) return std::nullopt;
    std::string output = nodes[members.back()].outputs[0];
    return Region{std::move(members), output};
  }
  // The longest region over x that computes a known activation, with it.
  std::optional<std::pair<Region, Activation>> activation_region(const std::string& x) const {
    if (facts.graph_outputs.count(x)) return std::nullopt;
    std::vector<size_t> found = elementwise_nodes(x);
    for (size_t k = found.size(); k >= 2; --k) {
      auto r = closed_region(std::vector<size_t>(found.begin(), found.begin() + long(k)), x);
      if (auto act = r ? recognized_activation(*r, x) : std::nullopt) return std::make_pair(*r, *act);
    }
    return std::nullopt;
  }
  // The region's value at x = t (nullopt where an op gives no finite value).
  std::optional<double> evaluate(const Region& r, const std::string& x, double t) const {
    std::map<std::string, double> value{{x, t}};
    auto get = [&](const std::string& name) {
      auto it = value.find(name);
      return it != value.end() ? it->second : facts.constant(name)->value_at(0);
    };
    for (size_t i : r.nodes) {
      const Node& n = nodes[i];
      double a = get(n.inputs[0]), b = n.inputs.size() > 1 ? get(n.inputs[1]) : 0, y = 0;
      if (n.op_type == "Mul") y = a * b;
      else if (n.op_type == "Add") y = a + b;
      else if (n.op_type == "Sub") y = a - b;
      else if (n.op_type == "Div") y = a / b;
      else if (n.op_type == "Pow") y = std::pow(a, b);
      else if (n.op_type == "Tanh") y = std::tanh(a);
      else if (n.op_type == "Erf") y = std::erf(a);
      else if (n.op_type == "Sqrt") y = std::sqrt(a);
      else y = 1 / (1 + std::exp(-a));  // Sigmoid
      if (!std::isfinite(y)) return std::nullopt;
      value[n.outputs[0]] = y;
    }
    return value.at(r.output);
  }
  // GELU (erf or tanh form) or SiLU when the region over x computes it at every sample point (within 1e-5).
  std::optional<Activation> recognized_activation(const Region& r, const std::string& x) const {
    using K = Activation::Kind;
    static constexpr double kSqrt2OverPi = 0.7978845608028654;
    std::vector<std::pair<Activation, double (*)(double)>> known{
        {{K::GeluErf, 0, 0}, [](double t) { return 0.5 * t * (1 + std::erf(t / std::sqrt(2.0))); }},
        {{K::GeluTanh, 0, 0},
         [](double t) { return 0.5 * t * (1 + std::tanh(kSqrt2OverPi * (t + 0.044715 * t * t * t))); }},
        {{K::Swish, 1, 0}, [](double t) { return t / (1 + std::exp(-t)); }}};
    for (const auto& [activation, f] : known) {
      bool all = true;
      for (double t : {-5.0, -3.0, -2.0, -1.5, -1.0, -0.5, -0.1, 0.0, 0.1, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0}) {
        auto y = evaluate(r, x, t);
        all = all && y && std::abs(*y - f(t)) <= 1e-5 * (1 + std::abs(f(t)));
      }
      if (all) return activation;
    }
    return std::nullopt;
  }
  // A constant row the product's result of shape out takes as its bias (N values, broadcast along the rows).
  bool bias_row(const std::string& name, const Shape& out) const {
    const TensorData* t = facts.constant(name);
    if (!t || t->dtype() != DType::F32 || t->num_elements() != out[out.rank() - 1]) return false;
    return t->shape().rank() <= out.rank() && t->shape()[t->shape().rank() - 1] == out[out.rank() - 1];
  }
  // Whether n is a ReduceMean over the last of rank dims keeping them (the interpreter takes opsets up to 17, where
  // the axes are an attribute).
  bool mean_over_last(const Node& n, size_t rank) const {
    const Attribute* axes = attr(n, "axes");
    return n.op_type == "ReduceMean" && attr_int(n, "keepdims", 1) == 1 && axes && axes->ints.size() == 1 &&
           (axes->ints[0] == -1 || axes->ints[0] == int64_t(rank) - 1);
  }
  // The node squaring d (Pow(d, 2) or Mul(d, d)) and the Div(d, ·) that are d's only readers.
  std::optional<std::pair<size_t, size_t>> square_and_divide(const std::string& d) const {
    auto r = readers.find(d);
    if (r == readers.end() || facts.graph_outputs.count(d)) return std::nullopt;
    std::optional<size_t> square, div;
    for (size_t k : r->second) {
      const Node& n = nodes[k];
      bool binary_on_d = !taken[k] && n.inputs.size() == 2 && n.inputs[0] == d;
      if (binary_on_d && n.op_type == "Div" && n.inputs[1] != d && !div) div = k;
      else if (binary_on_d && n.op_type == "Pow" && scalar_near(n.inputs[1], 2.0) && !square) square = k;
      else if (binary_on_d && n.op_type == "Mul" && n.inputs[1] == d && (!square || *square == k)) square = k;
      else return std::nullopt;
    }
    if (!square || !div) return std::nullopt;
    return std::make_pair(*square, *div);
  }
  // A layer norm's decomposed form starting at the ReduceMean node i (Group::Norm).
  std::optional<Group> decomposed_layer_norm(size_t i) const {
    const Node& mean = nodes[i];
    if (mean.inputs.empty() || mean.outputs.size() != 1 || !v.computed_f32(mean.inputs[0], 2, 5)) return std::nullopt;
    const std::string& x = mean.inputs[0];
    const Shape& xs = v.meta(x)->shape;
    if (!mean_over_last(mean, xs.rank())) return std::nullopt;
    auto sub = only_reader(mean.outputs[0], "Sub");
    if (!sub || nodes[*sub].inputs != std::vector<std::string>{x, mean.outputs[0]}) return std::nullopt;
    auto sd = square_and_divide(nodes[*sub].outputs[0]);
    if (!sd) return std::nullopt;
    auto [square, div] = *sd;
    auto var = only_reader(nodes[square].outputs[0], "ReduceMean");
    if (!var || !mean_over_last(nodes[*var], xs.rank())) return std::nullopt;
    auto add = only_reader(nodes[*var].outputs[0], "Add");
    const TensorData* eps = add ? facts.constant(other(nodes[*add], nodes[*var].outputs[0])) : nullptr;
    if (!eps || eps->num_elements() != 1) return std::nullopt;
    auto root = only_reader(nodes[*add].outputs[0], "Sqrt");
    if (!root || only_reader(nodes[*root].outputs[0]) != div || nodes[div].inputs[1] != nodes[*root].outputs[0])
      return std::nullopt;
    Group g;
    g.kind = Group::Kind::LayerNorm;
    g.nodes = {i, *sub, square, *var, *add, *root, div};
    g.output = nodes[div].outputs[0];
    g.norm = Group::Norm{x, std::nullopt, std::nullopt, float(eps->value_at(0))};
    auto affine = [&](const char* op) -> std::optional<std::string> {  // Mul γ or Add β by a constant row
      auto c = only_reader(g.output, op);
      if (!c || !bias_row(other(nodes[*c], g.output), xs)) return std::nullopt;
      std::string row = other(nodes[*c], g.output);
      g.nodes.push_back(*c), g.output = nodes[*c].outputs[0];
      return row;
    };
    if ((g.norm->scale = affine("Mul"))) g.norm->shift = affine("Add");
    if (!v.computed_f32(g.output) || v.meta(g.output)->shape != xs) return std::nullopt;
    return g;
  }
  void absorb(Group& g, const std::vector<size_t>& more, const std::string& output) {
    for (size_t c : more) taken[c] = true, g.nodes.push_back(c);
    g.output = output;
  }
  // Fuses what follows g's head (at index head) into g.
  void fuse_after(Group& g, size_t head) {
    const Node& h = nodes[head];
    bool product = g.kind == Group::Kind::MatMul;
    bool head_bias = h.op_type == "Gemm" && h.inputs.size() > 2 && !h.inputs[2].empty();
    for (;;) {
      auto& acts = g.sum ? g.after_sum : g.before_sum;
      if (auto found = activation_region(g.output)) {
        acts.push_back(found->second), absorb(g, found->first.nodes, found->first.output);
        continue;
      }
      auto c = only_reader(g.output);
      if (!c) return;
      // oneDNN 2.6's binary primitive computes a chain of three eltwise post-ops wrongly (Linear, Tanh, Linear after
      // an Add: a random graph found it); two are right, so a binary head takes at most two.
      if (g.kind == Group::Kind::Binary && g.before_sum.size() >= 2) return;
      const Node& next = nodes[*c];
      bool unary_use = next.inputs.size() < 2 || next.op_type == "Clip" || next.inputs[0] == g.output;
      if (auto act = unary_use ? activation_of(next, facts) : std::nullopt) {
        acts.insert(acts.end(), act->begin(), act->end());
      } else if (product && !head_bias && !g.bias && g.before_sum.empty() && !g.sum && next.op_type == "Add" &&
                 bias_row(other(next, g.output), v.meta(g.output)->shape)) {
        g.bias = other(next, g.output);
      } else if (!g.sum && g.kind != Group::Kind::Binary && next.op_type == "Add" && !other(next, g.output).empty()) {
        std::string residual = other(next, g.output);
        auto p = producer.find(residual);
        bool ready = p == producer.end() || p->second < head;
        if (!ready || !v.computed_f32(residual) || v.meta(residual)->shape != v.meta(g.output)->shape) return;
        g.sum = residual;
        bool input = std::find(h.inputs.begin(), h.inputs.end(), residual) != h.inputs.end();
        // In place when every other reader of the residual has run by the time the head runs.
        bool earlier = std::all_of(readers.at(residual).begin(), readers.at(residual).end(),
                                   [&](size_t r) { return r == *c || (r < head && nodes[r].op_type != "Transpose"); });
        g.sum_in_place = !input && earlier && !facts.graph_outputs.count(residual);
      } else {
        return;
      }
      absorb(g, {*c}, next.outputs[0]);
    }
  }
};

// Transposes read only by a batched product become strided views of it (taken before their turn): by product, its
// operands read through one; and the Transpose nodes each product absorbs.
struct TransposedOperands {
  std::map<size_t, std::map<size_t, Transposed>> operands;
  std::map<size_t, std::vector<size_t>> nodes;
};

TransposedOperands transposed_operands(Fuser& f) {
  TransposedOperands out;
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    if (!lowerable_batch_matmul(f.nodes[i], f.v)) continue;
    for (size_t k = 0; k < 2; ++k) {
      auto p = f.producer.find(f.nodes[i].inputs[k]);
      if (p == f.producer.end()) continue;
      const Node& t = f.nodes[p->second];
      const onnx::Attribute* perm = attr(t, "perm");
      if (t.op_type != "Transpose" || !perm || f.only_reader(t.outputs[0]) != i || !f.v.computed_f32(t.inputs[0]))
        continue;
      out.operands[i][k] = Transposed{t.inputs[0], perm->ints};
      f.taken[p->second] = true;
      out.nodes[i].push_back(p->second);
    }
  }
  return out;
}

}  // namespace

std::vector<Group> group_nodes(const std::vector<Node>& nodes, const GraphFacts& facts, bool fuse, bool lower) {
  Fuser f(nodes, facts);
  std::map<std::string, size_t> uses;
  for (const auto& [name, list] : f.readers) uses[name] = list.size();
  TransposedOperands transposes = lower && fuse ? transposed_operands(f) : TransposedOperands{};
  std::vector<Group> groups;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (f.taken[i]) continue;
    const Node& n = nodes[i];
    if (auto norm = lower && fuse && n.op_type == "ReduceMean" ? f.decomposed_layer_norm(i) : std::nullopt) {
      for (size_t k : norm->nodes) f.taken[k] = true;
      groups.push_back(std::move(*norm));
      continue;
    }
    Group g;
    g.nodes = {i};
    g.output = n.outputs.empty() ? std::string() : n.outputs[0];
    bool swap = false;
    bool standard = n.domain.empty() || n.domain == "ai.onnx";
    const Values& v = f.v;
    if (!lower || !standard) g.kind = Group::Kind::Interpreter;
    else if ((n.op_type == "Conv" || n.op_type == "ConvTranspose") && lowerable_conv(n, v)) g.kind = Group::Kind::Conv;
    else if ((n.op_type == "MatMul" || n.op_type == "Gemm") && lowerable_matmul(n, v)) g.kind = Group::Kind::MatMul;
    else if (lowerable_batch_matmul(n, v)) g.kind = Group::Kind::BatchMatMul;
    else if (n.op_type.find("Pool") != std::string::npos && lowerable_pool(n, v, uses)) g.kind = Group::Kind::Pool;
    else if (activation_of(n, facts) && n.outputs.size() == 1 && v.computed_f32(n.inputs[0]))
      g.kind = Group::Kind::Eltwise;
    else if (lowerable_binary(n, v, swap)) g.kind = Group::Kind::Binary;
    else if ((n.op_type == "LSTM" || n.op_type == "GRU") && lowerable_rnn(n, v)) g.kind = Group::Kind::Rnn;
    else if (n.op_type == "LayerNormalization" && lowerable_layer_norm(n, v, uses)) g.kind = Group::Kind::LayerNorm;
    else if (n.op_type == "Softmax" && lowerable_softmax(n, v)) g.kind = Group::Kind::Softmax;
    else if (n.op_type == "Concat" && lowerable_concat(n, v)) g.kind = Group::Kind::Concat;
    else if (lowerable_where(n, v)) g.kind = Group::Kind::Where;
    else if (lowerable_resize(n, v)) g.kind = Group::Kind::Resize;
    else if (lowerable_reduce(n, v)) g.kind = Group::Kind::Reduce;
    else if (n.op_type == "BatchNormalization" && lowerable_batch_norm(n, v, uses)) g.kind = Group::Kind::BatchNorm;
    else if (lowerable_reshape(n, v)) g.kind = Group::Kind::Reshape;
    else if (n.op_type == "Transpose" && attr(n, "perm") && v.computed_f32(n.inputs[0]) && v.computed_f32(n.outputs[0]))
      g.kind = Group::Kind::Transpose;
    g.swap_operands = swap;
    g.transposed = transposes.operands[i];
    for (size_t t : transposes.nodes[i]) g.nodes.push_back(t);
    f.taken[i] = true;
    bool fusable_head = g.kind == Group::Kind::Conv || g.kind == Group::Kind::MatMul ||
                        g.kind == Group::Kind::BatchMatMul || g.kind == Group::Kind::Binary;
    if (fuse && fusable_head) f.fuse_after(g, i);
    groups.push_back(std::move(g));
  }
  return groups;
}

}  // namespace scorch::graph

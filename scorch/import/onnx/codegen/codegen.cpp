// scorch-onnx's generator: the header text of a model's module (see codegen.h).
#include "scorch/import/onnx/codegen/codegen.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <sstream>

#include "scorch/core/error.h"

namespace scorch::onnx {
namespace {

constexpr size_t kMaxEmbedded = 4096;  // elements a non-parameter tensor may have to be written into the code

[[noreturn]] void fail(const std::string& message) { throw Error("scorch-onnx", message); }

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (ch == '\n') out += "\\n";
    else out += ch;
  }
  return out + "\"";
}

std::string number(double v) {
  if (std::isnan(v)) return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(v))
    return v > 0 ? "std::numeric_limits<double>::infinity()" : "-std::numeric_limits<double>::infinity()";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

/// v as a float literal: "0.5f", or a float's limits for NaN and the infinities.
std::string float_number(double v) {
  if (std::isnan(v)) return "std::numeric_limits<float>::quiet_NaN()";
  if (std::isinf(v))
    return v > 0 ? "std::numeric_limits<float>::infinity()" : "-std::numeric_limits<float>::infinity()";
  return number(v) + "f";
}

/// v as an int64_t literal (INT64_MIN has none: it is written as an expression), or 0/1 for a bool.
std::string integer(int64_t v, bool boolean) {
  if (boolean) return v != 0 ? "1" : "0";
  if (v == std::numeric_limits<int64_t>::min()) return "std::numeric_limits<int64_t>::min()";
  return std::to_string(v);
}

/// A C++ identifier from an ONNX name ("0.weight" -> "w_0_weight"), unique among `used`.
std::string identifier(const std::string& name, std::set<std::string>& used) {
  std::string id = "w_";
  for (char ch : name) id += std::isalnum(static_cast<unsigned char>(ch)) ? char(std::tolower(ch)) : '_';
  std::string unique = id;
  for (int k = 2; used.count(unique); ++k) unique = id + "_" + std::to_string(k);
  used.insert(unique);
  return unique;
}

std::string shape_literal(const Shape& s) {
  std::string out = "scorch::Shape{";
  for (size_t i = 0; i < s.rank(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "}";
}

/// A TensorData expression holding t's values (at most kMaxEmbedded of them).
std::string tensor_literal(const TensorData& t, const std::string& what) {
  size_t n = t.shape().num_elements();
  if (n > kMaxEmbedded)
    fail(what + " holds " + std::to_string(n) + " elements (" + std::string(dtype_name(t.dtype())) +
         "): only parameters (float initializers of rank 1 to 6) may be larger");
  DType d = t.dtype();
  std::string type = is_bool(d) ? "bool" : is_float(d) ? (d == DType::F64 ? "double" : "float") : "int64_t";
  std::string out = "scorch::TensorData(std::vector<" + type + ">{";
  if (is_float(d)) {
    auto values = t.convert(DType::F64).to_vector<double>();
    for (size_t i = 0; i < n; ++i)
      out += (i ? ", " : "") + (d == DType::F64 ? number(values[i]) : float_number(values[i]));
  } else {  // integers exactly (INT64_MAX, which PyTorch's Slice ends hold, has no double)
    auto values = t.convert(DType::I64).to_vector<int64_t>();
    for (size_t i = 0; i < n; ++i) out += (i ? ", " : "") + integer(values[i], is_bool(d));
  }
  out += "}, " + shape_literal(t.shape()) + ")";
  bool converted = d != DType::F64 && d != DType::F32 && d != DType::I64 && d != DType::Bool;
  return converted ? out + ".convert(scorch::DType::" + std::string(dtype_name(d)) + ")" : out;
}

std::string attribute_literal(const Node& node, const std::string& name, const Attribute& a) {
  auto list = [](const auto& items, auto fmt) {
    std::string out = "{";
    for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + fmt(items[i]);
    return out + "}";
  };
  switch (a.kind) {
    case Attribute::Kind::Int: return "i(" + integer(a.i, false) + ")";
    case Attribute::Kind::Float: return "f(" + number(a.f) + ")";
    case Attribute::Kind::String: return "s(" + quoted(a.s) + ")";
    case Attribute::Kind::Ints: return "ints(" + list(a.ints, [](int64_t v) { return integer(v, false); }) + ")";
    case Attribute::Kind::Floats: return "floats(" + list(a.floats, number) + ")";
    case Attribute::Kind::Strings: return "strings(" + list(a.strings, quoted) + ")";
    case Attribute::Kind::Tensor: return "tensor(" + tensor_literal(*a.t, "attribute '" + name + "'") + ")";
    default: break;
  }
  fail("node '" + node.name + "' (" + node.op_type + "): attribute '" + name +
       "' holds a subgraph; models with If, Loop or Scan run through onnx::load");
}

std::string node_literal(const Node& node) {
  if (!node.domain.empty() && node.domain != "ai.onnx")
    fail("node '" + node.name + "' is in domain " + node.domain + ", which Scorch does not implement");
  auto names = [](const std::vector<std::string>& v) {
    std::string out = "{";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + quoted(v[i]);
    return out + "}";
  };
  std::string out =
      "n(" + quoted(node.op_type) + ", " + quoted(node.name) + ", " + names(node.inputs) + ", " + names(node.outputs);
  if (node.attributes.empty()) return out + ")";
  out += ", {";
  bool first = true;
  for (const auto& [name, a] : node.attributes) {
    out += std::string(first ? "" : ", ") + "{" + quoted(name) + ", " + attribute_literal(node, name, a) + "}";
    first = false;
  }
  return out + "})";
}

/// "scorch::Tensor<B, 2>" (or with Int / Bool) for a graph input or output of known rank and dtype.
std::string tensor_type(const ValueInfo& v) {
  if (!v.tensor || !v.shape || !v.dtype) fail("'" + v.name + "' has no known rank and dtype");
  std::string kind = is_float(*v.dtype) ? "" : is_int(*v.dtype) ? ", scorch::Int" : ", scorch::Bool";
  return "scorch::Tensor<B, " + std::to_string(v.shape->size()) + kind + ">";
}

std::string describe(const ValueInfo& v) {
  std::string out = v.name + " [";
  for (size_t i = 0; i < v.shape->size(); ++i)
    out += (i ? ", " : "") + ((*v.shape)[i] ? std::to_string(*(*v.shape)[i]) : std::string("?"));
  return out + "] " + std::string(dtype_name(*v.dtype));
}

std::string camel(const std::string& name) {
  std::string out;
  bool up = true;
  for (char ch : name) {
    if (ch == '_') up = true;
    else out += up ? char(std::toupper(ch)) : ch, up = false;
  }
  return out;
}

/// Writes one model's header (the parts in the order they appear).
class ModuleWriter {
 public:
  ModuleWriter(const Model& m, const std::string& name) : m_(m), g_(m.graph), name_(name), type_(camel(name)) {}

  /// Sorts initializers into parameters (float, rank 1 to 6: the record) and embedded constants.
  Record collect() {
    std::set<std::string> used, graph_inputs;
    for (const auto& in : g_.inputs) graph_inputs.insert(in.name);
    Record::Map record;
    for (const auto& [key, data] : g_.initializers) {
      size_t rank = data.shape().rank();
      if (graph_inputs.count(key)) fail("initializer '" + key + "' is also a graph input (an overridable default)");
      if (is_float(data.dtype()) && rank >= 1 && rank <= 6) {
        params_.emplace_back(key, identifier(key, used));
        record.emplace_back(params_.back().second, Record(data));
      } else {
        constants_.emplace(key, data);
      }
    }
    for (const auto& in : g_.inputs)
      if (!g_.initializers.count(in.name)) inputs_.push_back(&in);
    if (inputs_.empty() || g_.outputs.empty()) fail("the graph needs inputs and outputs");
    return Record(std::move(record));
  }

  void fields(std::ostream& h, const std::string& source) const {
    h << "// Generated by scorch-onnx from " << source << " (opset " << m_.opset << ", " << g_.nodes.size()
      << " nodes): the graph as a Scorch module.\n// Regenerate it rather than editing it. Weights: " << name_
      << ".mpk beside this header (" << type_ << "<B>::load).\n#pragma once\n#include <limits>\n#include <map>\n"
      << "#include <string>\n#include <tuple>\n\n#include <scorch/import/onnx/codegen/generated.h>\n"
      << "#include <scorch/scorch.hpp>\n\nnamespace " << name_ << " {\n\ntemplate <class B> struct " << type_ << " {\n";
    for (const auto& [key, field] : params_) {
      const TensorData& d = g_.initializers.at(key);
      h << "  scorch::Param<scorch::Tensor<B, " << d.shape().rank() << ">> " << field << ";  // " << quoted(key) << " "
        << d.shape().to_string() << " " << dtype_name(d.dtype()) << "\n";
    }
    h << "  SCORCH_MODULE(" << type_;
    for (const auto& [key, field] : params_) h << ", " << field;
    h << ")\n\n";
  }

  void constructors(std::ostream& h) const {
    h << "  /// The module with zero weights of the file's shapes; load or load_file fills them.\n"
      << "  static " << type_ << " init(const typename B::Device& device = {}) {\n    " << type_ << " m;\n";
    for (const auto& [key, field] : params_) {
      const TensorData& d = g_.initializers.at(key);
      std::string t = "scorch::Tensor<B, " + std::to_string(d.shape().rank()) + ">";
      h << "    m." << field << " = scorch::Param<" << t << ">(" << t << "::zeros(" << shape_literal(d.shape())
        << ", device));\n";
    }
    h << "    return m;\n  }\n\n  /// The module with the weights scorch-onnx wrote (" << name_ << ".mpk).\n"
      << "  static " << type_ << " load(const std::string& path, const typename B::Device& device = {}) {\n"
      << "    return init(device).load_file(path, scorch::NamedMpkFileRecorder<>{}, device);\n  }\n\n";
  }

  void forward(std::ostream& h) const {
    std::string ret;
    for (const auto& o : g_.outputs) ret += (ret.empty() ? "" : ", ") + tensor_type(o);
    if (g_.outputs.size() > 1) ret = "std::tuple<" + ret + ">";
    h << "  /// ";
    for (size_t i = 0; i < inputs_.size(); ++i) h << (i ? ", " : "") << describe(*inputs_[i]);
    h << " -> ";
    for (size_t i = 0; i < g_.outputs.size(); ++i) h << (i ? ", " : "") << describe(g_.outputs[i]);
    h << ".\n  " << ret << " forward(";
    std::set<std::string> arg_names;
    std::vector<std::string> args;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      args.push_back(identifier(inputs_[i]->name, arg_names).substr(2) + "_in");
      h << (i ? ", " : "") << "const " << tensor_type(*inputs_[i]) << "& " << args.back();
    }
    h << ") const {\n    std::map<std::string, scorch::onnx::Value<B>> env;\n";
    for (size_t i = 0; i < inputs_.size(); ++i)
      h << "    env.emplace(" << quoted(inputs_[i]->name) << ", scorch::onnx::gen::value(" << args[i] << "));\n";
    for (const auto& [key, field] : params_)
      h << "    env.emplace(" << quoted(key) << ", scorch::onnx::gen::value(" << field << ".val()));\n";
    h << "    auto out = scorch::onnx::run_graph<B>(graph(), std::move(env), " << m_.opset << ", " << args[0]
      << ".device());\n    return " << (g_.outputs.size() > 1 ? "{" : "");
    for (size_t i = 0; i < g_.outputs.size(); ++i) {
      const ValueInfo& o = g_.outputs[i];
      std::string kind = is_float(*o.dtype) ? "" : is_int(*o.dtype) ? ", scorch::Int" : ", scorch::Bool";
      h << (i ? ", " : "") << "scorch::onnx::gen::tensor_of<B, " << o.shape->size() << kind << ">(std::move(out[" << i
        << "]), " << quoted(o.name) << ")";
    }
    h << (g_.outputs.size() > 1 ? "}" : "") << ";\n  }\n\n";
  }

  void graph(std::ostream& h) const {
    h << "  /// The graph's nodes as the file has them.\n  static const scorch::onnx::Graph& graph() {\n"
      << "    using namespace scorch::onnx::gen;\n"
      << "    static const scorch::onnx::Graph g = scorch::onnx::gen::graph(\n        {\n";
    for (const Node& node : g_.nodes) h << "            " << node_literal(node) << ",\n";
    h << "        },\n        {";
    for (size_t i = 0; i < g_.outputs.size(); ++i) h << (i ? ", " : "") << quoted(g_.outputs[i].name);
    h << "},\n        {";
    bool first = true;
    for (const auto& [key, data] : constants_) {
      h << (first ? "" : ",\n         ") << "{" << quoted(key) << ", "
        << tensor_literal(data, "initializer '" + key + "'") << "}";
      first = false;
    }
    h << "});\n    return g;\n  }\n};\n\n}  // namespace " << name_ << "\n";
  }

 private:
  const Model& m_;
  const Graph& g_;
  std::string name_, type_;
  std::vector<std::pair<std::string, std::string>> params_;  // (ONNX name, field)
  std::map<std::string, TensorData> constants_;
  std::vector<const ValueInfo*> inputs_;
};

}  // namespace

GeneratedModule generate_module(const Model& m, const std::string& name, const std::string& source) {
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0])) ||
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
    fail("module name '" + name + "' must be a lower-case C++ identifier");
  ModuleWriter writer(m, name);
  GeneratedModule out;
  out.weights = writer.collect();
  std::ostringstream h;
  writer.fields(h, source);
  writer.constructors(h);
  writer.forward(h);
  writer.graph(h);
  out.header = h.str();
  return out;
}

}  // namespace scorch::onnx

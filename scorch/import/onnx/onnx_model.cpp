// ONNX files into Scorch's model description (onnx_model.h), through Debian's generated protobuf classes. Tensor
// data may be raw bytes, typed fields or external files; every form is checked against the tensor's dims before it
// is copied, and external files must lie in the model's folder.
#include "scorch/import/onnx/onnx_model.h"

#include <onnx/onnx_pb.h>
// after onnx_pb.h, which defines ONNX_API
#include <onnx/onnx-data.pb.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <filesystem>

#include "scorch/core/error.h"
#include "scorch/import/onnx/graph_budget.h"
#include "scorch/module/formats/byte_io.h"
#include "scorch/module/formats/codec.h"

namespace scorch::onnx {
namespace {
namespace fs = std::filesystem;
using Proto = ::onnx::TensorProto;

constexpr int kMaxGraphDepth = 16;  // If/Loop bodies inside bodies

std::optional<DType> dtype_of(int32_t type) {
  switch (type) {
    case Proto::FLOAT: return DType::F32;
    case Proto::DOUBLE: return DType::F64;
    case Proto::FLOAT16: return DType::F16;
    case Proto::BFLOAT16: return DType::BF16;
    case Proto::INT64: return DType::I64;
    case Proto::INT32: return DType::I32;
    case Proto::INT16: return DType::I16;
    case Proto::INT8: return DType::I8;
    case Proto::UINT8: return DType::U8;
    case Proto::BOOL: return DType::Bool;
    default: return std::nullopt;
  }
}

/// What a tensor reads from: the model's folder (external data) and its name for messages.
struct Context {
  std::string source;
  fs::path folder;
};

[[noreturn]] void fail(const Context& c, const std::string& what, const std::string& why) {
  throw FormatError("load", c.source + ": " + what + ": " + why);
}

/// Appends value v as dtype's element bytes (v is in range for the typed field that holds it).
template <class V> void append(std::vector<std::byte>& out, DType dtype, V v) {
  auto put = [&](auto x) {
    auto* p = reinterpret_cast<const std::byte*>(&x);
    out.insert(out.end(), p, p + sizeof x);
  };
  switch (dtype) {
    case DType::F32: put(static_cast<float>(v)); break;
    case DType::F64: put(static_cast<double>(v)); break;
    case DType::I64: put(static_cast<int64_t>(v)); break;
    case DType::I32: put(static_cast<int32_t>(v)); break;
    case DType::I16: put(static_cast<int16_t>(v)); break;
    case DType::I8: put(static_cast<int8_t>(v)); break;
    case DType::U8: put(static_cast<uint8_t>(v)); break;
    case DType::Bool: put(static_cast<uint8_t>(v != 0)); break;
    default: put(static_cast<uint16_t>(v)); break;  // f16/bf16: int32_data holds the bit patterns
  }
}

/// The tensor's values from its typed field (float_data, int32_data, ...), as little-endian bytes.
std::vector<std::byte> typed_bytes(const Proto& t, DType dtype, size_t n, const Context& c, const std::string& what) {
  std::vector<std::byte> out;
  auto take = [&](const auto& field) {
    if (static_cast<size_t>(field.size()) != n)
      fail(c, what, std::to_string(field.size()) + " values for " + std::to_string(n) + " elements");
    out.reserve(n * dtype_size(dtype));
    for (auto v : field) append(out, dtype, v);
  };
  switch (dtype) {
    case DType::F32: take(t.float_data()); break;
    case DType::F64: take(t.double_data()); break;
    case DType::I64: take(t.int64_data()); break;
    default: take(t.int32_data()); break;
  }
  return out;
}

/// The bytes of an EXTERNAL tensor: its location (inside the model's folder), offset and length.
std::vector<std::byte> external_bytes(const Proto& t, size_t expected, const Context& c, const std::string& what) {
  std::string location;
  uint64_t offset = 0, length = expected;
  for (const auto& entry : t.external_data()) {
    auto number = [&] {
      const std::string& v = entry.value();
      if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos)
        fail(c, what, "external data " + entry.key() + " '" + v + "' is not a number");
      return std::stoull(v);
    };
    if (entry.key() == "location") location = entry.value();
    else if (entry.key() == "offset") offset = number();
    else if (entry.key() == "length") length = number();
  }
  fs::path relative(location);
  if (location.empty() || relative.is_absolute() || relative.lexically_normal().string().rfind("..", 0) == 0)
    fail(c, what, "external data location '" + location + "' is not a file inside the model's folder");
  // Symbolic links are followed only as far as the folder: one that leads outside it is refused.
  std::error_code error;
  fs::path folder = fs::weakly_canonical(c.folder.empty() ? fs::path(".") : c.folder, error);
  fs::path target = fs::weakly_canonical(c.folder / relative, error);
  auto [end, rest] = std::mismatch(folder.begin(), folder.end(), target.begin(), target.end());
  if (error || end != folder.end())
    fail(c, what, "external data location '" + location + "' leads outside the model's folder (a symbolic link?)");
  formats::MappedFile file(target.string());
  auto bytes = file.bytes();
  if (length != expected || offset > bytes.size() || length > bytes.size() - offset)
    fail(c, what,
         "external data [" + std::to_string(offset) + ", +" + std::to_string(length) + ") of '" + location + "' (" +
             std::to_string(bytes.size()) + " bytes) does not hold its " + std::to_string(expected) + " bytes");
  auto part = bytes.subspan(offset, length);
  return {part.begin(), part.end()};
}

/// The tensor's data. `declared` is the dtype the model gives it, for test data: onnx 1.12 wrote bfloat16 test
/// tensors as UINT16 bit patterns, which are read as bfloat16 where the model declares BFLOAT16.
TensorData tensor_from(const Proto& t, const Context& c, std::optional<DType> declared = std::nullopt) {
  std::string what = "tensor '" + t.name() + "'";
  auto dtype = dtype_of(t.data_type());
  if (t.data_type() == Proto::UINT16 && declared == DType::BF16) dtype = DType::BF16;
  if (!dtype) fail(c, what, "element type " + element_type_name(t.data_type()) + " has no Scorch dtype");
  std::vector<size_t> dims;
  for (int64_t d : t.dims()) {
    if (d < 0) fail(c, what, "has a negative dim " + std::to_string(d));
    dims.push_back(static_cast<size_t>(d));
  }
  Shape shape = formats::shape_from_file(dims, c.source, t.name());
  size_t bytes = formats::tensor_bytes_from_file(shape, *dtype, c.source, t.name());
  std::vector<std::byte> data;
  if (t.data_location() == Proto::EXTERNAL) data = external_bytes(t, bytes, c, what);
  else if (t.has_raw_data())
    data.assign(reinterpret_cast<const std::byte*>(t.raw_data().data()),
                reinterpret_cast<const std::byte*>(t.raw_data().data()) + t.raw_data().size());
  else data = typed_bytes(t, *dtype, shape.num_elements(), c, what);
  if (data.size() != bytes) fail(c, what, std::to_string(data.size()) + " bytes for " + std::to_string(bytes));
  return formats::tensor_from_file(data, shape, *dtype, c.source, t.name());
}

Graph graph_from(const ::onnx::GraphProto& g, const Context& c, int depth);

Attribute attribute_from(const ::onnx::AttributeProto& a, const Context& c, int depth) {
  Attribute out;
  using A = ::onnx::AttributeProto;
  switch (a.type()) {
    case A::INT: out.kind = Attribute::Kind::Int, out.i = a.i(); break;
    case A::FLOAT: out.kind = Attribute::Kind::Float, out.f = a.f(); break;
    case A::STRING: out.kind = Attribute::Kind::String, out.s = a.s(); break;
    case A::TENSOR: out.kind = Attribute::Kind::Tensor, out.t = tensor_from(a.t(), c); break;
    case A::INTS: out.kind = Attribute::Kind::Ints, out.ints.assign(a.ints().begin(), a.ints().end()); break;
    case A::FLOATS: out.kind = Attribute::Kind::Floats, out.floats.assign(a.floats().begin(), a.floats().end()); break;
    case A::STRINGS:
      out.kind = Attribute::Kind::Strings, out.strings.assign(a.strings().begin(), a.strings().end());
      break;
    case A::GRAPH: out.kind = Attribute::Kind::Graph, out.graphs.push_back(graph_from(a.g(), c, depth + 1)); break;
    case A::GRAPHS:
      out.kind = Attribute::Kind::Graph;
      for (const auto& g : a.graphs()) out.graphs.push_back(graph_from(g, c, depth + 1));
      break;
    default: out.kind = Attribute::Kind::Other; break;  // sparse tensors and type protos: refused where used
  }
  return out;
}

ValueInfo value_info_from(const ::onnx::ValueInfoProto& v) {
  ValueInfo out{v.name(), false, std::nullopt, std::nullopt, {}};
  const ::onnx::TypeProto* type = &v.type();
  for (int depth = 0; !type->has_tensor_type(); ++depth) {  // the containers, down to the tensor
    if (type->has_sequence_type() && depth < kMaxGraphDepth) {
      out.containers.push_back(ValueType::Sequence);
      type = &type->sequence_type().elem_type();
    } else if (type->has_optional_type() && depth < kMaxGraphDepth) {
      out.containers.push_back(ValueType::Optional);
      type = &type->optional_type().elem_type();
    } else {
      out.containers = {ValueType::Other};
      return out;
    }
  }
  out.tensor = out.containers.empty();
  const auto& tensor = type->tensor_type();
  out.dtype = dtype_of(tensor.elem_type());
  if (!tensor.has_shape()) return out;
  out.shape.emplace();
  for (const auto& d : tensor.shape().dim())
    out.shape->push_back(d.has_dim_value() ? std::optional<int64_t>(d.dim_value()) : std::nullopt);
  return out;
}

Graph graph_from(const ::onnx::GraphProto& g, const Context& c, int depth) {
  if (depth > kMaxGraphDepth) fail(c, "graph '" + g.name() + "'", "subgraphs nest deeper than 16 levels");
  Graph out;
  out.name = g.name();
  for (const auto& t : g.initializer()) {
    if (out.initializers.contains(t.name())) fail(c, "initializer '" + t.name() + "'", "is given twice");
    out.initializers.emplace(t.name(), tensor_from(t, c));
  }
  for (const auto& v : g.input()) out.inputs.push_back(value_info_from(v));
  for (const auto& v : g.output()) out.outputs.push_back(value_info_from(v));
  for (const auto& n : g.node()) {
    Node node{
        n.name(), n.op_type(), n.domain(), {n.input().begin(), n.input().end()}, {n.output().begin(), n.output().end()},
        {}};
    for (const auto& a : n.attribute()) node.attributes.emplace(a.name(), attribute_from(a, c, depth));
    out.nodes.push_back(std::move(node));
  }
  return out;
}

/// The message in file, parsed; FormatError when protobuf cannot.
template <class M> M parse(const std::string& path, const char* what) {
  formats::MappedFile file(path);
  auto bytes = file.bytes();
  check_graph_budget(bytes, *M::descriptor(), path);
  M message;
  bool fits = bytes.size() <= static_cast<size_t>(INT_MAX);  // protobuf's limit
  if (!fits || !message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw FormatError(
        "load", path + ": not a readable ONNX " + std::string(what) + " (" + std::to_string(bytes.size()) + " bytes)");
  return message;
}

}  // namespace

std::string element_type_name(int32_t type) {
  if (Proto::DataType_IsValid(type)) return Proto::DataType_Name(static_cast<Proto::DataType>(type));
  return "type " + std::to_string(type);
}

Model read_model(const std::string& path) {
  auto proto = parse<::onnx::ModelProto>(path, "model");
  if (!proto.has_graph() || proto.graph().output_size() == 0)
    throw FormatError("load", path + ": not an ONNX model (" +
                                  std::string(proto.has_graph() ? "its graph has no outputs" : "no graph") +
                                  "; an empty or truncated file?)");
  Context c{path, fs::path(path).parent_path()};
  Model model;
  model.ir_version = proto.ir_version();
  model.producer = proto.producer_name();
  for (const auto& op : proto.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") model.opset = op.version();
  model.graph = graph_from(proto.graph(), c, 0);
  return model;
}

TensorData read_tensor(const std::string& path) {
  auto proto = parse<::onnx::TensorProto>(path, "tensor");
  return tensor_from(proto, Context{path, fs::path(path).parent_path()});
}

namespace {
/// The host value a SequenceProto or OptionalProto holds, of the type containers[level...] describes.
template <class M> HostValue container_from(const M& m, const std::vector<ValueType>& containers, size_t level,
                                            std::optional<DType> dtype, const Context& c);

HostValue value_from(const ::onnx::TensorProto* tensor, const ::onnx::SequenceProto* sequence,
                     const ::onnx::OptionalProto* optional, const std::vector<ValueType>& containers, size_t level,
                     std::optional<DType> dtype, const Context& c) {
  ValueType want = level < containers.size() ? containers[level] : ValueType::Tensor;
  if (want == ValueType::Tensor && tensor)
    return HostValue{ValueType::Tensor, tensor_from(*tensor, c, dtype), {}, DType::F32};
  if (want == ValueType::Sequence && sequence) return container_from(*sequence, containers, level, dtype, c);
  if (want == ValueType::Optional && optional) return container_from(*optional, containers, level, dtype, c);
  fail(c, "value", "does not hold the type the model declares");
}

template <class M> HostValue container_from(const M& m, const std::vector<ValueType>& containers, size_t level,
                                            std::optional<DType> dtype, const Context& c) {
  using S = ::onnx::SequenceProto;
  HostValue out{containers[level], {}, {}, dtype.value_or(DType::F32)};
  if constexpr (std::is_same_v<M, S>) {
    for (const auto& t : m.tensor_values())
      out.elements.push_back(value_from(&t, nullptr, nullptr, containers, level + 1, dtype, c));
    for (const auto& s : m.sequence_values())
      out.elements.push_back(value_from(nullptr, &s, nullptr, containers, level + 1, dtype, c));
    for (const auto& o : m.optional_values())
      out.elements.push_back(value_from(nullptr, nullptr, &o, containers, level + 1, dtype, c));
    if (m.map_values_size() > 0) fail(c, "sequence '" + m.name() + "'", "holds maps, which Scorch does not read");
  } else {
    if (m.has_tensor_value())
      out.elements.push_back(value_from(&m.tensor_value(), nullptr, nullptr, containers, level + 1, dtype, c));
    if (m.has_sequence_value())
      out.elements.push_back(value_from(nullptr, &m.sequence_value(), nullptr, containers, level + 1, dtype, c));
    if (m.has_optional_value())
      out.elements.push_back(value_from(nullptr, nullptr, &m.optional_value(), containers, level + 1, dtype, c));
    if (out.elements.size() > 1) fail(c, "optional '" + m.name() + "'", "holds more than one value");
  }
  for (const auto& e : out.elements)
    if (e.type == ValueType::Tensor) out.element_dtype = e.tensor.dtype();
  return out;
}
}  // namespace

HostValue read_value(const std::string& path, const ValueInfo& info) {
  Context c{path, fs::path(path).parent_path()};
  if (info.containers.empty()) {
    auto proto = parse<::onnx::TensorProto>(path, "tensor");
    return HostValue{ValueType::Tensor, tensor_from(proto, c, info.dtype), {}, DType::F32};
  }
  if (info.containers.front() == ValueType::Sequence)
    return container_from(parse<::onnx::SequenceProto>(path, "sequence"), info.containers, 0, info.dtype, c);
  if (info.containers.front() == ValueType::Optional)
    return container_from(parse<::onnx::OptionalProto>(path, "optional"), info.containers, 0, info.dtype, c);
  throw FormatError("load", path + ": '" + info.name + "' is a map or of an unknown type, which Scorch does not read");
}

}  // namespace scorch::onnx

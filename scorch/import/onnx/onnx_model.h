#pragma once
// The ONNX front end's first layer: .onnx files (and the TensorProto files of ONNX's test data) read with Debian's
// ONNX protobuf library into Scorch's own model description, which the interpreter and the code generator work
// from. Initializers become TensorData; attributes keep their kinds. docs/onnx-import.md.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scorch/core/tensor_data.h"

namespace scorch::onnx {

struct Graph;

/// A node attribute: one of ONNX's kinds, in the matching field.
struct Attribute {
  enum class Kind { Int, Float, String, Tensor, Ints, Floats, Strings, Graph, Other };
  Kind kind = Kind::Other;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::optional<TensorData> t;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;
  std::vector<Graph> graphs;  // Graph: a GRAPH attribute's one, or GRAPHS' (If's and Loop's bodies)
};

struct Node {
  std::string name, op_type, domain;
  std::vector<std::string> inputs, outputs;  // "" marks an omitted optional input
  std::map<std::string, Attribute> attributes;
};

/// What a value is: a tensor, or a container around other values (ONNX's sequence and optional types).
enum class ValueType { Tensor, Sequence, Optional, Other };

/// A graph input or output: its element type and dims (nullopt for a symbolic or unknown dim) where the file says.
struct ValueInfo {
  std::string name;
  bool tensor = false;         // false for a sequence, map or optional
  std::optional<DType> dtype;  // of the tensor, or of the tensors inside the containers
  std::optional<std::vector<std::optional<int64_t>>> shape;
  /// The containers around the tensor, outermost first: {} for a tensor, {Optional, Sequence} for an optional
  /// sequence of tensors; {Other} for a map or a type the file leaves out.
  std::vector<ValueType> containers = {};
};

/// A value on the host: a tensor, or a sequence or optional of values (ONNX's SequenceProto and OptionalProto).
struct HostValue {
  ValueType type = ValueType::Tensor;
  TensorData tensor;                 // a Tensor's data
  std::vector<HostValue> elements;   // a Sequence's elements; an Optional's value (none when it is empty)
  DType element_dtype = DType::F32;  // a Sequence's or Optional's tensors' dtype (known when it is empty)
};

struct Graph {
  std::string name;
  std::vector<Node> nodes;  // in the file's (topological) order
  std::vector<ValueInfo> inputs, outputs;
  std::map<std::string, TensorData> initializers;
};

struct Model {
  Graph graph;
  int64_t ir_version = 0;
  int64_t opset = 0;  // of the default ("" or "ai.onnx") domain
  std::string producer;
};

/// Reads an .onnx file; external tensor data is read from files beside it. Throws FormatError starting with
/// "load" and naming the file (and the tensor or node) for a malformed file, a tensor whose data does not match
/// its dims, an element type Scorch has no dtype for (naming it), or external data outside the model's folder.
Model read_model(const std::string& path);

/// Reads a serialized TensorProto (the input_N.pb / output_N.pb files of ONNX's test data), as read_model does
/// its initializers.
TensorData read_tensor(const std::string& path);

/// Reads a serialized TensorProto, SequenceProto or OptionalProto (ONNX's test data), the one info's type names; a
/// UINT16 tensor declared BFLOAT16 holds bfloat16 bit patterns (how onnx 1.12 wrote them). Throws FormatError
/// starting with "load" and naming the file for a malformed file or a mismatching type.
HostValue read_value(const std::string& path, const ValueInfo& info);

/// The ONNX name of a TensorProto element type ("FLOAT", "INT64", ...; "type N" for an unknown one).
std::string element_type_name(int32_t type);

}  // namespace scorch::onnx

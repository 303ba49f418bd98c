// JSON records: tensors as {"__tensor__": dtype, "shape": [...], "values": [...], "param_id": "hex"};
// non-finite floats as the strings "NaN", "inf", "-inf". Readable and editable, so no checksum.
#include <cmath>
#include <nlohmann/json.hpp>

#include "scorch/core/error.h"
#include "scorch/module/formats/codec.h"
#include "scorch/module/formats/json_parse.h"
#include "scorch/module/param.h"

namespace scorch::formats {

namespace {
using json = nlohmann::ordered_json;

json float_json(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

json tensor_json(const RecordTensor& t, Precision precision) {
  TensorData scratch;
  const TensorData& data = stored_form(t.data, precision, scratch);
  json values = json::array();
  DType dt = data.dtype();
  bool floating = is_float(dt);
  for (size_t i = 0; i < data.num_elements(); ++i) {
    Scalar s = data.scalar_at(i);
    if (floating) values.push_back(float_json(s.to_double()));
    else if (dt == DType::Bool) values.push_back(s.to_bool());
    else values.push_back(s.to_int());
  }
  json out = {{std::string(kTensorKey), std::string(dtype_name(dt))},
              {"shape", data.shape().to_vector()},
              {"values", std::move(values)}};
  if (t.param_id) out["param_id"] = ParamId(t.param_id).to_string();
  return out;
}

json to_json(const Record& r, Precision precision, const std::string& path) {
  switch (r.kind()) {
    case RecordKind::Null: return nullptr;
    case RecordKind::Bool: return r.as_bool();
    case RecordKind::Int: return r.as_int();
    case RecordKind::Float: return float_json(r.as_float());
    case RecordKind::String: return r.as_string();
    case RecordKind::Tensor: return tensor_json(r.as_tensor(), precision);
    case RecordKind::List: {
      json out = json::array();
      for (size_t i = 0; i < r.size(); ++i) out.push_back(to_json(r.at(i), precision, path + "." + std::to_string(i)));
      return out;
    }
    case RecordKind::Map: {
      json out = json::object();
      for (const auto& [k, v] : r.as_map()) {
        if (k == kTensorKey) throw FormatError("save", "'" + path + "': the key \"__tensor__\" is reserved");
        out[k] = to_json(v, precision, path.empty() ? k : path + "." + k);
      }
      return out;
    }
  }
  return nullptr;
}

class JsonReader {
 public:
  explicit JsonReader(const std::string& source) : source_(source) {}
  Record value(const json& j, const std::string& path) const;

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& why) const {
    throw FormatError("load", source_ + ": '" + path + "': " + why);
  }
  double number(const json& j, const std::string& path) const {
    if (j.is_number()) return j.get<double>();
    if (j.is_string() && j == "NaN") return std::nan("");
    if (j.is_string() && (j == "inf" || j == "-inf")) return j == "inf" ? INFINITY : -INFINITY;
    fail(path, "expected a number, found " + std::string(j.type_name()));
  }
  Record tensor(const json& j, const std::string& path) const;
  const std::string& source_;
};

Record JsonReader::tensor(const json& j, const std::string& path) const {
  for (const auto& [k, v] : j.items())
    if (k != kTensorKey && k != "shape" && k != "values" && k != "param_id")
      fail(path, "unexpected tensor field '" + k + "'");
  if (!j.contains("shape") || !j.contains("values") || !j[std::string(kTensorKey)].is_string())
    fail(path, "a tensor needs dtype, shape and values");
  DType dt;
  try {
    dt = dtype_from_name(j[std::string(kTensorKey)].get<std::string>());
  } catch (const DTypeError&) { fail(path, "unknown dtype " + j[std::string(kTensorKey)].dump()); }
  std::vector<size_t> dims;
  if (!j["shape"].is_array()) fail(path, "tensor shape must be a list");
  for (const auto& d : j["shape"]) {
    if (!d.is_number_unsigned()) fail(path, "tensor shape must hold non-negative integers");
    dims.push_back(d.get<size_t>());
  }
  Shape shape = shape_from_file(dims, source_, path);
  size_t count = *shape.checked_num_elements();
  const json& values = j["values"];
  if (!values.is_array() || values.size() != count)
    fail(path, "tensor " + shape.to_string() + " needs " + std::to_string(count) + " values, found " +
                   (values.is_array() ? std::to_string(values.size()) : std::string(values.type_name())));
  uint64_t id = 0;
  if (j.contains("param_id")) {
    if (!j["param_id"].is_string()) fail(path, "param_id must be a hex string");
    try {
      id = ParamId::parse(j["param_id"].get<std::string>()).value();
    } catch (const FormatError& e) { fail(path, e.what()); }
  }
  std::vector<double> floats;
  std::vector<int64_t> ints;
  for (size_t i = 0; i < values.size(); ++i) {
    const json& v = values[i];
    std::string at = path + "[" + std::to_string(i) + "]";
    if (dt == DType::Bool) {
      if (!v.is_boolean()) fail(at, "expected a bool");
      ints.push_back(v.get<bool>());
    } else if (is_float(dt)) {
      floats.push_back(number(v, at));
    } else {
      if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)))
        fail(at, "expected an int64, found " + v.dump());
      ints.push_back(v.get<int64_t>());
    }
  }
  TensorData data = floats.empty() && !ints.empty() ? TensorData(ints, shape) : TensorData(floats, shape);
  return Record(data.convert(dt), id);
}

Record JsonReader::value(const json& j, const std::string& path) const {
  switch (j.type()) {
    case json::value_t::null: return Record();
    case json::value_t::boolean: return Record(j.get<bool>());
    case json::value_t::number_integer: return Record(j.get<int64_t>());
    case json::value_t::number_unsigned:
      if (j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) fail(path, "integer out of range");
      return Record(j.get<int64_t>());
    case json::value_t::number_float: return Record(j.get<double>());
    case json::value_t::string: return Record(j.get<std::string>());
    case json::value_t::array: {
      Record::List items;
      for (size_t i = 0; i < j.size(); ++i) items.push_back(value(j[i], path + "." + std::to_string(i)));
      return Record(std::move(items));
    }
    case json::value_t::object: {
      if (j.contains(std::string(kTensorKey))) return tensor(j, path);
      Record out = Record::map();
      for (const auto& [k, v] : j.items())
        out.as_map_mut().emplace_back(k, value(v, path.empty() ? k : path + "." + k));
      return out;
    }
    default: fail(path, "unsupported JSON value");
  }
}
}  // namespace

std::string to_json_text(const Record& record, bool pretty, Precision precision) {
  return to_json(record, precision, "").dump(pretty ? 2 : -1) + "\n";
}

Record from_json_text(std::span<const std::byte> bytes, const std::string& source) {
  std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return JsonReader(source).value(parse_json_bounded<json>(text, "load", source), "");
}

void encode_json(const Record& metadata, const Record& item, Precision precision, bool pretty, ByteSink& sink) {
  json envelope = json::object();
  envelope["metadata"] = to_json(metadata, precision, "metadata");
  envelope["item"] = to_json(item, precision, "");
  std::string text = envelope.dump(pretty ? 2 : -1) + "\n";
  sink.write(text.data(), text.size());
}

Record decode_json(std::span<const std::byte> bytes, const std::string& source) {
  return take_item(from_json_text(bytes, source), source);
}

}  // namespace scorch::formats

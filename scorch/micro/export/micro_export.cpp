// scorch-micro-export's work (micro_export.h).
#include "scorch/micro/export/micro_export.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/import/onnx/onnx_model.h"
#include "scorch/module/quantized_record.h"
#include "scorch/module/recorder.h"
#include "scorch/tensor/quantized.h"
#include "scorch/tensor/tensor.h"

namespace scorch::micro_export {
namespace {

constexpr const char* kOp = "micro-export";

std::vector<uint32_t> dims_of(const std::string& key, const Shape& shape) {
  if (shape.rank() > 4)
    throw ShapeError(kOp, "'" + key + "' " + shape.to_string() + " has rank " + std::to_string(shape.rank()) +
                              "; the micro runtime holds at most 4 dims");
  std::vector<uint32_t> dims;
  for (size_t d : shape) {
    if (d > 0xFFFFFFFFu) throw ShapeError(kOp, "'" + key + "' " + shape.to_string() + " has a dim above 2^32");
    dims.push_back(uint32_t(d));
  }
  return dims;
}

std::vector<float> floats_of(const TensorData& data) { return data.convert(DType::F32).to_vector<float>(); }

// x [rows, cols] → [cols, rows].
std::vector<float> transposed(const std::vector<float>& x, size_t rows, size_t cols) {
  std::vector<float> out(x.size());
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) out[c * rows + r] = x[r * cols + c];
  return out;
}

// Symmetric int8 with a scale per index of axis, through the hosted quantize op (the values quant::quantize gives).
template <size_t D> void quantize_rank(Array& a, const TensorData& data) {
  auto q = QTensor<Cpu, D>::quantize(Tensor<Cpu, D>::from_data(data), QuantScheme::int8_per_channel(a.axis));
  a.quantized = q.values.into_data().convert(DType::I8).template to_vector<int8_t>();
  a.scales = q.scales.into_data().template to_vector<float>();
  a.values.clear();
}

void quantize(Array& a) {
  Shape shape;
  for (uint32_t d : a.shape) shape.push_back(d);
  a.axis = a.shape.size() == 2 ? 1 : 0;  // Linear [d_input, d_output]: per output column; Conv [out, ...]: per row
  TensorData data(a.values, shape);
  switch (a.shape.size()) {
    case 2: return quantize_rank<2>(a, data);
    case 3: return quantize_rank<3>(a, data);
    default: return quantize_rank<4>(a, data);
  }
}

// A saved quantized parameter (module/quantized_record.h): int8 symmetric per channel only.
Array from_quantized(const std::string& key, const Record& map) {
  size_t rank = map.get_tensor("values").data.shape().rank();
  QuantizedRecord q = read_quantized_record(map, rank, "'" + key + "'");
  const QuantScheme& scheme = q.scheme;
  if (scheme.value != QuantValue::Int8 || scheme.mode != QuantMode::Symmetric || scheme.level != QuantLevel::Channel)
    throw ValueError(kOp, "'" + key + "' is quantized as " + to_string(scheme) +
                              "; the micro runtime takes int8 symmetric per channel (export the float record)");
  Array a{key, dims_of(key, q.values.shape()), {}, {}, floats_of(q.scales), uint32_t(scheme.axis)};
  a.quantized = q.values.convert(DType::I8).to_vector<int8_t>();
  if (a.shape.size() == 2 && a.axis == 0) {  // a Col-layout Linear [d_output, d_input]: stored as [d_input, d_output]
    std::vector<int8_t> t(a.quantized.size());
    for (size_t r = 0; r < a.shape[0]; ++r)
      for (size_t c = 0; c < a.shape[1]; ++c) t[c * a.shape[0] + r] = a.quantized[r * a.shape[1] + c];
    a.quantized = std::move(t);
    std::swap(a.shape[0], a.shape[1]);
    a.axis = 1;
  }
  bool layout_ok = (a.shape.size() == 2 && a.axis == 1) || (a.shape.size() > 2 && a.axis == 0);
  if (!layout_ok || a.scales.size() != a.shape[a.axis])
    throw ShapeError(kOp, "'" + key + "' quantized along axis " + std::to_string(a.axis) +
                              " does not fit the runtime's Linear [d_input, d_output] / Conv [out, ...] weights");
  return a;
}

bool is_quantized_param(const Record& r) { return is_quantized_record(r) && r.find("values"); }

bool listed(const std::vector<std::string>& keys, const std::string& key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

void walk(const Record& r, const std::string& key, const Options& options, std::vector<Array>& out) {
  if (is_quantized_param(r)) {
    out.push_back(from_quantized(key, r));
    return;
  }
  if (r.is_map()) {
    for (const auto& [name, child] : r.as_map()) walk(child, key.empty() ? name : key + "." + name, options, out);
    return;
  }
  if (r.is_list()) {
    for (size_t i = 0; i < r.size(); ++i) walk(r.at(i), key + "." + std::to_string(i), options, out);
    return;
  }
  if (!r.is_tensor()) return;
  const TensorData& data = r.as_tensor().data;
  Array a{key, dims_of(key, data.shape()), floats_of(data), {}, {}, 0};
  bool weight = key.ends_with("weight");
  if (listed(options.transpose, key)) {
    if (a.shape.size() != 2)
      throw ShapeError(kOp, "--transpose names '" + key + "' of rank " + std::to_string(a.shape.size()) + ", not 2");
    a.values = transposed(a.values, a.shape[0], a.shape[1]);
    std::swap(a.shape[0], a.shape[1]);
  }
  if (options.int8 && weight && a.shape.size() >= 2 && !listed(options.keep_f32, key) && !a.values.empty()) quantize(a);
  out.push_back(std::move(a));
}

// key as a C++ string literal's contents: quotes, backslashes and every byte outside printable ASCII escaped.
std::string escaped(const std::string& key) {
  std::string out;
  for (unsigned char c : key) {
    if (c == '"' || c == '\\') out += '\\', out += char(c);
    else if (c >= 0x20 && c < 0x7f && c != '?') out += char(c);  // '?': no trigraphs
    else {
      char octal[8];
      std::snprintf(octal, sizeof octal, "\\%03o", c);
      out += octal;
    }
  }
  return out;
}

bool is_keyword(const std::string& id) {
  static const char* const kKeywords[] = {
      "alignas",     "alignof",   "and",        "and_eq",    "asm",      "auto",         "bitand",
      "bitor",       "bool",      "break",      "case",      "catch",    "char",         "char8_t",
      "char16_t",    "char32_t",  "class",      "compl",     "concept",  "const",        "consteval",
      "constexpr",   "constinit", "const_cast", "continue",  "co_await", "co_return",    "co_yield",
      "decltype",    "default",   "delete",     "do",        "double",   "dynamic_cast", "else",
      "enum",        "explicit",  "export",     "extern",    "false",    "float",        "for",
      "friend",      "goto",      "if",         "inline",    "int",      "long",         "mutable",
      "namespace",   "new",       "noexcept",   "not",       "not_eq",   "nullptr",      "operator",
      "or",          "or_eq",     "private",    "protected", "public",   "register",     "reinterpret_cast",
      "requires",    "return",    "short",      "signed",    "sizeof",   "static",       "static_assert",
      "static_cast", "struct",    "switch",     "template",  "this",     "thread_local", "throw",
      "true",        "try",       "typedef",    "typeid",    "typename", "union",        "unsigned",
      "using",       "virtual",   "void",       "volatile",  "wchar_t",  "while",        "xor",
      "xor_eq"};
  for (const char* k : kKeywords)
    if (id == k) return true;
  return false;
}

// A C++ identifier for a config key: other characters as one '_', never a keyword or a reserved name.
std::string identifier(const std::string& key) {
  std::string id;
  for (char c : key) {
    char ch = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (ch != '_' || id.empty() || id.back() != '_') id += ch;
  }
  bool leading = !id.empty() && id[0] == '_';
  if (leading) id.erase(0, 1);  // one '_' at most: runs were collapsed
  if (leading || id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "k_" + id;
  return is_keyword(id) ? id + "_" : id;
}

// Throws unless name is a C++ namespace (identifiers joined by "::").
void check_namespace(const std::string& name) {
  size_t begin = 0;
  while (true) {
    size_t end = name.find("::", begin);
    std::string part = name.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    bool ok = !part.empty() && identifier(part) == part && !std::isdigit(static_cast<unsigned char>(part[0]));
    if (!ok) throw ValueError(kOp, "--namespace '" + name + "' is not a C++ namespace name");
    if (end == std::string::npos) return;
    begin = end + 2;
  }
}

std::string float_text(float v) {
  if (std::isnan(v)) return "__builtin_nanf(\"\")";
  if (std::isinf(v)) return v > 0 ? "__builtin_inff()" : "-__builtin_inff()";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9gf", double(v));
  std::string s = buffer;
  if (s.find_first_of(".e") == std::string::npos) s.insert(s.size() - 1, ".0");
  return s;
}

template <class T, class Text> void write_values(std::ostringstream& out, const std::vector<T>& v, Text text) {
  for (size_t i = 0; i < v.size(); ++i) out << (i % 8 == 0 ? "\n    " : " ") << text(v[i]) << ",";
  out << "\n";
}

// The config's values as constants: numbers, bools, strings and arrays of numbers; objects flattened with '_'.
// Two keys that give one name are an error naming both; seen maps names to keys.
void write_config(std::ostringstream& out, const nlohmann::json& value, const std::string& key,
                  std::map<std::string, std::string>& seen) {
  if (value.is_object()) {
    for (const auto& [k, v] : value.items()) write_config(out, v, key.empty() ? k : key + "_" + k, seen);
    return;
  }
  std::string id = identifier(key);
  if (auto [at, fresh] = seen.emplace(id, key); !fresh)
    throw FormatError(kOp, "config keys '" + at->second + "' and '" + key + "' both become " + id);
  if (value.is_number_unsigned() && value.get<uint64_t>() > uint64_t(INT64_MAX))
    throw ValueError(kOp, "config value '" + key + "' = " + value.dump() + " does not fit a long long");
  if (value.is_boolean()) out << "inline constexpr bool " << id << " = " << (value.get<bool>() ? "true" : "false");
  else if (value.is_number_integer()) out << "inline constexpr long long " << id << " = " << value.dump() << "LL";
  else if (value.is_number()) out << "inline constexpr double " << id << " = " << value.dump();
  else if (value.is_string())
    out << "inline constexpr const char* " << id << " = \"" << escaped(value.get<std::string>()) << "\"";
  else if (value.is_array() && !value.empty() &&
           std::all_of(value.begin(), value.end(), [](auto& e) { return e.is_number(); })) {
    out << "inline constexpr double " << id << "[] = {";
    for (size_t i = 0; i < value.size(); ++i) out << (i ? ", " : "") << value[i].dump();
    out << "}";
  } else return;  // null, empty or nested arrays: not constants a model needs
  out << ";\n";
}

}  // namespace

std::vector<Array> collect(const Record& record, const Options& options) {
  std::vector<Array> out;
  walk(record, "", options, out);
  for (const auto* keys : {&options.keep_f32, &options.transpose})
    for (const std::string& key : *keys)
      if (std::none_of(out.begin(), out.end(), [&](const Array& a) { return a.key == key; }))
        throw FormatError(kOp, "'" + key + "' is not a tensor of the record");
  return out;
}

Generated generate(const std::vector<Array>& arrays, const nlohmann::json& config, const Options& options,
                   const std::string& header_name) {
  check_namespace(options.name_space);
  Generated g;
  for (const Array& a : arrays) g.flash_bytes += a.bytes();
  std::string from = options.source.empty() ? "a record" : std::filesystem::path(options.source).filename().string();
  std::ostringstream h, s;
  h << "#pragma once\n// Generated by scorch-micro-export from " << from << ": do not edit.\n"
    << "#include <cstddef>\n\n#include \"scorch/micro/weights.h\"\n\nnamespace " << options.name_space << " {\n\n"
    << "/// The weights: " << arrays.size() << " arrays, " << g.flash_bytes << " bytes in flash.\n"
    << "extern const scorch::micro::WeightTable weights;\ninline constexpr size_t kWeightBytes = " << g.flash_bytes
    << ";\ninline constexpr bool kInt8 = " << (options.int8 ? "true" : "false") << ";\n\n"
    << "/// The model's config.\nnamespace config {\n";
  std::map<std::string, std::string> seen;
  write_config(h, config, "", seen);
  h << "}  // namespace config\n\n}  // namespace " << options.name_space << "\n";
  s << "// Generated by scorch-micro-export from " << from << ": do not edit.\n#include \"" << header_name
    << "\"\n\nnamespace " << options.name_space << " {\nnamespace {\n\nusing scorch::micro::DType;\n\n";
  for (size_t i = 0; i < arrays.size(); ++i) {
    const Array& a = arrays[i];
    s << "// " << escaped(a.key) << (a.int8() ? " int8" : " f32") << "\n";
    if (a.int8()) {
      s << "alignas(16) const int8_t a" << i << "[] = {";
      write_values(s, a.quantized, [](int8_t v) { return std::to_string(int(v)); });
      if (a.quantized.empty()) s << "0";  // no zero-size arrays in C++
      s << "};\nconst float a" << i << "_scales[] = {";
      write_values(s, a.scales, float_text);
    } else {
      s << "alignas(16) const float a" << i << "[] = {";
      write_values(s, a.values, float_text);
      if (a.values.empty()) s << "0.0f";
    }
    s << "};\n";
  }
  s << "\nconst scorch::micro::Weight kEntries[] = {\n";
  for (size_t i = 0; i < arrays.size(); ++i) {
    const Array& a = arrays[i];
    s << "    {\"" << escaped(a.key) << "\", DType::" << (a.int8() ? "i8" : "f32") << ", {";
    for (size_t d = 0; d < a.shape.size(); ++d) s << (d ? ", " : "") << a.shape[d] << "u";
    s << "}, a" << i << ", " << (a.int8() ? "a" + std::to_string(i) + "_scales" : "nullptr") << ", " << a.axis
      << "u},\n";
  }
  if (arrays.empty()) s << "    {\"\", DType::f32, {}, nullptr, nullptr, 0u},\n";
  s << "};\n\n}  // namespace\n\nconst scorch::micro::WeightTable weights{kEntries, " << arrays.size()
    << "};\n\n}  // namespace " << options.name_space << "\n";
  g.header = h.str();
  g.source = s.str();
  return g;
}

std::vector<micro::Weight> table_entries(const std::vector<Array>& arrays) {
  std::vector<micro::Weight> entries;
  for (const Array& a : arrays) {
    micro::Shape shape;
    for (uint32_t d : a.shape) shape = shape.append(d);
    const void* data = a.int8() ? static_cast<const void*>(a.quantized.data()) : a.values.data();
    entries.push_back({a.key.c_str(), a.int8() ? micro::DType::i8 : micro::DType::f32, shape, data,
                       a.int8() ? a.scales.data() : nullptr, a.axis});
  }
  return entries;
}

Record load_record(const std::string& path) {
  auto ends = [&](const char* suffix) { return path.ends_with(suffix); };
  using formats::Format;
  if (ends(".onnx")) {  // the initializers under their names ("conv1.weight" from PyTorch's exporter)
    Record r = Record::map();
    for (auto& [name, data] : onnx::read_model(path).graph.initializers) r.set(name, Record(std::move(data)));
    return r;
  }
  if (ends(".safetensors")) return detail::load_safetensors(path, {});
  if (ends(".mpk")) return detail::load_record_file(path, Format::NamedMpk, false);
  if (ends(".mpk.gz")) return detail::load_record_file(path, Format::NamedMpk, true);
  if (ends(".bin")) return detail::load_record_file(path, Format::Bin, false);
  if (ends(".bin.gz")) return detail::load_record_file(path, Format::Bin, true);
  if (ends(".json")) return detail::load_record_file(path, Format::PrettyJson, false);
  if (ends(".json.gz")) return detail::load_record_file(path, Format::Json, true);
  throw FormatError(kOp, "'" + path +
                             "': expected a record (.mpk, .mpk.gz, .bin, .bin.gz, .json, .json.gz, "
                             ".safetensors) or an ONNX model (.onnx)");
}

}  // namespace scorch::micro_export

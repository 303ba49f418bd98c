#include "scorch/module/quantized_record.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "scorch/core/bit_cast.h"
#include "scorch/core/error.h"

namespace scorch {
namespace {

constexpr const char* kOp = "load_record";

// A message without its "[op] " head.
std::string strip(const char* what) {
  std::string m(what);
  size_t head = m.find("] ");
  return m.starts_with("[") && head != std::string::npos ? m.substr(head + 2) : m;
}

const TensorData& tensor_at(const Record& r, const char* key) {
  const Record* entry = r.find(key);
  if (!entry || !entry->is_tensor())
    throw FormatError(kOp, std::string("quantized parameter: '") + key + "' must be a tensor");
  return entry->as_tensor().data;
}

std::vector<int64_t> ints_at(const Record& r, const char* key, size_t count) {
  const TensorData& t = tensor_at(r, key);
  if (!is_int(t.dtype()) || t.shape() != Shape{count})
    throw FormatError(kOp, std::string("quantized parameter: '") + key + "' must be an integer tensor [" +
                               std::to_string(count) + "], found " + std::string(dtype_name(t.dtype())) +
                               t.shape().to_string());
  return t.convert(DType::I64).to_vector<int64_t>();
}

template <class E> E enum_of(int64_t v, int64_t count, const char* what) {
  if (v < 0 || v >= count)
    throw FormatError(kOp, std::string("quantized parameter: unknown ") + what + " " + std::to_string(v));
  return static_cast<E>(v);
}

QuantScheme scheme_of(const std::vector<int64_t>& v) {
  QuantScheme s;
  s.value = enum_of<QuantValue>(v[0], 3, "value type");
  s.mode = enum_of<QuantMode>(v[1], 2, "mode");
  s.level = enum_of<QuantLevel>(v[2], 3, "level");
  if (v[3] < 0 || v[4] <= 0) throw FormatError(kOp, "quantized parameter: negative axis or block size");
  s.axis = static_cast<size_t>(v[3]);
  s.block_size = static_cast<size_t>(v[4]);
  return s;
}

InputQuant input_of(const std::vector<int64_t>& v) {
  InputQuant q;
  q.dynamic = v[0] != 0;
  q.reduce_range = v[1] != 0;
  q.value = enum_of<QuantValue>(v[2], 3, "input value type");
  if (v[3] < 0 || v[3] > int64_t{0xffffffff})
    throw FormatError(kOp, "quantized parameter: input scale bits out of range");
  float scale = scorch::bit_cast<float>(static_cast<uint32_t>(v[3]));
  QuantRange r = quant_range(q.value);
  if (!q.dynamic && (!std::isfinite(scale) || !(scale > 0) || v[4] < r.qmin || v[4] > r.qmax))
    throw FormatError(kOp, "quantized parameter: input scale " + std::to_string(scale) + " and offset " +
                               std::to_string(v[4]) + " do not fit " + std::string(quant_value_name(q.value)));
  q.scale = scale;
  q.offset = v[4];
  q.weight_only = v[5] != 0;
  return q;
}

// Values saved in any integer dtype (recorders may widen them) back in their storage dtype; throws on a value
// outside it.
TensorData stored_values(const TensorData& values, DType storage) {
  if (values.dtype() == storage) return values;
  double lo = storage == DType::I8 ? -128 : 0, hi = storage == DType::I8 ? 127 : 255;
  for (size_t i = 0; i < values.num_elements(); ++i)  // element by element: no wide copy of file data
    if (double v = values.value_at(i); v < lo || v > hi)
      throw FormatError(kOp, "quantized parameter: value " + std::to_string(static_cast<int64_t>(v)) +
                                 " does not fit " + std::string(dtype_name(storage)));
  return values.convert(storage);
}

// The logical shape the stored values stand for, checked against the scheme.
Shape logical_shape(const QuantizedRecord& q, size_t rank) {
  if (!is_int(q.values.dtype()))
    throw DTypeError(kOp, "quantized parameter: " + to_string(q.scheme) + " values must be integers, found " +
                              std::string(dtype_name(q.values.dtype())));
  Shape shape = q.values.shape();
  if (shape.rank() != rank)
    throw ShapeError(
        kOp, "quantized parameter: values " + shape.to_string() + ", module expects rank " + std::to_string(rank));
  if (q.scheme.value == QuantValue::Q4) shape[rank - 1] *= 2;
  if (q.scheme.level != QuantLevel::Tensor && q.scheme.axis >= rank)
    throw ShapeError(kOp, "quantized parameter: axis " + std::to_string(q.scheme.axis) + " of a rank-" +
                              std::to_string(rank) + " tensor");
  return shape;
}

}  // namespace

bool is_quantized_record(const Record& r) { return r.is_map() && r.find("scheme") != nullptr; }

Record quantized_record(QuantizedRecord q) {
  const QuantScheme& s = q.scheme;
  std::vector<int64_t> scheme{int64_t(s.value), int64_t(s.mode), int64_t(s.level), int64_t(s.axis),
                              int64_t(s.block_size)};
  const InputQuant& in = q.input;
  std::vector<int64_t> input{in.dynamic,        in.reduce_range,
                             int64_t(in.value), int64_t(scorch::bit_cast<uint32_t>(static_cast<float>(in.scale))),
                             in.offset,         in.weight_only};
  Record r = Record::map();
  r.set("values", Record(std::move(q.values), q.param_id));
  r.set("scales", Record(std::move(q.scales)));
  r.set("offsets", Record(std::move(q.offsets)));
  r.set("scheme", Record(TensorData(scheme, Shape{5})));
  r.set("input", Record(TensorData(input, Shape{6})));
  r.set("dtype", Record(TensorData(std::vector<int64_t>{int64_t(q.dtype)}, Shape{1})));
  return r;
}

QuantizedRecord read_quantized_record(const Record& r, size_t rank, const std::string& where) try {
  QuantizedRecord q;
  q.scheme = scheme_of(ints_at(r, "scheme", 5));
  q.input = input_of(ints_at(r, "input", 6));
  if (r.find("dtype")) {
    int64_t code = ints_at(r, "dtype", 1)[0];
    if (code < 0 || code > int64_t(DType::Bool) || !is_float(static_cast<DType>(code)))
      throw FormatError(kOp, "quantized parameter: dtype code " + std::to_string(code) + " is not a float dtype");
    q.dtype = static_cast<DType>(code);
  }
  q.param_id = r.at("values").is_tensor() ? r.at("values").as_tensor().param_id : 0;
  q.values = tensor_at(r, "values");
  q.scales = tensor_at(r, "scales");
  q.offsets = tensor_at(r, "offsets");
  for (const auto& [key, value] : r.as_map())
    if (key != "values" && key != "scales" && key != "offsets" && key != "scheme" && key != "input" && key != "dtype")
      throw FormatError(kOp, "quantized parameter: unexpected key '" + key + "'");
  Shape shape = logical_shape(q, rank);
  Shape params = quant::params_shape(shape, q.scheme);
  if (!is_float(q.scales.dtype()) || q.scales.shape() != params)
    throw ShapeError(kOp, "quantized parameter: scales must be float " + params.to_string() + " for " +
                              shape.to_string() + " (" + to_string(q.scheme) + "), found " +
                              std::string(dtype_name(q.scales.dtype())) + q.scales.shape().to_string());
  if (!is_int(q.offsets.dtype()) || !quant::offsets_fit(q.offsets.shape(), params))
    throw ShapeError(kOp, "quantized parameter: offsets must be integer " + params.to_string() +
                              " (or all 1s), found " + std::string(dtype_name(q.offsets.dtype())) +
                              q.offsets.shape().to_string());
  q.values = stored_values(q.values, q.scheme.value == QuantValue::Int8 ? DType::I8 : DType::U8);
  return q;
} catch (const FormatError& e) { throw FormatError(kOp, where + strip(e.what())); } catch (const ShapeError& e) {
  throw ShapeError(kOp, where + strip(e.what()));
} catch (const DTypeError& e) { throw DTypeError(kOp, where + strip(e.what())); }

}  // namespace scorch

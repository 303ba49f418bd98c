#include "harness.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

namespace scorch::conformance {
namespace {

double decode_float(const nlohmann::json& v) {
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    return s == "inf" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  }
  return v.get<double>();
}

Tolerance default_tolerance(DType dtype) {
  switch (dtype) {
    case DType::F64: return {1e-12, 1e-12};
    case DType::F32: return {1e-5, 1e-6};
    case DType::F16:
    case DType::BF16: return {1e-2, 1e-3};
    default: return Tolerance::strict();
  }
}

}  // namespace

TensorData decode_tensor(const nlohmann::json& j) {
  DType dtype = dtype_from_name(j.at("dtype").get<std::string>());
  Shape shape(j.at("shape").get<std::vector<size_t>>());
  const auto& data = j.at("data");
  if (is_bool(dtype)) {
    std::vector<bool> v;
    for (const auto& x : data) v.push_back(x.get<bool>());
    return TensorData(v, shape);
  }
  if (is_int(dtype)) return TensorData(data.get<std::vector<int64_t>>(), shape).convert(dtype);
  std::vector<double> v;
  for (const auto& x : data) v.push_back(decode_float(x));
  return TensorData(v, shape).convert(dtype);
}

std::vector<Fixture> load_fixtures(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw IoError("load_fixtures", "cannot open " + path);
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(file);
  } catch (const nlohmann::json::exception& e) { throw FormatError("load_fixtures", path + ": " + e.what()); }
  std::vector<Fixture> out;
  for (const auto& c : root.at("cases")) {
    Fixture f;
    f.name = c.at("name").get<std::string>();
    for (const auto& t : c.at("inputs")) f.inputs.push_back(decode_tensor(t));
    for (const auto& t : c.at("outputs")) f.outputs.push_back(decode_tensor(t));
    f.error = c.value("error", false);
    f.lenient = c.value("lenient", false);
    f.torch_error = c.value("torch_error", "");
    if (c.contains("tolerance"))
      f.tolerance = Tolerance{c["tolerance"][0].get<double>(), c["tolerance"][1].get<double>()};
    out.push_back(std::move(f));
  }
  return out;
}

TensorData duplicate_last_dim(const TensorData& data) {
  Shape shape = data.shape();
  size_t width = dtype_size(data.dtype()), n = data.num_elements();
  shape[shape.rank() - 1] *= 2;
  std::vector<std::byte> bytes(2 * n * width);
  auto src = data.bytes();
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(bytes.data() + 2 * i * width, src.data() + i * width, width);
    std::memcpy(bytes.data() + (2 * i + 1) * width, src.data() + i * width, width);
  }
  return TensorData::from_bytes(std::move(bytes), shape, data.dtype());
}

// expected with actual's value wherever either of them is NaN or ±inf.
TensorData take_spread_nonfinite(const TensorData& expected, const TensorData& actual) {
  if (!(expected.shape() == actual.shape())) return expected;
  std::vector<double> values(expected.num_elements());
  for (size_t i = 0; i < values.size(); ++i) {
    double e = expected.value_at(i), a = actual.value_at(i);
    values[i] = std::isfinite(e) && std::isfinite(a) ? e : a;
  }
  return TensorData(values, expected.shape()).convert(expected.dtype());
}

void expect_match(const TensorData& expected, const TensorData& actual, std::optional<Tolerance> tolerance,
                  bool spread_nonfinite) {
  if (expected.dtype() != actual.dtype())
    throw AssertionError("conformance", std::string("dtype ") + std::string(dtype_name(actual.dtype())) +
                                            ", expected " + std::string(dtype_name(expected.dtype())));
  if (spread_nonfinite && is_float(expected.dtype()))
    return expect_match(take_spread_nonfinite(expected, actual), actual, tolerance, false);
  if (is_float(expected.dtype()))
    expected.assert_approx_eq(actual, tolerance.value_or(default_tolerance(expected.dtype())));
  else expected.assert_eq(actual);
}

}  // namespace scorch::conformance

#include "scorch/core/quant_scheme.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <charconv>
#include <vector>

#include "scorch/core/error.h"

namespace scorch {
namespace {

constexpr std::array<std::string_view, 3> kValueNames = {"int8", "uint8", "q4"};
constexpr std::array<std::string_view, 2> kModeNames = {"symmetric", "affine"};
constexpr std::array<std::string_view, 3> kLevelNames = {"tensor", "channel", "block"};

template <class E, size_t N>
E parse_name(const std::array<std::string_view, N>& names, std::string_view word, std::string_view text) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == word) return static_cast<E>(i);
  throw FormatError("parse_quant_scheme", "unknown word '" + std::string(word) + "' in '" + std::string(text) + "'");
}

size_t parse_count(std::string_view word, std::string_view key, std::string_view text) {
  size_t value = 0;
  std::string_view digits = word.substr(key.size());
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty())
    throw FormatError("parse_quant_scheme", "bad number in '" + std::string(word) + "' of '" + std::string(text) + "'");
  return value;
}

std::vector<std::string_view> words_of(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find(' ', i);
    if (j == std::string_view::npos) j = text.size();
    if (j > i) words.push_back(text.substr(i, j - i));
    i = j + 1;
  }
  return words;
}

}  // namespace

QuantRange quant_range(QuantValue value, bool reduce_range) {
  QuantRange r = value == QuantValue::Int8    ? QuantRange{-128, 127}
                 : value == QuantValue::UInt8 ? QuantRange{0, 255}
                                              : QuantRange{-8, 7};
  if (reduce_range) r = {r.qmin / 2, r.qmax / 2};
  return r;
}

std::string_view quant_value_name(QuantValue value) { return kValueNames.at(static_cast<size_t>(value)); }
std::string_view quant_mode_name(QuantMode mode) { return kModeNames.at(static_cast<size_t>(mode)); }
std::string_view quant_level_name(QuantLevel level) { return kLevelNames.at(static_cast<size_t>(level)); }

std::string to_string(const QuantScheme& s) {
  return std::string(quant_value_name(s.value)) + " " + std::string(quant_mode_name(s.mode)) + " " +
         std::string(quant_level_name(s.level)) + " axis=" + std::to_string(s.axis) +
         " block=" + std::to_string(s.block_size);
}

QuantScheme parse_quant_scheme(std::string_view text) {
  auto words = words_of(text);
  if (words.size() != 5 || !words[3].starts_with("axis=") || !words[4].starts_with("block="))
    throw FormatError("parse_quant_scheme",
                      "expected '<value> <mode> <level> axis=N block=N', found '" + std::string(text) + "'");
  QuantScheme s;
  s.value = parse_name<QuantValue>(kValueNames, words[0], text);
  s.mode = parse_name<QuantMode>(kModeNames, words[1], text);
  s.level = parse_name<QuantLevel>(kLevelNames, words[2], text);
  s.axis = parse_count(words[3], "axis=", text);
  s.block_size = parse_count(words[4], "block=", text);
  if (s.block_size == 0) throw FormatError("parse_quant_scheme", "block size 0 in '" + std::string(text) + "'");
  return s;
}

namespace quant {

void check_scheme(const char* op, const Shape& shape, const QuantScheme& scheme) {
  std::string what = to_string(scheme) + " for " + shape.to_string();
  if (shape.rank() == 0) throw ShapeError(op, "cannot quantize a rank-0 tensor (" + what + ")");
  if (scheme.level != QuantLevel::Tensor && scheme.axis >= shape.rank())
    throw ShapeError(op, "axis " + std::to_string(scheme.axis) + " is outside the rank (" + what + ")");
  if (scheme.level == QuantLevel::Block && scheme.block_size == 0) throw ValueError(op, "block size 0 (" + what + ")");
  if (scheme.value == QuantValue::Q4 && shape[shape.rank() - 1] % 2 != 0)
    throw ShapeError(op, "q4 packs pairs along the last dim, which must be even (" + what + ")");
}

Shape params_shape(const Shape& shape, const QuantScheme& scheme) {
  Shape out = shape;
  for (size_t d = 0; d < shape.rank(); ++d) {
    if (scheme.level == QuantLevel::Block && d == scheme.axis)
      out[d] = shape[d] / scheme.block_size + (shape[d] % scheme.block_size != 0);
    else if (scheme.level == QuantLevel::Tensor || (scheme.level == QuantLevel::Channel && d != scheme.axis))
      out[d] = 1;
  }
  return out;
}

bool scheme_fits(const Shape& shape, const QuantScheme& scheme) {
  if (shape.rank() == 0 || (scheme.level != QuantLevel::Tensor && scheme.axis >= shape.rank())) return false;
  if (scheme.level == QuantLevel::Block && scheme.block_size == 0) return false;
  return scheme.value != QuantValue::Q4 || shape[shape.rank() - 1] % 2 == 0;
}

void check_params(const char* op, const Shape& shape, const Shape& scales, const Shape& offsets,
                  const QuantScheme& scheme) {
  check_scheme(op, shape, scheme);
  Shape expected = params_shape(shape, scheme);
  if (scales != expected || !offsets_fit(offsets, expected))
    throw ShapeError(op, "scales " + scales.to_string() + " and offsets " + offsets.to_string() + " must be " +
                             expected.to_string() + " (offsets may be all 1s) for " + shape.to_string() + " (" +
                             to_string(scheme) + ")");
}

void check_linear(const char* op, const Shape& x, const Shape& weight, const Shape& scales, const Shape& offsets,
                  const QuantScheme& scheme, const Shape* bias) {
  if (x.rank() != 2 || weight.rank() != 2 || x[1] != weight[0])
    throw ShapeError(op, "input " + x.to_string() + " and weight " + weight.to_string() + " must be [m, k] and [k, n]");
  check_params(op, weight, scales, offsets, scheme);
  if (bias && *bias != Shape{weight[1]})
    throw ShapeError(op, "bias " + bias->to_string() + " must be [" + std::to_string(weight[1]) + "]");
}

bool offsets_fit(const Shape& offsets, const Shape& params) {
  if (offsets == params) return true;
  if (offsets.rank() != params.rank()) return false;
  for (size_t d = 0; d < offsets.rank(); ++d)
    if (offsets[d] != 1) return false;
  return true;
}

Shape stored_shape(const Shape& shape, const QuantScheme& scheme) {
  Shape out = shape;
  if (scheme.value == QuantValue::Q4 && out.rank() > 0) out[out.rank() - 1] /= 2;
  return out;
}

}  // namespace quant

namespace {
thread_local QuantInputObserver* current_observer = nullptr;
}  // namespace

QuantInputObserver* quant_input_observer() { return current_observer; }
QuantInputObserver* set_quant_input_observer(QuantInputObserver* observer) {
  QuantInputObserver* previous = current_observer;
  current_observer = observer;
  return previous;
}

size_t quant_value_bytes(QuantValue value, size_t elements) {
  return value == QuantValue::Q4 ? (elements + 1) / 2 : elements;
}

}  // namespace scorch

#pragma once
// Helpers for the micro runtime's tests: weight tables from a hosted layer's record (through scorch-micro-export's
// collect(), as the firmware gets them) and one-layer graphs run over a heap arena.
#include <vector>

#include "scorch/micro/export/micro_export.h"
#include "scorch/micro/micro.h"
#include "scorch/scorch.hpp"

namespace scorch::micro_test {

/// A WeightTable over arrays exported from a record (int8 weights when asked).
struct Table {
  std::vector<micro_export::Array> arrays;
  std::vector<micro::Weight> entries;
  explicit Table(const Record& record, bool int8 = false) : Table(record, int8_options(int8)) {}
  Table(const Record& record, const micro_export::Options& options) {
    arrays = micro_export::collect(record, options);
    entries = micro_export::table_entries(arrays);
  }
  Table(const Table&) = delete;
  static micro_export::Options int8_options(bool int8) {
    micro_export::Options options;
    options.int8 = int8;
    return options;
  }
  micro::WeightTable table() const { return {entries.data(), entries.size()}; }
};

/// A micro shape from a hosted one.
inline micro::Shape micro_shape(const Shape& s) {
  micro::Shape out;
  for (size_t d : s) out = out.append(uint32_t(d));
  return out;
}

/// A 16-byte-aligned arena of at least bytes.
struct Arena {
  std::vector<uint8_t> storage;
  explicit Arena(size_t bytes) : storage(bytes + 16) {}
  void* data() { return storage.data() + (16 - reinterpret_cast<uintptr_t>(storage.data()) % 16) % 16; }
};

/// The values of a hosted tensor.
template <size_t D> std::vector<float> values(const Tensor<Cpu, D>& t) {
  return t.into_data().convert(DType::F32).template to_vector<float>();
}

/// layer on x (and y, for two-input layers) through a graph; the output's values and shape.
inline std::pair<std::vector<float>, micro::Shape> run(const micro::Layer& layer, const micro::Shape& shape,
                                                       const std::vector<float>& x,
                                                       const std::vector<float>* y = nullptr) {
  micro::Graph<4> g;
  micro::Value a = g.input(shape);
  micro::Value out = y ? g.add(layer, a, g.input(shape)) : g.add(layer, a);
  g.finish(out);
  Arena arena(g.arena_bytes());
  std::vector<float> result(g.shape(out).numel());
  const float* inputs[2] = {x.data(), y ? y->data() : nullptr};
  g.run(arena.data(), g.arena_bytes(), inputs, result.data());
  return {result, g.shape(out)};
}

/// Every value of actual within tolerance of expected (relative to max(1, |expected|)).
inline void expect_close(const std::vector<float>& actual, const std::vector<float>& expected, float tolerance) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    float scale = std::max(1.0f, std::fabs(expected[i]));
    if (std::isnan(expected[i])) EXPECT_TRUE(std::isnan(actual[i])) << "at " << i;
    else if (std::isinf(expected[i])) EXPECT_EQ(actual[i], expected[i]) << "at " << i;
    else EXPECT_NEAR(actual[i], expected[i], tolerance * scale) << "at " << i;
  }
}

}  // namespace scorch::micro_test

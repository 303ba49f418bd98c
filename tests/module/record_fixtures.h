#pragma once
// Records for recorder tests: an optimizer-like tree of every value kind, and helpers to
// compare a reloaded record with the original under a precision setting.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include <scorch/scorch.hpp>

#include "support/temp_dir.h"

namespace scorch::testing {

/// Every kind of value: scalars, strings, nulls, nested lists/maps and tensors of many dtypes.
inline Record optimizer_like_record() {
  Record moments = Record::list();
  for (int i = 0; i < 2; ++i)
    moments.push(Record::map()
                     .set("m", Record(TensorData({0.5f * i, -1.25f, 3.0f, 1e-3f}, Shape{2, 2}), 0x1234 + i))
                     .set("v", Record(TensorData({1.0, 2.0, 1e-8}, Shape{3})))
                     .set("step", i));
  return Record::map()
      .set("name", "adam")
      .set("lr", 1e-3)
      .set("step", int64_t{1} << 40)
      .set("negative", -7)
      .set("amsgrad", false)
      .set("clip", Record())
      .set("moments", moments)
      .set("small_ints", Record(TensorData(std::vector<int64_t>{-3, 0, 7, 30000}, Shape{4})))
      .set("big_ints", Record(TensorData(std::vector<int64_t>{1, int64_t{1} << 40}, Shape{2})))
      .set("mask", Record(TensorData(std::vector<bool>{true, false, true}, Shape{3})))
      .set("bytes", Record(TensorData(std::vector<uint8_t>{0, 128, 255}, Shape{3})))
      .set("special", Record(TensorData({NAN, INFINITY, -INFINITY, 0.0f}, Shape{4})))
      .set("empty", Record(TensorData(std::vector<float>{}, Shape{0, 3})))
      .set("nested", Record::map().set(
                         "deep", Record::map().set("list", Record(Record::List{Record(1), Record(2.5), Record("x")}))));
}

/// The dtype a tensor of dtype d is stored in under precision p (ints narrow only when every value fits).
inline DType stored_dtype(DType d, formats::Precision p, bool ints_fit_i16) {
  using formats::Precision;
  if (is_float(d)) return p == Precision::Half ? DType::F16 : p == Precision::Full ? DType::F32 : DType::F64;
  if (d == DType::I64 && ints_fit_i16)
    return p == Precision::Half ? DType::I16 : p == Precision::Full ? DType::I32 : DType::I64;
  return d;
}

/// Checks loaded against original: non-tensors exactly, tensors in their stored dtype and within the precision's
/// tolerance.
inline void expect_same_record(const Record& original, const Record& loaded, formats::Precision p,
                               const std::string& path = "") {
  ASSERT_EQ(original.kind(), loaded.kind()) << path;
  switch (original.kind()) {
    case RecordKind::Tensor: {
      const auto& a = original.as_tensor();
      const auto& b = loaded.as_tensor();
      EXPECT_EQ(a.param_id, b.param_id) << path;
      bool fits = path != "big_ints";
      EXPECT_EQ(b.data.dtype(), stored_dtype(a.data.dtype(), p, fits)) << path;
      ASSERT_EQ(a.data.shape(), b.data.shape()) << path;
      double tolerance = p == formats::Precision::Half ? 1e-3 : p == formats::Precision::Full ? 1e-7 : 0;
      for (size_t i = 0; i < a.data.num_elements(); ++i) {
        double x = a.data.value_at(i), y = b.data.value_at(i);
        if (std::isnan(x)) EXPECT_TRUE(std::isnan(y)) << path << "[" << i << "]";
        else if (std::isinf(x)) EXPECT_EQ(x, y) << path;
        else EXPECT_LE(std::abs(x - y), tolerance * std::max(1.0, std::abs(x))) << path << "[" << i << "]";
      }
      return;
    }
    case RecordKind::List:
      ASSERT_EQ(original.size(), loaded.size()) << path;
      for (size_t i = 0; i < original.size(); ++i)
        expect_same_record(original.at(i), loaded.at(i), p, path + "." + std::to_string(i));
      return;
    case RecordKind::Map: {
      ASSERT_EQ(original.size(), loaded.size()) << path;
      for (size_t i = 0; i < original.size(); ++i) {
        const auto& [k, v] = original.as_map()[i];
        EXPECT_EQ(k, loaded.as_map()[i].first) << path;
        expect_same_record(v, loaded.as_map()[i].second, p, path.empty() ? k : path + "." + k);
      }
      return;
    }
    default: EXPECT_EQ(original, loaded) << path;
  }
}

}  // namespace scorch::testing

#include <gtest/gtest.h>

#include "scorch/core/error.h"
#include "scorch/core/shape.h"

namespace scorch {
namespace {

TEST(Shape, BasicsAndEdits) {
  Shape s{2, 3, 4};
  EXPECT_EQ(s.rank(), 3u);
  EXPECT_EQ(s.num_elements(), 24u);
  EXPECT_EQ(s.to_string(), "[2, 3, 4]");
  s.insert(1, 5);
  EXPECT_EQ(s, (Shape{2, 5, 3, 4}));
  s.remove(0);
  EXPECT_EQ(s, (Shape{5, 3, 4}));
  EXPECT_EQ(contiguous_strides(s)[0], 12);
  EXPECT_THROW(Shape({1, 1, 1, 1, 1, 1, 1, 1, 1}), ShapeError);
}

TEST(Shape, BroadcastAndDims) {
  EXPECT_EQ(broadcast_shapes("add", Shape{2, 1}, Shape{1, 3}), (Shape{2, 3}));
  EXPECT_THROW(broadcast_shapes("add", Shape{2, 3}, Shape{3, 2}), ShapeError);
  EXPECT_THROW(broadcast_shapes("add", Shape{2, 3}, Shape{3}), ShapeError);
  EXPECT_EQ(normalize_dim("sum", -1, 3), 2u);
  EXPECT_THROW(normalize_dim("sum", 3, 3), ShapeError);
  try {
    broadcast_shapes("add", Shape{2, 3}, Shape{4, 3});
  } catch (const ShapeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[add] lhs [2, 3] and rhs [4, 3]", 0), 0u) << e.what();
  }
}

TEST(Shape, CheckedCountsRejectOverflow) {
  constexpr size_t k2To32 = size_t{1} << 32;
  EXPECT_EQ(Shape({2, 3, 4}).checked_num_elements(), 24u);
  EXPECT_EQ(Shape{}.checked_num_elements(), 1u);
  EXPECT_EQ(Shape({k2To32, k2To32}).num_elements(), 0u);  // the unchecked product wraps
  EXPECT_EQ(Shape({k2To32, k2To32}).checked_num_elements(), std::nullopt);
  EXPECT_EQ(Shape({size_t{1} << 63}).checked_num_elements(), std::nullopt);  // beyond INT64_MAX
  EXPECT_EQ(Shape({size_t{1} << 62}).checked_num_elements(), size_t{1} << 62);
  EXPECT_EQ(Shape({size_t{1} << 62}).checked_num_bytes(4), std::nullopt);
  EXPECT_EQ(Shape({k2To32, 0, 7}).checked_num_elements(), 0u);
  EXPECT_EQ(Shape({k2To32, k2To32, 0}).checked_num_elements(), std::nullopt);  // its nonzero dims overflow
  EXPECT_EQ(checked_mul(kMaxElements, 1), kMaxElements);
  EXPECT_EQ(checked_mul(kMaxElements, 2), std::nullopt);
  std::vector<size_t> idx_dims(255, 0xffffffff);
  EXPECT_EQ(checked_product(idx_dims), std::nullopt);
}

}  // namespace
}  // namespace scorch

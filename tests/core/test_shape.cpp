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

}  // namespace
}  // namespace scorch

// The micro runtime's freestanding error policy on the host: built with SCORCH_MICRO_RETURN_STATUS (as the firmware,
// without exceptions), every error comes back as a Status and the graph keeps the first one.
#include <gtest/gtest.h>

#include "scorch/micro/micro.h"

namespace {

namespace micro = scorch::micro;
static_assert(!SCORCH_MICRO_THROWS, "this test builds the returning policy");

const float kWeight[6] = {1, 2, 3, 4, 5, 6};  // [3, 2]: d_input 3, d_output 2
const float kBias[2] = {0.5f, -0.5f};
const micro::Weight kEntries[] = {{"fc.weight", micro::DType::f32, {3, 2}, kWeight, nullptr, 0},
                                  {"fc.bias", micro::DType::f32, {2}, kBias, nullptr, 0}};
const micro::WeightTable kTable{kEntries, 2};

TEST(MicroStatus, ErrorsComeBackAsAStatus) {
  micro::Linear fc;
  ASSERT_TRUE(fc.load(kTable, "fc").ok());
  micro::Status missing = fc.load(kTable, "head");
  EXPECT_EQ(missing.code, micro::Code::missing);
  EXPECT_STREQ(missing.message, "micro::Linear: no weight 'head.weight' in the table");

  micro::Graph<3> g;
  micro::Value x = g.input({2, 4});
  EXPECT_EQ(g.add(fc, x), micro::kNone);
  EXPECT_EQ(g.status().code, micro::Code::shape);
  EXPECT_STREQ(g.status().message, "micro::Linear: input [2, 4] should end in d_input 3");
  EXPECT_EQ(g.finish(x).code, micro::Code::shape);  // the first error sticks
}

TEST(MicroStatus, RunsAndReportsAShortArena) {
  micro::Linear fc;
  ASSERT_TRUE(fc.load(kTable, "fc").ok());
  micro::Graph<3> g;
  ASSERT_TRUE(g.finish(g.add(fc, g.input({1, 3}))).ok());
  alignas(16) unsigned char arena[64];
  float in[3] = {1, 1, 1}, out[2];
  EXPECT_EQ(g.run(arena, g.arena_bytes() - 1, in, out).code, micro::Code::arena);
  ASSERT_TRUE(g.run(arena, sizeof arena, in, out).ok());
  EXPECT_EQ(out[0], 1 + 3 + 5 + 0.5f);
  EXPECT_EQ(out[1], 2 + 4 + 6 - 0.5f);
}

}  // namespace

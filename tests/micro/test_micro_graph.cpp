// The micro runtime's graph: arena planning (reuse, in-place layers, views), residual wiring, and the errors a
// hosted build throws (the freestanding build returns them: test_micro_status.cpp).
#include <gtest/gtest.h>

#include "micro_harness.h"

namespace scorch::micro_test {
namespace {

Record linear_record(size_t in, size_t out, uint64_t seed) {
  Cpu::seed(seed);
  return nn::LinearConfig(in, out).init<Cpu>().into_record();
}

TEST(MicroGraph, PlanReusesBuffersThatAreNoLongerRead) {
  Record r = Record::map();
  r.set("a", linear_record(16, 32, 1)).set("b", linear_record(32, 32, 2)).set("c", linear_record(32, 4, 3));
  Table t(r);
  micro::Linear a, b, c;
  micro::Relu relu;
  a.load(t.table(), "a"), b.load(t.table(), "b"), c.load(t.table(), "c");
  micro::Graph<8> g;
  micro::Value x = g.input({1, 16});
  x = g.add(relu, g.add(a, x));  // relu runs in place over a's output
  x = g.add(relu, g.add(b, x));
  g.finish(g.add(c, x));
  // a's output (128 B), then b's (128 B) while a's is read, then c's (16 B) over a's freed buffer.
  EXPECT_EQ(g.arena_bytes(), 256u);
  EXPECT_EQ(g.unplanned_bytes(), 128u * 4 + 16u);  // every layer's output on its own
  EXPECT_EQ(g.node(2).root, 1);                    // the first relu writes over a's output
  // The plan's values equal the hosted layers' chain.
  auto input = Tensor<Cpu, 2>::random({1, 16}, Distribution::normal(0.0, 1.0));
  auto la = nn::LinearConfig(16, 32).init_with<Cpu>(r.at("a")), lb = nn::LinearConfig(32, 32).init_with<Cpu>(r.at("b"));
  auto lc = nn::LinearConfig(32, 4).init_with<Cpu>(r.at("c"));
  auto expected = lc.forward(activation::relu(lb.forward(activation::relu(la.forward(input)))));
  Arena arena(g.arena_bytes());
  std::vector<float> in = values(input), out(4);
  g.run(arena.data(), g.arena_bytes(), in.data(), out.data());
  expect_close(out, values(expected), 1e-5f);
}

TEST(MicroGraph, ResidualAddKeepsTheSkippedValueAlive) {
  Record r = Record::map();
  r.set("f", linear_record(8, 8, 4));
  Table t(r);
  micro::Linear f;
  micro::Add add;
  micro::Gelu gelu;
  f.load(t.table(), "f");
  micro::Graph<6> g;
  micro::Value x = g.input({2, 8});
  micro::Value h = g.add(gelu, g.add(f, x));
  g.finish(g.add(add, h, x));  // x + gelu(f(x)); x is the caller's buffer, read in place
  auto input = Tensor<Cpu, 2>::random({2, 8}, Distribution::normal(0.0, 1.0));
  auto lf = nn::LinearConfig(8, 8).init_with<Cpu>(r.at("f"));
  Arena arena(g.arena_bytes());
  std::vector<float> in = values(input), out(16);
  g.run(arena.data(), g.arena_bytes(), in.data(), out.data());
  expect_close(out, values(activation::gelu(lf.forward(input)) + input), 1e-5f);
}

TEST(MicroGraph, AViewOfTheInputNeedsNoArena) {
  micro::Graph<3> g;
  micro::Flatten flatten;
  g.finish(g.add(flatten, g.input({2, 3, 4})));
  EXPECT_EQ(g.arena_bytes(), 0u);
  std::vector<float> in(24), out(24);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(i);
  g.run(nullptr, 0, in.data(), out.data());
  EXPECT_EQ(out, in);
}

TEST(MicroGraph, ErrorsNameTheLayerAndTheShapes) {
  Table t(linear_record(32, 10, 5));
  micro::Linear linear;
  linear.load(t.table(), "");
  micro::Graph<4> g;
  micro::Value x = g.input({1, 1, 28, 28});
  try {
    g.add(linear, x);
    FAIL() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(), "[micro::Linear] input [1, 1, 28, 28] should end in d_input 32");
  }
  EXPECT_EQ(g.status().code, micro::Code::shape);  // the first error sticks: raised again by every later call
  EXPECT_THROW(g.add(linear, x), ShapeError);
}

TEST(MicroGraph, MisuseIsAnError) {
  Table t(linear_record(4, 2, 6));
  micro::Linear linear, unloaded;
  micro::Add add;
  linear.load(t.table(), "");
  {
    micro::Graph<2> g;
    micro::Value x = g.input({1, 4});
    g.add(linear, x);
    EXPECT_THROW(g.add(linear, x), ValueError);  // capacity
    EXPECT_EQ(g.status().code, micro::Code::capacity);
  }
  {
    micro::Graph<4> g;
    micro::Value x = g.input({1, 4});
    EXPECT_THROW(g.add(add, x), ValueError);  // Add takes two values
  }
  {
    micro::Graph<4> g;
    EXPECT_THROW(g.add(unloaded, g.input({1, 4})), ValueError);  // used before load()
  }
  {
    micro::Graph<4> g;
    micro::Value x = g.input({1, 4});
    micro::Value y = g.add(linear, x);
    float out[2];
    const float* none = nullptr;
    EXPECT_THROW(g.run(nullptr, 0, none, out), ValueError);  // before finish()
    g.finish(y);
    EXPECT_THROW(g.finish(y), ValueError);
    EXPECT_THROW(g.add(linear, x), ValueError);  // after finish()
  }
  {
    micro::Graph<4> g;
    g.finish(g.add(linear, g.input({3, 4})));
    Arena arena(g.arena_bytes() + 16);
    std::vector<float> in(12, 1.0f), out(6);
    EXPECT_THROW(g.run(arena.data(), g.arena_bytes() - 16, in.data(), out.data()), ValueError);
    EXPECT_THROW(g.run(static_cast<char*>(arena.data()) + 4, g.arena_bytes(), in.data(), out.data()), ValueError);
    EXPECT_NO_THROW(g.run(arena.data(), g.arena_bytes(), in.data(), out.data()));
  }
}

TEST(MicroGraph, WeightsAreCheckedOnLoad) {
  Table t(linear_record(4, 2, 7));
  micro::Linear linear;
  EXPECT_THROW(linear.load(t.table(), "encoder"), FormatError);  // no encoder.weight
  micro::Conv2d conv;
  EXPECT_THROW(conv.load(t.table(), ""), ShapeError);  // a rank-2 weight
  micro::LayerNorm norm;
  EXPECT_THROW(norm.load(t.table(), ""), FormatError);  // no gamma or beta
  Table q(linear_record(4, 2, 8), true);
  micro::Embedding emb;  // int8 scales along the wrong axis for the layer are refused
  micro::Weight w = q.entries[0];
  w.axis = 0;
  micro::WeightTable one{&w, 1};
  EXPECT_THROW(emb.load(one, ""), DTypeError);
  micro::Conv2d grouped(micro::Conv2dOptions{{1, 1}, {0, 0}, {1, 1}, 3});
  Cpu::seed(9);
  Table c(nn::Conv2dConfig({2, 4}, {1, 1}).init<Cpu>().into_record());
  EXPECT_THROW(grouped.load(c.table(), ""), ValueError);  // 3 groups do not divide 4 channels
}

TEST(MicroGraph, SizesAndOptionsOutOfRangeAreErrors) {
  micro::Graph<4> huge;
  EXPECT_THROW(huge.input({65536, 65536, 2}), ValueError);  // 32 GiB of floats: capacity
  EXPECT_EQ(huge.status().code, micro::Code::capacity);
  Cpu::seed(10);
  Table c(nn::Conv2dConfig({1, 2}, {3, 3}).init<Cpu>().into_record());
  micro::Conv2d strided(micro::Conv2dOptions{{0, 1}, {0, 0}, {1, 1}, 1});
  EXPECT_THROW(strided.load(c.table(), ""), ValueError);  // stride 0
  micro::Graph<3> g;
  micro::Value x = g.input({1, 1, 4, 4});
  EXPECT_THROW(g.add(micro::MaxPool2d(0), x), ValueError);  // an empty window
  micro::Graph<3> a;
  EXPECT_THROW(a.add(micro::AdaptiveAvgPool2d(2, 2), a.input({1, 1, 0, 4})), ShapeError);
  micro::MultiHeadAttention mha(1);
  EXPECT_THROW(mha.load(c.table(), std::string(100, 'p').c_str()), ValueError);  // a key past the buffer
}

TEST(MicroGraph, ALayerLoadedAgainAfterThePlanIsCaught) {
  Table f32(linear_record(4, 2, 11)), wider(linear_record(4, 8, 12));
  micro::Linear linear;
  linear.load(f32.table(), "");
  micro::Graph<2> g;
  g.finish(g.add(linear, g.input({1, 4})));
  linear.load(wider.table(), "");  // 8 outputs where the plan holds 2
  Arena arena(g.arena_bytes());
  std::vector<float> in(4), out(8);
  EXPECT_THROW(g.run(arena.data(), g.arena_bytes(), in.data(), out.data()), ValueError);
}

TEST(MicroGraph, EmptyDimsRun) {
  Cpu::seed(13);
  auto bn = nn::BatchNormConfig(2).init<Cpu>();
  Table t(bn.into_record());
  micro::BatchNorm m;
  m.load(t.table(), "");
  EXPECT_TRUE(run(m, {0, 2, 3}, {}).first.empty());  // no batch: nothing to divide
  Record empty = Record::map();                      // a Linear of no inputs gives its bias
  empty.set("weight", Record(TensorData(std::vector<float>{}, {0, 3})));
  empty.set("bias", Record(TensorData(std::vector<float>{1, 2, 3}, {3})));
  Table e(empty);
  micro::Linear l;
  l.load(e.table(), "");
  EXPECT_EQ(run(l, {2, 0}, {}).first, (std::vector<float>{1, 2, 3, 1, 2, 3}));
}

}  // namespace
}  // namespace scorch::micro_test

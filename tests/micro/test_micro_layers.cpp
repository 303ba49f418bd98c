// The micro runtime's layers against the hosted Cpu backend's nn layers (checked against PyTorch by the conformance
// and nn suites): same records, same inputs; int8 layers against the hosted dynamic quantized layers.
#include <gtest/gtest.h>

#include "micro_harness.h"
#include "scorch/quant/quantize.h"

namespace scorch::micro_test {
namespace {

template <size_t D> Tensor<Cpu, D> random_input(Shape shape, uint64_t seed) {
  Cpu::seed(seed);
  return Tensor<Cpu, D>::random(shape, Distribution::normal(0.0, 1.0));
}

TEST(MicroLayers, LinearMatchesTheHostedLayer) {
  Cpu::seed(1);
  auto layer = nn::LinearConfig(5, 3).init<Cpu>();
  Table t(layer.into_record());
  micro::Linear m;
  m.load(t.table(), "");
  auto x = random_input<3>({2, 4, 5}, 2);
  auto [out, shape] = run(m, micro_shape(x.shape()), values(x));
  EXPECT_EQ(shape, (micro::Shape{2, 4, 3}));
  expect_close(out, values(layer.forward(x)), 1e-5f);
}

TEST(MicroLayers, LinearWithoutBiasAndColumnLayout) {
  Cpu::seed(3);
  auto layer = nn::LinearConfig(6, 4).with_bias(false).with_layout(nn::LinearLayout::Col).init<Cpu>();
  micro_export::Options o;
  o.transpose = {"weight"};  // [d_output, d_input] stored, [d_input, d_output] read
  Table t(layer.into_record(), o);
  micro::Linear m;
  m.load(t.table(), "");
  auto x = random_input<2>({3, 6}, 4);
  expect_close(run(m, micro_shape(x.shape()), values(x)).first, values(layer.forward(x)), 1e-5f);
}

TEST(MicroLayers, Int8LinearGivesTheHostedDynamicQuantizedValues) {
  Cpu::seed(5);
  auto layer = nn::LinearConfig(40, 7).init<Cpu>();
  auto quantized = quant::quantize(layer, {});
  Table t(layer.into_record(), true);
  micro::Linear m;
  m.load(t.table(), "");
  auto x = random_input<2>({1, 40}, 6);
  // The same weights, input parameters, integer sums and epilogue: the hosted kernel's values exactly.
  EXPECT_EQ(run(m, micro_shape(x.shape()), values(x)).first, values(quantized.forward(x)));
}

TEST(MicroLayers, Conv2dWithStridePaddingDilationAndGroups) {
  Cpu::seed(7);
  auto layer = nn::Conv2dConfig({4, 6}, {3, 2})
                   .with_stride({2, 1})
                   .with_padding(nn::PaddingConfig::explicit_pad({1, 2}))
                   .with_dilation({1, 2})
                   .with_groups(2)
                   .init<Cpu>();
  Table t(layer.into_record());
  micro::Conv2dOptions o;
  o.stride[0] = 2, o.padding[0] = 1, o.padding[1] = 2, o.dilation[1] = 2, o.groups = 2;
  micro::Conv2d m(o);
  m.load(t.table(), "");
  auto x = random_input<4>({2, 4, 7, 6}, 8);
  auto expected = layer.forward(x);
  auto [out, shape] = run(m, micro_shape(x.shape()), values(x));
  EXPECT_EQ(shape, micro_shape(expected.shape()));
  expect_close(out, values(expected), 1e-5f);
}

TEST(MicroLayers, Conv1dMatchesTheHostedLayer) {
  Cpu::seed(9);
  auto layer =
      nn::Conv1dConfig({3, 5}, {3}).with_stride({2}).with_padding(nn::PaddingConfig::explicit_pad({1})).init<Cpu>();
  Table t(layer.into_record());
  micro::Conv1d m({2, 1, 1, 1});
  m.load(t.table(), "");
  auto x = random_input<3>({2, 3, 11}, 10);
  expect_close(run(m, micro_shape(x.shape()), values(x)).first, values(layer.forward(x)), 1e-5f);
}

TEST(MicroLayers, Int8Conv2dGivesTheHostedQuantizedConvolution) {
  Cpu::seed(11);
  auto layer = nn::Conv2dConfig({3, 4}, {3, 3}).with_padding(nn::PaddingConfig::explicit_pad({1, 1})).init<Cpu>();
  auto quantized = quant::quantize(layer, {});
  Table t(layer.into_record(), true);
  micro::Conv2dOptions o;
  o.padding[0] = o.padding[1] = 1;
  micro::Conv2d m(o);
  m.load(t.table(), "");
  auto x = random_input<4>({1, 3, 6, 5}, 12);
  // Hosted: integer patches (padding quantizes to the offset, adding nothing); the same sums, scaled the same way.
  expect_close(run(m, micro_shape(x.shape()), values(x)).first, values(quantized.forward(x)), 1e-6f);
}

TEST(MicroLayers, ConvolutionPathsAtTheBorders) {
  // 3-wide rows with dilation and padding (f32), and int8 taps in pairs (a 4-wide kernel) next to padding.
  Cpu::seed(25);
  auto wide = nn::Conv2dConfig({2, 3}, {3, 3})
                  .with_padding(nn::PaddingConfig::explicit_pad({2, 3}))
                  .with_dilation({2, 2})
                  .init<Cpu>();
  Table t(wide.into_record());
  micro::Conv2dOptions o;
  o.padding[0] = 2, o.padding[1] = 3, o.dilation[0] = o.dilation[1] = 2;
  micro::Conv2d m(o);
  m.load(t.table(), "");
  auto x = random_input<4>({1, 2, 5, 4}, 26);
  expect_close(run(m, micro_shape(x.shape()), values(x)).first, values(wide.forward(x)), 1e-5f);

  auto pairs = nn::Conv2dConfig({2, 3}, {2, 4}).with_padding(nn::PaddingConfig::explicit_pad({0, 2})).init<Cpu>();
  auto quantized = quant::quantize(pairs, {});
  Table q(pairs.into_record(), true);
  micro::Conv2dOptions po;
  po.padding[1] = 2;
  micro::Conv2d mq(po);
  mq.load(q.table(), "");
  auto y = random_input<4>({1, 2, 4, 7}, 27);
  expect_close(run(mq, micro_shape(y.shape()), values(y)).first, values(quantized.forward(y)), 1e-6f);
}

TEST(MicroLayers, PoolsMatchTheHostedLayers) {
  auto x = random_input<4>({2, 3, 7, 9}, 13);
  auto check = [&](const micro::Layer& m, const Tensor<Cpu, 4>& expected) {
    auto [out, shape] = run(m, micro_shape(x.shape()), values(x));
    EXPECT_EQ(shape, micro_shape(expected.shape())) << m.name();
    expect_close(out, values(expected), 1e-5f);
  };
  auto pad = nn::PaddingConfig::explicit_pad({1, 1});
  check(micro::MaxPool2d(3, 2, 1),
        nn::MaxPool2dConfig({3, 3}).with_stride({{2, 2}}).with_padding(pad).init().forward(x));
  check(micro::AvgPool2d(3, 2, 1),
        nn::AvgPool2dConfig({3, 3}).with_stride({{2, 2}}).with_padding(pad).init().forward(x));
  check(
      micro::AvgPool2d(3, 2, 1, false),
      nn::AvgPool2dConfig({3, 3}).with_stride({{2, 2}}).with_padding(pad).with_count_include_pad(false).init().forward(
          x));
  check(micro::AdaptiveAvgPool2d(3, 4), nn::AdaptiveAvgPool2dConfig({3, 4}).init().forward(x));
  auto seq = random_input<3>({2, 3, 10}, 14);
  auto [max1, s1] = run(micro::MaxPool1d(2), micro_shape(seq.shape()), values(seq));
  expect_close(max1, values(nn::MaxPool1dConfig({2}).init().forward(seq)), 1e-6f);
  auto [avg1, s2] = run(micro::AvgPool1d(3, 1, 1), micro_shape(seq.shape()), values(seq));
  expect_close(avg1,
               values(nn::AvgPool1dConfig({3})
                          .with_stride({{1}})
                          .with_padding(nn::PaddingConfig::explicit_pad({1}))
                          .init()
                          .forward(seq)),
               1e-6f);
}

TEST(MicroLayers, NormsMatchTheHostedLayers) {
  Cpu::seed(15);
  auto bn = nn::BatchNormConfig(3).init<Cpu>();
  Record r = bn.into_record();  // running statistics that are not 0 and 1
  r.set("running_mean", Record(TensorData(std::vector<float>{0.5f, -1.0f, 2.0f}, {3})));
  r.set("running_var", Record(TensorData(std::vector<float>{0.25f, 4.0f, 1.5f}, {3})));
  r.set("gamma", Record(TensorData(std::vector<float>{1.5f, -0.5f, 2.0f}, {3})));
  bn = nn::BatchNormConfig(3).init_with<Cpu>(r);
  Table t(r);
  micro::BatchNorm m;
  m.load(t.table(), "");
  auto x = random_input<4>({2, 3, 4, 5}, 16);
  expect_close(run(m, micro_shape(x.shape()), values(x)).first, values(bn.forward(x)), 1e-5f);

  auto ln = nn::LayerNormConfig(6).init<Cpu>();
  Record lr = ln.into_record();
  lr.set("beta", Record(TensorData(std::vector<float>{0, 1, 2, 3, 4, 5}, {6})));
  ln = nn::LayerNormConfig(6).init_with<Cpu>(lr);
  Table lt(lr);
  micro::LayerNorm ml;
  ml.load(lt.table(), "");
  auto y = random_input<3>({2, 3, 6}, 17);
  expect_close(run(ml, micro_shape(y.shape()), values(y)).first, values(ln.forward(y)), 1e-5f);
}

TEST(MicroLayers, ActivationsMatchTheHostedOnesAtTheEdges) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> v{-3.0f, -0.5f, 0.0f, -0.0f, 0.5f, 3.0f, 30.0f, -30.0f, inf, -inf, nan, 1e-8f};
  auto x = Tensor<Cpu, 2>::from_data(TensorData(v, {3, 4}));
  micro::Shape s{3, 4};
  expect_close(run(micro::Relu(), s, v).first, values(activation::relu(x)), 0.0f);
  expect_close(run(micro::Gelu(), s, v).first, values(activation::gelu(x)), 1e-6f);
  expect_close(run(micro::Sigmoid(), s, v).first, values(activation::sigmoid(x)), 1e-6f);
  expect_close(run(micro::Tanh(), s, v).first, values(activation::tanh(x)), 1e-6f);
  auto finite = random_input<2>({3, 4}, 18) * 10.0;
  expect_close(run(micro::Softmax(), s, values(finite)).first, values(activation::softmax(finite, 1)), 1e-6f);
}

TEST(MicroLayers, EmbeddingFlattenAndAdd) {
  Cpu::seed(19);
  auto emb = nn::EmbeddingConfig(7, 3).init<Cpu>();
  Table t(emb.into_record());
  micro::Embedding m;
  m.load(t.table(), "");
  std::vector<int64_t> ids{0, 6, 3, 3, 1, 2};
  auto expected = emb.forward(Tensor<Cpu, 2, Int>::from_data(TensorData(ids, {2, 3})));
  auto [out, shape] = run(m, {2, 3}, std::vector<float>(ids.begin(), ids.end()));
  EXPECT_EQ(shape, (micro::Shape{2, 3, 3}));
  expect_close(out, values(expected), 0.0f);
  EXPECT_THROW(run(m, {2}, {1.0f, 7.0f}), ValueError);  // out of the vocabulary
  EXPECT_THROW(run(m, {1}, {0.5f}), ValueError);        // not an integer

  auto [flat, fs] = run(micro::Flatten(1), {2, 3, 4}, std::vector<float>(24, 1.0f));
  EXPECT_EQ(fs, (micro::Shape{2, 12}));
  std::vector<float> a{1, 2, 3}, b{10, 20, 30};
  EXPECT_EQ(run(micro::Add(), {3}, a, &b).first, (std::vector<float>{11, 22, 33}));
}

TEST(MicroLayers, SelfAttentionMatchesTheHostedLayerCausalOrNot) {
  Cpu::seed(21);
  auto mha = nn::MultiHeadAttentionConfig(8, 2).with_dropout(0.0).init<Cpu>();
  Table t(mha.into_record());
  auto x = random_input<3>({2, 5, 8}, 22);
  for (bool causal : {false, true}) {
    micro::MultiHeadAttention m(2, causal);
    m.load(t.table(), "");
    auto input = nn::MhaInput<Cpu>::self_attn(x);
    input.causal = causal;
    expect_close(run(m, micro_shape(x.shape()), values(x)).first, values(mha.forward(input).context), 1e-5f);
  }
}

TEST(MicroLayers, ZeroRowsRunWithoutArena) {
  Cpu::seed(23);
  auto layer = nn::LinearConfig(4, 2).init<Cpu>();
  Table t(layer.into_record());
  micro::Linear m;
  m.load(t.table(), "");
  auto [out, shape] = run(m, {0, 4}, {});
  EXPECT_EQ(shape, (micro::Shape{0, 2}));
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace scorch::micro_test

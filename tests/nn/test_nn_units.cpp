// nn behaviour beyond the PyTorch fixtures: initializer statistics, train vs inference mode,
// running statistics in records, attention caches, layouts, configs and errors.
#include <gtest/gtest.h>

#include <cmath>

#include <scorch/scorch.hpp>

#include "support/expect_error.h"

namespace scorch::nntest {
namespace {

using AD = Autodiff<Cpu>;

std::vector<double> values(const TensorData& d) { return d.convert(DType::F64).to_vector<double>(); }
double stddev(const std::vector<double>& v) {
  double m = 0, s = 0;
  for (double x : v) m += x;
  m /= static_cast<double>(v.size());
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size()));
}

TEST(Initializers, KaimingUniformIsPyTorchsLinearDefault) {
  auto linear = nn::LinearConfig(400, 300).init<Cpu>();
  auto w = values(linear.weight.val().to_data());
  double bound = 1.0 / std::sqrt(400.0), max_abs = 0;
  for (double v : w) max_abs = std::max(max_abs, std::abs(v));
  EXPECT_LE(max_abs, bound);
  EXPECT_GT(max_abs, 0.99 * bound);
  EXPECT_NEAR(stddev(w), bound / std::sqrt(3.0), 0.02 * bound);
}

TEST(Initializers, XavierNormalOrthogonalAndErrors) {
  auto w = values(nn::Initializer::xavier_normal(2.0).tensor<Cpu, 2>({300, 200}, 200, 300).to_data());
  EXPECT_NEAR(stddev(w), 2.0 * std::sqrt(2.0 / 500.0), 0.01);
  auto q = nn::Initializer::orthogonal().tensor<Cpu, 2>({6, 10}, std::nullopt, std::nullopt);
  auto gram = values(q.matmul(q.transpose()).to_data());
  for (size_t i = 0; i < 6; ++i)
    for (size_t j = 0; j < 6; ++j) EXPECT_NEAR(gram[i * 6 + j], i == j ? 1.0 : 0.0, 1e-5);
  testing::expect_error<ValueError>(
      [] {
        (void)nn::Initializer::kaiming_normal().tensor<Cpu, 2>({3, 3}, std::nullopt, 3);
      },
      "[Initializer::KaimingNormal]");
  testing::expect_error<ValueError>(
      [] {
        (void)nn::Initializer::xavier_uniform().tensor<Cpu, 2>({3, 3}, 3, std::nullopt);
      },
      "[Initializer::XavierUniform]");
  testing::expect_error<ValueError>(
      [] { (void)nn::Initializer::orthogonal().tensor<Cpu, 1>({3}, std::nullopt, std::nullopt); },
      "[Initializer::Orthogonal]");
}

// A batch of 0 (or no channels) used to divide by zero computing the window layout.
TEST(LocalResponseNorm, EmptyInputsPassThrough) {
  auto norm = nn::LocalResponseNormConfig(3).init();
  for (const Shape& shape : {Shape{0, 4, 5}, Shape{2, 0, 5}, Shape{2, 4, 0}}) {
    auto x = Tensor<AD, 3>::zeros(shape).require_grad();
    auto y = norm.forward(x);
    EXPECT_EQ(y.shape(), shape);
    auto grads = y.sum().backward();
    EXPECT_EQ(x.grad(grads)->shape(), shape);
  }
}

TEST(Dropout, ActiveOnlyOnAutodiffBackends) {
  auto drop = nn::DropoutConfig(0.5).init();
  auto x = Tensor<Cpu, 2>::ones({64, 64});
  EXPECT_TRUE(drop.forward(x).to_data() == x.to_data());
  auto y = values(drop.forward(Tensor<AD, 2>::ones({64, 64})).to_data());
  size_t zeros = 0;
  for (double v : y) {
    EXPECT_TRUE(v == 0.0 || v == 2.0);
    zeros += v == 0.0;
  }
  EXPECT_NEAR(static_cast<double>(zeros) / static_cast<double>(y.size()), 0.5, 0.05);
  testing::expect_error<ValueError>([] { (void)nn::DropoutConfig(1.0).init(); }, "[DropoutConfig::init]");
}

TEST(Dropout, GaussianNoiseAndRReluFollowTheBackend) {
  auto noise = nn::GaussianNoiseConfig(0.5).init();
  auto zeros = Tensor<Cpu, 2>::zeros({100, 100});
  EXPECT_TRUE(noise.forward(zeros).to_data() == zeros.to_data());
  EXPECT_NEAR(stddev(values(noise.forward(Tensor<AD, 2>::zeros({100, 100})).to_data())), 0.5, 0.02);
  nn::RRelu rrelu;
  auto x = Tensor<Cpu, 2>::full({10, 10}, Scalar(-2.0));
  auto eval = values(rrelu.forward(x).to_data());
  for (double v : eval) EXPECT_NEAR(v, -2.0 * (1.0 / 8 + 1.0 / 3) / 2, 1e-6);
  auto train = values(rrelu.forward(Tensor<AD, 2>::full({10, 10}, Scalar(-2.0))).to_data());
  for (double v : train) EXPECT_TRUE(v >= -2.0 / 3 - 1e-6 && v <= -2.0 / 8 + 1e-6) << v;
  EXPECT_GT(stddev(train), 0.01);
  auto id = nn::Identity{};
  EXPECT_TRUE(id.forward(x).to_data() == x.to_data());
}

TEST(BatchNorm, TrainsOnAutodiffAndInfersWithRunningStatistics) {
  auto bn = nn::BatchNormConfig(2).with_momentum(0.5).init<AD>();
  auto x =
      Tensor<AD, 3>::from_data(TensorData(std::vector<float>{1, 2, 3, 10, 20, 30, 5, 6, 7, 40, 50, 60}, {2, 2, 3}));
  (void)bn.forward(x);
  auto mean = values(bn.running_mean.value().to_data());
  EXPECT_NEAR(mean[0], 0.5 * 4.0, 1e-5);
  EXPECT_NEAR(mean[1], 0.5 * 35.0, 1e-4);
  auto record = bn.into_record();
  ASSERT_NE(record.find("running_mean"), nullptr);
  auto inference = bn.valid();
  auto fresh = nn::BatchNormConfig(2).init<Cpu>().load_record(inference.into_record());
  EXPECT_TRUE(fresh.running_var.value().to_data() == inference.running_var.value().to_data());
  auto y = inference.forward(x.inner());
  auto expected = (x.inner() - bn.running_mean.value().inner().reshape<3>({1, 2, 1})) /
                  (bn.running_var.value().inner().reshape<3>({1, 2, 1}) + 1e-5).sqrt();
  y.to_data().assert_approx_eq(expected.to_data());
}

TEST(Linear, ColumnLayoutMatchesRowLayoutTransposed) {
  auto row = nn::LinearConfig(4, 3).init<Cpu>();
  auto col = nn::LinearConfig(4, 3).with_layout(nn::LinearLayout::Col).init<Cpu>();
  EXPECT_EQ(col.weight.val().shape(), (Shape{3, 4}));
  col.weight = col.weight.with_value(row.weight.val().transpose());
  col.bias = row.bias;
  auto x = Tensor<Cpu, 3>::random({2, 5, 4}, Distribution::Default);
  col.forward(x).to_data().assert_approx_eq(row.forward(x).to_data());
  testing::expect_error<ShapeError>([&] { (void)row.forward(Tensor<Cpu, 2>::ones({2, 5})); }, "[Linear::forward]");
}

TEST(Attention, AutoregressiveCacheEqualsCausalForward) {
  auto decoder = nn::TransformerDecoderConfig(16, 32, 4, 2).with_dropout(0.0).init<Cpu>();
  auto target = Tensor<Cpu, 3>::random({2, 5, 16}, Distribution::Default);
  auto memory = Tensor<Cpu, 3>::random({2, 3, 16}, Distribution::Default);
  auto full = decoder.forward(nn::TransformerDecoderInput<Cpu>(target, memory)
                                  .with_target_mask_attn(nn::generate_autoregressive_mask<Cpu>(2, 5)));
  auto cache = decoder.new_autoregressive_cache();
  for (int64_t t = 0; t < 5; ++t) {
    auto step = target.slice_dim(1, Slice(t));
    auto out = decoder.forward_autoregressive_inference(nn::TransformerDecoderInput<Cpu>(step, memory), cache);
    out.to_data().assert_approx_eq(full.slice_dim(1, Slice(t)).to_data(), Tolerance{1e-4, 1e-5});
  }
  auto encoder = nn::TransformerEncoderConfig(16, 32, 4, 1).with_dropout(0.0).with_norm_first(true).init<Cpu>();
  auto causal = encoder.forward(
      nn::TransformerEncoderInput<Cpu>(target).with_mask_attn(nn::generate_autoregressive_mask<Cpu>(2, 5)));
  auto enc_cache = encoder.new_autoregressive_cache();
  auto first = encoder.forward_autoregressive_inference(
      nn::TransformerEncoderInput<Cpu>(target.slice_dim(1, Slice(0, 3))), enc_cache);
  auto rest = encoder.forward_autoregressive_inference(
      nn::TransformerEncoderInput<Cpu>(target.slice_dim(1, Slice(3, 5))), enc_cache);
  Tensor<Cpu, 3>::cat({first, rest}, 1).to_data().assert_approx_eq(causal.to_data(), Tolerance{1e-4, 1e-5});
}

TEST(Attention, WeightsAndFusedContextAgree) {
  auto mha = nn::MultiHeadAttentionConfig(8, 2).with_dropout(0.0).init<Cpu>();
  auto x = Tensor<Cpu, 3>::random({2, 4, 8}, Distribution::Default);
  auto pad = nn::generate_padding_mask<Cpu>(0, {{1, 2, 3, 4}, {5, 6}}, std::nullopt);
  EXPECT_EQ(values(pad.tensor.float_().to_data()), (std::vector<double>{1, 2, 3, 4, 5, 6, 0, 0}));
  auto in = nn::MhaInput<Cpu>::self_attn(x).with_mask_pad(pad.mask);
  auto out = mha.forward(in);
  out.context.to_data().assert_approx_eq(mha.forward_context(in).to_data(), Tolerance{1e-4, 1e-6});
  auto padded_weights = values(out.weights.slice_dim(0, Slice(1)).slice_dim(3, Slice(2, 4)).to_data());
  for (double w : padded_weights) EXPECT_LT(w, 1e-6);
  testing::expect_error<ValueError>([] { (void)nn::MultiHeadAttentionConfig(10, 3).init<Cpu>(); },
                                    "[MultiHeadAttentionConfig::init]");
}

TEST(Attention, CrossAttentionCacheReusesTheContext) {
  auto ca = nn::CrossAttentionConfig(8, 6, 4, 1, 2).with_dropout(0.0).init<Cpu>();
  auto context = Tensor<Cpu, 3>::random({2, 5, 6}, Distribution::Default);
  auto q = Tensor<Cpu, 3>::random({2, 3, 8}, Distribution::Default);
  nn::CrossAttentionCache<Cpu> cache;
  auto first = ca.forward_cache(q.slice_dim(1, Slice(0, 2)), context, cache);
  auto second = ca.forward_cache(q.slice_dim(1, Slice(2, 3)), Tensor<Cpu, 3>::zeros({2, 5, 6}),
                                 cache);  // context ignored: cached
  Tensor<Cpu, 3>::cat({first, second}, 1)
      .to_data()
      .assert_approx_eq(ca.forward(q, context).to_data(), Tolerance{1e-5, 1e-6});
  testing::expect_error<ValueError>([] { (void)nn::CrossAttentionConfig(8, 6, 4, 3, 2).init<Cpu>(); },
                                    "[CrossAttentionConfig::init]");
  testing::expect_error<ShapeError>(
      [&] {
        (void)ca.forward(Tensor<Cpu, 3>::ones({2, 3, 7}), context);
      },
      "[CrossAttention::forward]");
}

TEST(Configs, SaveAndLoadAsJson) {
  auto enc = nn::TransformerEncoderConfig(64, 128, 4, 3)
                 .with_norm_first(true)
                 .with_activation(nn::ActivationConfig::of(nn::ActivationKind::Silu));
  EXPECT_EQ(nn::TransformerEncoderConfig::from_json(enc.to_json()), enc);
  auto lstm = nn::LstmConfig(3, 4).with_clip(2.5).with_initializer(nn::Initializer::orthogonal(0.5));
  EXPECT_EQ(nn::LstmConfig::from_json(lstm.to_json()), lstm);
  auto conv = nn::Conv2dConfig({3, 8}, {3, 3}).with_padding(nn::PaddingConfig::same());
  EXPECT_EQ(nn::Conv2dConfig::from_json(conv.to_json()), conv);
  EXPECT_THROW((void)nn::LinearConfig::from_json(R"({"d_input": 3})"), FormatError);
}

TEST(Errors, NameTheLayerAndTheShapes) {
  testing::expect_error<ValueError>(
      [] {
        (void)nn::Conv2dConfig({3, 8}, {3, 3}).with_groups(2).init<Cpu>();
      },
      "[ConvConfig::init]");
  testing::expect_error<ValueError>(
      [] {
        (void)nn::Conv2dConfig({2, 2}, {3, 3})
            .with_stride({2, 2})
            .with_padding(nn::PaddingConfig::same())
            .init<Cpu>()
            .forward(Tensor<Cpu, 4>::ones({1, 2, 5, 5}));
      },
      "[Conv::forward]");
  auto emb = nn::EmbeddingConfig(4, 2).init<Cpu>();
  testing::expect_error<ValueError>(
      [&] {
        (void)emb.forward(Tensor<Cpu, 2, Int>::from_data(TensorData(std::vector<int64_t>{1, 4}, {1, 2})));
      },
      "[Embedding::forward]");
  auto ce = nn::CrossEntropyLossConfig().init<Cpu>();
  testing::expect_error<ShapeError>(
      [&] {
        (void)ce.forward(Tensor<Cpu, 2>::ones({3, 4}), Tensor<Cpu, 1, Int>::ones({2}));
      },
      "[CrossEntropyLoss::forward]");
  auto lstm = nn::LstmConfig(3, 4).init<Cpu>();
  testing::expect_error<ShapeError>([&] { (void)lstm.forward(Tensor<Cpu, 3>::ones({2, 5, 2})); }, "[Lstm::forward]");
  testing::expect_error<ShapeError>(
      [] {
        (void)nn::MseLoss{}.forward(Tensor<Cpu, 2>::ones({2, 2}), Tensor<Cpu, 2>::ones({2, 3}));
      },
      "[MseLoss::forward]");
  testing::expect_error<ValueError>([] { (void)nn::Interpolate2dConfig().init(); }, "[InterpolateConfig::init]");
  auto deform = nn::DeformConv2dConfig({2, 2}, {3, 3}).init<Cpu>();
  auto x = Tensor<Cpu, 4>::ones({1, 2, 5, 5});
  testing::expect_error<ShapeError>(
      [&] {
        (void)deform.forward(x, Tensor<Cpu, 4>::zeros({1, 18, 2, 3}));
      },
      "[DeformConv2d::forward] offset [1, 18, 2, 3] must be [1, 18, 3, 3]");
  testing::expect_error<ShapeError>(
      [&] {
        (void)deform.forward(x, Tensor<Cpu, 4>::zeros({1, 18, 3, 3}), Tensor<Cpu, 4>::ones({1, 8, 3, 3}));
      },
      "[DeformConv2d::forward] mask");
  auto plain_conv = nn::Conv2dConfig({2, 2}, {3, 3}).init<Cpu>();
  deform.weight = plain_conv.weight, deform.bias = plain_conv.bias;
  deform.forward(x, Tensor<Cpu, 4>::zeros({1, 18, 3, 3}))
      .to_data()
      .assert_approx_eq(plain_conv.forward(x).to_data(), Tolerance{1e-5, 1e-6});
}

TEST(Normalization, ChoiceFromConfigMatchesTheLayer) {
  auto x = Tensor<Cpu, 3>::random({2, 4, 6}, Distribution::Default);
  auto layer = nn::NormalizationConfig().with_kind(nn::NormalizationKind::Layer).with_num_features(6).init<Cpu>();
  layer.forward(x).to_data().assert_approx_eq(nn::LayerNormConfig(6).init<Cpu>().forward(x).to_data());
  auto group = nn::NormalizationConfig()
                   .with_kind(nn::NormalizationKind::Group)
                   .with_num_features(4)
                   .with_num_groups(2)
                   .init<Cpu>();
  group.forward(x).to_data().assert_approx_eq(nn::GroupNormConfig(2, 4).init<Cpu>().forward(x).to_data());
  auto identity = nn::NormalizationConfig().with_kind(nn::NormalizationKind::Identity).init<Cpu>();
  EXPECT_TRUE(identity.forward(x).to_data() == x.to_data());
  EXPECT_EQ(identity.num_params(), 0u);
}

TEST(Configs, InitWithRecordLoadsTheWeights) {
  auto config = nn::LstmConfig(3, 4);
  auto trained = config.init<Cpu>();
  auto copy = config.init_with<Cpu>(trained.into_record());
  auto x = Tensor<Cpu, 3>::random({2, 3, 3}, Distribution::Default);
  EXPECT_TRUE(copy.forward(x).first.to_data() == trained.forward(x).first.to_data());
  testing::expect_error<ShapeError>([&] { (void)nn::LstmConfig(3, 5).init_with<Cpu>(trained.into_record()); },
                                    "[load_record]");
}

TEST(Configs, InitWithRecordRefusesAConfigTheRecordCannotFillBeforeAllocating) {
  auto record = nn::LinearConfig(4, 3).init<Cpu>().into_record();  // 12 + 3 values
  // 2^20 × 2^20 floats (4 TiB) asked of a record of 15 values: refused by the record's budget, never allocated.
  testing::expect_error<ShapeError>(
      [&] { (void)nn::LinearConfig(size_t{1} << 20, size_t{1} << 20).init_with<Cpu>(record); },
      "[init_with] a parameter of shape [1048576, 1048576] (1099511627776 values) is more than the record it is "
      "loaded from can fill (15 values): the config does not match that record");
  EXPECT_EQ(record_values(record), 15u);
  EXPECT_EQ(nn::LinearConfig(300, 300).init<Cpu>().num_params(), 90300u);  // plain init: nothing charged
  auto budget_closed = nn::LinearConfig(4, 3).init_with<Cpu>(record);      // the scope closed with the error
  EXPECT_EQ(nn::LinearConfig(300, 300).init<Cpu>().num_params(), 90300u);
}

TEST(Recurrent, ReverseAndSequenceFirstLayouts) {
  auto fwd = nn::GruConfig(3, 4).init<Cpu>();
  auto rev = fwd;
  rev.reverse = true;
  auto x = Tensor<Cpu, 3>::random({2, 5, 3}, Distribution::Default);
  auto flipped = x.flip({1});
  rev.forward(x).to_data().assert_approx_eq(fwd.forward(flipped).flip({1}).to_data(), Tolerance{1e-5, 1e-6});
  auto seq_first = fwd;
  seq_first.batch_first = false;
  seq_first.forward(x.swap_dims(0, 1))
      .swap_dims(0, 1)
      .to_data()
      .assert_approx_eq(fwd.forward(x).to_data(), Tolerance{1e-5, 1e-6});
}

}  // namespace
}  // namespace scorch::nntest

// Mixed precision (ctest label amp): the amp::Autocast scope, the precision policy each op applies inside it
// (docs/mixed-precision.md's table), gradients and the loss-scale seed through Autodiff, and GradScaler's dynamic loss
// scaling (skip and back off on inf/NaN, grow after clean steps, its record).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <scorch/scorch.hpp>

namespace scorch::amptest {
namespace {

using AD = Autodiff<Cpu>;
using optim::GradScaler;
using optim::GradScalerConfig;
using optim::GradientsParams;

Tensor<Cpu, 2> ramp(size_t rows, size_t cols, double step = 0.01) {
  return Tensor<Cpu, 1, Int>::arange_step(0, static_cast<int64_t>(rows * cols), 1)
      .float_()
      .mul_scalar(step)
      .sin()
      .reshape<2>({rows, cols});
}

TEST(Amp, ScopeSetsAndRestoresTheThreadState) {
  EXPECT_FALSE(amp::autocast_dtype());
  {
    amp::Autocast outer(DType::BF16, 4.0);
    EXPECT_EQ(amp::autocast_dtype(), DType::BF16);
    EXPECT_EQ(amp::autocast_state().loss_scale, 4.0);
    {
      amp::Autocast off(std::nullopt);  // a full-precision region inside keeps the loss scale
      EXPECT_FALSE(amp::autocast_dtype());
      EXPECT_EQ(amp::autocast_state().loss_scale, 4.0);
      amp::Autocast rescaled(DType::F16, 2.0);
      EXPECT_EQ(amp::autocast_state().loss_scale, 2.0);
    }
    EXPECT_EQ(amp::autocast_dtype(), DType::BF16);
  }
  EXPECT_FALSE(amp::autocast_dtype());
  EXPECT_EQ(amp::autocast_state().loss_scale, 1.0);
  EXPECT_THROW(amp::Autocast(DType::F32), ValueError);
  EXPECT_THROW(amp::Autocast(DType::BF16, 0.0), ValueError);
  EXPECT_THROW(amp::Autocast(DType::BF16, std::numeric_limits<double>::infinity()), ValueError);
  EXPECT_FALSE(amp::autocast_dtype());  // a refused scope changes nothing
}

TEST(Amp, PolicyTableProductsLowSoftmaxNormsSumsFull) {
  auto a = ramp(4, 6), b = ramp(6, 3, 0.03);
  auto low = a.cast(DType::BF16);
  amp::Autocast scope(DType::BF16);
  EXPECT_EQ(a.matmul(b).dtype(), DType::BF16);
  EXPECT_EQ(a.cast(DType::F64).matmul(b.cast(DType::F64)).dtype(), DType::F64);  // f64 is never lowered
  EXPECT_EQ(activation::softmax(low, 1).dtype(), DType::F32);
  EXPECT_EQ(activation::log_softmax(low, 1).dtype(), DType::F32);
  EXPECT_EQ(low.sum().dtype(), DType::F32);
  EXPECT_EQ(low.mean_dim(1).dtype(), DType::F32);
  EXPECT_EQ(functional::layer_norm(low).dtype(), DType::F32);
  EXPECT_EQ(functional::rms_norm(low).dtype(), DType::F32);
  EXPECT_EQ(low.exp().dtype(), DType::BF16);   // other ops keep their input's dtype
  EXPECT_EQ((a + low).dtype(), DType::F32);     // mixed operands meet in the wider dtype
  EXPECT_EQ((low + low).dtype(), DType::BF16);
  EXPECT_EQ(low.cast(DType::F16).add(low).dtype(), DType::F32);  // f16 with bf16: f32
  auto mask = a.greater_elem(0.0);
  EXPECT_EQ(low.mask_where(mask, a).dtype(), DType::F32);
  auto linear = nn::LinearConfig(6, 5).init<Cpu>();
  EXPECT_EQ(linear.forward(a).dtype(), DType::BF16);
  auto x = ramp(2 * 3, 8 * 8).reshape<4>({2, 3, 8, 8});
  auto conv = nn::Conv2dConfig({3, 4}, {3, 3}).init<Cpu>();
  EXPECT_EQ(conv.forward(x).dtype(), DType::BF16);
  auto q = ramp(2 * 2 * 5, 4).reshape<4>({2, 2, 5, 4});
  EXPECT_EQ(functional::attention(q, q, q).dtype(), DType::BF16);
  EXPECT_EQ(nn::LayerNormConfig(5).init<Cpu>().forward(linear.forward(a)).dtype(), DType::F32);
}

TEST(Amp, OutsideAScopeNothingIsCastAndMixedDtypesAreRefused) {
  auto a = ramp(4, 6), b = ramp(6, 3);
  EXPECT_EQ(a.matmul(b).dtype(), DType::F32);
  EXPECT_EQ(activation::softmax(a.cast(DType::BF16), 1).dtype(), DType::BF16);
  EXPECT_THROW(a + a.cast(DType::BF16), DTypeError);
  EXPECT_THROW(a.matmul(b.cast(DType::BF16)), DTypeError);
}

TEST(Amp, ValuesTrackFullPrecisionWithinBf16Rounding) {
  auto a = ramp(16, 32), b = ramp(32, 8, 0.05);
  auto full = activation::softmax(a.matmul(b), 1);
  Tensor<Cpu, 2> mixed;
  {
    amp::Autocast scope(DType::BF16);
    mixed = activation::softmax(a.matmul(b), 1);
  }
  EXPECT_TRUE(mixed.all_close(full, 2e-2, 2e-3));
  EXPECT_FALSE(mixed.to_data() == full.to_data());  // the product did run in bf16
}

/// y = Linear(x); loss = mean(log_softmax(y)²): the weights' gradients in f32 under autocast, close to f32's.
TEST(Amp, GradientsOfF32WeightsComeBackInF32) {
  AD::seed(5);
  auto linear = nn::LinearConfig(8, 4).init<AD>();
  auto x = Tensor<AD, 2>::from_inner(ramp(6, 8));
  auto loss_of = [&] { return activation::log_softmax(linear.forward(x), 1).square().mean(); };
  auto reference = loss_of().backward();
  auto ref_w = linear.weight.val().grad(reference).value();
  std::optional<Tensor<AD, 1>> loss;
  {
    amp::Autocast scope(DType::BF16);
    loss = loss_of();
  }
  EXPECT_EQ(loss->dtype(), DType::F32);
  auto grads = loss->backward();
  auto w = linear.weight.val().grad(grads).value();
  EXPECT_EQ(w.dtype(), DType::F32);
  EXPECT_TRUE(w.all_close(ref_w, 5e-2, 1e-3));
  EXPECT_EQ(linear.bias->val().grad(grads).value().dtype(), DType::F32);
}

TEST(Amp, BackwardInsideAScopeSeedsWithTheLossScale) {
  AD::seed(6);
  auto linear = nn::LinearConfig(3, 2).init<AD>();
  auto x = Tensor<AD, 2>::from_inner(ramp(4, 3));
  auto plain = linear.weight.val().grad(linear.forward(x).sum().backward()).value();
  auto loss = linear.forward(x).sum();
  std::optional<Tensor<Cpu, 2>> scaled;
  {
    amp::Autocast scale_only(std::nullopt, 8.0);
    scaled = linear.weight.val().grad(loss.backward()).value();
  }
  EXPECT_TRUE(scaled->all_close(plain.mul_scalar(8.0), 1e-6, 1e-6));
}

template <class B> struct TwoParams {
  Param<Tensor<B, 2>> w;
  Param<Tensor<B, 1>> b;
  SCORCH_MODULE(TwoParams, w, b)
};

/// Gradients 3·scale for w and 5·scale for b (one of them replaced by `poison` when given).
GradientsParams scaled_grads(const TwoParams<AD>& m, double scale, std::optional<double> poison = std::nullopt) {
  GradientsParams g;
  g.register_grad(m.w.id(), Tensor<Cpu, 2>::full({2, 2}, 3.0 * scale));
  auto b = Tensor<Cpu, 1>::full({3}, 5.0 * scale);
  if (poison) b = b.slice_assign({Slice(1, 2)}, Tensor<Cpu, 1>::full({1}, *poison));
  g.register_grad(m.b.id(), b);
  return g;
}

TwoParams<AD> two_params() {
  return {Param(Tensor<AD, 2>::zeros({2, 2})), Param(Tensor<AD, 1>::zeros({3}))};
}

TEST(GradScalerTest, UnscalesStepsAndSkipsOnInfOrNan) {
  auto scaler = GradScalerConfig().with_init_scale(1024.0).with_growth_interval(2).init();
  auto optim = optim::SgdConfig().init();
  auto model = two_params();
  EXPECT_EQ(scaler.scale(Tensor<Cpu, 1>::full({1}, 2.0)).into_scalar().to_double(), 2048.0);
  model = scaler.step(optim, 0.5, model, scaled_grads(model, 1024.0));
  EXPECT_NEAR(model.w.val().inner().to_data().to_vector<float>()[0], -1.5, 1e-6);  // 0 - 0.5 · 3
  EXPECT_NEAR(model.b.val().inner().to_data().to_vector<float>()[2], -2.5, 1e-6);
  EXPECT_EQ(scaler.scale(), 1024.0);
  model = scaler.step(optim, 0.5, model, scaled_grads(model, 1024.0));
  EXPECT_EQ(scaler.scale(), 2048.0);  // two clean steps: grown
  for (double poison : {std::numeric_limits<double>::infinity(), std::nan("")}) {
    auto before = model.w.val().inner().to_data();
    model = scaler.step(optim, 0.5, model, scaled_grads(model, scaler.scale(), poison));
    EXPECT_TRUE(model.w.val().inner().to_data() == before);  // skipped: nothing moved
  }
  EXPECT_EQ(scaler.scale(), 512.0);
  EXPECT_EQ(scaler.skipped_steps(), 2u);
  model = scaler.step(optim, 0.5, model, scaled_grads(model, 512.0));  // training continues
  EXPECT_NEAR(model.w.val().inner().to_data().to_vector<float>()[0], -4.5, 1e-6);
}

TEST(GradScalerTest, UnscaleReportsFiniteness) {
  auto scaler = GradScalerConfig().with_init_scale(4.0).init();
  auto model = two_params();
  auto grads = scaled_grads(model, 4.0);
  EXPECT_TRUE(scaler.unscale<Cpu>(grads));
  auto b = grads.get<Cpu, 1>(model.b.id());
  EXPECT_TRUE(b->all_close(Tensor<Cpu, 1>::full({3}, 5.0)));
  auto bad = scaled_grads(model, 4.0, -std::numeric_limits<double>::infinity());
  EXPECT_FALSE(scaler.unscale<Cpu>(bad));
  GradientsParams none;
  EXPECT_TRUE(scaler.unscale<Cpu>(none));
}

TEST(GradScalerTest, DisabledIsAPassThroughAndConfigIsChecked) {
  auto scaler = GradScalerConfig().with_enabled(false).init();
  EXPECT_EQ(scaler.scale(), 1.0);
  auto optim = optim::SgdConfig().init();
  auto model = two_params();
  model = scaler.step(optim, 1.0, model, scaled_grads(model, 1.0));
  EXPECT_NEAR(model.w.val().inner().to_data().to_vector<float>()[0], -3.0, 1e-6);
  EXPECT_THROW(GradScalerConfig().with_init_scale(0.0).init(), ValueError);
  EXPECT_THROW(GradScalerConfig().with_growth_factor(1.0).init(), ValueError);
  EXPECT_THROW(GradScalerConfig().with_backoff_factor(1.0).init(), ValueError);
  EXPECT_THROW(GradScalerConfig().with_growth_interval(0).init(), ValueError);
}

TEST(GradScalerTest, RecordRoundTripsAndBadRecordsAreRefused) {
  auto scaler = GradScalerConfig().with_init_scale(64.0).with_growth_interval(3).init();
  scaler.update(true);
  scaler.update(false);
  auto other = GradScalerConfig().init();
  other.load_record(scaler.to_record());
  EXPECT_EQ(other.scale(), 32.0);
  EXPECT_EQ(other.skipped_steps(), 1u);
  EXPECT_TRUE(other.to_record() == scaler.to_record());
  Record missing = Record::map();
  missing.set("scale", 2.0);
  EXPECT_THROW(other.load_record(missing), FormatError);
  Record negative = scaler.to_record();
  negative.set("scale", -1.0);
  EXPECT_THROW(other.load_record(negative), FormatError);
  EXPECT_THROW(other.load_record(Record(1.0)), FormatError);
}

}  // namespace
}  // namespace scorch::amptest

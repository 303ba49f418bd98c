// Resuming training: N steps, save model + optimizer + scheduler, load them into fresh objects,
// M more steps — bit-identical to N + M steps without the pause.
#include <gtest/gtest.h>

#include <scorch/scorch.hpp>

#include "support/temp_dir.h"

namespace scorch::optimtest {
namespace {

using AD = Autodiff<Cpu>;
using namespace scorch::optim;

template <class B> struct Mlp {
  nn::Linear<B> input;
  nn::LayerNorm<B> norm;
  nn::Linear<B> output;
  SCORCH_MODULE(Mlp, input, norm, output)
  Tensor<B, 2> forward(const Tensor<B, 2>& x) const {
    return output.forward(activation::gelu(norm.forward(input.forward(x))));
  }
};

Mlp<AD> fresh_model() {
  AD::seed(7);
  return {nn::LinearConfig(6, 16).init<AD>(), nn::LayerNormConfig(16).init<AD>(), nn::LinearConfig(16, 3).init<AD>()};
}
/// Batch t: formula inputs and labels (no random state involved).
std::pair<Tensor<AD, 2>, Tensor<AD, 1, Int>> batch(size_t t) {
  std::vector<float> x(8 * 6);
  std::vector<int64_t> y(8);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>((i * 13 + t * 7) % 17) - 8) / 8.0f;
  for (size_t i = 0; i < y.size(); ++i) y[i] = static_cast<int64_t>((i + t) % 3);
  return {Tensor<AD, 2>::from_data(TensorData(x, {8, 6})), Tensor<AD, 1, Int>::from_data(TensorData(y, {8}))};
}
/// capturable keeps the step count on the device (as under train::StepGraph); it must resume the same way.
auto make_optim(bool capturable = false) {
  return AdamWConfig()
      .with_weight_decay(0.01)
      .with_amsgrad(true)
      .with_grad_clipping(GradientClippingConfig::norm(1.0))
      .with_capturable(capturable)
      .init();
}
auto make_scheduler() { return CosineAnnealingLrSchedulerConfig(0.05, 12).with_min_lr(0.001).init(); }

template <class Optim> Mlp<AD> train(Mlp<AD> model, Optim& optim, LrScheduler& scheduler, size_t from, size_t to) {
  auto loss_fn = nn::CrossEntropyLossConfig().with_smoothing(0.05).init<AD>();
  for (size_t t = from; t < to; ++t) {
    auto [x, y] = batch(t);
    auto loss = loss_fn.forward(model.forward(x), y);
    model = optim.step(scheduler.step(), model, GradientsParams::from_grads(loss.backward(), model));
  }
  return model;
}

void check_resume(bool capturable);

TEST(Resume, SavedTrainingContinuesBitIdentically) {
  for (bool capturable : {false, true}) {
    SCOPED_TRACE(capturable ? "capturable" : "host step count");
    check_resume(capturable);
  }
}

void check_resume(bool capturable) {
  const size_t n = 5, m = 7;
  auto straight_optim = make_optim(capturable);
  auto straight_sched = make_scheduler();
  auto straight = train(fresh_model(), straight_optim, *straight_sched, 0, n + m);

  testing::TempDir dir("resume");
  auto optim = make_optim(capturable);
  auto sched = make_scheduler();
  auto paused = train(fresh_model(), optim, *sched, 0, n);
  paused.save_file(dir.file("model"), DefaultFileRecorder<>{});
  optim.save(dir.file("optim"), DefaultFileRecorder<>{});
  DefaultFileRecorder<>{}.record(sched->to_record(), dir.file("scheduler"));

  auto loaded_optim = make_optim(capturable);
  loaded_optim.load(dir.file("optim"), DefaultFileRecorder<>{});
  auto loaded_sched = make_scheduler();
  loaded_sched->load_record(DefaultFileRecorder<>{}.load(dir.file("scheduler")));
  AD::seed(99);  // a different initialisation, overwritten by the load
  auto blank = Mlp<AD>{nn::LinearConfig(6, 16).init<AD>(), nn::LayerNormConfig(16).init<AD>(),
                       nn::LinearConfig(16, 3).init<AD>()};
  auto resumed = train(blank.load_file(dir.file("model"), DefaultFileRecorder<>{}, CpuDevice{}), loaded_optim,
                       *loaded_sched, n, n + m);

  auto a = straight.into_record(), b = resumed.into_record();
  EXPECT_TRUE(a.find("input")->at("weight").as_tensor().data == b.find("input")->at("weight").as_tensor().data);
  EXPECT_TRUE(a.find("output")->at("bias").as_tensor().data == b.find("output")->at("bias").as_tensor().data);
  EXPECT_TRUE(a.find("norm")->at("gamma").as_tensor().data == b.find("norm")->at("gamma").as_tensor().data);
  EXPECT_EQ(optim.num_states(), 6u);
  const Record record = optim.to_record();
  for (const auto& [id, state] : record.as_map()) {
    EXPECT_EQ(state.find("step")->as_int(), static_cast<int64_t>(n));
    if (capturable) { EXPECT_EQ(state.find("step_count")->as_tensor().data.dtype(), DType::F64); }
  }
}

TEST(Resume, OptimizerRecordRejectsBadKeys) {
  auto optim = make_optim();
  Record bad = Record::map();
  bad.set("not-an-id", Record::map());
  EXPECT_THROW(optim.load_record(bad), FormatError);
  EXPECT_THROW(optim.load_record(Record(3)), FormatError);
}

}  // namespace
}  // namespace scorch::optimtest

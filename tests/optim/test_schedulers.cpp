// Learning-rate schedulers against PyTorch's (fixtures/schedulers.json), and their records.
#include <gtest/gtest.h>

#include <scorch/scorch.hpp>

#include "optim_fixtures.h"

namespace scorch::optimtest {
namespace {

using namespace scorch::optim;

std::unique_ptr<LrScheduler> make(const std::string& name) {
  auto linear = LinearLrSchedulerConfig(0.1, 0.01, 8);
  auto cosine = CosineAnnealingLrSchedulerConfig(0.1, 8).with_min_lr(0.001);
  auto composed = [&](SchedulerReduction r) {
    return ComposedLrSchedulerConfig().linear(linear).cosine(cosine).with_reduction(r).init();
  };
  if (name == "constant") return std::make_unique<ConstantLr>(0.1);
  if (name == "linear") return linear.init();
  if (name == "cosine") return cosine.init();
  if (name == "exponential") return ExponentialLrSchedulerConfig(0.1, 0.9).init();
  if (name == "step") return StepLrSchedulerConfig(0.1, 3).with_gamma(0.5).init();
  if (name == "noam") return NoamLrSchedulerConfig(2.0).with_warmup_steps(4).with_model_size(16).init();
  if (name == "composed_prod") return composed(SchedulerReduction::Prod);
  if (name == "composed_sum") return composed(SchedulerReduction::Sum);
  if (name == "composed_avg") return composed(SchedulerReduction::Avg);
  if (name == "sequential") {
    std::vector<std::unique_ptr<LrScheduler>> parts;
    parts.push_back(LinearLrSchedulerConfig(0.1, 0.01, 4).init());
    parts.push_back(ExponentialLrSchedulerConfig(0.05, 0.9).init());
    return std::make_unique<SequentialLrScheduler>(std::move(parts), std::vector<size_t>{4});
  }
  throw ValueError("make", "no scheduler " + name);
}

TEST(Schedulers, MatchPyTorch) {
  for (const auto& c : load_fixture("schedulers.json")) {
    std::string name = c["name"];
    SCOPED_TRACE(name);
    auto s = make(name);
    for (const auto& lr : c["lrs"]) EXPECT_NEAR(s->step(), lr.get<double>(), 1e-12);
  }
}

TEST(Schedulers, ResumeFromRecordContinuesTheSchedule) {
  for (const auto& c : load_fixture("schedulers.json")) {
    std::string name = c["name"];
    SCOPED_TRACE(name);
    auto first = make(name);
    for (int i = 0; i < 5; ++i) first->step();
    Record saved = first->to_record();
    auto resumed = make(name);
    resumed->load_record(saved);
    for (size_t t = 5; t < c["lrs"].size(); ++t) EXPECT_NEAR(resumed->step(), c["lrs"][t].get<double>(), 1e-12);
  }
}

TEST(Schedulers, RejectBadSettings) {
  EXPECT_THROW(LinearLrSchedulerConfig(0.1, 0.01, 0).init(), ValueError);
  EXPECT_THROW(CosineAnnealingLrSchedulerConfig(2.0, 8).init(), ValueError);
  EXPECT_THROW(ComposedLrSchedulerConfig().init(), ValueError);
  EXPECT_THROW(SequentialLrScheduler({}, {}), ValueError);
  auto s = ExponentialLrSchedulerConfig(0.1, 0.9).init();
  EXPECT_THROW(s->load_record(Record("nonsense")), FormatError);
}

}  // namespace
}  // namespace scorch::optimtest

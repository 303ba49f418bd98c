#pragma once
// Learning-rate schedulers. step() returns the rate for the next optimizer step
// (the first call gives the schedule's value at iteration 0) and advances; to_record /
// load_record save and restore the position, so a resumed run continues the same schedule.
#include <functional>
#include <memory>
#include <vector>

#include "scorch/module/config.h"

namespace scorch::optim {

using LearningRate = double;

/// A schedule of learning rates.
class LrScheduler {
 public:
  virtual ~LrScheduler() = default;
  /// The rate for this step; advances the schedule.
  virtual LearningRate step() = 0;
  /// The position (and any children's) as a record.
  virtual Record to_record() const = 0;
  /// Restores a position from to_record; throws FormatError on a record of another shape.
  virtual void load_record(const Record& record) = 0;
  virtual std::unique_ptr<LrScheduler> clone() const = 0;
};

/// Schedules whose rate is a function of the iteration count.
class IterationScheduler : public LrScheduler {
 public:
  LearningRate step() override { return at(iteration_++); }
  Record to_record() const override;
  void load_record(const Record& record) override;
  /// The rate at iteration t (from 0).
  virtual LearningRate at(int64_t t) const = 0;

 protected:
  int64_t iteration_ = 0;
};

/// The same rate at every step.
class ConstantLr final : public IterationScheduler {
 public:
  explicit ConstantLr(LearningRate lr) : lr_(lr) {}
  LearningRate at(int64_t) const override { return lr_; }
  std::unique_ptr<LrScheduler> clone() const override { return std::make_unique<ConstantLr>(*this); }

 private:
  LearningRate lr_;
};

/// A rate computed by a function of the iteration (also the base of the built-in schedules).
class FunctionScheduler final : public IterationScheduler {
 public:
  explicit FunctionScheduler(std::function<LearningRate(int64_t)> f) : f_(std::move(f)) {}
  LearningRate at(int64_t t) const override { return f_(t); }
  std::unique_ptr<LrScheduler> clone() const override { return std::make_unique<FunctionScheduler>(*this); }

 private:
  std::function<LearningRate(int64_t)> f_;
};

/// initial → final linearly over num_iters steps, then final.
struct LinearLrSchedulerConfig {
  double initial_lr, final_lr;
  size_t num_iters;
  SCORCH_CONFIG(LinearLrSchedulerConfig, (initial_lr, final_lr, num_iters), ())
  /// Throws ValueError on num_iters = 0 or a rate outside (0, 1].
  std::unique_ptr<LrScheduler> init() const;
};
/// min + ½(initial − min)(1 + cos(π·t/num_iters)), restarting after num_iters.
struct CosineAnnealingLrSchedulerConfig {
  double initial_lr;
  size_t num_iters;
  double min_lr = 0.0;
  SCORCH_CONFIG(CosineAnnealingLrSchedulerConfig, (initial_lr, num_iters), (min_lr))
  std::unique_ptr<LrScheduler> init() const;
};
/// initial·gamma^t.
struct ExponentialLrSchedulerConfig {
  double initial_lr, gamma;
  SCORCH_CONFIG(ExponentialLrSchedulerConfig, (initial_lr, gamma), ())
  std::unique_ptr<LrScheduler> init() const;
};
/// initial·gamma^⌊t/step_size⌋.
struct StepLrSchedulerConfig {
  double initial_lr;
  size_t step_size;
  double gamma = 0.1;
  SCORCH_CONFIG(StepLrSchedulerConfig, (initial_lr, step_size), (gamma))
  std::unique_ptr<LrScheduler> init() const;
};
/// factor·model_size^−½·min(s^−½, s·warmup^−1.5) with s = t + 1 (the Transformer paper's schedule).
struct NoamLrSchedulerConfig {
  double factor;
  size_t warmup_steps = 4000, model_size = 512;
  SCORCH_CONFIG(NoamLrSchedulerConfig, (factor), (warmup_steps, model_size))
  std::unique_ptr<LrScheduler> init() const;
};

SCORCH_ENUM(SchedulerReduction, Prod, Sum, Avg)

/// Several schedules stepped together, their rates combined by product, sum or average.
class ComposedLrScheduler final : public LrScheduler {
 public:
  ComposedLrScheduler(std::vector<std::unique_ptr<LrScheduler>> parts, SchedulerReduction reduction);
  ComposedLrScheduler(const ComposedLrScheduler& other);
  LearningRate step() override;
  Record to_record() const override;
  void load_record(const Record& record) override;
  std::unique_ptr<LrScheduler> clone() const override { return std::make_unique<ComposedLrScheduler>(*this); }

 private:
  std::vector<std::unique_ptr<LrScheduler>> parts_;
  SchedulerReduction reduction_;
};

/// Builder of a ComposedLrScheduler: .linear(...).cosine(...)...init().
struct ComposedLrSchedulerConfig {
  SchedulerReduction reduction = SchedulerReduction::Prod;
  ComposedLrSchedulerConfig& constant(double lr);
  ComposedLrSchedulerConfig& linear(const LinearLrSchedulerConfig& c);
  ComposedLrSchedulerConfig& cosine(const CosineAnnealingLrSchedulerConfig& c);
  ComposedLrSchedulerConfig& exponential(const ExponentialLrSchedulerConfig& c);
  ComposedLrSchedulerConfig& step(const StepLrSchedulerConfig& c);
  ComposedLrSchedulerConfig& noam(const NoamLrSchedulerConfig& c);
  ComposedLrSchedulerConfig& with_custom_scheduler(std::unique_ptr<LrScheduler> s);
  ComposedLrSchedulerConfig& with_reduction(SchedulerReduction r) {
    reduction = r;
    return *this;
  }
  /// Throws ValueError when empty.
  std::unique_ptr<LrScheduler> init() const;

 private:
  std::vector<std::shared_ptr<const LrScheduler>> parts_;
};

/// Schedules run one after another: schedule i is active from milestones[i−1] to milestones[i],
/// each starting at its own iteration 0.
class SequentialLrScheduler final : public LrScheduler {
 public:
  SequentialLrScheduler(std::vector<std::unique_ptr<LrScheduler>> parts, std::vector<size_t> milestones);
  SequentialLrScheduler(const SequentialLrScheduler& other);
  LearningRate step() override;
  Record to_record() const override;
  void load_record(const Record& record) override;
  std::unique_ptr<LrScheduler> clone() const override { return std::make_unique<SequentialLrScheduler>(*this); }

 private:
  std::vector<std::unique_ptr<LrScheduler>> parts_;
  std::vector<size_t> milestones_;
  int64_t iteration_ = 0;
};

}  // namespace scorch::optim

#include "scorch/optim/lr_scheduler.h"

#include <cmath>

namespace scorch::optim {

namespace {
void check_rate(const char* op, double lr) {
  if (!(lr > 0 && lr <= 1)) throw ValueError(op, "learning rate must be in (0, 1], got " + std::to_string(lr));
}
int64_t read_iteration(const Record& r, const char* op) {
  if (!r.is_map() || !r.find("iteration")) throw FormatError(op, "expected {iteration: n}, found " + describe(r));
  return r.at("iteration").as_int();
}
std::vector<std::unique_ptr<LrScheduler>> clone_all(const std::vector<std::unique_ptr<LrScheduler>>& parts) {
  std::vector<std::unique_ptr<LrScheduler>> out;
  for (const auto& p : parts) out.push_back(p->clone());
  return out;
}
Record parts_record(const std::vector<std::unique_ptr<LrScheduler>>& parts) {
  Record::List items;
  for (const auto& p : parts) items.push_back(p->to_record());
  return Record(std::move(items));
}
void load_parts(std::vector<std::unique_ptr<LrScheduler>>& parts, const Record& r, const char* op) {
  if (!r.is_list() || r.size() != parts.size())
    throw FormatError(op,
                      "expected a list of " + std::to_string(parts.size()) + " scheduler states, found " + describe(r));
  for (size_t i = 0; i < parts.size(); ++i) parts[i]->load_record(r.at(i));
}
}  // namespace

Record IterationScheduler::to_record() const {
  Record r = Record::map();
  r.set("iteration", iteration_);
  return r;
}
void IterationScheduler::load_record(const Record& record) {
  iteration_ = read_iteration(record, "LrScheduler::load_record");
}

std::unique_ptr<LrScheduler> LinearLrSchedulerConfig::init() const {
  check_rate("LinearLrSchedulerConfig::init", initial_lr);
  if (!(final_lr >= 0 && final_lr <= 1))
    throw ValueError("LinearLrSchedulerConfig::init", "final_lr must be in [0, 1], got " + std::to_string(final_lr));
  if (num_iters == 0) throw ValueError("LinearLrSchedulerConfig::init", "num_iters must be at least 1");
  auto c = *this;
  return std::make_unique<FunctionScheduler>([c](int64_t t) {
    double frac =
        static_cast<double>(std::min<int64_t>(t, static_cast<int64_t>(c.num_iters))) / static_cast<double>(c.num_iters);
    return c.initial_lr + (c.final_lr - c.initial_lr) * frac;
  });
}

std::unique_ptr<LrScheduler> CosineAnnealingLrSchedulerConfig::init() const {
  check_rate("CosineAnnealingLrSchedulerConfig::init", initial_lr);
  if (!(min_lr >= 0 && min_lr <= initial_lr))
    throw ValueError("CosineAnnealingLrSchedulerConfig::init",
                     "min_lr must be in [0, initial_lr], got " + std::to_string(min_lr));
  if (num_iters == 0) throw ValueError("CosineAnnealingLrSchedulerConfig::init", "num_iters must be at least 1");
  auto c = *this;
  return std::make_unique<FunctionScheduler>([c](int64_t t) {
    double phase = static_cast<double>(t % static_cast<int64_t>(c.num_iters + 1)) / static_cast<double>(c.num_iters);
    return c.min_lr + 0.5 * (c.initial_lr - c.min_lr) * (1.0 + std::cos(M_PI * phase));
  });
}

std::unique_ptr<LrScheduler> ExponentialLrSchedulerConfig::init() const {
  check_rate("ExponentialLrSchedulerConfig::init", initial_lr);
  if (!(gamma > 0 && gamma <= 1))
    throw ValueError("ExponentialLrSchedulerConfig::init", "gamma must be in (0, 1], got " + std::to_string(gamma));
  auto c = *this;
  return std::make_unique<FunctionScheduler>(
      [c](int64_t t) { return c.initial_lr * std::pow(c.gamma, static_cast<double>(t)); });
}

std::unique_ptr<LrScheduler> StepLrSchedulerConfig::init() const {
  check_rate("StepLrSchedulerConfig::init", initial_lr);
  if (step_size == 0) throw ValueError("StepLrSchedulerConfig::init", "step_size must be at least 1");
  auto c = *this;
  return std::make_unique<FunctionScheduler>([c](int64_t t) {
    return c.initial_lr * std::pow(c.gamma, static_cast<double>(t / static_cast<int64_t>(c.step_size)));
  });
}

std::unique_ptr<LrScheduler> NoamLrSchedulerConfig::init() const {
  if (warmup_steps == 0 || model_size == 0)
    throw ValueError("NoamLrSchedulerConfig::init", "warmup_steps and model_size must be at least 1");
  auto c = *this;
  return std::make_unique<FunctionScheduler>([c](int64_t t) {
    double s = static_cast<double>(t + 1), w = static_cast<double>(c.warmup_steps);
    return c.factor / std::sqrt(static_cast<double>(c.model_size)) *
           std::min(1.0 / std::sqrt(s), s * std::pow(w, -1.5));
  });
}

ComposedLrScheduler::ComposedLrScheduler(std::vector<std::unique_ptr<LrScheduler>> parts, SchedulerReduction reduction)
    : parts_(std::move(parts)), reduction_(reduction) {
  if (parts_.empty()) throw ValueError("ComposedLrScheduler", "needs at least one scheduler");
}
ComposedLrScheduler::ComposedLrScheduler(const ComposedLrScheduler& other)
    : parts_(clone_all(other.parts_)), reduction_(other.reduction_) {}

LearningRate ComposedLrScheduler::step() {
  double acc = reduction_ == SchedulerReduction::Prod ? 1.0 : 0.0;
  for (auto& p : parts_) acc = reduction_ == SchedulerReduction::Prod ? acc * p->step() : acc + p->step();
  return reduction_ == SchedulerReduction::Avg ? acc / static_cast<double>(parts_.size()) : acc;
}
Record ComposedLrScheduler::to_record() const { return parts_record(parts_); }
void ComposedLrScheduler::load_record(const Record& record) {
  load_parts(parts_, record, "ComposedLrScheduler::load_record");
}

ComposedLrSchedulerConfig& ComposedLrSchedulerConfig::constant(double lr) {
  return with_custom_scheduler(std::make_unique<ConstantLr>(lr));
}
ComposedLrSchedulerConfig& ComposedLrSchedulerConfig::linear(const LinearLrSchedulerConfig& c) {
  return with_custom_scheduler(c.init());
}
ComposedLrSchedulerConfig& ComposedLrSchedulerConfig::cosine(const CosineAnnealingLrSchedulerConfig& c) {
  return with_custom_scheduler(c.init());
}
ComposedLrSchedulerConfig& ComposedLrSchedulerConfig::exponential(const ExponentialLrSchedulerConfig& c) {
  return with_custom_scheduler(c.init());
}
ComposedLrSchedulerConfig& ComposedLrSchedulerConfig::step(const StepLrSchedulerConfig& c) {
  return with_custom_scheduler(c.init());
}
ComposedLrSchedulerConfig& ComposedLrSchedulerConfig::noam(const NoamLrSchedulerConfig& c) {
  return with_custom_scheduler(c.init());
}
ComposedLrSchedulerConfig& ComposedLrSchedulerConfig::with_custom_scheduler(std::unique_ptr<LrScheduler> s) {
  parts_.push_back(std::shared_ptr<const LrScheduler>(std::move(s)));
  return *this;
}
std::unique_ptr<LrScheduler> ComposedLrSchedulerConfig::init() const {
  std::vector<std::unique_ptr<LrScheduler>> parts;
  for (const auto& p : parts_) parts.push_back(p->clone());
  return std::make_unique<ComposedLrScheduler>(std::move(parts), reduction);
}

SequentialLrScheduler::SequentialLrScheduler(std::vector<std::unique_ptr<LrScheduler>> parts,
                                             std::vector<size_t> milestones)
    : parts_(std::move(parts)), milestones_(std::move(milestones)) {
  if (parts_.empty() || milestones_.size() + 1 != parts_.size())
    throw ValueError("SequentialLrScheduler", std::to_string(parts_.size()) + " schedulers need " +
                                                  std::to_string(parts_.empty() ? 0 : parts_.size() - 1) +
                                                  " milestones, got " + std::to_string(milestones_.size()));
  for (size_t i = 1; i < milestones_.size(); ++i)
    if (milestones_[i] <= milestones_[i - 1]) throw ValueError("SequentialLrScheduler", "milestones must increase");
}
SequentialLrScheduler::SequentialLrScheduler(const SequentialLrScheduler& other)
    : parts_(clone_all(other.parts_)), milestones_(other.milestones_), iteration_(other.iteration_) {}

LearningRate SequentialLrScheduler::step() {
  size_t active = 0;
  while (active < milestones_.size() && iteration_ >= static_cast<int64_t>(milestones_[active])) ++active;
  ++iteration_;
  return parts_[active]->step();
}
Record SequentialLrScheduler::to_record() const {
  Record r = Record::map();
  r.set("iteration", iteration_);
  r.set("schedulers", parts_record(parts_));
  return r;
}
void SequentialLrScheduler::load_record(const Record& record) {
  iteration_ = read_iteration(record, "SequentialLrScheduler::load_record");
  if (!record.find("schedulers")) throw FormatError("SequentialLrScheduler::load_record", "missing 'schedulers'");
  load_parts(parts_, record.at("schedulers"), "SequentialLrScheduler::load_record");
}

}  // namespace scorch::optim

#pragma once
// The Learner (the Burn Book's LearnerBuilder / Learner). The model provides
//   TrainOutput<Item> train_step(const TrainBatch&) const;   // on an autodiff backend
//   ValidItem valid_step(const ValidBatch&) const;           // on model.valid()'s backend
// and the builder collects metrics, loggers, the renderer, checkpointing and stopping rules:
//   auto learner = LearnerBuilder(dir).metric_train_numeric(AccuracyMetric{}).num_epochs(10)
//                      .with_file_checkpointer(CompactRecorder{}).build(model, optim, 1e-4);
//   auto trained = learner.fit(train_loader, valid_loader);
// Only the step glue below is a template; the loop itself is compiled in the library (loop.cpp).
#include <any>
#include <typeindex>

#include "scorch/data/dataloader.h"
#include "scorch/distributed/data_parallel.h"
#include "scorch/optim/grad_scaler.h"
#include "scorch/optim/lr_scheduler.h"
#include "scorch/train/learner_types.h"
#include "scorch/train/loop.h"
#include "scorch/train/metric_set.h"
#include "scorch/train/outputs.h"

namespace scorch::train {

/// A model that can be trained on batches of type In.
template <class M, class In>
concept TrainStep = requires(const M& m, const In& batch) {
  m.train_step(batch);
};
/// A model that can be validated on batches of type In.
template <class M, class In>
concept ValidStep = requires(const M& m, const In& batch) {
  m.valid_step(batch);
};

namespace detail {
template <class T> struct TrainItemOf;
template <class Item> struct TrainItemOf<TrainOutput<Item>> { using type = Item; };
}  // namespace detail

/// Mixed-precision training (LearnerBuilder::mixed_precision): the autocast dtype and the loss scaling.
struct MixedPrecision {
  DType dtype = DType::BF16;
  optim::GradScalerConfig scaler = optim::GradScalerConfig().with_enabled(false);
};

/// A configured learner: fit() trains the model and returns it.
template <Module M, class Optim> class Learner {
 public:
  Learner(M model, Optim optim, std::unique_ptr<optim::LrScheduler> scheduler, LearnerOptions options,
          std::optional<MixedPrecision> precision = std::nullopt)
      : model_(std::move(model)),
        optim_(std::move(optim)),
        scheduler_(std::move(scheduler)),
        options_(std::move(options)),
        scaler_((precision ? precision->scaler : optim::GradScalerConfig().with_enabled(false)).init()) {
    if (precision) autocast_ = precision->dtype;
  }

  /// Trains for the configured epochs (validating after each) and returns the model; a stop
  /// (quit key, Ctrl-C, Interrupter::stop, early stopping) returns the model as it is then.
  template <class BT, class IT, class OT, class BV, class IV, class OV>
  M fit(std::shared_ptr<data::DataLoader<BT, IT, OT>> train, std::shared_ptr<data::DataLoader<BV, IV, OV>> valid) {
    using ValidModel = decltype(model_.valid());
    if constexpr (!TrainStep<M, OT>) {
      static_assert(TrainStep<M, OT>,
                    "Learner::fit: the model has no train_step for the training loader's batches; declare "
                    "`TrainOutput<Item> train_step(const Batch&) const` on the model (docs/book/05-modules.md)");
      return model_;
    } else if constexpr (!ValidStep<ValidModel, OV>) {
      static_assert(ValidStep<ValidModel, OV>,
                    "Learner::fit: model.valid().valid_step does not take the validation loader's batches. "
                    "model.valid() runs on the inner backend (Cpu for Autodiff<Cpu>): build the validation loader's "
                    "batcher for B::InnerBackend, as the guide does with MnistBatcher<Inner>");
      return model_;
    } else {
      return fit_checked(std::move(train), std::move(valid));
    }
  }
  /// How the last fit ended, and what it logged.
  const FitReport& report() const { return report_; }
  const MetricsStore& store() const { return store_; }
  Interrupter interrupter() const { return options_.interrupter; }
  /// The loss scaler (disabled unless mixed_precision turned it on): its scale and skipped steps.
  const optim::GradScaler& grad_scaler() const { return scaler_; }
  /// The data-parallel group this learner trains in (null: one process).
  const std::shared_ptr<distributed::ProcessGroup>& group() const { return options_.group; }

 private:
  template <class BT, class IT, class OT, class BV, class IV, class OV>
  M fit_checked(std::shared_ptr<data::DataLoader<BT, IT, OT>> train,
                std::shared_ptr<data::DataLoader<BV, IV, OV>> valid) {
    if (!train) throw ValueError("Learner::fit", "no training data loader");
    if (options_.group) shard_for_rank(train, valid);
    using Item = typename detail::TrainItemOf<decltype(model_.train_step(std::declval<const OT&>()))>::type;
    using ValidModel = decltype(model_.valid());
    using ValidItem = decltype(std::declval<const ValidModel&>().valid_step(std::declval<const OV&>()));
    Hooks<BT, IT, OT, BV, IV, OV, Item, ValidItem> hooks(*this, std::move(train), std::move(valid));
    TrainingLoop loop(options_);
    report_ = loop.run(hooks);
    store_ = loop.store();
    return model_;
  }

  /// Data-parallel: this rank's share of the loaders (unless already sharded), on this rank's device.
  template <class BT, class IT, class OT, class BV, class IV, class OV>
  void shard_for_rank(std::shared_ptr<data::DataLoader<BT, IT, OT>>& train,
                      std::shared_ptr<data::DataLoader<BV, IV, OV>>& valid) const {
    size_t rank = size_t(options_.group->rank()), world = size_t(options_.group->size());
    if (!train->sharded()) train = train->shard(rank, world, true);
    if (valid && !valid->sharded()) valid = valid->shard(rank, world, false);
    auto devices = scorch::devices(model_);
    if (devices.size() != 1) return;
    if constexpr (std::same_as<typename BT::Device, DeviceOf<M>>) train = train->to_device(devices.front());
    if constexpr (std::same_as<typename BV::Device, DeviceOf<M>>)
      if (valid) valid = valid->to_device(devices.front());
  }

  template <class BT, class IT, class OT, class BV, class IV, class OV, class Item, class ValidItem> struct Hooks final
      : TrainingHooks {
    using ValidModel = decltype(std::declval<const M&>().valid());
    Learner& l;
    std::shared_ptr<data::DataLoader<BT, IT, OT>> train_loader;
    std::shared_ptr<data::DataLoader<BV, IV, OV>> valid_loader;
    detail::MetricSet<Item> train_metrics;
    detail::MetricSet<ValidItem> valid_metrics;
    std::optional<data::EpochIterator<BT, IT, OT>> train_it;
    std::optional<data::EpochIterator<BV, IV, OV>> valid_it;
    std::optional<ValidModel> valid_model;
    optim::GradientsAccumulator<M> accumulator;
    std::unique_ptr<distributed::GradientReducer<M>> reducer;  // data-parallel only
    size_t accumulated = 0;
    double lr = 0;

    Hooks(Learner& learner, std::shared_ptr<data::DataLoader<BT, IT, OT>> t,
          std::shared_ptr<data::DataLoader<BV, IV, OV>> v)
        : l(learner),
          train_loader(std::move(t)),
          valid_loader(std::move(v)),
          train_metrics(l.options_.metrics[0], "train"),
          valid_metrics(l.options_.metrics[1], "valid") {
      if (!l.options_.group) return;
      auto devices = scorch::devices(l.model_);
      if (devices.size() != 1)
        throw DeviceError("Learner::fit", "data-parallel training needs the model on one device, it is on " +
                                              std::to_string(devices.size()));
      reducer = distributed::make_gradient_reducer<M>(l.options_.group, devices.front(), l.options_.reducer);
    }

    void start_epoch(Split split, size_t epoch) override {
      if (split == Split::Train) train_it.emplace(train_loader->iter_at(epoch - 1));
      else if (valid_loader) valid_model.emplace(l.model_.valid()), valid_it.emplace(valid_loader->iter_at(epoch - 1));
    }
    MetricMetadata metadata(data::Progress p, size_t epoch, size_t iteration, std::optional<double> rate) const {
      return {p.items_processed, p.items_total, epoch, l.options_.num_epochs, iteration, rate};
    }
    std::optional<IterationResult> iterate(Split split, size_t epoch, size_t iteration) override {
      if (split == Split::Valid) {
        if (!valid_it) return std::nullopt;
        auto batch = valid_it->next();
        if (!batch) return std::nullopt;
        auto item = l.autocast([&] { return valid_model->valid_step(*batch); }, 1.0);
        auto p = valid_it->progress();
        return IterationResult{valid_metrics.update(item, metadata(p, epoch, iteration, std::nullopt)),
                               p.items_processed, p.items_total};
      }
      auto batch = train_it->next();
      if (!batch) return std::nullopt;
      if (reducer) reducer->begin(l.model_);
      auto output = l.autocast([&] { return l.model_.train_step(*batch); }, l.scaler_.scale());
      if (reducer) output.grads = reducer->finish(l.model_, std::move(output.grads));
      accumulator.accumulate(l.model_, std::move(output.grads));
      if (++accumulated == l.options_.grads_accumulation) step();
      auto p = train_it->progress();
      return IterationResult{train_metrics.update(output.item, metadata(p, epoch, iteration, lr)), p.items_processed,
                             p.items_total};
    }
    void step() {
      lr = l.scheduler_->step();
      l.model_ = l.scaler_.step(l.optim_, lr, l.model_, accumulator.grads());  // skipped on overflow
      accumulated = 0;
    }
    void end_train_epoch() override {
      if (accumulated > 0) step();
      train_it.reset();
    }
    CheckpointRecords records() const override {
      CheckpointRecords r{l.model_.into_record(), l.optim_.to_record(), l.scheduler_->to_record(), std::nullopt};
      if (l.scaler_.enabled()) r.grad_scaler = l.scaler_.to_record();
      return r;
    }
    void restore(const CheckpointRecords& r) override {
      l.model_ = l.model_.load_record(r.model);
      l.optim_.load_record(r.optim);
      l.scheduler_->load_record(r.scheduler);
      if (r.grad_scaler) l.scaler_.load_record(*r.grad_scaler);
    }
    void start_run() override {
      if (!l.options_.group) return;
      auto& group = *l.options_.group;
      CheckpointRecords r = group.rank() == 0 ? records() : CheckpointRecords{};
      r.model = distributed::broadcast_record(group, r.model);
      r.optim = distributed::broadcast_record(group, r.optim);
      r.scheduler = distributed::broadcast_record(group, r.scheduler);
      if (l.scaler_.enabled()) r.grad_scaler = distributed::broadcast_record(group, r.grad_scaler.value_or(Record()));
      if (group.rank() != 0) restore(r);
    }
    std::string describe() const override {
      return std::string(M::scorch_module_name) + " (" + std::to_string(l.model_.num_params()) + " parameters)";
    }
  };

  /// step() inside an autocast scope when training in mixed precision (backward seeded with loss_scale).
  template <class Step> auto autocast(Step step, double loss_scale) const {
    if (!autocast_) return step();
    amp::Autocast scope(*autocast_, loss_scale);
    return step();
  }

  M model_;
  Optim optim_;
  std::unique_ptr<optim::LrScheduler> scheduler_;
  LearnerOptions options_;
  std::optional<DType> autocast_;
  optim::GradScaler scaler_;
  FitReport report_;
  MetricsStore store_;
};

/// Collects a learner's options; build() gives the Learner.
class LearnerBuilder {
 public:
  explicit LearnerBuilder(std::string artifact_dir) { options_.artifact_dir = std::move(artifact_dir); }
  /// A training metric shown and logged (text only in plots' absence).
  template <class Mt> LearnerBuilder& metric_train(Mt metric) { return add(0, std::move(metric)); }
  template <class Mt> LearnerBuilder& metric_valid(Mt metric) { return add(1, std::move(metric)); }
  /// A numeric training metric: also plotted (in the dashboard and as an SVG at the end).
  template <class Mt>
  requires std::derived_from<Mt, Numeric> LearnerBuilder& metric_train_numeric(Mt metric) {
    return add(0, std::move(metric));
  }
  template <class Mt>
  requires std::derived_from<Mt, Numeric> LearnerBuilder& metric_valid_numeric(Mt metric) {
    return add(1, std::move(metric));
  }
  /// Adds a metric logger (the default FileMetricLogger is used only when none is added).
  LearnerBuilder& with_metric_logger(std::shared_ptr<MetricLogger> logger) {
    options_.loggers.push_back(std::move(logger));
    return *this;
  }
  /// The renderer (default: the TUI on a terminal, plain lines otherwise).
  LearnerBuilder& renderer(std::shared_ptr<MetricsRenderer> renderer) {
    options_.renderer = std::move(renderer);
    return *this;
  }
  /// Sums the gradients of n batches before each optimizer step.
  LearnerBuilder& grads_accumulation(size_t n) {
    options_.grads_accumulation = n;
    return *this;
  }
  /// Trains in mixed precision: the train and valid steps run inside an amp::Autocast(dtype) scope (products in
  /// dtype, softmax, norms and losses in f32; docs/mixed-precision.md) with f32 weights and optimizer state. f16
  /// also scales the loss (scaler, default GradScalerConfig()); bf16 needs none unless a scaler is given.
  /// Throws ValueError for a dtype other than F16/BF16.
  LearnerBuilder& mixed_precision(DType dtype = DType::BF16,
                                  std::optional<optim::GradScalerConfig> scaler = std::nullopt) {
    if (dtype != DType::F16 && dtype != DType::BF16)
      throw ValueError("LearnerBuilder::mixed_precision",
                       "the dtype must be f16 or bf16, got " + std::string(dtype_name(dtype)));
    if (!scaler) scaler = optim::GradScalerConfig().with_enabled(dtype == DType::F16);
    scaler->init();  // validates now rather than at build
    precision_ = MixedPrecision{dtype, *scaler};
    options_.grad_scaler = scaler->enabled;
    return *this;
  }
  /// Saves model, optimizer and scheduler after each epoch to artifact_dir/checkpoint with recorder.
  template <class R> LearnerBuilder& with_file_checkpointer(R recorder) {
    options_.checkpoint_recorder = AnyRecorder::from(std::move(recorder));
    return *this;
  }
  /// Which checkpoints to keep (default: the last two and the best by validation loss).
  template <class S> LearnerBuilder& with_checkpointing_strategy(S strategy) {
    options_.checkpointing = std::make_shared<S>(std::move(strategy));
    return *this;
  }
  LearnerBuilder& num_epochs(size_t n) {
    options_.num_epochs = n;
    return *this;
  }
  /// The devices to train on: one (the model and batches go there), or one per process of a data-parallel run
  /// (`scorch-run --nproc N`): each process trains on devices[LOCAL_RANK].
  template <class Device> LearnerBuilder& devices(const std::vector<Device>& devices) {
    if (devices.empty()) throw ValueError("LearnerBuilder::devices", "no device");
    devices_.assign(devices.begin(), devices.end());
    return *this;
  }
  /// Trains data-parallel in group (one process per device: parameters sent from rank 0 at the start, gradients
  /// averaged across the ranks during backward, each rank a share of every epoch, metrics combined, rank 0 alone
  /// writing). A learner built under scorch-run or torchrun's environment (WORLD_SIZE > 1) joins
  /// distributed::default_group() without this call.
  LearnerBuilder& data_parallel(std::shared_ptr<distributed::ProcessGroup> group,
                                distributed::ReducerOptions reducer = {}) {
    if (!group) throw ValueError("LearnerBuilder::data_parallel", "no process group");
    options_.group = std::move(group);
    options_.reducer = reducer;
    return *this;
  }
  /// Resumes after the checkpoint of epoch (model, optimizer, scheduler and metric history).
  LearnerBuilder& checkpoint(size_t epoch) {
    options_.checkpoint = epoch;
    return *this;
  }
  /// Stops when the strategy says so after an epoch.
  template <class S> LearnerBuilder& early_stopping(S strategy) {
    options_.early_stopping = std::make_shared<S>(std::move(strategy));
    return *this;
  }
  /// A shared interrupter user code can stop the run with.
  LearnerBuilder& with_interrupter(Interrupter interrupter) {
    options_.interrupter = std::move(interrupter);
    return *this;
  }
  Interrupter interrupter() const { return options_.interrupter; }
  /// Prints the summary table at the end.
  LearnerBuilder& summary() {
    options_.summary = true;
    return *this;
  }
  /// Whether the SVG plots are written at the end (default on).
  LearnerBuilder& plots(bool on) {
    options_.plots = on;
    return *this;
  }
  /// Whether Ctrl-C/SIGTERM stop the run cleanly while it is active (default on).
  LearnerBuilder& stop_on_signals(bool on) {
    options_.stop_on_signals = on;
    return *this;
  }

  /// The learner for model and optimizer with a constant learning rate.
  template <Module M, class Optim> Learner<M, Optim> build(M model, Optim optim, double lr) const {
    return build(std::move(model), std::move(optim), std::make_unique<optim::ConstantLr>(lr));
  }
  /// The learner with a learning-rate scheduler.
  template <Module M, class Optim>
  Learner<M, Optim> build(M model, Optim optim, std::unique_ptr<optim::LrScheduler> scheduler) const {
    if (!scheduler) throw ValueError("LearnerBuilder::build", "no learning-rate scheduler");
    LearnerOptions options = options_;
    if (!options.group) options.group = distributed::default_group();
    if (!devices_.empty()) model = model.fork(chosen_device<M>(options.group.get()));
    return Learner<M, Optim>(std::move(model), std::move(optim), std::move(scheduler), std::move(options), precision_);
  }

 private:
  template <class Mt> LearnerBuilder& add(int split, Mt metric) {
    options_.metrics[split].push_back(std::make_shared<Mt>(std::move(metric)));
    return *this;
  }
  /// This process's device of those given to devices(): the only one, or devices[LOCAL_RANK] in a group.
  template <Module M> DeviceOf<M> chosen_device(const distributed::ProcessGroup* group) const {
    size_t k = 0;
    if (devices_.size() > 1) {
      if (!group)
        throw ValueError("LearnerBuilder::devices", std::to_string(devices_.size()) +
                                                        " devices train with one process each: launch the program "
                                                        "with `scorch-run --nproc " +
                                                        std::to_string(devices_.size()) + "` (or call data_parallel)");
      k = size_t(group->local_rank());
      if (k >= devices_.size())
        throw ValueError("LearnerBuilder::devices", "local rank " + std::to_string(k) + " has no device: " +
                                                        std::to_string(devices_.size()) + " given");
    }
    auto* device = std::any_cast<DeviceOf<M>>(&devices_[k]);
    if (!device)
      throw DeviceError("LearnerBuilder::build",
                        "the device given to devices() is not a " + std::string(BackendOf<M>::name()) + " device");
    return *device;
  }
  LearnerOptions options_;
  std::optional<MixedPrecision> precision_;
  std::vector<std::any> devices_;
};

}  // namespace scorch::train

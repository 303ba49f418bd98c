// The book's "your own model on the Learner" (docs/book/08-learner.md): a regression that is not a classifier, first
// with the provided RegressionOutput, then with an output type and a metric of its own. The data: y = 2 a - b + 0.5 c
// + 1 over points (a, b, c) of a grid; the model has to find the four numbers.
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <scorch/core/cli.h>
#include <scorch/data/dataloader.h>
#include <scorch/scorch.hpp>
#include <scorch/train.hpp>

using namespace scorch;

// [book:data]
/// One example: three features and the value to predict.
struct Sample {
  float features[3];
  float target;
};

/// Samples → features [n, 3] and targets [n, 1] on a device of B.
template <class B> struct SampleBatch { Tensor<B, 2> features, targets; };

template <class B> struct SampleBatcher final : data::Batcher<B, Sample, SampleBatch<B>> {
  SampleBatch<B> batch(std::vector<Sample> items, const typename B::Device& device) const override {
    std::vector<float> features, targets;
    for (const Sample& s : items) {
      features.insert(features.end(), s.features, s.features + 3);
      targets.push_back(s.target);
    }
    return {Tensor<B, 2>::from_data(TensorData(features, {items.size(), size_t{3}}), device),
            Tensor<B, 2>::from_data(TensorData(targets, {items.size(), size_t{1}}), device)};
  }
};
// [/book:data]

// [book:output]
/// What the custom metric reads: the batch's mean absolute error and its size.
struct AbsoluteErrorInput {
  double mean_absolute_error = 0;
  size_t count = 0;
};

/// A step's output of our own: the loss the Learner plots, and what AbsoluteErrorInput is computed from.
template <class B> struct FitOutput {
  Tensor<B, 1> loss;
  Tensor<B, 2> predicted, targets;
  using Adapts = std::tuple<train::LossInput, AbsoluteErrorInput>;  // the metric inputs it provides
};

/// A numeric metric (plotted, logged, usable for checkpoints and early stopping) over AbsoluteErrorInput.
class MeanAbsoluteError final : public train::NumericMetric<AbsoluteErrorInput> {
 public:
  std::string name() const override { return "Mean Absolute Error"; }
  train::MetricEntry update(const AbsoluteErrorInput& input, const train::MetricMetadata&) override {
    return state_.update(input.mean_absolute_error, input.count, train::FormatOptions(name()).with_precision(4));
  }
  void clear() override { state_.reset(); }
  double value() const override { return state_.value(); }

 private:
  train::NumericMetricState state_;  // the epoch's mean, weighted by batch size
};

// How FitOutput becomes each input it lists in Adapts.
template <class B> struct train::Adaptor<FitOutput<B>, train::LossInput> {
  static train::LossInput adapt(const FitOutput<B>& o) { return {o.loss.into_scalar().to_double()}; }
};
template <class B> struct train::Adaptor<FitOutput<B>, AbsoluteErrorInput> {
  static AbsoluteErrorInput adapt(const FitOutput<B>& o) {
    double error = (o.predicted - o.targets).abs().mean().into_scalar().to_double();
    return {error, o.targets.dims()[0]};
  }
};
// [/book:output]

// [book:model]
template <Backend B> struct LinearRegression {
  nn::Linear<B> linear;
  SCORCH_MODULE(LinearRegression, linear)

  /// features [n, 3] → predictions [n, 1].
  Tensor<B, 2> forward(const Tensor<B, 2>& features) const { return linear.forward(features); }

  /// The provided output: loss [1], predictions and targets [n, outputs]; metrics: LossMetric.
  train::RegressionOutput<B> forward_regression(const SampleBatch<B>& batch) const {
    auto predicted = forward(batch.features);
    return {nn::MseLoss{}.forward(predicted, batch.targets), predicted, batch.targets};
  }
  /// Our own output: the same loss, and what MeanAbsoluteError reads.
  FitOutput<B> forward_fit(const SampleBatch<B>& batch) const {
    auto predicted = forward(batch.features);
    return {nn::MseLoss{}.forward(predicted, batch.targets), predicted, batch.targets};
  }

  /// Training (autodiff backends only): the gradients of the loss and the output the metrics read.
  train::TrainOutput<FitOutput<B>> train_step(const SampleBatch<B>& batch) const requires AutodiffBackend<B> {
    auto output = forward_fit(batch);
    return {*this, output.loss.backward(), output};
  }
  /// Validation, on the inner backend (model.valid(): no graph is recorded).
  FitOutput<B> valid_step(const SampleBatch<B>& batch) const { return forward_fit(batch); }
};
// [/book:model]

/// The points of a 6 × 6 × 6 grid over [-1, 1]³ and their targets.
std::vector<Sample> grid_samples() {
  std::vector<Sample> samples;
  for (int i = 0; i < 216; ++i) {
    float a = float(i % 6) / 2.5f - 1, b = float(i / 6 % 6) / 2.5f - 1, c = float(i / 36) / 2.5f - 1;
    samples.push_back({{a, b, c}, 2 * a - b + 0.5f * c + 1});
  }
  return samples;
}

int main(int argc, char** argv) try {
  cli::answer_help(argc, argv,
                   "usage: own_model\nThe book's own model on the Learner: a linear regression with a custom output "
                   "and metric. No options.");
  // [book:fit]
  using B = Autodiff<Cpu>;
  B::seed(3);
  auto samples = data::share(data::ShuffledDataset<Sample>(data::share(data::InMemDataset(grid_samples())), 5));
  auto train_set = data::share(data::PartialDataset<Sample>(samples, 0, 162)),  // 3/4 to train on, 1/4 to validate
      valid_set = data::share(data::PartialDataset<Sample>(samples, 162, 216));
  auto loader = [](auto batcher, auto dataset, bool shuffle) {
    auto builder = data::dataloader_builder(batcher).batch_size(16);
    if (shuffle) builder.shuffle(11);
    return builder.build(dataset);
  };
  std::ostringstream progress;  // the Learner's lines, kept out of the book's output
  auto learner = train::LearnerBuilder("/tmp/scorch-book-own-model")
                     .metric_train_numeric(train::LossMetric{})
                     .metric_valid_numeric(train::LossMetric{})
                     .metric_valid_numeric(MeanAbsoluteError{})
                     .num_epochs(60)
                     .renderer(std::make_shared<train::CliRenderer>(progress))
                     .build(LinearRegression<B>{nn::LinearConfig(3, 1).init<B>()}, optim::AdamConfig().init(), 5e-2);
  // Training batches on the autodiff backend, validation batches on its inner backend (Cpu).
  LinearRegression<B> model = learner.fit(loader(std::make_shared<SampleBatcher<B>>(), train_set, true),
                                          loader(std::make_shared<SampleBatcher<Cpu>>(), valid_set, false));
  // [/book:fit]
  auto mae = learner.store().epoch_values(train::Split::Valid, "Mean Absolute Error");
  auto weights = model.linear.weight.val().into_data().to_vector<float>();
  auto bias = model.linear.bias->val().into_data().to_vector<float>();
  std::cout << std::fixed << std::setprecision(1) << "learned y = " << weights[0] << " a + " << weights[1] << " b + "
            << weights[2] << " c + " << bias[0] << "\n"
            << "epochs " << mae.size()
            << ", validation mean absolute error below 0.05: " << (mae.back().second < 0.05 ? "yes" : "no")
            << " (first epoch above 0.3: " << (mae.front().second > 0.3 ? "yes" : "no") << ")\n";
} catch (const std::exception& e) {
  std::cerr << e.what() << "\n";
  return 1;
}

// Forecasting a series with stacked LSTMs: windows of 32 steps predict the next value. AdamW with gradient
// clipping, a cosine learning-rate schedule and early stopping, trained by the Learner; then the test part of the
// series is forecast and compared with the noise floor and with repeating the last value.
//   lstm-forecast [--epochs N] [--artifact-dir DIR]     (defaults: 30 epochs, /tmp/lstm-forecast)
#include <cmath>
#include <fstream>
#include <iostream>

#include "common/training.h"
#include "model.h"

using namespace scorch;
using namespace forecast;

namespace {

/// Root mean squared difference of two [n, 1] tensors.
template <class B> double rmse(const Tensor<B, 2>& a, const Tensor<B, 2>& b) {
  return std::sqrt((a - b).square().mean().into_scalar().to_double());
}

/// The test windows as one batch.
WindowBatch<Cpu> whole(const data::DatasetPtr<Window>& set) {
  std::vector<Window> windows;
  for (size_t i = 0; i < set->len(); ++i) windows.push_back(*set->get(i));
  return WindowBatcher<Cpu>{}.batch(windows, {});
}

}  // namespace

int main(int argc, char** argv) try {
  auto run = examples::training_run(argc, argv, "lstm-forecast", "30");
  const auto& artifact_dir = run.artifact_dir;
  using B = Autodiff<Cpu>;
  B::seed(3);
  auto [train_set, valid_set, test_set] = split_series();
  auto train_loader = window_loader<B>(train_set, true);
  size_t iterations = run.epochs * ((train_set->len() + 63) / 64);

  auto learner =
      examples::learner_builder(run, false)
          .metric_train_numeric(train::LearningRateMetric{})
          .early_stopping(train::MetricEarlyStoppingStrategy("Loss", train::Aggregate::Mean, train::Direction::Lowest,
                                                             train::Split::Valid, train::NoImprovementSince{5}))
          .build(ForecasterConfig().init<B>(),
                 optim::AdamWConfig().with_grad_clipping(optim::GradientClippingConfig::norm(1.0)).init(),
                 optim::CosineAnnealingLrSchedulerConfig(3e-3, std::max<size_t>(iterations, 1)).init());
  auto model = learner.fit(train_loader, window_loader<Cpu>(valid_set, false));
  model.save_file(artifact_dir + "/model", CompactRecorder{});

  auto test = whole(test_set);
  auto forecast = model.valid().forward(test.inputs);
  auto last_values = test.inputs.slice_dim(1, Slice(int64_t(kWindow) - 1)).reshape<2>({-1, 1});
  std::ofstream csv(artifact_dir + "/forecast.csv");
  csv << "step,actual,forecast\n";
  auto actual = test.targets.to_data().to_vector<float>(), predicted = forecast.to_data().to_vector<float>();
  for (size_t i = 0; i < actual.size(); ++i) csv << i << "," << actual[i] << "," << predicted[i] << "\n";
  std::cout << "test forecast (" << actual.size() << " steps): RMSE " << rmse(forecast, test.targets)
            << "; the noise alone gives " << kNoise << ", repeating the last value " << rmse(last_values, test.targets)
            << "\nmodel saved to " << artifact_dir << "/model.mpk.gz, forecast to " << artifact_dir
            << "/forecast.csv\n";
} catch (const std::exception& e) {
  std::cerr << e.what() << "\n";
  return 1;
}

// Simple regression on a real table: the diabetes data scikit-learn ships, read by a custom dataset, split 80/20,
// an MLP trained with the Learner (Adam, MSE), then the test set's error in the target's units.
//   simple-regression [--epochs N] [--artifact-dir DIR]     (defaults: 100 epochs, /tmp/simple-regression)
#include <cmath>
#include <filesystem>
#include <iostream>

#include "common/training.h"
#include "model.h"

using namespace scorch;
using namespace regression;

int main(int argc, char** argv) try {
  auto [epochs, artifact_dir] = examples::training_run(argc, argv, "simple-regression", "100");
  using B = Autodiff<Cpu>;
  B::seed(7);
  auto [train_set, test_set] = split_diabetes();

  auto learner = train::LearnerBuilder(artifact_dir)
                     .metric_train_numeric(train::LossMetric{})
                     .metric_valid_numeric(train::LossMetric{})
                     .num_epochs(epochs)
                     .renderer(std::make_shared<train::CliRenderer>())
                     .build(RegressionModelConfig().init<B>(), optim::AdamConfig().init(), 1e-3);
  auto model = learner.fit(diabetes_loader<B>(train_set), diabetes_loader<Cpu>(test_set));
  model.save_file(artifact_dir + "/model", CompactRecorder{});

  // The test set in the target's units: root mean squared and mean absolute error.
  std::vector<DiabetesItem> test_items;
  for (size_t i = 0; i < test_set->len(); ++i) test_items.push_back(*test_set->get(i));
  auto test = DiabetesBatcher<Cpu>{}.batch(test_items, {});
  auto error = (model.valid().forward(test.features) - test.targets) * 100.0;
  double rmse = std::sqrt(error.square().mean().into_scalar().to_double());
  double mae = error.abs().mean().into_scalar().to_double();
  std::cout << "test set (" << test_set->len() << " patients): RMSE " << rmse << ", MAE " << mae
            << " (the targets range from 25 to 346)\nmodel saved to " << artifact_dir << "/model.mpk.gz\n";
} catch (const std::exception& e) {
  std::cerr << e.what() << "\n";
  return 1;
}

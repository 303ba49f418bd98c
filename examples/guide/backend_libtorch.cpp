// The guide on LibTorch (Debian's libtorch, on its CPU device): training on Autodiff<LibTorch> and inference on
// LibTorch, compiled only when the build has the backend (examples/CMakeLists.txt).
#include <scorch/stacks/libtorch/autodiff.h>

#include "inference.hpp"

namespace guide {

train::FitReport train_on_libtorch(const std::string& artifact_dir, const TrainingConfig& config,
                                   const TrainOptions& options) {
  return run_training<Autodiff<LibTorch>>(artifact_dir, config, {}, options);
}

Evaluation evaluate_on_libtorch(const std::string& artifact_dir, DataSource source, size_t show) {
  return evaluate_on<LibTorch>(artifact_dir, source, show);
}

}  // namespace guide

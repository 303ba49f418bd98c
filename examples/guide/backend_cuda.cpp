// The guide on Cuda (GPU 0): training on Autodiff<Cuda> and inference on Cuda, compiled only when the build has
// the backend (examples/CMakeLists.txt).
#include <scorch/stacks/cuda/autodiff.h>

#include "inference.hpp"

namespace guide {

train::FitReport train_on_cuda(const std::string& artifact_dir, const TrainingConfig& config,
                               const TrainOptions& options) {
  return run_training<Autodiff<Cuda>>(artifact_dir, config, {}, options);
}

Evaluation evaluate_on_cuda(const std::string& artifact_dir, DataSource source, size_t show) {
  return evaluate_on<Cuda>(artifact_dir, source, show);
}

}  // namespace guide

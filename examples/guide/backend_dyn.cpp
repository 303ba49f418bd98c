// The guide on any Dyn stack (--backend fusion<cpu>, libtorch, cuda:0, vulkan:0, ...): training on Autodiff<Dyn> and
// inference on Dyn, compiled once whatever stacks the build has.
#include <scorch/stacks/dyn/nn.h>

#include "inference.hpp"

namespace guide {

train::FitReport train_on_dyn(const std::string& artifact_dir, const TrainingConfig& config,
                              const TrainOptions& options) {
  Dyn::set_default_device(options.backend.device());
  return run_training<Autodiff<Dyn>>(artifact_dir, config, {}, options);
}

Evaluation evaluate_on_dyn(const std::string& artifact_dir, DataSource source, size_t show,
                           const BackendChoice& backend) {
  Dyn::set_default_device(backend.device());
  return evaluate_on<Dyn>(artifact_dir, source, show);
}

}  // namespace guide

#include "scorch/optim/gradients_params.h"

namespace scorch::optim {

std::vector<ParamId> GradientsParams::ids() const {
  std::vector<ParamId> out;
  for (const auto& [id, g] : grads_) out.push_back(id);
  return out;
}

}  // namespace scorch::optim

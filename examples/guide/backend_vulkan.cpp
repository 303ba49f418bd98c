// The guide on Vulkan (device 0: a GPU, or Mesa's lavapipe on the CPU): training on Autodiff<Vulkan> and inference
// on Vulkan, compiled only when the build has the backend (examples/CMakeLists.txt).
#include <scorch/stacks/vulkan/autodiff.h>

#include "inference.hpp"

namespace guide {
GUIDE_BACKEND_COMMANDS(vulkan, Vulkan)
}  // namespace guide

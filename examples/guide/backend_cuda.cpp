// The guide on Cuda (GPU 0): training on Autodiff<Cuda> and inference on Cuda, compiled only when the build has
// the backend (examples/CMakeLists.txt).
#include <scorch/stacks/cuda/autodiff.h>

#include "inference.hpp"

namespace guide {
GUIDE_BACKEND_COMMANDS(cuda, Cuda)
}  // namespace guide

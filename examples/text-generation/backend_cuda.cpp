// The example's training and sampling on Cuda (GPU 0), compiled only when the build has the backend
// (examples/CMakeLists.txt).
#include <scorch/stacks/cuda/autodiff.h>

#include "training_on.h"

namespace textgen {
TEXTGEN_BACKEND_COMMANDS(cuda, Cuda)
}  // namespace textgen

// The example's training and sampling on LibTorch (Debian's libtorch, on its CPU device), compiled only when the
// build has the backend (examples/CMakeLists.txt).
#include <scorch/stacks/libtorch/autodiff.h>

#include "training_on.h"

namespace textgen {
TEXTGEN_BACKEND_COMMANDS(libtorch, LibTorch)
}  // namespace textgen

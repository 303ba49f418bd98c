// The guide on LibTorch (Debian's libtorch, on its CPU device): training on Autodiff<LibTorch> and inference on
// LibTorch, compiled only when the build has the backend (examples/CMakeLists.txt).
#include <scorch/stacks/libtorch/autodiff.h>

#include "inference.hpp"

namespace guide {
GUIDE_BACKEND_COMMANDS(libtorch, LibTorch)
}  // namespace guide

// The custom training loop on LibTorch (Debian's libtorch, on its CPU device), compiled only when the build has
// the backend (examples/CMakeLists.txt).
#include <scorch/stacks/libtorch/autodiff.h>

#include "training_loop.h"

namespace training_loop {
void train_loop_libtorch() { train_loop<Autodiff<LibTorch>>(); }
}  // namespace training_loop

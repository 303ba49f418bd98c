// The custom training loop on Cuda (GPU 0), compiled only when the build has the backend
// (examples/CMakeLists.txt).
#include <scorch/stacks/cuda/autodiff.h>

#include "training_loop.h"

namespace training_loop {
void train_loop_cuda() { train_loop<Autodiff<Cuda>>(); }
}  // namespace training_loop

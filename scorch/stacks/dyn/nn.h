#pragma once
// The layers' forward passes (Linear on ranks 2 and 3, Conv1d, Conv2d, and the functional linear and conv under
// them) on Dyn and Autodiff<Dyn>, compiled once in scorch_dyn_nn (nn.cpp): a file that runs a model on a stack
// chosen at run time includes this header and links scorch_dyn_nn, so it does not instantiate them again.
#include "scorch/stacks/cpu/nn.h"
#include "scorch/stacks/dyn/autodiff.h"

namespace scorch {
SCORCH_LAYER_FORWARDS(extern, Dyn)
SCORCH_LAYER_FORWARDS(extern, Autodiff<Dyn>)
}  // namespace scorch

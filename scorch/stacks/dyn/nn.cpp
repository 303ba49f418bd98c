// Instantiates the layers' forward passes for Dyn and Autodiff<Dyn> (see nn.h).
#include "scorch/stacks/dyn/nn.h"

namespace scorch {
SCORCH_LAYER_FORWARDS(, Dyn)
SCORCH_LAYER_FORWARDS(, Autodiff<Dyn>)
}  // namespace scorch

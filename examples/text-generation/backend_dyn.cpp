// The example's training and sampling on any Dyn stack (--backend fusion<cpu>, libtorch, cuda:0, ...): Autodiff<Dyn>
// and Dyn, compiled once whatever stacks the build has.
#include <scorch/stacks/dyn/autodiff.h>

#include "training_on.h"

namespace textgen {
TEXTGEN_BACKEND_COMMANDS(dyn, Dyn)
}  // namespace textgen

// Instantiates parameter loading for Cpu and Autodiff<Cpu> (see nn.h).
#include "scorch/stacks/cpu/nn.h"

#define SCORCH_DEFINE_PARAM_OPS(B, D) template struct FieldOps<Param<Tensor<B, D, Float>>>;

namespace scorch {
SCORCH_CPU_PARAM_RANKS(SCORCH_DEFINE_PARAM_OPS)
}  // namespace scorch

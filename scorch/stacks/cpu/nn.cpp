// Instantiates parameter loading and the layers' forward passes for Cpu and Autodiff<Cpu>, or Cpu alone for
// inference (see nn.h).
#include "scorch/stacks/cpu/nn.h"

#define SCORCH_DEFINE_PARAM_OPS(B, D)                   \
  template struct FieldOps<Param<Tensor<B, D, Float>>>; \
  template class Param<Tensor<B, D, Float>>;

namespace scorch {
template struct detail::DeviceCollector<CpuDevice>;
#ifdef SCORCH_PARAM_OPS_CPU_ONLY  // an inference build without Autodiff<Cpu> (the WebAssembly build)
SCORCH_CPU_ONLY_PARAM_RANKS(SCORCH_DEFINE_PARAM_OPS)
SCORCH_LAYER_FORWARDS(, Cpu)
SCORCH_LINEAR_FIELD_OPS(, Cpu)
#else
SCORCH_CPU_PARAM_RANKS(SCORCH_DEFINE_PARAM_OPS)
SCORCH_LAYER_FORWARDS(, Cpu)
SCORCH_LAYER_FORWARDS(, Autodiff<Cpu>)
SCORCH_LINEAR_FIELD_OPS(, Cpu)
SCORCH_LINEAR_FIELD_OPS(, Autodiff<Cpu>)
template auto FieldOps<nn::Linear<Autodiff<Cpu>>>::transform<Cpu, detail::InnerTransform>(
    const nn::Linear<Autodiff<Cpu>>&, detail::InnerTransform&, detail::FieldPath&);
#endif
}  // namespace scorch

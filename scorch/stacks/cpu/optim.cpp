// Instantiates the shipped rules' per-parameter steps and gradient accumulation for Cpu.
#include "scorch/stacks/cpu/optim.h"

#define SCORCH_OPTIM_DEFINE_STEP(Rule, D)                                                                     \
  template Tensor<Cpu, D> OptimizerAdaptor<Rule>::step_tensor<Cpu, D>(double, ParamId, const Tensor<Cpu, D>&, \
                                                                      Tensor<Cpu, D>);
#define SCORCH_OPTIM_DEFINE_COLLECT(Rule, D)                                                                     \
  template void OptimizerAdaptor<Rule>::collect_tensor<Cpu, D>(OptimizerAdaptor<Rule>::BatchCollector&, ParamId, \
                                                               const Tensor<Cpu, D>&);
#define SCORCH_OPTIM_DEFINE_ACCUMULATE(D) \
  template void detail::accumulate_tensor<Cpu, D>(GradientsParams&, ParamId, Tensor<Cpu, D>);

namespace scorch::optim {
template bool GradScaler::unscale<Cpu>(GradientsParams&) const;
template class OptimizerAdaptor<Sgd>;
template class OptimizerAdaptor<Adam>;
template class OptimizerAdaptor<AdamW>;
template class OptimizerAdaptor<AdaGrad>;
template class OptimizerAdaptor<RmsProp>;
template class OptimizerAdaptor<Adan>;
SCORCH_OPTIM_RULE_RANKS(SCORCH_OPTIM_DEFINE_STEP)
SCORCH_OPTIM_BATCHED_RULE_RANKS(SCORCH_OPTIM_DEFINE_COLLECT)
SCORCH_OPTIM_DEFINE_ACCUMULATE(1)
SCORCH_OPTIM_DEFINE_ACCUMULATE(2)
SCORCH_OPTIM_DEFINE_ACCUMULATE(3)
SCORCH_OPTIM_DEFINE_ACCUMULATE(4) SCORCH_OPTIM_DEFINE_ACCUMULATE(5) SCORCH_OPTIM_DEFINE_ACCUMULATE(6)
}  // namespace scorch::optim

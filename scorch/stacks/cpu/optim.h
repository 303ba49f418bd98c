#pragma once
// The shipped optimizer rules' per-parameter step for the Cpu backend (the inner backend of
// Autodiff<Cpu>), ranks 1 to 6, the rules' adaptors and the loss scaler's unscaling, compiled once in optim.cpp.
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/optim/adam.h"
#include "scorch/optim/adaptive.h"
#include "scorch/optim/grad_scaler.h"
#include "scorch/optim/gradients_params.h"
#include "scorch/optim/sgd.h"

/// Applies X(Rule, rank) to every shipped rule and rank 1–6.
#define SCORCH_OPTIM_RULE_RANKS(X)                                                                            \
  X(Sgd, 1)                                                                                                   \
  X(Sgd, 2)                                                                                                   \
  X(Sgd, 3)                                                                                                   \
  X(Sgd, 4) X(Sgd, 5) X(Sgd, 6) X(Adam, 1) X(Adam, 2) X(Adam, 3) X(Adam, 4) X(Adam, 5) X(Adam, 6) X(AdamW, 1) \
      X(AdamW, 2) X(AdamW, 3) X(AdamW, 4) X(AdamW, 5) X(AdamW, 6) X(AdaGrad, 1) X(AdaGrad, 2) X(AdaGrad, 3)   \
          X(AdaGrad, 4) X(AdaGrad, 5) X(AdaGrad, 6) X(RmsProp, 1) X(RmsProp, 2) X(RmsProp, 3) X(RmsProp, 4)   \
              X(RmsProp, 5) X(RmsProp, 6) X(Adan, 1) X(Adan, 2) X(Adan, 3) X(Adan, 4) X(Adan, 5) X(Adan, 6)

#define SCORCH_OPTIM_EXTERN_STEP(Rule, D)                                                                            \
  extern template Tensor<Cpu, D> OptimizerAdaptor<Rule>::step_tensor<Cpu, D>(double, ParamId, const Tensor<Cpu, D>&, \
                                                                             Tensor<Cpu, D>);
/// Applies X(Rule, rank) to every shipped rule that steps its parameters in batches and rank 1–6.
#define SCORCH_OPTIM_BATCHED_RULE_RANKS(X)                                                                            \
  X(Sgd, 1)                                                                                                           \
  X(Sgd, 2) X(Sgd, 3) X(Sgd, 4) X(Sgd, 5) X(Sgd, 6) X(Adam, 1) X(Adam, 2) X(Adam, 3) X(Adam, 4) X(Adam, 5) X(Adam, 6) \
      X(AdamW, 1) X(AdamW, 2) X(AdamW, 3) X(AdamW, 4) X(AdamW, 5) X(AdamW, 6)
#define SCORCH_OPTIM_EXTERN_COLLECT(Rule, D)                                                                   \
  extern template void OptimizerAdaptor<Rule>::collect_tensor<Cpu, D>(OptimizerAdaptor<Rule>::BatchCollector&, \
                                                                      ParamId, const Tensor<Cpu, D>&);
#define SCORCH_OPTIM_EXTERN_ACCUMULATE(D) \
  extern template void detail::accumulate_tensor<Cpu, D>(GradientsParams&, ParamId, Tensor<Cpu, D>);

namespace scorch::optim {
extern template bool GradScaler::unscale<Cpu>(GradientsParams&) const;
extern template class OptimizerAdaptor<Sgd>;
extern template class OptimizerAdaptor<Adam>;
extern template class OptimizerAdaptor<AdamW>;
extern template class OptimizerAdaptor<AdaGrad>;
extern template class OptimizerAdaptor<RmsProp>;
extern template class OptimizerAdaptor<Adan>;
SCORCH_OPTIM_RULE_RANKS(SCORCH_OPTIM_EXTERN_STEP)
SCORCH_OPTIM_BATCHED_RULE_RANKS(SCORCH_OPTIM_EXTERN_COLLECT)
SCORCH_OPTIM_EXTERN_ACCUMULATE(1)
SCORCH_OPTIM_EXTERN_ACCUMULATE(2)
SCORCH_OPTIM_EXTERN_ACCUMULATE(3)
SCORCH_OPTIM_EXTERN_ACCUMULATE(4) SCORCH_OPTIM_EXTERN_ACCUMULATE(5) SCORCH_OPTIM_EXTERN_ACCUMULATE(6)
}  // namespace scorch::optim

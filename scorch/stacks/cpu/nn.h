#pragma once
// Parameter loading (FieldOps<Param<Tensor>>::load, with its checks and messages) for float
// parameters of rank 1–6, and the forward passes of the layers most models hold (Linear on ranks 2 and 3, Conv1d,
// Conv2d, and the functional linear and conv under them, quantized paths included), their configs' init, the float
// parameters themselves, the cross-entropy and squared-error losses, on Cpu and Autodiff<Cpu>,
// compiled once in nn.cpp: a user's file that runs them does not instantiate them again.
#include "scorch/stacks/cpu/autodiff.h"
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/module/module_fields.h"
#include "scorch/nn/conv.h"
#include "scorch/nn/linear.h"
#include "scorch/nn/loss.h"

/// Applies X(Backend, rank) to Cpu, ranks 1–6.
#define SCORCH_CPU_ONLY_PARAM_RANKS(X) X(Cpu, 1) X(Cpu, 2) X(Cpu, 3) X(Cpu, 4) X(Cpu, 5) X(Cpu, 6)
/// Applies X(Backend, rank) to Cpu and `Autodiff<Cpu>`, ranks 1–6.
#define SCORCH_CPU_PARAM_RANKS(X) \
  SCORCH_CPU_ONLY_PARAM_RANKS(X)  \
  X(Autodiff<Cpu>, 1)             \
  X(Autodiff<Cpu>, 2) X(Autodiff<Cpu>, 3) X(Autodiff<Cpu>, 4) X(Autodiff<Cpu>, 5) X(Autodiff<Cpu>, 6)

#define SCORCH_EXTERN_PARAM_OPS(B, D)                          \
  extern template struct FieldOps<Param<Tensor<B, D, Float>>>; \
  extern template class Param<Tensor<B, D, Float>>;

/// Declares (PREFIX extern) or defines (PREFIX empty) the layers' forward passes on backend B.
#define SCORCH_LAYER_FORWARDS(PREFIX, B)                                                                           \
  PREFIX template Tensor<B, 2> nn::Linear<B>::forward<2>(const Tensor<B, 2>&, bool) const;                         \
  PREFIX template Tensor<B, 3> nn::Linear<B>::forward<3>(const Tensor<B, 3>&, bool) const;                         \
  PREFIX template Tensor<B, 3> nn::Conv<B, 1>::forward(const Tensor<B, 3>&) const;                                 \
  PREFIX template Tensor<B, 4> nn::Conv<B, 2>::forward(const Tensor<B, 4>&) const;                                 \
  PREFIX template Tensor<B, 2> functional::linear<B, 2>(const Tensor<B, 2>&, const Tensor<B, 2>&,                  \
                                                        const std::optional<Tensor<B, 1>>&, bool);                 \
  PREFIX template Tensor<B, 3> functional::linear<B, 3>(const Tensor<B, 3>&, const Tensor<B, 2>&,                  \
                                                        const std::optional<Tensor<B, 1>>&, bool);                 \
  PREFIX template Tensor<B, 3> functional::conv<B, 3>(const Tensor<B, 3>&, const Tensor<B, 3>&,                    \
                                                      const std::optional<Tensor<B, 1>>&,                          \
                                                      const functional::ConvOptions<1>&);                          \
  PREFIX template Tensor<B, 4> functional::conv<B, 4>(const Tensor<B, 4>&, const Tensor<B, 4>&,                    \
                                                      const std::optional<Tensor<B, 1>>&,                          \
                                                      const functional::ConvOptions<2>&);                          \
  PREFIX template nn::Linear<B> nn::LinearConfig::init<B>(const B::Device&) const;                                 \
  PREFIX template nn::Conv<B, 1> nn::ConvConfig<1>::init<B>(const B::Device&) const;                               \
  PREFIX template nn::Conv<B, 2> nn::ConvConfig<2>::init<B>(const B::Device&) const;                               \
  PREFIX template nn::CrossEntropyLoss<B> nn::CrossEntropyLossConfig::init<B>(const B::Device&) const;             \
  PREFIX template struct nn::CrossEntropyLoss<B>;                                                                  \
  PREFIX template Tensor<B, 1> nn::MseLoss::forward<B, 1>(const Tensor<B, 1>&, const Tensor<B, 1>&, nn::Reduction) \
      const;                                                                                                       \
  PREFIX template Tensor<B, 1> nn::MseLoss::forward<B, 2>(const Tensor<B, 2>&, const Tensor<B, 2>&, nn::Reduction) \
      const;                                                                                                       \
  PREFIX template Tensor<B, 1> nn::MseLoss::forward<B, 3>(const Tensor<B, 3>&, const Tensor<B, 3>&, nn::Reduction) \
      const;

/// Declares (PREFIX extern) or defines (PREFIX empty) Linear's field operations on backend B that every program
/// training or moving a model runs: loading, saving, counting, finding devices, moving to a device.
#define SCORCH_LINEAR_FIELD_OPS(PREFIX, B)                                                        \
  PREFIX template struct FieldOps<nn::Linear<B>>;                                                 \
  PREFIX template void FieldOps<nn::Linear<B>>::visit<detail::ParamCounter>(                      \
      const nn::Linear<B>&, detail::ParamCounter&, detail::FieldPath&);                           \
  PREFIX template void FieldOps<nn::Linear<B>>::visit<detail::DeviceCollector<CpuDevice>>(        \
      const nn::Linear<B>&, detail::DeviceCollector<CpuDevice>&, detail::FieldPath&);             \
  PREFIX template auto FieldOps<nn::Linear<B>>::transform<B, detail::DeviceTransform<CpuDevice>>( \
      const nn::Linear<B>&, detail::DeviceTransform<CpuDevice>&, detail::FieldPath&);

namespace scorch {
extern template struct detail::DeviceCollector<CpuDevice>;
SCORCH_CPU_PARAM_RANKS(SCORCH_EXTERN_PARAM_OPS)
SCORCH_LAYER_FORWARDS(extern, Cpu)
SCORCH_LAYER_FORWARDS(extern, Autodiff<Cpu>)
SCORCH_LINEAR_FIELD_OPS(extern, Cpu)
SCORCH_LINEAR_FIELD_OPS(extern, Autodiff<Cpu>)
extern template auto FieldOps<nn::Linear<Autodiff<Cpu>>>::transform<Cpu, detail::InnerTransform>(
    const nn::Linear<Autodiff<Cpu>>&, detail::InnerTransform&, detail::FieldPath&);
}  // namespace scorch

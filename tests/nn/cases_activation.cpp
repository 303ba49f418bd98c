// One case per activation module, on the same input as PyTorch's function.
#include "nn_harness.h"

namespace scorch::nntest {
namespace {

template <class M> CaseFn act(M module) {
  return [module](const CaseInputs& in) {
    CaseRun run;
    run.outputs = {flat(module.forward(in.f<2>(0)))};
    return run;
  };
}
/// The same activation through the ActivationConfig choice (as configs build it).
CaseFn chosen(nn::ActivationConfig config) {
  return [config](const CaseInputs& in) {
    CaseRun run;
    run.outputs = {flat(config.init<AD>().forward(in.f<2>(0)))};
    return run;
  };
}

}  // namespace

void add_activation_cases(CaseTable& t) {
  using K = nn::ActivationKind;
  t["act_relu"] = act(nn::Relu{});
  t["act_relu6"] = chosen(nn::ActivationConfig::of(K::Relu6));
  t["act_gelu"] = chosen(nn::ActivationConfig::of(K::Gelu));
  t["act_gelu_tanh"] = act(nn::Gelu::new_approximate());
  t["act_silu"] = act(nn::Silu{});
  t["act_mish"] = act(nn::Mish{});
  t["act_leaky_relu"] = chosen(nn::ActivationConfig::of(K::LeakyRelu).with_alpha(0.1));
  t["act_elu"] = act(nn::Elu{1.0});
  t["act_celu"] = chosen(nn::ActivationConfig::of(K::Celu).with_alpha(0.7));
  t["act_selu"] = act(nn::Selu{});
  t["act_softplus"] = act(nn::Softplus{2.0});
  t["act_hard_sigmoid"] = chosen(nn::ActivationConfig::of(K::HardSigmoid));
  t["act_hard_swish"] = act(nn::HardSwish{});
  t["act_sigmoid"] = act(nn::Sigmoid{});
  t["act_tanh"] = chosen(nn::ActivationConfig::of(K::Tanh));
  t["act_softsign"] = act(nn::Softsign{});
  t["act_tanhshrink"] = act(nn::Tanhshrink{});
  t["act_log_sigmoid"] = act(nn::LogSigmoid{});
  t["act_hardtanh"] = act(nn::Hardtanh{});
  t["act_hard_shrink"] = chosen(nn::ActivationConfig::of(K::HardShrink));
  t["act_soft_shrink"] = act(nn::SoftShrink{});
  t["act_threshold"] = act(nn::Threshold{0.1, 20.0});
  t["act_glu"] = act(nn::Glu{-1});
  t["act_shrink"] = act(nn::Shrink{});
  t["act_thresholded_relu"] = chosen(nn::ActivationConfig::of(K::ThresholdedRelu));
}

}  // namespace scorch::nntest

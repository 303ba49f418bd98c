// Conformance cases: activation functions (backend-group ones and composites).
#include "harness.h"

namespace scorch::conformance {

template <class B> void add_activation_cases(CaseList<B>& list) {
  using T = Tensor<B, 2>;
  using T1 = Tensor<B, 1>;
  namespace act = activation;
  list.add("act_relu", {"float_relu"}, [](const Inputs<B>& in) { return outs(act::relu(F<2>(in, 0))); });
  list.add("act_leaky_relu", {"float_leaky_relu"},
           [](const Inputs<B>& in) { return outs(act::leaky_relu(F<2>(in, 0), 0.2)); });
  list.add("act_gelu", {"float_gelu"}, [](const Inputs<B>& in) { return outs(act::gelu(F<2>(in, 0))); });
  list.add("act_sigmoid", {"float_sigmoid"}, [](const Inputs<B>& in) { return outs(act::sigmoid(F<1>(in, 0))); });
  list.add("act_log_sigmoid", {"float_log_sigmoid"},
           [](const Inputs<B>& in) { return outs(act::log_sigmoid(F<1>(in, 0))); });
  list.add("act_hard_sigmoid", {"float_hard_sigmoid"},
           [](const Inputs<B>& in) { return outs(act::hard_sigmoid(F<2>(in, 0), 0.2, 0.5)); });
  list.add("act_softmax", {"float_softmax", "float_log_softmax"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    return outs(act::softmax(x, 1), act::softmax(x, 0), act::log_softmax(x, 1), act::log_softmax(x, 0));
  });
  list.add("act_softmax_big", {"float_softmax", "float_log_softmax"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    return outs(act::softmax(x, 1), act::log_softmax(x, -1));
  });
  list.add("act_composite", {"float_exp", "float_tanh", "float_log"}, [](const Inputs<B>& in) {
    T x = F<2>(in, 0);
    return outs(act::silu(x), act::mish(x), act::elu(x), act::celu(x, 1.5), act::selu(x), act::softplus(x),
                act::softsign(x), act::hard_swish(x), act::tanhshrink(x), act::hardtanh(x), act::relu6(x),
                act::hard_shrink(x, 0.5), act::soft_shrink(x, 0.5), act::threshold(x, 1.0, -2.0),
                act::gelu_approximate(x), act::softmin(x, 1), act::glu(T::cat({x, x * 0.5}, 1), 1));
  });
  list.add("act_quiet_softmax_tanh", {"float_max_dim", "float_tanh"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    return outs(act::quiet_softmax(x, 1), act::quiet_softmax(x, 0), act::tanh(x));
  });
  list.add("act_prelu", {"float_mask_where"},
           [](const Inputs<B>& in) { return outs(act::prelu(F<3>(in, 0), T1(F<1>(in, 1)))); });
}

SCORCH_CONFORMANCE_INSTANTIATE(add_activation_cases);

}  // namespace scorch::conformance

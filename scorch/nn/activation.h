#pragma once
// Activation modules over scorch::activation, and Activation: a module chosen
// by ActivationConfig, for layers whose activation is a config field (RNNs, transformers).
#include "scorch/module/module.h"
#include "scorch/nn/linear.h"
#include "scorch/tensor/activation.h"

namespace scorch::nn {

namespace act = scorch::activation;

// Parameter-free activations: forward(x) on any float tensor.
struct Relu {
  SCORCH_MODULE(Relu) template <class T> T forward(const T& x) const { return act::relu(x); }
};
struct Relu6 {
  SCORCH_MODULE(Relu6) template <class T> T forward(const T& x) const { return act::relu6(x); }
};
struct Sigmoid {
  SCORCH_MODULE(Sigmoid) template <class T> T forward(const T& x) const { return act::sigmoid(x); }
};
struct Tanh {
  SCORCH_MODULE(Tanh) template <class T> T forward(const T& x) const { return act::tanh(x); }
};
struct Silu {
  SCORCH_MODULE(Silu) template <class T> T forward(const T& x) const { return act::silu(x); }
};
struct Mish {
  SCORCH_MODULE(Mish) template <class T> T forward(const T& x) const { return act::mish(x); }
};
struct HardSwish {
  SCORCH_MODULE(HardSwish) template <class T> T forward(const T& x) const { return act::hard_swish(x); }
};
struct LogSigmoid {
  SCORCH_MODULE(LogSigmoid) template <class T> T forward(const T& x) const { return act::log_sigmoid(x); }
};
struct Selu {
  SCORCH_MODULE(Selu) template <class T> T forward(const T& x) const { return act::selu(x); }
};
struct Softsign {
  SCORCH_MODULE(Softsign) template <class T> T forward(const T& x) const { return act::softsign(x); }
};
struct Tanhshrink {
  SCORCH_MODULE(Tanhshrink) template <class T> T forward(const T& x) const { return act::tanhshrink(x); }
};
using SiLU = Silu;

/// Gelu: the erf form, or the tanh approximation when approximate is set.
struct Gelu {
  bool approximate = false;
  SCORCH_MODULE(Gelu, approximate)
  static Gelu new_approximate() { return Gelu{true}; }
  template <class T> T forward(const T& x) const { return approximate ? act::gelu_approximate(x) : act::gelu(x); }
};
/// Gated linear unit: first half · sigmoid(second half) along dim.
struct Glu {
  int64_t dim = -1;
  SCORCH_MODULE(Glu, dim)
  template <class T> T forward(const T& x) const { return act::glu(x, dim); }
};

// Activations with settings (Burn's config defaults).
struct LeakyRelu {
  double negative_slope = 0.01;
  SCORCH_MODULE(LeakyRelu, negative_slope) template <class T> T forward(const T& x) const {
    return act::leaky_relu(x, negative_slope);
  }
};
struct Elu {
  double alpha = 1.0;
  SCORCH_MODULE(Elu, alpha) template <class T> T forward(const T& x) const { return act::elu(x, alpha); }
};
struct Celu {
  double alpha = 1.0;
  SCORCH_MODULE(Celu, alpha) template <class T> T forward(const T& x) const { return act::celu(x, alpha); }
};
struct Softplus {
  double beta = 1.0;
  SCORCH_MODULE(Softplus, beta) template <class T> T forward(const T& x) const { return act::softplus(x, beta); }
};
struct HardSigmoid {
  double alpha = 0.2, beta = 0.5;
  SCORCH_MODULE(HardSigmoid, alpha, beta) template <class T> T forward(const T& x) const {
    return act::hard_sigmoid(x, alpha, beta);
  }
};
struct Hardtanh {
  double min_val = -1.0, max_val = 1.0;
  SCORCH_MODULE(Hardtanh, min_val, max_val) template <class T> T forward(const T& x) const {
    return act::hardtanh(x, min_val, max_val);
  }
};
struct HardShrink {
  double lambda = 0.5;
  SCORCH_MODULE(HardShrink, lambda) template <class T> T forward(const T& x) const {
    return act::hard_shrink(x, lambda);
  }
};
struct SoftShrink {
  double lambda = 0.5;
  SCORCH_MODULE(SoftShrink, lambda) template <class T> T forward(const T& x) const {
    return act::soft_shrink(x, lambda);
  }
};
struct Shrink {
  double lambda = 0.5, bias = 0.5;
  SCORCH_MODULE(Shrink, lambda, bias) template <class T> T forward(const T& x) const {
    return act::shrink(x, lambda, bias);
  }
};
struct Threshold {
  double threshold = 0.0, value = 0.0;
  SCORCH_MODULE(Threshold, threshold, value) template <class T> T forward(const T& x) const {
    return act::threshold(x, threshold, value);
  }
};
struct ThresholdedRelu {
  double alpha = 1.0;
  SCORCH_MODULE(ThresholdedRelu, alpha) template <class T> T forward(const T& x) const {
    return act::thresholded_relu(x, alpha);
  }
};

/// Randomized leaky ReLU: a slope drawn from U(lower, upper) per element in training, their mean otherwise.
struct RRelu {
  double lower = 1.0 / 8.0, upper = 1.0 / 3.0;
  SCORCH_MODULE(RRelu, lower, upper)
  template <class B, size_t D> Tensor<B, D> forward(const Tensor<B, D>& x) const {
    if constexpr (AutodiffBackend<B>) {
      auto slope = Tensor<B, D>::random(x.shape(), Distribution::uniform(lower, upper), x.device());
      return x.mask_where(x.lower_elem(0.0), x * slope);
    } else {
      return act::leaky_relu(x, (lower + upper) / 2.0);
    }
  }
};

template <class B> struct PRelu;
/// PRelu settings: one learnable slope, or one per channel (dim 1).
struct PReluConfig {
  size_t num_parameters = 1;
  double alpha = 0.25;
  SCORCH_CONFIG(PReluConfig, (), (num_parameters, alpha))
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> PRelu<B> init(const typename B::Device& device = {}) const;
};
/// x for x ≥ 0, alpha·x below, alpha learned.
template <class B> struct PRelu {
  Param<Tensor<B, 1>> alpha;
  SCORCH_MODULE(PRelu, alpha)
  template <size_t D> Tensor<B, D> forward(const Tensor<B, D>& x) const { return act::prelu(x, alpha.val()); }
};
template <class B> PRelu<B> PReluConfig::init(const typename B::Device& device) const {
  return PRelu<B>{Param(Tensor<B, 1>::full({num_parameters}, alpha, device))};
}

template <class B> struct SwiGlu;
/// SwiGlu settings: silu(x·W_inner) ⊙ (x·W_outer), both d_input → d_output.
struct SwiGluConfig {
  size_t d_input, d_output;
  bool bias = false;
  Initializer initializer = Initializer::kaiming_uniform();
  LinearLayout layout = LinearLayout::Row;
  SCORCH_CONFIG(SwiGluConfig, (d_input, d_output), (bias, initializer, layout))
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> SwiGlu<B> init(const typename B::Device& device = {}) const {
    auto linear = LinearConfig(d_input, d_output).with_bias(bias).with_initializer(initializer).with_layout(layout);
    return SwiGlu<B>{linear.template init<B>(device), linear.template init<B>(device)};
  }
};
template <class B> struct SwiGlu {
  Linear<B> linear_inner, linear_outer;
  SCORCH_MODULE(SwiGlu, linear_inner, linear_outer)
  template <size_t D> Tensor<B, D> forward(const Tensor<B, D>& x) const {
    return act::silu(linear_inner.forward(x)) * linear_outer.forward(x);
  }
};

SCORCH_ENUM(ActivationKind, Identity, Gelu, GeluApproximate, PRelu, Relu, LeakyRelu, SwiGlu, Selu, Sigmoid, Tanh,
            HardSigmoid, HardSwish, Softplus, Softsign, Elu, Celu, ThresholdedRelu, HardShrink, SoftShrink, Shrink,
            Silu, Mish, Relu6)

template <class B> struct Activation;

/// The choice of an activation in a config. Settings unset take the kind's default (Burn's).
struct ActivationConfig {
  ActivationKind kind = ActivationKind::Relu;
  std::optional<double> alpha, beta, lambda, bias;
  size_t num_parameters = 1;
  std::optional<size_t> d_input, d_output;
  SCORCH_CONFIG(ActivationConfig, (), (kind, alpha, beta, lambda, bias, num_parameters, d_input, d_output))

  static ActivationConfig of(ActivationKind k) { return ActivationConfig().with_kind(k); }
  /// The module; throws ValueError when SwiGlu lacks d_input/d_output.
  template <class B> Activation<B> init(const typename B::Device& device = {}) const;
};

/// An activation picked at run time.
template <class B> struct Activation {
  ActivationKind kind = ActivationKind::Relu;
  double alpha = 0.0, beta = 0.0, lambda = 0.0, bias = 0.0;
  std::optional<PRelu<B>> prelu;
  std::optional<SwiGlu<B>> swiglu;
  SCORCH_MODULE(Activation, kind, alpha, beta, lambda, bias, prelu, swiglu)

  template <size_t D> Tensor<B, D> forward(const Tensor<B, D>& x) const {
    using K = ActivationKind;
    switch (kind) {
      case K::Identity: return x;
      case K::Gelu: return act::gelu(x);
      case K::GeluApproximate: return act::gelu_approximate(x);
      case K::PRelu: return prelu->forward(x);
      case K::Relu: return act::relu(x);
      case K::LeakyRelu: return act::leaky_relu(x, alpha);
      case K::SwiGlu: return swiglu->forward(x);
      case K::Selu: return act::selu(x);
      case K::Sigmoid: return act::sigmoid(x);
      case K::Tanh: return act::tanh(x);
      case K::HardSigmoid: return act::hard_sigmoid(x, alpha, beta);
      case K::HardSwish: return act::hard_swish(x);
      case K::Softplus: return act::softplus(x, beta);
      case K::Softsign: return act::softsign(x);
      case K::Elu: return act::elu(x, alpha);
      case K::Celu: return act::celu(x, alpha);
      case K::ThresholdedRelu: return act::thresholded_relu(x, alpha);
      case K::HardShrink: return act::hard_shrink(x, lambda);
      case K::SoftShrink: return act::soft_shrink(x, lambda);
      case K::Shrink: return act::shrink(x, lambda, bias);
      case K::Silu: return act::silu(x);
      case K::Mish: return act::mish(x);
      case K::Relu6: return act::relu6(x);
    }
    return x;
  }
};

template <class B> Activation<B> ActivationConfig::init(const typename B::Device& device) const {
  using K = ActivationKind;
  Activation<B> a;
  a.kind = kind;
  double default_alpha = kind == K::LeakyRelu ? 0.01 : kind == K::HardSigmoid ? 0.2 : kind == K::PRelu ? 0.25 : 1.0;
  a.alpha = alpha.value_or(default_alpha);
  a.beta = beta.value_or(kind == K::HardSigmoid ? 0.5 : 1.0);
  a.lambda = lambda.value_or(0.5);
  a.bias = bias.value_or(0.5);
  if (kind == K::PRelu)
    a.prelu = PReluConfig().with_num_parameters(num_parameters).with_alpha(a.alpha).template init<B>(device);
  if (kind == K::SwiGlu) {
    if (!d_input || !d_output) throw ValueError("ActivationConfig::init", "SwiGlu needs d_input and d_output");
    a.swiglu = SwiGluConfig(*d_input, *d_output).template init<B>(device);
  }
  return a;
}

}  // namespace scorch::nn

#pragma once
// Normalization layers: BatchNorm (running statistics; batch statistics only on an autodiff
// backend, as Burn decides train vs eval), LayerNorm, GroupNorm, InstanceNorm and RmsNorm.
#include "scorch/module/module.h"
#include "scorch/module/running_state.h"
#include "scorch/nn/initializer.h"
#include "scorch/tensor/functional.h"

namespace scorch::nn {

namespace detail {
/// x reshaped so that a per-channel vector [C] broadcasts over dim 1 of a rank-D tensor.
template <size_t D, class T> auto per_channel(const T& v) {
  Shape s(std::vector<size_t>(D, 1));
  s[1] = v.shape()[0];
  return v.template reshape<D>(s);
}
/// Mean over every dim but 1, kept with size 1.
template <class B, size_t D> Tensor<B, D> mean_except_channels(Tensor<B, D> x) {
  for (size_t d = 0; d < D; ++d)
    if (d != 1) x = x.mean_dim(static_cast<int64_t>(d));
  return x;
}
/// (x - mean) / sqrt(var + eps) with biased statistics over the last dim.
template <class B, size_t D> Tensor<B, D> standardize_last(const Tensor<B, D>& x, double eps) {
  auto [var, mean] = x.var_mean_bias(D - 1);
  return (x - mean) / (var + eps).sqrt();
}
}  // namespace detail

template <class B> struct BatchNorm;

/// Batch normalization settings.
struct BatchNormConfig {
  size_t num_features;
  double epsilon = 1e-5;
  double momentum = 0.1;
  SCORCH_CONFIG(BatchNormConfig, (num_features), (epsilon, momentum))
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> BatchNorm<B> init(const typename B::Device& device = {}) const;
};

/// Normalizes each channel (dim 1) of [batch, channels, ...] (rank ≥ 2).
template <class B> struct BatchNorm {
  Param<Tensor<B, 1>> gamma, beta;
  RunningState<Tensor<B, 1>> running_mean, running_var;
  double epsilon = 1e-5, momentum = 0.1;
  SCORCH_MODULE(BatchNorm, gamma, beta, running_mean, running_var, epsilon, momentum)

  /// Training statistics (and a running-stat update) on autodiff backends, running statistics otherwise.
  template <size_t D> Tensor<B, D> forward(const Tensor<B, D>& x) const {
    static_assert(D >= 2, "BatchNorm needs [batch, channels, ...]");
    size_t c = gamma.val().shape()[0];
    if (x.shape()[1] != c)
      throw ShapeError("BatchNorm::forward",
                       "input " + x.shape().to_string() + " must have " + std::to_string(c) + " channels in dim 1");
    Tensor<B, D> mean, var;
    if constexpr (AutodiffBackend<B>) {
      mean = detail::mean_except_channels(x);
      var = detail::mean_except_channels((x - mean).square());
      update_running(mean.detach(), var.detach(), x.shape().num_elements() / c);
    } else {
      mean = detail::per_channel<D>(running_mean.value());
      var = detail::per_channel<D>(running_var.value());
    }
    auto scale = detail::per_channel<D>(gamma.val()) / (var + epsilon).sqrt();
    return (x - mean) * scale + detail::per_channel<D>(beta.val());
  }

 private:
  template <size_t D> void update_running(const Tensor<B, D>& mean, const Tensor<B, D>& var, size_t n) const {
    auto m = mean.template reshape<1>({-1}), v = var.template reshape<1>({-1});
    double unbias = n > 1 ? static_cast<double>(n) / static_cast<double>(n - 1) : 1.0;
    running_mean.update(running_mean.value() * (1.0 - momentum) + m * momentum);
    running_var.update(running_var.value() * (1.0 - momentum) + v * (momentum * unbias));
  }
};

template <class B> BatchNorm<B> BatchNormConfig::init(const typename B::Device& device) const {
  BatchNorm<B> bn;
  bn.gamma = Param(Tensor<B, 1>::ones({num_features}, device));
  bn.beta = Param(Tensor<B, 1>::zeros({num_features}, device));
  bn.running_mean = RunningState(Tensor<B, 1>::zeros({num_features}, device));
  bn.running_var = RunningState(Tensor<B, 1>::ones({num_features}, device));
  bn.epsilon = epsilon, bn.momentum = momentum;
  return bn;
}

template <class B> struct LayerNorm;

/// Layer normalization settings (over the last dim).
struct LayerNormConfig {
  size_t d_model;
  double epsilon = 1e-5;
  bool bias = true;
  SCORCH_CONFIG(LayerNormConfig, (d_model), (epsilon, bias))
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> LayerNorm<B> init(const typename B::Device& device = {}) const;
};

/// (x - mean) / sqrt(var + eps) · gamma + beta over the last dim.
template <class B> struct LayerNorm {
  Param<Tensor<B, 1>> gamma;
  std::optional<Param<Tensor<B, 1>>> beta;
  double epsilon = 1e-5;
  SCORCH_MODULE(LayerNorm, gamma, beta, epsilon)

  template <size_t D> Tensor<B, D> forward(const Tensor<B, D>& x) const {
    size_t d = gamma.val().shape()[0];
    if (x.shape()[D - 1] != d)
      throw ShapeError("LayerNorm::forward",
                       "input " + x.shape().to_string() + " must end in d_model " + std::to_string(d));
    std::optional<Tensor<B, 1>> shift;
    if (beta) shift = beta->val();
    return functional::layer_norm(x, std::optional(gamma.val()), shift, epsilon);
  }
};

template <class B> LayerNorm<B> LayerNormConfig::init(const typename B::Device& device) const {
  LayerNorm<B> ln;
  ln.gamma = Param(Tensor<B, 1>::ones({d_model}, device));
  if (bias) ln.beta = Param(Tensor<B, 1>::zeros({d_model}, device));
  ln.epsilon = epsilon;
  return ln;
}

template <class B> struct GroupNorm;

/// Group normalization settings; InstanceNorm is the case num_groups = num_channels.
struct GroupNormConfig {
  size_t num_groups, num_channels;
  double epsilon = 1e-5;
  bool affine = true;
  SCORCH_CONFIG(GroupNormConfig, (num_groups, num_channels), (epsilon, affine))
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> GroupNorm<B> init(const typename B::Device& device = {}) const;
};

/// Normalizes each group of channels of [batch, channels, ...] over the group and spatial dims.
template <class B> struct GroupNorm {
  std::optional<Param<Tensor<B, 1>>> gamma, beta;
  size_t num_groups = 1, num_channels = 1;
  double epsilon = 1e-5;
  SCORCH_MODULE(GroupNorm, gamma, beta, num_groups, num_channels, epsilon)

  template <size_t D> Tensor<B, D> forward(const Tensor<B, D>& x) const {
    static_assert(D >= 2, "GroupNorm needs [batch, channels, ...]");
    if (x.shape()[1] != num_channels)
      throw ShapeError("GroupNorm::forward", "input " + x.shape().to_string() + " must have " +
                                                 std::to_string(num_channels) + " channels in dim 1");
    size_t batch = x.shape()[0], per_group = num_channels / num_groups;
    for (size_t i = 2; i < D; ++i) per_group *= x.shape()[i];
    auto grouped = x.template reshape<3>({batch, num_groups, per_group});
    auto y = detail::standardize_last(grouped, epsilon).template reshape<D>(x.shape());
    if (gamma) y = y * detail::per_channel<D>(gamma->val());
    if (beta) y = y + detail::per_channel<D>(beta->val());
    return y;
  }
};

template <class B> GroupNorm<B> GroupNormConfig::init(const typename B::Device& device) const {
  if (num_groups == 0 || num_channels % num_groups != 0)
    throw ValueError("GroupNormConfig::init", std::to_string(num_channels) + " channels do not split into " +
                                                  std::to_string(num_groups) + " groups");
  GroupNorm<B> gn;
  if (affine)
    gn.gamma = Param(Tensor<B, 1>::ones({num_channels}, device)),
    gn.beta = Param(Tensor<B, 1>::zeros({num_channels}, device));
  gn.num_groups = num_groups, gn.num_channels = num_channels, gn.epsilon = epsilon;
  return gn;
}

/// Instance normalization settings (each channel of each sample on its own).
struct InstanceNormConfig {
  size_t num_channels;
  double epsilon = 1e-5;
  bool affine = true;
  SCORCH_CONFIG(InstanceNormConfig, (num_channels), (epsilon, affine))
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> GroupNorm<B> init(const typename B::Device& device = {}) const {
    return GroupNormConfig(num_channels, num_channels)
        .with_epsilon(epsilon)
        .with_affine(affine)
        .template init<B>(device);
  }
};
/// InstanceNorm is a GroupNorm with one channel per group.
template <class B> using InstanceNorm = GroupNorm<B>;

template <class B> struct RmsNorm;

/// RMS normalization settings.
struct RmsNormConfig {
  size_t d_model;
  double epsilon = 1e-5;
  SCORCH_CONFIG(RmsNormConfig, (d_model), (epsilon))
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> RmsNorm<B> init(const typename B::Device& device = {}) const;
};

/// x / sqrt(mean(x², last dim) + eps) · gamma.
template <class B> struct RmsNorm {
  Param<Tensor<B, 1>> gamma;
  double epsilon = 1e-5;
  SCORCH_MODULE(RmsNorm, gamma, epsilon)
  template <size_t D> Tensor<B, D> forward(const Tensor<B, D>& x) const {
    return functional::rms_norm(x, std::optional(gamma.val()), epsilon);
  }
};

template <class B> RmsNorm<B> RmsNormConfig::init(const typename B::Device& device) const {
  return RmsNorm<B>{Param(Tensor<B, 1>::ones({d_model}, device)), epsilon};
}

struct LocalResponseNorm;

/// Local response normalization settings (PyTorch's defaults).
struct LocalResponseNormConfig {
  size_t size;
  double alpha = 1e-4, beta = 0.75, k = 1.0;
  SCORCH_CONFIG(LocalResponseNormConfig, (size), (alpha, beta, k))
  LocalResponseNorm init() const;
};

/// x / (k + alpha/size · Σ x² over a window of `size` neighbouring channels)^beta.
struct LocalResponseNorm {
  size_t size = 1;
  double alpha = 1e-4, beta = 0.75, k = 1.0;
  SCORCH_MODULE(LocalResponseNorm, size, alpha, beta, k)
  template <class B, size_t D> Tensor<B, D> forward(const Tensor<B, D>& x) const {
    static_assert(D >= 3, "LocalResponseNorm needs [batch, channels, ...]");
    if (x.shape().num_elements() == 0) return x;  // an empty input normalizes to itself (no window to divide)
    size_t batch = x.shape()[0], channels = x.shape()[1], rest = x.shape().num_elements() / (batch * channels);
    auto sq =
        x.square().template reshape<4>({batch, size_t{1}, channels, rest}).pad({{0, 0}, {size / 2, (size - 1) / 2}});
    auto window = functional::avg_pool(sq, functional::Size<2>{size, 1}, functional::Size<2>{1, 1},
                                       functional::Size<2>{0, 0}, true, false);
    auto div = (window.template reshape<D>(x.shape()) * alpha + k).powf_scalar(beta);
    return x / div;
  }
};
inline LocalResponseNorm LocalResponseNormConfig::init() const {
  if (size == 0) throw ValueError("LocalResponseNormConfig::init", "size must be at least 1");
  return {size, alpha, beta, k};
}

SCORCH_ENUM(NormalizationKind, Identity, Batch, Group, Instance, Layer, Rms)

template <class B> struct Normalization;

/// A normalization picked in a config (num_groups is used by Group only).
struct NormalizationConfig {
  NormalizationKind kind = NormalizationKind::Layer;
  size_t num_features = 1, num_groups = 1;
  double epsilon = 1e-5;
  SCORCH_CONFIG(NormalizationConfig, (), (kind, num_features, num_groups, epsilon))
  template <class B> Normalization<B> init(const typename B::Device& device = {}) const;
};

/// One of BatchNorm, GroupNorm (InstanceNorm), LayerNorm, RmsNorm or the identity.
template <class B> struct Normalization {
  std::optional<BatchNorm<B>> batch;
  std::optional<GroupNorm<B>> group;
  std::optional<LayerNorm<B>> layer;
  std::optional<RmsNorm<B>> rms;
  SCORCH_MODULE(Normalization, batch, group, layer, rms)
  template <size_t D> Tensor<B, D> forward(const Tensor<B, D>& x) const {
    if (batch) return batch->forward(x);
    if (group) return group->forward(x);
    if (layer) return layer->forward(x);
    if (rms) return rms->forward(x);
    return x;
  }
};

template <class B> Normalization<B> NormalizationConfig::init(const typename B::Device& device) const {
  using K = NormalizationKind;
  Normalization<B> n;
  if (kind == K::Batch) n.batch = BatchNormConfig(num_features).with_epsilon(epsilon).template init<B>(device);
  if (kind == K::Group)
    n.group = GroupNormConfig(num_groups, num_features).with_epsilon(epsilon).template init<B>(device);
  if (kind == K::Instance)
    n.group = GroupNormConfig(num_features, num_features).with_epsilon(epsilon).template init<B>(device);
  if (kind == K::Layer) n.layer = LayerNormConfig(num_features).with_epsilon(epsilon).template init<B>(device);
  if (kind == K::Rms) n.rms = RmsNormConfig(num_features).with_epsilon(epsilon).template init<B>(device);
  return n;
}

}  // namespace scorch::nn

#pragma once
// Losses with a Reduction. Each loss is a small module-free struct: its config's
// init() returns it, forward(...) computes it; all are built from differentiable tensor ops.
#include <optional>
#include <vector>

#include "scorch/module/config.h"
#include "scorch/tensor/activation.h"

namespace scorch::nn {

/// How a loss folds per-element values: Mean, Sum, BatchMean (sum / batch size) or Auto (= Mean).
SCORCH_ENUM(Reduction, Mean, Sum, BatchMean, Auto)

namespace detail {
/// The reduced loss as a one-element tensor [1].
template <class B, size_t D> Tensor<B, 1> reduce(const Tensor<B, D>& losses, Reduction r) {
  switch (r) {
    case Reduction::Sum: return losses.sum();
    case Reduction::BatchMean: return losses.sum() / static_cast<double>(losses.shape()[0]);
    default: return losses.mean();
  }
}
/// Throws ShapeError unless both shapes are equal.
void check_same(const char* op, const Shape& a, const Shape& b);
/// Per-class values as a tensor [C] (weights given in a config).
template <class B> Tensor<B, 1> class_tensor(const std::vector<double>& values, const typename B::Device& device) {
  return Tensor<B, 1>::from_data(TensorData(values, {values.size()}).convert(Float::default_dtype), device);
}
}  // namespace detail

template <class B> struct CrossEntropyLoss;

/// Cross-entropy settings: tokens to ignore, per-class weights, label smoothing, and whether
/// inputs are logits (true) or probabilities.
struct CrossEntropyLossConfig {
  std::optional<std::vector<int64_t>> pad_tokens;
  std::optional<std::vector<double>> weights;
  std::optional<double> smoothing;
  bool logits = true;
  SCORCH_CONFIG(CrossEntropyLossConfig, (), (pad_tokens, weights, smoothing, logits))
  /// Throws ValueError on smoothing outside [0, 1] or a negative weight.
  template <class B> CrossEntropyLoss<B> init(const typename B::Device& device = {}) const;
};

/// −Σ w·log p[target] / Σ w (PyTorch's weighted mean; pad tokens weigh 0).
template <class B> struct CrossEntropyLoss {
  std::optional<Tensor<B, 1>> weights;
  std::vector<int64_t> pad_tokens;
  std::optional<double> smoothing;
  bool logits = true;

  /// logits [batch, classes], targets Int [batch] → loss [1].
  Tensor<B, 1> forward(const Tensor<B, 2>& input, const Tensor<B, 1, Int>& targets,
                       Reduction reduction = Reduction::Mean) const {
    auto [batch, classes] = input.dims();
    if (targets.shape()[0] != batch)
      throw ShapeError("CrossEntropyLoss::forward", "logits " + input.shape().to_string() + " and targets " +
                                                        targets.shape().to_string() + " disagree on the batch");
    if (weights && weights->shape()[0] != classes)
      throw ShapeError("CrossEntropyLoss::forward",
                       "weights " + weights->shape().to_string() + " for " + std::to_string(classes) + " classes");
    bool smoothed = smoothing && *smoothing > 0;
    // The fused op reads bf16 logits as they are (f32 results); the other paths compute in f32 under autocast.
    std::optional<Tensor<B, 2>> log_p;
    if (!logits || smoothed) log_p = logits ? activation::log_softmax(input, 1) : amp::to_full(input).log();
    auto nll = log_p ? -log_p->gather(1, targets.template reshape<2>({batch, size_t{1}})).template reshape<1>({batch})
                     : functional::cross_entropy(input, targets);
    auto w = weights ? weights->select(0, targets) : Tensor<B, 1>::ones({batch}, input.device());
    for (int64_t pad : pad_tokens) w = w.mask_fill(targets.equal_elem(Scalar(pad)), 0.0);
    auto per_sample = nll * w;
    if (smoothed) {
      double a = *smoothing;
      auto wc = weights ? *log_p * weights->template unsqueeze<2>() : *log_p;
      auto smooth = -wc.sum_dim(1).template reshape<1>({batch}) / static_cast<double>(classes);
      for (int64_t pad : pad_tokens) smooth = smooth.mask_fill(targets.equal_elem(Scalar(pad)), 0.0);
      per_sample = per_sample * (1.0 - a) + smooth * a;
    }
    if (reduction == Reduction::Sum) return per_sample.sum();
    return per_sample.sum() / w.sum();
  }
};

template <class B> CrossEntropyLoss<B> CrossEntropyLossConfig::init(const typename B::Device& device) const {
  if (smoothing && !(*smoothing >= 0 && *smoothing <= 1))
    throw ValueError("CrossEntropyLossConfig::init", "smoothing must be in [0, 1], got " + std::to_string(*smoothing));
  CrossEntropyLoss<B> loss;
  if (weights) {
    for (double w : *weights)
      if (!(w >= 0))
        throw ValueError("CrossEntropyLossConfig::init", "class weights must be ≥ 0, got " + std::to_string(w));
    loss.weights = detail::class_tensor<B>(*weights, device);
  }
  loss.pad_tokens = pad_tokens.value_or(std::vector<int64_t>{});
  loss.smoothing = smoothing, loss.logits = logits;
  return loss;
}

template <class B> struct BinaryCrossEntropyLoss;

/// Binary cross-entropy settings: per-class weights (last dim), label smoothing, logits or probabilities.
struct BinaryCrossEntropyLossConfig {
  std::optional<std::vector<double>> weights;
  std::optional<double> smoothing;
  bool logits = false;
  SCORCH_CONFIG(BinaryCrossEntropyLossConfig, (), (weights, smoothing, logits))
  template <class B> BinaryCrossEntropyLoss<B> init(const typename B::Device& device = {}) const {
    BinaryCrossEntropyLoss<B> loss;
    if (weights) loss.weights = detail::class_tensor<B>(*weights, device);
    loss.smoothing = smoothing, loss.logits = logits;
    return loss;
  }
};

/// −[t·log p + (1−t)·log(1−p)] per element (multi-label when inputs are [batch, classes]); targets in [0, 1].
template <class B> struct BinaryCrossEntropyLoss {
  std::optional<Tensor<B, 1>> weights;
  std::optional<double> smoothing;
  bool logits = false;

  template <size_t D> Tensor<B, 1> forward(const Tensor<B, D>& input, const Tensor<B, D>& targets,
                                           Reduction reduction = Reduction::Mean) const {
    detail::check_same("BinaryCrossEntropyLoss::forward", input.shape(), targets.shape());
    auto t = smoothing ? targets * (1.0 - *smoothing) + *smoothing / 2.0 : targets;
    const auto x = amp::to_full(input);  // the autocast policy: the loss in f32
    Tensor<B, D> losses;
    if (logits) {
      losses = x.clamp_min(0.0) - x * t + (-x.abs()).exp().log1p();
    } else {
      losses = -(t * x.log().clamp_min(-100.0) + (-t + 1.0) * (-x + 1.0).log().clamp_min(-100.0));
    }
    if (weights) losses = losses * weights->template unsqueeze<D>();
    return detail::reduce(losses, reduction);
  }
  /// Integer 0/1 targets.
  template <size_t D> Tensor<B, 1> forward(const Tensor<B, D>& input, const Tensor<B, D, Int>& targets,
                                           Reduction reduction = Reduction::Mean) const {
    return forward(input, targets.float_(), reduction);
  }
};

/// Mean squared error.
struct MseLoss {
  template <class B, size_t D>
  Tensor<B, D> forward_no_reduction(const Tensor<B, D>& pred, const Tensor<B, D>& target) const {
    detail::check_same("MseLoss::forward", pred.shape(), target.shape());
    return (pred - target).square();
  }
  template <class B, size_t D>
  Tensor<B, 1> forward(const Tensor<B, D>& pred, const Tensor<B, D>& target, Reduction r = Reduction::Mean) const {
    return detail::reduce(forward_no_reduction(pred, target), r);
  }
};

/// |pred − target|^p per element (p = 1: mean absolute error).
struct LpLoss {
  double p = 1.0;
  template <class B, size_t D>
  Tensor<B, 1> forward(const Tensor<B, D>& pred, const Tensor<B, D>& target, Reduction r = Reduction::Mean) const {
    detail::check_same("LpLoss::forward", pred.shape(), target.shape());
    auto diff = (pred - target).abs();
    return detail::reduce(p == 1.0 ? diff : diff.powf_scalar(p), r);
  }
};

struct HuberLoss;
/// Huber: ½r² for |r| ≤ delta, delta·(|r| − ½delta) beyond.
struct HuberLossConfig {
  double delta;
  SCORCH_CONFIG(HuberLossConfig, (delta), ())
  HuberLoss init() const;
};
struct HuberLoss {
  double delta = 1.0;
  template <class B, size_t D>
  Tensor<B, 1> forward(const Tensor<B, D>& pred, const Tensor<B, D>& target, Reduction r = Reduction::Mean) const {
    detail::check_same("HuberLoss::forward", pred.shape(), target.shape());
    auto a = (pred - target).abs();
    auto quad = a.square() * 0.5, lin = (a - 0.5 * delta) * delta;
    return detail::reduce(quad.mask_where(a.greater_elem(delta), lin), r);
  }
};
inline HuberLoss HuberLossConfig::init() const {
  if (!(delta > 0)) throw ValueError("HuberLossConfig::init", "delta must be positive, got " + std::to_string(delta));
  return {delta};
}

/// Smooth L1: ½r²/beta for |r| < beta, |r| − ½beta beyond.
struct SmoothL1Loss {
  double beta = 1.0;
  template <class B, size_t D>
  Tensor<B, 1> forward(const Tensor<B, D>& pred, const Tensor<B, D>& target, Reduction r = Reduction::Mean) const {
    detail::check_same("SmoothL1Loss::forward", pred.shape(), target.shape());
    auto a = (pred - target).abs();
    if (beta == 0.0) return detail::reduce(a, r);
    auto quad = a.square() * (0.5 / beta), lin = a - 0.5 * beta;
    return detail::reduce(quad.mask_where(a.greater_equal_elem(beta), lin), r);
  }
};

/// Kullback–Leibler divergence of target from input (input holds log-probabilities).
struct KLDivLoss {
  bool log_target = false;
  template <class B, size_t D>
  Tensor<B, 1> forward(const Tensor<B, D>& input, const Tensor<B, D>& target, Reduction r = Reduction::Mean) const {
    detail::check_same("KLDivLoss::forward", input.shape(), target.shape());
    if (log_target) return detail::reduce(target.exp() * (target - input), r);
    auto positive = target.greater_elem(0.0);
    auto safe = target.mask_fill(positive.bool_not(), 1.0);
    return detail::reduce((target * (safe.log() - input)).mask_fill(positive.bool_not(), 0.0), r);
  }
};

/// 1 − cos(x1, x2) for y = 1, max(0, cos − margin) for y = −1 (cosine over dim 1).
struct CosineEmbeddingLoss {
  double margin = 0.0;
  Reduction reduction = Reduction::Mean;
  template <class B> Tensor<B, 1> forward(const Tensor<B, 2>& x1, const Tensor<B, 2>& x2, const Tensor<B, 1>& y) const {
    detail::check_same("CosineEmbeddingLoss::forward", x1.shape(), x2.shape());
    size_t n = x1.shape()[0];
    auto dot = (x1 * x2).sum_dim(1), m1 = x1.square().sum_dim(1) + 1e-12, m2 = x2.square().sum_dim(1) + 1e-12;
    auto cos = (dot / (m1 * m2).sqrt()).template reshape<1>({n});
    auto pos = -cos + 1.0, neg = (cos - margin).clamp_min(0.0);
    return detail::reduce(pos.mask_where(y.lower_elem(0.0), neg), reduction);
  }
};

/// x for y = 1, max(0, margin − x) for y = −1.
struct HingeEmbeddingLoss {
  double margin = 1.0;
  template <class B, size_t D>
  Tensor<B, 1> forward(const Tensor<B, D>& x, const Tensor<B, D>& y, Reduction r = Reduction::Mean) const {
    auto neg = (-x + margin).clamp_min(0.0);
    return detail::reduce(x.mask_where(y.lower_elem(0.0), neg), r);
  }
};

/// max(0, −y·(x1 − x2) + margin).
struct MarginRankingLoss {
  double margin = 0.0;
  template <class B, size_t D> Tensor<B, 1> forward(const Tensor<B, D>& x1, const Tensor<B, D>& x2,
                                                    const Tensor<B, D>& y, Reduction r = Reduction::Mean) const {
    return detail::reduce((-y * (x1 - x2) + margin).clamp_min(0.0), r);
  }
};

/// log(1 + exp(−y·x)).
struct SoftMarginLoss {
  template <class B, size_t D>
  Tensor<B, 1> forward(const Tensor<B, D>& x, const Tensor<B, D>& y, Reduction r = Reduction::Mean) const {
    return detail::reduce(activation::softplus(-y * x), r);
  }
};

/// max(d(a, p) − d(a, n) + margin, 0) with the p-norm distance over the last dim.
struct TripletMarginLoss {
  double margin = 1.0, p = 2.0, eps = 1e-6;
  template <class B> Tensor<B, 1> forward(const Tensor<B, 2>& anchor, const Tensor<B, 2>& positive,
                                          const Tensor<B, 2>& negative, Reduction r = Reduction::Mean) const {
    auto dist = [&](const Tensor<B, 2>& a, const Tensor<B, 2>& b) {
      return (a - b + eps).abs().powf_scalar(p).sum_dim(1).powf_scalar(1.0 / p);
    };
    return detail::reduce((dist(anchor, positive) - dist(anchor, negative) + margin).clamp_min(0.0), r);
  }
};

/// ½(log var + (x − t)²/var) (+ ½log 2π when full), var clamped to eps.
struct GaussianNllLoss {
  double eps = 1e-6;
  bool full = false;
  template <class B, size_t D> Tensor<B, 1> forward(const Tensor<B, D>& input, const Tensor<B, D>& target,
                                                    const Tensor<B, D>& var, Reduction r = Reduction::Mean) const {
    auto v = var.clamp_min(eps);
    auto losses = (v.log() + (input - target).square() / v) * 0.5;
    if (full) losses = losses + 0.5 * std::log(2.0 * M_PI);
    return detail::reduce(losses, r);
  }
};

/// Poisson negative log-likelihood: exp(x) − t·x (log_input) or x − t·log(x + eps),
/// plus Stirling's term when full.
struct PoissonNllLoss {
  bool log_input = true, full = false;
  double eps = 1e-8;
  template <class B, size_t D>
  Tensor<B, 1> forward(const Tensor<B, D>& input, const Tensor<B, D>& target, Reduction r = Reduction::Mean) const {
    auto losses = log_input ? input.exp() - target * input : input - target * (input + eps).log();
    if (full) {
      auto safe = target.clamp_min(1.0);
      auto stirling = safe * safe.log() - safe + (safe * (2.0 * M_PI)).log() * 0.5;
      losses = losses + stirling.mask_fill(target.lower_equal_elem(1.0), 0.0);
    }
    return detail::reduce(losses, r);
  }
};

}  // namespace scorch::nn

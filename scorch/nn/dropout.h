#pragma once
// Dropout, GaussianNoise and Identity. Dropout and noise act only on autodiff backends (training);
// on an inference backend they return the input unchanged, as the Burn Book specifies.
#include "scorch/module/module.h"

namespace scorch::nn {

struct Dropout;
struct GaussianNoise;

/// Dropout settings: the probability of zeroing an element.
struct DropoutConfig {
  double prob;
  SCORCH_CONFIG(DropoutConfig, (prob), ())
  /// Throws ValueError unless 0 ≤ prob < 1.
  Dropout init() const;
};

/// Inverted dropout: zeroes each element with probability prob and scales the rest by 1/(1-prob).
struct Dropout {
  double prob = 0.0;
  SCORCH_MODULE(Dropout, prob)
  template <class B, size_t D> Tensor<B, D> forward(const Tensor<B, D>& x) const {
    if constexpr (AutodiffBackend<B>) {
      if (prob == 0.0) return x;
      auto keep = x.random_like(Distribution::bernoulli(1.0 - prob));  // in x's dtype (bf16 stays bf16)
      return (x * keep) * (1.0 / (1.0 - prob));
    } else {
      return x;
    }
  }
};

inline Dropout DropoutConfig::init() const {
  if (!(prob >= 0.0 && prob < 1.0))
    throw ValueError("DropoutConfig::init", "prob must be in [0, 1), got " + std::to_string(prob));
  return Dropout{prob};
}

/// Gaussian noise settings (the noise's standard deviation).
struct GaussianNoiseConfig {
  double std;
  SCORCH_CONFIG(GaussianNoiseConfig, (std), ())
  GaussianNoise init() const;
};

/// Adds N(0, std²) noise in training.
struct GaussianNoise {
  double std = 0.0;
  SCORCH_MODULE(GaussianNoise, std)
  template <class B, size_t D> Tensor<B, D> forward(const Tensor<B, D>& x) const {
    if constexpr (AutodiffBackend<B>) {
      if (std == 0.0) return x;
      return x + Tensor<B, D>::random(x.shape(), Distribution::normal(0.0, std), x.device());
    } else {
      return x;
    }
  }
};
inline GaussianNoise GaussianNoiseConfig::init() const {
  if (!(std >= 0.0)) throw ValueError("GaussianNoiseConfig::init", "std must be ≥ 0, got " + std::to_string(std));
  return GaussianNoise{std};
}

/// Returns its input.
struct Identity {
  SCORCH_MODULE(Identity)
  template <class T> T forward(const T& x) const { return x; }
};

}  // namespace scorch::nn

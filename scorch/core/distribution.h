#pragma once
// Distributions for random tensors.
#include <string>

namespace scorch {

/// How random values are drawn: Default is uniform on [0, 1).
struct Distribution {
  enum class Kind { Default, Uniform, Bernoulli, Normal };
  Kind kind = Kind::Default;
  double a = 0.0;  ///< low (Uniform), p (Bernoulli), mean (Normal)
  double b = 1.0;  ///< high (Uniform), std (Normal)

  /// Uniform on [0, 1).
  static constexpr Distribution standard() { return {}; }
  /// Uniform on [low, high).
  static constexpr Distribution uniform(double low, double high) { return {Kind::Uniform, low, high}; }
  /// 1 with probability p, else 0.
  static constexpr Distribution bernoulli(double p) { return {Kind::Bernoulli, p, 0.0}; }
  /// Gaussian with the given mean and standard deviation.
  static constexpr Distribution normal(double mean, double std) { return {Kind::Normal, mean, std}; }
  /// Shorthand matching Burn's `Distribution::Default`.
  static const Distribution Default;
  std::string to_string() const;
};

inline constexpr Distribution Distribution::Default = Distribution{};

}  // namespace scorch

#pragma once
// Weight initializers with PyTorch-compatible defaults. Kaiming and Xavier need
// the fans; layers pass them (fan_in = inputs feeding one output, fan_out = the converse).
#include <cmath>
#include <optional>
#include <vector>

#include "scorch/core/error.h"
#include "scorch/module/config.h"
#include "scorch/module/init_budget.h"
#include "scorch/module/param.h"

namespace scorch::nn {

SCORCH_ENUM(InitializerKind, Constant, Ones, Zeros, Uniform, Normal, KaimingUniform, KaimingNormal, XavierUniform,
            XavierNormal, Orthogonal)

namespace detail {
/// A [rows, cols] matrix with orthonormal rows (rows ≤ cols) or columns, from QR of a normal
/// matrix with the sign correction PyTorch applies; row-major doubles.
std::vector<double> orthogonal_matrix(size_t rows, size_t cols, uint64_t seed);
/// A fresh seed for an orthogonal init, drawn from the backend's random stream.
template <class B> uint64_t draw_seed(const typename B::Device& device) {
  auto bits = Tensor<B, 1>::random({2}, Distribution::uniform(0.0, 4294967296.0), device)
                  .to_data()
                  .template to_vector<double>();
  return static_cast<uint64_t>(bits[0]) << 32 ^ static_cast<uint64_t>(bits[1]);
}
}  // namespace detail

/// How a layer fills its weights; a config value (saved by kind and numbers).
struct Initializer {
  InitializerKind kind = InitializerKind::KaimingUniform;
  double value = 0.0, low = 0.0, high = 1.0, mean = 0.0, std = 1.0;
  double gain = 1.0 / std::sqrt(3.0);
  bool fan_out_only = false;
  SCORCH_CONFIG(Initializer, (), (kind, value, low, high, mean, std, gain, fan_out_only))

  static Initializer constant(double v) { return Initializer().with_kind(InitializerKind::Constant).with_value(v); }
  static Initializer ones() { return Initializer().with_kind(InitializerKind::Ones); }
  static Initializer zeros() { return Initializer().with_kind(InitializerKind::Zeros); }
  static Initializer uniform(double lo, double hi) {
    return Initializer().with_kind(InitializerKind::Uniform).with_low(lo).with_high(hi);
  }
  static Initializer normal(double m, double s) {
    return Initializer().with_kind(InitializerKind::Normal).with_mean(m).with_std(s);
  }
  /// bound = gain·√3/√fan; the default gain 1/√3 is PyTorch's nn.Linear / nn.Conv init.
  static Initializer kaiming_uniform(double g = 1.0 / std::sqrt(3.0), bool fan_out = false) {
    return Initializer().with_kind(InitializerKind::KaimingUniform).with_gain(g).with_fan_out_only(fan_out);
  }
  /// std = gain/√fan.
  static Initializer kaiming_normal(double g = 1.0, bool fan_out = false) {
    return Initializer().with_kind(InitializerKind::KaimingNormal).with_gain(g).with_fan_out_only(fan_out);
  }
  /// bound = gain·√3·√(2/(fan_in+fan_out)).
  static Initializer xavier_uniform(double g = 1.0) {
    return Initializer().with_kind(InitializerKind::XavierUniform).with_gain(g);
  }
  /// std = gain·√(2/(fan_in+fan_out)).
  static Initializer xavier_normal(double g = 1.0) {
    return Initializer().with_kind(InitializerKind::XavierNormal).with_gain(g);
  }
  /// A (semi-)orthogonal matrix of the flattened [dim0, rest] shape, times gain.
  static Initializer orthogonal(double g = 1.0) {
    return Initializer().with_kind(InitializerKind::Orthogonal).with_gain(g);
  }

  /// A tensor of shape drawn from this initializer; throws ValueError when a fan it needs is missing.
  template <class B, size_t D> Tensor<B, D> tensor(const Shape& shape, std::optional<size_t> fan_in,
                                                   std::optional<size_t> fan_out,
                                                   const typename B::Device& device = {}) const;
  /// The same, as a new parameter (a tracked leaf on autodiff backends).
  template <class B, size_t D> Param<Tensor<B, D>> init_with(const Shape& shape, std::optional<size_t> fan_in,
                                                             std::optional<size_t> fan_out,
                                                             const typename B::Device& device = {}) const {
    RecordInitBudget::charge(shape);  // inside init_with(record): no more than the record can fill
    return Param(tensor<B, D>(shape, fan_in, fan_out, device));
  }
  /// A parameter for initializers that need no fans.
  template <class B, size_t D>
  Param<Tensor<B, D>> init(const Shape& shape, const typename B::Device& device = {}) const {
    return init_with<B, D>(shape, std::nullopt, std::nullopt, device);
  }

 private:
  double fan(std::optional<size_t> fan_in, std::optional<size_t> fan_out) const;
  double xavier_scale(std::optional<size_t> fan_in, std::optional<size_t> fan_out) const;
};

template <class B, size_t D> Tensor<B, D> Initializer::tensor(const Shape& shape, std::optional<size_t> fan_in,
                                                              std::optional<size_t> fan_out,
                                                              const typename B::Device& device) const {
  using K = InitializerKind;
  switch (kind) {
    case K::Constant: return Tensor<B, D>::full(shape, value, device);
    case K::Ones: return Tensor<B, D>::ones(shape, device);
    case K::Zeros: return Tensor<B, D>::zeros(shape, device);
    case K::Uniform: return Tensor<B, D>::random(shape, Distribution::uniform(low, high), device);
    case K::Normal: return Tensor<B, D>::random(shape, Distribution::normal(mean, std), device);
    case K::KaimingUniform: {
      double bound = gain * std::sqrt(3.0 / fan(fan_in, fan_out));
      return Tensor<B, D>::random(shape, Distribution::uniform(-bound, bound), device);
    }
    case K::KaimingNormal:
      return Tensor<B, D>::random(shape, Distribution::normal(0.0, gain / std::sqrt(fan(fan_in, fan_out))), device);
    case K::XavierUniform: {
      double bound = std::sqrt(3.0) * xavier_scale(fan_in, fan_out);
      return Tensor<B, D>::random(shape, Distribution::uniform(-bound, bound), device);
    }
    case K::XavierNormal:
      return Tensor<B, D>::random(shape, Distribution::normal(0.0, xavier_scale(fan_in, fan_out)), device);
    case K::Orthogonal: {
      if (D < 2)
        throw ValueError("Initializer::Orthogonal", "needs a tensor of rank 2 or more, got shape " + shape.to_string());
      size_t rows = shape[0], cols = shape.num_elements() / rows;
      auto values = detail::orthogonal_matrix(rows, cols, detail::draw_seed<B>(device));
      for (double& v : values) v *= gain;
      return Tensor<B, D>::from_data(TensorData(values, shape).convert(Float::default_dtype), device);
    }
  }
  throw ValueError("Initializer", "unknown kind");
}

}  // namespace scorch::nn

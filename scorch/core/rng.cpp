#include "scorch/core/rng.h"

#include <cmath>
#include <numbers>
#include <string>

namespace scorch {

double sample(const Distribution& dist, uint64_t key, uint64_t base, uint64_t i) {
  double u = uniform01(key, base + 2 * i);
  switch (dist.kind) {
    case Distribution::Kind::Default: return u;
    case Distribution::Kind::Uniform: return dist.a + (dist.b - dist.a) * u;
    case Distribution::Kind::Bernoulli: return u < dist.a ? 1.0 : 0.0;
    case Distribution::Kind::Normal: {
      double u2 = uniform01(key, base + 2 * i + 1);
      double radius = std::sqrt(-2.0 * std::log(1.0 - u));  // 1-u is in (0, 1]
      return dist.a + dist.b * radius * std::cos(2.0 * std::numbers::pi * u2);
    }
  }
  return u;
}

std::string Distribution::to_string() const {
  switch (kind) {
    case Kind::Default: return "Default";
    case Kind::Uniform: return "Uniform(" + std::to_string(a) + ", " + std::to_string(b) + ")";
    case Kind::Bernoulli: return "Bernoulli(" + std::to_string(a) + ")";
    case Kind::Normal: return "Normal(" + std::to_string(a) + ", " + std::to_string(b) + ")";
  }
  return "?";
}

}  // namespace scorch

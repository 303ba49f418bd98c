#include "scorch/nn/initializer.h"

#include <random>

namespace scorch::nn {

double Initializer::fan(std::optional<size_t> fan_in, std::optional<size_t> fan_out) const {
  std::optional<size_t> f = fan_out_only ? fan_out : fan_in;
  const char* which = fan_out_only ? "fan_out" : "fan_in";
  if (!f)
    throw ValueError("Initializer::" + std::string(::scorch::detail::enum_name(kind)),
                     std::string("needs ") + which + " (the layer did not give it)");
  if (*f == 0)
    throw ValueError("Initializer::" + std::string(::scorch::detail::enum_name(kind)), std::string(which) + " is 0");
  return static_cast<double>(*f);
}

double Initializer::xavier_scale(std::optional<size_t> fan_in, std::optional<size_t> fan_out) const {
  if (!fan_in || !fan_out)
    throw ValueError("Initializer::" + std::string(::scorch::detail::enum_name(kind)),
                     "needs fan_in and fan_out (the layer did not give both)");
  return gain * std::sqrt(2.0 / static_cast<double>(*fan_in + *fan_out));
}

namespace detail {

std::vector<double> orthogonal_matrix(size_t rows, size_t cols, uint64_t seed) {
  // Modified Gram–Schmidt on the columns of a tall normal matrix = QR with R's diagonal
  // positive, which is QR followed by PyTorch's sign correction q·sign(diag(r)).
  bool transpose = rows < cols;
  size_t n = transpose ? cols : rows, m = transpose ? rows : cols;  // tall n x m
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> a(n * m);
  for (double& v : a) v = normal(gen);
  for (size_t j = 0; j < m; ++j) {
    for (size_t k = 0; k < j; ++k) {
      double dot = 0;
      for (size_t i = 0; i < n; ++i) dot += a[i * m + j] * a[i * m + k];
      for (size_t i = 0; i < n; ++i) a[i * m + j] -= dot * a[i * m + k];
    }
    double norm = 0;
    for (size_t i = 0; i < n; ++i) norm += a[i * m + j] * a[i * m + j];
    norm = std::sqrt(norm);
    for (size_t i = 0; i < n; ++i) a[i * m + j] /= norm;
  }
  if (!transpose) return a;
  std::vector<double> out(rows * cols);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < m; ++j) out[j * cols + i] = a[i * m + j];
  return out;
}

}  // namespace detail
}  // namespace scorch::nn

// The differential harness's host side: input generation per domain and layout, loss weights,
// per-dtype tolerances and the comparison that names the worst element.
#include "diff_harness.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <cstdlib>
#include <sstream>

namespace scorch::differential {
namespace {

/// The shape uploaded for spec: the layout's view turns it into spec.shape.
Shape storage_shape(const InputSpec& spec) {
  Shape s = spec.shape;
  size_t r = s.rank();
  switch (spec.layout) {
    case Layout::Contiguous: break;
    case Layout::Transposed: std::swap(s[r - 2], s[r - 1]); break;
    case Layout::Strided: s[r - 1] *= 2; break;
    case Layout::Expanded: s[0] = 1; break;
  }
  return s;
}

double float_value(const InputSpec& spec, std::mt19937_64& rng) {
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  switch (spec.domain) {
    case Domain::Small: return std::round(uniform(-static_cast<double>(spec.bound), static_cast<double>(spec.bound)));
    case Domain::Positive: return uniform(0.1, 4.0);
    case Domain::Unit: return uniform(-0.95, 0.95);
    case Domain::AboveOne: return uniform(1.05, 5.0);
    case Domain::Open01: return uniform(0.05, 0.95);
    case Domain::Nonzero: {
      double v = uniform(0.5, 3.0);
      return rng() & 1 ? v : -v;
    }
    default: return std::normal_distribution<double>(0.0, 1.0)(rng);
  }
}

int64_t int_value(const InputSpec& spec, std::mt19937_64& rng) {
  auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  bool is_unsigned = spec.dtype == DType::U8;
  switch (spec.domain) {
    case Domain::Index: return uniform(0, spec.bound - 1);
    case Domain::Small: return uniform(is_unsigned ? 0 : -spec.bound, spec.bound);
    case Domain::Shift: return uniform(0, 70);
    case Domain::Nonzero: {
      int64_t v = uniform(1, 9);
      return is_unsigned || (rng() & 1) ? v : -v;
    }
    case Domain::Positive: return uniform(1, 20);
    default: return is_unsigned ? uniform(0, 100) : uniform(-50, 50);
  }
}

const std::vector<double>& float_edges() {
  static const std::vector<double> edges = {0.0,
                                            -0.0,
                                            std::numeric_limits<double>::infinity(),
                                            -std::numeric_limits<double>::infinity(),
                                            std::numeric_limits<double>::quiet_NaN(),
                                            0.5,
                                            -0.5,
                                            2.5,
                                            -2.5,
                                            1.0,
                                            -1.0,
                                            1e-30,
                                            -1e-30,
                                            1e30,
                                            -1e30};
  return edges;
}

std::vector<int64_t> int_edges(DType dtype) {
  int64_t lo = 0, hi = 0;
  switch (dtype) {
    case DType::I64: lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max(); break;
    case DType::I32: lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max(); break;
    case DType::I16: lo = std::numeric_limits<int16_t>::min(), hi = std::numeric_limits<int16_t>::max(); break;
    case DType::I8: lo = std::numeric_limits<int8_t>::min(), hi = std::numeric_limits<int8_t>::max(); break;
    default: lo = 0, hi = 255; break;
  }
  return {0, 1, lo, hi, lo + 1, hi - 1, dtype == DType::U8 ? 2 : -1};
}

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::Contiguous: return "contiguous";
    case Layout::Transposed: return "transposed";
    case Layout::Strided: return "strided";
    case Layout::Expanded: return "expanded";
  }
  return "?";
}

const char* domain_name(Domain d) {
  switch (d) {  // no default: -Wswitch names a new domain missing here
    case Domain::Normal: return "normal";
    case Domain::Positive: return "positive";
    case Domain::Unit: return "unit";
    case Domain::AboveOne: return "above-one";
    case Domain::Open01: return "open-01";
    case Domain::Nonzero: return "nonzero";
    case Domain::Index: return "index";
    case Domain::Small: return "small";
    case Domain::Shift: return "shift";
    case Domain::Mask: return "mask";
  }
  return "?";
}

/// Mean, standard deviation, then the 10 %, 50 % and 90 % quantiles of float data, or the minimum
/// and maximum of integer data (a large draw reaches both bounds; discrete quantiles are too coarse).
std::vector<double> summary(const TensorData& data) {
  std::vector<double> v = data.to_vector<double>();
  if (v.empty()) return {};
  double mean = 0, sq = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  for (double x : v) sq += (x - mean) * (x - mean);
  std::sort(v.begin(), v.end());
  auto q = [&](double p) { return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))]; };
  double sd = std::sqrt(sq / static_cast<double>(v.size()));
  if (!is_float(data.dtype())) return {mean, sd, v.front(), v.back()};
  return {mean, sd, q(0.1), q(0.5), q(0.9)};
}

std::string index_string(const Shape& shape, size_t flat) {
  std::vector<size_t> idx(shape.rank());
  for (size_t d = shape.rank(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

std::string number(double v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

}  // namespace

InputSpec in(Shape shape, DType dtype, Domain domain, Layout layout) {
  InputSpec s;
  s.shape = shape;
  s.dtype = dtype;
  s.domain = domain;
  s.layout = layout;
  return s;
}
InputSpec with_edges(InputSpec spec, bool large) {
  spec.edges = true;
  spec.large = large;
  spec.grad = false;
  return spec;
}
InputSpec index(Shape shape, int64_t bound, DType dtype) {
  InputSpec s = in(shape, dtype, Domain::Index);
  s.bound = bound;
  return s;
}
InputSpec mask(Shape shape, Layout layout) { return in(shape, DType::Bool, Domain::Mask, layout); }
InputSpec small(Shape shape, int64_t bound, DType dtype, Layout layout) {
  InputSpec s = in(shape, dtype, Domain::Small, layout);
  s.bound = bound;
  return s;
}

TensorData generate(const InputSpec& spec, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Shape shape = storage_shape(spec);
  size_t n = shape.num_elements();
  if (is_bool(spec.dtype)) {
    std::vector<uint8_t> v(n);
    for (auto& x : v) x = static_cast<uint8_t>(rng() & 1);
    return TensorData(v, shape).convert(DType::Bool);
  }
  if (is_int(spec.dtype)) {
    std::vector<int64_t> v(n);
    auto edges = int_edges(spec.dtype);
    for (auto& x : v) x = spec.edges && rng() % 4 == 0 ? edges[rng() % edges.size()] : int_value(spec, rng);
    return TensorData(v, shape).convert(spec.dtype);
  }
  std::vector<double> v(n);
  const auto& edges = float_edges();
  size_t usable = spec.large ? edges.size() : edges.size() - 4;  // the last four are ±1e-30 and ±1e30
  for (auto& x : v) x = spec.edges && rng() % 4 == 0 ? edges[rng() % usable] : float_value(spec, rng);
  return TensorData(v, shape).convert(spec.dtype);
}

TensorData loss_weights(const TensorData& output, uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  std::vector<double> v(output.num_elements());
  for (auto& x : v) x = std::uniform_real_distribution<double>(0.5, 1.5)(rng) * (rng() & 1 ? 1.0 : -1.0);
  return TensorData(v, output.shape()).convert(output.dtype());
}

Tolerance tolerance_for(DType dtype, double scale) {
  switch (dtype) {
    case DType::F64: return {1e-9 * scale, 1e-12 * scale};
    case DType::F32: return {2e-5 * scale, 2e-6 * scale};
    case DType::F16: return {2e-3 * scale, 1e-3 * scale};
    case DType::BF16: return {1.6e-2 * scale, 1e-2 * scale};
    default: return Tolerance::strict();
  }
}

std::optional<std::string> compare(const TensorData& expected, const TensorData& actual, const CaseOptions& options) {
  if (expected.dtype() != actual.dtype())
    return "dtype " + std::string(dtype_name(actual.dtype())) + ", expected " +
           std::string(dtype_name(expected.dtype()));
  if (expected.shape() != actual.shape())
    return "shape " + actual.shape().to_string() + ", expected " + expected.shape().to_string();
  if (options.shape_only) return std::nullopt;
  if (options.statistical) {
    auto e = summary(expected), a = summary(actual);
    const char* names[] = {"mean", "std", is_float(expected.dtype()) ? "q10" : "min",
                           is_float(expected.dtype()) ? "q50" : "max", "q90"};
    for (size_t k = 0; k < e.size(); ++k)
      if (std::abs(e[k] - a[k]) > 0.05 * std::max(1.0, e[1]))
        return std::string(names[k]) + " " + number(a[k]) + ", expected " + number(e[k]);
    return std::nullopt;
  }
  size_t n = expected.num_elements(), bad = 0, worst = 0;
  double worst_excess = -1;
  if (!is_float(expected.dtype())) {
    auto e = expected.to_vector<int64_t>(), a = actual.to_vector<int64_t>();
    for (size_t i = 0; i < n; ++i)
      if (e[i] != a[i] && bad++ == 0) worst = i;
    if (!bad) return std::nullopt;
    return std::to_string(bad) + " of " + std::to_string(n) + " elements differ; first at " +
           index_string(expected.shape(), worst) + ": " + std::to_string(a[worst]) + ", expected " +
           std::to_string(e[worst]);
  }
  Tolerance tol = tolerance_for(expected.dtype(), options.tol_scale);
  auto e = expected.to_vector<double>(), a = actual.to_vector<double>();
  for (size_t i = 0; i < n; ++i) {
    if (std::isnan(e[i]) && std::isnan(a[i])) continue;
    if (e[i] == a[i]) continue;
    double diff = std::abs(e[i] - a[i]),
           allowed = std::max(tol.absolute, tol.relative * std::max(std::abs(e[i]), std::abs(a[i])));
    if (!(diff <= allowed) || std::isinf(e[i]) || std::isinf(a[i])) {
      ++bad;
      double excess = std::isfinite(diff) ? diff / allowed : std::numeric_limits<double>::infinity();
      if (excess > worst_excess || worst_excess < 0) worst_excess = excess, worst = i;
    }
  }
  if (!bad) return std::nullopt;
  return std::to_string(bad) + " of " + std::to_string(n) + " elements differ; worst at " +
         index_string(expected.shape(), worst) + " (flat " + std::to_string(worst) + "): " + number(a[worst]) +
         ", expected " + number(e[worst]) + " (tolerance rel " + number(tol.relative) + " abs " + number(tol.absolute) +
         ")";
}

std::string describe_inputs(const std::vector<InputSpec>& specs) {
  std::string s;
  for (size_t i = 0; i < specs.size(); ++i) {
    const auto& p = specs[i];
    s += (i ? "; " : "") + std::string(dtype_name(p.dtype)) + p.shape.to_string() + " " + layout_name(p.layout) + " " +
         domain_name(p.domain);
    if (p.edges) s += p.large ? " +edges" : " +edges(no extreme magnitudes)";
  }
  return s;
}

const std::vector<DiffCase>& all_cases() {
  static const std::vector<DiffCase> cases = [] {
    DiffList list;
    add_elementwise_cases(list);
    add_math_cases(list);
    add_structure_cases(list);
    add_index_cases(list);
    add_module_cases(list);
    return std::move(list.cases);
  }();
  return cases;
}

const std::vector<Dyn::Device>& differential_stacks() {
  static const std::vector<Dyn::Device> stacks = [] {
    const char* env = std::getenv("SCORCH_DIFF_STACKS");
    std::string wanted = env ? std::string(",") + env + "," : "";
    auto stack_keys = Dyn::stacks();
    bool has_torch = std::find(stack_keys.begin(), stack_keys.end(), "libtorch") != stack_keys.end();
    std::vector<Dyn::Device> out{Dyn::device(has_torch ? "libtorch" : "cpu")};
    for (std::string key : {"cpu", "fusion<cpu>", "cuda", "fusion<cuda>", "vulkan"}) {
      if (std::find(stack_keys.begin(), stack_keys.end(), key) == stack_keys.end()) continue;
      auto device = Dyn::device(key);
      bool is_oracle = device == out.front();
      bool chosen = wanted.empty() || wanted.find("," + key + ",") != std::string::npos;
      if (!is_oracle && chosen && device.stack().unavailable().empty()) out.push_back(device);
    }
    return out;
  }();
  return stacks;
}

}  // namespace scorch::differential

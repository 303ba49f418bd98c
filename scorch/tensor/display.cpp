#include "scorch/tensor/display.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace scorch {
namespace detail {

std::string shortest_by_printf(double v, bool f64) {
  if (!f64) v = float(v);
  char buf[64];
  auto reads_back = [&](const char* text) {
    return f64 ? std::strtod(text, nullptr) == v : std::strtof(text, nullptr) == float(v);
  };
  int digits = 1;
  while (digits < 17) {
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
    if (reads_back(buf)) break;
    ++digits;
  }
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
  std::string scientific = buf;
  int exponent = std::atoi(scientific.c_str() + scientific.find('e') + 1);
  // Fixed: as many decimals as the significant digits need; an integer is written whole (as to_chars does).
  std::snprintf(buf, sizeof buf, "%.*f", std::max(0, digits - 1 - exponent), v);
  std::string fixed = buf;
  return fixed.size() <= scientific.size() ? fixed : scientific;
}

}  // namespace detail

namespace {

std::mutex g_options_mutex;
PrintOptions g_options;

/// std::to_chars's shortest text, or shortest_by_printf's where the library lacks floating-point to_chars.
std::string shortest(double v, bool f64) {
#if defined(__cpp_lib_to_chars)
  char buf[64];
  auto res = f64 ? std::to_chars(buf, buf + sizeof buf, v) : std::to_chars(buf, buf + sizeof buf, float(v));
  return std::string(buf, res.ptr);
#else
  return detail::shortest_by_printf(v, f64);
#endif
}

std::string format_float(double v, DType dtype, const std::optional<int>& precision) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  if (precision) {
    std::snprintf(buf, sizeof buf, "%.*f", *precision, v);
    return buf;
  }
  std::string s = shortest(v, dtype == DType::F64);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string format_value(const TensorData& data, size_t i, const std::optional<int>& precision) {
  double v = data.value_at(i);
  if (is_float(data.dtype())) return format_float(v, data.dtype(), precision);
  if (is_bool(data.dtype())) return v != 0 ? "true" : "false";
  return data.scalar_at(i).to_string();
}

struct Printer {
  std::ostream& os;
  const TensorData& data;
  PrintOptions opts;
  bool elide;
  std::array<int64_t, kMaxRank> strides;

  void dim(size_t d, size_t offset, size_t indent) {
    const Shape& s = data.shape();
    os << '[';
    size_t n = s[d], edge = opts.edge_items;
    bool cut = elide && n > 2 * edge;
    for (size_t i = 0; i < n; ++i) {
      if (cut && i == edge) {
        os << (d + 1 == s.rank() ? "..., " : "...,\n" + std::string(indent + 1, ' '));
        i = n - edge;
      }
      size_t at = offset + i * static_cast<size_t>(strides[d]);
      if (d + 1 == s.rank()) os << format_value(data, at, opts.precision);
      else dim(d + 1, at, indent + 1);
      if (i + 1 < n) os << (d + 1 == s.rank() ? ", " : ",\n" + std::string(indent + 1, ' '));
    }
    os << ']';
  }
};

}  // namespace

void set_print_options(const PrintOptions& options) {
  std::lock_guard lock(g_options_mutex);
  g_options = options;
}

PrintOptions print_options() {
  std::lock_guard lock(g_options_mutex);
  return g_options;
}

void format_data(std::ostream& os, const TensorData& data) {
  PrintOptions opts = print_options();
  if (data.shape().rank() == 0) {
    os << format_value(data, 0, opts.precision);
    return;
  }
  Printer p{os, data, opts, data.num_elements() > opts.threshold, contiguous_strides(data.shape())};
  p.dim(0, 0, 0);
}

std::ostream& operator<<(std::ostream& os, const TensorData& data) {
  format_data(os, data);
  return os;
}

void format_tensor(std::ostream& os, const TensorData& data, const TensorDescription& d) {
  os << "Tensor {\n  data:\n";
  format_data(os, data);
  os << ",\n  shape:  " << data.shape().to_string() << ",\n  device:  " << d.device << ",\n  backend:  \"" << d.backend
     << "\",\n  kind:  \"" << d.kind << "\",\n  dtype:  \"" << dtype_name(data.dtype()) << "\",\n}";
}

}  // namespace scorch

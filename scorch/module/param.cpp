#include "scorch/module/param.h"

#include <atomic>
#include <cstdio>
#include <random>

#include "scorch/core/error.h"

namespace scorch {

ParamId ParamId::make() {
  // A random start per process plus a counter: unique here, unlikely to meet another process's ids.
  static const uint64_t base = [] {
    std::random_device device;
    return (static_cast<uint64_t>(device()) << 32) ^ device();
  }();
  static std::atomic<uint64_t> counter{0};
  uint64_t id = base + 0x9E3779B97F4A7C15ull * ++counter;
  return ParamId(id == 0 ? 1 : id);
}

std::string ParamId::to_string() const {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value_));
  return text;
}

ParamId ParamId::parse(const std::string& text) {
  if (text.size() != 16 || text.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw FormatError("ParamId::parse", "'" + text + "' is not 16 lowercase hex digits");
  return ParamId(std::stoull(text, nullptr, 16));
}

}  // namespace scorch

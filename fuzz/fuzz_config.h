#pragma once
// A config with a field of every kind ConfigValue handles, for the config target and its seeds.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "scorch/module/config.h"

namespace scorch::fuzz {

SCORCH_ENUM(FuzzMode, Fast, Exact, Off)

struct FuzzInnerConfig {
  double scale = 1.0;
  std::optional<int> seed;
  SCORCH_CONFIG(FuzzInnerConfig, (), (scale, seed))
};

struct FuzzConfig {
  size_t width;
  std::string name = "model";
  bool shuffle = false;
  int8_t small = -3;
  uint64_t big = 1;
  FuzzMode mode = FuzzMode::Fast;
  std::vector<double> values = {0.5, 1.5};
  std::array<uint32_t, 2> kernel = {3, 3};
  std::vector<FuzzInnerConfig> layers = {FuzzInnerConfig{}};
  FuzzInnerConfig inner;
  SCORCH_CONFIG(FuzzConfig, (width), (name, shuffle, small, big, mode, values, kernel, layers, inner))
};

}  // namespace scorch::fuzz

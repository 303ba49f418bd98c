#include "scorch/core/autocast.h"

#include <cmath>
#include <string>

#include "scorch/core/error.h"

namespace scorch::amp {
namespace {
thread_local AutocastState current_state;
}  // namespace

const AutocastState& autocast_state() { return current_state; }

Autocast::Autocast(std::optional<DType> dtype, std::optional<double> loss_scale) : saved_(current_state) {
  if (dtype && *dtype != DType::F16 && *dtype != DType::BF16)
    throw ValueError("Autocast", "the autocast dtype must be f16 or bf16, got " + std::string(dtype_name(*dtype)));
  double scale = loss_scale.value_or(saved_.loss_scale);
  if (!(std::isfinite(scale) && scale > 0))
    throw ValueError("Autocast", "the loss scale must be finite and > 0, got " + std::to_string(scale));
  current_state = AutocastState{dtype, scale};
}

Autocast::~Autocast() { current_state = saved_; }

}  // namespace scorch::amp

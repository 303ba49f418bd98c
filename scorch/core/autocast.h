#pragma once
// The thread's mixed-precision state: the autocast dtype that the tensor front end applies its precision
// policy with (docs/mixed-precision.md), and the loss scale that backward() seeds its root with.
#include <optional>

#include "scorch/core/dtype.h"

namespace scorch::amp {

/// What an Autocast scope set on this thread: `dtype` (F16 or BF16) while autocast is on; `loss_scale`, the value
/// backward() seeds the root gradient with (1 outside any scope).
struct AutocastState {
  std::optional<DType> dtype;
  double loss_scale = 1.0;
};

/// This thread's state (off, scale 1, until an Autocast scope is entered).
const AutocastState& autocast_state();
/// The autocast dtype, when a scope with one is active on this thread.
inline std::optional<DType> autocast_dtype() { return autocast_state().dtype; }

/// RAII scope: the ops called on this thread inside run with the precision policy of `dtype` (nullopt: off, e.g.
/// to run a region in full precision inside an autocast region) and backward() seeds with loss_scale (by default
/// the enclosing scope's, 1 outside any); the previous state comes back at the end of the scope. Throws
/// ValueError for a dtype other than F16/BF16 or a loss scale that is not finite and > 0.
class Autocast {
 public:
  explicit Autocast(std::optional<DType> dtype = DType::BF16, std::optional<double> loss_scale = std::nullopt);
  ~Autocast();
  Autocast(const Autocast&) = delete;
  Autocast& operator=(const Autocast&) = delete;

 private:
  AutocastState saved_;
};

}  // namespace scorch::amp

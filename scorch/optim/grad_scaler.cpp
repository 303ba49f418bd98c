#include "scorch/optim/grad_scaler.h"

#include <algorithm>
#include <limits>
#include <string>

namespace scorch::optim {

GradScaler GradScalerConfig::init() const {
  auto fail = [](const std::string& what) { throw ValueError("GradScalerConfig::init", what); };
  if (!(std::isfinite(init_scale) && init_scale > 0))
    fail("init_scale must be finite and > 0, got " + std::to_string(init_scale));
  if (!(std::isfinite(growth_factor) && growth_factor > 1))
    fail("growth_factor must be > 1, got " + std::to_string(growth_factor));
  if (!(backoff_factor > 0 && backoff_factor < 1))
    fail("backoff_factor must be in (0, 1), got " + std::to_string(backoff_factor));
  if (growth_interval == 0) fail("growth_interval must be ≥ 1");
  return GradScaler(*this);
}

void GradScaler::update(bool found_inf) {
  if (!config_.enabled) return;
  if (found_inf) {
    scale_ = std::max(scale_ * config_.backoff_factor, std::numeric_limits<double>::min());  // stays > 0
    clean_steps_ = 0;
    ++skipped_;
    return;
  }
  if (++clean_steps_ < config_.growth_interval) return;
  double grown = scale_ * config_.growth_factor;
  if (std::isfinite(grown)) scale_ = grown;  // as PyTorch: the scale never becomes inf
  clean_steps_ = 0;
}

Record GradScaler::to_record() const {
  Record r = Record::map();
  r.set("scale", scale_);
  r.set("growth_tracker", static_cast<int64_t>(clean_steps_));
  r.set("skipped", static_cast<int64_t>(skipped_));
  return r;
}

void GradScaler::load_record(const Record& record) {
  const char* op = "GradScaler::load_record";
  if (!record.is_map()) throw FormatError(op, "expected a map, found " + describe(record));
  double scale = record.get_float("scale");
  int64_t tracker = record.get_int("growth_tracker"), skipped = record.get_int("skipped");
  if (!(std::isfinite(scale) && scale > 0)) throw FormatError(op, "'scale' must be finite and > 0");
  if (tracker < 0 || skipped < 0) throw FormatError(op, "'growth_tracker' and 'skipped' must be ≥ 0");
  scale_ = scale, clean_steps_ = static_cast<size_t>(tracker), skipped_ = static_cast<size_t>(skipped);
}

}  // namespace scorch::optim

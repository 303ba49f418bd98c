#pragma once
// Dynamic loss scaling for f16 mixed precision (PyTorch's GradScaler): the loss is multiplied by a scale before
// backward so small f16 gradients do not flush to zero; before the optimizer step the gradients are divided by
// it and checked: a step with an inf/NaN gradient is skipped and the scale lowered (backoff_factor); after
// growth_interval clean steps in a row it is raised (growth_factor). bf16 has f32's range and needs none.
//   auto scaler = GradScalerConfig().init();
//   auto grads = GradientsParams::from_grads(scaler.scale(loss).backward(), model);
//   model = scaler.step(optim, lr, model, std::move(grads));   // skipped (model unchanged) on overflow
#include <cmath>

#include "scorch/module/config.h"
#include "scorch/optim/gradients_params.h"
#include "scorch/optim/optimizer.h"

namespace scorch::optim {

class GradScaler;

/// Loss-scaling settings (PyTorch's defaults); enabled = false makes every method a pass-through.
struct GradScalerConfig {
  double init_scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  size_t growth_interval = 2000;
  bool enabled = true;
  SCORCH_CONFIG(GradScalerConfig, (), (init_scale, growth_factor, backoff_factor, growth_interval, enabled))
  /// Throws ValueError for a scale that is not finite and > 0, growth ≤ 1, backoff outside (0, 1) or interval 0.
  GradScaler init() const;
};

/// The scale and its update rule; see the file comment.
class GradScaler {
 public:
  /// The scale the loss is multiplied by now (1 when disabled).
  double scale() const { return config_.enabled ? scale_ : 1.0; }
  /// loss × scale().
  template <class T> T scale(const T& loss) const { return config_.enabled ? loss * scale() : loss; }
  /// Divides every gradient (of backend B, the module's inner backend) by the scale in place; true when all of
  /// them are finite. One device-to-host read for all of them.
  template <class B> bool unscale(GradientsParams& grads) const;
  /// Unscales grads and steps optim at lr unless a gradient is inf/NaN (the module is then returned unchanged
  /// and skipped_steps() grows); then update(). Disabled: optim.step(lr, module, grads).
  template <Module M, class Optim> M step(Optim& optim, double lr, const M& module, GradientsParams grads);
  /// The scale after a step: × backoff_factor after an overflow, × growth_factor after growth_interval clean
  /// steps in a row.
  void update(bool found_inf);
  /// Steps skipped for an inf/NaN gradient so far.
  size_t skipped_steps() const { return skipped_; }
  bool enabled() const { return config_.enabled; }
  const GradScalerConfig& config() const { return config_; }
  /// {"scale", "growth_tracker", "skipped"}: what a checkpoint keeps.
  Record to_record() const;
  /// Restores to_record's state; throws FormatError naming a missing or invalid key.
  void load_record(const Record& record);

 private:
  friend struct GradScalerConfig;
  explicit GradScaler(GradScalerConfig config) : config_(config), scale_(config.init_scale) {}
  GradScalerConfig config_;
  double scale_;
  size_t clean_steps_ = 0;
  size_t skipped_ = 0;
};

template <class B> bool GradScaler::unscale(GradientsParams& grads) const {
  if (!config_.enabled) return true;
  using Ops = KindOps<B, Float>;
  using P = typename B::FloatTensor;
  std::optional<P> probe;  // Σ sum(g·0): 0 when every value is finite, NaN otherwise
  Scalar inverse(1.0 / scale_);
  grads.template map_primitives<B>([&](P g) {
    P unscaled = Ops::mul_scalar(std::move(g), inverse);
    P zeroed = Ops::sum(Ops::mul_scalar(unscaled, Scalar(0.0)));
    if (zeroed.dtype() != DType::F32) zeroed = Ops::cast(std::move(zeroed), DType::F32);
    probe = probe ? Ops::add(std::move(*probe), std::move(zeroed)) : std::move(zeroed);
    return unscaled;
  });
  if (!probe) return true;
  return std::isfinite(Ops::into_data(*probe).template to_vector<double>().at(0));
}

template <Module M, class Optim>
M GradScaler::step(Optim& optim, double lr, const M& module, GradientsParams grads) {
  if (!config_.enabled) return optim.step(lr, module, std::move(grads));
  using Inner = typename detail::InnerOf<BackendOf<M>>::type;
  bool finite = unscale<Inner>(grads);
  update(!finite);
  if (!finite) return module;
  return optim.step(lr, module, std::move(grads));
}

}  // namespace scorch::optim

#pragma once
// Post-training quantization of a module. quantize(model, options) quantizes the weights that layers offer
// (quant_targets(): Linear's and Conv's) and leaves the inputs dynamic (PyTorch's dynamic quantization);
// quantize(model, options, calibration, run) then runs calibration batches through the quantized model with an
// observer on every integer-kernel layer's input and fixes those inputs' scales and offsets (static quantization).
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "scorch/core/quant_scheme.h"
#include "scorch/module/module.h"
#include "scorch/quant/observer.h"

namespace scorch::quant {

/// What quantize() does to each weight it quantizes.
struct QuantizeOptions {
  /// Value type, mode, level and block size; the axis comes from each layer (its output channels; blocks run along
  /// its input features). Block and q4 weights are weight-only: their layers' inputs stay float. A weight the scheme
  /// does not fit (q4 needs an even last dim: not a 3×3 kernel) stays float.
  QuantScheme weights = QuantScheme::int8_per_channel(0);
  /// Quantize the weights of layers that only dequantize them (convolutions): less memory, float compute.
  bool dequantized_layers = true;
  /// Static inputs use [0, 127] instead of [0, 255] (PyTorch's reduce_range for fbgemm without VNNI).
  bool reduce_range = false;
};

/// Observers for static quantization; the batches are run by the caller's function.
struct Calibration {
  ObserverConfig observer;
};

namespace detail {

/// A parameter path: module path joined with a field name.
inline std::string join_path(const std::string& path, const std::string& field) {
  return path.empty() ? field : path + "." + field;
}

/// The quantizable parameters of a module, by path.
struct TargetCollector {
  std::map<std::string, QuantTarget> targets;
  template <class M> void module(const std::string& path, const M& m) {
    if constexpr (requires { m.quant_targets(); })
      for (const QuantTarget& t : m.quant_targets()) targets[join_path(path, t.field)] = t;
  }
  template <class P> void visit(const std::string&, const P&) {}
};

/// The scheme of one target: options' weights with the target's axis.
inline QuantScheme scheme_for(const QuantTarget& t, const QuantScheme& weights) {
  QuantScheme s = weights;
  s.axis = s.level == QuantLevel::Block ? (t.channel_axis == 0 ? 1 : 0) : t.channel_axis;
  return s;
}

/// Replaces each target's float parameter with its quantized values.
struct WeightQuantizer {
  const std::map<std::string, QuantTarget>& targets;
  const QuantizeOptions& options;
  template <class P> P map(const std::string& path, const P& p) {
    if constexpr (std::is_void_v<typename P::Quantized>) {
      return p;
    } else {
      auto it = targets.find(path);
      if (it == targets.end() || p.is_quantized() || !p.id().valid()) return p;
      if (!it->second.integer_kernel && !options.dequantized_layers) return p;
      using Q = typename P::Quantized;
      QuantScheme s = scheme_for(it->second, options.weights);
      bool fits = quant::scheme_fits(p.shape(), s) && p.shape().num_elements() > 0;
      if (!fits) return p;  // q4 of an odd last dim (a 3×3 kernel), or nothing to quantize: left float
      auto q = Q::quantize(p.val(), s);
      if (s.level == QuantLevel::Block || s.value == QuantValue::Q4) q.input = InputQuant::float_input();
      return p.with_quantized(std::move(q));
    }
  }
};

/// Observes each integer-kernel layer's input during calibration, keyed by its weight's id.
class InputObservers : public QuantInputObserver {
 public:
  explicit InputObservers(ObserverConfig config) : config_(config) {}
  void observe(uint64_t param_id, const TensorData& input) override {
    observers_.try_emplace(param_id, config_).first->second.observe(input);
  }
  const RangeObserver* find(uint64_t param_id) const {
    auto it = observers_.find(param_id);
    return it == observers_.end() ? nullptr : &it->second;
  }

 private:
  ObserverConfig config_;
  std::map<uint64_t, RangeObserver> observers_;
};

/// Installs an observer on this thread for its lifetime.
class ObserverScope {
 public:
  explicit ObserverScope(QuantInputObserver* o) : previous_(set_quant_input_observer(o)) {}
  ~ObserverScope() { set_quant_input_observer(previous_); }
  ObserverScope(const ObserverScope&) = delete;
  ObserverScope& operator=(const ObserverScope&) = delete;

 private:
  QuantInputObserver* previous_;
};

/// Gives each observed quantized parameter static input parameters.
struct InputFixer {
  const InputObservers& observers;
  bool reduce_range;
  size_t fixed = 0;
  template <class P> P map(const std::string&, const P& p) {
    if constexpr (std::is_void_v<typename P::Quantized>) {
      return p;
    } else {
      const RangeObserver* o = p.is_quantized() ? observers.find(p.id().value()) : nullptr;
      if (!o || o->batches() == 0 || p.quantized().input.weight_only) return p;
      auto q = p.quantized();
      auto [lo, hi] = o->range();
      QuantParams params = choose_quant_params(lo, hi, quant_range(QuantValue::UInt8, reduce_range));
      q.input = InputQuant{false, reduce_range, QuantValue::UInt8, params.scale, params.offset};
      ++fixed;
      return p.with_quantized(std::move(q));
    }
  }
};

/// Sums the bytes parameters take as stored.
struct ByteCounter {
  size_t bytes = 0, quantized = 0;
  template <class P> void visit(const std::string&, const P& p) {
    if constexpr (!std::is_void_v<typename P::Quantized>)
      if (p.is_quantized()) {
        bytes += p.quantized().bytes();
        ++quantized;
        return;
      }
    if (p.id().valid()) bytes += p.shape().num_elements() * dtype_size(p.val().dtype());
  }
};

}  // namespace detail

/// The model with the weights its layers offer quantized as options say; inputs quantized per batch (dynamic).
/// Ids are kept; quantized parameters have require_grad off.
template <Module M> M quantize(const M& model, const QuantizeOptions& options = {}) {
  detail::TargetCollector collector;
  visit_module(model, collector);
  detail::WeightQuantizer quantizer{collector.targets, options};
  return map_module(model, quantizer);
}

/// quantize(model, options), then static inputs: run(quantized) runs the calibration batches (forward passes) while
/// calibration's observers watch each integer-kernel layer's input; layers that saw no batch stay dynamic.
template <Module M, class Run>
M quantize(const M& model, const QuantizeOptions& options, const Calibration& calibration, Run&& run) {
  M quantized = quantize(model, options);
  detail::InputObservers observers(calibration.observer);
  {
    detail::ObserverScope scope(&observers);
    run(static_cast<const M&>(quantized));
  }
  detail::InputFixer fixer{observers, options.reduce_range};
  return map_module(quantized, fixer);
}

/// quantize(model, options, calibration, run) over a data loader: forward(model, batch) for the first max_batches
/// batches of loader->iter() (all of them when max_batches is 0).
template <Module M, class Loader, class Forward>
M quantize_with_loader(const M& model, const QuantizeOptions& options, const Calibration& calibration,
                       const Loader& loader, Forward&& forward, size_t max_batches = 0) {
  return quantize(model, options, calibration, [&](const M& m) {
    size_t seen = 0;
    for (const auto& batch : loader->iter()) {
      if (max_batches && seen++ == max_batches) break;
      forward(m, batch);
    }
  });
}

/// Bytes the module's parameters take as stored (quantized ones: values, scales and offsets) and how many of them
/// are quantized.
template <Module M> std::pair<size_t, size_t> param_bytes(const M& model) {
  detail::ByteCounter counter;
  visit_module(model, counter);
  return {counter.bytes, counter.quantized};
}

}  // namespace scorch::quant

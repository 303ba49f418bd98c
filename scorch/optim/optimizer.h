#pragma once
// The optimizer machinery. A rule (Sgd, Adam, ...) updates one parameter from its gradient and
// its ParamState; OptimizerAdaptor<Rule> walks a module, pairs each trainable parameter with its
// gradient by ParamId, clips, steps, and keeps the states. The states save as a Record keyed by
// parameter id and load lazily onto each parameter's device at its next step.
#include <any>
#include <map>

#include "scorch/backend/graph_capture.h"
#include "scorch/module/module.h"
#include "scorch/optim/clipping.h"
#include "scorch/optim/gradients_params.h"

namespace scorch::optim {

/// One parameter's optimizer state: named tensors (moments, velocities) and the step count.
template <class B> struct ParamState {
  std::map<std::string, typename B::FloatTensor> tensors;
  int64_t step = 0;
  template <size_t D> std::optional<Tensor<B, D>> get(const std::string& name) const {
    auto it = tensors.find(name);
    if (it == tensors.end()) return std::nullopt;
    return Tensor<B, D>::from_primitive(it->second);
  }
  template <size_t D> void set(const std::string& name, const Tensor<B, D>& t) { tensors[name] = t.primitive(); }
};

namespace detail {
/// The non-autodiff backend under B (B itself when it has no autodiff).
template <class B> struct InnerOf { using type = B; };
template <AutodiffBackend B> struct InnerOf<B> { using type = typename B::InnerBackend; };
/// A state as a record {"step": n, name: tensor...}.
template <class B> Record state_record(const ParamState<B>& s) {
  Record r = Record::map();
  r.set("step", s.step);
  for (const auto& [name, t] : s.tensors) r.set(name, Record(B::float_into_data(t)));
  if (auto count = s.tensors.find("step_count"); count != s.tensors.end())  // counted on the device (replayed steps)
    r.set("step", static_cast<int64_t>(B::float_into_data(count->second).template to_vector<double>().at(0)));
  return r;
}
/// A state read back from state_record's form onto device; throws FormatError naming the key.
template <class B>
ParamState<B> state_from_record(const Record& r, const typename B::Device& device, const std::string& key) {
  if (!r.is_map()) throw FormatError("Optimizer::load_record", "'" + key + "': expected a map, found " + describe(r));
  ParamState<B> s;
  for (const auto& [name, value] : r.as_map()) {
    if (name == "step") s.step = value.as_int();
    else if (value.is_tensor())  // a device step count keeps its f64
      s.tensors[name] = B::float_from_data(
          value.as_tensor().data.convert(name == "step_count" ? DType::F64 : Float::default_dtype), device);
    else
      throw FormatError("Optimizer::load_record",
                        "'" + key + "." + name + "': expected a tensor, found " + describe(value));
  }
  return s;
}
}  // namespace detail

/// A per-parameter rule run over whole modules.
template <class Rule> class OptimizerAdaptor {
 public:
  explicit OptimizerAdaptor(Rule rule, std::optional<GradientClippingConfig> clipping = std::nullopt)
      : rule_(std::move(rule)), clipping_(std::move(clipping)) {}

  /// The module after one step at learning rate lr; parameters without a gradient (or with
  /// require_grad off) are unchanged. The model is a value: the input is left as it was.
  template <Module M> M step(double lr, const M& module, GradientsParams grads) {
    Stepper s{*this, lr, grads};
    return module.map(s);
  }
  /// Every parameter's state, keyed by parameter id (hex).
  Record to_record() const;
  /// Replaces the states by a record from to_record (applied lazily at each parameter's next step).
  void load_record(const Record& record);
  /// Writes the state with a recorder (e.g. DefaultFileRecorder); returns the file written.
  template <class Recorder> std::string save(const std::string& path, const Recorder& recorder) const {
    return recorder.record(to_record(), path);
  }
  /// Reads a state written by save.
  template <class Recorder> void load(const std::string& path, const Recorder& recorder) {
    load_record(recorder.load(path));
  }
  /// Parameters with a state.
  size_t num_states() const { return states_.size() + pending_.size(); }
  /// Calls fn(id, name, primitive) for each state tensor kept on backend B, by parameter id then name.
  template <class B, class F> void visit_states(F&& fn) const {
    for (const auto& [id, slot] : states_)
      if (const auto* state = std::any_cast<ParamState<B>>(&slot.state))
        for (const auto& [name, t] : state->tensors) fn(id, name, t);
  }
  const Rule& rule() const { return rule_; }

 private:
  struct Stepper {
    OptimizerAdaptor& self;
    double lr;
    GradientsParams& grads;
    template <class P> P map(const std::string&, const P& p) {
      using T = typename P::Value;
      if constexpr (!std::same_as<typename T::Kind, Float>) {
        return p;
      } else {
        using B = typename T::Backend;
        using Inner = typename detail::InnerOf<B>::type;
        constexpr size_t D = T::rank();
        if (!p.is_require_grad()) return p;
        auto g = grads.template remove<Inner, D>(p.id());
        if (!g) return p;
        Tensor<Inner, D> value;
        if constexpr (AutodiffBackend<B>) value = p.val().inner();
        else value = p.val();
        auto updated = self.template step_tensor<Inner, D>(lr, p.id(), value, std::move(*g));
        if constexpr (AutodiffBackend<B>) return p.with_value(T::from_inner(updated));
        else return p.with_value(updated);
      }
    }
  };
  /// One parameter's step: clipping, its state, the rule. Compiled once per backend and rank in
  /// the library for the shipped rules (stacks/cpu/optim.cpp), so model code does not repeat it.
  template <class B, size_t D>
  Tensor<B, D> step_tensor(double lr, ParamId id, const Tensor<B, D>& value, Tensor<B, D> grad);
  template <class B> ParamState<B>& state_for(ParamId id, const typename B::Device& device) {
    auto it = states_.find(id);
    if (it == states_.end()) {
      auto pending = pending_.find(id);
      ParamState<B> fresh = pending == pending_.end()
                                ? ParamState<B>{}
                                : detail::state_from_record<B>(pending->second, device, id.to_string());
      if (pending != pending_.end()) pending_.erase(pending);
      it = states_.emplace(id, Slot{std::move(fresh), &detail::state_record<B>}).first;
    }
    auto* s = std::any_cast<ParamState<B>>(&it->second.state);
    if (!s)
      throw DTypeError("Optimizer::step",
                       "parameter " + id.to_string() + " has state on another backend than " + B::name());
    return *s;
  }
  struct Slot {
    std::any state;
    std::function<Record(const std::any&)> to_record;
    template <class B> Slot(ParamState<B> s, Record (*f)(const ParamState<B>&))
        : state(std::move(s)),
          to_record([f](const std::any& a) { return f(std::any_cast<const ParamState<B>&>(a)); }) {}
  };
  Rule rule_;
  std::optional<GradientClippingConfig> clipping_;
  std::map<ParamId, Slot> states_;
  std::map<ParamId, Record> pending_;
};

namespace detail {
/// False for a rule that computes host values from its step count (they would be frozen into a replayed step).
template <class Rule> bool capturable(const Rule& rule) {
  if constexpr (requires { rule.capturable; }) return rule.capturable;
  else return true;
}
}  // namespace detail

template <class Rule> template <class B, size_t D>
Tensor<B, D> OptimizerAdaptor<Rule>::step_tensor(double lr, ParamId id, const Tensor<B, D>& value, Tensor<B, D> grad) {
  if (step_capture_active() && !detail::capturable(rule_))
    throw ValueError("Optimizer::step",
                     "this rule computes its step's constants on the host, so a captured step "
                     "would replay them frozen; use a rule with capturable = true (Adam, AdamW)");
  if (clipping_) grad = clipping_->clip(grad);
  auto& state = state_for<B>(id, value.device());
  auto updated = rule_.step(lr, value, grad, state);
  ++state.step;
  return updated;
}

template <class Rule> Record OptimizerAdaptor<Rule>::to_record() const {
  Record out = Record::map();
  for (const auto& [id, slot] : states_) out.set(id.to_string(), slot.to_record(slot.state));
  for (const auto& [id, r] : pending_) out.set(id.to_string(), r);
  return out;
}

template <class Rule> void OptimizerAdaptor<Rule>::load_record(const Record& record) {
  if (!record.is_map())
    throw FormatError("Optimizer::load_record", "expected a map of parameter states, found " + describe(record));
  std::map<ParamId, Record> pending;
  for (const auto& [key, value] : record.as_map()) pending.emplace(ParamId::parse(key), value);
  states_.clear();
  pending_ = std::move(pending);
}

}  // namespace scorch::optim

#pragma once
// The optimizer machinery. A rule (Sgd, Adam, ...) updates one parameter from its gradient and
// its ParamState; OptimizerAdaptor<Rule> walks a module, pairs each trainable parameter with its
// gradient by ParamId, clips, steps, and keeps the states. The states save as a Record keyed by
// parameter id and load lazily onto each parameter's device at its next step.
#include <any>
#include <functional>
#include <map>
#include <memory>
#include <typeindex>

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
/// False for a rule that computes host values from its step count (they would be frozen into a replayed step).
template <class Rule> bool capturable(const Rule& rule) {
  if constexpr (requires { rule.capturable; }) return rule.capturable;
  else return true;
}
/// Parameters of backend B stepped in one call: ids, values, gradients and states, in visiting order.
template <class B> struct StepBatch {
  std::vector<ParamId> ids;
  std::vector<typename B::FloatTensor> params, grads;
  std::vector<ParamState<B>*> states;
};
/// Throws ShapeError unless each state tensor (but a device step count) has the parameter's shape: a batched step
/// checks every parameter before it steps any (and commits no group's states until every group has stepped), so a
/// failed step changes nothing.
template <class B, size_t D> void check_state_shapes(const Tensor<B, D>& param, const ParamState<B>& state) {
  for (const auto& [name, tensor] : state.tensors)
    if (name != "step_count" && !(tensor.shape() == param.shape()))
      throw ShapeError("Optimizer::step", "state '" + name + "' " + tensor.shape().to_string() + " for a parameter " +
                                              param.shape().to_string());
}
/// The state tensor `name`, or zeros like `like` when the state has none.
template <class B> typename B::FloatTensor state_or_zeros(const ParamState<B>& state, const std::string& name,
                                                          const typename B::FloatTensor& like) {
  auto it = state.tensors.find(name);
  if (it != state.tensors.end()) return it->second;
  return KindOps<B, Float>::zeros(like.shape(), like.device(), like.dtype());
}
/// A batched rule's result for a group: each parameter's new value and the state tensors it sets.
template <class B> struct BatchStep {
  std::vector<typename B::FloatTensor> params;
  std::vector<std::vector<std::pair<std::string, typename B::FloatTensor>>> states;
};
/// Throws ShapeError unless a gradient has its parameter's shape (a batched step reads them as flat arrays).
template <class B, size_t D> void check_step_operands(const Tensor<B, D>& param, const Tensor<B, D>& grad) {
  if (!(param.shape() == grad.shape()))
    throw ShapeError("Optimizer::step",
                     "gradient " + grad.shape().to_string() + " for a parameter " + param.shape().to_string());
}
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

/// A rule that can step many parameters in one backend call (it says kBatched): batches() says whether its
/// settings allow it, `group_key<B>(state)` which parameters step together (the same bias corrections, say), and
/// `step_many<B>(lr, params, grads, states)` steps a group, returning a BatchStep (it changes no state: the adaptor
/// commits every group's results once all have succeeded).
template <class R>
concept BatchedRule = R::kBatched && requires(const R& r) {
  { r.batches() } -> std::convertible_to<bool>;
};

/// A per-parameter rule run over whole modules.
template <class Rule> class OptimizerAdaptor {
 public:
  explicit OptimizerAdaptor(Rule rule, std::optional<GradientClippingConfig> clipping = std::nullopt)
      : rule_(std::move(rule)), clipping_(std::move(clipping)) {}
  // Declared here and defaulted below, so that the library's explicit instantiations (stacks/cpu/optim.h) cover them.
  OptimizerAdaptor(const OptimizerAdaptor& other);
  OptimizerAdaptor(OptimizerAdaptor&& other) noexcept;
  OptimizerAdaptor& operator=(const OptimizerAdaptor& other);
  OptimizerAdaptor& operator=(OptimizerAdaptor&& other) noexcept;
  ~OptimizerAdaptor();

  /// The module after one step at learning rate lr; parameters without a gradient (or with
  /// require_grad off) are unchanged. The model is a value: the input is left as it was. A rule that steps many
  /// parameters at once (BatchedRule: Adam, AdamW, Sgd) does so, one backend call per group of parameters.
  template <Module M> M step(double lr, const M& module, GradientsParams grads) {
    if constexpr (BatchedRule<Rule>) {
      if (rule_.batches()) return step_batched(lr, module, grads);
    }
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
  /// A float parameter's value on the backend under autodiff (its own backend without autodiff).
  template <class P> static auto inner_value(const P& p) {
    if constexpr (AutodiffBackend<typename P::Value::Backend>) return p.val().inner();
    else return p.val();
  }
  /// p holding value, a tensor of the backend inner_value gives.
  template <class P, class V> static P with_inner(const P& p, const V& value) {
    using T = typename P::Value;
    if constexpr (AutodiffBackend<typename T::Backend>) return p.with_value(T::from_inner(value));
    else return p.with_value(value);
  }
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
        Tensor<Inner, D> value = inner_value(p);
        return with_inner(p, self.template step_tensor<Inner, D>(lr, p.id(), value, std::move(*g)));
      }
    }
  };
  /// Collects the parameters to step (clipped gradients, states) into batches of one backend and one rule group.
  struct BatchCollector {
    OptimizerAdaptor& self;
    double lr;
    GradientsParams& grads;
    std::map<std::pair<std::type_index, int64_t>, std::shared_ptr<void>> batches;
    std::vector<std::function<std::function<void()>()>> runs;  ///< per batch: steps it, returns its commit
    std::map<ParamId, std::any> updated;                       ///< the new values, as the inner backend's primitives
    ~BatchCollector();
    template <class P> void visit(const std::string&, const P& p) {
      using T = typename P::Value;
      if constexpr (std::same_as<typename T::Kind, Float>) {
        using Inner = typename detail::InnerOf<typename T::Backend>::type;
        if (p.is_require_grad()) self.template collect_tensor<Inner, T::rank()>(*this, p.id(), inner_value(p));
      }
    }
    template <class B> detail::StepBatch<B>& batch_for(int64_t key) {
      auto [it, fresh] = batches.try_emplace({std::type_index(typeid(B)), key});
      if (fresh) {
        auto batch = std::make_shared<detail::StepBatch<B>>();
        it->second = batch;
        runs.push_back([this, batch]() -> std::function<void()> {
          auto result = std::make_shared<detail::BatchStep<B>>(
              self.rule_.template step_many<B>(lr, std::move(batch->params), std::move(batch->grads), batch->states));
          return [this, batch, result] {
            for (size_t i = 0; i < batch->ids.size(); ++i) {
              for (auto& [name, tensor] : result->states[i]) batch->states[i]->tensors[name] = std::move(tensor);
              ++batch->states[i]->step;
              updated[batch->ids[i]] = std::move(result->params[i]);
            }
          };
        });
      }
      return *static_cast<detail::StepBatch<B>*>(it->second.get());
    }
  };
  /// Writes BatchCollector's new values into the parameters.
  struct BatchApplier {
    std::map<ParamId, std::any>& updated;
    template <class P> P map(const std::string&, const P& p) {
      using T = typename P::Value;
      if constexpr (!std::same_as<typename T::Kind, Float>) {
        return p;
      } else {
        using B = typename T::Backend;
        using Inner = typename detail::InnerOf<B>::type;
        auto it = updated.find(p.id());
        if (it == updated.end()) return p;
        return with_inner(p, Tensor<Inner, T::rank()>(std::any_cast<typename Inner::FloatTensor>(it->second)));
      }
    }
  };
  /// Throws ValueError while a step is captured if the rule computes its constants on the host.
  void check_capturable() const {
    if (step_capture_active() && !detail::capturable(rule_))
      throw ValueError("Optimizer::step",
                       "this rule computes its step's constants on the host, so a captured step "
                       "would replay them frozen; use a rule with capturable = true (Adam, AdamW)");
  }
  template <Module M> M step_batched(double lr, const M& module, GradientsParams& grads) {
    check_capturable();
    BatchCollector collector{*this, lr, grads, {}, {}, {}};
    module.visit(collector);
    run_batches(collector);
    BatchApplier applier{collector.updated};
    return module.map(applier);
  }
  /// Steps every group collector holds, then commits their states and new values (a failed group changes nothing).
  void run_batches(BatchCollector& collector);
  /// Adds one parameter with a gradient to collector's batch for its rule group (clipped gradient, checked shapes,
  /// its state). Compiled once per backend and rank in the library for the batched shipped rules.
  template <class B, size_t D> void collect_tensor(BatchCollector& collector, ParamId id, const Tensor<B, D>& value);
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

template <class Rule> template <class B, size_t D>
Tensor<B, D> OptimizerAdaptor<Rule>::step_tensor(double lr, ParamId id, const Tensor<B, D>& value, Tensor<B, D> grad) {
  check_capturable();
  if (clipping_) grad = clipping_->clip(grad);
  auto& state = state_for<B>(id, value.device());
  auto updated = rule_.step(lr, value, grad, state);
  ++state.step;
  return updated;
}

template <class Rule> template <class B, size_t D>
void OptimizerAdaptor<Rule>::collect_tensor(BatchCollector& collector, ParamId id, const Tensor<B, D>& value) {
  auto grad = collector.grads.template remove<B, D>(id);
  if (!grad) return;
  if (clipping_) *grad = clipping_->clip(*grad);
  detail::check_step_operands(value, *grad);
  auto& state = state_for<B>(id, value.device());
  detail::check_state_shapes(value, state);
  auto& batch = collector.template batch_for<B>(rule_.group_key(state));
  batch.ids.push_back(id);
  batch.params.push_back(value.primitive());
  batch.grads.push_back(grad->primitive());
  batch.states.push_back(&state);
}

template <class Rule> OptimizerAdaptor<Rule>::OptimizerAdaptor(const OptimizerAdaptor& other) = default;
template <class Rule> OptimizerAdaptor<Rule>::OptimizerAdaptor(OptimizerAdaptor&& other) noexcept = default;
template <class Rule>
OptimizerAdaptor<Rule>& OptimizerAdaptor<Rule>::operator=(const OptimizerAdaptor& other) = default;
template <class Rule>
OptimizerAdaptor<Rule>& OptimizerAdaptor<Rule>::operator=(OptimizerAdaptor&& other) noexcept = default;
template <class Rule> OptimizerAdaptor<Rule>::~OptimizerAdaptor() = default;
template <class Rule> OptimizerAdaptor<Rule>::BatchCollector::~BatchCollector() = default;

template <class Rule> void OptimizerAdaptor<Rule>::run_batches(BatchCollector& collector) {
  std::vector<std::function<void()>> commits;  // every group steps before any state changes
  for (auto& run : collector.runs) commits.push_back(run());
  for (auto& commit : commits) commit();
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

#pragma once
// RunningState<T>: a tensor a module updates during forward (BatchNorm's running statistics).
// Copies of a module share it (as Burn's RunningState does), updates are thread-safe, records
// save it under its field name, and transforms (to_device, valid) give the copy its own state.
#include <memory>
#include <mutex>

#include "scorch/module/module_fields.h"

namespace scorch {

/// A shared, lock-protected tensor updated through const modules.
template <class T> class RunningState {
 public:
  RunningState() = default;
  explicit RunningState(T value) : slot_(std::make_shared<Slot>(std::move(value))) {}
  /// The current value (a cheap handle copy).
  T value() const {
    std::lock_guard lock(slot_->mutex);
    return slot_->value;
  }
  /// Replaces the value for every copy of the module.
  void update(T value) const {
    std::lock_guard lock(slot_->mutex);
    slot_->value = std::move(value);
  }

 private:
  struct Slot {
    explicit Slot(T v) : value(std::move(v)) {}
    std::mutex mutex;
    T value;
  };
  std::shared_ptr<Slot> slot_;
};

template <class T, class To> struct RebindBackend<RunningState<T>, To> {
  using type = RunningState<typename RebindBackend<T, To>::type>;
};

/// Running state: seen by device queries, moved as a constant, saved and loaded like a parameter (no id).
template <class B, size_t D, class K> struct FieldOps<RunningState<Tensor<B, D, K>>> {
  using T = RunningState<Tensor<B, D, K>>;
  template <class V> static void visit(const T& s, V& v, detail::FieldPath& path) {
    if constexpr (requires { v.constant(path.str(), s.value()); }) v.constant(path.str(), s.value());
  }
  template <class To, class F> static RunningState<Tensor<To, D, K>> transform(const T& s, F& f, detail::FieldPath&) {
    return RunningState<Tensor<To, D, K>>(f.constant(s.value()));
  }
  static Record record(const T& s) { return Record(s.value().to_data()); }
  static T load(const T& s, const Record* r, detail::LoadContext& ctx) {
    auto loaded = FieldOps<Param<Tensor<B, D, K>>>::load(Param<Tensor<B, D, K>>(ParamId(1), s.value(), false), r, ctx);
    return T(loaded.val());
  }
};

}  // namespace scorch

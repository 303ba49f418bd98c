#pragma once
// Gradients<B>: what backward() returns, a map from node id to the gradient (an inner
// primitive) of every tensor that keeps its gradient. It owns plain primitives, so it can be
// moved to another thread.
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>

#include "scorch/gen/kind_ops.h"
#include "scorch/autodiff/node.h"

namespace scorch::autodiff {

/// Gradients of a backward pass, keyed by node id; registering twice adds.
template <class B> class Gradients final : public GradSink<typename B::FloatTensor> {
 public:
  using Primitive = typename B::FloatTensor;

  // Declared here and defaulted below, so that a stack's explicit instantiation (SCORCH_AUTODIFF_EXTERN) covers them.
  Gradients();
  Gradients(const Gradients& other);
  Gradients(Gradients&& other) noexcept;
  Gradients& operator=(const Gradients& other);
  Gradients& operator=(Gradients&& other) noexcept;
  ~Gradients() override;

  /// The gradient of node id, if it has one.
  std::optional<Primitive> get(uint64_t id) const {
    auto it = grads_.find(id);
    if (it == grads_.end()) return std::nullopt;
    return it->second;
  }
  /// Takes the gradient of node id out of the container.
  std::optional<Primitive> remove(uint64_t id) {
    auto it = grads_.find(id);
    if (it == grads_.end()) return std::nullopt;
    Primitive g = std::move(it->second);
    grads_.erase(it);
    return g;
  }
  /// Sets the gradient of node id, replacing any earlier one.
  void replace(uint64_t id, Primitive grad) { grads_.insert_or_assign(id, std::move(grad)); }
  /// Adds grad to node id's gradient (stores it if there is none yet).
  void accumulate(uint64_t id, Primitive grad) override {
    auto it = grads_.find(id);
    if (it == grads_.end()) grads_.emplace(id, std::move(grad));
    else it->second = KindOps<B, Float>::add(std::move(it->second), std::move(grad));
  }
  /// Number of gradients held.
  size_t size() const { return grads_.size(); }
  bool empty() const { return grads_.empty(); }

 private:
  std::unordered_map<uint64_t, Primitive> grads_;
};

template <class B> Gradients<B>::Gradients() = default;
template <class B> Gradients<B>::Gradients(const Gradients& other) = default;
template <class B> Gradients<B>::Gradients(Gradients&& other) noexcept = default;
template <class B> Gradients<B>& Gradients<B>::operator=(const Gradients& other) = default;
template <class B> Gradients<B>& Gradients<B>::operator=(Gradients&& other) noexcept = default;
template <class B> Gradients<B>::~Gradients() = default;

}  // namespace scorch::autodiff

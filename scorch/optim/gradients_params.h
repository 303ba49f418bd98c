#pragma once
// GradientsParams: each parameter's gradient keyed by ParamId, on the module's inner backend,
// detached from the graph that produced it; and GradientsAccumulator, which sums them over
// several backward passes (gradient accumulation).
#include <any>
#include <map>
#include <optional>

#include "scorch/module/module.h"

namespace scorch::optim {

/// Gradients by parameter id (type-erased primitives of one backend).
class GradientsParams {
 public:
  GradientsParams() = default;
  /// Takes every parameter gradient of module out of grads (the rest of grads is dropped).
  template <Module M> static GradientsParams from_grads(typename BackendOf<M>::Gradients grads, const M& module) {
    GradientsParams out;
    Collector<BackendOf<M>> c{grads, out};
    module.visit(c);
    return out;
  }
  /// The same, leaving the other gradients in grads.
  template <Module M> static GradientsParams from_module(typename BackendOf<M>::Gradients& grads, const M& module) {
    GradientsParams out;
    Collector<BackendOf<M>> c{grads, out};
    module.visit(c);
    return out;
  }
  /// The gradient of id as a rank-D tensor of backend B, if present; throws DTypeError on a backend mismatch.
  template <class B, size_t D> std::optional<Tensor<B, D>> get(ParamId id) const {
    auto it = grads_.find(id);
    if (it == grads_.end()) return std::nullopt;
    return Tensor<B, D>::from_primitive(cast<B>(it->second, id));
  }
  /// Takes the gradient of id out.
  template <class B, size_t D> std::optional<Tensor<B, D>> remove(ParamId id) {
    auto g = get<B, D>(id);
    grads_.erase(id);
    return g;
  }
  /// Sets the gradient of id.
  template <class B, size_t D> void register_grad(ParamId id, const Tensor<B, D>& grad) {
    grads_[id] = grad.primitive();
  }
  /// Replaces each gradient g (a primitive of backend B) by f(g), in id order; throws DTypeError on a backend
  /// mismatch.
  template <class B, class F> void map_primitives(F&& f) {
    for (auto& [id, g] : grads_) g = f(cast<B>(g, id));
  }
  size_t len() const { return grads_.size(); }
  bool is_empty() const { return grads_.empty(); }
  /// Ids held, in order.
  std::vector<ParamId> ids() const;

 private:
  template <class AD> struct Collector {
    typename AD::Gradients& grads;
    GradientsParams& out;
    template <class P> void visit(const std::string&, const P& p) {
      if constexpr (std::same_as<typename P::Value::Kind, Float>) {
        if (!p.is_require_grad() || !p.id().valid()) return;
        if (auto g = p.val().grad_remove(grads)) out.grads_[p.id()] = g->primitive();
      }
    }
  };
  template <class B> static typename B::FloatTensor cast(const std::any& a, ParamId id) {
    if (const auto* p = std::any_cast<typename B::FloatTensor>(&a)) return *p;
    throw DTypeError("GradientsParams::get",
                     "the gradient of parameter " + id.to_string() + " belongs to another backend than " + B::name());
  }
  std::map<ParamId, std::any> grads_;
};

/// Sums GradientsParams over several passes before one optimizer step.
template <Module M> class GradientsAccumulator {
 public:
  /// Adds grads (for module's parameters) to the running sum.
  void accumulate(const M& module, GradientsParams grads);
  /// The sum so far; the accumulator starts again from zero.
  GradientsParams grads() { return std::exchange(sum_, GradientsParams()); }

 private:
  GradientsParams sum_;
};

namespace detail {
/// sum[id] += grad (sum[id] = grad when absent); compiled once for Cpu in stacks/cpu/optim.cpp.
template <class B, size_t D> void accumulate_tensor(GradientsParams& sum, ParamId id, Tensor<B, D> grad) {
  auto prev = sum.template get<B, D>(id);
  sum.register_grad(id, prev ? *prev + grad : grad);
}

template <class B> struct AccumulateVisitor {
  GradientsParams& sum;
  GradientsParams& add;
  template <class P> void visit(const std::string&, const P& p) {
    constexpr size_t D = P::Value::rank();
    if constexpr (std::same_as<typename P::Value::Kind, Float>) {
      auto g = add.template get<B, D>(p.id());
      if (g) accumulate_tensor<B, D>(sum, p.id(), std::move(*g));
    }
  }
};
}  // namespace detail

template <Module M> void GradientsAccumulator<M>::accumulate(const M& module, GradientsParams grads) {
  using Inner = typename BackendOf<M>::InnerBackend;
  detail::AccumulateVisitor<Inner> v{sum_, grads};
  module.visit(v);
}

}  // namespace scorch::optim

#pragma once
// L-BFGS (PyTorch's algorithm, with an optional strong-Wolfe line search). Unlike the
// per-parameter rules it sees all parameters as one flat vector and re-evaluates the loss
// through a closure, so it stands apart: step(model, closure) returns the updated model.
#include <functional>
#include <optional>
#include <vector>

#include "scorch/module/module.h"
#include "scorch/module/config.h"
#include "scorch/optim/gradients_params.h"

namespace scorch::optim {

SCORCH_ENUM(LineSearch, None, StrongWolfe)

class Lbfgs;

/// L-BFGS settings (PyTorch's defaults; max_eval defaults to 1.25·max_iter).
struct LbfgsConfig {
  double lr = 1.0;
  size_t max_iter = 20;
  std::optional<size_t> max_eval;
  double tolerance_grad = 1e-7, tolerance_change = 1e-9;
  size_t history_size = 100;
  LineSearch line_search_fn = LineSearch::None;
  SCORCH_CONFIG(LbfgsConfig, (),
                (lr, max_iter, max_eval, tolerance_grad, tolerance_change, history_size, line_search_fn))
  Lbfgs init() const;
};

/// A loss and its gradient at a point.
struct LossAndGrad {
  double loss;
  std::vector<double> grad;
};

/// The algorithm on flat vectors; the state persists across step calls.
class Lbfgs {
 public:
  explicit Lbfgs(LbfgsConfig config) : config_(std::move(config)) {}
  /// One optimizer step (up to max_iter iterations) from x, evaluating f through closure; returns the first loss.
  double step_flat(std::vector<double>& x, const std::function<LossAndGrad(const std::vector<double>&)>& closure);

  /// One step on a module: closure(model) returns the loss tensor (on an autodiff backend);
  /// returns the updated model. Parameters with require_grad off stay fixed.
  template <Module M, class Closure> M step(const M& model, Closure&& closure);
  /// The history as a record (directions, steps, scalars).
  Record to_record() const;
  void load_record(const Record& record);

 private:
  LbfgsConfig config_;
  std::vector<double> d_, prev_flat_grad_;
  std::vector<std::vector<double>> old_dirs_, old_stps_;
  std::vector<double> ro_;
  double t_ = 0, h_diag_ = 1, prev_loss_ = 0;
  int64_t n_iter_ = 0, func_evals_ = 0;
};

inline Lbfgs LbfgsConfig::init() const { return Lbfgs(*this); }

namespace detail {
/// Reads trainable float parameters into a flat vector.
struct FlattenParams {
  std::vector<double> values;
  template <class P> void visit(const std::string&, const P& p) {
    if constexpr (std::same_as<typename P::Value::Kind, Float>) {
      if (!p.is_require_grad()) return;
      auto v = p.val().to_data().convert(DType::F64).template to_vector<double>();
      values.insert(values.end(), v.begin(), v.end());
    }
  }
};
/// Writes a flat vector back into the trainable float parameters (same order as FlattenParams).
struct UnflattenParams {
  const std::vector<double>& values;
  size_t offset = 0;
  template <class P> P map(const std::string&, const P& p) {
    using T = typename P::Value;
    if constexpr (!std::same_as<typename T::Kind, Float>) {
      return p;
    } else {
      if (!p.is_require_grad()) return p;
      size_t n = p.val().shape().num_elements();
      std::vector<double> chunk(values.begin() + static_cast<std::ptrdiff_t>(offset),
                                values.begin() + static_cast<std::ptrdiff_t>(offset + n));
      offset += n;
      return p.with_value(T::from_data(TensorData(chunk, p.val().shape()).convert(p.val().dtype()), p.val().device()));
    }
  }
};
/// Gradients of the trainable parameters in flat order (zeros where a parameter has none).
template <class AD> struct FlattenGrads {
  const typename AD::Gradients& grads;
  std::vector<double> values;
  template <class P> void visit(const std::string&, const P& p) {
    if constexpr (std::same_as<typename P::Value::Kind, Float>) {
      if (!p.is_require_grad()) return;
      auto g = p.val().grad(grads);
      size_t n = p.val().shape().num_elements();
      if (!g) {
        values.insert(values.end(), n, 0.0);
        return;
      }
      auto v = g->to_data().convert(DType::F64).template to_vector<double>();
      values.insert(values.end(), v.begin(), v.end());
    }
  }
};
}  // namespace detail

template <Module M, class Closure> M Lbfgs::step(const M& model, Closure&& closure) {
  using AD = BackendOf<M>;
  static_assert(AutodiffBackend<AD>, "Lbfgs::step needs a model on an autodiff backend");
  detail::FlattenParams flat;
  model.visit(flat);
  auto at = [&](const std::vector<double>& x) {
    detail::UnflattenParams u{x};
    return model.map(u);
  };
  auto evaluate = [&](const std::vector<double>& x) {
    M m = at(x);
    auto loss = closure(m);
    auto grads = loss.backward();
    detail::FlattenGrads<AD> g{grads, {}};
    m.visit(g);
    return LossAndGrad{loss.into_scalar().to_double(), std::move(g.values)};
  };
  step_flat(flat.values, evaluate);
  return at(flat.values);
}

}  // namespace scorch::optim

#pragma once
// The nn fixture harness: each case of fixtures/nn.json (from gen_nn_fixtures.py, PyTorch) has
// inputs, parameters in Scorch's layout keyed by record path, outputs, and the gradients of
// loss = Σ_k out_k · w_k (w_k = sin(0.7k + 0.3), outputs flattened and concatenated) with
// respect to every float input and parameter. A C++ case builds the layer, loads the
// parameters, runs it on Autodiff<Cpu> and returns its outputs; the driver checks outputs,
// gradients and extras (non-differentiable results such as running statistics).
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <scorch/nn/nn.h>
#include <scorch/scorch.hpp>

namespace scorch::nntest {

using AD = Autodiff<Cpu>;
using DataMap = std::map<std::string, TensorData>;

/// One case of nn.json.
struct NnFixture {
  std::string name;
  std::vector<TensorData> inputs;
  DataMap params, grads, extras;
  std::vector<TensorData> outputs;
};

/// Every case of a fixture file; throws IoError / FormatError.
std::vector<NnFixture> load_nn_fixtures(const std::string& path);
/// The params as a nested record (dotted keys become maps; "layers.0" a map keyed "0").
Record params_record(const DataMap& params);

/// What a case gives back: outputs (autodiff, flattened by the driver), the gradient of each
/// parameter by record path, and extra results.
struct CaseRun {
  std::vector<Tensor<AD, 1>> outputs;
  std::function<DataMap(const AD::Gradients&)> param_grads = [](const AD::Gradients&) { return DataMap{}; };
  DataMap extras;
};

/// Inputs of a run: float inputs are tracked leaves (one per index).
class CaseInputs {
 public:
  explicit CaseInputs(const NnFixture& fx);
  template <size_t D> Tensor<AD, D> f(size_t i) const { return Tensor<AD, D>::from_primitive(leaves_.at(i)); }
  template <size_t D> Tensor<AD, D, Int> i(size_t k) const { return Tensor<AD, D, Int>::from_data(fx_.inputs.at(k)); }
  template <size_t D> Tensor<AD, D, Bool> b(size_t k) const { return Tensor<AD, D, Bool>::from_data(fx_.inputs.at(k)); }
  /// Input k as a constant (untracked) float tensor.
  template <size_t D> Tensor<AD, D> constant(size_t k) const { return Tensor<AD, D>::from_data(fx_.inputs.at(k)); }
  const AD::FloatTensor* leaf(size_t i) const { return leaves_.count(i) ? &leaves_.at(i) : nullptr; }
  const NnFixture& fixture() const { return fx_; }
  /// m with the case's parameters loaded (every module parameter must be present unless allow_missing).
  template <class M> M load(const M& m, bool allow_missing = false) const {
    return m.load_record(params_record(fx_.params), LoadOptions{allow_missing, false});
  }

 private:
  const NnFixture& fx_;
  std::map<size_t, AD::FloatTensor> leaves_;
};

/// Collects each parameter's gradient by path.
struct GradCollector {
  const AD::Gradients& grads;
  DataMap out;
  template <class P> void visit(const std::string& path, const P& p) {
    if (auto g = p.val().grad(grads)) out[path] = g->to_data();
  }
};

/// The gradient reader of a loaded module.
template <class M> std::function<DataMap(const AD::Gradients&)> grads_of(const M& m) {
  return [m](const AD::Gradients& g) {
    GradCollector c{g, {}};
    m.visit(c);
    return c.out;
  };
}

/// A case whose outputs come from module m (loaded from the fixture) applied by body.
template <class M, class F>
CaseRun module_case(const CaseInputs& in, const M& fresh, F&& body, bool allow_missing = false) {
  M m = in.load(fresh, allow_missing);
  CaseRun run;
  run.outputs = body(m);
  run.param_grads = grads_of(m);
  return run;
}

/// t flattened.
template <size_t D, class K = Float> Tensor<AD, 1, K> flat(const Tensor<AD, D, K>& t) {
  return t.template reshape<1>({-1});
}

using CaseFn = std::function<CaseRun(const CaseInputs&)>;
/// Case name → body.
using CaseTable = std::map<std::string, CaseFn>;
void add_layer_cases(CaseTable& t);
void add_sequence_cases(CaseTable& t);
void add_loss_cases(CaseTable& t);
void add_activation_cases(CaseTable& t);

}  // namespace scorch::nntest

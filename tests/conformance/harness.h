#pragma once
// The conformance harness: fixtures (inputs + PyTorch outputs) loaded from JSON, and cases that
// apply Scorch ops to the same inputs, written once as templates over the backend.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>
#include <scorch/scorch.hpp>
#ifdef SCORCH_CASE_DYN
#include <scorch/stacks/dyn/autodiff.h>
#endif

namespace scorch::conformance {

/// One case of the fixture file.
struct Fixture {
  std::string name;
  std::vector<TensorData> inputs, outputs;
  std::optional<Tolerance> tolerance;
  /// PyTorch raised on these inputs (an edge case): Scorch must throw scorch::Error.
  bool error = false;
  /// With error: PyTorch's own restriction on a zero-size dim; Scorch may return empty outputs instead.
  bool lenient = false;
  /// PyTorch's message where it raised.
  std::string torch_error;
};

/// One tensor of a fixture file ({dtype, shape, data}; "nan"/"inf"/"-inf" strings allowed).
TensorData decode_tensor(const nlohmann::json& j);
/// Every case of a fixture file; throws IoError / FormatError on a missing or bad file.
std::vector<Fixture> load_fixtures(const std::string& path);
/// Throws AssertionError unless actual matches expected (dtype, shape, values within tolerance);
/// spread_nonfinite compares only the values finite on both sides (nonfinite_spreads).
void expect_match(const TensorData& expected, const TensorData& actual, std::optional<Tolerance> tolerance,
                  bool spread_nonfinite = false);

/// data with every element written twice along the last dim ([..., n] -> [..., 2n]).
TensorData duplicate_last_dim(const TensorData& data);

/// The edge sweep's backward pass on autodiff backends, active while an edge case runs: the case's
/// float leaves and the sum of its float outputs (as f64). check() backpropagates from that sum and
/// requires every leaf's gradient to have the leaf's shape, and to be zero when every output is empty.
template <class B> struct BackwardProbe {
  std::vector<std::function<void(const GradientsOf<B>&, bool)>> leaf_checks;
  std::optional<Tensor<B, 1>> total;
  bool outputs_empty = true;
  static BackwardProbe*& active() {
    static thread_local BackwardProbe* probe = nullptr;
    return probe;
  }
  void check() const {
    if constexpr (AutodiffBackend<B>) {
      if (!total) return;
      auto grads = total->backward();
      for (const auto& leaf_check : leaf_checks) leaf_check(grads, outputs_empty);
    }
  }
};

/// Adds a float input leaf to the active backward probe (autodiff backends only).
template <class B, size_t D> void probe_leaf(const Tensor<B, D>& leaf, size_t i) {
  if constexpr (AutodiffBackend<B>) {
    auto* probe = BackwardProbe<B>::active();
    if (!probe) return;
    probe->leaf_checks.push_back([leaf, i](const GradientsOf<B>& grads, bool outputs_empty) {
      auto g = leaf.grad(grads);
      if (!g) return;
      std::string where = "input " + std::to_string(i) + " of shape " + leaf.shape().to_string();
      if (!(g->shape() == leaf.shape()))
        throw AssertionError("edge backward", where + " has a gradient of shape " + g->shape().to_string());
      if (outputs_empty && g->num_elements() > 0 && g->abs().sum().into_scalar().template as<double>() != 0.0)
        throw AssertionError("edge backward", where + ": nonzero gradient from empty outputs");
    });
  }
}

/// Adds a float output to the active backward probe's total (autodiff backends only).
template <class B, size_t D, class K> void probe_output(const Tensor<B, D, K>& out) {
  if constexpr (AutodiffBackend<B> && std::is_same_v<K, Float>) {
    auto* probe = BackwardProbe<B>::active();
    if (!probe || !out.primitive().node) return;  // untracked: nothing to backpropagate
    auto sum = out.sum().cast(DType::F64);
    probe->total = probe->total ? *probe->total + sum : sum;
    probe->outputs_empty = probe->outputs_empty && out.num_elements() == 0;
  }
}

/// The inputs a case receives; strided: pass them as non-contiguous views (the edge sweep).
template <class B> struct Inputs {
  const std::vector<TensorData>& data;
  bool strided = false;
};
/// Input i as a tensor of rank D and kind K; a strided input is every other element of a tensor
/// twice as long in its last dim (a view with stride 2). Float inputs on autodiff backends require
/// grad (on the leaf, before the view), so every op runs its recording path.
template <size_t D, class K, class B> Tensor<B, D, K> input(const Inputs<B>& in, size_t i) {
  const TensorData& d = in.data.at(i);
  bool strided = in.strided && D > 0 && d.shape().rank() == D && d.num_elements() > 0;
  auto leaf = Tensor<B, D, K>::from_data(strided ? duplicate_last_dim(d) : d);
  if constexpr (std::is_same_v<K, Float>) {
    leaf = leaf.require_grad();
    probe_leaf(leaf, i);
  }
  if (!strided) return leaf;
  return leaf.slice_dim(-1, Slice(0, static_cast<int64_t>(2 * d.shape()[D - 1]), 2));
}
template <size_t D, class B> Tensor<B, D> F(const Inputs<B>& in, size_t i) { return input<D, Float>(in, i); }
template <size_t D, class B> Tensor<B, D, Int> I(const Inputs<B>& in, size_t i) { return input<D, Int>(in, i); }
template <size_t D, class B> Tensor<B, D, Bool> Bo(const Inputs<B>& in, size_t i) { return input<D, Bool>(in, i); }

/// The data of each output tensor, in order.
template <class... Ts> std::vector<TensorData> outs(const Ts&... ts) {
  (probe_output(ts), ...);
  return {ts.to_data()...};
}

/// A registered case: its fixture name, the backend ops it exercises, and its body.
template <class B> struct Case {
  std::string name;
  std::vector<std::string> covers;
  std::function<std::vector<TensorData>(const Inputs<B>&)> run;
};

/// All cases for one backend.
template <class B> struct CaseList {
  std::vector<Case<B>> cases;
  void add(std::string name, std::vector<std::string> covers,
           std::function<std::vector<TensorData>(const Inputs<B>&)> run) {
    cases.push_back({std::move(name), std::move(covers), std::move(run)});
  }
};

template <class B> void add_creation_cases(CaseList<B>& list);
template <class B> void add_arith_cases(CaseList<B>& list);
template <class B> void add_unary_cases(CaseList<B>& list);
template <class B> void add_compare_cases(CaseList<B>& list);
template <class B> void add_reduce_cases(CaseList<B>& list);
template <class B> void add_layout_cases(CaseList<B>& list);
template <class B> void add_index_cases(CaseList<B>& list);
template <class B> void add_activation_cases(CaseList<B>& list);
template <class B> void add_composite_cases(CaseList<B>& list);
template <class B> void add_module_cases(CaseList<B>& list);
template <class B> void add_module_grad_cases(CaseList<B>& list);
template <class B> void add_fused_cases(CaseList<B>& list);
template <class B> void add_fused_grad_cases(CaseList<B>& list);
template <class B> void add_quant_cases(CaseList<B>& list);

/// Every case, for backend B.
template <class B> CaseList<B> all_cases() {
  CaseList<B> list;
  add_creation_cases(list);
  add_arith_cases(list);
  add_unary_cases(list);
  add_compare_cases(list);
  add_reduce_cases(list);
  add_layout_cases(list);
  add_index_cases(list);
  add_activation_cases(list);
  add_composite_cases(list);
  add_module_cases(list);
  add_module_grad_cases(list);
  add_fused_cases(list);
  add_fused_grad_cases(list);
  add_quant_cases(list);
  return list;
}

}  // namespace scorch::conformance

// The backend the case files are compiled for: Dyn natively (SCORCH_CASE_DYN: compiled once, every stack chosen at
// run time), Cpu where the build has no Dyn (WebAssembly); each file instantiates it and, unless
// SCORCH_CASE_NO_AUTODIFF is defined, its Autodiff.
#ifdef SCORCH_CASE_DYN
#define SCORCH_CASE_BACKEND Dyn
#else
#define SCORCH_CASE_BACKEND Cpu
#endif
#ifdef SCORCH_CASE_NO_AUTODIFF
#define SCORCH_CONFORMANCE_INSTANTIATE(fn) template void fn<SCORCH_CASE_BACKEND>(CaseList<SCORCH_CASE_BACKEND>&)
#else
#define SCORCH_CONFORMANCE_INSTANTIATE(fn)                               \
  template void fn<SCORCH_CASE_BACKEND>(CaseList<SCORCH_CASE_BACKEND>&); \
  template void fn<Autodiff<SCORCH_CASE_BACKEND>>(CaseList<Autodiff<SCORCH_CASE_BACKEND>>&)
#endif

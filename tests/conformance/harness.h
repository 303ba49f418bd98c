#pragma once
// The conformance harness: fixtures (inputs + PyTorch outputs) loaded from JSON, and cases that
// apply Scorch ops to the same inputs, written once as templates over the backend.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>
#include <scorch/backends/reference/reference_backend.h>
#include <scorch/scorch.hpp>
#ifdef SCORCH_HAVE_LIBTORCH
#include <scorch/stacks/libtorch/autodiff.h>
#endif
#ifdef SCORCH_HAVE_CUDA
#include <scorch/stacks/cuda/autodiff.h>
#endif

namespace scorch::conformance {

/// One case of the fixture file.
struct Fixture {
  std::string name;
  std::vector<TensorData> inputs, outputs;
  std::optional<Tolerance> tolerance;
};

/// One tensor of a fixture file ({dtype, shape, data}; "nan"/"inf"/"-inf" strings allowed).
TensorData decode_tensor(const nlohmann::json& j);
/// Every case of a fixture file; throws IoError / FormatError on a missing or bad file.
std::vector<Fixture> load_fixtures(const std::string& path);
/// Throws AssertionError unless actual matches expected (dtype, shape, values within tolerance).
void expect_match(const TensorData& expected, const TensorData& actual, std::optional<Tolerance> tolerance);

/// The inputs a case receives.
template <class B> struct Inputs { const std::vector<TensorData>& data; };
/// Input i as a float / int / bool tensor of rank D; on autodiff backends float inputs require
/// grad, so every op runs its recording path.
template <size_t D, class B> Tensor<B, D> F(const Inputs<B>& in, size_t i) {
  return Tensor<B, D>::from_data(in.data.at(i)).require_grad();
}
template <size_t D, class B> Tensor<B, D, Int> I(const Inputs<B>& in, size_t i) {
  return Tensor<B, D, Int>::from_data(in.data.at(i));
}
template <size_t D, class B> Tensor<B, D, Bool> Bo(const Inputs<B>& in, size_t i) {
  return Tensor<B, D, Bool>::from_data(in.data.at(i));
}

/// The data of each output tensor, in order.
template <class... Ts> std::vector<TensorData> outs(const Ts&... ts) { return {ts.to_data()...}; }

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
  return list;
}

}  // namespace scorch::conformance

// The backend the case files are compiled for: Cpu unless the build names another (the cases are
// compiled once per backend into its own library); each file instantiates it and, unless
// SCORCH_CASE_NO_AUTODIFF is defined, its Autodiff.
#ifndef SCORCH_CASE_BACKEND
#define SCORCH_CASE_BACKEND Cpu
#endif
#ifdef SCORCH_CASE_NO_AUTODIFF
#define SCORCH_CONFORMANCE_INSTANTIATE(fn) template void fn<SCORCH_CASE_BACKEND>(CaseList<SCORCH_CASE_BACKEND>&)
#else
#define SCORCH_CONFORMANCE_INSTANTIATE(fn)                               \
  template void fn<SCORCH_CASE_BACKEND>(CaseList<SCORCH_CASE_BACKEND>&); \
  template void fn<Autodiff<SCORCH_CASE_BACKEND>>(CaseList<Autodiff<SCORCH_CASE_BACKEND>>&)
#endif

// Conformance cases: unary float math, sign and NaN/inf tests.
#include <tuple>

#include "../registry/domains.h"
#include "scorch/gen/test_registry.h"
#include "harness.h"

namespace scorch::conformance {

template <class B> void add_unary_cases(CaseList<B>& list) {
  using T = Tensor<B, 2>;
  using Fn = T (*)(const T&);
  // One case "unary_<op>" per unary op with a test attribute in op_table.txt, and one "dim_<op>" per (x, dim) op
  // with one, along dim 1.
#define SCORCH_CONFORMANCE_UNARY(op, domain, torch) {"unary_", #op, [](const T& x) { return x.op(); }},
#define SCORCH_CONFORMANCE_DIM(op, domain, torch) {"dim_", #op, [](const T& x) { return x.op(1); }},
  const std::vector<std::tuple<const char*, const char*, Fn>> registry = {
      SCORCH_UNARY_CASES(SCORCH_CONFORMANCE_UNARY) SCORCH_DIM_CASES(SCORCH_CONFORMANCE_DIM)};
#undef SCORCH_CONFORMANCE_UNARY
#undef SCORCH_CONFORMANCE_DIM
  for (const auto& [prefix, name, fn] : registry) {
    Fn f = fn;
    list.add(std::string(prefix) + name, {std::string("float_") + name},
             [f](const Inputs<B>& in) { return outs(f(F<2>(in, 0))); });
  }
  list.add("round_ties", {"float_round"}, [](const Inputs<B>& in) { return outs(F<1>(in, 0).round()); });
  list.add("unary_strided", {"float_exp", "float_swap_dims"},
           [](const Inputs<B>& in) { return outs(F<2>(in, 0).transpose().exp()); });
  list.add("sign_float", {"float_sign"}, [](const Inputs<B>& in) { return outs(F<1>(in, 0).sign()); });
  list.add("nan_inf", {"float_is_nan", "float_is_inf"}, [](const Inputs<B>& in) {
    auto x = F<1>(in, 0);
    return outs(x.is_nan(), x.is_inf(), x.is_finite());
  });
  list.add("abs_sign_int", {"int_abs", "int_sign"}, [](const Inputs<B>& in) {
    auto x = I<1>(in, 0);
    return outs(x.abs(), x.sign());
  });
}

SCORCH_CONFORMANCE_INSTANTIATE(add_unary_cases);

}  // namespace scorch::conformance

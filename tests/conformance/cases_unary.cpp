// Conformance cases: unary float math, sign and NaN/inf tests.
#include "harness.h"

namespace scorch::conformance {

template <class B> void add_unary_cases(CaseList<B>& list) {
  using T = Tensor<B, 2>;
  using Fn = T (*)(const T&);
  const std::vector<std::pair<const char*, Fn>> unary = {
      {"exp", [](const T& x) { return x.exp(); }},     {"log", [](const T& x) { return x.log(); }},
      {"log1p", [](const T& x) { return x.log1p(); }}, {"sqrt", [](const T& x) { return x.sqrt(); }},
      {"abs", [](const T& x) { return x.abs(); }},     {"cos", [](const T& x) { return x.cos(); }},
      {"sin", [](const T& x) { return x.sin(); }},     {"tan", [](const T& x) { return x.tan(); }},
      {"cosh", [](const T& x) { return x.cosh(); }},   {"sinh", [](const T& x) { return x.sinh(); }},
      {"tanh", [](const T& x) { return x.tanh(); }},   {"acos", [](const T& x) { return x.acos(); }},
      {"acosh", [](const T& x) { return x.acosh(); }}, {"asin", [](const T& x) { return x.asin(); }},
      {"asinh", [](const T& x) { return x.asinh(); }}, {"atan", [](const T& x) { return x.atan(); }},
      {"atanh", [](const T& x) { return x.atanh(); }}, {"floor", [](const T& x) { return x.floor(); }},
      {"ceil", [](const T& x) { return x.ceil(); }},   {"trunc", [](const T& x) { return x.trunc(); }},
      {"erf", [](const T& x) { return x.erf(); }},     {"recip", [](const T& x) { return x.recip(); }},
  };
  for (const auto& [name, fn] : unary) {
    Fn f = fn;
    list.add(std::string("unary_") + name, {std::string("float_") + name},
             [f](const Inputs<B>& in) { return outs(f(F<2>(in, 0))); });
  }
  list.add("unary_round", {"float_round"}, [](const Inputs<B>& in) { return outs(F<1>(in, 0).round()); });
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

// Conformance cases: float and int arithmetic, powers and matmul.
#include "../registry/domains.h"
#include "scorch/gen/test_registry.h"
#include "harness.h"

namespace scorch::conformance {

template <class B> void add_arith_cases(CaseList<B>& list) {
  using T = Tensor<B, 2>;
  using Fn = T (*)(const T&, const T&);
  // One case "binary_<op>" per binary op with a test attribute in op_table.txt ([2, 3] and [1, 3] inputs).
#define SCORCH_CONFORMANCE_BINARY(op, domain_a, domain_b, torch) {#op, [](const T& a, const T& b) { return a.op(b); }},
  const std::vector<std::pair<const char*, Fn>> binary = {SCORCH_BINARY_CASES(SCORCH_CONFORMANCE_BINARY)};
#undef SCORCH_CONFORMANCE_BINARY
  for (const auto& [name, fn] : binary) {
    Fn f = fn;
    list.add(std::string("binary_") + name, {std::string("float_") + name},
             [f](const Inputs<B>& in) { return outs(f(F<2>(in, 0), F<2>(in, 1))); });
  }
  list.add("remainder_float", {"float_remainder"}, [](const Inputs<B>& in) { return outs(F<2>(in, 0) % F<2>(in, 1)); });
  list.add("scalar_ops_float",
           {"float_add_scalar", "float_sub_scalar", "float_mul_scalar", "float_div_scalar", "float_remainder_scalar",
            "float_powf_scalar"},
           [](const Inputs<B>& in) {
             auto x = F<2>(in, 0);
             return outs(x + 2.5, x - 1.5, x * -3.0, x / 4.0, x.remainder_scalar(0.7), x.abs().powf_scalar(1.7),
                         x.powf_scalar(2.0));
           });
  list.add("powi_float", {"float_powi"}, [](const Inputs<B>& in) { return outs(F<2>(in, 0).powi(I<2>(in, 1))); });
  list.add("neg_float", {"float_neg"}, [](const Inputs<B>& in) { return outs(-F<2>(in, 0)); });
  list.add("matmul_float", {"float_matmul"}, [](const Inputs<B>& in) { return outs(F<3>(in, 0).matmul(F<3>(in, 1))); });
  list.add("matmul_f64", {"float_matmul"}, [](const Inputs<B>& in) { return outs(F<2>(in, 0).matmul(F<2>(in, 1))); });
  list.add("add_f16", {"float_add"}, [](const Inputs<B>& in) { return outs(F<2>(in, 0) + F<2>(in, 1)); });
  list.add("exp_bf16", {"float_exp"}, [](const Inputs<B>& in) { return outs(F<1>(in, 0).exp()); });
  list.add("add_inplace_chain", {"float_add", "float_mul_scalar", "float_sub", "float_div_scalar"},
           [](const Inputs<B>& in) {
             auto x = F<2>(in, 0), y = F<2>(in, 1);
             return outs(((x + y) * 2.0 - y) / 3.0);
           });

  list.add("add_int", {"int_add"}, [](const Inputs<B>& in) { return outs(I<2>(in, 0) + I<2>(in, 1)); });
  list.add("sub_int", {"int_sub"}, [](const Inputs<B>& in) { return outs(I<2>(in, 0) - I<2>(in, 1)); });
  list.add("mul_int", {"int_mul"}, [](const Inputs<B>& in) { return outs(I<2>(in, 0) * I<2>(in, 1)); });
  list.add("div_int", {"int_div"}, [](const Inputs<B>& in) { return outs(I<2>(in, 0) / I<2>(in, 1)); });
  list.add("remainder_int", {"int_remainder"}, [](const Inputs<B>& in) { return outs(I<2>(in, 0) % I<2>(in, 1)); });
  list.add("scalar_ops_int",
           {"int_add_scalar", "int_sub_scalar", "int_mul_scalar", "int_div_scalar", "int_remainder_scalar"},
           [](const Inputs<B>& in) {
             auto x = I<2>(in, 0);
             return outs(x + 2, x - 3, x * -2, x / 2, x % 3);
           });
  list.add("powi_int", {"int_powi"}, [](const Inputs<B>& in) { return outs(I<2>(in, 0).powi(I<2>(in, 1))); });
  list.add("powi_scalar_int", {"int_powi_scalar"},
           [](const Inputs<B>& in) { return outs(I<2>(in, 0).powi_scalar(3)); });
  list.add("neg_int", {"int_neg"}, [](const Inputs<B>& in) { return outs(-I<2>(in, 0)); });
  list.add("matmul_int", {"int_matmul"}, [](const Inputs<B>& in) { return outs(I<3>(in, 0).matmul(I<3>(in, 1))); });
  list.add("arith_i32", {"int_add", "int_mul", "int_div"}, [](const Inputs<B>& in) {
    auto x = I<1>(in, 0), y = I<1>(in, 1);
    return outs(x + y, x * y, x / y);
  });
}

SCORCH_CONFORMANCE_INSTANTIATE(add_arith_cases);

}  // namespace scorch::conformance

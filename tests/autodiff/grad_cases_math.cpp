// Gradient cases: arithmetic (broadcast), scalar ops, powers, matmul, clamps, masks, device/dtype copies, unary math,
// activations.
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../registry/domains.h"
#include "scorch/gen/test_registry.h"
#include "grad_harness.h"

namespace scorch::gradcheck {
namespace {
namespace act = ::scorch::activation;
using T1 = Tensor<AD, 1>;
using T2 = Tensor<AD, 2>;

// One case "binary_<op>" per binary op with a test attribute in op_table.txt on [2, 3] and [1, 3] inputs, so the
// gradients are un-broadcast; remainder broadcasts a [1, 3] divisor the same way.
void add_arith_cases(std::vector<GradCase>& cases) {
  using Fn = T2 (*)(const T2&, const T2&);
#define SCORCH_GRAD_BINARY(op, domain_a, domain_b, torch) {#op, [](const T2& a, const T2& b) { return a.op(b); }},
  const std::vector<std::pair<const char*, Fn>> binary = {SCORCH_BINARY_CASES(SCORCH_GRAD_BINARY)};
#undef SCORCH_GRAD_BINARY
  for (const auto& [name, fn] : binary) {
    Fn f = fn;
    cases.push_back({std::string("binary_") + name, {std::string("float_") + name}, [f](const GradInputs& in) {
                       return flat(f(in.f<2>(0), in.f<2>(1)));
                     }});
  }
  cases.push_back(
      {"remainder_bcast", {"float_remainder"}, [](const GradInputs& in) { return flat(in.f<2>(0) % in.f<2>(1)); }});
  cases.push_back({"neg", {"float_neg"}, [](const GradInputs& in) { return flat(-in.f<2>(0)); }});
  cases.push_back({"powi", {"float_powi"}, [](const GradInputs& in) { return flat(in.f<2>(0).powi(in.i<2>(1))); }});
}

void add_scalar_cases(std::vector<GradCase>& cases) {
  cases.push_back({"add_scalar", {"float_add_scalar"}, [](const GradInputs& in) { return flat(in.f<2>(0) + 2.5); }});
  cases.push_back({"sub_scalar", {"float_sub_scalar"}, [](const GradInputs& in) { return flat(in.f<2>(0) - 1.5); }});
  cases.push_back({"mul_scalar", {"float_mul_scalar"}, [](const GradInputs& in) { return flat(in.f<2>(0) * -3.0); }});
  cases.push_back({"div_scalar", {"float_div_scalar"}, [](const GradInputs& in) { return flat(in.f<2>(0) / 4.0); }});
  cases.push_back({"remainder_scalar", {"float_remainder_scalar"}, [](const GradInputs& in) {
                     auto x = in.f<2>(0);
                     return join({flat(x.remainder_scalar(0.7)), flat(x.remainder_scalar(-0.7))});
                   }});
  // p > 0 takes fractional and negative exponents; x (either sign) integer ones.
  cases.push_back({"powf_scalar", {"float_powf_scalar"}, [](const GradInputs& in) {
                     auto p = in.f<2>(0), x = in.f<2>(1);
                     return join({flat(p.powf_scalar(1.7)), flat(p.powf_scalar(-0.5)), flat(x.powf_scalar(2.0)),
                                  flat(x.powi_scalar(3))});
                   }});
}

// Batched matmul: rhs batch 1 broadcast over lhs batch 2 (its gradient is summed), and both sides broadcast.
void add_matmul_cases(std::vector<GradCase>& cases) {
  cases.push_back(
      {"matmul", {"float_matmul"}, [](const GradInputs& in) { return flat(in.f<2>(0).matmul(in.f<2>(1))); }});
  cases.push_back(
      {"matmul_bcast", {"float_matmul"}, [](const GradInputs& in) { return flat(in.f<3>(0).matmul(in.f<3>(1))); }});
  cases.push_back(
      {"matmul_bcast4", {"float_matmul"}, [](const GradInputs& in) { return flat(in.f<4>(0).matmul(in.f<4>(1))); }});
}

void add_clamp_mask_cases(std::vector<GradCase>& cases) {
  cases.push_back({"clamp", {"float_clamp"}, [](const GradInputs& in) { return flat(in.f<2>(0).clamp(-0.5, 0.5)); }});
  cases.push_back(
      {"clamp_min", {"float_clamp_min"}, [](const GradInputs& in) { return flat(in.f<2>(0).clamp_min(0.1)); }});
  cases.push_back(
      {"clamp_max", {"float_clamp_max"}, [](const GradInputs& in) { return flat(in.f<2>(0).clamp_max(-0.2)); }});
  // Inputs x [2, 3], values [1, 3], mask [2, 3]: values where the mask is true.
  cases.push_back({"mask_where", {"float_mask_where"}, [](const GradInputs& in) {
                     return flat(in.f<2>(0).mask_where(in.b<2>(2), in.f<2>(1)));
                   }});
  cases.push_back({"mask_fill", {"float_mask_fill"}, [](const GradInputs& in) {
                     return flat(in.f<2>(0).mask_fill(in.b<2>(1), -1.5));
                   }});
  cases.push_back({"to_device", {"float_to_device"}, [](const GradInputs& in) {
                     return flat(in.f<2>(0).to_device(AD::Device{}));
                   }});
  // Inputs of size ~1e-6, so that the f32 rounding stays below the finite-difference noise.
  cases.push_back({"cast_roundtrip", {"float_cast"}, [](const GradInputs& in) {
                     return flat(in.f<2>(0).cast(DType::F32).cast(DType::F64));
                   }});
}

// One case "unary_<op>" per unary op with a test attribute in op_table.txt, and one "dim_<op>" per (x, dim) op with
// one (along dim 1), each on a [2, 3] input in its domain.
void add_unary_cases(std::vector<GradCase>& cases) {
  using Fn = T2 (*)(const T2&);
#define SCORCH_GRAD_UNARY(op, domain, torch) {"unary_", #op, [](const T2& x) { return x.op(); }},
#define SCORCH_GRAD_DIM(op, domain, torch) {"dim_", #op, [](const T2& x) { return x.op(1); }},
  const std::vector<std::tuple<const char*, const char*, Fn>> registry = {SCORCH_UNARY_CASES(SCORCH_GRAD_UNARY)
                                                                              SCORCH_DIM_CASES(SCORCH_GRAD_DIM)};
#undef SCORCH_GRAD_UNARY
#undef SCORCH_GRAD_DIM
  for (const auto& [prefix, name, fn] : registry) {
    Fn f = fn;
    cases.push_back({std::string(prefix) + name, {std::string("float_") + name}, [f](const GradInputs& in) {
                       return flat(f(in.f<2>(0)));
                     }});
  }
}

void add_activation_cases(std::vector<GradCase>& cases) {
  cases.push_back({"relu", {"float_relu"}, [](const GradInputs& in) { return flat(act::relu(in.f<2>(0))); }});
  cases.push_back({"leaky_relu", {"float_leaky_relu"}, [](const GradInputs& in) {
                     return flat(act::leaky_relu(in.f<2>(0), 0.2));
                   }});
  cases.push_back({"gelu", {"float_gelu"}, [](const GradInputs& in) { return flat(act::gelu(in.f<2>(0))); }});
  cases.push_back({"sigmoid", {"float_sigmoid"}, [](const GradInputs& in) { return flat(act::sigmoid(in.f<2>(0))); }});
  cases.push_back(
      {"log_sigmoid", {"float_log_sigmoid"}, [](const GradInputs& in) { return flat(act::log_sigmoid(in.f<2>(0))); }});
  cases.push_back({"hard_sigmoid", {"float_hard_sigmoid"}, [](const GradInputs& in) {
                     return flat(act::hard_sigmoid(in.f<2>(0), 0.2, 0.5));
                   }});
  cases.push_back({"softmax", {"float_softmax"}, [](const GradInputs& in) {
                     auto x = in.f<2>(0);
                     return join({flat(act::softmax(x, 1)), flat(act::softmax(x, 0))});
                   }});
  cases.push_back({"log_softmax", {"float_log_softmax"}, [](const GradInputs& in) {
                     auto x = in.f<2>(0);
                     return join({flat(act::log_softmax(x, 1)), flat(act::log_softmax(x, 0))});
                   }});
  cases.push_back({"softmax_3d", {"float_softmax", "float_log_softmax"}, [](const GradInputs& in) {
                     auto x = in.f<3>(0);
                     return join({flat(act::softmax(x, 1)), flat(act::log_softmax(x, 2))});
                   }});
}
}  // namespace

void add_math_grad_cases(std::vector<GradCase>& cases) {
  add_arith_cases(cases);
  add_scalar_cases(cases);
  add_matmul_cases(cases);
  add_clamp_mask_cases(cases);
  add_unary_cases(cases);
  add_activation_cases(cases);
}

}  // namespace scorch::gradcheck

// Gradient cases: sums, means, products (with a zero), extremes (no ties) and running (cumulative) ops.
#include <vector>

#include "grad_harness.h"

namespace scorch::gradcheck {
namespace {
using T1 = Tensor<AD, 1>;

// Full reductions give shape [1]; the *_dim ones keep the reduced dim with size 1.
void add_sum_mean_cases(std::vector<GradCase>& cases) {
  cases.push_back({"sum", {"float_sum"}, [](const GradInputs& in) { return in.f<3>(0).sum(); }});
  cases.push_back({"sum_dim", {"float_sum_dim"}, [](const GradInputs& in) {
                     auto x = in.f<3>(0);
                     return join({flat(x.sum_dim(1)), flat(x.sum_dim(2))});
                   }});
  cases.push_back({"mean", {"float_mean"}, [](const GradInputs& in) { return in.f<3>(0).mean(); }});
  cases.push_back({"mean_dim", {"float_mean_dim"}, [](const GradInputs& in) {
                     auto x = in.f<3>(0);
                     return join({flat(x.mean_dim(2)), flat(x.mean_dim(0))});
                   }});
}

void add_prod_cases(std::vector<GradCase>& cases) {
  cases.push_back({"prod", {"float_prod"}, [](const GradInputs& in) { return in.f<2>(0).prod(); }});
  cases.push_back({"prod_dim", {"float_prod_dim"}, [](const GradInputs& in) {
                     auto x = in.f<2>(0);
                     return join({flat(x.prod_dim(0)), flat(x.prod_dim(1))});
                   }});
  // x [2, 3] with x[0, 1] == 0: one zero in the full product, in row 0 and in column 1.
  cases.push_back({"prod_zero", {"float_prod", "float_prod_dim"}, [](const GradInputs& in) {
                     auto x = in.f<2>(0);
                     return join({x.prod(), flat(x.prod_dim(1)), flat(x.prod_dim(0))});
                   }});
}

// Inputs are permutations of well-separated values (no ties).
void add_extreme_cases(std::vector<GradCase>& cases) {
  cases.push_back({"max", {"float_max"}, [](const GradInputs& in) { return in.f<3>(0).max(); }});
  cases.push_back({"min", {"float_min"}, [](const GradInputs& in) { return in.f<3>(0).min(); }});
  cases.push_back({"max_dim", {"float_max_dim"}, [](const GradInputs& in) {
                     auto x = in.f<3>(0);
                     return join({flat(x.max_dim(1)), flat(x.max_dim(2))});
                   }});
  cases.push_back({"min_dim", {"float_min_dim"}, [](const GradInputs& in) {
                     auto x = in.f<3>(0);
                     return join({flat(x.min_dim(2)), flat(x.min_dim(0))});
                   }});
  cases.push_back({"max_dim_with_indices", {"float_max_dim_with_indices"}, [](const GradInputs& in) {
                     return flat(in.f<3>(0).max_dim_with_indices(0).first);
                   }});
  cases.push_back({"min_dim_with_indices", {"float_min_dim_with_indices"}, [](const GradInputs& in) {
                     return flat(in.f<3>(0).min_dim_with_indices(1).first);
                   }});
}

void add_cumulative_cases(std::vector<GradCase>& cases) {
  cases.push_back({"cumsum", {"float_cumsum"}, [](const GradInputs& in) {
                     auto x = in.f<2>(0);
                     return join({flat(x.cumsum(1)), flat(x.cumsum(0))});
                   }});
  // Nonzero inputs.
  cases.push_back({"cumprod", {"float_cumprod"}, [](const GradInputs& in) {
                     auto x = in.f<2>(0);
                     return join({flat(x.cumprod(1)), flat(x.cumprod(0))});
                   }});
  // Zeros: one and two in a row, first and last in their line (the gradient must not divide by them).
  cases.push_back({"cumprod_zeros", {"float_cumprod"}, [](const GradInputs& in) {
                     auto x = in.f<2>(0);
                     return join({flat(x.cumprod(1)), flat(x.cumprod(0))});
                   }});
  // No ties.
  cases.push_back({"cummin", {"float_cummin"}, [](const GradInputs& in) {
                     auto x = in.f<2>(0);
                     return join({flat(x.cummin(0)), flat(x.cummin(1))});
                   }});
  cases.push_back({"cummax", {"float_cummax"}, [](const GradInputs& in) {
                     auto x = in.f<2>(0);
                     return join({flat(x.cummax(1)), flat(x.cummax(0))});
                   }});
}
}  // namespace

void add_reduce_grad_cases(std::vector<GradCase>& cases) {
  add_sum_mean_cases(cases);
  add_prod_cases(cases);
  add_extreme_cases(cases);
  add_cumulative_cases(cases);
}

}  // namespace scorch::gradcheck

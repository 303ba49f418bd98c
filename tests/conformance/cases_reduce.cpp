// Conformance cases: reductions, extremes, any/all and running (cumulative) ops.
#include "harness.h"

namespace scorch::conformance {
namespace {
template <class T> std::vector<TensorData> reduce_outs(const T& x) {
  return outs(x.sum(), x.sum_dim(1), x.mean(), x.mean_dim(2), x.prod(), x.prod_dim(0));
}
template <class T> std::vector<TensorData> extreme_outs(const T& x) {
  return outs(x.max(), x.min(), x.max_dim(1), x.min_dim(2), x.argmax(1), x.argmin(2), x.max_dim_with_indices(0).second,
              x.min_dim_with_indices(0).second);
}
template <class T> std::vector<TensorData> any_all_outs(const T& x) {
  return outs(x.any(), x.all(), x.any_dim(1), x.all_dim(0));
}
template <class T> std::vector<TensorData> cumulative_outs(const T& x) {
  return outs(x.cumsum(1), x.cumprod(1), x.cummin(0), x.cummax(1));
}
}  // namespace

template <class B> void add_reduce_cases(CaseList<B>& list) {
  list.add("reduce_float",
           {"float_sum", "float_sum_dim", "float_mean", "float_mean_dim", "float_prod", "float_prod_dim"},
           [](const Inputs<B>& in) { return reduce_outs(F<3>(in, 0)); });
  list.add("extreme_float",
           {"float_max", "float_min", "float_max_dim", "float_min_dim", "float_argmax", "float_argmin",
            "float_max_dim_with_indices", "float_min_dim_with_indices"},
           [](const Inputs<B>& in) { return extreme_outs(F<3>(in, 0)); });
  list.add("reduce_int", {"int_sum", "int_sum_dim", "int_mean", "int_mean_dim", "int_prod", "int_prod_dim"},
           [](const Inputs<B>& in) { return reduce_outs(I<3>(in, 0)); });
  list.add("extreme_int",
           {"int_max", "int_min", "int_max_dim", "int_min_dim", "int_argmax", "int_argmin", "int_max_dim_with_indices",
            "int_min_dim_with_indices"},
           [](const Inputs<B>& in) { return extreme_outs(I<3>(in, 0)); });
  list.add("any_all_float", {"float_any", "float_all", "float_any_dim", "float_all_dim"},
           [](const Inputs<B>& in) { return any_all_outs(F<2>(in, 0)); });
  list.add("any_all_int", {"int_any", "int_all", "int_any_dim", "int_all_dim"},
           [](const Inputs<B>& in) { return any_all_outs(I<2>(in, 0)); });
  list.add("any_all_bool", {"bool_any", "bool_all", "bool_any_dim", "bool_all_dim"},
           [](const Inputs<B>& in) { return any_all_outs(Bo<2>(in, 0)); });
  list.add("cumulative_float", {"float_cumsum", "float_cumprod", "float_cummin", "float_cummax"},
           [](const Inputs<B>& in) { return cumulative_outs(F<2>(in, 0)); });
  list.add("cumulative_int", {"int_cumsum", "int_cumprod", "int_cummin", "int_cummax"},
           [](const Inputs<B>& in) { return cumulative_outs(I<2>(in, 0)); });
  list.add("reduce_nan", {"float_max_dim", "float_argmax"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    return outs(x.max_dim(1), x.argmax(1));
  });
  list.add("sum_f16", {"float_sum"}, [](const Inputs<B>& in) { return outs(F<1>(in, 0).sum()); });
}

SCORCH_CONFORMANCE_INSTANTIATE(add_reduce_cases);

}  // namespace scorch::conformance

// Conformance cases: comparisons, logic, bitwise ops, clamps and masks.
#include "harness.h"

namespace scorch::conformance {
namespace {
template <class T> std::vector<TensorData> compare_outs(const T& x, const T& y) {
  return outs(x.equal(y), x.not_equal(y), x.greater(y), x.greater_equal(y), x.lower(y), x.lower_equal(y));
}
template <class T> std::vector<TensorData> compare_elem_outs(const T& x, Scalar s) {
  return outs(x.equal_elem(s), x.not_equal_elem(s), x.greater_elem(s), x.greater_equal_elem(s), x.lower_elem(s),
              x.lower_equal_elem(s));
}
}  // namespace

template <class B> void add_compare_cases(CaseList<B>& list) {
  for (std::string k : {"float", "int"}) {
    bool is_f = k == "float";
    list.add("compare_" + k,
             {k + "_equal", k + "_not_equal", k + "_greater", k + "_greater_equal", k + "_lower", k + "_lower_equal"},
             [is_f](const Inputs<B>& in) {
               return is_f ? compare_outs(F<2>(in, 0), F<2>(in, 1)) : compare_outs(I<2>(in, 0), I<2>(in, 1));
             });
    list.add("compare_elem_" + k,
             {k + "_equal_elem", k + "_not_equal_elem", k + "_greater_elem", k + "_greater_equal_elem",
              k + "_lower_elem", k + "_lower_equal_elem"},
             [is_f](const Inputs<B>& in) {
               return is_f ? compare_elem_outs(F<2>(in, 0), Scalar(2.0)) : compare_elem_outs(I<2>(in, 0), Scalar(2));
             });
  }
  list.add(
      "logic_bool",
      {"bool_equal", "bool_not_equal", "bool_logical_not", "bool_logical_and", "bool_logical_or", "bool_logical_xor"},
      [](const Inputs<B>& in) {
        auto x = Bo<2>(in, 0), y = Bo<2>(in, 1);
        return outs(x.equal(y), x.not_equal(y), !x, x & y, x | y, x ^ y);
      });
  list.add("bitwise",
           {"int_bitwise_and", "int_bitwise_or", "int_bitwise_xor", "int_bitwise_and_scalar", "int_bitwise_or_scalar",
            "int_bitwise_xor_scalar", "int_bitwise_not", "int_bitwise_left_shift", "int_bitwise_right_shift",
            "int_bitwise_left_shift_scalar", "int_bitwise_right_shift_scalar"},
           [](const Inputs<B>& in) {
             auto x = I<2>(in, 0), y = I<2>(in, 1);
             return outs(x.bitwise_and(y), x.bitwise_or(y), x.bitwise_xor(y), x.bitwise_and_scalar(5),
                         x.bitwise_or_scalar(5), x.bitwise_xor_scalar(5), x.bitwise_not(), x.bitwise_left_shift(y),
                         x.bitwise_right_shift(y), x.bitwise_left_shift_scalar(2), x.bitwise_right_shift_scalar(1));
           });
  list.add("clamp_float", {"float_clamp", "float_clamp_min", "float_clamp_max"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    return outs(x.clamp(-0.5, 0.5), x.clamp_min(0.0), x.clamp_max(0.1));
  });
  list.add("clamp_int", {"int_clamp", "int_clamp_min", "int_clamp_max"}, [](const Inputs<B>& in) {
    auto x = I<2>(in, 0);
    return outs(x.clamp(-2, 2), x.clamp_min(0), x.clamp_max(1));
  });
  list.add("mask_float", {"float_mask_where", "float_mask_fill"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    auto m = Bo<2>(in, 1);
    return outs(x.mask_where(m, F<2>(in, 2)), x.mask_fill(m, -1.5));
  });
  list.add("mask_int", {"int_mask_where", "int_mask_fill"}, [](const Inputs<B>& in) {
    auto x = I<2>(in, 0);
    auto m = Bo<2>(in, 1);
    return outs(x.mask_where(m, I<2>(in, 2)), x.mask_fill(m, 9));
  });
  list.add("mask_bool", {"bool_mask_where", "bool_mask_fill"}, [](const Inputs<B>& in) {
    auto x = Bo<2>(in, 0);
    auto m = Bo<2>(in, 1);
    return outs(x.mask_where(m, Bo<2>(in, 2)), x.mask_fill(m, true));
  });
  list.add("mask_broadcast", {"float_mask_fill"},
           [](const Inputs<B>& in) { return outs(F<2>(in, 0).mask_fill(Bo<2>(in, 1), 0.0)); });
}

SCORCH_CONFORMANCE_INSTANTIATE(add_compare_cases);

}  // namespace scorch::conformance

// Differential cases: binary and scalar arithmetic, comparisons, logic, bitwise ops, clamps and
// masks, for float, int and bool kinds, over broadcasting, non-contiguous and edge-value inputs.
#include "../registry/domains.h"
#include "scorch/gen/test_registry.h"
#include "diff_harness.h"

namespace scorch::differential {
namespace {

/// Two operands: same shape, broadcasting, transposed and strided views, an expanded view, other float dtypes, edge
/// values.
Variants float_pairs(Domain a, Domain b, bool edges = true) {
  Variants v = {{in({3, 4}, DType::F32, a), in({3, 4}, DType::F32, b)},
                {in({2, 1, 5}, DType::F32, a), in({1, 4, 5}, DType::F32, b)},
                {in({4, 6}, DType::F32, a, kT), in({4, 6}, DType::F32, b, kS)},
                {in({3, 5}, DType::F32, a, kE), in({3, 5}, DType::F32, b)},
                {in({5, 3}, DType::F64, a), in({5, 3}, DType::F64, b, kT)},
                {in({16}, DType::F16, a), in({16}, DType::F16, b)},
                {in({16}, DType::BF16, a), in({16}, DType::BF16, b)}};
  if (edges) v.push_back({with_edges(in({64}, DType::F32, a)), with_edges(in({64}, DType::F32, b))});
  return v;
}

/// Two integer operands over several int dtypes; edge values (extremes) wrap identically.
Variants int_pairs(Domain a, Domain b, bool edges = true) {
  Variants v = {{in({3, 4}, DType::I64, a), in({3, 4}, DType::I64, b)},
                {in({2, 1, 5}, DType::I64, a), in({1, 4, 5}, DType::I64, b)},
                {in({4, 6}, DType::I32, a, kT), in({4, 6}, DType::I32, b, kS)},
                {in({12}, DType::I16, a), in({12}, DType::I16, b)},
                {in({12}, DType::I8, a), in({12}, DType::I8, b)},
                {in({12}, DType::U8, a), in({12}, DType::U8, b)}};
  if (edges) v.push_back({with_edges(in({48}, DType::I64, a)), in({48}, DType::I64, b)});
  if (edges) v.push_back({with_edges(in({48}, DType::I8, a)), in({48}, DType::I8, b)});
  return v;
}

/// One operand (scalar ops): shapes, views, dtypes, edges.
Variants float_singles(Domain d, bool edges = true) {
  Variants v = {{in({7}, DType::F32, d)},        {in({3, 5}, DType::F32, d, kT)}, {in({2, 3, 4}, DType::F32, d, kS)},
                {in({4, 6}, DType::F32, d, kE)}, {in({5, 3}, DType::F64, d)},     {in({16}, DType::F16, d)},
                {in({16}, DType::BF16, d)}};
  if (edges) v.push_back({with_edges(in({64}, DType::F32, d))});
  return v;
}

Variants int_singles(Domain d, bool edges = true) {
  Variants v = {{in({7}, DType::I64, d)},  {in({3, 5}, DType::I64, d, kT)}, {in({4, 6}, DType::I32, d, kS)},
                {in({12}, DType::I16, d)}, {in({12}, DType::I8, d)},        {in({12}, DType::U8, d)}};
  if (edges) v.push_back({with_edges(in({48}, DType::I64, d))});
  if (edges) v.push_back({with_edges(in({48}, DType::I32, d))});
  return v;
}

void arithmetic(DiffList& list) {
  each<true>(list, "float_remainder", float_pairs(Domain::Normal, Domain::Nonzero),
             SCORCH_DIFF_BODY(fo(F::remainder(in.f(0), in.f(1)))));
  // Every binary op with a test attribute in op_table.txt.
#define SCORCH_DIFF_BINARY(name, domain_a, domain_b, torch)                                                 \
  each<true>(list, "float_" #name,                                                                          \
             float_pairs(diff_domain(registry::Domain::domain_a), diff_domain(registry::Domain::domain_b)), \
             SCORCH_DIFF_BODY(fo(F::name(in.f(0), in.f(1)))));
  SCORCH_BINARY_CASES(SCORCH_DIFF_BINARY)
#undef SCORCH_DIFF_BINARY
  each<true>(list, "float_powi",
             {{in({3, 4}), small({3, 4}, 3, DType::I64)}, {in({2, 1, 5}, DType::F64), small({1, 4, 5}, 4, DType::I32)}},
             SCORCH_DIFF_BODY(fo(F::powi(in.f(0), in.i(1)))));
  each<true>(list, "float_matmul",
             {{in({3, 4}), in({4, 5})},
              {in({2, 1, 3, 4}), in({1, 3, 4, 5})},
              {in({6, 5}, DType::F32, Domain::Normal, kT), in({5, 7}, DType::F32, Domain::Normal, kS)},
              {in({2, 8, 9}, DType::F64), in({2, 9, 3}, DType::F64)},
              {in({4, 8}, DType::F16), in({8, 4}, DType::F16)}},
             SCORCH_DIFF_BODY(fo(F::matmul(in.f(0), in.f(1)))));
  each<false>(list, "int_add", int_pairs(Domain::Normal, Domain::Normal),
              SCORCH_DIFF_BODY(io(I::add(in.i(0), in.i(1)))));
  each<false>(list, "int_sub", int_pairs(Domain::Normal, Domain::Normal),
              SCORCH_DIFF_BODY(io(I::sub(in.i(0), in.i(1)))));
  each<false>(list, "int_mul", int_pairs(Domain::Normal, Domain::Normal),
              SCORCH_DIFF_BODY(io(I::mul(in.i(0), in.i(1)))));
  each<false>(list, "int_div", int_pairs(Domain::Normal, Domain::Nonzero),
              SCORCH_DIFF_BODY(io(I::div(in.i(0), in.i(1)))));
  each<false>(list, "int_remainder", int_pairs(Domain::Normal, Domain::Nonzero),
              SCORCH_DIFF_BODY(io(I::remainder(in.i(0), in.i(1)))));
  each<false>(list, "int_powi", int_pairs(Domain::Small, Domain::Small, false),
              SCORCH_DIFF_BODY(io(I::powi(in.i(0), in.i(1)))));
  each<false>(list, "int_matmul",
              {{in({3, 4}, DType::I64), in({4, 5}, DType::I64)},
               {in({2, 3, 4}, DType::I32, Domain::Normal, kT), in({2, 4, 2}, DType::I32)}},
              SCORCH_DIFF_BODY(io(I::matmul(in.i(0), in.i(1)))));
}

void scalar_ops(DiffList& list) {
  each<true>(list, "float_add_scalar", float_singles(Domain::Normal),
             SCORCH_DIFF_BODY(fo(F::add_scalar(in.f(0), Scalar(1.75)))));
  each<true>(list, "float_sub_scalar", float_singles(Domain::Normal),
             SCORCH_DIFF_BODY(fo(F::sub_scalar(in.f(0), Scalar(-0.5)))));
  each<true>(list, "float_mul_scalar", float_singles(Domain::Normal),
             SCORCH_DIFF_BODY(fo(F::mul_scalar(in.f(0), Scalar(-3.25)))));
  each<true>(list, "float_div_scalar", float_singles(Domain::Normal),
             SCORCH_DIFF_BODY(fo(F::div_scalar(in.f(0), Scalar(0.3)))));
  each<true>(list, "float_remainder_scalar", float_singles(Domain::Normal),
             SCORCH_DIFF_BODY(fo(F::remainder_scalar(in.f(0), Scalar(-0.7)))));
  each<true>(list, "float_powf_scalar", float_singles(Domain::Positive),
             SCORCH_DIFF_BODY(fo(F::powf_scalar(in.f(0), Scalar(2.5))), fo(F::powf_scalar(in.f(0), Scalar(2.0))),
                              fo(F::powf_scalar(in.f(0), Scalar(0.5))), fo(F::powf_scalar(in.f(0), Scalar(-1.5)))));
  each<false>(list, "int_add_scalar", int_singles(Domain::Normal),
              SCORCH_DIFF_BODY(io(I::add_scalar(in.i(0), Scalar(7)))));
  each<false>(list, "int_sub_scalar", int_singles(Domain::Normal),
              SCORCH_DIFF_BODY(io(I::sub_scalar(in.i(0), Scalar(3)))));
  each<false>(list, "int_mul_scalar", int_singles(Domain::Normal),
              SCORCH_DIFF_BODY(io(I::mul_scalar(in.i(0), Scalar(-5)))));
  each<false>(list, "int_div_scalar", int_singles(Domain::Normal),
              SCORCH_DIFF_BODY(io(I::div_scalar(in.i(0), Scalar(3))), io(I::div_scalar(in.i(0), Scalar(-4))),
                               io(I::div_scalar(in.i(0), Scalar(-1)))));
  each<false>(
      list, "int_remainder_scalar", int_singles(Domain::Normal),
      SCORCH_DIFF_BODY(io(I::remainder_scalar(in.i(0), Scalar(3))), io(I::remainder_scalar(in.i(0), Scalar(-4))),
                       io(I::remainder_scalar(in.i(0), Scalar(-1)))));
  each<false>(list, "int_powi_scalar", int_singles(Domain::Small, false),
              SCORCH_DIFF_BODY(io(I::powi_scalar(in.i(0), Scalar(3))), io(I::powi_scalar(in.i(0), Scalar(0))),
                               io(I::powi_scalar(in.i(0), Scalar(-2)))));
}

void comparisons(DiffList& list) {
  Variants f = {{small({3, 4}, 2), small({3, 4}, 2)},
                {small({2, 1, 5}, 2), small({1, 4, 5}, 2, DType::F32, kT)},
                {small({4, 6}, 2, DType::F64, kS), small({4, 6}, 2, DType::F64)},
                {small({16}, 2, DType::F16), small({16}, 2, DType::F16)},
                {with_edges(in({64})), with_edges(in({64}))}};
  Variants i = {{small({3, 4}, 2, DType::I64), small({3, 4}, 2, DType::I64)},
                {small({2, 1, 5}, 2, DType::I32), small({1, 4, 5}, 2, DType::I32, kT)},
                {with_edges(in({48}, DType::I8)), with_edges(in({48}, DType::I8))}};
  Variants fs = {{small({3, 5}, 2)}, {small({4, 6}, 2, DType::F64, kT)}, {with_edges(in({64}))}};
  Variants is = {{small({3, 5}, 2, DType::I64)}, {small({4, 6}, 2, DType::I16, kS)}};
#define SCORCH_DIFF_COMPARE(name)                                                                            \
  each<false>(list, "float_" #name, f, SCORCH_DIFF_BODY(bo(F::name(in.f(0), in.f(1)))));                     \
  each<false>(list, "int_" #name, i, SCORCH_DIFF_BODY(bo(I::name(in.i(0), in.i(1)))));                       \
  each<false>(list, "float_" #name "_elem", fs, SCORCH_DIFF_BODY(bo(F::name##_elem(in.f(0), Scalar(1.0))))); \
  each<false>(list, "int_" #name "_elem", is, SCORCH_DIFF_BODY(bo(I::name##_elem(in.i(0), Scalar(-1)))));
  SCORCH_DIFF_COMPARE(equal)
  SCORCH_DIFF_COMPARE(not_equal)
  SCORCH_DIFF_COMPARE(greater)
  SCORCH_DIFF_COMPARE(greater_equal)
  SCORCH_DIFF_COMPARE(lower)
  SCORCH_DIFF_COMPARE(lower_equal)
#undef SCORCH_DIFF_COMPARE
  Variants b = {
      {mask({3, 4}), mask({3, 4})}, {mask({2, 1, 5}), mask({1, 4, 5}, kT)}, {mask({4, 6}, kS), mask({4, 6}, kE)}};
  each<false>(list, "bool_equal", b, SCORCH_DIFF_BODY(bo(Bo::equal(in.b(0), in.b(1)))));
  each<false>(list, "bool_not_equal", b, SCORCH_DIFF_BODY(bo(Bo::not_equal(in.b(0), in.b(1)))));
  each<false>(list, "bool_logical_and", b, SCORCH_DIFF_BODY(bo(Bo::logical_and(in.b(0), in.b(1)))));
  each<false>(list, "bool_logical_or", b, SCORCH_DIFF_BODY(bo(Bo::logical_or(in.b(0), in.b(1)))));
  each<false>(list, "bool_logical_xor", b, SCORCH_DIFF_BODY(bo(Bo::logical_xor(in.b(0), in.b(1)))));
  each<false>(list, "bool_logical_not", {{mask({3, 4})}, {mask({4, 6}, kT)}},
              SCORCH_DIFF_BODY(bo(Bo::logical_not(in.b(0)))));
}

void bitwise(DiffList& list) {
  Variants pairs = int_pairs(Domain::Normal, Domain::Normal);
  each<false>(list, "int_bitwise_and", pairs, SCORCH_DIFF_BODY(io(I::bitwise_and(in.i(0), in.i(1)))));
  each<false>(list, "int_bitwise_or", pairs, SCORCH_DIFF_BODY(io(I::bitwise_or(in.i(0), in.i(1)))));
  each<false>(list, "int_bitwise_xor", pairs, SCORCH_DIFF_BODY(io(I::bitwise_xor(in.i(0), in.i(1)))));
  Variants singles = int_singles(Domain::Normal);
  each<false>(list, "int_bitwise_and_scalar", singles,
              SCORCH_DIFF_BODY(io(I::bitwise_and_scalar(in.i(0), Scalar(0x5a)))));
  each<false>(list, "int_bitwise_or_scalar", singles,
              SCORCH_DIFF_BODY(io(I::bitwise_or_scalar(in.i(0), Scalar(0x21)))));
  each<false>(list, "int_bitwise_xor_scalar", singles,
              SCORCH_DIFF_BODY(io(I::bitwise_xor_scalar(in.i(0), Scalar(0x3c)))));
  each<false>(list, "int_bitwise_not", singles, SCORCH_DIFF_BODY(io(I::bitwise_not(in.i(0)))));
  Variants shifts = int_pairs(Domain::Normal, Domain::Shift);
  each<false>(list, "int_bitwise_left_shift", shifts, SCORCH_DIFF_BODY(io(I::bitwise_left_shift(in.i(0), in.i(1)))));
  each<false>(list, "int_bitwise_right_shift", shifts, SCORCH_DIFF_BODY(io(I::bitwise_right_shift(in.i(0), in.i(1)))));
  each<false>(list, "int_bitwise_left_shift_scalar", singles,
              SCORCH_DIFF_BODY(io(I::bitwise_left_shift_scalar(in.i(0), Scalar(3))),
                               io(I::bitwise_left_shift_scalar(in.i(0), Scalar(70)))));
  each<false>(list, "int_bitwise_right_shift_scalar", singles,
              SCORCH_DIFF_BODY(io(I::bitwise_right_shift_scalar(in.i(0), Scalar(2))),
                               io(I::bitwise_right_shift_scalar(in.i(0), Scalar(70)))));
}

void clamps_and_masks(DiffList& list) {
  each<true>(list, "float_clamp", float_singles(Domain::Normal),
             SCORCH_DIFF_BODY(fo(F::clamp(in.f(0), Scalar(-0.5), Scalar(0.8)))));
  each<true>(list, "float_clamp_min", float_singles(Domain::Normal),
             SCORCH_DIFF_BODY(fo(F::clamp_min(in.f(0), Scalar(-0.25)))));
  each<true>(list, "float_clamp_max", float_singles(Domain::Normal),
             SCORCH_DIFF_BODY(fo(F::clamp_max(in.f(0), Scalar(0.3)))));
  each<false>(list, "int_clamp", int_singles(Domain::Normal),
              SCORCH_DIFF_BODY(io(I::clamp(in.i(0), Scalar(-10), Scalar(20)))));
  each<false>(list, "int_clamp_min", int_singles(Domain::Normal),
              SCORCH_DIFF_BODY(io(I::clamp_min(in.i(0), Scalar(-3)))));
  each<false>(list, "int_clamp_max", int_singles(Domain::Normal),
              SCORCH_DIFF_BODY(io(I::clamp_max(in.i(0), Scalar(4)))));
  Variants fm = {
      {in({3, 4}), mask({3, 4}), in({3, 4})},
      {in({2, 4, 5}, DType::F32, Domain::Normal, kT), mask({1, 4, 5}), in({2, 4, 5}, DType::F32, Domain::Normal, kS)},
      {in({6, 3}, DType::F64), mask({6, 3}, kT), in({6, 3}, DType::F64)},
      {with_edges(in({40})), mask({40}), with_edges(in({40}))}};
  each<true>(list, "float_mask_where", fm, SCORCH_DIFF_BODY(fo(F::mask_where(in.f(0), in.b(1), in.f(2)))));
  each<true>(list, "float_mask_fill", fm, SCORCH_DIFF_BODY(fo(F::mask_fill(in.f(0), in.b(1), Scalar(-2.5)))));
  Variants im = {{in({3, 4}, DType::I64), mask({3, 4}), in({3, 4}, DType::I64)},
                 {in({2, 4, 5}, DType::I32, Domain::Normal, kT), mask({1, 4, 5}), in({2, 4, 5}, DType::I32)}};
  each<false>(list, "int_mask_where", im, SCORCH_DIFF_BODY(io(I::mask_where(in.i(0), in.b(1), in.i(2)))));
  each<false>(list, "int_mask_fill", im, SCORCH_DIFF_BODY(io(I::mask_fill(in.i(0), in.b(1), Scalar(9)))));
  Variants bm = {{mask({3, 4}), mask({3, 4}), mask({3, 4})},
                 {mask({2, 4, 5}, kT), mask({1, 4, 5}), mask({2, 4, 5}, kS)}};
  each<false>(list, "bool_mask_where", bm, SCORCH_DIFF_BODY(bo(Bo::mask_where(in.b(0), in.b(1), in.b(2)))));
  each<false>(list, "bool_mask_fill", bm, SCORCH_DIFF_BODY(bo(Bo::mask_fill(in.b(0), in.b(1), Scalar(true)))));
}

}  // namespace

void add_elementwise_cases(DiffList& list) {
  arithmetic(list);
  scalar_ops(list);
  comparisons(list);
  bitwise(list);
  clamps_and_masks(list);
}

}  // namespace scorch::differential

// Differential cases: gather/scatter_add, select/select_add, argwhere and sorting (stable, with
// ties, NaN and infinities), for float, int and bool kinds.
#include "diff_harness.h"

namespace scorch::differential {
namespace {

/// Repeated indices add several values into one element: Cpu rounds f16/bf16 after each add,
/// LibTorch once (it adds in f32), so the tolerance allows a few rounding steps.
CaseOptions accumulating() {
  CaseOptions o;
  o.tol_scale = 4;
  return o;
}

InputSpec transposed(InputSpec s) {
  s.layout = kT;
  return s;
}

void gather_scatter(DiffList& list) {
  // x [4, 5]: gather along dim 1 with [4, 3] indices, along dim 0 with [2, 5] (transposed) indices.
  Variants fv = {
      {in({4, 5}), index({4, 3}, 5), index({2, 5}, 4), in({4, 3}), in({2, 5})},
      {in({4, 5}, DType::F64, Domain::Normal, kT), index({4, 3}, 5, DType::I32), transposed(index({2, 5}, 4)),
       in({4, 3}, DType::F64), in({2, 5}, DType::F64, Domain::Normal, kS)},
      {in({4, 5}, DType::F16), index({4, 3}, 5), index({2, 5}, 4), in({4, 3}, DType::F16), in({2, 5}, DType::F16)}};
  each<true>(list, "float_gather", fv,
             SCORCH_DIFF_BODY(fo(F::gather(1, in.f(0), in.i(1))), fo(F::gather(0, in.f(0), in.i(2)))));
  each<true>(list, "float_scatter_add", fv,
             SCORCH_DIFF_BODY(fo(F::scatter_add(1, in.f(0), in.i(1), in.f(3))),
                              fo(F::scatter_add(0, F::mul_scalar(in.f(0), Scalar(2)), in.i(2), in.f(4)))),
             {}, accumulating());
  Variants iv = {
      {in({4, 5}, DType::I64), index({4, 3}, 5), index({2, 5}, 4), in({4, 3}, DType::I64), in({2, 5}, DType::I64)},
      {in({4, 5}, DType::I32, Domain::Normal, kT), index({4, 3}, 5, DType::I32), transposed(index({2, 5}, 4)),
       in({4, 3}, DType::I32), in({2, 5}, DType::I32)}};
  each<false>(list, "int_gather", iv,
              SCORCH_DIFF_BODY(io(I::gather(1, in.i(0), in.i(1))), io(I::gather(0, in.i(0), in.i(2)))));
  each<false>(list, "int_scatter_add", iv,
              SCORCH_DIFF_BODY(io(I::scatter_add(1, in.i(0), in.i(1), in.i(3))),
                               io(I::scatter_add(0, in.i(0), in.i(2), in.i(4)))));
  each<false>(
      list, "bool_gather",
      {{mask({4, 5}), index({4, 3}, 5), index({2, 5}, 4)}, {mask({4, 5}, kT), index({4, 3}, 5), index({2, 5}, 4)}},
      SCORCH_DIFF_BODY(bo(Bo::gather(1, in.b(0), in.i(1))), bo(Bo::gather(0, in.b(0), in.i(2)))));
}

void select(DiffList& list) {
  // x [5, 6]: 7 indices (repeats allowed) into dim 0 and 4 into dim 1; values shaped like the selection.
  Variants fv = {
      {in({5, 6}), index({7}, 5), index({4}, 6), in({7, 6}), in({5, 4})},
      {in({5, 6}, DType::F64, Domain::Normal, kS), index({7}, 5, DType::I32), index({4}, 6),
       in({7, 6}, DType::F64, Domain::Normal, kT), in({5, 4}, DType::F64)},
      {in({5, 6}, DType::BF16), index({7}, 5), index({4}, 6), in({7, 6}, DType::BF16), in({5, 4}, DType::BF16)}};
  each<true>(list, "float_select", fv,
             SCORCH_DIFF_BODY(fo(F::select(in.f(0), 0, in.i(1))), fo(F::select(in.f(0), 1, in.i(2)))));
  each<true>(list, "float_select_add", fv,
             SCORCH_DIFF_BODY(fo(F::select_add(in.f(0), 0, in.i(1), in.f(3))),
                              fo(F::select_add(F::add_scalar(in.f(0), Scalar(1)), 1, in.i(2), in.f(4)))),
             {}, accumulating());
  Variants iv = {{in({5, 6}, DType::I64), index({7}, 5), index({4}, 6), in({7, 6}, DType::I64), in({5, 4}, DType::I64)},
                 {in({5, 6}, DType::I16, Domain::Normal, kT), index({7}, 5), index({4}, 6, DType::I32),
                  in({7, 6}, DType::I16), in({5, 4}, DType::I16)}};
  each<false>(list, "int_select", iv,
              SCORCH_DIFF_BODY(io(I::select(in.i(0), 0, in.i(1))), io(I::select(in.i(0), 1, in.i(2)))));
  each<false>(list, "int_select_add", iv,
              SCORCH_DIFF_BODY(io(I::select_add(in.i(0), 0, in.i(1), in.i(3))),
                               io(I::select_add(in.i(0), 1, in.i(2), in.i(4)))));
  each<false>(list, "bool_select",
              {{mask({5, 6}), index({7}, 5), index({4}, 6)}, {mask({5, 6}, kS), index({7}, 5), index({4}, 6)}},
              SCORCH_DIFF_BODY(bo(Bo::select(in.b(0), 0, in.i(1))), bo(Bo::select(in.b(0), 1, in.i(2)))));
  each<false>(list, "bool_argwhere", {{mask({4, 5})}, {mask({3, 4, 2}, kT)}, {mask({9})}},
              SCORCH_DIFF_BODY(io(Bo::argwhere(in.b(0)))));
}

void sorting(DiffList& list) {
  // Ties (whole numbers in [-2, 2]), views, f64/f16, and NaN/±inf, sorted along each dim both ways.
  Variants fv = {{small({4, 9}, 2)},
                 {small({5, 6}, 2, DType::F32, kT)},
                 {in({3, 4, 5}, DType::F64, Domain::Normal, kS)},
                 {small({4, 8}, 2, DType::F16)},
                 {with_edges(in({4, 16}))}};
  Variants iv = {
      {small({4, 9}, 2, DType::I64)}, {small({5, 6}, 3, DType::I32, kT)}, {with_edges(in({3, 16}, DType::I8))}};
#define SCORCH_DIFF_SORTS(kind, K, load, wrap, variants, grad)                                              \
  each<grad>(list, #kind "_sort", variants,                                                                 \
             [](auto tag, auto& in) {                                                                       \
               using B = typename decltype(tag)::type;                                                      \
               using Ops = ::scorch::KindOps<B, K>;                                                         \
               std::vector<Value<B>> outs;                                                                  \
               for (size_t d = 0; d < in.shape(0).rank(); ++d)                                              \
                 for (bool desc : {false, true}) {                                                          \
                   auto [values, indices] = Ops::sort_with_indices(in.load(0), d, desc);                    \
                   outs.push_back(wrap(values));                                                            \
                   outs.push_back(Value<B>{std::nullopt, indices, std::nullopt});                           \
                   outs.push_back(wrap(Ops::sort(in.load(0), d, desc)));                                    \
                   outs.push_back(Value<B>{std::nullopt, Ops::argsort(in.load(0), d, desc), std::nullopt}); \
                 }                                                                                          \
               return outs;                                                                                 \
             },                                                                                             \
             {#kind "_sort", #kind "_sort_with_indices", #kind "_argsort"});
#define SCORCH_DIFF_FV(...) Value<B>{__VA_ARGS__, std::nullopt, std::nullopt}
#define SCORCH_DIFF_IV(...) \
  Value<B> { std::nullopt, __VA_ARGS__, std::nullopt }
  SCORCH_DIFF_SORTS(float, Float, f, SCORCH_DIFF_FV, fv, true)
  SCORCH_DIFF_SORTS(int, Int, i, SCORCH_DIFF_IV, iv, false)
#undef SCORCH_DIFF_FV
#undef SCORCH_DIFF_IV
#undef SCORCH_DIFF_SORTS
}

}  // namespace

void add_index_cases(DiffList& list) {
  gather_scatter(list);
  select(list);
  sorting(list);
}

}  // namespace scorch::differential

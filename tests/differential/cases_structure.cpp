// Differential cases: creation, data round trips, casts, random draws (compared by their
// statistics) and layout ops (views, slices with negative steps, slice_assign, cat, repeat, unfold).
#include "diff_harness.h"

namespace scorch::differential {
namespace {

void creation(DiffList& list) {
  each<false>(
      list, "float_from_data",
      {{in({3, 4})}, {in({2, 3}, DType::F64)}, {in({5}, DType::F16)}, {in({5}, DType::BF16)}, {with_edges(in({32}))}},
      SCORCH_DIFF_BODY(fo(F::from_data(F::into_data(in.f(0)), typename B::Device{})),
                       fo(F::to_device(in.f(0), typename B::Device{}))),
      {"float_from_data", "float_into_data", "float_to_device"});
  each<false>(list, "int_from_data",
              {{in({3, 4}, DType::I64)},
               {in({6}, DType::I32)},
               {in({6}, DType::I16)},
               {in({6}, DType::I8)},
               {in({6}, DType::U8)}},
              SCORCH_DIFF_BODY(io(I::from_data(I::into_data(in.i(0)), typename B::Device{})),
                               io(I::to_device(in.i(0), typename B::Device{}))),
              {"int_from_data", "int_into_data", "int_to_device"});
  each<false>(list, "bool_from_data", {{mask({3, 4})}, {mask({4, 5}, kT)}},
              SCORCH_DIFF_BODY(bo(Bo::from_data(Bo::into_data(in.b(0)), typename B::Device{})),
                               bo(Bo::to_device(in.b(0), typename B::Device{}))),
              {"bool_from_data", "bool_into_data", "bool_to_device"});

  CaseOptions shape_only;
  shape_only.shape_only = true;
  list.add("float_empty", {"float_empty"}, {},
           SCORCH_DIFF_BODY(fo(F::empty(Shape{3, 4}, typename B::Device{}, DType::F32)),
                            fo(F::empty(Shape{2}, typename B::Device{}, DType::F16))),
           shape_only);
  list.add("int_empty", {"int_empty"}, {},
           SCORCH_DIFF_BODY(io(I::empty(Shape{3, 4}, typename B::Device{}, DType::I32))), shape_only);
  list.add("bool_empty", {"bool_empty"}, {},
           SCORCH_DIFF_BODY(bo(Bo::empty(Shape{5}, typename B::Device{}, DType::Bool))), shape_only);
  list.add("creation",
           {"float_full", "float_zeros", "float_ones", "int_full", "int_zeros", "int_ones", "bool_full", "bool_zeros",
            "bool_ones", "int_arange"},
           {},
           SCORCH_DIFF_BODY(fo(F::full(Shape{3, 4}, Scalar(2.5), typename B::Device{}, DType::F32)),
                            fo(F::full(Shape{2, 2}, Scalar(-1), typename B::Device{}, DType::BF16)),
                            fo(F::zeros(Shape{2, 3}, typename B::Device{}, DType::F64)),
                            fo(F::ones(Shape{4}, typename B::Device{}, DType::F16)),
                            io(I::full(Shape{3}, Scalar(300), typename B::Device{}, DType::I8)),
                            io(I::full(Shape{2, 2}, Scalar(-7), typename B::Device{}, DType::I64)),
                            io(I::zeros(Shape{3}, typename B::Device{}, DType::I32)),
                            io(I::ones(Shape{3}, typename B::Device{}, DType::U8)),
                            bo(Bo::full(Shape{4}, Scalar(true), typename B::Device{}, DType::Bool)),
                            bo(Bo::zeros(Shape{2}, typename B::Device{}, DType::Bool)),
                            bo(Bo::ones(Shape{2}, typename B::Device{}, DType::Bool)),
                            io(I::arange(-3, 17, 2, typename B::Device{}, DType::I64)),
                            io(I::arange(0, 5, 1, typename B::Device{}, DType::I32))));
}

// Random draws, compared by their statistics.
void random_draws(DiffList& list) {
  CaseOptions stats;
  stats.statistical = true;
  list.add("float_random", {"float_random"}, {},
           SCORCH_DIFF_BODY(fo(F::random(Shape{40000}, Distribution::Default, typename B::Device{}, DType::F32)),
                            fo(F::random(Shape{40000}, Distribution::uniform(-2, 3), typename B::Device{}, DType::F64)),
                            fo(F::random(Shape{40000}, Distribution::normal(1, 2), typename B::Device{}, DType::F32)),
                            fo(F::random(Shape{40000}, Distribution::bernoulli(0.3), typename B::Device{}, DType::F32)),
                            fo(F::random(Shape{40000}, Distribution::normal(0, 1), typename B::Device{}, DType::BF16))),
           stats);
  // Seeds as uniform values in [0, 1) from their top 53 bits: the backends' streams differ, their spread must not.
  list.add("float_random_seed", {"float_random_seed"}, {}, SCORCH_DIFF_BODY([&] {
             std::vector<double> u(4000);
             for (double& x : u) x = static_cast<double>(F::random_seed(typename B::Device{}) >> 11) * 0x1.0p-53;
             return fo(F::from_data(TensorData(u, Shape{u.size()}), typename B::Device{}));
           }()),
           stats);
  list.add(
      "int_random", {"int_random"}, {},
      SCORCH_DIFF_BODY(io(I::random(Shape{40000}, Distribution::uniform(0, 10), typename B::Device{}, DType::I64)),
                       io(I::random(Shape{40000}, Distribution::uniform(-5, 5), typename B::Device{}, DType::I32))),
      stats);
}

void casts(DiffList& list) {
  // Every float dtype to every dtype of each kind.
  for (DType from : {DType::F64, DType::F32, DType::F16, DType::BF16}) {
    InputSpec x = in({24}, from, Domain::Normal, kS);
    x.grad = false;
    list.add("float_cast", {"float_cast", "float_into_int"}, {x, small({24}, 40, from)},
             SCORCH_DIFF_BODY(fo(F::cast(in.f(0), DType::F64)), fo(F::cast(in.f(0), DType::F32)),
                              fo(F::cast(in.f(0), DType::F16)), fo(F::cast(in.f(0), DType::BF16)),
                              io(F::into_int(F::mul_scalar(in.f(0), Scalar(30)), DType::I64)),
                              io(F::into_int(in.f(1), DType::I8)), io(F::into_int(F::abs(in.f(1)), DType::U8))));
  }
  for (DType from : {DType::I64, DType::I32, DType::I16, DType::I8, DType::U8}) {
    InputSpec x = with_edges(in({32}, from));
    list.add("int_cast", {"int_cast", "int_into_float"}, {x},
             SCORCH_DIFF_BODY(io(I::cast(in.i(0), DType::I64)), io(I::cast(in.i(0), DType::I32)),
                              io(I::cast(in.i(0), DType::I16)), io(I::cast(in.i(0), DType::I8)),
                              io(I::cast(in.i(0), DType::U8)), fo(I::into_float(in.i(0), DType::F64)),
                              fo(I::into_float(in.i(0), DType::F32)),
                              fo(I::into_float(I::clamp(in.i(0), Scalar(-1000), Scalar(1000)), DType::F16))));
  }
  list.add("bool_into", {"bool_into_int", "bool_into_float"}, {mask({5, 6}, kT)},
           SCORCH_DIFF_BODY(io(Bo::into_int(in.b(0), DType::I64)), io(Bo::into_int(in.b(0), DType::U8)),
                            fo(Bo::into_float(in.b(0), DType::F32)), fo(Bo::into_float(in.b(0), DType::BF16))));
}

/// Slices with positive, negative and empty ranges of a [6, 7] view.
SliceRanges slice_set(int which) {
  switch (which) {
    case 0: return {{1, 5, 1}, {0, 7, 2}};
    case 1: return {{0, 6, -1}, {2, 7, -2}};
    case 2: return {{3, 3, 1}, {1, 4, 1}};
    default: return {{0, 6, -3}, {6, 7, 1}};
  }
}

void layout(DiffList& list) {
  Variants fv = {{in({6, 7})},
                 {in({6, 7}, DType::F32, Domain::Normal, kT)},
                 {in({6, 7}, DType::F64, Domain::Normal, kS)},
                 {in({6, 7}, DType::F16, Domain::Normal, kE)}};
  Variants iv = {{in({6, 7}, DType::I64)}, {in({6, 7}, DType::I32, Domain::Normal, kT)}};
  Variants bv = {{mask({6, 7})}, {mask({6, 7}, kS)}};
#define SCORCH_DIFF_LAYOUT(kind, Ops, load, wrap, variants, grad)                                                      \
  each<grad>(                                                                                                          \
      list, #kind "_layout", variants,                                                                                 \
      SCORCH_DIFF_BODY(wrap(Ops::reshape(in.load(0), Shape{3, 2, 7})),                                                 \
                       wrap(Ops::permute(Ops::reshape(in.load(0), Shape{2, 3, 7}), std::vector<size_t>{2, 0, 1})),     \
                       wrap(Ops::swap_dims(in.load(0), 0, 1)), wrap(Ops::flip(in.load(0), std::vector<size_t>{0, 1})), \
                       wrap(Ops::flip(in.load(0), std::vector<size_t>{1})),                                            \
                       wrap(Ops::expand(Ops::reshape(in.load(0), Shape{1, 6, 7}), Shape{3, 6, 7})),                    \
                       wrap(Ops::slice(in.load(0), slice_set(0))), wrap(Ops::slice(in.load(0), slice_set(1))),         \
                       wrap(Ops::slice(in.load(0), slice_set(2))), wrap(Ops::slice(in.load(0), slice_set(3))),         \
                       wrap(Ops::repeat_dim(in.load(0), 1, 3)), wrap(Ops::unfold(in.load(0), 1, 3, 2)),                \
                       wrap(Ops::cat(std::vector{in.load(0), Ops::slice(in.load(0), slice_set(1))}, 1))),              \
      {#kind "_reshape", #kind "_permute", #kind "_swap_dims", #kind "_flip", #kind "_expand", #kind "_slice",         \
       #kind "_repeat_dim", #kind "_unfold", #kind "_cat"});
  SCORCH_DIFF_LAYOUT(float, F, f, fo, fv, true)
  SCORCH_DIFF_LAYOUT(int, I, i, io, iv, false)
  SCORCH_DIFF_LAYOUT(bool, Bo, b, bo, bv, false)
#undef SCORCH_DIFF_LAYOUT
  // slice_assign into a copy and into a uniquely owned tensor, with positive and negative steps.
  each<true>(list, "float_slice_assign",
             {{in({6, 7}), in({4, 4}), in({6, 3})},
              {in({6, 7}, DType::F64, Domain::Normal, kT), in({4, 4}, DType::F64, Domain::Normal, kS),
               in({6, 3}, DType::F64)}},
             SCORCH_DIFF_BODY(
                 fo(F::slice_assign(in.f(0), slice_set(0), in.f(1))),
                 fo(F::slice_assign(F::mul_scalar(in.f(0), Scalar(2)), slice_set(1), in.f(2))),
                 fo(F::slice_assign(in.f(0), slice_set(3), F::slice(in.f(2), SliceRanges{{0, 2, 1}, {0, 1, 1}})))));
  each<false>(list, "int_slice_assign", {{in({6, 7}, DType::I64), in({4, 4}, DType::I64), in({6, 3}, DType::I64)}},
              SCORCH_DIFF_BODY(io(I::slice_assign(in.i(0), slice_set(0), in.i(1))),
                               io(I::slice_assign(in.i(0), slice_set(1), in.i(2)))));
  each<false>(list, "bool_slice_assign", {{mask({6, 7}), mask({4, 4}), mask({6, 3})}},
              SCORCH_DIFF_BODY(bo(Bo::slice_assign(in.b(0), slice_set(0), in.b(1))),
                               bo(Bo::slice_assign(in.b(0), slice_set(1), in.b(2)))));
}

}  // namespace

void add_structure_cases(DiffList& list) {
  creation(list);
  random_draws(list);
  casts(list);
  layout(list);
}

}  // namespace scorch::differential

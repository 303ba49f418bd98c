// Differential cases: unary math, activations (softmax included) and reductions, for float and
// int kinds, over several shapes, views, dtypes and edge values.
#include "../registry/domains.h"
#include "scorch/gen/test_registry.h"
#include "diff_harness.h"

namespace scorch::differential {
namespace {

/// One float operand: shapes, views, dtypes, and (unless the op's domain excludes them) edge values.
Variants unary_variants(Domain d, bool edges = true) {
  Variants v = {{in({7}, DType::F32, d)},        {in({3, 5}, DType::F32, d, kT)}, {in({2, 3, 4}, DType::F32, d, kS)},
                {in({4, 6}, DType::F32, d, kE)}, {in({5, 3}, DType::F64, d)},     {in({16}, DType::F16, d)},
                {in({16}, DType::BF16, d)}};
  if (edges) v.push_back({with_edges(in({64}, DType::F32, d))});
  return v;
}

void unary(DiffList& list) {
#define SCORCH_DIFF_UNARY(name, domain) \
  each<true>(list, "float_" #name, unary_variants(domain), SCORCH_DIFF_BODY(fo(F::name(in.f(0)))));
  // Every unary op with a test attribute in op_table.txt, then the activations.
#define SCORCH_DIFF_REGISTRY_UNARY(name, domain, torch) SCORCH_DIFF_UNARY(name, diff_domain(registry::Domain::domain))
  SCORCH_UNARY_CASES(SCORCH_DIFF_REGISTRY_UNARY)
#undef SCORCH_DIFF_REGISTRY_UNARY
  // Every (x, dim) op with a test attribute, along the input's last dim.
#define SCORCH_DIFF_REGISTRY_DIM(name, domain, torch)                                            \
  each<true>(list, "float_" #name, unary_variants(diff_domain(registry::Domain::domain)),         \
             SCORCH_DIFF_BODY(fo(F::name(in.f(0), in.f(0).shape().rank() - 1))));
  SCORCH_DIM_CASES(SCORCH_DIFF_REGISTRY_DIM)
#undef SCORCH_DIFF_REGISTRY_DIM
  SCORCH_DIFF_UNARY(relu, Domain::Normal)
  SCORCH_DIFF_UNARY(gelu, Domain::Normal)
  SCORCH_DIFF_UNARY(sigmoid, Domain::Normal)
  SCORCH_DIFF_UNARY(log_sigmoid, Domain::Normal)
#undef SCORCH_DIFF_UNARY
  each<false>(list, "float_is_nan", {{with_edges(in({64}))}, {with_edges(in({6, 8}, DType::F16, Domain::Normal, kT))}},
              SCORCH_DIFF_BODY(bo(F::is_nan(in.f(0)))));
  each<false>(list, "float_is_inf", {{with_edges(in({64}))}, {with_edges(in({6, 8}, DType::F64, Domain::Normal, kS))}},
              SCORCH_DIFF_BODY(bo(F::is_inf(in.f(0)))));
  each<true>(list, "float_leaky_relu", unary_variants(Domain::Normal),
             SCORCH_DIFF_BODY(fo(F::leaky_relu(in.f(0), Scalar(0.1)))));
  each<true>(list, "float_hard_sigmoid", unary_variants(Domain::Normal),
             SCORCH_DIFF_BODY(fo(F::hard_sigmoid(in.f(0), Scalar(0.2), Scalar(0.5)))));
  Variants ints = {{in({7}, DType::I64)},
                   {in({3, 5}, DType::I32, Domain::Normal, kT)},
                   {in({12}, DType::I8, Domain::Normal, kS)},
                   {with_edges(in({48}, DType::I64))},
                   {with_edges(in({48}, DType::I16))}};
  each<false>(list, "int_abs", ints, SCORCH_DIFF_BODY(io(I::abs(in.i(0)))));
  each<false>(list, "int_neg", ints, SCORCH_DIFF_BODY(io(I::neg(in.i(0)))));
  each<false>(list, "int_sign", ints, SCORCH_DIFF_BODY(io(I::sign(in.i(0)))));
}

/// Inputs for reductions along each dim: a 3-d tensor, a transposed view, f64, f16 and edge values.
Variants reduce_variants(bool large_edges = true) {
  Domain d = Domain::Normal;
  return {{in({3, 4, 5}, DType::F32, d)},  {in({4, 6}, DType::F32, d, kT)},
          {in({3, 7}, DType::F64, d, kS)}, {in({4, 8}, DType::F16, d)},
          {in({4, 8}, DType::BF16, d)},    {with_edges(in({4, 16}, DType::F32, d), large_edges)}};
}

Variants int_reduce_variants() {
  return {{in({3, 4, 5}, DType::I64)},
          {in({4, 6}, DType::I32, Domain::Normal, kT)},
          {small({3, 7}, 3, DType::I16, kS)},
          {small({4, 8}, 2, DType::I8)}};
}

void reductions(DiffList& list) {
  // _dim forms reduce along every dim of the input in turn: one output per dim.
#define SCORCH_DIFF_REDUCE(kind, K, load, wrap, name, variants, grad)                               \
  each<grad>(list, #kind "_" #name, variants, [](auto tag, auto& in) {                              \
    using B = typename decltype(tag)::type;                                                         \
    using Ops = ::scorch::KindOps<B, K>;                                                            \
    using V = Value<B>;                                                                             \
    std::vector<V> outs;                                                                            \
    for (size_t d = 0; d < in.shape(0).rank(); ++d) outs.push_back(wrap(Ops::name(in.load(0), d))); \
    return outs;                                                                                    \
  });
#define SCORCH_DIFF_FULL(kind, K, load, wrap, name, variants, grad)                \
  each<grad>(list, #kind "_" #name, variants, [](auto tag, auto& in) {             \
    using B = typename decltype(tag)::type;                                        \
    return std::vector<Value<B>>{wrap(::scorch::KindOps<B, K>::name(in.load(0)))}; \
  });
#define SCORCH_DIFF_F(...) \
  Value<B> { __VA_ARGS__, std::nullopt, std::nullopt }
#define SCORCH_DIFF_I(...) \
  Value<B> { std::nullopt, __VA_ARGS__, std::nullopt }
#define SCORCH_DIFF_B(...) \
  Value<B> { std::nullopt, std::nullopt, __VA_ARGS__ }
  // Sums of ±1e30 with ordinary values depend on the summation order, so sums use edges without them.
  const Variants fv = reduce_variants(), sv = reduce_variants(false), iv = int_reduce_variants();
  SCORCH_DIFF_FULL(float, Float, f, SCORCH_DIFF_F, sum, sv, true)
  SCORCH_DIFF_FULL(float, Float, f, SCORCH_DIFF_F, mean, sv, true)
  SCORCH_DIFF_FULL(float, Float, f, SCORCH_DIFF_F, max, fv, true)
  SCORCH_DIFF_FULL(float, Float, f, SCORCH_DIFF_F, min, fv, true)
  SCORCH_DIFF_FULL(float, Float, f, SCORCH_DIFF_B, any, fv, false)
  SCORCH_DIFF_FULL(float, Float, f, SCORCH_DIFF_B, all, fv, false)
  SCORCH_DIFF_REDUCE(float, Float, f, SCORCH_DIFF_F, sum_dim, sv, true)
  SCORCH_DIFF_REDUCE(float, Float, f, SCORCH_DIFF_F, mean_dim, sv, true)
  SCORCH_DIFF_REDUCE(float, Float, f, SCORCH_DIFF_F, max_dim, fv, true)
  SCORCH_DIFF_REDUCE(float, Float, f, SCORCH_DIFF_F, min_dim, fv, true)
  SCORCH_DIFF_REDUCE(float, Float, f, SCORCH_DIFF_I, argmax, fv, false)
  SCORCH_DIFF_REDUCE(float, Float, f, SCORCH_DIFF_I, argmin, fv, false)
  SCORCH_DIFF_REDUCE(float, Float, f, SCORCH_DIFF_B, any_dim, fv, false)
  SCORCH_DIFF_REDUCE(float, Float, f, SCORCH_DIFF_B, all_dim, fv, false)
  SCORCH_DIFF_REDUCE(float, Float, f, SCORCH_DIFF_F, cumsum, sv, true)
  SCORCH_DIFF_REDUCE(float, Float, f, SCORCH_DIFF_F, cummin, fv, true)
  SCORCH_DIFF_REDUCE(float, Float, f, SCORCH_DIFF_F, cummax, fv, true)
  SCORCH_DIFF_REDUCE(float, Float, f, SCORCH_DIFF_F, softmax, sv, true)
  SCORCH_DIFF_REDUCE(float, Float, f, SCORCH_DIFF_F, log_softmax, sv, true)
  // Products of values near 1 stay in range; zeros test the gradient's special case.
  const Variants pv = {{in({3, 4, 5}, DType::F32, Domain::Unit)},
                       {in({4, 6}, DType::F64, Domain::AboveOne, kT)},
                       {with_edges(in({4, 16}), false)}};
  SCORCH_DIFF_FULL(float, Float, f, SCORCH_DIFF_F, prod, pv, true)
  SCORCH_DIFF_REDUCE(float, Float, f, SCORCH_DIFF_F, prod_dim, pv, true)
  SCORCH_DIFF_REDUCE(float, Float, f, SCORCH_DIFF_F, cumprod, pv, true)
  SCORCH_DIFF_FULL(int, Int, i, SCORCH_DIFF_I, sum, iv, false)
  SCORCH_DIFF_FULL(int, Int, i, SCORCH_DIFF_I, mean, iv, false)
  SCORCH_DIFF_FULL(int, Int, i, SCORCH_DIFF_I, prod, iv, false)
  SCORCH_DIFF_FULL(int, Int, i, SCORCH_DIFF_I, max, iv, false)
  SCORCH_DIFF_FULL(int, Int, i, SCORCH_DIFF_I, min, iv, false)
  SCORCH_DIFF_FULL(int, Int, i, SCORCH_DIFF_B, any, iv, false)
  SCORCH_DIFF_FULL(int, Int, i, SCORCH_DIFF_B, all, iv, false)
  SCORCH_DIFF_REDUCE(int, Int, i, SCORCH_DIFF_I, sum_dim, iv, false)
  SCORCH_DIFF_REDUCE(int, Int, i, SCORCH_DIFF_I, mean_dim, iv, false)
  SCORCH_DIFF_REDUCE(int, Int, i, SCORCH_DIFF_I, prod_dim, iv, false)
  SCORCH_DIFF_REDUCE(int, Int, i, SCORCH_DIFF_I, max_dim, iv, false)
  SCORCH_DIFF_REDUCE(int, Int, i, SCORCH_DIFF_I, min_dim, iv, false)
  SCORCH_DIFF_REDUCE(int, Int, i, SCORCH_DIFF_I, argmax, iv, false)
  SCORCH_DIFF_REDUCE(int, Int, i, SCORCH_DIFF_I, argmin, iv, false)
  SCORCH_DIFF_REDUCE(int, Int, i, SCORCH_DIFF_B, any_dim, iv, false)
  SCORCH_DIFF_REDUCE(int, Int, i, SCORCH_DIFF_B, all_dim, iv, false)
  SCORCH_DIFF_REDUCE(int, Int, i, SCORCH_DIFF_I, cumsum, iv, false)
  SCORCH_DIFF_REDUCE(int, Int, i, SCORCH_DIFF_I, cumprod, iv, false)
  SCORCH_DIFF_REDUCE(int, Int, i, SCORCH_DIFF_I, cummin, iv, false)
  SCORCH_DIFF_REDUCE(int, Int, i, SCORCH_DIFF_I, cummax, iv, false)
  const Variants bv = {{mask({3, 4, 5})}, {mask({4, 6}, kT)}, {mask({3, 7}, kS)}};
  SCORCH_DIFF_FULL(bool, Bool, b, SCORCH_DIFF_B, any, bv, false)
  SCORCH_DIFF_FULL(bool, Bool, b, SCORCH_DIFF_B, all, bv, false)
  SCORCH_DIFF_REDUCE(bool, Bool, b, SCORCH_DIFF_B, any_dim, bv, false)
  SCORCH_DIFF_REDUCE(bool, Bool, b, SCORCH_DIFF_B, all_dim, bv, false)
#undef SCORCH_DIFF_REDUCE
#undef SCORCH_DIFF_FULL
}

/// Reductions that return values and indices together.
void indexed_reductions(DiffList& list) {
  auto both = [](auto tag, auto& in, bool max) {
    using B = typename decltype(tag)::type;
    std::vector<Value<B>> outs;
    for (size_t d = 0; d < in.shape(0).rank(); ++d) {
      auto [v, i] = max ? KindOps<B, Float>::max_dim_with_indices(in.f(0), d)
                        : KindOps<B, Float>::min_dim_with_indices(in.f(0), d);
      outs.push_back(SCORCH_DIFF_F(v));
      outs.push_back(SCORCH_DIFF_I(i));
    }
    return outs;
  };
  each<true>(list, "float_max_dim_with_indices", reduce_variants(),
             [both](auto tag, auto& in) { return both(tag, in, true); });
  each<true>(list, "float_min_dim_with_indices", reduce_variants(),
             [both](auto tag, auto& in) { return both(tag, in, false); });
  auto ints = [](auto tag, auto& in, bool max) {
    using B = typename decltype(tag)::type;
    std::vector<Value<B>> outs;
    for (size_t d = 0; d < in.shape(0).rank(); ++d) {
      auto [v, i] =
          max ? KindOps<B, Int>::max_dim_with_indices(in.i(0), d) : KindOps<B, Int>::min_dim_with_indices(in.i(0), d);
      outs.push_back(SCORCH_DIFF_I(v));
      outs.push_back(SCORCH_DIFF_I(i));
    }
    return outs;
  };
  each<false>(list, "int_max_dim_with_indices", int_reduce_variants(),
              [ints](auto tag, auto& in) { return ints(tag, in, true); });
  each<false>(list, "int_min_dim_with_indices", int_reduce_variants(),
              [ints](auto tag, auto& in) { return ints(tag, in, false); });
#undef SCORCH_DIFF_F
#undef SCORCH_DIFF_I
#undef SCORCH_DIFF_B
}

}  // namespace

void add_math_cases(DiffList& list) {
  unary(list);
  reductions(list);
  indexed_reductions(list);
}

}  // namespace scorch::differential

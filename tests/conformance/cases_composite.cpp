// Conformance cases: Tensor methods composed from backend ops (triangles, var, pad, one_hot, ...).
#include "harness.h"

namespace scorch::conformance {

template <class B> void add_composite_cases(CaseList<B>& list) {
  using T = Tensor<B, 2>;
  list.add("triangles", {"float_mask_fill"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    return outs(x.triu(0), x.triu(1), x.tril(0), x.tril(-1), T::eye(3));
  });
  list.add("var_family", {"float_mean_dim"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    auto [var, mean] = x.var_mean(1);
    return outs(var, x.var_bias(1), mean);
  });
  list.add("pad_modes", {"float_cat"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    return outs(x.pad({{1, 2}}, PadMode::constant(0.5)), x.pad({{1, 1}, {1, 0}}, PadMode::edge()),
                x.pad({{2, 1}}, PadMode::reflect()));
  });
  list.add("one_hot", {"int_equal"}, [](const Inputs<B>& in) { return outs(I<1>(in, 0).one_hot(4)); });
  list.add("cross_fmod_hypot", {"float_remainder"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0), y = F<2>(in, 1);
    return outs(x.cross(y, 1), (x * 4.0).fmod(y), x.hypot(y));
  });
  list.add("roll_chunk_stack", {"float_cat"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    auto chunks = x.chunk(2, 1);
    return outs(x.roll_dim(1, 1), x.roll_dim(-1, 0), chunks[0], chunks[1], T::stack({x, x * 2.0}, 1));
  });
  list.add("max_min_pair", {"float_greater", "float_lower"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0), y = F<2>(in, 1);
    return outs(x.max_pair(y), x.min_pair(y));
  });
  list.add("squeeze_flatten", {"float_reshape"}, [](const Inputs<B>& in) {
    auto x = F<3>(in, 0);
    return outs(x.squeeze(1), x.template unsqueeze<4>(), x.template flatten<2>(0, 1), x.movedim(0, 2));
  });
  list.add("dot_sum_dims", {"float_sum_dim"}, [](const Inputs<B>& in) {
    return outs(F<1>(in, 0).dot(F<1>(in, 1)), F<3>(in, 2).sum_dims({0, 2}));
  });
  list.add("is_close", {"float_abs"}, [](const Inputs<B>& in) { return outs(F<1>(in, 0).is_close(F<1>(in, 1))); });
  list.add("deg_rad", {"float_mul_scalar"}, [](const Inputs<B>& in) {
    auto x = F<1>(in, 0);
    return outs(x.deg2rad(), x.rad2deg());
  });
}

SCORCH_CONFORMANCE_INSTANTIATE(add_composite_cases);

}  // namespace scorch::conformance

// Conformance cases: reshape, permute, flip, expand, slice, slice_assign, cat, repeat, unfold.
#include "harness.h"

namespace scorch::conformance {
namespace {
std::vector<std::string> layout_covers(const std::string& k) {
  return {k + "_reshape", k + "_permute", k + "_swap_dims", k + "_flip", k + "_slice", k + "_unfold", k + "_expand"};
}
// Replaces rows 1.. and columns 1..2 of a [3, 4] tensor with a [2, 2] block.
template <class T> T assign_block(const T& x, const T& v) { return x.slice_assign({Slice(1, 3), Slice(1, 3)}, v); }
template <class T> std::vector<TensorData> layout_outs(const T& x) {
  return outs(x.template reshape<2>({6, 4}), x.permute({2, 0, 1}), x.swap_dims(0, 2), x.flip({1}),
              x.slice({Slice(), Slice(1, 3), Slice::all(2)}), x.unfold(2, 2, 1),
              x.slice({Slice(), Slice(0, 1)}).template expand<3>({2, 3, 4}));
}
}  // namespace

template <class B> void add_layout_cases(CaseList<B>& list) {
  list.add("layout_float",
           {"float_reshape", "float_permute", "float_swap_dims", "float_flip", "float_slice", "float_unfold"},
           [](const Inputs<B>& in) {
             auto x = F<3>(in, 0);
             return outs(x.template reshape<2>({6, 4}), x.permute({2, 0, 1}), x.swap_dims(0, 2), x.flip({1}),
                         x.flip({0, 2}), x.slice({Slice(), Slice(1, 3), Slice::all(2)}),
                         x.slice({Slice(), Slice(), Slice(1)}), x.unfold(2, 2, 1));
           });
  list.add("expand_float", {"float_expand"}, [](const Inputs<B>& in) {
    return outs(F<2>(in, 0).template expand<3>({2, -1, 4}));
  });
  list.add("slice_reverse", {"float_slice"}, [](const Inputs<B>& in) {
    auto x = F<1>(in, 0);
    return outs(x.slice({Slice::all(-2)}), x.slice({Slice(1, 4, -1)}));
  });
  list.add("slice_assign_float", {"float_slice_assign"},
           [](const Inputs<B>& in) { return outs(assign_block(F<2>(in, 0), F<2>(in, 1))); });
  list.add("cat_repeat_float", {"float_cat", "float_repeat_dim"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    return outs(Tensor<B, 2>::cat({x, F<2>(in, 1)}, 0), x.repeat_dim(1, 3), x.repeat({2, 1}));
  });
  list.add("layout_int", layout_covers("int"), [](const Inputs<B>& in) { return layout_outs(I<3>(in, 0)); });
  list.add("cat_repeat_int", {"int_cat", "int_repeat_dim"}, [](const Inputs<B>& in) {
    auto x = I<2>(in, 0);
    return outs(Tensor<B, 2, Int>::cat({x, I<2>(in, 1)}, 0), x.repeat_dim(1, 3));
  });
  list.add("slice_assign_int", {"int_slice_assign"},
           [](const Inputs<B>& in) { return outs(assign_block(I<2>(in, 0), I<2>(in, 1))); });
  list.add("layout_bool", layout_covers("bool"), [](const Inputs<B>& in) { return layout_outs(Bo<3>(in, 0)); });
  list.add("cat_repeat_bool", {"bool_cat", "bool_repeat_dim"}, [](const Inputs<B>& in) {
    auto x = Bo<2>(in, 0);
    return outs(Tensor<B, 2, Bool>::cat({x, Bo<2>(in, 1)}, 0), x.repeat_dim(1, 3));
  });
  list.add("slice_assign_bool", {"bool_slice_assign"},
           [](const Inputs<B>& in) { return outs(assign_block(Bo<2>(in, 0), Bo<2>(in, 1))); });
}

SCORCH_CONFORMANCE_INSTANTIATE(add_layout_cases);

}  // namespace scorch::conformance

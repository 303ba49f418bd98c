// Gradient cases: reshape, permute, flip, expand, slice, slice_assign, cat, repeat, unfold, gather/scatter, select,
// sort.
#include <vector>

#include "grad_harness.h"

namespace scorch::gradcheck {
namespace {
using T1 = Tensor<AD, 1>;
using T2 = Tensor<AD, 2>;

void add_view_cases(std::vector<GradCase>& cases) {
  cases.push_back({"reshape", {"float_reshape", "float_swap_dims"}, [](const GradInputs& in) {
                     return flat(in.f<3>(0).reshape<2>({4, 6}).swap_dims(0, 1));
                   }});
  cases.push_back({"permute", {"float_permute"}, [](const GradInputs& in) {
                     return flat(in.f<3>(0).permute({2, 0, 1}));
                   }});
  cases.push_back(
      {"swap_dims", {"float_swap_dims"}, [](const GradInputs& in) { return flat(in.f<3>(0).swap_dims(0, 2)); }});
  cases.push_back({"flip", {"float_flip"}, [](const GradInputs& in) {
                     auto x = in.f<3>(0);
                     return join({flat(x.flip({0, 2})), flat(x.flip({1}))});
                   }});
  // [3, 1] → [2, 3, 4] (a new leading dim and a grown one) and [1, 3] → [4, 3]: the gradient sums.
  cases.push_back({"expand", {"float_expand"}, [](const GradInputs& in) {
                     return flat(in.f<2>(0).expand<3>({2, -1, 4}));
                   }});
  cases.push_back({"expand_same_rank", {"float_expand"}, [](const GradInputs& in) {
                     return flat(in.f<2>(0).expand<2>({4, 3}));
                   }});
}

void add_slice_cases(std::vector<GradCase>& cases) {
  // x[:, 1:3, ::2] and x[1:, :, 2:3].
  cases.push_back({"slice", {"float_slice"}, [](const GradInputs& in) {
                     auto x = in.f<3>(0);
                     return join({flat(x.slice({Slice(), Slice(1, 3), Slice::all(2)})),
                                  flat(x.slice({Slice::from(1), Slice(), Slice(2)}))});
                   }});
  // Negative steps: x.flip(0)[::2] and x[1:4].flip(0).
  cases.push_back({"slice_reverse", {"float_slice"}, [](const GradInputs& in) {
                     auto x = in.f<1>(0);
                     return join({x.slice({Slice::all(-2)}), x.slice({Slice(1, 4, -1)})});
                   }});
  // Rows 1..2, columns 1..2 of x [3, 4] replaced by v [2, 2].
  cases.push_back({"slice_assign", {"float_slice_assign"}, [](const GradInputs& in) {
                     return flat(in.f<2>(0).slice_assign({Slice(1, 3), Slice(1, 3)}, in.f<2>(1)));
                   }});
}

void add_combine_cases(std::vector<GradCase>& cases) {
  // x [2, 3], y [1, 3], z [2, 2]: cat along dim 0, and along dim 1 with x used twice.
  cases.push_back({"cat", {"float_cat"}, [](const GradInputs& in) {
                     auto x = in.f<2>(0), y = in.f<2>(1), z = in.f<2>(2);
                     return join({flat(T2::cat({x, y}, 0)), flat(T2::cat({x, z, x}, 1))});
                   }});
  cases.push_back({"repeat_dim", {"float_repeat_dim"}, [](const GradInputs& in) {
                     auto x = in.f<2>(0);
                     return join({flat(x.repeat_dim(1, 3)), flat(x.repeat({2, 1}))});
                   }});
  // Overlapping windows (size 3 step 1, size 2 step 1) and disjoint ones (size 2 step 2).
  cases.push_back({"unfold", {"float_unfold"}, [](const GradInputs& in) {
                     auto x = in.f<3>(0);
                     return join({flat(x.unfold(2, 3, 1)), flat(x.unfold(1, 2, 1)), flat(x.unfold(2, 2, 2))});
                   }});
}

// Index inputs repeat positions, so gradients accumulate.
void add_index_cases(std::vector<GradCase>& cases) {
  // x [3, 4], indices [2, 4].
  cases.push_back(
      {"gather", {"float_gather"}, [](const GradInputs& in) { return flat(in.f<2>(0).gather(0, in.i<2>(1))); }});
  // x [3, 4], values [2, 4], indices [2, 4].
  cases.push_back({"scatter_add", {"float_scatter_add"}, [](const GradInputs& in) {
                     return flat(in.f<2>(0).scatter(0, in.i<2>(2), in.f<2>(1)));
                   }});
  // x [3, 4], indices [3] along dim 1.
  cases.push_back(
      {"select", {"float_select"}, [](const GradInputs& in) { return flat(in.f<2>(0).select(1, in.i<1>(1))); }});
  // x [3, 4], values [3, 3], indices [3] along dim 1.
  cases.push_back({"select_add", {"float_select_add"}, [](const GradInputs& in) {
                     return flat(in.f<2>(0).select_assign(1, in.i<1>(2), in.f<2>(1)));
                   }});
}

// Inputs without ties.
void add_sort_cases(std::vector<GradCase>& cases) {
  cases.push_back({"sort", {"float_sort"}, [](const GradInputs& in) {
                     auto x = in.f<2>(0);
                     return join({flat(x.sort(1)), flat(x.sort_descending(0))});
                   }});
  cases.push_back({"sort_with_indices", {"float_sort_with_indices"}, [](const GradInputs& in) {
                     auto x = in.f<2>(0);
                     return join({flat(x.sort_with_indices(1).first), flat(x.topk(2, 1))});
                   }});
}
}  // namespace

void add_layout_grad_cases(std::vector<GradCase>& cases) {
  add_view_cases(cases);
  add_slice_cases(cases);
  add_combine_cases(cases);
  add_index_cases(cases);
  add_sort_cases(cases);
}

}  // namespace scorch::gradcheck

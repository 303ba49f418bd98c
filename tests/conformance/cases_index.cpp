// Conformance cases: gather/scatter, select/select_add, argwhere, mask_select and sorting.
#include "harness.h"

namespace scorch::conformance {

template <class B> void add_index_cases(CaseList<B>& list) {
  list.add("gather_scatter_float", {"float_gather", "float_scatter_add"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    auto i = I<2>(in, 1);
    return outs(x.gather(0, i), x.scatter(0, i, F<2>(in, 2)));
  });
  list.add("gather_int", {"int_gather"}, [](const Inputs<B>& in) { return outs(I<2>(in, 0).gather(1, I<2>(in, 1))); });
  list.add("scatter_int", {"int_scatter_add"},
           [](const Inputs<B>& in) { return outs(I<2>(in, 0).scatter(1, I<2>(in, 1), I<2>(in, 2))); });
  list.add("select_float", {"float_select", "float_select_add"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    auto i = I<1>(in, 1);
    return outs(x.select(1, i), x.select_assign(1, i, F<2>(in, 2)));
  });
  list.add("select_int", {"int_select", "int_select_add"}, [](const Inputs<B>& in) {
    auto x = I<2>(in, 0);
    auto i = I<1>(in, 1);
    return outs(x.select(0, i), x.select_assign(1, i, I<2>(in, 2)));
  });
  list.add("index_bool", {"bool_gather", "bool_select"}, [](const Inputs<B>& in) {
    auto x = Bo<2>(in, 0);
    return outs(x.gather(1, I<2>(in, 1)), x.select(0, I<1>(in, 2)));
  });
  list.add("argwhere", {"bool_argwhere"}, [](const Inputs<B>& in) {
    auto m = Bo<2>(in, 0);
    auto nz = m.nonzero();
    return outs(m.argwhere(), nz[0], nz[1]);
  });
  list.add("mask_select", {"bool_argwhere", "float_select"},
           [](const Inputs<B>& in) { return outs(F<2>(in, 0).mask_select(Bo<2>(in, 1))); });
  list.add("sort_float", {"float_sort", "float_sort_with_indices", "float_argsort"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    auto [values, indices] = x.sort_with_indices(1);
    return outs(values, indices, x.sort_descending(1), x.argsort(0));
  });
  list.add("sort_int", {"int_sort", "int_sort_with_indices", "int_argsort"}, [](const Inputs<B>& in) {
    auto x = I<2>(in, 0);
    return outs(x.sort(1), x.sort_with_indices(1).second, x.sort_descending(1), x.argsort_descending(1));
  });
  list.add("topk", {"float_sort_with_indices"}, [](const Inputs<B>& in) {
    auto [values, indices] = F<2>(in, 0).topk_with_indices(2, 1);
    return outs(values, indices);
  });
}

SCORCH_CONFORMANCE_INSTANTIATE(add_index_cases);

}  // namespace scorch::conformance

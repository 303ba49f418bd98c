// Conformance cases: creation, data round trips and casts.
#include "harness.h"

namespace scorch::conformance {

template <class B> void add_creation_cases(CaseList<B>& list) {
  using FT2 = Tensor<B, 2>;
  typename B::Device device{};
  list.add("from_data_float", {"float_from_data", "float_into_data", "float_to_device"},
           [device](const Inputs<B>& in) { return outs(F<2>(in, 0).to_device(device)); });
  list.add("from_data_int", {"int_from_data", "int_into_data", "int_to_device"},
           [device](const Inputs<B>& in) { return outs(I<2>(in, 0).to_device(device)); });
  list.add("from_data_bool", {"bool_from_data", "bool_into_data", "bool_to_device"},
           [device](const Inputs<B>& in) { return outs(Bo<2>(in, 0).to_device(device)); });
  list.add("full_float", {"float_full"}, [](const Inputs<B>&) { return outs(FT2::full({2, 3}, 2.5)); });
  list.add("full_int", {"int_full"}, [](const Inputs<B>&) { return outs(Tensor<B, 1, Int>::full({3}, 7)); });
  list.add("full_bool", {"bool_full"}, [](const Inputs<B>&) { return outs(Tensor<B, 2, Bool>::full({2, 2}, true)); });
  list.add("zeros_ones", {"float_zeros", "float_ones", "int_zeros", "int_ones", "bool_zeros", "bool_ones"},
           [](const Inputs<B>&) {
             using KF = KindOps<B, Float>;
             using KI = KindOps<B, Int>;
             using KB = KindOps<B, Bool>;
             typename B::Device d{};
             return outs(FT2(KF::zeros(Shape{2, 2}, d, DType::F32)), Tensor<B, 1>(KF::ones(Shape{3}, d, DType::F32)),
                         Tensor<B, 1, Int>(KI::zeros(Shape{2}, d, DType::I64)),
                         Tensor<B, 1, Int>(KI::ones(Shape{2}, d, DType::I64)),
                         Tensor<B, 1, Bool>(KB::zeros(Shape{2}, d, DType::Bool)),
                         Tensor<B, 1, Bool>(KB::ones(Shape{2}, d, DType::Bool)));
           });
  list.add("empty_shapes", {"float_empty", "int_empty", "bool_empty"}, [](const Inputs<B>&) {
    return outs(FT2::empty({2, 3}).zeros_like(), Tensor<B, 1, Int>::empty({4}).zeros_like(),
                Tensor<B, 2, Bool>::empty({1, 2}).zeros_like());
  });
  list.add("random_degenerate", {"float_random", "int_random"}, [](const Inputs<B>&) {
    return outs(FT2::random({3, 2}, Distribution::uniform(2.0, 2.0)),
                Tensor<B, 1>::random({4}, Distribution::bernoulli(1.0)),
                Tensor<B, 1, Int>::random({3}, Distribution::uniform(3.0, 3.0)));
  });
  list.add("cast_float", {"float_cast"}, [](const Inputs<B>& in) {
    auto x = F<1>(in, 0);
    return outs(x.cast(DType::F64), x.cast(DType::F16), x.cast(DType::BF16));
  });
  list.add("cast_int", {"int_cast"}, [](const Inputs<B>& in) {
    auto x = I<1>(in, 0);
    return outs(x.cast(DType::I32), x.cast(DType::I16), x.cast(DType::I8));
  });
  list.add("float_into_int", {"float_into_int"}, [](const Inputs<B>& in) { return outs(F<1>(in, 0).int_()); });
  list.add("int_into_float", {"int_into_float"}, [](const Inputs<B>& in) { return outs(I<1>(in, 0).float_()); });
  list.add("bool_into", {"bool_into_int", "bool_into_float"}, [](const Inputs<B>& in) {
    auto x = Bo<1>(in, 0);
    return outs(x.int_(), x.float_());
  });
  list.add("arange", {"int_arange"}, [](const Inputs<B>&) {
    return outs(Tensor<B, 1, Int>::arange(2, 9), Tensor<B, 1, Int>::arange_step(1, 10, 3));
  });
}

SCORCH_CONFORMANCE_INSTANTIATE(add_creation_cases);

}  // namespace scorch::conformance

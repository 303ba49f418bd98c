// The book's tensors chapter (docs/book/03-tensors.md): kinds, ranks, creation, broadcasting, slicing, reductions,
// casts, in-place reuse and errors, on the Cpu backend.
#include <iostream>

#include <scorch/scorch.hpp>
#include <scorch/core/cli.h>

using namespace scorch;

int main(int argc, char** argv) {
  scorch::cli::answer_help(
      argc, argv, "usage: tensors\nThe book's tensor chapter: creation, arithmetic and layout of tensors. No options.");
  // [book:create]
  using B = Cpu;
  B::seed(7);  // every random tensor below is the same on each run and for any thread count
  auto a = Tensor<B, 2>::from_data({{1., 2., 3.}, {4., 5., 6.}});  // Float, rank 2, f32
  auto ids = Tensor<B, 1, Int>::arange(0, 3);                      // Int: [0, 1, 2], i64
  auto noise = Tensor<B, 2>::random({2, 3}, Distribution::normal(0, 1));
  auto zeros = Tensor<B, 3>::zeros({4, 2, 3});
  std::cout << "a " << a.shape().to_string() << ", ids " << ids.to_data() << ", noise " << noise.shape().to_string()
            << ", zeros " << zeros.shape().to_string() << "\n";
  // [/book:create]

  // [book:broadcast]
  auto row = Tensor<B, 2>::from_data({{10., 20., 30.}});  // [1, 3]: size-1 dims broadcast
  auto shifted = a + row;                                 // [2, 3]
  auto scaled = shifted * 0.5 - 1.0;                      // scalars on either side
  std::cout << "scaled " << scaled.to_data() << "\n";
  // [/book:broadcast]

  // [book:layout]
  auto flat = a.reshape<1>({-1});                         // [6]
  auto columns = a.transpose();                           // [3, 2], a view
  auto first_row = a.slice({Slice(0, 1), Slice::all()});  // [1, 3]
  auto batch = a.unsqueeze_dim<3>(0);                     // [1, 2, 3]
  std::cout << flat.shape().to_string() << " " << columns.shape().to_string() << " " << first_row.to_data() << " "
            << batch.shape().to_string() << "\n";
  // [/book:layout]

  // [book:reduce]
  auto total = a.sum();              // [1]
  auto per_row = a.sum_dim(1);       // [2, 1]: the reduced dim stays, with size 1
  auto best = a.argmax(1);           // Int [2, 1]
  auto product = a.matmul(columns);  // [2, 2]
  std::cout << "sum " << total.into_scalar().to_double() << ", rows " << per_row.to_data() << ", argmax "
            << best.to_data() << ", a·aᵀ " << product.to_data() << "\n";
  // [/book:reduce]

  // [book:kinds]
  auto big = a.greater_elem(2.5);        // Bool [2, 3]
  auto clipped = a.mask_fill(big, 2.5);  // where big, 2.5
  auto counts = big.int_().sum();        // Int: how many were greater
  auto halves = a.cast(DType::F16);      // still Float, now f16
  std::cout << "clipped " << clipped.to_data() << ", " << counts.into_scalar().to_int() << " above 2.5, "
            << dtype_name(halves.dtype()) << "\n";
  // [/book:kinds]

  // [book:vision]
  auto boxes = Tensor<B, 2>::from_data({{0., 0., 10., 10.}, {1., 1., 11., 11.}, {20., 20., 30., 30.}});
  auto scores = Tensor<B, 1>::from_data({0.9, 0.8, 0.7});
  auto kept = vision::nms(boxes, scores, 0.5);  // Int [2]: boxes 0 and 2 (box 1 overlaps box 0, IoU 0.68)
  std::cout << "kept " << kept.to_data() << "\n";
  // [/book:vision]

  // [book:einsum]
  auto q = Tensor<B, 4>::random({2, 4, 5, 8}, Distribution::normal(0, 1));  // [batch, heads, tokens, dim]
  auto k = Tensor<B, 4>::random({2, 4, 6, 8}, Distribution::normal(0, 1));
  auto attention = einsum<"bhqd,bhkd->bhqk">(q, k);            // Tensor<B, 4> [2, 4, 5, 6]: rank checked when compiling
  auto trace = einsum<1>("ii->", Tensor<B, 2>::ones({3, 3}));  // equation read at run time; a scalar is [1]
  std::cout << "attention " << attention.shape().to_string() << ", trace " << trace.into_scalar().to_double() << "\n";
  // [/book:einsum]

  // [book:errors]
  try {
    auto bad = a.matmul(a);  // [2, 3] · [2, 3]
    std::cout << bad << "\n";
  } catch (const Error& e) { std::cout << e.what() << "\n"; }
  // [/book:errors]
}

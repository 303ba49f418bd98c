// Named dimensions (Burn's named-tensor example): dims carry names the compiler checks, so a matmul or an
// elementwise op between tensors whose dims do not line up is a compile error, not a wrong result.
#include <iostream>

#include <scorch/scorch.hpp>
#include <scorch/tensor/named.h>
#include <scorch/core/cli.h>

using namespace scorch;

// [book:named]
SCORCH_NAMED_DIM(Batch);
SCORCH_NAMED_DIM(SeqLength);
SCORCH_NAMED_DIM(DModel);

int main(int argc, char** argv) {
  scorch::cli::answer_help(
      argc, argv,
      "usage: named-tensor\nNamed dimensions that the compiler checks: prints tensors with named dims. No options.");
  using B = Cpu;
  const size_t batch_size = 4, seq_length = 256, d_model = 64;
  auto weights = NamedTensor<B, Batch, DModel, DModel>::random({1, d_model, d_model}, Distribution::uniform(-1, 1));
  auto input =
      NamedTensor<B, Batch, SeqLength, DModel>::random({batch_size, seq_length, d_model}, Distribution::uniform(-1, 1));

  // Doesn't compile: DModel (weights' last dim) against SeqLength (input's rows).
  //   auto wrong = weights.matmul(input);
  auto output = input.matmul(weights);  // [Batch, SeqLength, DModel]: the weights' batch of 1 broadcasts
  // Doesn't compile: elementwise ops need the same names in the same order.
  //   auto wrong = output * weights;
  auto transposed = output.swap_dims<SeqLength, DModel>();  // [Batch, DModel, SeqLength]
  // Doesn't compile: no dim of input is called Heads (not declared), and a dim named twice has no single index.
  //   input.size<Heads>();   weights.size<DModel>();

  std::cout << "weights    => " << weights << "\ninput      => " << input << "\noutput     => " << output
            << "\ntransposed => " << transposed << "\nSeqLength of transposed is dim "
            << decltype(transposed)::index_of<SeqLength>() << ", of size " << transposed.size<SeqLength>() << "\n";
}
// [/book:named]

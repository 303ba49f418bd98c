// A process that saves one large record (N floats) to FILE with NamedMpkFileRecorder and exits;
// test_interrupted_save.cpp kills it mid-write to check that the old FILE survives.
#include <cstdlib>
#include <iostream>

#include <scorch/scorch.hpp>
#include <scorch/core/cli.h>

int main(int argc, char** argv) {
  scorch::cli::answer_help(
      argc, argv,
      "usage: scorch_save_victim FILE N_FLOATS\nSaves one record of N_FLOATS floats to FILE and exits "
      "(the interrupted-save test kills it mid-write).");
  if (argc != 3) {
    std::cerr << "usage: scorch_save_victim FILE N_FLOATS\n";
    return 2;
  }
  size_t n = std::strtoull(argv[2], nullptr, 10);
  scorch::Record big = scorch::Record::map().set(
      "weights", scorch::Record(scorch::TensorData::full(scorch::Shape{n}, scorch::Scalar(7.0), scorch::DType::F32)));
  scorch::NamedMpkFileRecorder<>{}.record(big, argv[1]);
  return 0;
}

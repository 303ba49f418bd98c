// Writes the files Scorch contributes to the safetensors interop check (run by `make fixtures`):
// scorch_net.safetensors and scorch_net.mpk (formula_net's weights) and scorch_net.json (an input
// and Scorch's output). fixtures/gen_safetensors.py verify loads them with Python's libraries.
#include <iostream>

#include "module/test_models.h"
#include <scorch/core/cli.h>

int main(int argc, char** argv) {
  scorch::cli::answer_help(
      argc, argv,
      "usage: scorch_module_fixture_writer DIR\nWrites scorch_net.safetensors, scorch_net.mpk and scorch_net.json "
      "into DIR for the safetensors interop check (make fixtures).");
  using namespace scorch;
  using namespace scorch::testing;
  if (argc != 2) {
    std::cerr << "usage: scorch_module_fixture_writer DIR\n";
    return 2;
  }
  std::string dir = argv[1];
  auto net = formula_net<Cpu>();
  net.save_file(dir + "/scorch_net", SafetensorsFileRecorder<>{});
  net.save_file(dir + "/scorch_net", NamedMpkFileRecorder<>{});
  auto x = formula_tensor<Cpu, 4>({3, 2, 6, 6}, 7);
  Record io = Record::map().set("x", Record(x.to_data())).set("y", Record(net.forward(x).to_data()));
  formats::atomic_write(dir + "/scorch_net.json", [&](formats::ByteSink& sink) {
    std::string text = formats::to_json_text(io, false);
    sink.write(text.data(), text.size());
  });
  std::cout << "wrote " << dir << "/scorch_net.{safetensors,mpk,json}\n";
}

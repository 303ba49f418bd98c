// scorch-onnx: writes a model's C++ module and weights record (codegen.h); where the compiled path is built
// (scorch/graph), also benches, profiles and runs a model compiled by graph::compile (graph/tool.h).
// Usage: scorch-onnx model.onnx --name NAME [--out-dir DIR]  -> DIR/NAME.h and DIR/NAME.mpk
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "scorch/import/onnx/codegen/codegen.h"
#include "scorch/module/recorder.h"
#include "scorch/core/cli.h"
#ifdef SCORCH_HAVE_GRAPH
#include "scorch/graph/tool.h"
#endif

const char* kUsage = "usage: scorch-onnx model.onnx --name NAME [--out-dir DIR]\n";

#ifdef SCORCH_HAVE_GRAPH
const char* kCompiledUsage = scorch::graph::kToolUsage;
#else
const char* kCompiledUsage = "";
#endif

// True when argv names one of the compiled path's commands.
bool compiled_command(int argc, char** argv) {
  return argc > 1 && (std::strcmp(argv[1], "bench") == 0 || std::strcmp(argv[1], "profile") == 0 ||
                      std::strcmp(argv[1], "run") == 0);
}

int main(int argc, char** argv) {
  scorch::cli::answer_help(argc, argv,
                           std::string(kUsage) +
                               "Writes NAME.h (a module whose forward runs the model's graph) and "
                               "NAME.mpk (its weights) from an ONNX file, into DIR (default: the current folder).\n"
                               "SCORCH_ONNX_MAX_GRAPH_ENTRIES=n raises the limit on a file's nodes, names and tensors "
                               "(default 2000000).\n" +
                               kCompiledUsage);
  if (compiled_command(argc, argv)) {
#ifdef SCORCH_HAVE_GRAPH
    try {
      return scorch::graph::run_tool(argc, argv);
    } catch (const std::exception& e) {
      std::cerr << e.what() << "\n";
      return 1;
    }
#else
    std::cerr << "scorch-onnx: " << argv[1] << " needs the compiled path (scorch/graph), which this build lacks "
              << "(install libdnnl-dev and configure again)\n";
    return 2;
#endif
  }
  std::string model, name, out_dir = ".";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--name") == 0 && i + 1 < argc) name = argv[++i];
    else if (std::strcmp(argv[i], "--out-dir") == 0 && i + 1 < argc) out_dir = argv[++i];
    else model = argv[i];
  }
  if (model.empty() || name.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  try {
    auto generated = scorch::onnx::generate_module(scorch::onnx::read_model(model), name,
                                                   std::filesystem::path(model).filename().string());
    std::filesystem::create_directories(out_dir);
    std::string header = (std::filesystem::path(out_dir) / (name + ".h")).string();
    std::ofstream(header) << generated.header;
    std::string weights =
        scorch::NamedMpkFileRecorder<>{}.record(generated.weights, (std::filesystem::path(out_dir) / name).string());
    std::cout << "scorch-onnx: wrote " << header << " and " << weights << "\n";
  } catch (const scorch::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}

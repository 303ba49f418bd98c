// A small GPT trained on the fortunes Debian ships, then sampled (Burn's text-generation example):
//   text-generation train [--backend NAME] [--artifact-dir DIR] [--epochs N] [--windows N] [--seq N]
//                         [--precision f32|bf16|f16] [--corpus DIR]
//   text-generation generate [--backend NAME] [--artifact-dir DIR] [--prompt TEXT] [--length N] [--temperature T]
//                            [--top-k K]
//   text-generation amp-check [--steps N] [--corpus DIR]
// train fits the model with the Learner (mixed precision with --precision) and saves it; generate samples text
// after a prompt (--backend: cpu or any Dyn stack of the build: fusion<cpu>, libtorch, cuda:0, ...); amp-check
// compares f32, bf16 and loss-scaled f16 training (the ctest `amp`).
#include <iostream>

#include "common/artifacts.h"
#include "training.h"
#include <scorch/core/cli.h>

namespace {

struct Args {
  std::string command, artifact_dir = "/tmp/text-generation", corpus = "/usr/share/games/fortunes";
  std::string precision = "f32", prompt;
  size_t epochs = 1, windows = 4096, seq = 128, length = 200, top_k = 20, steps = 40;
  double temperature = 0.8;
  textgen::BackendChoice backend;
};

const char* kUsage =
    "usage: text-generation train|generate|amp-check [--backend cpu|fusion<cpu>|libtorch|cuda:0|...] "
    "[--artifact-dir DIR] [--corpus DIR] [--epochs N] [--windows N] [--seq N] [--precision f32|bf16|f16] "
    "[--prompt TEXT] [--length N] [--temperature T] [--top-k K] [--steps N]\n"
    "A small GPT: train learns the corpus' characters, generate continues --prompt with the trained model, "
    "amp-check compares mixed-precision steps with f32.";

Args parse(int argc, char** argv) {
  if (argc < 2) throw scorch::ValueError("text-generation", kUsage);
  Args a;
  a.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string f = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw scorch::ValueError("text-generation", f + " needs a value");
      return argv[++i];
    };
    if (f == "--artifact-dir") a.artifact_dir = value();
    else if (f == "--backend") a.backend = scorch::examples::parse_backend("text-generation --backend", value());
    else if (f == "--corpus") a.corpus = value();
    else if (f == "--epochs") a.epochs = std::stoul(value());
    else if (f == "--windows") a.windows = std::stoul(value());
    else if (f == "--seq") a.seq = std::stoul(value());
    else if (f == "--precision") a.precision = value();
    else if (f == "--prompt") a.prompt = value();
    else if (f == "--length") a.length = std::stoul(value());
    else if (f == "--temperature") a.temperature = std::stod(value());
    else if (f == "--top-k") a.top_k = std::stoul(value());
    else if (f == "--steps") a.steps = std::stoul(value());
    else throw scorch::ValueError("text-generation", "unknown option " + f + "\n" + kUsage);
  }
  return a;
}

int run(const Args& a) {
  if (a.command == "train") {
    auto config = textgen::TrainingConfig(textgen::GptConfig(0).with_max_seq(a.seq), scorch::optim::AdamWConfig())
                      .with_num_epochs(a.epochs)
                      .with_max_windows(a.windows)
                      .with_precision(a.precision);
    textgen::autocast_of(a.precision);  // an unknown name fails before the corpus is read
    auto report = textgen::train_text(a.artifact_dir, textgen::read_fortunes(a.corpus), config, a.backend);
    std::cout << "trained " << report.epochs_completed << " epoch(s); model saved in " << a.artifact_dir << std::endl;
    return report.interrupted ? 130 : 0;
  }
  if (a.command == "generate") {
    scorch::examples::require_trained_model("text-generation", a.artifact_dir);
    std::cout << a.prompt << textgen::generate(a.artifact_dir, a.prompt, a.length, a.temperature, a.top_k, 1, a.backend)
              << std::endl;
    return 0;
  }
  if (a.command == "amp-check") {
    if (a.steps < 4) throw scorch::ValueError("amp-check", "--steps must be at least 4");
    return textgen::amp_check(textgen::read_fortunes(a.corpus), a.steps);
  }
  throw scorch::ValueError("text-generation", "unknown command '" + a.command + "'\n" + kUsage);
}

}  // namespace

int main(int argc, char** argv) {
  scorch::cli::answer_help(argc, argv, kUsage);
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << e.what() << std::endl;
    return 2;
  }
}

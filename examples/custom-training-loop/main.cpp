// A custom training loop (the Burn Book's "Custom Training Loops", training_loop.h) on the backend named by
// --backend: cpu (default: the static Autodiff<Cpu>) or any Dyn stack of the build (fusion<cpu>, libtorch, cuda:0,
// vulkan:0, ...) on Autodiff<Dyn>.
//   custom-training-loop [--backend NAME]
#include <scorch/stacks/dyn/autodiff.h>

#include "common/backend_choice.h"
#include "training_loop.h"
#include <scorch/core/cli.h>

using scorch::examples::BackendChoice;

namespace {

void run(const BackendChoice& backend) {
  std::cout << "backend: " << scorch::examples::backend_name(backend) << "\n";
  if (backend.is_cpu()) return training_loop::train_loop<scorch::Autodiff<scorch::Cpu>>();
  scorch::Dyn::set_default_device(backend.device());
  training_loop::train_loop<scorch::Autodiff<scorch::Dyn>>();
}

}  // namespace

int main(int argc, char** argv) {
  scorch::cli::answer_help(
      argc, argv,
      "usage: custom-training-loop [--backend NAME]\nThe guide's CNN "
      "trained by a hand-written loop (forward, backward, optimizer step) instead of the Learner.");
  try {
    BackendChoice backend;
    for (int i = 1; i < argc; ++i) {
      std::string flag = argv[i];
      if (flag == "--backend" && i + 1 < argc)
        backend = scorch::examples::parse_backend("custom-training-loop --backend", argv[++i]);
      else
        throw scorch::ValueError("custom-training-loop",
                                 "unknown option " + flag + "\nusage: custom-training-loop [--backend NAME]");
    }
    run(backend);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << e.what() << std::endl;
    return 2;
  }
}

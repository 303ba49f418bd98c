// A custom training loop (the Burn Book's "Custom Training Loops", training_loop.h) on the backend named by
// --backend: cpu (default), fusion-cpu, libtorch or cuda where the build has them.
//   custom-training-loop [--backend NAME]
#include <scorch/stacks/fusion_cpu/autodiff.h>

#include "common/backend_choice.h"
#include "training_loop.h"

using scorch::examples::BackendChoice;

namespace {

void run(BackendChoice backend) {
  std::cout << "backend: " << scorch::examples::backend_name(backend) << "\n";
  switch (backend) {
    case BackendChoice::Cpu: return training_loop::train_loop<scorch::Autodiff<scorch::Cpu>>();
    case BackendChoice::FusionCpu: return training_loop::train_loop<scorch::Autodiff<scorch::FusionCpu>>();
#ifdef SCORCH_EXAMPLE_LIBTORCH
    case BackendChoice::LibTorch: return training_loop::train_loop_libtorch();
#endif
#ifdef SCORCH_EXAMPLE_CUDA
    case BackendChoice::Cuda: return training_loop::train_loop_cuda();
#endif
    default: throw scorch::examples::backend_missing("custom-training-loop", backend);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    BackendChoice backend = BackendChoice::Cpu;
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

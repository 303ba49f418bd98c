#pragma once
// The backend an example trains and runs on, picked with --backend NAME: "cpu" (the default) runs the static
// Autodiff<Cpu> stack; any other name is a Dyn stack chosen at run time ("fusion<cpu>", "libtorch", "cuda:0",
// "fusion<cuda:0>", "vulkan:0", "remote:tcp://host:7878"), trained on Autodiff<Dyn>. The names this build has are
// Dyn::stacks() (scorch/dyn/README.md); "fusion-cpu" is the older name of fusion<cpu>.
#include <string>

#include <scorch/core/error.h>
#include <scorch/dyn/dyn.h>

namespace scorch::examples {

/// A backend by name: Autodiff over it for training.
struct BackendChoice {
  std::string name = "cpu";
  /// Whether the choice is the static Cpu stack (else Dyn's stack `name`).
  bool is_cpu() const { return name == "cpu"; }
  /// The Dyn device the name reads as (a DeviceError listing the stacks when it names none).
  Dyn::Device device() const { return Dyn::parse(name).device; }
};

/// The name parse_backend read.
inline std::string backend_name(const BackendChoice& backend) { return backend.name; }

/// The backend called name; a ValueError from `op` (e.g. "guide --backend") naming the stacks this build has.
inline BackendChoice parse_backend(const std::string& op, const std::string& name) {
  BackendChoice choice{name == "fusion-cpu" ? "fusion<cpu>" : name};
  if (choice.is_cpu()) return choice;
  try {
    auto parsed = Dyn::parse(choice.name);
    if (parsed.autodiff) throw ValueError(op, "'" + name + "': name the stack alone (training adds autodiff)");
    if (std::string why = parsed.device.stack().unavailable(); !why.empty())
      throw ValueError(op, "'" + name + "' cannot run here: " + why);
  } catch (const DeviceError& e) {  // its message lists the stacks this build has
    throw ValueError(op, "'" + name + "' is not a backend of this build: " + e.what());
  }
  return choice;
}

}  // namespace scorch::examples

// Dyn's "libtorch" stack ("libtorch" is the host, "libtorch:cuda:1" CUDA card 1): every op of the table on LibTorch,
// compiled once here.
#include "scorch/backends/libtorch/libtorch_backend.h"
#include "scorch/dyn/stack_of.h"
#include "scorch/stacks/registrations.h"

namespace scorch::dyn {
namespace {
DeviceSyntax<TorchDevice> torch_devices() {
  return {[](std::string_view arg) {
            if (arg.empty() || arg == "cpu") return TorchDevice::cpu();
            if (arg == "cuda") return TorchDevice::cuda(0);
            if (arg.starts_with("cuda:")) return TorchDevice::cuda(parse_device_index("libtorch", arg.substr(5)));
            throw_bad_device("libtorch", arg, "write \"libtorch\" (the host) or \"libtorch:cuda:0\"");
          },
          [](const TorchDevice& d) {
            return d.kind == TorchDevice::Kind::Cpu ? std::string() : "cuda:" + std::to_string(d.index);
          }};
}
}  // namespace

void register_stack_libtorch() { register_stack<LibTorch>("libtorch", torch_devices()); }
}  // namespace scorch::dyn

// Dyn's "router<cpu,libtorch>" stack for the conformance suite: Router<Cpu, LibTorch>, compiled once here and
// registered before main; "router<cpu,libtorch>:1" puts the cases on LibTorch (position 1), ":0" or none on Cpu.
#include <scorch/backends/libtorch/libtorch_backend.h>
#include <scorch/dyn/stack_of.h>
#include <scorch/router/router.h>
#include <scorch/scorch.hpp>

namespace scorch::conformance {
namespace {

using CpuTorch = Router<Cpu, LibTorch>;

dyn::DeviceSyntax<CpuTorch::Device> router_devices() {
  return {[](std::string_view arg) {
            int position = dyn::parse_device_index("router<cpu,libtorch>", arg);
            if (position == 0) return CpuTorch::device<0>();
            if (position == 1) return CpuTorch::device<1>();
            dyn::throw_bad_device("router<cpu,libtorch>", arg, "its backends are 0 (cpu) and 1 (libtorch)");
          },
          [](const CpuTorch::Device& d) { return std::to_string(d.backend()); }};
}

const bool kRegistered = [] {
  dyn::register_stack<CpuTorch>("router<cpu,libtorch>", router_devices());
  return true;
}();

}  // namespace
}  // namespace scorch::conformance

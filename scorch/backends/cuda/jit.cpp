#include "scorch/backends/cuda/jit.h"

#include <dlfcn.h>
#include <nvrtc.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <utility>
#include <vector>

#include "scorch/backends/cuda/device_runtime.h"
#include "scorch/core/error.h"
#include "scorch/core/slow_work.h"
#include "scorch/gen/scalar_ops_text.h"

namespace scorch::backends::cuda::jit {
namespace {

constexpr const char* kOp = "cuda.jit";

/// NVRTC's entry points, looked up once in the library opened at first use.
struct Nvrtc {
  std::string error;  // why the library could not be used; empty when it can
  decltype(&nvrtcCreateProgram) create = nullptr;
  decltype(&nvrtcCompileProgram) compile = nullptr;
  decltype(&nvrtcDestroyProgram) destroy = nullptr;
  decltype(&nvrtcGetProgramLogSize) log_size = nullptr;
  decltype(&nvrtcGetProgramLog) log = nullptr;
  decltype(&nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&nvrtcGetCUBIN) cubin = nullptr;
  decltype(&nvrtcGetErrorString) error_string = nullptr;
};

template <class Fn> void bind(void* library, const char* name, Fn& fn, std::string& error) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  if (!fn && error.empty()) error = std::string("NVRTC library lacks ") + name;
}

Nvrtc open_nvrtc() {
  Nvrtc n;
  const char* named = std::getenv("SCORCH_NVRTC_LIBRARY");
  std::string file = named && *named ? named : "libnvrtc.so.13";
  void* library = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* why = dlerror();
    n.error = "cannot open " + file + " (" + (why ? why : "unknown") +
              "): install CUDA's NVRTC or set SCORCH_NVRTC_LIBRARY to its path";
    return n;
  }
  bind(library, "nvrtcCreateProgram", n.create, n.error);
  bind(library, "nvrtcCompileProgram", n.compile, n.error);
  bind(library, "nvrtcDestroyProgram", n.destroy, n.error);
  bind(library, "nvrtcGetProgramLogSize", n.log_size, n.error);
  bind(library, "nvrtcGetProgramLog", n.log, n.error);
  bind(library, "nvrtcGetCUBINSize", n.cubin_size, n.error);
  bind(library, "nvrtcGetCUBIN", n.cubin, n.error);
  bind(library, "nvrtcGetErrorString", n.error_string, n.error);
  return n;
}

const Nvrtc& nvrtc() {
  static const Nvrtc n = open_nvrtc();  // opened once; never closed (kernels may outlive statics)
  return n;
}

/// Throws DeviceError naming program and the NVRTC call unless status is success.
void check_nvrtc(const Nvrtc& n, nvrtcResult status, const std::string& program, const char* call) {
  if (status != NVRTC_SUCCESS) throw DeviceError(kOp, program + ": " + call + " failed: " + n.error_string(status));
}

std::string program_log(const Nvrtc& n, nvrtcProgram program) {
  size_t size = 0;
  if (n.log_size(program, &size) != NVRTC_SUCCESS || size == 0) return {};
  std::string text(size, '\0');
  if (n.log(program, text.data()) != NVRTC_SUCCESS) return {};
  while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.pop_back();
  return text;
}

/// Destroys an NVRTC program when leaving scope, also on a throw.
struct ProgramGuard {
  const Nvrtc& n;
  nvrtcProgram program = nullptr;
  ~ProgramGuard() {
    if (program) n.destroy(&program);
  }
};

// Says on stderr when fused kernels' compiles add up (the first iterations of a run on Fusion<Cuda>).
SlowWorkNotice& compile_notice() {
  static SlowWorkNotice notice("cuda", "fused kernels compiled by NVRTC");
  return notice;
}

}  // namespace

bool nvrtc_available() { return nvrtc().error.empty(); }

std::string compile(const std::string& source, const std::string& program, int arch) {
  const Nvrtc& n = nvrtc();
  if (!n.error.empty()) throw DeviceError(kOp, program + ": " + n.error);
  if (arch < 50 || arch > 1000)
    throw DeviceError(kOp, program + ": compute capability " + std::to_string(arch) + " is not one NVRTC targets");
  std::vector<const char*> headers, names;
  for (const auto& header : gen::kScalarOpHeaders) {
    headers.push_back(header.text.data());
    names.push_back(header.include_name.data());
  }
  ProgramGuard guard{n};
  check_nvrtc(n,
              n.create(&guard.program, source.c_str(), program.c_str(), static_cast<int>(headers.size()),
                       headers.data(), names.data()),
              program, "nvrtcCreateProgram");
  const std::string arch_flag = "--gpu-architecture=sm_" + std::to_string(arch);
  const char* options[] = {"-std=c++20", arch_flag.c_str(), "--fmad=true"};
  auto started = std::chrono::steady_clock::now();
  nvrtcResult status = n.compile(guard.program, 3, options);
  compile_notice().add(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  if (status != NVRTC_SUCCESS)
    throw DeviceError(
        kOp, program + " does not compile (" + n.error_string(status) + "):\n" + program_log(n, guard.program));
  size_t size = 0;
  check_nvrtc(n, n.cubin_size(guard.program, &size), program, "nvrtcGetCUBINSize");
  std::string cubin(size, '\0');
  check_nvrtc(n, n.cubin(guard.program, cubin.data()), program, "nvrtcGetCUBIN");
  return cubin;
}

int compute_capability(int device) {
  check_device(device, kOp);
  int major = 0, minor = 0;
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), kOp);
  check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), kOp);
  return major * 10 + minor;
}

Kernel::Kernel(const std::string& code, const std::string& entry, int device) : device_(device), entry_(entry) {
  stream(device);  // makes device current
  cudaLibrary_t library = nullptr;
  check(cudaLibraryLoadData(&library, code.data(), nullptr, nullptr, 0, nullptr, nullptr, 0), kOp);
  cudaKernel_t kernel = nullptr;
  cudaError_t status = cudaLibraryGetKernel(&kernel, library, entry.c_str());
  if (status != cudaSuccess) {
    cudaLibraryUnload(library);
    cudaGetLastError();
    throw DeviceError(kOp, "kernel " + entry + " is not in the compiled code (" + cudaGetErrorName(status) + ")");
  }
  library_ = library;
  kernel_ = kernel;
}

Kernel::Kernel(Kernel&& other) noexcept
    : library_(std::exchange(other.library_, nullptr)),
      kernel_(std::exchange(other.kernel_, nullptr)),
      device_(other.device_),
      entry_(std::move(other.entry_)) {}

Kernel& Kernel::operator=(Kernel&& other) noexcept {  // other unloads what this held
  std::swap(library_, other.library_);
  std::swap(kernel_, other.kernel_);
  std::swap(device_, other.device_);
  std::swap(entry_, other.entry_);
  return *this;
}

Kernel::~Kernel() {
  if (!library_) return;
  cudaStreamSynchronize(stream(device_));  // launches still queued run to the end first
  cudaLibraryUnload(static_cast<cudaLibrary_t>(library_));
}

void Kernel::launch(unsigned grid, unsigned block, void** args, size_t shared_bytes) const {
  if (!kernel_) throw DeviceError(kOp, "launch of a moved-from kernel");
  cudaStream_t s = stream(device_);
  check(cudaLaunchKernel(kernel_, dim3(grid), dim3(block), args, shared_bytes, s), kOp);
  check_launch(kOp);
}

}  // namespace scorch::backends::cuda::jit

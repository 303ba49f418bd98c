#pragma once
// Kernels compiled at run time: CUDA C++ text → CUBIN with NVRTC, loaded and launched on a device's
// op stream. NVRTC is opened on first use (libnvrtc.so.13, or the file SCORCH_NVRTC_LIBRARY names),
// so programs that never compile a kernel do not need it. Generated code may include the scalar
// functor headers by their repository names ("scorch/backends/common/scalar_ops.h"): they are
// compiled from scorch/gen/scalar_ops_text.h, the same text the eager kernels are built from.
// No CUDA header needed; compiling needs no GPU.
#include <string>

namespace scorch::backends::cuda::jit {

/// True when NVRTC can be opened.
bool nvrtc_available();

/// CUBIN for source, compiled for compute capability arch (major·10 + minor, e.g. 90) with C++20 and
/// IEEE math (no fast math). Throws DeviceError `"[cuda.jit] <program>: ..."` with NVRTC's log when the
/// source does not compile, or naming the library when NVRTC cannot be opened.
std::string compile(const std::string& source, const std::string& program, int arch);

/// The compute capability of device (major·10 + minor); throws DeviceError without that device.
int compute_capability(int device);

/// A kernel loaded from compiled code on one device; moves only; unloads on destruction, once the
/// device's op stream has run what was queued.
class Kernel {
 public:
  /// Loads entry (an extern "C" __global__ function) from code; throws DeviceError naming it.
  Kernel(const std::string& code, const std::string& entry, int device);
  Kernel(Kernel&& other) noexcept;
  Kernel& operator=(Kernel&& other) noexcept;
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;
  ~Kernel();

  /// Queues grid × block threads on the device's op stream; args[i] points at the i-th argument; shared_bytes of
  /// dynamic shared memory per block (at most 48 KiB).
  void launch(unsigned grid, unsigned block, void** args, size_t shared_bytes = 0) const;

 private:
  void* library_ = nullptr;  // cudaLibrary_t
  void* kernel_ = nullptr;   // cudaKernel_t
  int device_ = 0;
  std::string entry_;
};

}  // namespace scorch::backends::cuda::jit

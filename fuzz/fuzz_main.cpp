// libFuzzer's entry point for the target named by the environment variable SCORCH_FUZZ_TARGET (e.g. "record_bin"),
// which the fuzz_<name> launcher scripts set.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "fuzz/targets.h"
#include "scorch/core/error.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* name = std::getenv("SCORCH_FUZZ_TARGET");
  if (!name || !scorch::fuzz::find_target(name)) {
    std::fprintf(stderr, "fuzz_targets: set SCORCH_FUZZ_TARGET to a target name (or run fuzz/fuzz_<name>); got %s\n",
                 name ? name : "nothing");
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const scorch::fuzz::Target target = scorch::fuzz::find_target(std::getenv("SCORCH_FUZZ_TARGET"));
  try {
    target({reinterpret_cast<const std::byte*>(data), size});
  } catch (const scorch::Error&) {
    // A clear error is the expected outcome for a bad file; anything else escapes and is a finding.
  }
  return 0;
}

// libFuzzer's entry point for one target, chosen at compile time (SCORCH_FUZZ_TARGET, e.g. "record_bin").
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "fuzz/targets.h"
#include "scorch/core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const scorch::fuzz::Target target = scorch::fuzz::find_target(SCORCH_FUZZ_TARGET);
  if (!target) {
    std::fprintf(stderr, "no fuzz target named %s\n", SCORCH_FUZZ_TARGET);
    std::abort();
  }
  try {
    target({reinterpret_cast<const std::byte*>(data), size});
  } catch (const scorch::Error&) {
    // A clear error is the expected outcome for a bad file; anything else escapes and is a finding.
  }
  return 0;
}

// The Cpu thread pool's default size: SCORCH_NUM_THREADS when set, else the CPUs the process may run on (its
// affinity mask, as taskset or a container's cpuset restricts it), never the machine's count behind a mask.
#include <gtest/gtest.h>
#include <sched.h>

#include <cstdlib>
#include <string>

#include "scorch/backends/cpu/thread_pool.h"

namespace scorch {
namespace {

/// Restores this thread's affinity mask and SCORCH_NUM_THREADS when the test ends.
struct SavedSettings {
  cpu_set_t mask;
  const char* env = std::getenv("SCORCH_NUM_THREADS");
  std::string value = env ? env : "";
  SavedSettings() { sched_getaffinity(0, sizeof mask, &mask); }
  ~SavedSettings() {
    sched_setaffinity(0, sizeof mask, &mask);
    if (env) setenv("SCORCH_NUM_THREADS", value.c_str(), 1);
    else unsetenv("SCORCH_NUM_THREADS");
  }
};

TEST(ThreadPool, DefaultThreadsFollowTheAffinityMaskUnlessTheEnvironmentSetsThem) {
  SavedSettings saved;
  unsetenv("SCORCH_NUM_THREADS");
  EXPECT_EQ(backends::cpu::default_num_threads(), size_t(CPU_COUNT(&saved.mask)));
  int first = 0;
  while (!CPU_ISSET(first, &saved.mask)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  EXPECT_EQ(backends::cpu::default_num_threads(), 1u);  // taskset -c N: one thread, whatever the machine has
  setenv("SCORCH_NUM_THREADS", "3", 1);
  EXPECT_EQ(backends::cpu::default_num_threads(), 3u);
  setenv("SCORCH_NUM_THREADS", "0", 1);  // not a count: the mask decides
  EXPECT_EQ(backends::cpu::default_num_threads(), 1u);
}

}  // namespace
}  // namespace scorch

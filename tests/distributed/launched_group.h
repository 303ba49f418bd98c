#pragma once
// The process-wide group these tests run in; run without scorch-run they fail with how to launch them.
#include <memory>

#include "scorch/core/error.h"
#include "scorch/distributed/process_group.h"

namespace scorch::distributed {

/// default_group(), or a ValueError naming the launcher when the process was not started by scorch-run.
inline std::shared_ptr<ProcessGroup> launched_group() {
  auto group = default_group();
  if (!group)
    throw ValueError("distributed tests",
                     "no process group: these tests need ranks; run them under the launcher, "
                     "e.g. scorch-run --nproc 2 build/tests/scorch_distributed_tests (ctest -L distributed)");
  return group;
}

}  // namespace scorch::distributed

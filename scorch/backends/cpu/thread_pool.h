#pragma once
// A fixed pool of worker threads sized to the machine, and parallel_for over index ranges.
#include <cstddef>
#include <functional>

namespace scorch::backends::cpu {

/// Number of threads kernels use (default_num_threads() unless set_num_threads changed it).
size_t num_threads();
/// The count a process starts with: SCORCH_NUM_THREADS when set, else the CPUs the process may run on (its affinity
/// mask: `taskset -c 0,1` or a container's cpuset gives 2, not the machine's count).
size_t default_num_threads();
/// Changes the number of threads kernels use from now on (at least 1).
void set_num_threads(size_t n);

/// Calls body(begin, end) over disjoint chunks covering [0, n); chunks of at least grain
/// items run on the pool's threads, and the call returns when all are done. Exceptions
/// from body are rethrown in the caller.
void parallel_for(size_t n, size_t grain, const std::function<void(size_t, size_t)>& body);

/// Items below which an elementwise loop stays on the calling thread.
inline constexpr size_t kElementwiseGrain = 1 << 15;

}  // namespace scorch::backends::cpu

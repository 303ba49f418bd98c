#pragma once
// The options of data-parallel gradient averaging (GradientReducer, LearnerBuilder::data_parallel).
#include <cstddef>

namespace scorch::distributed {

/// How the reducer buckets gradients.
struct ReducerOptions {
  /// The most gradient bytes (f32) in one bucket (PyTorch DDP's bucket_cap_mb, 25 MiB).
  size_t bucket_bytes = size_t(25) << 20;
  /// Start buckets during backward (false: all of them after it, from the step's gradients).
  bool overlap = true;
  /// The most bytes in the first bucket (the last parameters), small so that summing starts early in backward
  /// (DDP's first bucket, 1 MiB).
  size_t first_bucket_bytes = size_t(1) << 20;
};

}  // namespace scorch::distributed

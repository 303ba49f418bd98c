#pragma once
// Internal to backends/cuda: the autotune cache. A choice (an opaque string: a cuBLASLt algorithm's
// bytes, a cuDNN algorithm number) is stored per key (op, shape, dtype, layout, device name) in memory
// and in a tab-separated file, rewritten atomically so a crash never leaves it half-written.
#include <functional>
#include <optional>
#include <string>

namespace scorch::backends::cuda::autotune {

/// The cached choice for key, from memory or (first lookup) the file; nothing when unknown.
std::optional<std::string> lookup(const std::string& key);
/// Records choice for key in memory and in the file (a failed write is ignored: the cache is advisory).
void store(const std::string& key, const std::string& choice);
/// Counts one benchmarked (not cached) choice.
void count_benchmark();
/// The name of device (e.g. "NVIDIA H100 80GB HBM3"), for keys.
const std::string& device_name(int device);

}  // namespace scorch::backends::cuda::autotune

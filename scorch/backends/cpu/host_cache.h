#pragma once
// The Cpu backend's host allocator: blocks of at least kCachedBytes are rounded up to a 2 MiB
// size class and, when freed, kept in one process-wide cache (capped) for the next tensor of
// that class, so steady-state loops stop paying the kernel's page faults and zeroing.
// Smaller blocks go straight to the C allocator.
#include <cstddef>

namespace scorch::backends::cpu::host_cache {

/// Blocks this large or larger are cached.
inline constexpr size_t kCachedBytes = size_t(1) << 20;

/// A 64-byte aligned block of at least bytes; capacity receives its real size.
void* allocate(size_t bytes, size_t& capacity);
/// Returns a block from allocate; it is cached if the cap allows, else freed.
void release(void* block, size_t capacity);
/// Bytes held in the cache (freed by tensors, not yet reused).
size_t cached_bytes();
/// Caps the cache (default 1 GiB, or SCORCH_CPU_CACHE_MB); shrinking frees blocks at once.
void set_limit(size_t bytes);
/// Frees every cached block.
void empty();

/// Bytes of blocks handed out and not yet released (live tensor memory).
size_t live_bytes();
/// The largest live_bytes() since the last reset_peak().
size_t peak_bytes();
/// Restarts peak_bytes() from the current live_bytes().
void reset_peak();

}  // namespace scorch::backends::cpu::host_cache

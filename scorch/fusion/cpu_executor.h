#pragma once
// Fusion<Cpu>'s executor: a program whose ops share one shape runs block by block (kFusedBlock elements of
// every operand at a time, blocks spread over the thread pool), each op being Cpu's own kernel on block views,
// so every input is read from memory once and every output written once; intermediates stay in cache.
// Other programs, single ops and small programs run op after op.
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/fusion/program.h"

namespace scorch::fusion {

/// Elements of each operand one block holds.
inline constexpr size_t kFusedBlock = 1 << 14;
/// Programs over fewer elements run op after op (their operands already fit in cache).
inline constexpr size_t kFusedMinElements = 1 << 16;

template <> struct Executor<Cpu> {
  /// The program's output values; counts a blocked run in stats.
  static std::vector<Value<Cpu>> run(const Program<Cpu>& program, Stats& stats);
};

}  // namespace scorch::fusion

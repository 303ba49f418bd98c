#pragma once
// Fusion<Cpu>'s executor: a program whose ops share one shape runs block by block (kFusedBlock elements of
// every operand at a time, blocks spread over the thread pool), each op being Cpu's own kernel on block views,
// so every input is read from memory once and every output written once; intermediates stay in cache.
// A reduction along a dim runs on the same blocks as the elementwise ops it reads. Other programs, single ops and small
// programs run op after op.
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/fusion/program.h"

namespace scorch::fusion {

/// Elements of each operand one block holds.
inline constexpr size_t kFusedBlock = 1 << 14;
/// Programs over fewer elements run op after op (their operands already fit in cache).
inline constexpr size_t kFusedMinElements = 1 << 16;

template <> struct Executor<Cpu> : UnfusedExecutor<Cpu> {
  static constexpr bool kFusesReductions = true;
  /// Products are recorded (their readers wait with them) but run alone: a Cpu product has no epilogue.
  static constexpr bool kRecordsProducts = true;
  /// The program's output values; counts a blocked run in stats.
  static std::vector<Value<Cpu>> run(const Program<Cpu>& program, Stats& stats);
  /// A program closed by a reduction that shrinks the shape (sum, mean, prod, max, min along a dim), block by
  /// block: each block holds whole slices along a dim other than the reduced one (the first, or the last when the
  /// first is reduced), computes the elementwise ops on them and reduces them with Cpu's kernel; nullopt (run
  /// separately) for softmax and scans, rank-1 or small shapes and huge slices.
  static std::optional<std::vector<Value<Cpu>>> run_reduction(const Program<Cpu>& program, Stats& stats);
};

}  // namespace scorch::fusion

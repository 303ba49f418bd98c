#pragma once
// A fused program: the waiting ops of one computation in dependency order, the values they read and the ones
// they must produce. Executor<B> runs it; the default runs op after op on B (the unfused fallback).
#include <algorithm>
#include <cstddef>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "scorch/fusion/node.h"
#include "scorch/fusion/record_env.h"

namespace scorch::fusion {

/// The ops to run: each op's inputs are computed nodes (leaves) or earlier ops of the program.
template <class B> struct Program {
  std::vector<Node<B>*> ops;                            // dependency order
  std::vector<size_t> outputs;                          // positions in ops of the values to keep
  std::vector<Node<B>*> leaves;                         // computed nodes the ops read, each once
  std::unordered_map<const Node<B>*, size_t> position;  // op → its position in ops

  /// The program's one reduction (its last op, or followed by the ops fused after it), or nullptr when every op
  /// is elementwise.
  const Node<B>* reduction() const {
    for (auto it = ops.rbegin(); it != ops.rend(); ++it)
      if ((*it)->pending->reduce_dim) return *it;
    return nullptr;
  }
  /// True when every op has one shape: the program can run block by block.
  bool uniform_shape() const {
    for (auto* op : ops)
      if (op->shape != ops.front()->shape) return false;
    return !ops.empty();
  }
};

/// Counts of what the stream ran (for tests and benchmarks).
struct Stats {
  size_t programs = 0;        // programs run (one per computation point)
  size_t fused_programs = 0;  // of those, run by a fusing executor (one pass over memory)
  size_t ops = 0;             // recorded ops run
  size_t eager_ops = 0;       // ops run on B at once (not elementwise)
};

/// How many times each op's value is read inside the program, plus one for each output.
template <class B> std::vector<size_t> count_uses(const Program<B>& program) {
  std::vector<size_t> uses(program.ops.size(), 0);
  for (auto* op : program.ops)
    for (auto& in : op->pending->inputs)
      if (auto it = program.position.find(in.get()); it != program.position.end()) ++uses[it->second];
  for (size_t out : program.outputs) ++uses[out];
  return uses;
}

/// Runs the ops in order, reading leaf k as leaf(k, node) and moving each intermediate into its last reader
/// (uses from count_uses); returns the outputs' values in program.outputs order.
template <class B, class Leaf>
std::vector<Value<B>> evaluate(const Program<B>& program, std::vector<size_t> uses, Leaf leaf) {
  std::vector<std::optional<Value<B>>> results(program.ops.size());
  for (size_t i = 0; i < program.ops.size(); ++i) {
    Args<B> args;
    for (auto& in : program.ops[i]->pending->inputs) {
      auto it = program.position.find(in.get());
      if (it == program.position.end()) {
        auto k = std::find(program.leaves.begin(), program.leaves.end(), in.get()) - program.leaves.begin();
        args.values.push_back(leaf(static_cast<size_t>(k), *in));
      } else if (--uses[it->second] == 0) {
        args.values.push_back(std::move(*results[it->second]));
        results[it->second].reset();
      } else {
        args.values.push_back(*results[it->second]);
      }
    }
    results[i] = run_pending(*program.ops[i], args);
  }
  std::vector<Value<B>> out;
  for (size_t i : program.outputs) out.push_back(std::move(*results[i]));
  return out;
}

/// Runs a program on B one op at a time over whole tensors, freeing each intermediate after its last use.
template <class B> std::vector<Value<B>> run_unfused(const Program<B>& program) {
  return evaluate(program, count_uses(program), [](size_t, const Node<B>& node) { return *node.value; });
}

/// What an executor does unless it fuses: every op on B on whole tensors, reductions at once.
template <class B> struct UnfusedExecutor {
  /// True when run_reduction may fuse a reduction with the elementwise ops it reads (else reductions run at once).
  static constexpr bool kFusesReductions = false;
  /// True when `Fusion<B>` records a float matrix product as the head of a program, so run_head sees the ops after it.
  static constexpr bool kRecordsProducts = false;
  /// True when `Fusion<B>` adds a convolution's bias as a recorded op (fusing with the activation after it) instead
  /// of in B's convolution.
  static constexpr bool kSplitsConvBias = false;
  /// True when run_reduction computes elementwise ops after the reduction op (reading only its result) in the
  /// same kernel.
  static bool fuses_after(OpId) { return false; }
  /// Runs chain[0], a head whose inputs are computed, folding in the ops chain[1..] (each reading the one before)
  /// as far as it can: returns how many it folded (at least 1) and the value of the last one.
  static std::pair<size_t, Value<B>> run_head(const Program<B>&, const std::vector<Node<B>*>& chain, Stats&) {
    Args<B> args;
    for (auto& in : chain.front()->pending->inputs) args.values.push_back(*in->value);
    return {1, run_pending(*chain.front(), args)};
  }
  /// The program's output values; counts a fused run in stats. The program is elementwise.
  static std::vector<Value<B>> run(const Program<B>& program, Stats&) { return run_unfused(program); }
  /// The outputs of a program closed by a reduction, computed together, or nullopt when this executor does not
  /// fuse it (the stream then computes the reduction's input and runs the reduction alone).
  static std::optional<std::vector<Value<B>>> run_reduction(const Program<B>&, Stats&) { return std::nullopt; }
};

/// Runs programs for `Fusion<B>`; a backend with a fusing executor specializes it, deriving from UnfusedExecutor
/// for what it does not fuse (Cpu: backends/cpu/fusion/executor.h, Cuda: backends/cuda/fusion/executor.h).
template <class B> struct Executor : UnfusedExecutor<B> {};

}  // namespace scorch::fusion

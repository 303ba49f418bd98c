#pragma once
// A model for the micro runtime: layers wired into a graph once at start-up, then planned into one arena the
// application provides (greedy by size over the buffers' lifetimes), then run any number of times without a heap.
#include <cstddef>
#include <cstdint>

#include "scorch/micro/layer.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {

/// A graph value: an input or a layer's output; kNone after an error. Layers must not be loaded again once added
/// (run() checks that their shapes and scratch still fit the plan).
using Value = int16_t;
inline constexpr Value kNone = -1;

/// A node and its place in the plan.
struct Node {
  const Layer* layer = nullptr;  // nullptr: an input
  Value in[2] = {kNone, kNone};
  Shape shape;
  Value root = kNone;  // the node whose buffer holds these values (itself unless a view or computed in place)
  int16_t last_use = 0;
  uint32_t offset = 0, bytes = 0, scratch_offset = 0, scratch_bytes = 0;
};

/// The graph over caller-owned node storage (Graph holds it inline). The first error in building sticks: later calls
/// return it again (freestanding) or throw it again (hosted), and status() keeps it; run()'s errors do not stick.
class GraphBase {
 public:
  GraphBase(const GraphBase&) = delete;
  GraphBase& operator=(const GraphBase&) = delete;
  /// A model input of that shape (read in place at run()).
  Value input(const Shape& shape);
  /// layer's output on x (one-input layers) or on x and y.
  Value add(const Layer& layer, Value x, Value y = kNone);
  /// Marks the output and plans the arena; no add() after it.
  Status finish(Value output);
  /// The first error, or ok.
  const Status& status() const { return status_; }
  /// Arena bytes run() needs (after finish()).
  size_t arena_bytes() const { return arena_bytes_; }
  /// Bytes of every layer's output and scratch laid end to end (what a plan without reuse would take).
  size_t unplanned_bytes() const;
  /// Value v's shape (an empty shape for kNone or a value not in the graph).
  const Shape& shape(Value v) const { return node(v).shape; }
  /// The number of nodes (inputs included).
  uint32_t size() const { return count_; }
  /// Node v (an empty node for kNone or a value not in the graph).
  const Node& node(Value v) const {
    static constexpr Node kEmpty{};
    return v >= 0 && uint32_t(v) < count_ ? nodes_[v] : kEmpty;
  }
  /// Called before (done false) and after (done true) each layer a run computes: per-layer timing on a device.
  using Hook = void (*)(void* context, Value node, bool done);
  /// Runs the graph: inputs[i] holds input i's values, output gets the output's; arena is 16-byte aligned and
  /// holds arena_bytes(). hook (with context) sees each layer start and end.
  Status run(void* arena, size_t arena_size, const float* const* inputs, float* output, Hook hook = nullptr,
             void* context = nullptr) const;
  /// run() for a one-input graph.
  Status run(void* arena, size_t arena_size, const float* input, float* output, Hook hook = nullptr,
             void* context = nullptr) const {
    return run(arena, arena_size, &input, output, hook, context);
  }

 protected:
  GraphBase(Node* nodes, uint32_t capacity) : nodes_(nodes), capacity_(capacity) {}
  ~GraphBase() = default;

 private:
  Value push(const Node& node, const char* op);
  Status fail(const Status& s);
  Status plan();
  void reuse_inputs_in_place();
  /// ok unless n's layer now gives another output shape or needs more scratch for in (loaded again after add()).
  Status check_unchanged(const Node& n, const Shape* in) const;
  /// The node whose buffer holds v's values (following views and in-place layers).
  Value root_of(Value v) const;
  Node* nodes_;
  uint32_t capacity_, count_ = 0;
  Value output_ = kNone;
  size_t arena_bytes_ = 0;
  Status status_;
};

/// A graph of at most N nodes (inputs included).
template <uint32_t N> class Graph final : public GraphBase {
  static_assert(N > 0 && N < 32768, "Graph: node capacity out of range");

 public:
  Graph() : GraphBase(storage_, N) {}

 private:
  Node storage_[N];
};

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro

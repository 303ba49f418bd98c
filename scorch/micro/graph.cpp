// Graph building, arena planning and running (graph.h).
#include "scorch/micro/graph.h"

#include "scorch/micro/quant.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {
namespace {

constexpr const char* kOp = "micro::Graph";
constexpr uint32_t kUnplaced = 0xFFFFFFFFu;
constexpr uint64_t kMaxBytes = 0xFFFFFFF0u;  // a buffer's or the arena's size: 32-bit offsets

// Bytes of a float buffer of shape, 16-aligned, or 0 with false when they exceed kMaxBytes.
bool buffer_bytes(const Shape& shape, uint32_t& bytes) {
  uint64_t count = shape.count();
  if (count > kMaxBytes / sizeof(float)) return false;
  bytes = uint32_t(align16(count * sizeof(float)));
  return true;
}

// Buffer i of the plan: node i/2's values (even i) or its scratch (odd i).
struct BufferRef {
  Node* node;
  bool scratch;
  uint32_t bytes() const { return scratch ? node->scratch_bytes : node->bytes; }
  uint32_t& offset() const { return scratch ? node->scratch_offset : node->offset; }
  int16_t first(const Node* nodes) const { return int16_t(node - nodes); }
  int16_t last(const Node* nodes) const { return scratch ? first(nodes) : node->last_use; }
};

}  // namespace

Status GraphBase::fail(const Status& s) {
  if (status_.ok()) status_ = s;
  return raise(s);
}

Value GraphBase::push(const Node& node, const char* op) {
  if (output_ != kNone) return fail(Message(Code::value, op) << "add() after finish()"), kNone;
  if (count_ >= capacity_)
    return fail(Message(Code::capacity, op) << "the graph holds " << int64_t(capacity_) << " nodes"), kNone;
  nodes_[count_] = node;
  nodes_[count_].root = node.root == kNone ? Value(count_) : node.root;
  return Value(count_++);
}

Value GraphBase::input(const Shape& shape) {
  if (!status_.ok()) return raise(status_), kNone;
  if (!shape.valid()) return fail(Message(Code::shape, kOp) << "input rank above 4"), kNone;
  uint32_t bytes = 0;
  if (!buffer_bytes(shape, bytes))
    return fail(Message(Code::capacity, kOp) << "input " << shape << " exceeds 4 GiB"), kNone;
  Node n;
  n.shape = shape;
  return push(n, kOp);
}

Value GraphBase::add(const Layer& layer, Value x, Value y) {
  if (!status_.ok()) return raise(status_), kNone;
  Value in[2] = {x, y};
  uint32_t arity = layer.arity();
  if (arity < 1 || arity > 2)
    return fail(Message(Code::value, layer.name()) << "takes " << int64_t(arity) << " inputs; graphs run 1 or 2"),
           kNone;
  for (uint32_t i = 0; i < 2; ++i) {
    bool wanted = i < arity, valid = in[i] >= 0 && uint32_t(in[i]) < count_;
    if (wanted != valid || (!wanted && in[i] != kNone))
      return fail(Message(Code::value, layer.name())
                  << "takes " << int64_t(arity) << " graph value(s); input " << int64_t(i) << " is " << int64_t(in[i])),
             kNone;
  }
  Shape shapes[2] = {nodes_[x].shape, arity > 1 ? nodes_[y].shape : Shape{}};
  Node n;
  n.layer = &layer;
  n.in[0] = x, n.in[1] = arity > 1 ? y : kNone;
  Status s = layer.infer(shapes, n.shape);
  if (!s.ok()) return fail(s), kNone;
  if (layer.is_view()) {
    if (n.shape.numel() != shapes[0].numel())
      return fail(Message(Code::shape, layer.name()) << "view " << n.shape << " of " << shapes[0]), kNone;
    n.root = nodes_[x].root;
  } else {
    uint64_t scratch = align16(layer.scratch_bytes(shapes));
    if (!buffer_bytes(n.shape, n.bytes) || scratch > kMaxBytes)
      return fail(Message(Code::capacity, layer.name()) << "output " << n.shape << " or its scratch exceeds 4 GiB"),
             kNone;
    n.scratch_bytes = uint32_t(scratch);
  }
  return push(n, layer.name());
}

Status GraphBase::finish(Value output) {
  if (!status_.ok()) return raise(status_);
  if (output < 0 || uint32_t(output) >= count_)
    return fail(Message(Code::value, kOp) << "output " << int64_t(output) << " is not a value of the graph");
  if (output_ != kNone) return fail(Message(Code::value, kOp) << "finish() called twice");
  output_ = output;
  Status s = plan();
  return s.ok() ? s : fail(s);
}

Status GraphBase::plan() {
  for (uint32_t i = 0; i < count_; ++i) {
    nodes_[i].last_use = int16_t(i);
    nodes_[i].offset = nodes_[i].scratch_offset = kUnplaced;
  }
  for (uint32_t i = 0; i < count_; ++i)
    for (Value v : nodes_[i].in)
      if (v != kNone) {
        Node& r = nodes_[root_of(v)];
        r.last_use = r.last_use > int16_t(i) ? r.last_use : int16_t(i);
      }
  nodes_[root_of(output_)].last_use = int16_t(count_);
  reuse_inputs_in_place();
  // Greedy by size: the largest unplaced buffer goes to the lowest offset free over its lifetime.
  arena_bytes_ = 0;
  for (;;) {
    BufferRef best{nullptr, false};
    for (uint32_t i = 0; i < 2 * count_; ++i) {
      BufferRef b{&nodes_[i / 2], (i & 1) != 0};
      if (b.offset() == kUnplaced && b.bytes() > 0 && (!best.node || b.bytes() > best.bytes())) best = b;
    }
    if (!best.node) break;
    uint32_t offset = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (uint32_t i = 0; i < 2 * count_; ++i) {
        BufferRef p{&nodes_[i / 2], (i & 1) != 0};
        if (p.offset() == kUnplaced || p.bytes() == 0) continue;
        bool live_together = p.first(nodes_) <= best.last(nodes_) && best.first(nodes_) <= p.last(nodes_);
        bool apart = offset >= p.offset() + p.bytes() || p.offset() >= uint64_t(offset) + best.bytes();
        if (!live_together || apart) continue;
        offset = p.offset() + p.bytes();
        moved = true;
      }
    }
    if (uint64_t(offset) + best.bytes() > kMaxBytes)
      return Message(Code::capacity, kOp) << "the arena would exceed 4 GiB";
    best.offset() = offset;
    arena_bytes_ = offset + best.bytes() > arena_bytes_ ? offset + best.bytes() : arena_bytes_;
  }
  return {};
}

Value GraphBase::root_of(Value v) const {
  while (nodes_[v].root != v) v = nodes_[v].root;
  return v;
}

// A layer that may overwrite its input takes over the input's buffer when nothing reads the input later: its own
// buffer goes, the input's lives as long as the layer's output would have.
void GraphBase::reuse_inputs_in_place() {
  for (uint32_t i = 0; i < count_; ++i) {
    Node& n = nodes_[i];
    if (!n.layer || n.root != Value(i) || !n.layer->in_place()) continue;
    Value r = root_of(n.in[0]);
    Node& input = nodes_[r];
    if (!input.layer || input.last_use != int16_t(i) || input.bytes != n.bytes) continue;
    n.root = r;
    n.bytes = 0;
    input.last_use = n.last_use;
  }
}

size_t GraphBase::unplanned_bytes() const {
  size_t total = 0;
  for (uint32_t i = 0; i < count_; ++i) {
    const Node& n = nodes_[i];
    if (n.layer && !n.layer->is_view()) total += align16(n.shape.numel() * sizeof(float)) + n.scratch_bytes;
  }
  return total;
}

Status GraphBase::check_unchanged(const Node& n, const Shape* in) const {
  Shape out;
  if (n.layer->infer(in, out).ok() && out == n.shape && align16(n.layer->scratch_bytes(in)) <= n.scratch_bytes)
    return {};
  return raise(Message(Code::value, n.layer->name()) << "changed since the graph was planned (loaded again?)");
}

Status GraphBase::run(void* arena, size_t arena_size, const float* const* inputs, float* output, Hook hook,
                      void* context) const {
  if (!status_.ok()) return raise(status_);
  if (output_ == kNone) return raise(Message(Code::value, kOp) << "run() before finish()");
  if (arena_size < arena_bytes_ || (reinterpret_cast<uintptr_t>(arena) & 15) != 0)
    return raise(Message(Code::arena, kOp) << "the arena holds " << int64_t(arena_size) << " bytes; the plan needs "
                                           << int64_t(arena_bytes_) << ", 16-byte aligned");
  auto* base = static_cast<char*>(arena);
  auto data = [&](Value v) -> float* {
    Value root = root_of(v);
    const Node& r = nodes_[root];
    if (r.layer) return reinterpret_cast<float*>(r.bytes ? base + r.offset : base);  // 0 bytes: never placed
    uint32_t index = 0;
    for (Value i = 0; i < root; ++i) index += nodes_[i].layer ? 0 : 1;
    return const_cast<float*>(inputs[index]);
  };
  for (uint32_t i = 0; i < count_; ++i) {
    const Node& n = nodes_[i];
    if (!n.layer || n.layer->is_view()) continue;
    Args a;
    for (uint32_t k = 0; k < 2 && n.in[k] != kNone; ++k) a.in[k] = data(n.in[k]), a.in_shape[k] = nodes_[n.in[k]].shape;
    SCORCH_MICRO_TRY(check_unchanged(n, a.in_shape));
    a.out = data(Value(i));
    a.out_shape = n.shape;
    a.scratch = n.scratch_bytes ? base + n.scratch_offset : nullptr;
    if (hook) hook(context, Value(i), false);
    Status s = n.layer->forward(a);
    if (hook) hook(context, Value(i), true);
    if (!s.ok()) return raise(s);
  }
  const float* result = data(output_);
  size_t count = nodes_[output_].shape.numel();
  for (size_t i = 0; i < count; ++i) output[i] = result[i];
  return {};
}

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro

// Blocked execution of fused programs on Cpu (see executor.h).
#include "scorch/backends/cpu/fusion/executor.h"

#include <algorithm>

namespace scorch::fusion {
namespace {

using backends::cpu::CpuTensor;
using backends::cpu::Strides;

/// The program's shape with adjacent dims merged where every operand steps through them as one; each
/// operand's strides over it.
struct Layout {
  std::vector<size_t> dims;
  std::vector<std::vector<int64_t>> strides;  // per operand
};

Layout coalesce(const Shape& shape, const std::vector<Strides>& operand_strides) {
  Layout out;
  out.strides.resize(operand_strides.size());
  for (size_t d = 0; d < shape.rank(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !out.dims.empty();
    for (size_t k = 0; merge && k < operand_strides.size(); ++k)
      merge = out.strides[k].back() == operand_strides[k][d] * static_cast<int64_t>(shape[d]);
    if (merge) {
      out.dims.back() *= shape[d];
      for (size_t k = 0; k < operand_strides.size(); ++k) out.strides[k].back() = operand_strides[k][d];
    } else {
      out.dims.push_back(shape[d]);
      for (size_t k = 0; k < operand_strides.size(); ++k) out.strides[k].push_back(operand_strides[k][d]);
    }
  }
  if (out.dims.empty()) {
    out.dims.push_back(1);
    for (auto& s : out.strides) s.push_back(1);
  }
  return out;
}

/// How the coalesced dims split into blocks: dims before `split` are iterated one index at a time, dim `split`
/// in chunks of `chunk`, dims after it whole.
struct Blocking {
  size_t split = 0, chunk = 1, chunks_per_row = 1, blocks = 1;
};

Blocking plan_blocks(const std::vector<size_t>& dims) {
  Blocking b;
  size_t inner = 1;
  b.split = dims.size() - 1;
  while (b.split > 0 && inner * dims[b.split] <= kFusedBlock) inner *= dims[b.split--];
  b.chunk = std::max<size_t>(1, kFusedBlock / inner);
  b.chunk = std::min(b.chunk, dims[b.split]);
  b.chunks_per_row = (dims[b.split] + b.chunk - 1) / b.chunk;
  b.blocks = b.chunks_per_row;
  for (size_t d = 0; d < b.split; ++d) b.blocks *= dims[d];
  return b;
}

/// The view of operand k (storage of like) covering block index.
CpuTensor block_view(const CpuTensor& like, const Layout& layout, size_t k, const Blocking& b, size_t index) {
  const auto& dims = layout.dims;
  const auto& st = layout.strides[k];
  size_t row = index / b.chunks_per_row, start = (index % b.chunks_per_row) * b.chunk;
  int64_t offset = like.offset();
  for (size_t d = b.split; d-- > 0;) {
    offset += static_cast<int64_t>(row % dims[d]) * st[d];
    row /= dims[d];
  }
  offset += static_cast<int64_t>(start) * st[b.split];
  std::vector<size_t> block_dims{std::min(b.chunk, dims[b.split] - start)};
  Strides strides{};
  strides[0] = st[b.split];
  for (size_t d = b.split + 1; d < dims.size(); ++d) {
    strides[block_dims.size()] = st[d];
    block_dims.push_back(dims[d]);
  }
  return CpuTensor(like.storage(), Shape(block_dims), strides, offset, like.dtype());
}

const CpuTensor& primitive(const Value<Cpu>& v) {
  return std::visit([](const CpuTensor& t) -> const CpuTensor& { return t; }, v.primitive);
}

/// Runs the program on one block: leaves and outputs as block views.
void run_block(const Program<Cpu>& program, const std::vector<CpuTensor>& leaf_blocks,
               const std::vector<CpuTensor>& out_blocks, const std::vector<size_t>& uses) {
  auto values = evaluate(
      program, uses, [&](size_t k, const Node<Cpu>& node) { return Value<Cpu>::of_kind(node.kind, leaf_blocks[k]); });
  for (size_t k = 0; k < values.size(); ++k) backends::cpu::assign_view(out_blocks[k], primitive(values[k]));
}

/// x's elements start .. start + length along dim.
CpuTensor narrowed(const CpuTensor& x, size_t dim, size_t start, size_t length) {
  Shape shape = x.shape();
  shape[dim] = length;
  return CpuTensor(x.storage(), shape, x.strides(), x.offset() + static_cast<int64_t>(start) * x.strides()[dim],
                   x.dtype());
}

}  // namespace

std::vector<Value<Cpu>> Executor<Cpu>::run(const Program<Cpu>& program, Stats& stats) {
  if (!program.uniform_shape()) return run_unfused(program);
  const Shape& shape = program.ops.front()->shape;
  // One op gains nothing from blocks (it reads and writes once anyway); small programs already fit in cache.
  if (program.ops.size() < 2 || shape.num_elements() < kFusedMinElements) return run_unfused(program);
  std::vector<CpuTensor> operands;  // leaves, then outputs
  std::vector<Strides> strides;
  for (auto* leaf : program.leaves) {
    operands.push_back(primitive(*leaf->value));
    strides.push_back(backends::cpu::broadcast_strides(operands.back(), shape));
  }
  std::vector<Value<Cpu>> outputs;
  for (size_t i : program.outputs) {
    Node<Cpu>* op = program.ops[i];
    CpuTensor out(shape, op->dtype);
    operands.push_back(out);
    strides.push_back(out.strides());
    outputs.push_back(Value<Cpu>::of_kind(op->kind, std::move(out)));
  }
  Layout layout = coalesce(shape, strides);
  Blocking blocking = plan_blocks(layout.dims);
  std::vector<size_t> uses = count_uses(program);
  size_t leaves = program.leaves.size();
  backends::cpu::parallel_for(blocking.blocks, 1, [&](size_t lo, size_t hi) {
    std::vector<CpuTensor> leaf_blocks(leaves), out_blocks(operands.size() - leaves);
    for (size_t b = lo; b < hi; ++b) {
      for (size_t k = 0; k < operands.size(); ++k)
        (k < leaves ? leaf_blocks[k] : out_blocks[k - leaves]) = block_view(operands[k], layout, k, blocking, b);
      run_block(program, leaf_blocks, out_blocks, uses);
    }
  });
  ++stats.fused_programs;
  return outputs;
}

std::optional<std::vector<Value<Cpu>>> Executor<Cpu>::run_reduction(const Program<Cpu>& program, Stats& stats) {
  const Node<Cpu>* reduction = program.reduction();
  const Shape& shape = reduction->pending->inputs.front()->shape;
  if (program.ops.size() < 2 || shape.rank() < 2 || shape.num_elements() < kFusedMinElements) return std::nullopt;
  // A reduction that keeps the shape (softmax, scans) would write its block result and copy it again: measured
  // slower than its input's fused pass followed by the reduction (softmax of 2048x2048 on 2 cores).
  if (reduction->shape == shape) return std::nullopt;
  for (auto* op : program.ops)
    if (op != reduction && op->shape != shape) return std::nullopt;
  // Blocks of whole slices along a dim other than the reduced one, so each block reduces on its own.
  size_t along = *reduction->pending->reduce_dim == 0 ? shape.rank() - 1 : 0;
  size_t slice = shape.num_elements() / shape[along];
  if (slice > 4 * kFusedBlock) return std::nullopt;  // a slice would not stay in cache
  size_t rows = std::max<size_t>(1, kFusedBlock / slice), blocks = (shape[along] + rows - 1) / rows;
  std::vector<CpuTensor> leaves, outs;
  for (auto* leaf : program.leaves) {
    const CpuTensor& x = primitive(*leaf->value);
    leaves.emplace_back(x.storage(), shape, backends::cpu::broadcast_strides(x, shape), x.offset(), x.dtype());
  }
  std::vector<Value<Cpu>> outputs;
  for (size_t i : program.outputs) {
    Node<Cpu>* op = program.ops[i];
    outs.emplace_back(op->shape, op->dtype);
    outputs.push_back(Value<Cpu>::of_kind(op->kind, outs.back()));
  }
  std::vector<size_t> uses = count_uses(program);
  backends::cpu::parallel_for(blocks, 1, [&](size_t lo, size_t hi) {
    std::vector<CpuTensor> leaf_blocks(leaves.size()), out_blocks(outs.size());
    for (size_t b = lo; b < hi; ++b) {
      size_t start = b * rows, length = std::min(rows, shape[along] - start);
      for (size_t k = 0; k < leaves.size(); ++k) leaf_blocks[k] = narrowed(leaves[k], along, start, length);
      for (size_t k = 0; k < outs.size(); ++k) out_blocks[k] = narrowed(outs[k], along, start, length);
      run_block(program, leaf_blocks, out_blocks, uses);
    }
  });
  ++stats.fused_programs;
  return outputs;
}

}  // namespace scorch::fusion

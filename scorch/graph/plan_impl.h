#pragma once
// CompiledModel's insides, shared by compile.cpp (which builds them) and compiled_model.cpp (which runs them): the
// interpreter that folded the graph and runs what is not lowered, the value slots and their buffers, the arena and
// the steps.
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <dnnl.hpp>

#include "scorch/graph/arena_plan.h"
#include "scorch/graph/compiled_model.h"
#include "scorch/graph/fuse.h"
#include "scorch/dyn/dyn.h"
#include "scorch/import/onnx/runtime/runtime.h"

namespace scorch::graph {

/// A region of the arena: its size, lifetime and, for f32 data, oneDNN's description of its layout.
struct Buffer {
  BufferLife life;
  std::optional<dnnl::memory::desc> desc;
};

/// Where a value lives: in an arena buffer (in_arena; plain says whether its layout is row-major), or held as the
/// interpreter's value (held: its index in Impl::held) when an interpreter step made it, or both once a oneDNN step
/// needed a held value in the arena.
struct Slot {
  size_t buffer = 0;
  ValueMeta meta;
  bool plain = true;
  bool in_arena = true;
  std::optional<size_t> held;
};

/// One step of the plan: what it reports, and bind(), which makes its run function once the arena exists.
struct Step {
  StepInfo info;
  std::function<std::function<void()>()> bind;
  std::function<void()> run;
};

/// s's dims as oneDNN's (a scalar as one element).
inline dnnl::memory::dims dims_of(const Shape& s) {
  dnnl::memory::dims d;
  for (size_t i = 0; i < s.rank(); ++i) d.push_back(static_cast<dnnl::memory::dim>(s[i]));
  if (d.empty()) d.push_back(1);
  return d;
}

/// The row-major format of a rank (0 to 6).
inline dnnl::memory::format_tag plain_tag(size_t rank) {
  using tag = dnnl::memory::format_tag;
  static const tag tags[] = {tag::a, tag::a, tag::ab, tag::abc, tag::abcd, tag::abcde, tag::abcdef};
  return tags[rank];
}

/// f32 values of shape s, row-major.
inline dnnl::memory::desc plain_desc(const Shape& s) {
  return {dims_of(s), dnnl::memory::data_type::f32, plain_tag(s.rank())};
}

/// True for values oneDNN can describe: f32, at least one element, rank at most 6.
inline bool dense_f32(const ValueMeta& m) {
  return m.dtype == DType::F32 && m.shape.num_elements() > 0 && m.shape.rank() <= 6;
}

struct CompiledModel::Impl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  size_t threads = 1;
  std::unique_ptr<onnx::detail::Interpreter> interpreter;
  std::map<std::string, ValueMeta> meta;
  std::map<std::string, TensorData> constants;  // on the host, for the pass and the weights
  std::map<std::string, Slot> slots;
  std::vector<Buffer> buffers;
  std::vector<dnnl::memory> owned;  // reordered weights and biases
  std::vector<Step> steps;
  std::vector<std::string> inputs, outputs;
  std::unique_ptr<std::byte, decltype(&std::free)> arena{nullptr, &std::free};
  ArenaPlan arena_plan;
  std::vector<dnnl::memory> memories;                 // per buffer with a desc, over the arena
  std::vector<std::optional<onnx::Value<Dyn>>> held;  // values interpreter steps made, by Slot::held
  std::vector<size_t> held_last;                      // the last step reading each (a graph output: none)
  size_t nodes = 0, fused = 0, interpreted = 0;
  bool profiling = false;

  std::byte* data(size_t buffer) { return arena.get() + arena_plan.offsets[buffer]; }
  dnnl::memory& memory(size_t buffer) { return memories.at(buffer); }
};

}  // namespace scorch::graph

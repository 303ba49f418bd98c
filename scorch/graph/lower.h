#pragma once
// Lowering: each group of the pass (fuse.h) becomes steps of the plan: a oneDNN primitive with its post-ops and
// pre-reordered weights, the reorders its operands need to reach the layout it chose, or one interpreter call.
// finish() plans the arena over the buffers' lifetimes and binds every step to its memory.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "scorch/graph/plan_impl.h"

namespace scorch::graph {

/// Builds m's steps group by group.
class Lowering {
 public:
  explicit Lowering(CompiledModel::Impl& m);
  /// A graph input: a plain buffer written before the first step.
  void define_input(const std::string& name);
  /// The steps of group g (a oneDNN group that oneDNN refuses runs through the interpreter instead).
  void add(const Group& g);
  /// Keeps the outputs alive to the end, places every buffer in the arena and binds the steps.
  void finish();

 private:
  /// What the grouping pass read, for a lowering that asks it again (an activation's kind, a reduction's axes).
  GraphFacts facts() const;
  void add_conv(const Group& g);
  void add_matmul(const Group& g);
  void add_batch_matmul(const Group& g);
  void add_pool(const Group& g);
  void add_resize(const Group& g);
  void add_reduce(const Group& g);
  void add_eltwise(const Group& g);
  void add_binary(const Group& g);
  void add_reshape(const Group& g);
  void add_transpose(const Group& g);
  void add_rnn(const Group& g);
  /// A recurrent group's Y [T, D, N, H] written from oneDNN's [T, N, D·H] buffer layer (tndh: T, N, D, H).
  void sequence_output(const Group& g, const std::string& y, size_t layer, const dnnl::memory::dims& tndh);
  void add_layer_norm(const Group& g);
  void add_softmax(const Group& g);
  void add_concat(const Group& g);
  void add_batch_norm(const Group& g);
  void add_where(const Group& g);
  void add_interpreter(size_t node_index);

  /// True when the group's head reads a value only the interpreter holds (not in the arena).
  bool reads_held(const Group& g) const;
  size_t new_buffer(size_t bytes, std::optional<dnnl::memory::desc> desc);
  /// Makes name's slot over a new buffer written by the next step.
  size_t define(const std::string& name, std::optional<dnnl::memory::desc> desc);
  /// A buffer over owner's bytes described by desc (same size: another rank or dims), read or written by the next
  /// step.
  size_t view(size_t owner, const dnnl::memory::desc& desc);
  /// The buffer whose bytes buffer views (itself when it is no view).
  size_t root(size_t buffer) const;
  /// True when a node at index node or later reads name (a graph output always is).
  bool read_after(const std::string& name, size_t node) const;
  /// Keeps buffer (and the buffers it views) alive through step.
  void extend(size_t buffer, size_t step);
  /// Marks buffer as read by the next step.
  size_t use(size_t buffer);
  /// name's arena buffer: a held value is copied into a plain one by a step pushed now (once).
  size_t buffer_of(const std::string& name);
  /// Marks held value i as read by the next step.
  void use_held(size_t i);
  /// name's buffer in layout want: its own, or a temporary filled by a reorder step pushed now.
  size_t as_layout(const std::string& name, const dnnl::memory::desc& want);
  /// The buffer a head with a residual sum writes: the residual's own when g.sum_in_place and its layout is
  /// dst_md's, else a new one the residual is copied into first.
  size_t residual_destination(const Group& g, const dnnl::memory::desc& dst_md);
  /// name's buffer in plain row-major layout.
  size_t as_plain(const std::string& name);
  /// A reorder step from buffer src to buffer dst (layouts from their descs).
  void push_reorder(size_t src, size_t dst, const std::string& what);
  /// A oneDNN primitive step reading and writing buffers (by argument) and owned memories.
  void push_primitive(StepInfo info, dnnl::primitive p, std::vector<std::pair<int, size_t>> buffers,
                      std::vector<std::pair<int, dnnl::memory>> fixed);
  StepInfo info_of(const Group& g, const char* kind) const;
  /// A constant as a oneDNN memory in desc's layout (reordered from plain data of dims).
  dnnl::memory constant_memory(const std::string& name, const dnnl::memory::desc& plain,
                               const dnnl::memory::desc& want);
  /// data (laid out as plain) copied into a memory of layout want that the plan owns.
  dnnl::memory owned_memory(const void* data, const dnnl::memory::desc& plain, const dnnl::memory::desc& want);

  CompiledModel::Impl& m_;
  std::vector<std::pair<size_t, size_t>> aliases_;  // (view, owner): a view's bytes are its owner's
  std::map<size_t, size_t> owner_of_;               // view → owner, for lifetimes
  std::map<std::string, size_t> last_read_;         // the last node index reading each value (SIZE_MAX: always)
};

}  // namespace scorch::graph

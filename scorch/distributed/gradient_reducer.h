#pragma once
// GradientReducer<M>: data-parallel gradient averaging that overlaps the backward pass. The module's trainable
// parameters are cut into buckets (about bucket_bytes each, last parameters first, as backward produces them);
// backward tells the reducer each leaf gradient as soon as it is final (autodiff::LeafGradientObserver), and a
// bucket whose gradients are all in starts its all-reduce at once, in bucket order on every rank, while backward
// goes on. finish() starts what is left, waits, and puts the mean over the ranks in the step's GradientsParams.
// A parameter without a gradient on some rank counts as zero there; one without a gradient on every rank gets
// none (each bucket carries a presence flag per parameter, read back only by a rank that lacks a gradient).
#include <algorithm>
#include <iterator>
#include <map>
#include <unordered_map>

#include "scorch/autodiff/node.h"
#include "scorch/distributed/bucket_all_reduce.h"
#include "scorch/distributed/reducer_options.h"
#include "scorch/optim/gradients_params.h"

namespace scorch::distributed {

/// The model-free part of GradientReducer: the parameters' slots, their buckets and the all-reduces, for tensors of
/// backend Inner. Compiled once per backend in a stack's library (stacks/cpu/distributed.cpp for Cpu).
template <class Inner> class BucketReducer : public autodiff::LeafGradientObserver<typename Inner::FloatTensor> {
 public:
  using P = typename Inner::FloatTensor;

  BucketReducer(std::shared_ptr<ProcessGroup> group, std::unique_ptr<BucketAllReduce<P>> comm,
                ReducerOptions options = {})
      : group_(std::move(group)), comm_(std::move(comm)), options_(options) {}
  BucketReducer(const BucketReducer&) = delete;
  BucketReducer& operator=(const BucketReducer&) = delete;
  ~BucketReducer() override { end_observing(); }

  void leaf_ready(uint64_t node, const P& grad) override {
    auto it = by_node_.find(node);
    if (it == by_node_.end()) return;  // not a parameter of the module (an input that requires grad)
    Slot& slot = slots_[it->second];
    if (slot.bucket < next_bucket_)
      throw ValueError("distributed::GradientReducer", "parameter " + slot.id.to_string() +
                                                           " got a second gradient after its bucket was sent: a "
                                                           "data-parallel step runs one backward pass");
    if (!slot.grad) ++buckets_[slot.bucket].ready;
    slot.grad = grad;
    start_ready_buckets();
  }

 protected:
  struct Slot {
    ParamId id;
    uint64_t node = 0;
    Shape shape;
    DType dtype = DType::F32;
    typename Inner::Device device{};
    size_t bucket = 0;
    std::optional<P> grad;
  };
  struct Bucket {
    size_t first = 0, last = 0, ready = 0;
  };
  /// Forgets the last step's parameters (begin then adds this step's slots in visiting order).
  void clear_slots() { slots_.clear(), by_node_.clear(), by_id_.clear(), next_bucket_ = 0; }
  /// A new parameter slot (in the module's visiting order).
  Slot& add_slot() { return slots_.emplace_back(); }
  /// Orders the slots as backward produces them, indexes them, plans the buckets and observes this thread's backward.
  void begin_slots() {
    slots_ = std::vector<Slot>(std::make_move_iterator(slots_.rbegin()), std::make_move_iterator(slots_.rend()));
    for (size_t s = 0; s < slots_.size(); ++s) {
      if (slots_[s].node != 0) by_node_.emplace(slots_[s].node, s);
      by_id_.emplace(slots_[s].id, s);
    }
    if (layout_ != signature()) plan_buckets();
    for (size_t b = 0; b < buckets_.size(); ++b) {
      buckets_[b].ready = 0;
      for (size_t s = buckets_[b].first; s < buckets_[b].last; ++s) slots_[s].bucket = b;
    }
    if (options_.overlap) observe();
  }
  /// A gradient backward did not report, given to its slot (unless its bucket was sent).
  void fill_slot(ParamId id, const P& grad) {
    Slot& slot = slots_[slot_of(id)];
    if (slot.grad || slot.bucket < next_bucket_) return;
    slot.grad = grad;
    ++buckets_[slot.bucket].ready;
  }
  /// Whether parameter id's slot still waits for a gradient backward did not report.
  bool wants_fill(ParamId id) {
    const Slot& slot = slots_[slot_of(id)];
    return !slot.grad && slot.bucket >= next_bucket_;
  }
  /// Sends what backward did not, waits for every bucket and leaves each slot's mean over the ranks (or none).
  void reduce_slots() {
    while (next_bucket_ < buckets_.size()) start_bucket(next_bucket_++);
    bool all_here = std::all_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.grad.has_value(); });
    std::vector<P> sums;
    for (size_t b = 0; b < buckets_.size(); ++b) sums.push_back(comm_->finish());
    for (size_t k = 0; k < buckets_.size(); ++k) {
      const Bucket& b = buckets_[k];
      P flat = KindOps<Inner, Float>::div_scalar(std::move(sums[k]), Scalar(double(group_->size())));
      // Every parameter here has a gradient; otherwise the summed presence flags say which have one anywhere.
      std::vector<float> present = all_here ? std::vector<float>() : presence(flat, b);
      for (size_t s = b.first, offset = 0; s < b.last; offset += slots_[s].shape.num_elements(), ++s)
        if (all_here || present[s - b.first] > 0) slots_[s].grad = unflatten(flat, offset, slots_[s]);
        else slots_[s].grad.reset();
    }
  }
  /// Takes parameter id's reduced gradient out of its slot (none: no rank had one).
  std::optional<P> take_slot(ParamId id) {
    Slot& slot = slots_[slot_of(id)];
    std::optional<P> out = std::move(slot.grad);
    slot.grad.reset();
    return out;
  }
  size_t slot_of(ParamId id) const {
    if (auto it = by_id_.find(id); it != by_id_.end()) return it->second;
    throw ValueError("distributed::GradientReducer", "parameter " + id.to_string() + " was not in the step's module");
  }
  std::vector<std::pair<ParamId, Shape>> signature() const {
    std::vector<std::pair<ParamId, Shape>> out;
    for (const auto& s : slots_) out.emplace_back(s.id, s.shape);
    return out;
  }
  /// Consecutive slots, the first bucket up to first_bucket_bytes of f32, the others up to bucket_bytes (a larger
  /// parameter alone).
  void plan_buckets() {
    buckets_.clear();
    size_t bytes = 0;
    for (size_t s = 0; s < slots_.size(); ++s) {
      size_t b = slots_[s].shape.num_elements() * sizeof(float);
      size_t cap = buckets_.size() == 1 ? options_.first_bucket_bytes : options_.bucket_bytes;
      if (buckets_.empty() || (bytes > 0 && bytes + b > cap)) buckets_.push_back({s, s, 0}), bytes = 0;
      buckets_.back().last = s + 1, bytes += b;
    }
    layout_ = signature();
  }
  void start_ready_buckets() {
    while (next_bucket_ < buckets_.size() &&
           buckets_[next_bucket_].ready == buckets_[next_bucket_].last - buckets_[next_bucket_].first)
      start_bucket(next_bucket_++);
  }
  /// The bucket's gradients (zeros where absent) then one presence flag per parameter (1 where this rank has a
  /// gradient), as one flat f32 tensor handed to the communicator: the sum tells which parameters have a gradient
  /// on some rank without a collective of its own.
  void start_bucket(size_t b) {
    using K = KindOps<Inner, Float>;
    std::vector<P> parts;
    std::vector<float> flags;
    for (size_t s = buckets_[b].first; s < buckets_[b].last; ++s) {
      Shape flat{slots_[s].shape.num_elements()};
      const auto& g = slots_[s].grad;
      if (g) parts.push_back(K::reshape(g->dtype() == DType::F32 ? *g : K::cast(*g, DType::F32), flat));
      else parts.push_back(K::zeros(flat, slots_[s].device, DType::F32));
      flags.push_back(g ? 1.0f : 0.0f);
    }
    Shape n{flags.size()};
    const auto& device = slots_[buckets_[b].first].device;
    bool all = std::all_of(flags.begin(), flags.end(), [](float f) { return f > 0; });
    parts.push_back(all ? K::ones(n, device, DType::F32) : K::from_data(TensorData(flags, n), device));
    comm_->start(K::cat(std::move(parts), 0));
  }
  /// The bucket's summed presence flags (the tail of flat), read back to the host.
  std::vector<float> presence(const P& flat, const Bucket& b) const {
    using K = KindOps<Inner, Float>;
    size_t grads = 0;
    for (size_t s = b.first; s < b.last; ++s) grads += slots_[s].shape.num_elements();
    P flags = K::slice(flat, {SliceRange{grads, grads + (b.last - b.first), 1}});
    return K::into_data(std::move(flags)).convert(DType::F32).template to_vector<float>();
  }
  P unflatten(const P& flat, size_t offset, const Slot& slot) const {
    using K = KindOps<Inner, Float>;
    size_t n = slot.shape.num_elements();
    P part = K::reshape(K::slice(flat, {SliceRange{offset, offset + n, 1}}), slot.shape);
    return slot.dtype == DType::F32 ? part : K::cast(part, slot.dtype);
  }
  void observe() {
    auto& current = autodiff::leaf_gradient_observer<P>();
    if (current && current != this)
      throw ValueError("distributed::GradientReducer", "another reducer already observes this thread's backward");
    current = this;
  }
  void end_observing() {
    auto& current = autodiff::leaf_gradient_observer<P>();
    if (current == this) current = nullptr;
  }

  std::shared_ptr<ProcessGroup> group_;
  std::unique_ptr<BucketAllReduce<P>> comm_;
  ReducerOptions options_;
  std::vector<Slot> slots_;
  std::unordered_map<uint64_t, size_t> by_node_;
  std::map<ParamId, size_t> by_id_;
  std::vector<Bucket> buckets_;
  std::vector<std::pair<ParamId, Shape>> layout_;
  size_t next_bucket_ = 0;
};

/// Data-parallel gradient averaging for module type M (see the top of this file).
template <Module M> class GradientReducer final : public BucketReducer<typename BackendOf<M>::InnerBackend> {
 public:
  using Inner = typename BackendOf<M>::InnerBackend;
  using Base = BucketReducer<Inner>;
  using Base::Base;

  /// Readies a step of model: maps its parameters' leaves to bucket slots and observes this thread's backward.
  void begin(const M& model) {
    this->clear_slots();
    Collector c{*this};
    model.visit(c);
    this->begin_slots();
  }
  /// Sums what backward did not send, waits for every bucket and returns grads with each parameter's gradient
  /// replaced by its mean over the ranks.
  optim::GradientsParams finish(const M& model, optim::GradientsParams grads) {
    this->end_observing();
    Filler f{*this, grads};
    model.visit(f);  // gradients backward did not report (or all of them without overlap)
    this->reduce_slots();
    Writer w{*this, grads};
    model.visit(w);
    return grads;
  }

 private:
  template <class Param> static bool trainable(const Param& p) {
    if constexpr (std::same_as<typename Param::Value::Kind, Float>) return p.is_require_grad() && p.id().valid();
    else return false;
  }
  struct Collector {
    GradientReducer& r;
    template <class Param> void visit(const std::string&, const Param& p) {
      if (!trainable(p)) return;
      auto value = p.val();  // by value: the slot reads the tensor's autodiff node
      const auto& node = value.primitive().node;
      auto& slot = r.add_slot();
      slot.id = p.id(), slot.node = node ? node->id() : 0, slot.shape = value.shape();
      slot.dtype = value.dtype(), slot.device = value.device();
    }
  };
  struct Filler {
    GradientReducer& r;
    const optim::GradientsParams& grads;
    template <class Param> void visit(const std::string&, const Param& p) {
      if (!trainable(p) || !r.wants_fill(p.id())) return;
      if (auto g = grads.template get<Inner, Param::Value::rank()>(p.id())) r.fill_slot(p.id(), g->primitive());
    }
  };
  struct Writer {
    GradientReducer& r;
    optim::GradientsParams& grads;
    template <class Param> void visit(const std::string&, const Param& p) {
      if (!trainable(p)) return;
      constexpr size_t D = Param::Value::rank();
      if (auto g = r.take_slot(p.id()))
        grads.template register_grad<Inner, D>(p.id(), Tensor<Inner, D>::from_primitive(std::move(*g)));
      else grads.template remove<Inner, D>(p.id());
    }
  };
};

}  // namespace scorch::distributed

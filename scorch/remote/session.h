#pragma once
// A client's session on scorch-server, over backend B: its tensors by id, the memory they take against the session's
// limit, and the first error of an op nobody has waited for yet. Requests run through the generated executor
// (gen/ir_execute.h: ir::execute), which looks operands up here (in, list, optional) and stores results (put, value).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "scorch/core/error.h"
#include "scorch/gen/ir_execute.h"
#include "scorch/remote/server.h"

namespace scorch::remote {

template <class B> class Session final : public SessionBase {
 public:
  using F = typename B::FloatTensor;
  using I = typename B::IntTensor;
  using Bt = typename B::BoolTensor;
  template <class K> using Primitive = typename K::template Primitive<B>;

  Session(typename B::Device device, uint64_t memory_limit) : device_(std::move(device)), limit_(memory_limit) {}

  void release(const std::vector<uint64_t>& ids) override {
    for (uint64_t id : ids) free(id);
  }
  std::optional<Reply> handle(Request& request) override {
    if (!expects_reply(request.kind)) {
      try {
        if (request.kind == RequestKind::Seed) B::seed(request.value);
        else run(*request.record);
      } catch (const std::exception& e) {
        if (!pending_) pending_ = error_reply(e);
      }
      return std::nullopt;
    }
    if (pending_) return std::exchange(pending_, std::nullopt);
    try {
      return answer(request);
    } catch (const std::exception& e) { return error_reply(e); }
  }
  void fail_op(Reply error) override {
    if (!pending_) pending_ = std::move(error);
  }
  uint64_t tensors() const override { return tensors_.size(); }
  uint64_t bytes() const override { return bytes_; }

  // What the generated executor calls.
  /// Operand t as a K tensor; ShapeError for an id the session does not hold, DTypeError for another kind.
  template <class K> Primitive<K> in(const ir::TensorIr& t) const {
    auto it = tensors_.find(t.id);
    if (it == tensors_.end()) throw ShapeError(op_name(), "no tensor " + std::to_string(t.id) + " in this session");
    if (auto* p = std::get_if<K::index>(&it->second.tensor)) return *p;
    throw DTypeError(op_name(), "tensor " + std::to_string(t.id) + " is not a " + kind_name<K>() + " tensor");
  }
  /// Operand t's shape and dtype (ir::validate reads them); ShapeError for an id the session does not hold.
  ir::Meta meta(const ir::TensorIr& t) const {
    auto it = tensors_.find(t.id);
    if (it == tensors_.end()) throw ShapeError(op_name(), "no tensor " + std::to_string(t.id) + " in this session");
    return std::visit([](const auto& p) { return ir::Meta{Shape(p.shape()), DType(p.dtype())}; }, it->second.tensor);
  }
  template <class K> std::vector<Primitive<K>> list(const std::vector<ir::TensorIr>& ts) const {
    std::vector<Primitive<K>> out;
    out.reserve(ts.size());
    for (const auto& t : ts) out.push_back(in<K>(t));
    return out;
  }
  template <class K> std::optional<Primitive<K>> optional(const std::optional<ir::TensorIr>& t) const {
    if (!t) return std::nullopt;
    return in<K>(*t);
  }
  const typename B::Device& device() const { return device_; }

  /// Stores an op's result under the record's output ids, in order.
  template <class Out, class R> bool put(Out& out, R result) {
    std::span<ir::TensorIr> slots(out.data(), out.size());
    size_t at = 0;
    store_all(slots, at, std::move(result));
    if (at != slots.size())
      throw ValueError(op_name(), "the record names " + std::to_string(slots.size()) + " outputs, the op made " +
                                      std::to_string(at));
    return true;
  }
  bool value(TensorData data) {
    value_data_ = std::move(data);
    return true;
  }
  bool value(uint64_t v) {
    value_uint_ = v;
    return true;
  }

  /// Fails before an elementwise op whose operands broadcast to a shape check_size refuses.
  void check_broadcast(std::initializer_list<const ir::TensorIr*> operands) const {
    std::vector<size_t> dims;
    for (const ir::TensorIr* t : operands) {
      auto s = shape_of(*t);
      if (!s) return;  // the op itself reports an unknown id
      if (dims.empty()) dims.assign(s->rank(), 1);
      if (s->rank() != dims.size()) return;  // nor do ranks that differ
      for (size_t d = 0; d < dims.size(); ++d) dims[d] = std::max(dims[d], (*s)[d]);
    }
    check_size(Shape(dims));
  }
  /// Fails before a matrix product whose result ([..., m, n]) check_size refuses.
  void check_matmul(const ir::TensorIr& a, const ir::TensorIr& b) const {
    auto sa = shape_of(a), sb = shape_of(b);
    if (!sa || !sb || sa->rank() != sb->rank() || sa->rank() < 2) return;
    std::vector<size_t> dims(sa->rank());
    for (size_t d = 0; d + 2 < dims.size(); ++d) dims[d] = std::max((*sa)[d], (*sb)[d]);
    dims[dims.size() - 2] = (*sa)[dims.size() - 2];
    dims[dims.size() - 1] = (*sb)[dims.size() - 1];
    check_size(Shape(dims));
  }
  /// Fails before repeat_dim makes x's dim times longer than check_size allows.
  void check_repeat(const ir::TensorIr& x, size_t dim, size_t times) const {
    auto s = shape_of(x);
    if (!s || dim >= s->rank()) return;
    std::vector<size_t> dims(s->rank());
    for (size_t d = 0; d < dims.size(); ++d) dims[d] = (*s)[d];
    if (__builtin_mul_overflow(dims[dim], times, &dims[dim])) dims[dim] = std::numeric_limits<size_t>::max();
    check_size(Shape(dims));
  }
  /// Fails before arange makes more elements than check_size allows.
  void check_arange(int64_t start, int64_t end, int64_t step) const {
    if (step == 0) return;  // the op reports it
    double count = std::ceil((static_cast<double>(end) - static_cast<double>(start)) / static_cast<double>(step));
    if (count > 0) check_size(Shape{count >= 1e18 ? size_t{1} << 60 : static_cast<size_t>(count)});
  }

  /// Fails before an op makes a tensor of shape (at 8 bytes an element) that the session's limit cannot hold.
  void check_size(const Shape& shape) const {
    auto size = shape.checked_num_bytes(8);
    if (!size || *size > limit_ - bytes_)
      throw ValueError(op_name(), "a tensor of shape " + shape.to_string() + " exceeds the session's memory limit of " +
                                      std::to_string(limit_) + " bytes (" + std::to_string(bytes_) + " held)");
  }

 private:
  static constexpr size_t kMaxFresh = 65536;
  static constexpr uint64_t kTensorOverhead = 256;  // bytes charged per tensor beside its values
  struct Stored {
    std::variant<F, I, Bt> tensor;
    uint64_t bytes;                 // charged for this tensor: its bookkeeping (and its values without a storage)
    const void* storage = nullptr;  // the buffer it views, charged once for all its views (storages_)
  };
  struct StorageCharge {
    uint64_t bytes = 0;
    size_t views = 0;
  };
  /// The buffer a primitive views and its bytes, for backends whose primitives expose storage() (Cpu): a kept
  /// 1-element slice of a 16 MB tensor holds 16 MB, and is charged so. Others: none (values charged per tensor).
  template <class P> static std::pair<const void*, uint64_t> storage_of(const P& tensor) {
    if constexpr (requires {
                    tensor.storage().get();
                    tensor.storage()->size();
                  }) {
      if (tensor.storage()) return {tensor.storage().get(), tensor.storage()->size()};
    }
    return {nullptr, 0};
  }

  template <class K> static std::string kind_name() {
    if constexpr (std::is_same_v<K, Float>) return "float";
    else if constexpr (std::is_same_v<K, Int>) return "int";
    else return "bool";
  }
  std::string op_name() const { return op_ ? std::string(kOpNames[static_cast<size_t>(*op_)]) : "scorch-server"; }

  /// The shape of the tensor t names, none for an id the session does not hold.
  std::optional<Shape> shape_of(const ir::TensorIr& t) const {
    auto it = tensors_.find(t.id);
    if (it == tensors_.end()) return std::nullopt;
    return std::visit([](const auto& p) { return Shape(p.shape()); }, it->second.tensor);
  }

  void free(uint64_t id) {
    auto it = tensors_.find(id);
    if (it == tensors_.end()) return;
    bytes_ -= it->second.bytes;
    if (auto s = storages_.find(it->second.storage); s != storages_.end() && --s->second.views == 0) {
      bytes_ -= s->second.bytes;
      storages_.erase(s);
    }
    tensors_.erase(it);
  }

  template <class P> void store(std::span<ir::TensorIr> slots, size_t& at, P tensor) {
    if (at >= slots.size())
      throw ValueError(op_name(), "the record names " + std::to_string(slots.size()) + " outputs, the op makes more");
    ir::TensorIr& slot = slots[at++];
    if (slot.id == 0 || tensors_.contains(slot.id))
      throw ValueError(op_name(), "output id " + std::to_string(slot.id) + " is 0 or already in use");
    auto [storage, storage_bytes] = storage_of(tensor);
    auto checked = storage ? std::optional<size_t>(0) : tensor.shape().checked_num_bytes(dtype_size(tensor.dtype()));
    // Every tensor costs its bookkeeping too, so many empty tensors reach the limit as large ones do; a view costs
    // its whole buffer once, however small the view, until its last view goes.
    uint64_t size =
        checked && *checked < (uint64_t{1} << 62) ? *checked + kTensorOverhead : std::numeric_limits<uint64_t>::max();
    uint64_t new_storage = storage && !storages_.contains(storage) ? storage_bytes : 0;
    if (new_storage > limit_ - bytes_ || size > limit_ - bytes_ - new_storage)
      throw ValueError(op_name(), "the session's memory limit of " + std::to_string(limit_) + " bytes is reached (" +
                                      std::to_string(bytes_) + " held, " + std::to_string(size + new_storage) +
                                      " more asked)");
    slot.shape = tensor.shape();
    slot.dtype = tensor.dtype();
    outputs_.push_back(TensorMeta{slot.id, slot.shape, slot.dtype});
    fresh_.push_back(slot.id);
    bytes_ += size + new_storage;
    if (storage) {
      auto& charge = storages_[storage];
      charge.bytes = storage_bytes;
      ++charge.views;
    }
    tensors_.emplace(slot.id, Stored{hold(std::move(tensor)), size, storage});
    if (fresh_.size() > kMaxFresh) fresh_.clear();  // a stream with no reads: its tensors are described when asked
  }
  /// tensor under its kind: its type's, or its dtype's when kinds share the type (Cpu).
  template <class P> static std::variant<F, I, Bt> hold(P tensor) {
    constexpr bool f = std::is_same_v<P, F>, i = std::is_same_v<P, I>, b = std::is_same_v<P, Bt>;
    DType dtype = tensor.dtype();
    size_t want = is_float(dtype) ? 0 : is_bool(dtype) ? 2 : 1;
    if constexpr (f)
      if (want == 0 || (!i && !b)) return std::variant<F, I, Bt>(std::in_place_index<0>, std::move(tensor));
    if constexpr (b)
      if (want == 2 || !i) return std::variant<F, I, Bt>(std::in_place_index<2>, std::move(tensor));
    if constexpr (i) return std::variant<F, I, Bt>(std::in_place_index<1>, std::move(tensor));
    throw ValueError("scorch-server", "a result that is no tensor of the backend");
  }
  void skip(std::span<ir::TensorIr> slots, size_t& at) {
    if (at >= slots.size()) throw ValueError(op_name(), "the record names too few outputs");
    ++at;
    outputs_.push_back(std::nullopt);
  }
  template <class P> void store_all(std::span<ir::TensorIr> s, size_t& at, P t) requires requires { t.shape(); }
  { store(s, at, std::move(t)); }
  template <class P> void store_all(std::span<ir::TensorIr> s, size_t& at, std::optional<P> t) {
    if (t) store(s, at, std::move(*t));
    else skip(s, at);
  }
  template <class A, class C> void store_all(std::span<ir::TensorIr> s, size_t& at, std::pair<A, C> p) {
    store_all(s, at, std::move(p.first));
    store_all(s, at, std::move(p.second));
  }
  void store_all(std::span<ir::TensorIr> s, size_t& at, AdamUpdate<F> u) {
    store_all(s, at, std::move(u.param)), store_all(s, at, std::move(u.moment_1));
    store_all(s, at, std::move(u.moment_2));
  }
  void store_all(std::span<ir::TensorIr> s, size_t& at, SgdUpdate<F> u) {
    store_all(s, at, std::move(u.param)), store_all(s, at, std::move(u.velocity));
  }
  void store_all(std::span<ir::TensorIr> s, size_t& at, AttentionGradients<F> g) {
    store_all(s, at, std::move(g.q)), store_all(s, at, std::move(g.k)), store_all(s, at, std::move(g.v));
  }
  void store_all(std::span<ir::TensorIr> s, size_t& at, ConvGradients<F> g) {
    store_all(s, at, std::move(g.x)), store_all(s, at, std::move(g.weight)), store_all(s, at, std::move(g.bias));
  }
  void store_all(std::span<ir::TensorIr> s, size_t& at, NormGradients<F> g) {
    store_all(s, at, std::move(g.x)), store_all(s, at, std::move(g.gamma)), store_all(s, at, std::move(g.beta));
  }
  template <class T> void store_all(std::span<ir::TensorIr> s, size_t& at, std::vector<T> list) {
    for (T& item : list) store_all(s, at, std::move(item));
  }

  /// Runs record on B.
  void run(ir::OpRecord& record) {
    op_ = record.op();
    outputs_.clear();
    value_data_.reset();
    value_uint_.reset();
    bool known = ir::execute<B>(*this, record);
    op_.reset();
    if (!known) throw ValueError("scorch-server", "op " + std::to_string(record.index()) + " is not served");
  }

  Reply answer(Request& request) {
    Reply reply;
    switch (request.kind) {
      case RequestKind::Call: try { run(*request.record);
        } catch (...) {  // the client makes no handles for a failed call's outputs: free those it made
          for (const auto& out : outputs_)
            if (out) free(out->id);
          throw;
        }
        reply.kind = ReplyKind::Result;
        reply.metas = std::move(outputs_);
        reply.data = std::move(value_data_);
        reply.value = value_uint_;
        fresh_.clear();
        break;
      case RequestKind::Meta:
        if (!tensors_.contains(request.value))
          throw ShapeError("scorch-server", "no tensor " + std::to_string(request.value) + " in this session");
        reply.kind = ReplyKind::Metas;
        describe_fresh(reply, request.value);
        break;
      case RequestKind::Sync: B::sync(device_); break;
      default: throw ValueError("scorch-server", "a request the session does not answer");
    }
    return reply;
  }

  /// Describes tensor id and the tensors made since the last description that are still held (at most 4,096).
  void describe_fresh(Reply& reply, uint64_t id) {
    constexpr size_t kMaxMetas = 4096;
    auto describe = [&](uint64_t t) {
      auto it = tensors_.find(t);
      if (it == tensors_.end()) return;
      std::visit([&](const auto& p) { reply.metas.push_back(TensorMeta{t, p.shape(), p.dtype()}); }, it->second.tensor);
    };
    describe(id);
    for (uint64_t t : fresh_)
      if (t != id && reply.metas.size() < kMaxMetas) describe(t);
    fresh_.clear();
  }

  typename B::Device device_;
  uint64_t limit_;
  std::unordered_map<uint64_t, Stored> tensors_;
  std::unordered_map<const void*, StorageCharge> storages_;
  uint64_t bytes_ = 0;
  std::vector<uint64_t> fresh_;
  std::optional<Reply> pending_;
  std::optional<OpId> op_;
  std::vector<std::optional<TensorMeta>> outputs_;
  std::optional<TensorData> value_data_;
  std::optional<uint64_t> value_uint_;
};

}  // namespace scorch::remote

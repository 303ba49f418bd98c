#pragma once
// How Remote's generated ops (gen/remote_ops.cpp) talk to the server: Call finds the connection that holds the
// operands (a DeviceError naming both servers when they differ), describes them as the record's fields, sends the
// record, and builds the op's result from new tensor ids (ResultOf: what each result type holds).
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "scorch/backend/module_options.h"
#include "scorch/core/error.h"
#include "scorch/core/tensor_data.h"
#include "scorch/gen/ir_records.h"
#include "scorch/ir/op_record.h"
#include "scorch/remote/client.h"

namespace scorch::remote {

/// The new tensors of one op's result, in record order: a handle each, or none for an absent optional output.
class Outputs {
 public:
  explicit Outputs(std::vector<std::shared_ptr<TensorHandle>> handles) : handles_(std::move(handles)) {}
  template <class T> T next() {
    if (at_ >= handles_.size() || !handles_[at_])
      throw DeviceError("Remote", "the server's reply lacks output " + std::to_string(at_));
    return T(handles_[at_++]);
  }
  template <class T> std::optional<T> next_optional() {
    if (at_ < handles_.size() && !handles_[at_]) {
      ++at_;
      return std::nullopt;
    }
    return next<T>();
  }

 private:
  std::vector<std::shared_ptr<TensorHandle>> handles_;
  size_t at_ = 0;
};

/// What result type R holds: its tensor outputs per item (kOutputs), whether one may be absent or the result is
/// a value (kWaits: the call waits for the server's reply), and how it is built from Outputs.
template <class R> struct ResultOf;
template <class Kind> struct ResultOf<RemoteTensor<Kind>> {
  static constexpr size_t kOutputs = 1;
  static constexpr bool kWaits = false;
  static RemoteTensor<Kind> build(Outputs& out) { return out.next<RemoteTensor<Kind>>(); }
};
template <class A, class B> struct ResultOf<std::pair<A, B>> {
  static constexpr size_t kOutputs = 2;
  static constexpr bool kWaits = false;
  static std::pair<A, B> build(Outputs& out) {
    A a = out.next<A>();
    return {std::move(a), out.next<B>()};
  }
};
template <class T> struct ResultOf<AdamUpdate<T>> {
  static constexpr size_t kOutputs = 3;
  static constexpr bool kWaits = false;
  static AdamUpdate<T> build(Outputs& out) {
    T param = out.next<T>();
    T moment_1 = out.next<T>();
    return {std::move(param), std::move(moment_1), out.next<T>()};
  }
};
template <class T> struct ResultOf<AttentionGradients<T>> {
  static constexpr size_t kOutputs = 3;
  static constexpr bool kWaits = false;
  static AttentionGradients<T> build(Outputs& out) {
    T q = out.next<T>();
    T k = out.next<T>();
    return {std::move(q), std::move(k), out.next<T>()};
  }
};
template <class T> struct ResultOf<ConvGradients<T>> {
  static constexpr size_t kOutputs = 3;
  static constexpr bool kWaits = true;
  static ConvGradients<T> build(Outputs& out) {
    T x = out.next<T>();
    T weight = out.next<T>();
    return {std::move(x), std::move(weight), out.next_optional<T>()};
  }
};
template <class T> struct ResultOf<NormGradients<T>> {
  static constexpr size_t kOutputs = 3;
  static constexpr bool kWaits = true;
  static NormGradients<T> build(Outputs& out) {
    T x = out.next<T>();
    auto gamma = out.next_optional<T>();
    return {std::move(x), std::move(gamma), out.next_optional<T>()};
  }
};
template <class T> struct ResultOf<SgdUpdate<T>> {
  static constexpr size_t kOutputs = 2;
  static constexpr bool kWaits = true;
  static SgdUpdate<T> build(Outputs& out) {
    T param = out.next<T>();
    return {std::move(param), out.next_optional<T>()};
  }
};
template <class T> struct ResultOf<std::vector<T>> {
  static constexpr size_t kOutputs = ResultOf<T>::kOutputs;  // per item
  static constexpr bool kWaits = ResultOf<T>::kWaits;
  static std::vector<T> build(Outputs& out, size_t items) {
    std::vector<T> list;
    list.reserve(items);
    for (size_t i = 0; i < items; ++i) list.push_back(ResultOf<T>::build(out));
    return list;
  }
};
template <> struct ResultOf<TensorData> {
  static constexpr size_t kOutputs = 0;
  static constexpr bool kWaits = true;
};
template <> struct ResultOf<uint64_t> {
  static constexpr size_t kOutputs = 0;
  static constexpr bool kWaits = true;
};

/// One op on its way to the server.
class Call {
 public:
  /// The connection operands (tensors, lists and optionals of them, devices) are on.
  template <class... A> Call(const char* op, const A&... operands) : op_(op) {
    (note(operands), ...);
    if (!client_) throw DeviceError(op, "no operand names a server to run on");
  }

  template <class Kind> ir::TensorIr in(const RemoteTensor<Kind>& t) const { return ir::TensorIr{t.id(), {}, {}}; }
  template <class Kind> std::vector<ir::TensorIr> in(const std::vector<RemoteTensor<Kind>>& list) const {
    std::vector<ir::TensorIr> out;
    out.reserve(list.size());
    for (const auto& t : list) out.push_back(in(t));
    return out;
  }
  template <class Kind> std::optional<ir::TensorIr> in(const std::optional<RemoteTensor<Kind>>& t) const {
    if (!t) return std::nullopt;
    return in(*t);
  }
  ir::DeviceIr in(const RemoteDevice& d) const { return ir::DeviceIr{d.to_string()}; }

  /// Sends record with fresh output ids and returns its result (items: a list result's length; known: the single
  /// output's shape and dtype when the client knows them).
  template <class R, class Record> R run(Record record, size_t items = 1, std::optional<TensorMeta> known = {}) {
    using Result = ResultOf<R>;
    std::vector<uint64_t> ids;
    if constexpr (Result::kOutputs > 0) ids = output_ids(record.out, Result::kOutputs * items);
    if constexpr (!Result::kWaits) {
      client_->send_op(std::move(record));
      if (known && ids.size() == 1) {
        Reply described;
        described.metas.push_back(TensorMeta{ids[0], std::move(known->shape), known->dtype});
        return build<R>(ids, &described, items);
      }
      return build<R>(ids, nullptr, items);
    } else {
      Reply reply = client_->call(std::move(record));
      if constexpr (std::is_same_v<R, TensorData>) {
        if (!reply.data) throw DeviceError(op_, "the server's reply holds no tensor data");
        return std::move(*reply.data);
      } else if constexpr (std::is_same_v<R, uint64_t>) {
        if (!reply.value) throw DeviceError(op_, "the server's reply holds no value");
        return *reply.value;
      } else {
        return build<R>(ids, &reply, items);
      }
    }
  }

 private:
  template <class Kind> void note(const RemoteTensor<Kind>& t) { note_client(t.handle().shared_client()); }
  template <class T> void note(const std::vector<T>& list) {
    for (const T& t : list) note(t);
  }
  template <class T> void note(const std::optional<T>& t) {
    if (t) note(*t);
  }
  void note(const RemoteDevice& d) { note_client(Client::of(d)); }
  void note_client(const std::shared_ptr<Client>& c) {
    if (!client_) client_ = c;
    else if (c != client_) check_same(c->endpoint());
  }
  /// A tensor of another connection is another session's, even on the same server (ids are per session).
  void check_same(const std::string& endpoint) const {
    std::string why = endpoint == client_->endpoint()
                          ? "two connections to " + endpoint +
                                " (the server restarted or "
                                "Remote::connect was called again)"
                          : "two servers: Remote(" + client_->endpoint() + ") and Remote(" + endpoint + ")";
    throw DeviceError(op_, "operands on " + why + " (move one with to_device first)");
  }

  /// Fills out with count fresh ids (a list record's out is resized) and returns them.
  template <class Out> std::vector<uint64_t> output_ids(Out& out, size_t count) {
    if constexpr (requires { out.resize(count); }) out.resize(count);
    std::vector<uint64_t> ids;
    for (auto& t : out) ids.push_back(t.id = client_->new_id());
    return ids;
  }

  /// R from ids; with a reply, only the outputs it reports exist (with their shapes).
  template <class R> R build(const std::vector<uint64_t>& ids, const Reply* reply, size_t items) {
    std::vector<std::shared_ptr<TensorHandle>> handles;
    for (size_t i = 0; i < ids.size(); ++i) {
      if (!reply) handles.push_back(std::make_shared<TensorHandle>(client_, ids[i]));
      else if (i < reply->metas.size() && reply->metas[i])
        handles.push_back(
            std::make_shared<TensorHandle>(client_, ids[i], reply->metas[i]->shape, reply->metas[i]->dtype));
      else handles.push_back(nullptr);
    }
    Outputs out(std::move(handles));
    if constexpr (requires { ResultOf<R>::build(out, items); }) return ResultOf<R>::build(out, items);
    else return ResultOf<R>::build(out);
  }

  const char* op_;
  std::shared_ptr<Client> client_;
};

/// An elementwise op's result shape and dtype, when every operand's is known: the operands' broadcast shape, and
/// dtype or else the first operand's; none when one is unknown or the shapes do not broadcast (the server decides).
inline std::optional<TensorMeta> elementwise_meta(std::initializer_list<const TensorHandle*> operands,
                                                  std::optional<DType> dtype) {
  std::optional<Shape> shape;
  for (const TensorHandle* h : operands) {
    const auto s = h->known_shape();
    if (!s) return std::nullopt;
    if (!shape) {
      shape = *s;
      if (!dtype) dtype = h->dtype();
      continue;
    }
    if (s->rank() != shape->rank()) return std::nullopt;
    std::vector<size_t> dims(shape->rank());
    for (size_t d = 0; d < dims.size(); ++d) {
      size_t a = (*shape)[d], b = (*s)[d];
      if (a != b && a != 1 && b != 1) return std::nullopt;
      dims[d] = a == 1 ? b : a;
    }
    shape = Shape(dims);
  }
  if (!shape) return std::nullopt;
  return TensorMeta{0, std::move(*shape), *dtype};
}

/// A reduction along dim's result shape and dtype, when x's are known: x's shape with dim of length 1.
inline std::optional<TensorMeta> reduced_meta(const TensorHandle& x, size_t dim) {
  const auto s = x.known_shape();
  if (!s || dim >= s->rank()) return std::nullopt;
  std::vector<size_t> dims(s->rank());
  for (size_t d = 0; d < dims.size(); ++d) dims[d] = d == dim ? 1 : (*s)[d];
  return TensorMeta{0, Shape(dims), x.dtype()};
}

/// A reshape's or expand's result shape and dtype, when x's dtype is known: the shape given (resolved by the front
/// end).
inline std::optional<TensorMeta> shaped_meta(const TensorHandle& x, const Shape& shape) {
  if (!x.known_shape()) return std::nullopt;
  return TensorMeta{0, shape, x.dtype()};
}

/// A matrix product's result shape and dtype, when both operands' are known and fit ([..., m, k] x [..., k, n] with
/// broadcast batch dims: [..., m, n], a's dtype); none otherwise (the server decides, or raises).
inline std::optional<TensorMeta> matmul_meta(const TensorHandle& a, const TensorHandle& b) {
  auto sa = a.known_shape(), sb = b.known_shape();
  if (!sa || !sb || sa->rank() != sb->rank() || sa->rank() < 2) return std::nullopt;
  size_t rank = sa->rank();
  if ((*sa)[rank - 1] != (*sb)[rank - 2]) return std::nullopt;
  std::vector<size_t> dims(rank);
  for (size_t d = 0; d + 2 < rank; ++d) {
    size_t x = (*sa)[d], y = (*sb)[d];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    dims[d] = x == 1 ? y : x;
  }
  dims[rank - 2] = (*sa)[rank - 2];
  dims[rank - 1] = (*sb)[rank - 1];
  return TensorMeta{0, Shape(dims), a.dtype()};
}

/// Kind's records of the ops that move a tensor.
template <class Kind> struct MoveRecords;
template <> struct MoveRecords<Float> {
  using IntoData = ir::records::FloatIntoData;
  using FromData = ir::records::FloatFromData;
  using ToDevice = ir::records::FloatToDevice;
};
template <> struct MoveRecords<Int> {
  using IntoData = ir::records::IntIntoData;
  using FromData = ir::records::IntFromData;
  using ToDevice = ir::records::IntToDevice;
};
template <> struct MoveRecords<Bool> {
  using IntoData = ir::records::BoolIntoData;
  using FromData = ir::records::BoolFromData;
  using ToDevice = ir::records::BoolToDevice;
};

/// x on device: the server's to_device when device is x's server, else x's values read and written there.
template <class Kind> RemoteTensor<Kind> move_to(const char* op, RemoteTensor<Kind> x, const RemoteDevice& device) {
  if (Client::of(device) != x.handle().shared_client()) {
    Call read(op, x);
    typename MoveRecords<Kind>::IntoData into{ir::TensorIr{x.id(), {}, {}}};
    TensorData data = read.run<TensorData>(std::move(into));
    Call write(op, device);
    typename MoveRecords<Kind>::FromData from{std::move(data), write.in(device), {}};
    return write.run<RemoteTensor<Kind>>(std::move(from));
  }
  Call call(op, x, device);
  typename MoveRecords<Kind>::ToDevice record{call.in(x), call.in(device), {}};
  return call.run<RemoteTensor<Kind>>(std::move(record));
}

}  // namespace scorch::remote

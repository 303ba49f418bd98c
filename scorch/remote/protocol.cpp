// The Remote protocol's coding (protocol.h), on the IR's MessagePack reader and writer.
#include "scorch/remote/protocol.h"

#include <array>
#include <string_view>
#include <utility>

#include "scorch/core/error.h"
#include "scorch/ir/ir_msgpack.h"

namespace scorch::remote {

namespace {
constexpr std::array<std::string_view, 8> kRequestNames = {"hello", "op",   "call",  "meta",
                                                           "seed",  "sync", "stats", "bye"};
constexpr std::array<std::string_view, 5> kReplyNames = {"ok", "error", "metas", "result", "stats"};

[[noreturn]] void malformed(const std::string& why) { throw FormatError("decode_message", why); }

/// The kind named name in names, or a FormatError.
template <class Kind, size_t N> Kind kind_named(const std::array<std::string_view, N>& names, const std::string& name) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<Kind>(i);
  malformed("unknown message kind '" + name.substr(0, 40) + "'");
}

/// Reads [version, kind, ...] up to the kind; count is the array's length.
template <class Kind, size_t N>
Kind read_head(ir::MessageReader& in, const std::array<std::string_view, N>& names, size_t& count) {
  count = in.array();
  if (count < 2) malformed("a message is an array [version, kind, ...] of at least 2 values");
  uint64_t version = in.uint();
  if (version != kProtocolVersion)
    malformed("protocol version " + std::to_string(version) + ", this side speaks " + std::to_string(kProtocolVersion));
  return kind_named<Kind>(names, in.str());
}

/// Writes [version, name, ...] (values in all) up to the name.
void write_head(ir::MessageWriter& out, size_t values, std::string_view name) {
  out.array(values);
  out.uint(kProtocolVersion);
  out.str(name);
}

/// Reads [version, kind, ...] up to the kind and checks the array holds values(kind) values.
template <class Kind, size_t N, class Values>
Kind read_envelope(ir::MessageReader& in, const std::array<std::string_view, N>& names, Values values) {
  size_t count = 0;
  Kind kind = read_head<Kind>(in, names, count);
  if (count != values(kind))
    malformed("a '" + std::string(names[static_cast<size_t>(kind)]) + "' message has " + std::to_string(values(kind)) +
              " values, not " + std::to_string(count));
  return kind;
}

/// Whether a request of kind carries a payload after its drops (a token, a record, an id or a seed).
bool has_payload(RequestKind kind) {
  return kind != RequestKind::Sync && kind != RequestKind::Stats && kind != RequestKind::Bye;
}
size_t request_values(RequestKind kind) { return has_payload(kind) ? 4 : 3; }
size_t reply_values(ReplyKind kind) {
  constexpr std::array<size_t, 5> kValues = {2, 4, 3, 4, 5};  // ok, error, metas, result, stats
  return kValues[static_cast<size_t>(kind)];
}

void write_meta(ir::MessageWriter& out, const std::optional<TensorMeta>& meta) {
  if (!meta) return out.nil();
  out.array(3);
  out.uint(meta->id);
  out.shape(meta->shape);
  out.dtype(meta->dtype);
}

std::optional<TensorMeta> read_meta(ir::MessageReader& in) {
  if (in.nil()) return std::nullopt;
  if (in.array() != 3) malformed("a tensor's meta is [id, shape, dtype]");
  TensorMeta meta;
  meta.id = in.uint();
  meta.shape = in.shape();
  meta.dtype = in.dtype();
  return meta;
}
}  // namespace

std::vector<std::byte> encode_request(const Request& request) {
  std::vector<std::byte> bytes;
  ir::MessageWriter out(bytes);
  write_head(out, request_values(request.kind), kRequestNames[static_cast<size_t>(request.kind)]);
  out.array(request.drops.size());
  for (uint64_t id : request.drops) out.uint(id);
  if (request.kind == RequestKind::Hello) out.str(request.token);
  else if (request.kind == RequestKind::Op || request.kind == RequestKind::Call) out.record(request.record.value());
  else if (has_payload(request.kind)) out.uint(request.value);
  return bytes;
}

Request decode_request(std::span<const std::byte> bytes) {
  ir::MessageReader in(bytes);
  Request request;
  request.kind = read_envelope<RequestKind>(in, kRequestNames, request_values);
  size_t drops = in.array();
  request.drops.reserve(drops);
  for (size_t i = 0; i < drops; ++i) request.drops.push_back(in.uint());
  if (request.kind == RequestKind::Hello) request.token = in.str();
  else if (request.kind == RequestKind::Op || request.kind == RequestKind::Call) request.record = in.record();
  else if (has_payload(request.kind)) request.value = in.uint();
  in.finish();
  return request;
}

std::optional<RequestKind> peek_request_kind(std::span<const std::byte> bytes) {
  try {
    ir::MessageReader in(bytes);
    size_t count = 0;
    return read_head<RequestKind>(in, kRequestNames, count);
  } catch (const Error&) { return std::nullopt; }
}

std::vector<std::byte> encode_reply(const Reply& reply) {
  std::vector<std::byte> bytes;
  ir::MessageWriter out(bytes);
  write_head(out, reply_values(reply.kind), kReplyNames[static_cast<size_t>(reply.kind)]);
  if (reply.kind == ReplyKind::Error) {
    out.str(reply.error_type);
    out.str(reply.error_what);
  } else if (reply.kind == ReplyKind::Metas || reply.kind == ReplyKind::Result) {
    out.array(reply.metas.size());
    for (const auto& meta : reply.metas) write_meta(out, meta);
    if (reply.kind == ReplyKind::Result) {
      if (reply.data) out.tensor_data(*reply.data);
      else if (reply.value) out.uint(*reply.value);
      else out.nil();
    }
  } else if (reply.kind == ReplyKind::Stats) {
    out.uint(reply.stats.sessions);
    out.uint(reply.stats.tensors);
    out.uint(reply.stats.bytes);
  }
  return bytes;
}

Reply decode_reply(std::span<const std::byte> bytes) {
  ir::MessageReader in(bytes);
  Reply reply;
  reply.kind = read_envelope<ReplyKind>(in, kReplyNames, reply_values);
  if (reply.kind == ReplyKind::Error) {
    reply.error_type = in.str();
    reply.error_what = in.str();
  } else if (reply.kind == ReplyKind::Metas || reply.kind == ReplyKind::Result) {
    size_t metas = in.array();
    reply.metas.reserve(metas);
    for (size_t i = 0; i < metas; ++i) reply.metas.push_back(read_meta(in));
    if (reply.kind == ReplyKind::Result && !in.nil()) {
      if (in.next_is_uint()) reply.value = in.uint();
      else reply.data = in.tensor_data();
    }
  } else if (reply.kind == ReplyKind::Stats) {
    reply.stats.sessions = in.uint();
    reply.stats.tensors = in.uint();
    reply.stats.bytes = in.uint();
  }
  in.finish();
  return reply;
}

Reply error_reply(const std::exception& e) {
  Reply reply;
  reply.kind = ReplyKind::Error;
  reply.error_what = e.what();
  reply.error_type = dynamic_cast<const ShapeError*>(&e)    ? "ShapeError"
                     : dynamic_cast<const DTypeError*>(&e)  ? "DTypeError"
                     : dynamic_cast<const DeviceError*>(&e) ? "DeviceError"
                     : dynamic_cast<const IoError*>(&e)     ? "IoError"
                     : dynamic_cast<const FormatError*>(&e) ? "FormatError"
                     : dynamic_cast<const ValueError*>(&e)  ? "ValueError"
                                                            : "Error";
  return reply;
}

namespace {
/// what's "[op] message" split back into op and message ("remote" and what when it has no "[op] ").
std::pair<std::string, std::string> split_what(const std::string& what) {
  size_t close = what.find("] ");
  if (what.starts_with('[') && close != std::string::npos) return {what.substr(1, close - 1), what.substr(close + 2)};
  return {"remote", what};
}
}  // namespace

void throw_error(const Reply& reply) {
  auto [op, message] = split_what(reply.error_what);
  const std::string& type = reply.error_type;
  if (type == "ShapeError") throw ShapeError(op, message);
  if (type == "DTypeError") throw DTypeError(op, message);
  if (type == "IoError") throw IoError(op, message);
  if (type == "FormatError") throw FormatError(op, message);
  if (type == "ValueError") throw ValueError(op, message);
  if (type == "Error") throw Error(op, message);
  throw DeviceError(op, message);
}

}  // namespace scorch::remote

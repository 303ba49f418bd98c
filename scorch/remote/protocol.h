#pragma once
// The Remote protocol: what a client (Remote) and scorch-server say to each other, one ZeroMQ message each, coded as
// MessagePack arrays around the op IR's records (scorch/ir/ir_msgpack.h). Every message starts with the protocol
// version; a server or client refuses any other.
//
//   request  [version, "hello", [], token]            opens a session (the shared token) -> ok | error
//            [version, "op",    drops, record]        runs an op; no reply (an error waits for the next request)
//            [version, "call",  drops, record]        runs an op and replies with its outputs -> result | error
//            [version, "meta",  drops, id]            the shape and dtype of tensor id (and of newer ones) -> metas
//            [version, "seed",  drops, seed]          seeds the server's backend; no reply
//            [version, "sync" | "stats" | "bye", drops]    waits for the ops so far -> ok | stats; bye ends the session
//   reply    [version, "ok"] | [version, "error", type, what] | [version, "metas", [meta...]]
//            [version, "result", [meta | nil ...], nil | uint | tensor data]
//            [version, "stats", sessions, tensors, bytes]
//   meta     [id, shape, dtype]
// drops: the ids of tensors the client no longer holds (the server frees them before running the request).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "scorch/core/tensor_data.h"
#include "scorch/ir/op_record.h"

namespace scorch::remote {

/// The protocol version every message carries.
inline constexpr uint64_t kProtocolVersion = 1;

enum class RequestKind { Hello, Op, Call, Meta, Seed, Sync, Stats, Bye };

/// A client's message.
struct Request {
  RequestKind kind = RequestKind::Sync;
  /// Tensors the client dropped since its last message.
  std::vector<uint64_t> drops;
  /// Hello's token.
  std::string token;
  /// Op's and call's record.
  std::optional<ir::OpRecord> record;
  /// Meta's tensor id, seed's seed.
  uint64_t value = 0;
};

/// A tensor's id, shape and dtype, as the server holds it.
struct TensorMeta {
  uint64_t id = 0;
  Shape shape;
  DType dtype = DType::F32;
};

/// What the server holds for every session together.
struct ServerStats {
  uint64_t sessions = 0, tensors = 0, bytes = 0;
};

enum class ReplyKind { Ok, Error, Metas, Result, Stats };

/// The server's answer to a request (op records get none).
struct Reply {
  ReplyKind kind = ReplyKind::Ok;
  /// Error's exception type ("ShapeError") and message (its what()).
  std::string error_type, error_what;
  /// Metas' tensors; result's outputs in record order (nullopt: an absent optional output).
  std::vector<std::optional<TensorMeta>> metas;
  /// Result's value, for an op returning one (into_data, random_seed).
  std::optional<TensorData> data;
  std::optional<uint64_t> value;
  ServerStats stats;
};

std::vector<std::byte> encode_request(const Request& request);
/// The request bytes hold; FormatError "[decode_message] ..." (or "[decode_op] ..." for its record) for anything
/// malformed, another protocol version, an unknown kind or trailing bytes. Allocates no more than a small multiple of
/// bytes.size().
Request decode_request(std::span<const std::byte> bytes);
/// The kind of request bytes start with, read from their head only (for a message too large or too malformed to
/// read whole); none when even the head is malformed.
std::optional<RequestKind> peek_request_kind(std::span<const std::byte> bytes);

std::vector<std::byte> encode_reply(const Reply& reply);
/// The reply bytes hold; throws as decode_request.
Reply decode_reply(std::span<const std::byte> bytes);

/// An error reply carrying e: its type's name when it is a scorch::Error, else "Error".
Reply error_reply(const std::exception& e);
/// Throws the error a reply carries as its own type (a DeviceError for an unknown one), what() unchanged.
[[noreturn]] void throw_error(const Reply& reply);

}  // namespace scorch::remote

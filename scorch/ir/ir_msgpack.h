#pragma once
// The op IR (gen/ir_records.h) as MessagePack, for the Remote and Router decorators. Every record is coded
// generically from its visit(); decoding takes untrusted bytes and reports any flaw as a FormatError.
//
// A record is a map whose first key is "op" (its kOpNames name, "float_add"), then one entry per field under its
// visit() name, in any order, each exactly once. Field values:
//   TensorIr             array [id: uint, shape, dtype]
//   Shape                array of uint dims: rank <= kMaxRank, element count <= kMaxElements
//   DType                str, dtype_name ("f32", "bool")
//   DeviceIr             str, the device's name ("Cpu", "Cuda(0)")
//   Scalar               float 64 (a float), int (an int) or bool (a bool)
//   TensorData           map {"__tensor__": dtype, "shape": Shape, "data": bin}, as the named MessagePack recorder
//                        writes tensors; data holds shape x dtype little-endian bytes (bool bytes 0 or 1)
//   Distribution         map {"kind": "default" | "uniform" | "bernoulli" | "normal", "a": float, "b": float}
//   ConvSpec, PoolSpec,  maps of their fields by name; InterpolateSpec's mode is "nearest" | "bilinear" | "bicubic";
//   InterpolateSpec,     a SliceRange is {"start": uint, "end": uint, "step": int}, start <= end, step != 0;
//   SliceRange,          AttentionDropout {"prob", "seed"}, AdamStep {"lr", "beta_1", "beta_2", "epsilon",
//   AttentionDropout,    "weight_decay", "decoupled", "step"}, SgdStep {"lr", "weight_decay", "momentum",
//   AdamStep, SgdStep    "dampening", "with_momentum", "nesterov"}
//   QuantScheme          {"value": "int8" | "uint8" | "q4", "mode": "symmetric" | "affine", "level": "tensor" |
//                        "channel" | "block", "axis": uint, "block_size": uint}
//   InputQuant           {"dynamic", "reduce_range", "value", "scale", "offset", "weight_only"}
//   size_t, int64_t,     uint, int, bool, float (a float field also accepts an int)
//   uint64_t, bool,
//   double
//   std::vector<T>       array of T (SpatialDims, SliceRanges, axes, tensor lists, the outputs of a list op)
//   std::array<T, N>     array of exactly N T (a record's outputs)
//   std::optional<T>     nil or T
// Integers may use any MessagePack width. A stream (encode_ops) is records back to back, with no header.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scorch/core/dtype.h"
#include "scorch/core/shape.h"
#include "scorch/core/tensor_data.h"

#include "scorch/ir/op_record.h"

namespace scorch::ir {

/// Writes the values of a message around records (the Remote protocol's envelopes, scorch/remote/protocol.h) in the
/// coding above; throws as append_op.
class MessageWriter {
 public:
  explicit MessageWriter(std::vector<std::byte>& out) : out_(out) {}
  void array(size_t n);
  void uint(uint64_t v);
  void str(std::string_view s);
  void nil();
  void shape(const Shape& s);
  void dtype(DType d);
  void tensor_data(const TensorData& t);
  void record(const OpRecord& record);

 private:
  std::vector<std::byte>& out_;
};

/// Reads the values of a message from untrusted bytes, one after the other; every flaw is a FormatError
/// "[decode_message] ..." (a record's own are decode_op's), and nothing is allocated beyond the bytes' size.
class MessageReader {
 public:
  explicit MessageReader(std::span<const std::byte> bytes) : bytes_(bytes) {}
  /// An array's element count (at most the bytes that remain).
  size_t array();
  uint64_t uint();
  std::string str();
  /// Consumes a nil when one comes next.
  bool nil();
  /// Whether a non-negative int comes next (fails at the end of the bytes).
  bool next_is_uint();
  Shape shape();
  DType dtype();
  TensorData tensor_data();
  OpRecord record();
  /// Throws unless every byte was read.
  void finish() const;

 private:
  template <class Fn> auto step(Fn&& read);
  std::span<const std::byte> bytes_;
  size_t pos_ = 0;
};

/// Appends record's MessagePack form to out; throws FormatError "[encode_op] op.field: ..." for a TensorData
/// whose bytes do not match its shape and dtype, or a value over MessagePack's 4 GiB limits.
void append_op(std::vector<std::byte>& out, const OpRecord& record);

/// record's MessagePack form; throws as append_op.
std::vector<std::byte> encode_op(const OpRecord& record);

/// The record bytes hold, with nothing after it. Throws FormatError "[decode_op] op.field: ..." for truncated
/// or malformed bytes, an unknown op, a missing, unknown or repeated field, a value of the wrong type or out of
/// range, a shape over kMaxRank or kMaxElements, or tensor data whose size is not shape x dtype; allocates no
/// more than a small multiple of bytes.size().
OpRecord decode_op(std::span<const std::byte> bytes);

/// The record at bytes[offset], moving offset past it (to read a stream one record at a time); throws as
/// decode_op, leaving offset unchanged.
OpRecord decode_op_at(std::span<const std::byte> bytes, size_t& offset);

/// records back to back (a stream decode_ops reads); throws as append_op.
std::vector<std::byte> encode_ops(std::span<const OpRecord> records);

/// Every record of a stream encode_ops wrote (none for empty bytes); throws as decode_op.
std::vector<OpRecord> decode_ops(std::span<const std::byte> bytes);

}  // namespace scorch::ir

#pragma once
// Quantization schemes: how float values map to small integers, q = clamp(round(x / scale) + offset, qmin, qmax)
// and back x ≈ (q − offset)·scale, with one scale and offset per tensor, per channel or per block along an
// axis.
// The module ops quantize, dequantize and quantized_linear take the scales and offsets as tensors broadcastable
// to the values (scorch/tensor/quantized.h builds them).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "scorch/core/quant_params.h"
#include "scorch/core/shape.h"

namespace scorch {

/// The integers values are stored as: int8 [-128, 127], uint8 [0, 255], q4 signed 4-bit [-8, 7] packed two to a
/// byte along the last dim (low nibble first).
enum class QuantValue : uint8_t { Int8, UInt8, Q4 };
/// Symmetric: offset 0, the range ±max|x|; affine: [min, max] (widened to include 0) spread over the whole range.
enum class QuantMode : uint8_t { Symmetric, Affine };
/// One scale for the whole tensor, one per index of `axis`, or one per block of block_size along `axis`.
enum class QuantLevel : uint8_t { Tensor, Channel, Block };

/// A quantization scheme. Scales (and offsets) have the values' shape with, for Tensor, every dim 1; for Channel,
/// every dim but axis 1; for Block, axis cut into ceil(n / block_size) blocks.
struct QuantScheme {
  QuantValue value = QuantValue::Int8;
  QuantMode mode = QuantMode::Symmetric;
  QuantLevel level = QuantLevel::Tensor;
  size_t axis = 0;
  size_t block_size = 32;
  friend bool operator==(const QuantScheme&, const QuantScheme&) = default;

  /// Symmetric int8, one scale per tensor.
  static QuantScheme int8() { return {}; }
  /// Symmetric int8, one scale per index of axis (PyTorch's per-channel weights).
  static QuantScheme int8_per_channel(size_t axis) {
    return {QuantValue::Int8, QuantMode::Symmetric, QuantLevel::Channel, axis, 32};
  }
  /// Symmetric signed 4-bit, one scale per block of block_size along axis.
  static QuantScheme q4_blocks(size_t axis, size_t block_size = 32) {
    return {QuantValue::Q4, QuantMode::Symmetric, QuantLevel::Block, axis, block_size};
  }
  /// The same scheme with the given mode.
  QuantScheme with_mode(QuantMode m) const {
    QuantScheme s = *this;
    s.mode = m;
    return s;
  }
};

/// How quantized_linear quantizes its float input: dynamic computes an affine uint8 scale and offset from each
/// batch's min and max (as PyTorch's dynamic Linear, reduce_range using [0, 127]); static uses scale and offset;
/// weight_only leaves the input float (the weight is dequantized as it is used).
struct InputQuant {
  bool dynamic = true;
  bool reduce_range = false;
  QuantValue value = QuantValue::UInt8;
  double scale = 1.0;
  int64_t offset = 0;
  bool weight_only = false;
  friend bool operator==(const InputQuant&, const InputQuant&) = default;
  /// Float inputs, quantized weights.
  static InputQuant float_input() {
    InputQuant q;
    q.weight_only = true;
    return q;
  }
};

/// The integer range of a value type (reduce_range halves it as PyTorch's fbgemm observers).
QuantRange quant_range(QuantValue value, bool reduce_range = false);

/// "int8", "uint8", "q4".
std::string_view quant_value_name(QuantValue value);
/// "symmetric", "affine".
std::string_view quant_mode_name(QuantMode mode);
/// "tensor", "channel", "block".
std::string_view quant_level_name(QuantLevel level);
/// A one-line description that parse_quant_scheme reads back: "int8 symmetric channel axis=0 block=32".
std::string to_string(const QuantScheme& scheme);
/// Parses to_string's form; throws FormatError naming the text otherwise.
QuantScheme parse_quant_scheme(std::string_view text);
namespace quant {
/// Throws ValueError / ShapeError (naming op) unless scheme fits a tensor of that shape: axis within the rank, a
/// nonzero block size, an even last dim for q4.
void check_scheme(const char* op, const Shape& shape, const QuantScheme& scheme);
/// The shape of a scheme's scales for values of shape: all 1s (tensor), 1s but axis (channel), axis in blocks
/// (block).
Shape params_shape(const Shape& shape, const QuantScheme& scheme);
/// Whether scheme fits a tensor of that shape (check_scheme would accept it).
bool scheme_fits(const Shape& shape, const QuantScheme& scheme);
/// check_scheme, then scales of params_shape and offsets that fit them; throws ShapeError naming op otherwise.
void check_params(const char* op, const Shape& shape, const Shape& scales, const Shape& offsets,
                  const QuantScheme& scheme);
/// quantized_linear's operands: x [m, k], the weight's logical shape [k, n] with its parameters, bias [n] (or null).
void check_linear(const char* op, const Shape& x, const Shape& weight, const Shape& scales, const Shape& offsets,
                  const QuantScheme& scheme, const Shape* bias);
/// Whether offsets of this shape serve scales of shape params: the same shape, or every dim 1 (one offset).
bool offsets_fit(const Shape& offsets, const Shape& params);
/// The stored values' shape: shape itself, or its last dim halved for q4.
Shape stored_shape(const Shape& shape, const QuantScheme& scheme);
}  // namespace quant

/// A parameter a layer lets quantize() quantize: its field name, the axis of its output channels (per-channel
/// scales run along it) and whether the layer multiplies by it with integer kernels (else it is dequantized).
struct QuantTarget {
  std::string field;
  size_t channel_axis = 0;
  bool integer_kernel = false;
};

class TensorData;
/// Receives the inputs of layers with integer kernels while a calibration runs (scorch/quant/calibration.h).
class QuantInputObserver {
 public:
  virtual ~QuantInputObserver() = default;
  /// One batch of the input of the layer whose quantized weight has id param_id, copied to the host.
  virtual void observe(uint64_t param_id, const TensorData& input) = 0;
};
/// The observer of the calibration running on this thread, or nullptr (layers then skip the copy).
QuantInputObserver* quant_input_observer();
/// Installs observer (nullptr: none) for this thread; returns the previous one.
QuantInputObserver* set_quant_input_observer(QuantInputObserver* observer);

/// Bytes that `elements` quantized values take (q4: two to a byte).
size_t quant_value_bytes(QuantValue value, size_t elements);

}  // namespace scorch

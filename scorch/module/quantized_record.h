#pragma once
// How a quantized parameter (Param holding a QTensor) is saved: a map of tensors only, so every recorder and
// safetensors keep it — "values" (int8/uint8, the parameter's id), "scales" (float), "offsets" (int), "scheme"
// (i64 [value, mode, level, axis, block_size]), "input" (i64 [dynamic, reduce_range, value, f32 bits of the
// scale, offset, weight_only]) and "dtype" (i64 [1]: the float dtype, DType's code; f32 when absent).
#include <cstdint>
#include <string>

#include "scorch/core/quant_scheme.h"
#include "scorch/core/tensor_data.h"
#include "scorch/module/record.h"

namespace scorch {

/// The parts of a saved quantized parameter, checked against each other.
struct QuantizedRecord {
  TensorData values, scales, offsets;
  QuantScheme scheme;
  InputQuant input;
  DType dtype = DType::F32;
  uint64_t param_id = 0;
};

/// Whether r is a saved quantized parameter (a map with a "scheme" entry).
bool is_quantized_record(const Record& r);
/// The record of a quantized parameter.
Record quantized_record(QuantizedRecord parts);
/// Reads and checks a quantized parameter of rank `rank`; throws FormatError / ShapeError / DTypeError, their
/// messages after `where` (the file and key): unknown enum values, a wrong dtype, shapes that do not fit the scheme.
QuantizedRecord read_quantized_record(const Record& r, size_t rank, const std::string& where);

}  // namespace scorch

#pragma once
// scorch-micro-export's work: a record's tensors (a trained model's, or an imported ONNX model's) as a C++ source of
// constant arrays and a header with the model's config, for the freestanding micro runtime (scorch/micro).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scorch/micro/weights.h"
#include "scorch/module/record.h"

namespace scorch::micro_export {

/// What to write.
struct Options {
  /// Symmetric int8 weights with a scale per output channel for every float tensor of rank ≥ 2 whose key ends in
  /// "weight" (Linear's [d_input,
  /// d_output]: per column; Conv's [out, ...]: per row), as the hosted quant::quantize.
  bool int8 = false;
  /// Dotted keys kept in f32 under int8 (an Embedding's weight, say).
  std::vector<std::string> keep_f32;
  /// Dotted keys of rank-2 weights stored [d_output, d_input] (a Linear in Col layout, PyTorch's and ONNX's Gemm
  /// layout), written transposed: the runtime's Linear reads [d_input, d_output]. Records do not carry the layout.
  std::vector<std::string> transpose;
  /// The C++ namespace of the generated names.
  std::string name_space = "model";
  /// The file the record came from, named in the generated comments.
  std::string source;
};

/// One tensor to write: f32 values, or int8 values with scales along axis.
struct Array {
  std::string key;
  std::vector<uint32_t> shape;
  std::vector<float> values;
  std::vector<int8_t> quantized;
  std::vector<float> scales;
  uint32_t axis = 0;
  bool int8() const { return !scales.empty(); }
  /// Bytes the array and its scales take in flash.
  size_t bytes() const { return int8() ? quantized.size() + 4 * scales.size() : 4 * values.size(); }
};

/// The record's tensors under dotted keys, in order: options.transpose's transposed, int tensors as f32, quantized
/// parameters (int8 symmetric per channel; a Col-layout Linear's transposed) kept, the rest quantized as options say.
/// Throws scorch::Error naming the key for tensors the runtime cannot hold (rank above 4).
std::vector<Array> collect(const Record& record, const Options& options);

/// The generated header (declarations, config constants, byte counts) and source (the arrays and the table).
struct Generated {
  std::string header, source;
  size_t flash_bytes = 0;
};
/// Writes arrays (and config's values, flattened to names joined by '_', when config is an object) for the header
/// name header_name ("digits_model.h").
Generated generate(const std::vector<Array>& arrays, const nlohmann::json& config, const Options& options,
                   const std::string& header_name);

/// The micro runtime's table entries over arrays (which must outlive them): the host's view of what the generated
/// source holds, to run or plan a model without compiling it.
std::vector<micro::Weight> table_entries(const std::vector<Array>& arrays);

/// A record from a file: .mpk, .mpk.gz, .bin, .bin.gz, .json, .json.gz, .safetensors, or .onnx (its initializers
/// under their own names); throws scorch::Error naming the file.
Record load_record(const std::string& path);

}  // namespace scorch::micro_export

#pragma once
// ONNX code generation (scorch-onnx): a model becomes a readable C++ header, a SCORCH_MODULE struct whose
// parameters are the model's float initializers and whose forward runs the graph, spelled out node by node, through
// the interpreter (onnx::run_graph), plus the weights as a record for the module's load_file. docs/onnx-import.md.
#include <string>

#include "scorch/import/onnx/onnx_model.h"
#include "scorch/module/record.h"

namespace scorch::onnx {

/// What generate_module writes: the header's text and the module's record (field name -> weights).
struct GeneratedModule {
  std::string header;
  Record weights;
};

/// The module `name` (a C++ identifier: its namespace; the struct is its CamelCase form) for model m read from
/// `source`. Throws an Error starting with "scorch-onnx" for what the generator does not handle: subgraphs (If, Loop,
/// Scan), inputs or outputs of unknown rank or dtype, and non-parameter tensors above 4,096 elements.
GeneratedModule generate_module(const Model& m, const std::string& name, const std::string& source);

}  // namespace scorch::onnx

#pragma once
// The digits model as an ONNX graph (opset 13), for ONNX Runtime Web beside the Scorch page: the same
// normalization, layers and softmax as the "digits" web model (models.cpp).
#include <string>

#include "../guide/model_forward.hpp"

namespace web_tool {

/// Writes model as ONNX to path: input "ink" [batch, 28, 28] in [0, 1], output "probabilities" [batch, 10].
void export_digits_onnx(const guide::Model<scorch::Cpu>& model, const std::string& path);

}  // namespace web_tool

#pragma once
// quantized_linear's device kernels (quantized.cu), for quantized_linear.cpp.
#include <cstdint>

#include "scorch/backends/cuda/cuda_tensor.h"
#include "scorch/core/quant_scheme.h"

namespace scorch::backends::cuda {

/// What the int8 product's epilogue reads: the input's scale and (int8) offset, the row and column sums, the
/// weight's scales and offsets (one, or one per column), bias (or null) and relu.
struct QuantEpilogue {
  float x_scale;
  int32_t x_offset;
  const int32_t *row_sums, *col_sums, *w_offsets;
  const float *w_scales, *bias;
  bool per_column_scales, per_column_offsets, relu;
};

/// The weight-only product's parameters: scales (and offsets) per group of block_rows rows of w, for every column
/// (per_column) or the whole row; bias (or null) and relu.
struct WeightOnly {
  const float* scales;
  const int32_t* offsets;
  int64_t block_rows;
  bool per_column, offsets_per_group;
  const float* bias;
  bool relu;
};

/// x [m, k] (f32, contiguous) quantized with params as value (int8 or uint8), stored as int8 (value − shift, shift
/// 128 for uint8) in q [m, k] (contiguous), each row's sum of those int8 values in row_sums [m] (int32); the shift.
int32_t quantize_rows_s8(const CudaTensor& x, QuantParams params, QuantValue value, CudaTensor& q,
                         CudaTensor& row_sums);
/// sums [n] (int32) of the rows of int8 w [n, k] (contiguous).
void weight_row_sums(const CudaTensor& w, CudaTensor& sums);
/// y [m, n] (f32) = (acc − zx·Σw − zw·Σx + k·zx·zw)·sx·sw + bias, relu, from the int32 product acc [m, n].
void int8_epilogue(const CudaTensor& acc, int64_t k, const QuantEpilogue& e, CudaTensor& y);
/// y [m, n] = x [m, k] · dequantized w [k, n] (row-major, int8, or q4 packed along n) + bias, relu.
void weight_only_product(const CudaTensor& x, const CudaTensor& w, bool q4, const WeightOnly& p, CudaTensor& y);

}  // namespace scorch::backends::cuda

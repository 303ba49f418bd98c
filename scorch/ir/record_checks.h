#pragma once
// The checks an op's IR record passes before any kernel runs it (gen/ir_validate.h calls them, op by op, from the
// op table): operands of the right kind, shapes that agree, dims and axes in range, sizes and strides the op needs,
// index ranges inside the tensor. They are the front end's own checks (tensor/checks.h, functional_checks.h,
// quant_scheme.h) applied to the operands' shapes and dtypes, so a record from any client (Remote's server, Router,
// Fusion) is held to what Tensor asks of a call. Each throws a scorch::Error naming the op and its operands.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "scorch/backend/module_options.h"
#include "scorch/backend/options.h"
#include "scorch/core/dtype.h"
#include "scorch/core/quant_scheme.h"
#include "scorch/core/shape.h"

namespace scorch::ir {

/// An operand as the checks see it: its shape and dtype, from the env that holds it.
struct Meta {
  Shape shape;
  DType dtype = DType::F32;
};

}  // namespace scorch::ir

namespace scorch::ir::checks {

/// Rethrows the scorch::Error being handled with op's name in front unless its message starts with "[op]" (a front
/// end check names the front end's op, e.g. "[matmul]"); call it only inside a catch block.
[[noreturn]] void rethrow_naming(std::string_view op);

using Metas = std::vector<Meta>;
using OptMeta = std::optional<Meta>;

// Kinds: a float, int or bool operand (name: its parameter), and a dtype argument of a kind.
void is_float(const char* op, const char* name, const Meta& m);
void is_int(const char* op, const char* name, const Meta& m);
void is_bool(const char* op, const char* name, const Meta& m);
void float_dtype(const char* op, DType dtype);
void int_dtype(const char* op, DType dtype);
void bool_dtype(const char* op, DType dtype);

/// Elementwise operands broadcast together (their broadcast shape, returned).
Shape broadcast(const char* op, std::initializer_list<const Meta*> operands);
/// Operands of one kind in an elementwise op have one dtype.
void same_dtype(const char* op, std::initializer_list<const Meta*> operands);
/// dim is one of x's dims (name: its parameter).
void dim(const char* op, const char* name, size_t dim, const Meta& x);

// Layout.
void permutation(const char* op, const std::vector<size_t>& axes, const Meta& x);
void distinct_dims(const char* op, const std::vector<size_t>& axes, const Meta& x);
void reshape(const char* op, const Meta& x, const Shape& shape);
Shape expand(const char* op, const Meta& x, const Shape& shape);
void slice(const char* op, const Meta& x, const SliceRanges& ranges);
void slice_assign(const char* op, const Meta& x, const SliceRanges& ranges, const Meta& values);
Shape cat(const char* op, const Metas& parts, size_t dim);
Shape unfold(const char* op, const Meta& x, size_t dim, size_t size, size_t step);
void matmul(const char* op, const Meta& a, const Meta& b);
void arange(const char* op, int64_t step);

// Indexing (the indices' values are the kernels' to check: they are data).
void gather(const char* op, size_t dim, const Meta& x, const Meta& indices);
void scatter(const char* op, size_t dim, const Meta& x, const Meta& indices, const Meta& values);
Shape select(const char* op, const Meta& x, size_t dim, const Meta& indices);
void select_add(const char* op, const Meta& x, size_t dim, const Meta& indices, const Meta& values);
void mask(const char* op, const Meta& x, const Meta& mask);

// Module ops: each returns the result's shape where it can be far larger than the operands (for the env's limit).
Shape conv(const char* op, const Meta& x, const Meta& w, const OptMeta& bias, const ConvSpec& spec, bool transposed);
void conv_backward(const char* op, const Meta& x, const Meta& w, const Meta& grad, const ConvSpec& spec,
                   bool transposed);
Shape pool(const char* op, const Meta& x, const PoolSpec& spec, bool unfold);
void pool_backward(const char* op, const Meta& x, const Meta& grad, const PoolSpec& spec);
void max_pool_backward(const char* op, const Meta& x, const Meta& grad, const Meta& indices);
Shape adaptive(const char* op, const Meta& x, const SpatialDims& output_size);
void adaptive_backward(const char* op, const Meta& x, const Meta& grad);
Shape interpolate(const char* op, const Meta& x, const InterpolateSpec& spec);
void interpolate_backward(const char* op, const Meta& x, const Meta& grad, const InterpolateSpec& spec);
Shape fold(const char* op, const Meta& x, const SpatialDims& output_size, const PoolSpec& spec);
void attention(const char* op, const Meta& q, const Meta& k, const Meta& v, const OptMeta& mask,
               const AttentionDropout& dropout);
void attention_backward(const char* op, const Meta& q, const Meta& k, const Meta& v, const OptMeta& mask,
                        const AttentionDropout& dropout, const Meta& output, const Meta& logsumexp, const Meta& grad);
void cross_entropy(const char* op, const Meta& logits, const Meta& targets);
void cross_entropy_backward(const char* op, const Meta& logits, const Meta& targets, const Meta& logsumexp,
                            const Meta& grad);
void norm(const char* op, const Meta& x, const OptMeta& gamma, const OptMeta& beta, const OptMeta& grad);
void linear(const char* op, const Meta& x, const Meta& weight, const OptMeta& bias);
void linear_backward(const char* op, const Meta& x, const Meta& weight, const Meta& output, const Meta& grad);
void adam_update(const char* op, const Meta& param, const Meta& grad, const Meta& moment_1, const Meta& moment_2,
                 double beta_1, double beta_2, double step);
void adam_update_many(const char* op, const Metas& params, const Metas& grads, const Metas& moments_1,
                      const Metas& moments_2, const AdamStep& step);
void sgd_update_many(const char* op, const Metas& params, const Metas& grads, const Metas& velocities);
void quantize(const char* op, const Meta& x, const Meta& scales, const Meta& offsets, const QuantScheme& scheme);
/// dequantize's: quantize's check of the values' logical shape (q4 values hold two to a byte along the last dim).
void dequantize(const char* op, const Meta& values, const Meta& scales, const Meta& offsets, const QuantScheme& scheme);
void quantized_linear(const char* op, const Meta& x, const Meta& weight, const Meta& scales, const Meta& offsets,
                      const OptMeta& bias, const QuantScheme& scheme);

}  // namespace scorch::ir::checks

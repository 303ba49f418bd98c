#pragma once
// Argument checks of the Tensor API: compiled once, they throw ShapeError / DTypeError /
// DeviceError / ValueError with messages that start with the op and name shapes and dtypes.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scorch/backend/options.h"
#include "scorch/core/dtype.h"
#include "scorch/core/error.h"
#include "scorch/core/shape.h"
#include "scorch/tensor/dim_arg.h"
#include "scorch/tensor/slice.h"

namespace scorch::check {

/// Throws ValueError "[op] tensor is empty (moved from or default-constructed): ...", naming the operand (lhs, rhs)
/// when which is not empty.
[[noreturn]] void empty_operand(const std::string& op, const char* which);
/// empty_operand for the method function names (__builtin_FUNCTION()'s plain name, or a compiler's signature).
[[noreturn]] void empty_tensor(const char* function);
/// The method name in a compiler's function signature ("... FloatMethods<B, D, K>::exp() const& [with ...]": exp).
std::string method_name(std::string_view function);

/// Both operands have one dtype.
void same_dtype(const char* op, DType lhs, DType rhs);
/// Operands broadcast (same rank, dims equal or 1); returns the result shape.
Shape broadcast(const char* op, const Shape& lhs, const Shape& rhs);
/// dtype belongs to the expected kind ("Int" indices, "Bool" masks, ...).
void kind(const char* op, const char* what, DType dtype, bool ok, const char* expected);
/// A dim index (negative counts from the end), resolved.
size_t dim(const char* op, int64_t dim, size_t rank);
/// A list of dims, resolved; duplicates rejected.
std::vector<size_t> dims(const char* op, std::span<const int64_t> dims, size_t rank);
/// A permutation of 0..rank-1 (negative entries allowed), resolved.
std::vector<size_t> permutation(const char* op, std::span<const int64_t> axes, size_t rank);
/// Target dims of a reshape (-1 inferred once, 0 keeps the source dim), resolved.
Shape reshape(const Shape& from, std::span<const int64_t> to);
/// Throws ShapeError unless from and to hold the same number of elements.
void same_element_count(const char* op, const Shape& from, const Shape& to);
/// The result shape of an expand (broadcast) of from to dims (-1 keeps a dim).
Shape expand(const Shape& from, std::span<const int64_t> to);
/// Slices resolved against shape; missing trailing slices select whole dims.
SliceRanges slices(const char* op, const Shape& shape, std::span<const Slice> slices);
/// Shapes of matmul operands (rank >= 2, inner dims equal, batch dims broadcast).
void matmul(const Shape& lhs, const Shape& rhs);
/// Tensors to concatenate along dim: non-empty list, equal ranks and dtypes, equal other dims.
void cat(const char* op, std::span<const Shape> shapes, std::span<const DType> dtypes, size_t dim);
/// Index tensor shape for gather/scatter: same rank as the data.
void gather(const char* op, const Shape& data, const Shape& indices, size_t dim);
/// Values for scatter_add: same shape as indices.
void scatter(const Shape& data, const Shape& indices, const Shape& values, size_t dim);
/// Indices for select: rank 1.
void select(const char* op, const Shape& indices);
/// Values for select_assign: data's shape with dim replaced by the index count.
void select_assign(const Shape& data, size_t dim, size_t count, const Shape& values);
/// A value that must be positive (sizes, steps, counts).
void positive(const char* op, const char* what, int64_t value);
/// The static rank D matches the data's shape.
void rank(const char* op, size_t expected, const Shape& shape);
/// Data kind fits the tensor kind.
void data_kind(const char* op, DType dtype, bool ok, const char* kind);
/// A squeezed dim has size 1.
void squeezable(const Shape& shape, size_t dim);

}  // namespace scorch::check

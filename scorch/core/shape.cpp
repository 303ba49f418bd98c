#include "scorch/core/shape.h"

#include "scorch/core/error.h"

namespace scorch {

Shape::Shape(std::initializer_list<size_t> dims) : Shape(std::span<const size_t>(dims.begin(), dims.size())) {}

Shape::Shape(std::span<const size_t> dims) {
  if (dims.size() > kMaxRank)
    throw ShapeError("shape",
                     "rank " + std::to_string(dims.size()) + " exceeds the maximum " + std::to_string(kMaxRank));
  std::copy(dims.begin(), dims.end(), dims_.begin());
  rank_ = dims.size();
}

size_t Shape::num_elements() const {
  size_t n = 1;
  for (size_t i = 0; i < rank_; ++i) n *= dims_[i];
  return n;
}

std::optional<size_t> Shape::checked_num_elements() const { return checked_product(span()); }

std::optional<size_t> Shape::checked_num_bytes(size_t element_size) const {
  auto n = checked_num_elements();
  return n ? checked_mul(*n, element_size) : std::nullopt;
}

std::optional<size_t> checked_mul(size_t a, size_t b) {
  size_t product = 0;
  if (__builtin_mul_overflow(a, b, &product) || product > kMaxElements) return std::nullopt;
  return product;
}

std::optional<size_t> checked_product(std::span<const size_t> dims) {
  size_t nonzero = 1;
  bool empty = false;
  for (size_t d : dims) {
    if (d == 0) {
      empty = true;
      continue;
    }
    auto next = checked_mul(nonzero, d);
    if (!next) return std::nullopt;
    nonzero = *next;
  }
  return empty ? 0 : nonzero;
}

void Shape::push_back(size_t dim) { insert(rank_, dim); }

void Shape::insert(size_t index, size_t dim) {
  if (rank_ == kMaxRank)
    throw ShapeError("shape", "cannot grow " + to_string() + " beyond rank " + std::to_string(kMaxRank));
  for (size_t i = rank_; i > index; --i) dims_[i] = dims_[i - 1];
  dims_[index] = dim;
  ++rank_;
}

void Shape::remove(size_t index) {
  for (size_t i = index; i + 1 < rank_; ++i) dims_[i] = dims_[i + 1];
  --rank_;
}

std::string Shape::to_string() const {
  std::string s = "[";
  for (size_t i = 0; i < rank_; ++i) s += (i ? ", " : "") + std::to_string(dims_[i]);
  return s + "]";
}

std::array<int64_t, kMaxRank> contiguous_strides(const Shape& shape) {
  std::array<int64_t, kMaxRank> strides{};
  int64_t stride = 1;
  for (size_t i = shape.rank(); i-- > 0;) {
    strides[i] = stride;
    stride *= static_cast<int64_t>(shape[i]);
  }
  return strides;
}

Shape broadcast_shapes(const char* op, const Shape& lhs, const Shape& rhs) {
  if (lhs.rank() != rhs.rank())
    throw ShapeError(op, "lhs " + lhs.to_string() + " and rhs " + rhs.to_string() + ": ranks differ");
  Shape out = lhs;
  for (size_t i = 0; i < lhs.rank(); ++i) {
    if (lhs[i] == rhs[i] || rhs[i] == 1) continue;
    if (lhs[i] == 1) {
      out[i] = rhs[i];
      continue;
    }
    throw ShapeError(op, "lhs " + lhs.to_string() + " and rhs " + rhs.to_string() + ": dim " + std::to_string(i) +
                             " differs (" + std::to_string(lhs[i]) + " vs " + std::to_string(rhs[i]) +
                             ") and neither is 1");
  }
  return out;
}

size_t normalize_dim(const char* op, int64_t dim, size_t rank) {
  int64_t r = static_cast<int64_t>(rank);
  if (dim < -r || dim >= r)
    throw ShapeError(op, "dim " + std::to_string(dim) + " is out of range for rank " + std::to_string(rank));
  return static_cast<size_t>(dim < 0 ? dim + r : dim);
}

}  // namespace scorch

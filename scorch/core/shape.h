#pragma once
// Shape: the dims of a tensor, stored inline (no allocation) up to kMaxRank dims.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace scorch {

/// Highest rank a tensor may have.
inline constexpr size_t kMaxRank = 8;

/// Most elements (and bytes) a checked count accepts: INT64_MAX, so counts, strides and offsets fit int64.
inline constexpr size_t kMaxElements = static_cast<size_t>(INT64_MAX);

/// a * b, or nullopt when it exceeds kMaxElements.
std::optional<size_t> checked_mul(size_t a, size_t b);
/// Product of dims (1 when empty), or nullopt when the product of its nonzero dims exceeds kMaxElements.
std::optional<size_t> checked_product(std::span<const size_t> dims);

/// A dims list of rank <= kMaxRank; value type, no heap allocation.
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<size_t> dims);
  explicit Shape(std::span<const size_t> dims);
  explicit Shape(const std::vector<size_t>& dims) : Shape(std::span<const size_t>(dims)) {}
  template <size_t D> explicit Shape(const std::array<size_t, D>& dims) : Shape(std::span<const size_t>(dims)) {}

  /// Number of dims.
  size_t rank() const { return rank_; }
  /// Same as rank().
  size_t num_dims() const { return rank_; }
  /// Product of the dims (1 for rank 0).
  size_t num_elements() const;
  /// Product of the dims, or nullopt when the product of its nonzero dims exceeds kMaxElements (for dims read
  /// from files: then every dim, element count, index and stride fits int64).
  std::optional<size_t> checked_num_elements() const;
  /// Bytes of the elements at element_size bytes each, or nullopt when that exceeds kMaxElements.
  std::optional<size_t> checked_num_bytes(size_t element_size) const;
  size_t operator[](size_t i) const { return dims_[i]; }
  size_t& operator[](size_t i) { return dims_[i]; }
  const size_t* begin() const { return dims_.data(); }
  const size_t* end() const { return dims_.data() + rank_; }
  std::span<const size_t> span() const { return {dims_.data(), rank_}; }
  std::vector<size_t> to_vector() const { return {begin(), end()}; }
  /// The dims as a fixed-size array; D must equal rank() (checked by callers).
  template <size_t D> std::array<size_t, D> dims() const {
    std::array<size_t, D> out{};
    std::copy_n(dims_.begin(), std::min(D, rank_), out.begin());
    return out;
  }
  /// Appends a dim; throws ShapeError beyond kMaxRank.
  void push_back(size_t dim);
  /// Inserts a dim at index.
  void insert(size_t index, size_t dim);
  /// Removes the dim at index.
  void remove(size_t index);
  /// "[2, 3]".
  std::string to_string() const;

  friend bool operator==(const Shape& a, const Shape& b) {
    return a.rank_ == b.rank_ && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  std::array<size_t, kMaxRank> dims_{};
  size_t rank_ = 0;
};

/// Row-major contiguous strides of a shape, in elements.
std::array<int64_t, kMaxRank> contiguous_strides(const Shape& shape);

/// The shape both operands broadcast to (numpy rules on equal ranks); throws ShapeError naming op.
Shape broadcast_shapes(const char* op, const Shape& lhs, const Shape& rhs);

/// Resolves a possibly negative dim index against rank; throws ShapeError naming op.
size_t normalize_dim(const char* op, int64_t dim, size_t rank);

}  // namespace scorch

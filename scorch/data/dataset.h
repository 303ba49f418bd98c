#pragma once
// Dataset<I>: indexed, read-only access to items, shared between threads. Datasets compose by
// value or by shared pointer: every transformation holds its source as DatasetPtr<I>.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <utility>
#include <vector>

namespace scorch::data {

/// Items by index; get() is const and must be safe to call from several threads at once.
template <class I> class Dataset {
 public:
  using Item = I;
  virtual ~Dataset() = default;
  /// The item at index, or nullopt past the end.
  virtual std::optional<I> get(size_t index) const = 0;
  /// Number of items.
  virtual size_t len() const = 0;
  bool is_empty() const { return len() == 0; }
  /// The items at indices (nullopt where an index is past the end).
  std::vector<std::optional<I>> get_many(const std::vector<size_t>& indices) const {
    std::vector<std::optional<I>> out;
    out.reserve(indices.size());
    for (size_t i : indices) out.push_back(get(i));
    return out;
  }
};

/// A shared, immutable dataset.
template <class I> using DatasetPtr = std::shared_ptr<const Dataset<I>>;

/// A dataset value moved into a shared pointer, or a shared pointer passed through.
template <class D> auto share(D dataset) {
  if constexpr (requires { typename D::element_type; })
    return DatasetPtr<typename D::element_type::Item>(std::move(dataset));
  else return DatasetPtr<typename D::Item>(std::make_shared<D>(std::move(dataset)));
}

/// Items held in a vector.
template <class I> class InMemDataset final : public Dataset<I> {
 public:
  explicit InMemDataset(std::vector<I> items) : items_(std::move(items)) {}
  /// Every item of another dataset, copied into memory.
  static InMemDataset from_dataset(const Dataset<I>& source) {
    std::vector<I> items;
    items.reserve(source.len());
    for (size_t i = 0; i < source.len(); ++i) items.push_back(*source.get(i));
    return InMemDataset(std::move(items));
  }
  std::optional<I> get(size_t index) const override {
    if (index >= items_.size()) return std::nullopt;
    return items_[index];
  }
  size_t len() const override { return items_.size(); }

 private:
  std::vector<I> items_;
};

/// A uniform draw in [0, n) from a 64-bit engine (Lemire's multiply; the same on every platform).
inline size_t draw_below(std::mt19937_64& rng, size_t n) {
  return static_cast<size_t>((static_cast<unsigned __int128>(rng()) * n) >> 64);
}

/// 0..n-1 in an order fixed by seed (Fisher–Yates with draw_below).
inline std::vector<size_t> shuffled_indices(size_t n, uint64_t seed) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 rng(seed);
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[draw_below(rng, i)]);
  return order;
}

}  // namespace scorch::data

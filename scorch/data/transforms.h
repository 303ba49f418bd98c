#pragma once
// Dataset transformations: lazy views over a source dataset. Mapper (map items), Composed
// (concatenate), Partial (an index range; split), Shuffled (seeded order), Sampler (a fixed-size
// draw with or without replacement), Selection (an explicit index list) and Windows (sliding
// windows of consecutive items). Every order is fixed at construction from a seed, so a dataset
// reads the same from any thread.
#include <algorithm>
#include <string>
#include <type_traits>

#include "scorch/core/error.h"
#include "scorch/data/dataset.h"

namespace scorch::data {

/// f applied to each item when it is read.
template <class I, class F> class MapperDataset final : public Dataset<std::invoke_result_t<const F&, const I&>> {
 public:
  using O = std::invoke_result_t<const F&, const I&>;
  MapperDataset(DatasetPtr<I> source, F f) : source_(std::move(source)), f_(std::move(f)) {}
  std::optional<O> get(size_t index) const override {
    auto item = source_->get(index);
    if (!item) return std::nullopt;
    return f_(*item);
  }
  size_t len() const override { return source_->len(); }

 private:
  DatasetPtr<I> source_;
  F f_;
};
/// A lazily mapped view of dataset.
template <class D, class F> auto map(D dataset, F f) {
  auto source = share(std::move(dataset));
  using I = typename decltype(source)::element_type::Item;
  return MapperDataset<I, F>(std::move(source), std::move(f));
}

/// Datasets one after another.
template <class I> class ComposedDataset final : public Dataset<I> {
 public:
  explicit ComposedDataset(std::vector<DatasetPtr<I>> parts) : parts_(std::move(parts)) {}
  std::optional<I> get(size_t index) const override {
    for (const auto& p : parts_) {
      if (index < p->len()) return p->get(index);
      index -= p->len();
    }
    return std::nullopt;
  }
  size_t len() const override {
    size_t n = 0;
    for (const auto& p : parts_) n += p->len();
    return n;
  }

 private:
  std::vector<DatasetPtr<I>> parts_;
};

/// Items start..end-1 of the source (end is clamped to its length).
template <class I> class PartialDataset final : public Dataset<I> {
 public:
  PartialDataset(DatasetPtr<I> source, size_t start, size_t end)
      : source_(std::move(source)), start_(start), end_(std::min(end, source_->len())) {
    if (start_ > end_)
      throw ValueError("PartialDataset", "start " + std::to_string(start) + " is past end " + std::to_string(end_));
  }
  std::optional<I> get(size_t index) const override {
    if (index >= len()) return std::nullopt;
    return source_->get(start_ + index);
  }
  size_t len() const override { return end_ - start_; }
  /// n consecutive parts of nearly equal length (the first ones one longer).
  static std::vector<PartialDataset> split(const DatasetPtr<I>& source, size_t n) {
    if (n == 0) throw ValueError("PartialDataset::split", "cannot split into 0 parts");
    std::vector<PartialDataset> parts;
    size_t total = source->len(), start = 0;
    for (size_t k = 0; k < n; ++k) {
      size_t size = total / n + (k < total % n ? 1 : 0);
      parts.emplace_back(source, start, start + size);
      start += size;
    }
    return parts;
  }

 private:
  DatasetPtr<I> source_;
  size_t start_, end_;
};

/// Items at an explicit list of source indices (checked at construction).
template <class I> class SelectionDataset final : public Dataset<I> {
 public:
  SelectionDataset(DatasetPtr<I> source, std::vector<size_t> indices)
      : source_(std::move(source)), indices_(std::move(indices)) {
    for (size_t k = 0; k < indices_.size(); ++k)
      if (indices_[k] >= source_->len())
        throw ValueError("SelectionDataset", "index " + std::to_string(indices_[k]) + " at position " +
                                                 std::to_string(k) + " is past the source's " +
                                                 std::to_string(source_->len()) + " items");
  }
  /// Every source item, in order.
  static SelectionDataset all(DatasetPtr<I> source) {
    std::vector<size_t> idx(source->len());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    return SelectionDataset(std::move(source), std::move(idx));
  }
  /// Every source item, in an order fixed by seed.
  static SelectionDataset shuffled(DatasetPtr<I> source, uint64_t seed) {
    size_t n = source->len();
    return SelectionDataset(std::move(source), shuffled_indices(n, seed));
  }
  /// Positions start..end-1 of this selection.
  SelectionDataset slice(size_t start, size_t end) const {
    end = std::min(end, indices_.size());
    if (start > end)
      throw ValueError("SelectionDataset::slice",
                       "start " + std::to_string(start) + " is past end " + std::to_string(end));
    return SelectionDataset(source_, std::vector<size_t>(indices_.begin() + start, indices_.begin() + end));
  }
  std::optional<I> get(size_t index) const override {
    if (index >= indices_.size()) return std::nullopt;
    return source_->get(indices_[index]);
  }
  size_t len() const override { return indices_.size(); }
  const std::vector<size_t>& indices() const { return indices_; }

 private:
  DatasetPtr<I> source_;
  std::vector<size_t> indices_;
};

/// Every source item in an order fixed by seed.
template <class I> class ShuffledDataset final : public Dataset<I> {
 public:
  ShuffledDataset(DatasetPtr<I> source, uint64_t seed)
      : selection_(SelectionDataset<I>::shuffled(std::move(source), seed)) {}
  std::optional<I> get(size_t index) const override { return selection_.get(index); }
  size_t len() const override { return selection_.len(); }

 private:
  SelectionDataset<I> selection_;
};

/// size draws from the source: with replacement, independent uniform draws; without, whole
/// shuffled passes over the source (the last one cut), so every item appears as evenly as
/// possible. size may exceed the source's length.
template <class I> class SamplerDataset final : public Dataset<I> {
 public:
  SamplerDataset(DatasetPtr<I> source, size_t size, bool replacement, uint64_t seed) : source_(std::move(source)) {
    size_t n = source_->len();
    if (n == 0 && size > 0)
      throw ValueError("SamplerDataset", "cannot draw " + std::to_string(size) + " items from an empty dataset");
    std::mt19937_64 rng(seed);
    indices_.reserve(size);
    while (indices_.size() < size) {
      if (replacement) {
        indices_.push_back(draw_below(rng, n));
        continue;
      }
      for (size_t i : shuffled_indices(n, rng()))
        if (indices_.size() < size) indices_.push_back(i);
    }
  }
  std::optional<I> get(size_t index) const override {
    if (index >= indices_.size()) return std::nullopt;
    return source_->get(indices_[index]);
  }
  size_t len() const override { return indices_.size(); }

 private:
  DatasetPtr<I> source_;
  std::vector<size_t> indices_;
};

/// Windows of `size` consecutive source items: item k is source items k..k+size-1.
template <class I> class WindowsDataset final : public Dataset<std::vector<I>> {
 public:
  WindowsDataset(DatasetPtr<I> source, size_t size) : source_(std::move(source)), size_(size) {
    if (size == 0) throw ValueError("WindowsDataset", "window size must be positive");
  }
  std::optional<std::vector<I>> get(size_t index) const override {
    if (index >= len()) return std::nullopt;
    std::vector<I> window;
    window.reserve(size_);
    for (size_t k = 0; k < size_; ++k) window.push_back(*source_->get(index + k));
    return window;
  }
  size_t len() const override { return source_->len() >= size_ ? source_->len() - size_ + 1 : 0; }

 private:
  DatasetPtr<I> source_;
  size_t size_;
};

}  // namespace scorch::data

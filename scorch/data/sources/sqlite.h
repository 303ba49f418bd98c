#pragma once
// SQLite datasets (Debian's libsqlite3): each split is a table with a row_id (0, 1, …) and one
// column per item field, so large datasets stay on disk and any SQLite tool can read them.
// SqliteDatasetWriter fills a file; SqliteDataset reads items back by index, safely from
// several DataLoader workers. SqliteItem<I> converts an item to and from its row.
#include <functional>
#include <utility>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "scorch/core/error.h"
#include "scorch/data/dataset.h"

namespace scorch::data {

/// A column value: NULL, INTEGER, REAL, TEXT or BLOB.
using SqliteValue = std::variant<std::monostate, int64_t, double, std::string, std::vector<uint8_t>>;
/// An item as (column, value) pairs, in column order.
using SqliteColumns = std::vector<std::pair<std::string, SqliteValue>>;

/// One stored row, its values addressed by column name.
class SqliteRow {
 public:
  SqliteRow(std::shared_ptr<const std::vector<std::string>> columns, std::vector<SqliteValue> values, std::string where)
      : columns_(std::move(columns)), values_(std::move(values)), where_(std::move(where)) {}
  /// The value of column; FormatError naming the file, table and row if there is none.
  const SqliteValue& at(std::string_view column) const;
  /// The value as T: integers and bool (INTEGER), float/double (INTEGER or REAL), std::string
  /// (TEXT), `std::vector<uint8_t>` (BLOB); FormatError naming file, table, row and column otherwise.
  template <class T> T get(std::string_view column) const;
  /// "file.db, table 'train', row 12".
  const std::string& where() const { return where_; }

 private:
  [[noreturn]] void type_error(std::string_view column, std::string_view expected) const;
  std::shared_ptr<const std::vector<std::string>> columns_;
  std::vector<SqliteValue> values_;
  std::string where_;
};

template <class T> T SqliteRow::get(std::string_view column) const {
  const SqliteValue& v = at(column);
  if constexpr (std::is_same_v<T, std::string>) {
    if (auto* s = std::get_if<std::string>(&v)) return *s;
    type_error(column, "text");
  } else if constexpr (std::is_same_v<T, std::vector<uint8_t>>) {
    if (auto* b = std::get_if<std::vector<uint8_t>>(&v)) return *b;
    type_error(column, "a blob");
  } else if constexpr (std::is_floating_point_v<T>) {
    if (auto* d = std::get_if<double>(&v)) return static_cast<T>(*d);
    if (auto* i = std::get_if<int64_t>(&v)) return static_cast<T>(*i);
    type_error(column, "a number");
  } else {
    static_assert(std::is_integral_v<T>, "SqliteRow::get: unsupported type");
    auto* i = std::get_if<int64_t>(&v);
    if (!i) type_error(column, "an integer");
    if (!std::in_range<T>(*i)) type_error(column, "an integer in range");
    return static_cast<T>(*i);
  }
}

/// How an item maps to a row: specialize with static to_row(const I&) → SqliteColumns and from_row(const SqliteRow&) →
/// I.
template <class I> struct SqliteItem;

namespace detail {
/// The reading side: one connection, statements serialized by a mutex.
class SqliteReader {
 public:
  SqliteReader(const std::string& path, const std::string& split);
  ~SqliteReader();
  size_t count() const { return count_; }
  SqliteRow row(size_t index) const;

 private:
  std::string path_, split_;
  void* db_ = nullptr;
  void* select_ = nullptr;
  size_t count_ = 0;
  std::shared_ptr<const std::vector<std::string>> columns_;
  mutable std::mutex mutex_;
};

/// The writing side: a temporary file moved into place by complete().
class SqliteWriter {
 public:
  SqliteWriter(const std::string& path, bool overwrite);
  ~SqliteWriter();
  void write(const std::string& split, const SqliteColumns& row);
  void complete();

 private:
  struct Split;
  std::string path_, tmp_;
  void* db_ = nullptr;
  std::vector<std::unique_ptr<Split>> splits_;
  bool completed_ = false;
};
}  // namespace detail

/// Items of one split of a SQLite file, decoded on demand.
template <class I> class SqliteDataset final : public Dataset<I> {
 public:
  using FromRow = std::function<I(const SqliteRow&)>;
  /// Opens path's table split; throws IoError for an unreadable file, FormatError (listing the
  /// tables) for a missing split.
  SqliteDataset(const std::string& path, const std::string& split, FromRow from_row = &SqliteItem<I>::from_row)
      : reader_(std::make_shared<detail::SqliteReader>(path, split)), from_row_(std::move(from_row)) {}
  std::optional<I> get(size_t index) const override {
    if (index >= reader_->count()) return std::nullopt;
    return from_row_(reader_->row(index));
  }
  size_t len() const override { return reader_->count(); }

 private:
  std::shared_ptr<detail::SqliteReader> reader_;
  FromRow from_row_;
};

/// Writes items into a SQLite file: nothing appears at path until set_completed() (an abandoned
/// writer leaves no file); an existing file is an error unless overwrite is set.
template <class I> class SqliteDatasetWriter {
 public:
  using ToRow = std::function<SqliteColumns(const I&)>;
  explicit SqliteDatasetWriter(const std::string& path, bool overwrite = false, ToRow to_row = &SqliteItem<I>::to_row)
      : writer_(path, overwrite), to_row_(std::move(to_row)) {}
  /// Appends item to split (its table is created on first use with the item's columns).
  void write(const std::string& split, const I& item) { writer_.write(split, to_row_(item)); }
  /// Commits and moves the file into place.
  void set_completed() { writer_.complete(); }

 private:
  detail::SqliteWriter writer_;
  ToRow to_row_;
};

}  // namespace scorch::data

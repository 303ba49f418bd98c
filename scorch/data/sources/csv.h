#pragma once
// Tabular sources for InMemDataset: CSV files (RFC 4180: quoted fields, "" escapes, CRLF; the
// first line names the columns) and JSON-lines files (one JSON value per line).
#include <charconv>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scorch/core/error.h"
#include "scorch/data/dataset.h"

namespace scorch::data {

/// A CSV file's path and its columns' indices, shared by its rows.
struct CsvTable {
  std::string path;
  std::map<std::string, size_t> columns;
};

/// One CSV row, its fields addressed by column name.
class CsvRow {
 public:
  CsvRow(std::shared_ptr<const CsvTable> table, std::vector<std::string> fields, size_t line)
      : table_(std::move(table)), fields_(std::move(fields)), line_(line) {}
  /// The field of column; FormatError naming the file and line if there is no such column.
  const std::string& at(const std::string& column) const;
  /// The field parsed as T (arithmetic types or std::string); FormatError naming the file,
  /// line and column when it does not parse.
  template <class T> T get(const std::string& column) const {
    const std::string& text = at(column);
    if constexpr (std::is_same_v<T, std::string>) return text;
    else {
      T value{};
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc() || end != text.data() + text.size())
        throw FormatError("read_csv", where() + ", column '" + column + "': cannot read '" + text + "' as a number");
      return value;
    }
  }
  /// The number of fields (the header's).
  size_t size() const { return fields_.size(); }
  /// The i-th field's text.
  const std::string& field(size_t i) const { return fields_.at(i); }
  /// "path:line".
  std::string where() const { return table_->path + ":" + std::to_string(line_); }

 private:
  std::shared_ptr<const CsvTable> table_;
  std::vector<std::string> fields_;
  size_t line_;
};

/// Most fields a CSV header may have (data rows may have no more than their header).
inline constexpr size_t kMaxCsvFields = size_t{1} << 20;

/// What read_csv may keep in memory: rows, and bytes (the fields' text plus 64 bytes of bookkeeping per field and
/// per row). Past either, read_csv stops with a FormatError naming the file, the line and the limit.
struct CsvLimits {
  size_t max_rows = size_t{1} << 24;
  size_t max_bytes = size_t{1} << 30;
};

/// Calls on_row for each row of a CSV file as it is read (memory follows one row); throws IoError if unreadable,
/// FormatError (file and line) for a row whose field count differs from the header's (found as soon as a row has too
/// many), a header of more than kMaxCsvFields fields, or an unclosed quote.
void for_each_csv_row(const std::string& path, const std::function<void(const CsvRow&)>& on_row, char delimiter = ',');

/// Every row of a CSV file (for_each_csv_row's errors), within limits.
std::vector<CsvRow> read_csv(const std::string& path, char delimiter = ',', const CsvLimits& limits = {});

/// A dataset of to_item(row) for every row of a CSV file; rows are converted as they are read, so memory follows the
/// items, not the file's text.
template <class F> auto csv_dataset(const std::string& path, F to_item, char delimiter = ',') {
  using I = std::invoke_result_t<F&, const CsvRow&>;
  std::vector<I> items;
  for_each_csv_row(
      path, [&](const CsvRow& row) { items.push_back(to_item(row)); }, delimiter);
  return InMemDataset<I>(std::move(items));
}

/// The JSON value of each non-empty line of a file (nesting at most formats::kMaxJsonDepth); FormatError names the
/// file and line for any error, numbers outside double's range included.
std::vector<nlohmann::json> read_json_rows(const std::string& path);

/// A dataset of to_item(value) for every line of a JSON-lines file.
template <class F> auto json_rows_dataset(const std::string& path, F to_item) {
  using I = std::invoke_result_t<F&, const nlohmann::json&>;
  std::vector<I> items;
  for (const auto& value : read_json_rows(path)) items.push_back(to_item(value));
  return InMemDataset<I>(std::move(items));
}

}  // namespace scorch::data

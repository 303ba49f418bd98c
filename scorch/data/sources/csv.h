#pragma once
// Tabular sources for InMemDataset: CSV files (RFC 4180: quoted fields, "" escapes, CRLF; the
// first line names the columns) and JSON-lines files (one JSON value per line).
#include <charconv>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scorch/core/error.h"
#include "scorch/data/dataset.h"

namespace scorch::data {

/// One CSV row, its fields addressed by column name.
class CsvRow {
 public:
  CsvRow(std::shared_ptr<const std::map<std::string, size_t>> columns, std::vector<std::string> fields,
         std::string where)
      : columns_(std::move(columns)), fields_(std::move(fields)), where_(std::move(where)) {}
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
        throw FormatError("read_csv", where_ + ", column '" + column + "': cannot read '" + text + "' as a number");
      return value;
    }
  }
  /// "path:line".
  const std::string& where() const { return where_; }

 private:
  std::shared_ptr<const std::map<std::string, size_t>> columns_;
  std::vector<std::string> fields_;
  std::string where_;
};

/// Most fields a CSV header may have (data rows may have no more than their header).
inline constexpr size_t kMaxCsvFields = size_t{1} << 20;

/// Every row of a CSV file, read as a stream; throws IoError if unreadable, FormatError (file and line) for a row
/// whose field count differs from the header's (found as soon as a row has too many), a header of more than
/// kMaxCsvFields fields, or an unclosed quote.
std::vector<CsvRow> read_csv(const std::string& path, char delimiter = ',');

/// A dataset of to_item(row) for every row of a CSV file.
template <class F> auto csv_dataset(const std::string& path, F to_item, char delimiter = ',') {
  using I = std::invoke_result_t<F&, const CsvRow&>;
  std::vector<I> items;
  for (const CsvRow& row : read_csv(path, delimiter)) items.push_back(to_item(row));
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

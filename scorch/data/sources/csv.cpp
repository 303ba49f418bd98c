#include "scorch/data/sources/csv.h"

#include <fstream>
#include <string>

#include "scorch/module/formats/json_parse.h"

namespace scorch::data {
namespace {

/// Reads CSV records from a stream one character at a time, so memory follows the fields kept, not the file.
class CsvReader {
 public:
  CsvReader(std::istream& in, const std::string& path, char delimiter)
      : in_(*in.rdbuf()), path_(path), delimiter_(delimiter) {}
  /// The next record (quoted fields may span lines) into fields, at most max_fields of them (else FormatError saying
  /// why, naming the file and line); false at the end of the file.
  bool next(std::vector<std::string>& fields, size_t max_fields, const std::string& why);
  /// The line the next record starts on.
  size_t line() const { return line_; }

 private:
  std::streambuf& in_;
  const std::string& path_;
  char delimiter_;
  size_t line_ = 1;
};

bool CsvReader::next(std::vector<std::string>& fields, size_t max_fields, const std::string& why) {
  using Traits = std::char_traits<char>;
  if (Traits::eq_int_type(in_.sgetc(), Traits::eof())) return false;
  fields.assign(1, std::string());
  bool quoted = false;
  size_t start_line = line_;
  for (auto ch = in_.sbumpc(); !Traits::eq_int_type(ch, Traits::eof()); ch = in_.sbumpc()) {
    char c = Traits::to_char_type(ch);
    if (quoted) {
      if (c == '"' && in_.sgetc() == '"') fields.back() += '"', in_.sbumpc();
      else if (c == '"') quoted = false;
      else {
        if (c == '\n') ++line_;
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == delimiter_) {
      if (fields.size() == max_fields)
        throw FormatError("read_csv", path_ + ":" + std::to_string(start_line) + ": more than " +
                                          std::to_string(max_fields) + " fields" + why);
      fields.emplace_back();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && in_.sgetc() == '\n') in_.sbumpc();
      ++line_;
      return true;
    } else {
      fields.back() += c;
    }
  }
  if (quoted)
    throw FormatError("read_csv", path_ + ":" + std::to_string(start_line) + ": a quoted field is never closed");
  ++line_;
  return true;
}

std::ifstream open_file(const std::string& path, const char* op) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(op, "cannot open " + path);
  return in;
}

}  // namespace

const std::string& CsvRow::at(const std::string& column) const {
  auto it = table_->columns.find(column);
  if (it == table_->columns.end()) throw FormatError("read_csv", where() + ": no column '" + column + "'");
  return fields_[it->second];
}

void for_each_csv_row(const std::string& path, const std::function<void(const CsvRow&)>& on_row, char delimiter) {
  std::ifstream in = open_file(path, "read_csv");
  CsvReader reader(in, path, delimiter);
  std::vector<std::string> header;
  if (!reader.next(header, kMaxCsvFields, " (the most a CSV header may have)"))
    throw FormatError("read_csv", path + ": empty file (no header)");
  auto table = std::make_shared<CsvTable>();
  table->path = path;
  for (size_t i = 0; i < header.size(); ++i) table->columns[header[i]] = i;
  std::string too_many = ", the header has " + std::to_string(header.size());
  std::vector<std::string> fields;
  for (size_t row_line = reader.line(); reader.next(fields, header.size(), too_many); row_line = reader.line()) {
    if (fields.size() == 1 && fields[0].empty()) continue;  // blank line
    if (fields.size() != header.size())
      throw FormatError("read_csv", path + ":" + std::to_string(row_line) + ": " + std::to_string(fields.size()) +
                                        " fields" + too_many);
    on_row(CsvRow(table, std::move(fields), row_line));
    fields.clear();
  }
}

std::vector<CsvRow> read_csv(const std::string& path, char delimiter, const CsvLimits& limits) {
  std::vector<CsvRow> rows;
  size_t bytes = 0;
  auto over = [&](const CsvRow& row, const std::string& what) {
    return FormatError("read_csv", row.where() + ": the rows read so far exceed " + what +
                                       "; raise CsvLimits, or convert rows as they are read (csv_dataset, "
                                       "for_each_csv_row), which keeps none");
  };
  for_each_csv_row(
      path,
      [&](const CsvRow& row) {
        if (rows.size() == limits.max_rows)
          throw over(row, std::to_string(limits.max_rows) + " rows (CsvLimits::max_rows)");
        bytes += 64;
        for (size_t i = 0; i < row.size(); ++i) bytes += 64 + row.field(i).size();
        if (bytes > limits.max_bytes)
          throw over(row, std::to_string(limits.max_bytes) + " bytes (CsvLimits::max_bytes)");
        rows.push_back(row);
      },
      delimiter);
  return rows;
}

std::vector<nlohmann::json> read_json_rows(const std::string& path) {
  std::ifstream in = open_file(path, "read_json_rows");
  std::vector<nlohmann::json> rows;
  std::string text;
  for (size_t line = 1; std::getline(in, text); ++line) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    rows.push_back(
        formats::parse_json_bounded<nlohmann::json>(text, "read_json_rows", path + ":" + std::to_string(line)));
  }
  return rows;
}

}  // namespace scorch::data

#include "scorch/data/sources/sqlite.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

namespace scorch::data {

namespace {
sqlite3* as_db(void* p) { return static_cast<sqlite3*>(p); }
sqlite3_stmt* as_stmt(void* p) { return static_cast<sqlite3_stmt*>(p); }

/// A table name quoted for SQL ("" doubles an embedded quote).
std::string quoted(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string value_kind(const SqliteValue& v) {
  static const char* names[] = {"null", "an integer", "a real", "text", "a blob"};
  return names[v.index()];
}

/// Runs sql (no results); throws E naming path with SQLite's message.
template <class E = IoError>
void exec(sqlite3* db, const std::string& sql, const std::string& op, const std::string& path) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string why = message ? message : "unknown error";
    sqlite3_free(message);
    throw E(op, path + ": " + why);
  }
}

sqlite3_stmt* prepare(sqlite3* db, const std::string& sql, const std::string& op, const std::string& path) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
    throw FormatError(op, path + ": " + sqlite3_errmsg(db));
  return stmt;
}

/// Treats the file as untrusted: schema SQL may not call functions with side effects, and no string or blob may be
/// larger than the file (so a corrupt or hostile row cannot make SQLite allocate more than the file holds).
void limit_untrusted(sqlite3* db, const std::string& path) {
  std::error_code ec;
  auto file_size = std::filesystem::file_size(path, ec);
  int cap = static_cast<int>(std::min<uintmax_t>(ec ? 0 : file_size, 1u << 30));
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, std::max(cap, 1 << 20));
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
}

/// The value of column i of the current row.
SqliteValue column_value(sqlite3_stmt* stmt, int i) {
  switch (sqlite3_column_type(stmt, i)) {
    case SQLITE_INTEGER: return static_cast<int64_t>(sqlite3_column_int64(stmt, i));
    case SQLITE_FLOAT: return sqlite3_column_double(stmt, i);
    case SQLITE_TEXT: {
      auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, i));  // before its byte count
      return text ? std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt, i))) : std::string();
    }
    case SQLITE_BLOB: {
      auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(stmt, i));
      return p ? std::vector<uint8_t>(p, p + sqlite3_column_bytes(stmt, i)) : std::vector<uint8_t>();
    }
    default: return std::monostate{};
  }
}

std::vector<std::string> table_names(sqlite3* db) {
  std::vector<std::string> names;
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", -1, &stmt, nullptr);
  while (stmt && sqlite3_step(stmt) == SQLITE_ROW)
    if (auto* name = sqlite3_column_text(stmt, 0)) names.emplace_back(reinterpret_cast<const char*>(name));
  sqlite3_finalize(stmt);
  return names;
}
}  // namespace

const SqliteValue& SqliteRow::at(std::string_view column) const {
  for (size_t i = 0; i < columns_->size(); ++i)
    if ((*columns_)[i] == column) return values_[i];
  throw FormatError("SqliteDataset", where_ + ": no column '" + std::string(column) + "'");
}

void SqliteRow::type_error(std::string_view column, std::string_view expected) const {
  throw FormatError("SqliteDataset", where_ + ", column '" + std::string(column) + "': expected " +
                                         std::string(expected) + ", found " + value_kind(at(column)));
}

namespace detail {

SqliteReader::SqliteReader(const std::string& path, const std::string& split) : path_(path), split_(split) {
  if (!std::filesystem::is_regular_file(path)) throw IoError("SqliteDataset", path + ": no such file");
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : "cannot open";
    sqlite3_close(db);
    throw IoError("SqliteDataset", path + ": " + why);
  }
  db_ = db;
  limit_untrusted(db, path);
  try {
    auto tables = table_names(db);
    if (std::find(tables.begin(), tables.end(), split) == tables.end()) {
      std::string list;
      for (const auto& t : tables) list += (list.empty() ? "" : ", ") + t;
      throw FormatError("SqliteDataset",
                        path + ": no split '" + split + "' (tables: " + (list.empty() ? "none" : list) + ")");
    }
    sqlite3_stmt* count = prepare(db, "SELECT COUNT(*) FROM " + quoted(split), "SqliteDataset", path);
    bool counted = sqlite3_step(count) == SQLITE_ROW;
    int64_t rows = counted ? sqlite3_column_int64(count, 0) : 0;
    sqlite3_finalize(count);
    if (!counted)
      throw FormatError("SqliteDataset", path + ": cannot count the rows of '" + split + "': " + sqlite3_errmsg(db));
    count_ = static_cast<size_t>(std::max<int64_t>(rows, 0));
    select_ = prepare(db, "SELECT * FROM " + quoted(split) + " WHERE row_id = ?", "SqliteDataset", path);
    auto names = std::make_shared<std::vector<std::string>>();
    for (int i = 0; i < sqlite3_column_count(as_stmt(select_)); ++i)
      names->emplace_back(sqlite3_column_name(as_stmt(select_), i));
    columns_ = std::move(names);
  } catch (...) {
    sqlite3_close(db);
    throw;
  }
}

SqliteReader::~SqliteReader() {
  sqlite3_finalize(as_stmt(select_));
  sqlite3_close(as_db(db_));
}

SqliteRow SqliteReader::row(size_t index) const {
  std::string where = path_ + ", table '" + split_ + "', row " + std::to_string(index);
  std::lock_guard lock(mutex_);
  sqlite3_stmt* stmt = as_stmt(select_);
  sqlite3_reset(stmt);
  sqlite3_bind_int64(stmt, 1, static_cast<int64_t>(index));
  int status = sqlite3_step(stmt);
  if (status != SQLITE_ROW)
    throw FormatError("SqliteDataset", where + ": " + (status == SQLITE_DONE ? "missing" : sqlite3_errmsg(as_db(db_))));
  std::vector<SqliteValue> values;
  for (int i = 0; i < sqlite3_column_count(stmt); ++i) values.push_back(column_value(stmt, i));
  return SqliteRow(columns_, std::move(values), std::move(where));
}

struct SqliteWriter::Split {
  std::string name;
  std::vector<std::string> columns;
  sqlite3_stmt* insert = nullptr;
  int64_t next_row = 0;
};

SqliteWriter::SqliteWriter(const std::string& path, bool overwrite)
    : path_(path), tmp_(path + ".tmp-" + std::to_string(::getpid())) {
  if (!overwrite && std::filesystem::exists(path))
    throw IoError("SqliteDatasetWriter", path + ": exists (pass overwrite = true to replace it)");
  std::filesystem::remove(tmp_);
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(tmp_.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    throw IoError("SqliteDatasetWriter", path + ": cannot create " + tmp_);
  }
  db_ = db;
  exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN", "SqliteDatasetWriter", path);
}

SqliteWriter::~SqliteWriter() {
  for (auto& s : splits_) sqlite3_finalize(s->insert);
  sqlite3_close(as_db(db_));
  if (!completed_) std::filesystem::remove(tmp_);
}

void SqliteWriter::write(const std::string& split, const SqliteColumns& row) {
  if (completed_) throw ValueError("SqliteDatasetWriter", path_ + ": already completed");
  Split* target = nullptr;
  for (auto& s : splits_)
    if (s->name == split) target = s.get();
  if (!target) {
    auto s = std::make_unique<Split>();
    s->name = split;
    std::string create = "CREATE TABLE " + quoted(split) + " (row_id INTEGER PRIMARY KEY",
                insert = "INSERT INTO " + quoted(split) + " VALUES (?";
    for (const auto& [column, value] : row) {
      s->columns.push_back(column);
      create += ", " + quoted(column);
      insert += ", ?";
    }
    exec<FormatError>(as_db(db_), create + ")", "SqliteDatasetWriter", path_);
    s->insert = prepare(as_db(db_), insert + ")", "SqliteDatasetWriter", path_);
    splits_.push_back(std::move(s));
    target = splits_.back().get();
  }
  if (row.size() != target->columns.size())
    throw ValueError("SqliteDatasetWriter", path_ + ", split '" + split + "': row has " + std::to_string(row.size()) +
                                                " columns, the table " + std::to_string(target->columns.size()));
  sqlite3_stmt* stmt = target->insert;
  sqlite3_reset(stmt);
  sqlite3_bind_int64(stmt, 1, target->next_row);
  for (size_t i = 0; i < row.size(); ++i) {
    int at = static_cast<int>(i) + 2;
    const SqliteValue& v = row[i].second;
    if (auto* n = std::get_if<int64_t>(&v)) sqlite3_bind_int64(stmt, at, *n);
    else if (auto* d = std::get_if<double>(&v)) sqlite3_bind_double(stmt, at, *d);
    else if (auto* t = std::get_if<std::string>(&v))
      sqlite3_bind_text(stmt, at, t->data(), static_cast<int>(t->size()), SQLITE_TRANSIENT);
    else if (auto* b = std::get_if<std::vector<uint8_t>>(&v))
      sqlite3_bind_blob(stmt, at, b->data(), static_cast<int>(b->size()), SQLITE_TRANSIENT);
    else sqlite3_bind_null(stmt, at);
  }
  if (sqlite3_step(stmt) != SQLITE_DONE)
    throw IoError("SqliteDatasetWriter", path_ + ": " + sqlite3_errmsg(as_db(db_)));
  ++target->next_row;
}

void SqliteWriter::complete() {
  if (completed_) return;
  exec(as_db(db_), "COMMIT", "SqliteDatasetWriter", path_);
  for (auto& s : splits_) sqlite3_finalize(s->insert), s->insert = nullptr;
  sqlite3_close(as_db(db_));
  db_ = nullptr;
  std::filesystem::rename(tmp_, path_);
  completed_ = true;
}

}  // namespace detail
}  // namespace scorch::data

#include "scorch/module/record.h"

#include <algorithm>

#include "scorch/core/error.h"

namespace scorch {

SCORCH_DEFAULT_VALUE_MEMBERS(Record);
Record::Record(bool v) : value_(v) {}
Record::Record(IntTag, int64_t v) : value_(v) {}
Record::Record(double v) : value_(v) {}
Record::Record(float v) : value_(static_cast<double>(v)) {}
Record::Record(std::string v) : value_(std::move(v)) {}
Record::Record(const char* v) : value_(std::string(v)) {}
Record::Record(TensorData data, uint64_t param_id) : value_(RecordTensor{std::move(data), param_id}) {}
Record::Record(RecordTensor t) : value_(std::move(t)) {}
Record::Record(List items) : value_(std::move(items)) {}
Record::Record(Map entries) : value_(std::move(entries)) {}
bool operator==(const Record& a, const Record& b) { return a.value_ == b.value_; }

std::string_view record_kind_name(RecordKind kind) {
  static constexpr std::string_view names[] = {"null", "bool", "int", "float", "string", "tensor", "list", "map"};
  return names[static_cast<size_t>(kind)];
}

void Record::kind_error(RecordKind expected) const {
  throw FormatError("record", "expected " + std::string(record_kind_name(expected)) + ", found " +
                                  std::string(record_kind_name(kind())));
}

bool Record::as_bool() const { return checked<bool>(RecordKind::Bool); }
int64_t Record::as_int() const { return checked<int64_t>(RecordKind::Int); }
double Record::as_float() const {
  if (auto* v = std::get_if<int64_t>(&value_)) return static_cast<double>(*v);
  return checked<double>(RecordKind::Float);
}
const std::string& Record::as_string() const { return checked<std::string>(RecordKind::String); }
const RecordTensor& Record::as_tensor() const { return checked<RecordTensor>(RecordKind::Tensor); }
RecordTensor& Record::as_tensor_mut() { return const_cast<RecordTensor&>(checked<RecordTensor>(RecordKind::Tensor)); }
const Record::List& Record::as_list() const { return checked<List>(RecordKind::List); }
Record::List& Record::as_list_mut() { return const_cast<List&>(checked<List>(RecordKind::List)); }
const Record::Map& Record::as_map() const { return checked<Map>(RecordKind::Map); }
Record::Map& Record::as_map_mut() { return const_cast<Map&>(checked<Map>(RecordKind::Map)); }

const Record* Record::find(std::string_view key) const {
  auto* map = std::get_if<Map>(&value_);
  if (!map) return nullptr;
  for (const auto& [k, v] : *map)
    if (k == key) return &v;
  return nullptr;
}
Record* Record::find_mut(std::string_view key) { return const_cast<Record*>(std::as_const(*this).find(key)); }

const Record& Record::at(std::string_view key) const {
  const Record* found = find(key);
  if (!found) {
    if (!is_map()) kind_error(RecordKind::Map);
    throw FormatError("record", "missing key '" + std::string(key) + "'");
  }
  return *found;
}
const Record& Record::at(size_t i) const {
  const List& list = as_list();
  if (i >= list.size())
    throw FormatError("record",
                      "index " + std::to_string(i) + " out of range for a list of " + std::to_string(list.size()));
  return list[i];
}

Record& Record::set(std::string key, Record value) {
  Map& map = as_map_mut();
  for (auto& [k, v] : map)
    if (k == key) {
      v = std::move(value);
      return *this;
    }
  map.emplace_back(std::move(key), std::move(value));
  return *this;
}
Record& Record::push(Record value) {
  as_list_mut().push_back(std::move(value));
  return *this;
}
size_t Record::size() const {
  if (auto* m = std::get_if<Map>(&value_)) return m->size();
  if (auto* l = std::get_if<List>(&value_)) return l->size();
  return 0;
}

namespace {
/// Runs read() and prefixes a FormatError with the key it concerns.
template <class F> decltype(auto) keyed(std::string_view key, F&& read) {
  try {
    return read();
  } catch (const FormatError& e) {
    throw FormatError("record", "'" + std::string(key) + "': " + std::string(e.what()).substr(9));
  }
}
}  // namespace

double Record::get_float(std::string_view key) const {
  return keyed(key, [&]() { return at(key).as_float(); });
}
int64_t Record::get_int(std::string_view key) const {
  return keyed(key, [&]() { return at(key).as_int(); });
}
const std::string& Record::get_string(std::string_view key) const {
  return keyed(key, [&]() -> const std::string& { return at(key).as_string(); });
}
const RecordTensor& Record::get_tensor(std::string_view key) const {
  return keyed(key, [&]() -> const RecordTensor& { return at(key).as_tensor(); });
}

size_t Record::tensor_count() const {
  if (is_tensor()) return 1;
  size_t n = 0;
  if (auto* l = std::get_if<List>(&value_))
    for (const auto& v : *l) n += v.tensor_count();
  if (auto* m = std::get_if<Map>(&value_))
    for (const auto& [k, v] : *m) n += v.tensor_count();
  return n;
}
size_t Record::tensor_bytes() const {
  if (is_tensor()) return as_tensor().data.bytes().size();
  size_t n = 0;
  if (auto* l = std::get_if<List>(&value_))
    for (const auto& v : *l) n += v.tensor_bytes();
  if (auto* m = std::get_if<Map>(&value_))
    for (const auto& [k, v] : *m) n += v.tensor_bytes();
  return n;
}

std::string describe(const Record& r) {
  switch (r.kind()) {
    case RecordKind::Null: return "null";
    case RecordKind::Bool: return r.as_bool() ? "true" : "false";
    case RecordKind::Int: return std::to_string(r.as_int());
    case RecordKind::Float: return std::to_string(r.as_float());
    case RecordKind::String: return "\"" + r.as_string() + "\"";
    case RecordKind::Tensor:
      return std::string(dtype_name(r.as_tensor().data.dtype())) + r.as_tensor().data.shape().to_string();
    case RecordKind::List: {
      std::string s = "[";
      for (const auto& v : r.as_list()) s += (s.size() > 1 ? ", " : "") + describe(v);
      return s + "]";
    }
    case RecordKind::Map: {
      std::string s = "{";
      for (const auto& [k, v] : r.as_map()) s += (s.size() > 1 ? ", " : "") + k + ": " + describe(v);
      return s + "}";
    }
  }
  return "?";
}

}  // namespace scorch

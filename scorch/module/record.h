#pragma once
// Record: the saved state of a module, an optimizer or a scheduler, as a tree of values —
// null, bool, int, float, string, tensor (host data plus the ParamId it belongs to), list, map.
// Recorders turn a Record into bytes and back; modules build and read Records by field name.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "scorch/core/value_members.h"
#include "scorch/core/tensor_data.h"

namespace scorch {

/// A tensor in a record; param_id is 0 when the tensor is not a parameter.
struct RecordTensor {
  TensorData data;
  uint64_t param_id = 0;
  friend bool operator==(const RecordTensor&, const RecordTensor&) = default;
};

/// What a Record node holds.
enum class RecordKind : uint8_t { Null, Bool, Int, Float, String, Tensor, List, Map };

/// The name of a RecordKind ("null", "bool", "int", "float", "string", "tensor", "list", "map").
std::string_view record_kind_name(RecordKind kind);

/// A value tree; maps keep insertion order and unique keys.
class Record {
 public:
  using List = std::vector<Record>;
  using Map = std::vector<std::pair<std::string, Record>>;

  SCORCH_VALUE_MEMBERS(Record);  // defaulted in the .cpp
  Record(bool v);
  template <std::integral I>
  requires(!std::same_as<I, bool>) Record(I v) : Record(IntTag{}, static_cast<int64_t>(v)) {}
  Record(double v);
  Record(float v);
  Record(std::string v);
  Record(const char* v);
  Record(TensorData data, uint64_t param_id = 0);
  Record(RecordTensor t);
  Record(List items);
  Record(Map entries);
  /// An empty map (the usual start of a record).
  static Record map() { return Record(Map{}); }
  /// An empty list.
  static Record list() { return Record(List{}); }

  RecordKind kind() const { return static_cast<RecordKind>(value_.index()); }
  bool is_null() const { return kind() == RecordKind::Null; }
  bool is_map() const { return kind() == RecordKind::Map; }
  bool is_list() const { return kind() == RecordKind::List; }
  bool is_tensor() const { return kind() == RecordKind::Tensor; }

  /// Typed reads; each throws FormatError naming the expected and found kinds.
  bool as_bool() const;
  int64_t as_int() const;
  /// A float, or an int widened to double.
  double as_float() const;
  const std::string& as_string() const;
  const RecordTensor& as_tensor() const;
  RecordTensor& as_tensor_mut();
  const List& as_list() const;
  List& as_list_mut();
  const Map& as_map() const;
  Map& as_map_mut();

  /// Map lookup: the value at key, or nullptr (also when this is not a map).
  const Record* find(std::string_view key) const;
  Record* find_mut(std::string_view key);
  /// Map lookup that throws FormatError naming the missing key.
  const Record& at(std::string_view key) const;
  /// List element i; throws FormatError when out of range.
  const Record& at(size_t i) const;
  /// Sets key (replacing an existing value); this must be a map. Returns *this for chaining.
  Record& set(std::string key, Record value);
  /// Appends to a list.
  Record& push(Record value);
  /// Entries of a map or elements of a list; 0 otherwise.
  size_t size() const;
  /// Typed map reads: at(key).as_*, with the key in the error.
  double get_float(std::string_view key) const;
  int64_t get_int(std::string_view key) const;
  const std::string& get_string(std::string_view key) const;
  const RecordTensor& get_tensor(std::string_view key) const;

  /// Number of tensors and of tensor bytes in the tree.
  size_t tensor_count() const;
  size_t tensor_bytes() const;

  /// Equal kinds and equal values (maps in the same order).
  friend bool operator==(const Record& a, const Record& b);

 private:
  struct IntTag {};
  Record(IntTag, int64_t v);
  [[noreturn]] void kind_error(RecordKind expected) const;
  /// The held T, or a FormatError naming expected and the found kind.
  template <class T> const T& checked(RecordKind expected) const {
    if (auto* v = std::get_if<T>(&value_)) return *v;
    kind_error(expected);
  }
  std::variant<std::monostate, bool, int64_t, double, std::string, RecordTensor, List, Map> value_;
};

/// A short description for messages and debugging: the tree's shape with tensors as "f32[2, 3]".
std::string describe(const Record& record);

}  // namespace scorch

#pragma once
// Internal to scorch/import/pytorch: the objects of a torch.save pickle and the safe unpickler that builds them
// (unpickler.cpp). It executes nothing: a global is accepted only from an allowlist (OrderedDict, torch's tensor and
// parameter rebuild functions, its typed storages), and calling one runs our own code for it.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "scorch/core/dtype.h"

namespace scorch::pytorch::detail {

struct Value;
/// Objects are shared as in Python (a memo entry and the stack hold the same container): a pointer into the values
/// an Unpickled owns.
using Ref = Value*;

/// A storage named by a persistent id ('storage', `<Type>Storage`, key, location, numel).
struct StorageRef {
  DType dtype = DType::F32;
  std::string key;
  int64_t numel = 0;
};
/// A tensor as _rebuild_tensor_v2 describes it: a strided view of a storage.
struct TensorRef {
  StorageRef storage;
  int64_t offset = 0;
  std::vector<int64_t> size, stride;
};

struct Value {
  enum class Kind { None, Bool, Int, Float, String, Bytes, Tuple, List, Dict, Global, Storage, Tensor };
  Kind kind = Kind::None;
  bool boolean = false;
  int64_t integer = 0;
  double number = 0;
  std::string text;                           // String, Bytes; Global: "module.name"
  std::vector<Ref> items;                     // Tuple, List
  std::vector<std::pair<Ref, Ref>> entries;   // Dict, in insertion order
  StorageRef storage;                         // Storage
  TensorRef tensor;                           // Tensor
};

/// The name of a value's kind ("dict", "tensor", ...), for messages.
std::string kind_name(const Value& v);

struct Unpickled {
  std::vector<std::unique_ptr<Value>> values;  // every value built; object and its parts point into them
  Ref object = nullptr;
  size_t consumed = 0;                  // bytes up to and including STOP (a legacy file holds several pickles)
  std::vector<StorageRef> storages;     // every persistent id met, in order
};

/// Runs the pickle at the start of bytes (protocols 2 to 5, as torch.save writes them) and returns the object it
/// builds. Throws FormatError starting with "load" and naming `source` for truncated or malformed input, an opcode
/// outside the supported set, a global outside the allowlist (naming it), or limits passed (stack, memo).
Unpickled unpickle(std::span<const std::byte> bytes, const std::string& source);

}  // namespace scorch::pytorch::detail

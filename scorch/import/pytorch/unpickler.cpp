// The safe unpickler (pickle.h): a stack machine over the opcodes torch.save emits. Containers are shared through
// the memo as Python shares them; every read is bounds-checked against the bytes, and every size comes from bytes
// actually present, so no claimed length allocates more than the input holds.
#include <bit>
#include <cstdio>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "scorch/core/error.h"
#include "scorch/import/pytorch/pickle.h"

namespace scorch::pytorch::detail {
namespace {

constexpr size_t kMaxStack = 1u << 20;  // values on the stack (and marks)
constexpr size_t kMaxMemo = 1u << 20;   // memo entries
constexpr size_t kMaxValues = 1u << 21;  // values built (about 300 MB at most)

/// The storage types torch.save names, and their dtypes.
constexpr std::pair<std::string_view, DType> kStorages[] = {
    {"FloatStorage", DType::F32}, {"DoubleStorage", DType::F64}, {"HalfStorage", DType::F16},
    {"BFloat16Storage", DType::BF16}, {"LongStorage", DType::I64}, {"IntStorage", DType::I32},
    {"ShortStorage", DType::I16}, {"CharStorage", DType::I8}, {"ByteStorage", DType::U8},
    {"BoolStorage", DType::Bool}};

std::optional<DType> storage_dtype(const std::string& global) {
  for (auto [name, dtype] : kStorages)
    if (global == "torch." + std::string(name)) return dtype;
  return std::nullopt;
}

/// The globals a pickle may name; anything else is refused when the pickle names it.
bool allowed(const std::string& global) {
  static const std::string kCallables[] = {"collections.OrderedDict", "torch._utils._rebuild_tensor_v2",
                                           "torch._utils._rebuild_tensor", "torch._utils._rebuild_parameter",
                                           "torch._utils._rebuild_parameter_with_state"};
  for (const auto& name : kCallables)
    if (global == name) return true;
  return storage_dtype(global).has_value();
}

class Machine {
 public:
  Machine(std::span<const std::byte> bytes, const std::string& source) : bytes_(bytes), source_(source) {}

  Ref run();
  /// The values built, which own one another's memory (cycles and deep nesting free nothing recursively).
  std::vector<std::unique_ptr<Value>> take_values() { return std::move(values_); }
  size_t consumed() const { return pos_; }
  const std::vector<StorageRef>& storages() const { return storages_; }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw FormatError("load", source_ + ": pickle byte " + std::to_string(at_) + ": " + why);
  }
  std::span<const std::byte> take(size_t n) {
    if (n > bytes_.size() - pos_) fail("truncated (" + std::to_string(n) + " bytes needed, " +
                                       std::to_string(bytes_.size() - pos_) + " left)");
    auto out = bytes_.subspan(pos_, n);
    pos_ += n;
    return out;
  }
  template <class U> U little() {
    U v;
    std::memcpy(&v, take(sizeof(U)).data(), sizeof(U));
    return v;
  }
  std::string text(size_t n) {
    auto b = take(n);
    return {reinterpret_cast<const char*>(b.data()), b.size()};
  }
  std::string line() {
    size_t end = pos_;
    while (end < bytes_.size() && bytes_[end] != std::byte{'\n'}) ++end;
    if (end == bytes_.size()) fail("a GLOBAL name runs past the end");
    std::string s = text(end - pos_);
    ++pos_;
    return s;
  }

  Ref make(Value::Kind kind) {
    if (values_.size() >= kMaxValues) fail("builds more than " + std::to_string(kMaxValues) + " values");
    values_.push_back(std::make_unique<Value>());
    values_.back()->kind = kind;
    return values_.back().get();
  }
  Ref make_int(int64_t i) {
    Ref v = make(Value::Kind::Int);
    v->integer = i;
    return v;
  }
  Ref make_text(Value::Kind kind, std::string text) {
    Ref v = make(kind);
    v->text = std::move(text);
    return v;
  }

  void push(Ref v) {
    if (stack_.size() >= kMaxStack) fail("more than " + std::to_string(kMaxStack) + " values on the stack");
    stack_.push_back(std::move(v));
  }
  Ref pop() {
    if (stack_.size() <= floor()) fail("pops an empty stack");
    Ref v = stack_.back();
    stack_.pop_back();
    return v;
  }
  Ref& top() {
    if (stack_.size() <= floor()) fail("reads an empty stack");
    return stack_.back();
  }
  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  /// The values above the last mark, the mark removed.
  std::vector<Ref> pop_mark() {
    if (marks_.empty()) fail("no MARK to pop to");
    size_t m = marks_.back();
    marks_.pop_back();
    std::vector<Ref> items(std::make_move_iterator(stack_.begin() + static_cast<ptrdiff_t>(m)),
                           std::make_move_iterator(stack_.end()));
    stack_.resize(m);
    return items;
  }

  void put(uint64_t index) {
    if (memo_.size() >= kMaxMemo && !memo_.contains(index))
      fail("more than " + std::to_string(kMaxMemo) + " memo entries");
    memo_[index] = top();
  }
  void get(uint64_t index) {
    auto found = memo_.find(index);
    if (found == memo_.end()) fail("memo entry " + std::to_string(index) + " was never stored");
    push(found->second);
  }

  void global(const std::string& module, const std::string& name) {
    std::string full = module + "." + name;
    if (!allowed(full))
      fail("global '" + full + "' is not allowed (only OrderedDict, torch's tensor rebuild functions and storages)");
    push(make_text(Value::Kind::Global, full));
  }
  Ref tuple(std::vector<Ref> items) {
    auto t = make(Value::Kind::Tuple);
    t->items = std::move(items);
    return t;
  }
  void set_items(std::vector<Ref> items) {
    Ref& dict = top();
    if (dict->kind != Value::Kind::Dict) fail("SETITEM(S) on a " + kind_name(*dict));
    if (items.size() % 2 != 0) fail("SETITEMS with an odd number of values");
    for (size_t i = 0; i < items.size(); i += 2) dict->entries.emplace_back(items[i], items[i + 1]);
  }
  void append(std::vector<Ref> items) {
    Ref& list = top();
    if (list->kind != Value::Kind::List) fail("APPEND(S) on a " + kind_name(*list));
    for (auto& item : items) list->items.push_back(std::move(item));
  }
  int64_t long1(size_t n) {
    if (n > 8) fail("an integer of " + std::to_string(n) + " bytes (at most 8 are read)");
    auto b = take(n);
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(b[i]) << (8 * i);
    if (n > 0 && n < 8 && (static_cast<uint8_t>(b[n - 1]) & 0x80)) v |= ~uint64_t{0} << (8 * n);  // sign-extend
    return static_cast<int64_t>(v);
  }

  Ref reduce(const Ref& callable, const Ref& args);
  Ref persistent(const Ref& pid);
  void build();
  bool step(uint8_t op);
  void step_more(uint8_t op);

  std::span<const std::byte> bytes_;
  const std::string& source_;
  size_t pos_ = 0, at_ = 0;
  std::vector<Ref> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, Ref> memo_;
  std::vector<StorageRef> storages_;
  std::vector<std::unique_ptr<Value>> values_;
};

int64_t as_int(const Ref& v, const char* what, const std::string& source) {
  if (v->kind == Value::Kind::Int) return v->integer;
  if (v->kind == Value::Kind::Bool) return v->boolean;
  throw FormatError("load", source + ": " + what + " is a " + kind_name(*v) + ", not an integer");
}

std::vector<int64_t> int_tuple(const Ref& v, const char* what, const std::string& source) {
  if (v->kind != Value::Kind::Tuple && v->kind != Value::Kind::List)
    throw FormatError("load", source + ": " + what + " is a " + kind_name(*v) + ", not a tuple");
  std::vector<int64_t> out;
  for (const auto& item : v->items) out.push_back(as_int(item, what, source));
  return out;
}

Ref Machine::reduce(const Ref& callable, const Ref& args) {
  if (callable->kind != Value::Kind::Global) fail("REDUCE calls a " + kind_name(*callable));
  if (args->kind != Value::Kind::Tuple) fail("REDUCE's arguments are a " + kind_name(*args));
  const std::string& name = callable->text;
  const auto& a = args->items;
  if (name == "collections.OrderedDict") {
    if (!a.empty()) fail("OrderedDict called with arguments");
    return make(Value::Kind::Dict);
  }
  if (name == "torch._utils._rebuild_parameter" || name == "torch._utils._rebuild_parameter_with_state") {
    if (a.empty() || a[0]->kind != Value::Kind::Tensor) fail(name + " needs a tensor first");
    return a[0];
  }
  if (name == "torch._utils._rebuild_tensor_v2" || name == "torch._utils._rebuild_tensor") {
    if (a.size() < 4 || a[0]->kind != Value::Kind::Storage) fail(name + " needs (storage, offset, size, stride, ...)");
    auto t = make(Value::Kind::Tensor);
    t->tensor = {a[0]->storage, as_int(a[1], "a tensor's offset", source_), int_tuple(a[2], "a tensor's size", source_),
                 int_tuple(a[3], "a tensor's stride", source_)};
    if (t->tensor.size.size() != t->tensor.stride.size()) fail(name + ": size and stride differ in length");
    return t;
  }
  fail("calls '" + name + "', which is not allowed");
}

Ref Machine::persistent(const Ref& pid) {
  const auto& p = pid->items;
  bool ok = pid->kind == Value::Kind::Tuple && (p.size() == 5 || p.size() == 6) && p[0]->kind == Value::Kind::String &&
            p[0]->text == "storage" && p[1]->kind == Value::Kind::Global && p[2]->kind == Value::Kind::String;
  if (!ok) fail("a persistent id that is not ('storage', type, key, location, numel)");
  auto dtype = storage_dtype(p[1]->text);
  if (!dtype) fail("storage type '" + p[1]->text + "' is not one of torch's typed storages");
  if (p.size() == 6 && p[5]->kind != Value::Kind::None) fail("storage views (legacy view metadata) are not supported");
  int64_t numel = as_int(p[4], "a storage's size", source_);
  if (numel < 0) fail("storage '" + p[2]->text + "' has a negative size");
  auto s = make(Value::Kind::Storage);
  s->storage = {*dtype, p[2]->text, numel};
  storages_.push_back(s->storage);
  return s;
}

void Machine::build() {
  pop();  // the state: OrderedDict's _metadata, a parameter's attributes; neither changes the tensors
  Value::Kind k = top()->kind;
  if (k != Value::Kind::Dict && k != Value::Kind::Tensor) fail("BUILD on a " + kind_name(*top()));
}

/// Values, containers and stack shapes; false for an opcode left to step_more.
bool Machine::step(uint8_t op) {
  switch (op) {
    case 0x80: take(1); return true;                    // PROTO
    case 0x95: take(8); return true;                    // FRAME (the frame's bytes follow inline)
    case '}': push(make(Value::Kind::Dict)); return true;  // EMPTY_DICT
    case ']': push(make(Value::Kind::List)); return true;  // EMPTY_LIST
    case ')': push(tuple({})); return true;                // EMPTY_TUPLE
    case '(':                                             // MARK
      if (marks_.size() >= kMaxStack) fail("too many MARKs");
      marks_.push_back(stack_.size());
      return true;
    case 'N': push(make(Value::Kind::None)); return true;
    case 0x88: case 0x89: {                               // NEWTRUE, NEWFALSE
      auto v = make(Value::Kind::Bool);
      v->boolean = op == 0x88;
      push(v);
      return true;
    }
    case 'K': push(make_int(little<uint8_t>())); return true;   // BININT1
    case 'M': push(make_int(little<uint16_t>())); return true;  // BININT2
    case 'J': push(make_int(little<int32_t>())); return true;   // BININT
    case 0x8a: push(make_int(long1(little<uint8_t>()))); return true;  // LONG1
    case 'G': {                                                        // BINFLOAT: big-endian
      auto v = make(Value::Kind::Float);
      v->number = std::bit_cast<double>(__builtin_bswap64(little<uint64_t>()));
      push(v);
      return true;
    }
    case 'X': push(make_text(Value::Kind::String, text(little<uint32_t>()))); return true;   // BINUNICODE
    case 0x8c: push(make_text(Value::Kind::String, text(little<uint8_t>()))); return true;  // SHORT_BINUNICODE
    case 0x8d: push(make_text(Value::Kind::String, text(little<uint64_t>()))); return true; // BINUNICODE8
    case 'T': push(make_text(Value::Kind::String, text(little<uint32_t>()))); return true;   // BINSTRING
    case 'U': push(make_text(Value::Kind::String, text(little<uint8_t>()))); return true;   // SHORT_BINSTRING
    case 'B': push(make_text(Value::Kind::Bytes, text(little<uint32_t>()))); return true;    // BINBYTES
    case 'C': push(make_text(Value::Kind::Bytes, text(little<uint8_t>()))); return true;    // SHORT_BINBYTES
    case 0x8e: push(make_text(Value::Kind::Bytes, text(little<uint64_t>()))); return true;  // BINBYTES8
    case 't': push(tuple(pop_mark())); return true;                                         // TUPLE
    case 0x85: { auto a = pop(); push(tuple({a})); return true; }                           // TUPLE1
    case 0x86: { auto b = pop(), a = pop(); push(tuple({a, b})); return true; }             // TUPLE2
    case 0x87: { auto c = pop(), b = pop(), a = pop(); push(tuple({a, b, c})); return true; }  // TUPLE3
    default: return false;
  }
}

/// Memo, globals, calls and mutation.
void Machine::step_more(uint8_t op) {
  switch (op) {
    case 'q': put(little<uint8_t>()); return;   // BINPUT
    case 'r': put(little<uint32_t>()); return;  // LONG_BINPUT
    case 0x94: put(memo_.size()); return;       // MEMOIZE
    case 'h': get(little<uint8_t>()); return;   // BINGET
    case 'j': get(little<uint32_t>()); return;  // LONG_BINGET
    case 'c': { std::string module = line(); global(module, line()); return; }  // GLOBAL
    case 0x93: {                                                                // STACK_GLOBAL
      Ref name = pop(), module = pop();
      if (module->kind != Value::Kind::String || name->kind != Value::Kind::String) fail("STACK_GLOBAL of non-strings");
      global(module->text, name->text);
      return;
    }
    case 'R': { Ref args = pop(), callable = pop(); push(reduce(callable, args)); return; }  // REDUCE
    case 'Q': push(persistent(pop())); return;                                              // BINPERSID
    case 'b': build(); return;                                                              // BUILD
    case 's': { Ref v = pop(), k = pop(); set_items({k, v}); return; }                      // SETITEM
    case 'u': set_items(pop_mark()); return;                                                // SETITEMS
    case 'a': append({pop()}); return;                                                      // APPEND
    case 'e': append(pop_mark()); return;                                                   // APPENDS
    case 'l': { auto l = make(Value::Kind::List); l->items = pop_mark(); push(l); return; }  // LIST
    case 'd': {                                                                             // DICT
      auto items = pop_mark();
      push(make(Value::Kind::Dict));
      set_items(std::move(items));
      return;
    }
    case '0': pop(); return;       // POP
    case '1': pop_mark(); return;  // POP_MARK
    case '2': push(top()); return; // DUP
    default: {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", op);
      fail(std::string("opcode ") + hex + " is not supported");
    }
  }
}

Ref Machine::run() {
  while (true) {
    at_ = pos_;
    auto op = static_cast<uint8_t>(take(1)[0]);
    if (op == '.') {  // STOP
      if (stack_.size() != 1 || !marks_.empty()) fail("STOP with " + std::to_string(stack_.size()) + " values left");
      return stack_.back();
    }
    if (!step(op)) step_more(op);
  }
}

}  // namespace

std::string kind_name(const Value& v) {
  static const char* kNames[] = {"None", "bool", "int", "float", "str", "bytes", "tuple", "list", "dict", "global",
                                 "storage", "tensor"};
  return kNames[static_cast<int>(v.kind)];
}

Unpickled unpickle(std::span<const std::byte> bytes, const std::string& source) {
  Machine machine(bytes, source);
  Ref object = machine.run();
  return {machine.take_values(), object, machine.consumed(), machine.storages()};
}

}  // namespace scorch::pytorch::detail

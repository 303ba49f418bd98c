// MessagePack coding of the op IR (the format is in ir_msgpack.h): one Codec<T> per field type over the writer and
// the reader of msgpack_io.h; records are coded through their visit(), messages' envelopes value by value.
#include "scorch/ir/ir_msgpack.h"

#include <algorithm>
#include <array>
#include <concepts>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "scorch/core/error.h"
#include "scorch/ir/msgpack_io.h"

namespace scorch::ir {

namespace {
using detail::kMax32;
using detail::kNone;
using detail::kTensorKey;
using detail::quoted;
using detail::Reader;
using detail::Type;
using detail::Writer;

// One Codec<T> per field type: write(Writer&, const T&) and read(Reader&, T&).
template <class T> struct Codec;

template <> struct Codec<bool> {
  static void write(Writer& w, bool v) { w.boolean(v); }
  static void read(Reader& r, bool& v) { v = r.boolean(); }
};

template <std::unsigned_integral T>
requires(!std::same_as<T, bool>) struct Codec<T> {
  static void write(Writer& w, T v) { w.uint(v); }
  static void read(Reader& r, T& v) {
    uint64_t u = r.uint();
    if (u > std::numeric_limits<T>::max()) r.fail("int " + std::to_string(u) + " is out of range");
    v = static_cast<T>(u);
  }
};

template <std::signed_integral T> struct Codec<T> {
  static void write(Writer& w, T v) { w.sint(v); }
  static void read(Reader& r, T& v) {
    int64_t s = r.sint();
    if (s < std::numeric_limits<T>::min() || s > std::numeric_limits<T>::max())
      r.fail("int " + std::to_string(s) + " is out of range");
    v = static_cast<T>(s);
  }
};

template <> struct Codec<double> {
  static void write(Writer& w, double v) { w.float64(v); }
  static void read(Reader& r, double& v) { v = r.number(); }
};

/// The names an enum's values are written as, indexed by value.
template <class E> struct EnumNames {};
template <> struct EnumNames<InterpolateMode> {
  static constexpr std::string_view what = "interpolate mode";
  static constexpr std::array<std::string_view, 3> names = {"nearest", "bilinear", "bicubic"};
};
template <> struct EnumNames<QuantValue> {
  static constexpr std::string_view what = "quantized value type";
  static constexpr std::array<std::string_view, 3> names = {"int8", "uint8", "q4"};
};
template <> struct EnumNames<QuantMode> {
  static constexpr std::string_view what = "quantization mode";
  static constexpr std::array<std::string_view, 2> names = {"symmetric", "affine"};
};
template <> struct EnumNames<QuantLevel> {
  static constexpr std::string_view what = "quantization level";
  static constexpr std::array<std::string_view, 3> names = {"tensor", "channel", "block"};
};
template <> struct EnumNames<Distribution::Kind> {
  static constexpr std::string_view what = "distribution kind";
  static constexpr std::array<std::string_view, 4> names = {"default", "uniform", "bernoulli", "normal"};
};

template <class E>
requires std::is_enum_v<E> && requires { EnumNames<E>::names; }
struct Codec<E> {
  static constexpr auto& names = EnumNames<E>::names;
  static void write(Writer& w, E v) {
    auto i = static_cast<size_t>(v);
    if (i >= names.size()) w.fail("invalid " + std::string(EnumNames<E>::what) + " " + std::to_string(i));
    w.str(names[i]);
  }
  static void read(Reader& r, E& v) {
    std::string_view name = r.str();
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] != name) continue;
      v = static_cast<E>(i);
      return;
    }
    r.fail("unknown " + std::string(EnumNames<E>::what) + " " + quoted(name));
  }
};

template <> struct Codec<DType> {
  static constexpr int kCount = static_cast<int>(DType::Bool) + 1;
  static void write(Writer& w, DType v) {
    if (static_cast<int>(v) >= kCount) w.fail("invalid dtype " + std::to_string(static_cast<int>(v)));
    w.str(dtype_name(v));
  }
  static void read(Reader& r, DType& v) {
    std::string_view name = r.str();
    for (int i = 0; i < kCount; ++i) {
      if (dtype_name(static_cast<DType>(i)) != name) continue;
      v = static_cast<DType>(i);
      return;
    }
    r.fail("unknown dtype " + quoted(name));
  }
};

template <> struct Codec<DeviceIr> {
  static void write(Writer& w, const DeviceIr& v) { w.str(v.name); }
  static void read(Reader& r, DeviceIr& v) { v.name = std::string(r.str()); }
};

template <> struct Codec<Shape> {
  static void write(Writer& w, const Shape& s) {
    w.array(s.rank());
    for (size_t d : s) w.uint(d);
  }
  static void read(Reader& r, Shape& s) {
    size_t rank = r.array();
    if (rank > kMaxRank) r.fail("rank " + std::to_string(rank) + " exceeds the maximum " + std::to_string(kMaxRank));
    std::array<size_t, kMaxRank> dims{};
    for (size_t i = 0; i < rank; ++i) {
      Reader::Scope element(r, i);
      Codec<size_t>::read(r, dims[i]);
    }
    s = Shape(std::span<const size_t>(dims.data(), rank));
    if (!s.checked_num_elements()) r.fail("shape " + s.to_string() + " overflows the element count");
  }
};

template <> struct Codec<TensorIr> {
  static void write(Writer& w, const TensorIr& t) {
    w.array(3);
    w.uint(t.id);
    Codec<Shape>::write(w, t.shape);
    Codec<DType>::write(w, t.dtype);
  }
  static void read(Reader& r, TensorIr& t) {
    size_t n = r.array();
    if (n != 3) r.fail("a tensor is [id, shape, dtype], not an array of " + std::to_string(n));
    {
      Reader::Scope field(r, "id");
      Codec<uint64_t>::read(r, t.id);
    }
    {
      Reader::Scope field(r, "shape");
      Codec<Shape>::read(r, t.shape);
    }
    Reader::Scope field(r, "dtype");
    Codec<DType>::read(r, t.dtype);
  }
};

template <> struct Codec<Scalar> {
  static void write(Writer& w, const Scalar& s) {
    switch (s.kind()) {
      case Scalar::Kind::Float: return w.float64(s.to_double());
      case Scalar::Kind::Int: return w.sint(s.to_int());
      case Scalar::Kind::Bool: return w.boolean(s.to_bool());
    }
  }
  static void read(Reader& r, Scalar& s) {
    switch (r.next_type()) {
      case Type::Bool: s = Scalar(r.boolean()); return;
      case Type::Float: s = Scalar(r.number()); return;
      case Type::UInt:
      case Type::Int: s = Scalar(r.sint()); return;
      default: r.expected("a scalar (a float, int or bool)");
    }
  }
};

template <> struct Codec<TensorData> {
  static void write(Writer& w, const TensorData& t) {
    auto expected = t.shape().checked_num_bytes(dtype_size(t.dtype()));
    if (!expected || *expected != t.bytes().size())
      w.fail(std::to_string(t.bytes().size()) + " bytes do not hold a tensor " + std::string(dtype_name(t.dtype())) +
             t.shape().to_string());
    w.map(3);
    w.str(kTensorKey);
    Codec<DType>::write(w, t.dtype());
    w.str("shape");
    Codec<Shape>::write(w, t.shape());
    w.str("data");
    w.bin(t.bytes());
  }
  static void read(Reader& r, TensorData& t);
};

void Codec<TensorData>::read(Reader& r, TensorData& t) {
  std::optional<DType> dtype;
  std::optional<Shape> shape;
  std::optional<std::span<const std::byte>> data;
  size_t pairs = r.map();
  for (size_t i = 0; i < pairs; ++i) {
    std::string_view key = r.key();
    bool repeated = key == kTensorKey ? dtype.has_value() : key == "shape" ? shape.has_value() : data.has_value();
    if (key != kTensorKey && key != "shape" && key != "data") r.fail("unknown tensor field " + quoted(key));
    if (repeated) r.fail("tensor field " + quoted(key) + " appears twice");
    Reader::Scope field(r, key == kTensorKey ? kTensorKey : key == "shape" ? "shape" : "data");
    if (key == kTensorKey) Codec<DType>::read(r, dtype.emplace());
    else if (key == "shape") Codec<Shape>::read(r, shape.emplace());
    else data = r.bin();
  }
  if (!dtype || !shape || !data) r.fail("a tensor needs \"__tensor__\" (its dtype), \"shape\" and \"data\"");
  std::string what = "tensor " + std::string(dtype_name(*dtype)) + shape->to_string();
  auto expected = shape->checked_num_bytes(dtype_size(*dtype));
  if (!expected) r.fail(what + " overflows the byte count");
  if (data->size() != *expected)
    r.fail(what + " needs " + std::to_string(*expected) + " bytes, found " + std::to_string(data->size()));
  if (*dtype == DType::Bool)
    for (size_t i = 0; i < data->size(); ++i)
      if (static_cast<uint8_t>((*data)[i]) > 1) r.fail(what + ": bool value " + std::to_string(i) + " is not 0 or 1");
  t = TensorData::from_bytes(std::vector<std::byte>(data->begin(), data->end()), *shape, *dtype);
}

template <class T> struct Codec<std::vector<T>> {
  static void write(Writer& w, const std::vector<T>& v) {
    w.array(v.size());
    for (const T& x : v) Codec<T>::write(w, x);
  }
  static void read(Reader& r, std::vector<T>& v) {
    size_t n = r.array();
    v.clear();  // grows with the elements read, never to n up front
    for (size_t i = 0; i < n; ++i) {
      Reader::Scope element(r, i);
      Codec<T>::read(r, v.emplace_back());
    }
  }
};

template <class T, size_t N> struct Codec<std::array<T, N>> {
  static void write(Writer& w, const std::array<T, N>& a) {
    w.array(N);
    for (const T& x : a) Codec<T>::write(w, x);
  }
  static void read(Reader& r, std::array<T, N>& a) {
    size_t n = r.array();
    if (n != N) r.fail("expected an array of " + std::to_string(N) + ", found one of " + std::to_string(n));
    for (size_t i = 0; i < N; ++i) {
      Reader::Scope element(r, i);
      Codec<T>::read(r, a[i]);
    }
  }
};

template <class T> struct Codec<std::optional<T>> {
  static void write(Writer& w, const std::optional<T>& v) {
    if (v) Codec<T>::write(w, *v);
    else w.nil();
  }
  static void read(Reader& r, std::optional<T>& v) {
    if (r.nil()) v.reset();
    else Codec<T>::read(r, v.emplace());
  }
};

// The fields of the option structs, by name, as the records' visit() lists theirs.
template <class S, class T>
concept Same = std::same_as<std::remove_const_t<S>, T>;
/// The option structs, coded as maps of their fields.
template <class S>
concept OptionStruct = std::same_as<S, ConvSpec> || std::same_as<S, PoolSpec> || std::same_as<S, InterpolateSpec> ||
    std::same_as<S, Distribution> || std::same_as<S, SliceRange> || std::same_as<S, AttentionDropout> ||
    std::same_as<S, AdamStep> || std::same_as<S, SgdStep> || std::same_as<S, QuantScheme> ||
    std::same_as<S, InputQuant>;

template <Same<ConvSpec> S, class F> void fields(S& s, F&& f) {
  f("stride", s.stride), f("padding", s.padding), f("dilation", s.dilation), f("padding_out", s.padding_out);
  f("groups", s.groups);
}
template <Same<PoolSpec> S, class F> void fields(S& s, F&& f) {
  f("kernel", s.kernel), f("stride", s.stride), f("padding", s.padding), f("dilation", s.dilation);
  f("ceil_mode", s.ceil_mode), f("count_include_pad", s.count_include_pad);
}
template <Same<InterpolateSpec> S, class F> void fields(S& s, F&& f) {
  f("output_size", s.output_size), f("mode", s.mode), f("align_corners", s.align_corners);
}
template <Same<Distribution> S, class F> void fields(S& s, F&& f) { f("kind", s.kind), f("a", s.a), f("b", s.b); }
template <Same<SliceRange> S, class F> void fields(S& s, F&& f) {
  f("start", s.start), f("end", s.end), f("step", s.step);
}
template <Same<AttentionDropout> S, class F> void fields(S& s, F&& f) { f("prob", s.prob), f("seed", s.seed); }
template <Same<AdamStep> S, class F> void fields(S& s, F&& f) {
  f("lr", s.lr), f("beta_1", s.beta_1), f("beta_2", s.beta_2), f("epsilon", s.epsilon);
  f("weight_decay", s.weight_decay), f("decoupled", s.decoupled), f("step", s.step);
}
template <Same<SgdStep> S, class F> void fields(S& s, F&& f) {
  f("lr", s.lr), f("weight_decay", s.weight_decay), f("momentum", s.momentum), f("dampening", s.dampening);
  f("with_momentum", s.with_momentum), f("nesterov", s.nesterov);
}

template <Same<QuantScheme> S, class F> void fields(S& s, F&& f) {
  f("value", s.value), f("mode", s.mode), f("level", s.level), f("axis", s.axis), f("block_size", s.block_size);
}
template <Same<InputQuant> S, class F> void fields(S& s, F&& f) {
  f("dynamic", s.dynamic), f("reduce_range", s.reduce_range), f("value", s.value), f("scale", s.scale);
  f("offset", s.offset), f("weight_only", s.weight_only);
}

template <class S> size_t field_count(const S& s) {
  size_t n = 0;
  fields(s, [&](const char*, const auto&) { ++n; });
  return n;
}

template <class S> void write_fields(Writer& w, const S& s) {
  fields(s, [&](const char* name, const auto& v) {
    w.str(name);
    Codec<std::decay_t<decltype(v)>>::write(w, v);
  });
}

/// Reads pairs fields of s, each named once, in any order; fails on an unknown, repeated or missing one.
template <class S> void read_fields(Reader& r, S& s, size_t pairs) {
  uint64_t seen = 0;  // bit i: field i was read
  for (size_t p = 0; p < pairs; ++p) {
    std::string_view key = r.key();
    size_t i = 0, found = kNone;
    fields(s, [&](const char* name, auto& v) {
      if (found == kNone && key == name) {
        found = i;
        if ((seen >> i) & 1) r.fail("field " + quoted(key) + " appears twice");
        Reader::Scope field(r, name);
        Codec<std::decay_t<decltype(v)>>::read(r, v);
      }
      ++i;
    });
    if (found == kNone) r.fail("unknown field " + quoted(key));
    seen |= uint64_t{1} << found;
  }
  size_t i = 0;
  fields(s, [&](const char* name, const auto&) {
    if (!((seen >> i++) & 1)) r.fail("missing field '" + std::string(name) + "'");
  });
}

template <OptionStruct S> struct Codec<S> {
  static void write(Writer& w, const S& s) {
    w.map(field_count(s));
    write_fields(w, s);
  }
  static void read(Reader& r, S& s) {
    read_fields(r, s, r.map());
    if constexpr (std::is_same_v<S, SliceRange>) {
      if (s.step == 0) r.fail("a slice range's step must not be 0");
      if (s.start > s.end) r.fail("a slice range's start exceeds its end");
    }
  }
};

// Records are coded through a table of their fields built once per record type, so the coding itself is compiled
// once per field type rather than once per record (several hundred records made this file slow to build).

/// One field of a record: its name, its offset in the record, and its type's write and read.
struct FieldCoder {
  const char* name;
  size_t offset;
  void (*write)(Writer&, const void*);
  void (*read)(Reader&, void*);
};
template <class T> void write_field(Writer& w, const void* v) { Codec<T>::write(w, *static_cast<const T*>(v)); }
template <class T> void read_field(Reader& r, void* v) { Codec<T>::read(r, *static_cast<T*>(v)); }

/// Record R's fields in declaration order, found once through its visit().
template <class R> const std::vector<FieldCoder>& coders() {
  static const std::vector<FieldCoder> table = [] {
    std::vector<FieldCoder> out;
    R probe{};
    const auto* base = reinterpret_cast<const char*>(&probe);
    probe.visit([&](const char* name, auto& v) {
      using T = std::decay_t<decltype(v)>;
      auto offset = static_cast<size_t>(reinterpret_cast<const char*>(&v) - base);
      out.push_back({name, offset, &write_field<T>, &read_field<T>});
    });
    if (out.size() > 64)  // read_record_fields marks the fields it read in a 64-bit mask
      throw FormatError("ir", std::string(kOpNames[static_cast<size_t>(R::id)]) + " has over 64 fields");
    return out;
  }();
  return table;
}

/// Writes the record at rec (fields as table) as a map whose first pair is "op": op.
void write_record_fields(Writer& w, std::string_view op, const void* rec, const std::vector<FieldCoder>& table) {
  w.op = op;
  w.map(table.size() + 1);
  w.str("op");
  w.str(op);
  for (const FieldCoder& f : table) {
    w.field = f.name;
    w.str(f.name);
    f.write(w, static_cast<const char*>(rec) + f.offset);
  }
}

/// Reads pairs fields of the record at rec (fields as table), each named once, in any order; fails on an unknown,
/// repeated or missing one.
void read_record_fields(Reader& r, void* rec, const std::vector<FieldCoder>& table, size_t pairs) {
  uint64_t seen = 0;  // bit i: field i was read (no record has 64 fields)
  for (size_t p = 0; p < pairs; ++p) {
    std::string_view key = r.key();
    auto it = std::find_if(table.begin(), table.end(), [&](const FieldCoder& f) { return key == f.name; });
    if (it == table.end()) r.fail("unknown field " + quoted(key));
    auto i = static_cast<size_t>(it - table.begin());
    if ((seen >> i) & 1) r.fail("field " + quoted(key) + " appears twice");
    Reader::Scope field(r, it->name);
    it->read(r, static_cast<char*>(rec) + it->offset);
    seen |= uint64_t{1} << i;
  }
  for (size_t i = 0; i < table.size(); ++i)
    if (!((seen >> i) & 1)) r.fail("missing field '" + std::string(table[i].name) + "'");
}

/// What the coder needs of op I's record type: a default record and its field table.
struct RecordCoding {
  OpRecord (*make)();
  const std::vector<FieldCoder>& (*fields)();
};
template <size_t I> OpRecord make_record() {
  static_assert(static_cast<size_t>(RecordOf<I>::id) == I, "record I is op I");
  return OpRecord(RecordOf<I>{});
}
// A pack expansion, not a fold: clang bounds folds at 256 operands and there is one record per op.
template <size_t... I> constexpr std::array<RecordCoding, sizeof...(I)> make_codings(std::index_sequence<I...>) {
  return {RecordCoding{&make_record<I>, &coders<RecordOf<I>>}...};
}
constexpr auto kCodings = make_codings(std::make_index_sequence<kOpCount>{});

void write_record(Writer& w, const OpRecord& record) {
  write_record_fields(w, kOpNames[record.index()], record.data(), kCodings[record.index()].fields());
}

const std::unordered_map<std::string_view, size_t>& op_index() {
  static const auto index = [] {
    std::unordered_map<std::string_view, size_t> out;
    for (size_t i = 0; i < kOpCount; ++i) out.emplace(kOpNames[i], i);
    return out;
  }();
  return index;
}

OpRecord read_record(Reader& r) {
  size_t pairs = r.map();
  if (pairs == 0) r.fail("a record needs \"op\", found an empty map");
  std::string_view key = r.key();
  if (key != "op") r.fail("a record's first key must be \"op\", not " + quoted(key));
  std::string_view name;
  {
    Reader::Scope field(r, "op");
    name = r.str();
  }
  auto it = op_index().find(name);
  if (it == op_index().end()) r.fail("unknown op " + quoted(name));
  r.op = kOpNames[it->second];
  OpRecord record = kCodings[it->second].make();
  read_record_fields(r, record.data(), kCodings[it->second].fields(), pairs - 1);
  return record;
}
}  // namespace

namespace {
/// A Reader over bytes at pos whose errors are decode_message's, in the envelope named what.
Reader message_reader(std::span<const std::byte> bytes, size_t pos) {
  Reader r(bytes, pos);
  r.context = "decode_message";
  r.op = "message";
  return r;
}
/// A Writer whose errors name the envelope.
Writer message_writer(std::vector<std::byte>& out) {
  Writer w(out);
  w.op = "message";
  return w;
}
}  // namespace

void MessageWriter::array(size_t n) { message_writer(out_).array(n); }
void MessageWriter::uint(uint64_t v) { message_writer(out_).uint(v); }
void MessageWriter::str(std::string_view s) { message_writer(out_).str(s); }
void MessageWriter::nil() { message_writer(out_).nil(); }
void MessageWriter::shape(const Shape& s) {
  Writer w = message_writer(out_);
  Codec<Shape>::write(w, s);
}
void MessageWriter::dtype(DType d) {
  Writer w = message_writer(out_);
  Codec<DType>::write(w, d);
}
void MessageWriter::tensor_data(const TensorData& t) {
  Writer w = message_writer(out_);
  w.field = "data";
  Codec<TensorData>::write(w, t);
}
void MessageWriter::record(const OpRecord& record) { append_op(out_, record); }

/// Runs read on a Reader at the current position and moves past what it read.
template <class Fn> auto MessageReader::step(Fn&& read) {
  Reader r = message_reader(bytes_, pos_);
  auto out = read(r);
  pos_ = r.pos();
  return out;
}
size_t MessageReader::array() {
  return step([](Reader& r) { return r.array(); });
}
uint64_t MessageReader::uint() {
  return step([](Reader& r) { return r.uint(); });
}
std::string MessageReader::str() {
  return step([](Reader& r) { return std::string(r.str()); });
}
bool MessageReader::nil() {
  return step([](Reader& r) { return r.nil(); });
}
bool MessageReader::next_is_uint() {
  return step([](Reader& r) { return r.next_type() == Type::UInt; });
}
Shape MessageReader::shape() {
  return step([](Reader& r) {
    Shape s;
    Codec<Shape>::read(r, s);
    return s;
  });
}
DType MessageReader::dtype() {
  return step([](Reader& r) {
    DType d{};
    Codec<DType>::read(r, d);
    return d;
  });
}
TensorData MessageReader::tensor_data() {
  return step([](Reader& r) {
    TensorData t;
    Reader::Scope field(r, "data");
    Codec<TensorData>::read(r, t);
    return t;
  });
}
OpRecord MessageReader::record() { return decode_op_at(bytes_, pos_); }
void MessageReader::finish() const {
  if (pos_ != bytes_.size())
    throw FormatError("decode_message", std::to_string(bytes_.size() - pos_) + " bytes follow the message (at byte " +
                                            std::to_string(pos_) + ")");
}

void append_op(std::vector<std::byte>& out, const OpRecord& record) {
  size_t size = out.size();
  try {
    Writer w(out);
    write_record(w, record);
  } catch (...) {
    out.resize(size);
    throw;
  }
}

std::vector<std::byte> encode_op(const OpRecord& record) {
  std::vector<std::byte> out;
  append_op(out, record);
  return out;
}

OpRecord decode_op_at(std::span<const std::byte> bytes, size_t& offset) {
  Reader r(bytes, offset);
  OpRecord record = read_record(r);
  offset = r.pos();
  return record;
}

OpRecord decode_op(std::span<const std::byte> bytes) {
  size_t offset = 0;
  OpRecord record = decode_op_at(bytes, offset);
  if (offset != bytes.size())
    throw FormatError("decode_op", std::string(kOpNames[record.index()]) + ": " +
                                       std::to_string(bytes.size() - offset) + " bytes follow the record (at byte " +
                                       std::to_string(offset) + ")");
  return record;
}

std::vector<std::byte> encode_ops(std::span<const OpRecord> records) {
  std::vector<std::byte> out;
  for (const OpRecord& record : records) append_op(out, record);
  return out;
}

std::vector<OpRecord> decode_ops(std::span<const std::byte> bytes) {
  std::vector<OpRecord> out;
  for (size_t offset = 0; offset < bytes.size();) out.push_back(decode_op_at(bytes, offset));
  return out;
}

}  // namespace scorch::ir

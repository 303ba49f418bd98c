// The op IR's MessagePack form: every record round-trips and is standard MessagePack (msgpack-c reads it and writes
// the same bytes), realistic records keep their values, and truncated, malformed or lying bytes give FormatError
// naming the field, never a crash or a huge allocation.
#include <gtest/gtest.h>
#include <msgpack.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "scorch/ir/ir_msgpack.h"

namespace scorch::ir {
namespace {

using Bytes = std::vector<std::byte>;

/// Builds MessagePack with msgpack-c, independently of the coder under test.
class Pack {
 public:
  Pack() {
    msgpack_sbuffer_init(&buf_);
    msgpack_packer_init(&pk_, &buf_, msgpack_sbuffer_write);
  }
  ~Pack() { msgpack_sbuffer_destroy(&buf_); }
  Pack(const Pack&) = delete;
  Pack& operator=(const Pack&) = delete;
  Pack& map(size_t n) { return msgpack_pack_map(&pk_, n), *this; }
  Pack& array(size_t n) { return msgpack_pack_array(&pk_, n), *this; }
  Pack& str(std::string_view s) { return msgpack_pack_str_with_body(&pk_, s.data(), s.size()), *this; }
  Pack& uint(uint64_t v) { return msgpack_pack_uint64(&pk_, v), *this; }
  Pack& sint(int64_t v) { return msgpack_pack_int64(&pk_, v), *this; }
  Pack& boolean(bool v) { return (v ? msgpack_pack_true(&pk_) : msgpack_pack_false(&pk_)), *this; }
  Pack& nil() { return msgpack_pack_nil(&pk_), *this; }
  Pack& bin(const Bytes& b) { return msgpack_pack_bin_with_body(&pk_, b.data(), b.size()), *this; }
  /// A TensorIr: [id, shape, dtype].
  Pack& tensor(uint64_t id, const std::vector<uint64_t>& shape, std::string_view dtype = "f32") {
    array(3).uint(id).array(shape.size());
    for (uint64_t d : shape) uint(d);
    return str(dtype);
  }
  /// Appends raw bytes (for headers msgpack-c will not write with a lying count).
  Pack& raw(std::initializer_list<uint8_t> bytes) {
    for (uint8_t b : bytes) msgpack_sbuffer_write(&buf_, reinterpret_cast<const char*>(&b), 1);
    return *this;
  }
  Bytes bytes() const {
    auto* p = reinterpret_cast<const std::byte*>(buf_.data);
    return Bytes(p, p + buf_.size);
  }

 private:
  msgpack_sbuffer buf_;
  msgpack_packer pk_;
};

/// How msgpack-c parses bytes: whether it reads exactly one whole object.
bool msgpack_c_reads_one_object(const Bytes& bytes) {
  msgpack_unpacked u;
  msgpack_unpacked_init(&u);
  size_t offset = 0;
  auto status = msgpack_unpack_next(&u, reinterpret_cast<const char*>(bytes.data()), bytes.size(), &offset);
  bool ok = status == MSGPACK_UNPACK_SUCCESS && offset == bytes.size() && u.data.type == MSGPACK_OBJECT_MAP &&
            u.data.via.map.size > 0 && u.data.via.map.ptr[0].key.type == MSGPACK_OBJECT_STR;
  msgpack_unpacked_destroy(&u);
  return ok;
}

/// Sets every field to a value unlike its default, varied by a counter.
struct Filler {
  uint64_t n = 1;
  void operator()(std::string_view, auto& field) { fill(field); }
  void fill(TensorIr& t) { t = {n++, Shape{2, n % 5 + 1}, DType::F16}; }
  void fill(Shape& s) { s = Shape{3, 4, n++ % 7}; }
  void fill(DType& d) { d = DType::I32; }
  void fill(DeviceIr& d) { d.name = "Cuda(1)"; }
  void fill(Scalar& s) {
    s = n % 3 == 0 ? Scalar(-7) : n % 3 == 1 ? Scalar(2.5) : Scalar(true);
    ++n;
  }
  void fill(TensorData& d) { d = TensorData({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, Shape{2, 3}); }
  void fill(Distribution& d) { d = Distribution::normal(0.5, 2.0); }
  void fill(size_t& v) { v = 300 + n++; }
  void fill(int64_t& v) { v = -40000 - static_cast<int64_t>(n++); }
  void fill(bool& v) { v = true; }
  void fill(double& v) { v = 0.125; }
  void fill(SliceRange& r) { r = {1, 4, -2}; }
  void fill(ConvSpec& s) { s = {{2, 2}, {1, 0}, {1, 3}, {0, 1}, 2}; }
  void fill(PoolSpec& s) { s = {{3, 3}, {2, 2}, {1, 1}, {1, 1}, true, false}; }
  void fill(InterpolateSpec& s) { s = {{8, 9}, InterpolateMode::Bicubic, true}; }
  void fill(AttentionDropout& d) { d = {0.25, 0xfedcba9876543210ull}; }
  void fill(AdamStep& s) { s = {1e-3, 0.8, 0.95, 1e-6, 0.01, true, 7}; }
  void fill(SgdStep& s) { s = {0.1, 1e-4, 0.9, 0.1, true, true}; }
  void fill(QuantScheme& s) { s = QuantScheme::q4_blocks(1, 64).with_mode(QuantMode::Affine); }
  void fill(InputQuant& q) { q = {false, true, QuantValue::Int8, 0.5, -3, true}; }
  template <class T> void fill(std::vector<T>& v) {
    v.resize(3);
    for (auto& x : v) fill(x);
  }
  template <class T, size_t N> void fill(std::array<T, N>& a) {
    for (auto& x : a) fill(x);
  }
  template <class T> void fill(std::optional<T>& o) { fill(o.emplace()); }
};

/// Checks that record (of `fields` fields) encodes to one MessagePack map that decodes to the same bytes again.
/// Not a template: the checks are compiled once, not once per record type.
void check_round_trip(const OpRecord& record, size_t fields) {
  SCOPED_TRACE(std::string(kOpNames[record.index()]));
  ASSERT_LE(fields, 64u) << "the decoder marks the fields it read in a 64-bit mask";
  Bytes bytes = encode_op(record);
  EXPECT_TRUE(msgpack_c_reads_one_object(bytes));
  OpRecord back = decode_op(bytes);
  ASSERT_EQ(back.index(), record.index());
  EXPECT_EQ(encode_op(back), bytes);
}

template <size_t I> void round_trip() {
  RecordOf<I> filled{};
  size_t fields = 0;
  filled.visit([&](std::string_view, const auto&) { ++fields; });
  filled.visit(Filler{});
  check_round_trip(OpRecord(std::move(filled)), fields);
}

template <size_t... I> constexpr auto round_trips(std::index_sequence<I...>) {
  return std::array<void (*)(), sizeof...(I)>{&round_trip<I>...};
}

TEST(IrMsgpack, EveryRecordRoundTrips) {
  for (auto check : round_trips(std::make_index_sequence<kOpCount>{})) check();
}

records::FloatAdd float_add() {
  records::FloatAdd r{};
  r.a = {1, Shape{2, 3}, DType::F32};
  r.b = {2, Shape{1, 3}, DType::F32};
  r.out[0] = {3, Shape{2, 3}, DType::F32};
  return r;
}

TEST(IrMsgpack, FloatAddKeepsValuesAndMatchesMsgpackC) {
  Bytes bytes = encode_op(float_add());
  Pack pack;
  pack.map(4).str("op").str("float_add").str("a").tensor(1, {2, 3}).str("b").tensor(2, {1, 3});
  pack.str("out").array(1).tensor(3, {2, 3});
  EXPECT_EQ(bytes, pack.bytes());
  auto add = get<records::FloatAdd>(decode_op(bytes));
  EXPECT_EQ(add.a, (TensorIr{1, Shape{2, 3}, DType::F32}));
  EXPECT_EQ(add.b, (TensorIr{2, Shape{1, 3}, DType::F32}));
  EXPECT_EQ(add.out[0], (TensorIr{3, Shape{2, 3}, DType::F32}));
}

TEST(IrMsgpack, FieldsMayComeInAnyOrder) {
  Pack pack;
  pack.map(4).str("op").str("float_add").str("out").array(1).tensor(3, {2, 3}).str("b").tensor(2, {1, 3});
  pack.str("a").tensor(1, {2, 3});
  EXPECT_EQ(encode_op(decode_op(pack.bytes())), encode_op(float_add()));
}

records::FloatFromData from_data() {
  records::FloatFromData r{};
  r.data = TensorData(std::vector<int16_t>{-1, 2, -300, 4000, 5, 6}, Shape{3, 2});
  r.device = {"Cuda(0)"};
  r.out[0] = {9, Shape{3, 2}, DType::I16};
  return r;
}

TEST(IrMsgpack, FromDataKeepsItsPayload) {
  Bytes bytes = encode_op(from_data());
  auto r = get<records::FloatFromData>(decode_op(bytes));
  EXPECT_EQ(r.data, from_data().data);
  EXPECT_EQ(r.data.to_vector<int16_t>(), (std::vector<int16_t>{-1, 2, -300, 4000, 5, 6}));
  EXPECT_EQ(r.device.name, "Cuda(0)");
  EXPECT_EQ(r.out[0], (TensorIr{9, Shape{3, 2}, DType::I16}));
}

records::ModuleConv conv() {
  records::ModuleConv r{};
  r.x = {1, Shape{8, 3, 32, 32}, DType::BF16};
  r.w = {2, Shape{16, 3, 3, 3}, DType::BF16};
  r.spec = {{2, 2}, {1, 1}, {1, 1}, {0, 0}, 1};
  r.out[0] = {4, Shape{8, 16, 16, 16}, DType::BF16};
  return r;
}

TEST(IrMsgpack, ConvKeepsItsOptions) {
  auto r = get<records::ModuleConv>(decode_op(encode_op(conv())));
  EXPECT_EQ(r.x, conv().x);
  EXPECT_EQ(r.w, conv().w);
  EXPECT_FALSE(r.bias.has_value());
  EXPECT_EQ(r.spec.stride, (SpatialDims{2, 2}));
  EXPECT_EQ(r.spec.padding, (SpatialDims{1, 1}));
  EXPECT_EQ(r.spec.dilation, (SpatialDims{1, 1}));
  EXPECT_EQ(r.spec.padding_out, (SpatialDims{0, 0}));
  EXPECT_EQ(r.spec.groups, 1u);
  auto with_bias = conv();
  with_bias.bias = TensorIr{3, Shape{16}, DType::BF16};
  r = get<records::ModuleConv>(decode_op(encode_op(with_bias)));
  EXPECT_EQ(r.bias, with_bias.bias);
}

TEST(IrMsgpack, ScalarsKeepTheirKind) {
  for (Scalar value : {Scalar(-0.0), Scalar(NAN), Scalar(int64_t{1} << 60), Scalar(false), Scalar(-5)}) {
    records::FloatFull r{};
    r.value = value;
    auto back = get<records::FloatFull>(decode_op(encode_op(r)));
    ASSERT_EQ(back.value.kind(), value.kind());
    if (value.is_float()) {
      EXPECT_EQ(std::signbit(back.value.to_double()), std::signbit(value.to_double()));
      EXPECT_EQ(std::isnan(back.value.to_double()), std::isnan(value.to_double()));
      if (!std::isnan(value.to_double())) { EXPECT_EQ(back.value.to_double(), value.to_double()); }
    } else {
      EXPECT_EQ(back.value.to_int(), value.to_int());
    }
  }
}

TEST(IrMsgpack, StreamsRoundTrip) {
  std::vector<OpRecord> records = {float_add(), from_data(), conv()};
  Bytes bytes = encode_ops(records);
  auto back = decode_ops(bytes);
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(encode_ops(back), bytes);
  size_t offset = 0;
  EXPECT_EQ(decode_op_at(bytes, offset).index(), static_cast<size_t>(OpId::float_add));
  EXPECT_EQ(offset, encode_op(float_add()).size());
  EXPECT_TRUE(decode_ops({}).empty());
  EXPECT_THROW(decode_op({}), FormatError);
}

/// The message of the FormatError decode_op throws on bytes ("" when it does not throw one).
std::string decode_error(const Bytes& bytes) {
  try {
    decode_op(bytes);
  } catch (const FormatError& e) { return e.what(); }
  return "";
}

TEST(IrMsgpack, EveryTruncationIsAFormatError) {
  for (const OpRecord& record : {OpRecord(from_data()), OpRecord(conv()), OpRecord(float_add())}) {
    Bytes bytes = encode_op(record);
    for (size_t n = 0; n < bytes.size(); ++n) {
      size_t offset = 0;
      EXPECT_THROW(decode_op_at(Bytes(bytes.begin(), bytes.begin() + n), offset), FormatError) << n;
      EXPECT_EQ(offset, 0u);
    }
    bytes.push_back(std::byte{0xc0});
    EXPECT_NE(decode_error(bytes).find("1 bytes follow the record"), std::string::npos);
    std::vector<OpRecord> two = {record, record};
    Bytes stream = encode_ops(two);
    EXPECT_THROW(decode_ops(Bytes(stream.begin(), stream.end() - 1)), FormatError);
  }
}

TEST(IrMsgpack, RejectsUnknownOpsAndMisplacedOp) {
  Pack unknown;
  unknown.map(1).str("op").str("float_frobnicate");
  EXPECT_NE(decode_error(unknown.bytes()).find("[decode_op] record: unknown op 'float_frobnicate'"), std::string::npos);
  Pack late;
  late.map(2).str("a").tensor(1, {2}).str("op").str("float_add");
  EXPECT_NE(decode_error(late.bytes()).find("first key must be \"op\""), std::string::npos);
  Pack not_a_map;
  not_a_map.array(1).str("float_add");
  EXPECT_NE(decode_error(not_a_map.bytes()).find("expected a map, found an array"), std::string::npos);
}

/// A FloatFromData whose data map is {"__tensor__": dtype, "shape": shape, "data": data}.
Bytes from_data_with(std::string_view dtype, const std::vector<uint64_t>& shape, const Bytes& data) {
  Pack pack;
  pack.map(4).str("op").str("float_from_data").str("data").map(3).str("__tensor__").str(dtype).str("shape");
  pack.array(shape.size());
  for (uint64_t d : shape) pack.uint(d);
  pack.str("data").bin(data).str("device").str("Cpu").str("out").array(1).tensor(1, {2});
  return pack.bytes();
}

TEST(IrMsgpack, RejectsShapesThatLie) {
  Bytes four(4);
  EXPECT_NO_THROW(decode_op(from_data_with("f32", {1}, four)));
  std::string huge = decode_error(from_data_with("f32", {uint64_t{1} << 20, uint64_t{1} << 20}, four));
  EXPECT_NE(huge.find("float_from_data.data: tensor f32[1048576, 1048576] needs 4398046511104 bytes, found 4"),
            std::string::npos)
      << huge;
  EXPECT_NE(decode_error(from_data_with("f32", {uint64_t{1} << 40, uint64_t{1} << 40}, four)).find("overflows"),
            std::string::npos);
  EXPECT_NE(decode_error(from_data_with("f32", {1, 1, 1, 1, 1, 1, 1, 1, 1}, four)).find("rank 9 exceeds"),
            std::string::npos);
  EXPECT_NE(decode_error(from_data_with("bool", {4}, {std::byte{0}, std::byte{1}, std::byte{2}, std::byte{1}}))
                .find("bool value 2"),
            std::string::npos);
  EXPECT_NE(decode_error(from_data_with("f31", {1}, four)).find("data.__tensor__: unknown dtype 'f31'"),
            std::string::npos);
  Pack overflow;
  overflow.map(4).str("op").str("float_add").str("a").tensor(1, {uint64_t{1} << 40, uint64_t{1} << 40});
  EXPECT_NE(decode_error(overflow.bytes()).find("float_add.a.shape: shape"), std::string::npos);
}

TEST(IrMsgpack, RejectsWrongTypesNamingTheField) {
  Pack wrong;
  wrong.map(4).str("op").str("float_add").str("a").str("hello");
  EXPECT_NE(decode_error(wrong.bytes()).find("[decode_op] float_add.a: expected an array, found a str"),
            std::string::npos);
  Pack dim;
  dim.map(4).str("op").str("float_add").str("a").array(3).uint(1).array(2).uint(2).sint(-3);
  EXPECT_NE(decode_error(dim.bytes()).find("float_add.a.shape[1]: expected a non-negative int, found -3"),
            std::string::npos);
  Pack outs;
  outs.map(4).str("op").str("float_add").str("a").tensor(1, {2}).str("b").tensor(2, {2});
  outs.str("out").array(2).tensor(3, {2}).tensor(4, {2});
  EXPECT_NE(decode_error(outs.bytes()).find("float_add.out: expected an array of 1, found one of 2"),
            std::string::npos);
  Pack step;
  step.map(4).str("op").str("float_slice").str("x").tensor(1, {4}).str("ranges").array(1).map(3);
  step.str("start").uint(0).str("end").uint(4).str("step").sint(0).str("out").array(1).tensor(2, {4});
  EXPECT_NE(decode_error(step.bytes()).find("float_slice.ranges[0]: a slice range's step must not be 0"),
            std::string::npos);
}

TEST(IrMsgpack, RejectsMissingUnknownAndRepeatedFields) {
  Pack missing;
  missing.map(3).str("op").str("float_add").str("a").tensor(1, {2}).str("out").array(1).tensor(2, {2});
  EXPECT_NE(decode_error(missing.bytes()).find("float_add: missing field 'b'"), std::string::npos);
  Pack extra;
  extra.map(5).str("op").str("float_add").str("a").tensor(1, {2}).str("b").tensor(2, {2}).str("c").nil();
  EXPECT_NE(decode_error(extra.bytes()).find("float_add: unknown field 'c'"), std::string::npos);
  Pack twice;
  twice.map(4).str("op").str("float_add").str("a").tensor(1, {2}).str("a").tensor(2, {2});
  EXPECT_NE(decode_error(twice.bytes()).find("field 'a' appears twice"), std::string::npos);
}

TEST(IrMsgpack, RejectsCountsTheBytesCannotHold) {
  Pack array;
  array.map(4).str("op").str("float_add").str("a").raw({0xdd, 0xff, 0xff, 0xff, 0xff, 0x01});
  EXPECT_NE(decode_error(array.bytes()).find("a count of 4294967295 elements exceeds the 1 bytes that remain"),
            std::string::npos);
  Pack map;
  map.raw({0xdf, 0xff, 0xff, 0xff, 0xff, 0xa2, 'o', 'p'});
  EXPECT_NE(decode_error(map.bytes()).find("pairs exceeds"), std::string::npos);
  Pack text;
  text.map(1).str("op").raw({0xdb, 0x7f, 0xff, 0xff, 0xff, 'x'});
  EXPECT_NE(decode_error(text.bytes()).find("a length of 2147483647 bytes exceeds the 1 that remain"),
            std::string::npos);
}

TEST(IrMsgpack, EveryOneByteMutationDecodesOrThrowsFormatError) {
  std::vector<OpRecord> records = {from_data(), conv()};
  Bytes bytes = encode_ops(records);
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t v : {0x00, 0x01, 0x7f, 0x80, 0x8f, 0x9f, 0xc0, 0xc1, 0xc6, 0xcf, 0xd3, 0xdb, 0xdd, 0xdf, 0xff}) {
      Bytes mutated = bytes;
      mutated[i] = std::byte{v};
      try {
        for (const OpRecord& r : decode_ops(mutated)) (void)encode_op(r);
      } catch (const FormatError&) {
        // The expected outcome for most mutations; any other exception fails the test.
      }
    }
  }
}

TEST(IrMsgpack, EncodeRejectsDataThatDoesNotFitItsShape) {
  records::FloatFromData r{};  // a default TensorData: shape [] (one element) but no bytes
  try {
    encode_op(r);
    FAIL() << "expected a FormatError";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("[encode_op] float_from_data.data: 0 bytes do not hold a tensor f32[]"),
              std::string::npos)
        << e.what();
  }
  Bytes out = {std::byte{1}};
  EXPECT_THROW(append_op(out, r), FormatError);
  EXPECT_EQ(out, Bytes{std::byte{1}});
}

}  // namespace
}  // namespace scorch::ir

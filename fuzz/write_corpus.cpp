// Writes the seed corpora of the fuzz targets with Scorch's own savers: write_corpus <dir> fills <dir>/<target>/.
// IDX, CSV and JSON lines have no saver in Scorch; their seeds are written here in the formats' plain layout.
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz/fuzz_config.h"
#include "scorch/data/sources/image.h"
#include "scorch/data/sources/mnist.h"
#include "scorch/data/sources/sqlite.h"
#include "scorch/ir/ir_msgpack.h"
#include "scorch/remote/protocol.h"
#include "scorch/module/recorder.h"

namespace scorch::fuzz {
namespace {
namespace fs = std::filesystem;

/// Every value kind and dtype, small: the records the recorder seeds hold.
std::vector<Record> seed_records() {
  Record all = Record::map()
                   .set("name", "adam")
                   .set("lr", 1e-3)
                   .set("step", int64_t{1} << 40)
                   .set("flag", true)
                   .set("none", Record())
                   .set("list", Record(Record::List{Record(1), Record(-2.5), Record("x")}))
                   .set("f32", Record(TensorData({0.5f, -1.25f, 3.0f, NAN}, Shape{2, 2}), 0x1234))
                   .set("f64", Record(TensorData({1.0, 2.0, 1e-8}, Shape{3})))
                   .set("i64", Record(TensorData(std::vector<int64_t>{-3, 0, int64_t{1} << 40}, Shape{3})))
                   .set("i8", Record(TensorData(std::vector<int8_t>{-3, 7}, Shape{2})))
                   .set("u8", Record(TensorData(std::vector<uint8_t>{0, 128, 255}, Shape{3})))
                   .set("mask", Record(TensorData(std::vector<bool>{true, false, true}, Shape{3, 1})))
                   .set("empty", Record(TensorData(std::vector<float>{}, Shape{0, 3})));
  Record model = Record::map().set(
      "layers",
      Record(Record::List{Record::map()
                              .set("weight", Record(TensorData({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, Shape{2, 3}), 7))
                              .set("bias", Record(TensorData({0.1f, 0.2f}, Shape{2}), 8))}));
  return {all, model, Record::map()};
}

/// Tensors only, as safetensors holds them.
Record seed_weights() {
  return Record::map()
      .set("layers", Record::map().set(
                         "0", Record::map()
                                  .set("weight", Record(TensorData({1.f, 2.f, 3.f, 4.f}, Shape{2, 2})))
                                  .set("bias", Record(TensorData(std::vector<bool>{true, false}, Shape{2})))))
      .set("embed", Record(TensorData(std::vector<int32_t>{1, 2, 3}, Shape{3, 1})));
}

template <class R> void records(const fs::path& dir, const std::string& name) {
  auto list = seed_records();
  for (size_t i = 0; i < list.size(); ++i) R{}.record(list[i], (dir / (name + std::to_string(i))).string());
}

template <template <class> class R> void every_precision(const fs::path& out, const std::string& target) {
  fs::create_directories(out / target);
  records<R<HalfPrecisionSettings>>(out / target, "half");
  records<R<FullPrecisionSettings>>(out / target, "full");
  records<R<DoublePrecisionSettings>>(out / target, "double");
}

void write_bytes(const fs::path& file, const std::vector<uint8_t>& bytes) {
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

void write_gzip(const fs::path& file, const std::vector<uint8_t>& bytes) {
  gzFile gz = gzopen(file.c_str(), "wb");
  gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(gz);
}

std::vector<uint8_t> idx_bytes(const std::vector<uint32_t>& dims) {
  std::vector<uint8_t> out{0, 0, 0x08, static_cast<uint8_t>(dims.size())};
  size_t count = 1;
  for (uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(d >> shift));
    count *= d;
  }
  for (size_t i = 0; i < count; ++i) out.push_back(static_cast<uint8_t>(i * 37));
  return out;
}

void binary_records(const fs::path& out) {
  every_precision<BinFileRecorder>(out, "record_bin");
  every_precision<BinGzFileRecorder>(out, "record_bin_gz");
  every_precision<NamedMpkFileRecorder>(out, "record_mpk");
  every_precision<NamedMpkGzFileRecorder>(out, "record_mpk_gz");
  every_precision<PrettyJsonFileRecorder>(out, "record_json");
  every_precision<JsonGzFileRecorder>(out, "record_json_gz");
  fs::create_directories(out / "record_bin_bytes");
  auto list = seed_records();
  for (size_t i = 0; i < list.size(); ++i) {
    auto bytes = BinBytesRecorder<>{}.record(list[i]);
    std::ofstream(out / "record_bin_bytes" / ("seed" + std::to_string(i)), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  fs::create_directories(out / "safetensors");
  SafetensorsFileRecorder<>{}.record(seed_weights(), (out / "safetensors" / "full").string());
  SafetensorsFileRecorder<HalfPrecisionSettings>{}.record(seed_weights(), (out / "safetensors" / "half").string());
  // PyTorch's files come from PyTorch: the seeds are fuzz/regressions/pytorch/ (tests/module/fixtures/pytorch).
  fs::create_directories(out / "pytorch");
  std::ofstream(out / "pytorch" / "not_a_zip") << "PK";
  // ONNX's too: fuzz/regressions/onnx_model/ (tests/module/fixtures/onnx and node tests of libonnx-testdata).
  fs::create_directories(out / "onnx_model");
  std::ofstream(out / "onnx_model" / "empty_graph") << std::string("\x3a\x00", 2);
  // onnx_value: a type byte (targets.cpp's list: 1 sequence, 2 optional, 3 optional sequence) and the test data of
  // libonnx-testdata's sequence and optional cases, where the package is installed.
  fs::create_directories(out / "onnx_value");
  const fs::path node = "/usr/share/libonnx-testdata/data/node";
  const std::pair<const char*, char> kCases[] = {{"test_sequence_insert_at_back", 1},
                                                 {"test_optional_get_element_sequence", 3},
                                                 {"test_optional_has_element", 2},
                                                 {"test_optional_has_element_empty", 2}};
  for (const auto& [name, type] : kCases) {
    std::ifstream in(node / name / "test_data_set_0" / "input_0.pb", std::ios::binary);
    if (!in) continue;
    std::ofstream seed(out / "onnx_value" / name, std::ios::binary);
    seed << type << in.rdbuf();
  }
  std::ofstream(out / "onnx_value" / "tensor", std::ios::binary) << std::string("\x00\x08\x01", 3);
}

void configs(const fs::path& out) {
  fs::create_directories(out / "config");
  FuzzConfig(4).save((out / "config" / "default.json").string());
  FuzzConfig(1 << 20)
      .with_name("net \"quoted\"")
      .with_mode(FuzzMode::Exact)
      .with_values({})
      .with_big(uint64_t{1} << 62)
      .with_inner(FuzzInnerConfig().with_seed(7))
      .save((out / "config" / "edited.json").string());
}

void tables(const fs::path& out) {
  fs::create_directories(out / "idx"), fs::create_directories(out / "idx_gz");
  write_bytes(out / "idx" / "images", idx_bytes({3, 2, 2}));
  write_bytes(out / "idx" / "labels", idx_bytes({5}));
  write_gzip(out / "idx_gz" / "images.gz", idx_bytes({3, 2, 2}));
  write_gzip(out / "idx_gz" / "labels.gz", idx_bytes({5}));
  fs::create_directories(out / "csv");
  std::ofstream(out / "csv" / "plain.csv") << "label,x,name\n1,0.5,a\n2,-3e4,b\n";
  std::ofstream(out / "csv" / "quoted.csv") << "label,x,name\r\n7,\"1,5\",\"say \"\"hi\"\"\nthere\"\r\n\r\n8,nan,c";
  fs::create_directories(out / "json_lines");
  std::ofstream(out / "json_lines" / "rows.jsonl") << "{\"text\": \"good\", \"label\": 1}\n\n[1, 2.5, null, true]\n";
}

void images(const fs::path& out) {
  fs::create_directories(out / "png"), fs::create_directories(out / "jpeg");
  for (size_t channels : {1, 2, 3, 4}) {
    data::Image image{3, 5, channels, std::vector<uint8_t>(3 * 5 * channels)};
    for (size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = static_cast<uint8_t>(i * 29);
    data::write_png((out / "png" / ("c" + std::to_string(channels) + ".png")).string(), image);
    if (channels == 1 || channels == 3)
      data::write_jpeg((out / "jpeg" / ("c" + std::to_string(channels) + ".jpg")).string(), image, 75);
  }
}

void sqlite(const fs::path& out) {
  fs::create_directories(out / "sqlite");
  data::SqliteDatasetWriter<data::MnistItem> writer((out / "sqlite" / "mnist.db").string(), true);
  for (uint8_t label = 0; label < 3; ++label) {
    data::MnistItem item{};
    for (size_t p = 0; p < item.image.size(); ++p) item.image[p] = static_cast<float>((p * 7 + label) % 256);
    item.label = label;
    writer.write(label < 2 ? "train" : "test", item);
  }
  writer.set_completed();
}

/// Op IR records of every field kind: tensors, tensor data, options, slices, a distribution, scalars.
std::vector<ir::OpRecord> seed_ops() {
  namespace rec = ir::records;
  rec::FloatAdd add{};
  add.a = {1, Shape{2, 3}, DType::F32}, add.b = {2, Shape{1, 3}, DType::F32}, add.out[0] = {3, Shape{2, 3}, DType::F32};
  rec::FloatFromData data{};
  data.data = TensorData(std::vector<bool>{true, false, true}, Shape{3, 1});
  data.device = {"Cpu"}, data.out[0] = {4, Shape{3, 1}, DType::Bool};
  rec::ModuleConv conv{};
  conv.x = {5, Shape{1, 3, 8, 8}, DType::F16}, conv.w = {6, Shape{4, 3, 3, 3}, DType::F16};
  conv.bias = ir::TensorIr{7, Shape{4}, DType::F16};
  conv.spec = {{2, 2}, {1, 1}, {1, 1}, {0, 0}, 1}, conv.out[0] = {8, Shape{1, 4, 4, 4}, DType::F16};
  rec::FloatSlice slice{};
  slice.x = {9, Shape{6, 4}, DType::F64}, slice.ranges = {{1, 5, 2}, {0, 4, -1}};
  slice.out[0] = {10, Shape{2, 4}, DType::F64};
  rec::FloatRandom random{};
  random.shape = Shape{0, 5}, random.dist = Distribution::normal(0.0, 2.0), random.device = {"Cuda(0)"};
  random.dtype = DType::BF16, random.out[0] = {11, Shape{0, 5}, DType::BF16};
  rec::FloatFull full{};
  full.shape = Shape{2}, full.value = Scalar(int64_t{-1} << 40), full.device = {"Cpu"}, full.dtype = DType::I64;
  full.out[0] = {12, Shape{2}, DType::I64};
  return {add, data, conv, slice, random, full};
}

/// A function writing bytes as the seed file out/target/name.
auto seed_writer(const fs::path& out, const std::string& target) {
  fs::create_directories(out / target);
  return [dir = out / target](const std::string& name, const std::vector<std::byte>& bytes) {
    std::ofstream(dir / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  };
}

void ir_ops(const fs::path& out) {
  auto write = seed_writer(out, "ir_op");
  auto ops = seed_ops();
  for (size_t i = 0; i < ops.size(); ++i) write("op" + std::to_string(i), ir::encode_op(ops[i]));
  write("stream", ir::encode_ops(ops));
}

/// Remote's messages, as scorch-server receives requests and a client replies: one of each kind.
void remote_messages(const fs::path& out) {
  auto write = seed_writer(out, "remote_message");
  auto ops = seed_ops();
  remote::Request hello;
  hello.kind = remote::RequestKind::Hello, hello.token = "token";
  write("hello", remote::encode_request(hello));
  for (size_t i = 0; i < ops.size(); ++i) {
    remote::Request op;
    op.kind = i % 2 ? remote::RequestKind::Call : remote::RequestKind::Op, op.drops = {1, 2, 3}, op.record = ops[i];
    write("op" + std::to_string(i), remote::encode_request(op));
  }
  remote::Request meta;
  meta.kind = remote::RequestKind::Meta, meta.value = 7;
  write("meta", remote::encode_request(meta));
  remote::Reply metas;
  metas.kind = remote::ReplyKind::Metas, metas.metas = {remote::TensorMeta{7, Shape{2, 3}, DType::F16}, std::nullopt};
  write("reply_metas", remote::encode_reply(metas));
  remote::Reply result;
  result.kind = remote::ReplyKind::Result, result.data = TensorData(std::vector<float>{1, 2}, {2});
  write("reply_result", remote::encode_reply(result));
  write("reply_error", remote::encode_reply(remote::error_reply(ShapeError("op", "shapes"))));
}
/// Models for micro_graph: a few byte strings that reach each layer kind and padded, strided, dilated kernels.
void micro_graphs(const fs::path& out) {
  auto write = seed_writer(out, "micro_graph");
  const std::vector<std::vector<uint8_t>> seeds = {
      {7, 0, 2, 8, 8, 1, 1, 1, 1, 1, 1, 0, 2, 2, 0, 1, 2, 2, 9, 9, 3, 2, 2, 1, 1, 0, 1, 0, 2, 1, 1, 5, 3},
      {3, 1, 1, 5, 6, 2, 1, 2, 2, 1, 0, 1, 1, 3, 1, 1, 0, 1, 7, 7, 0, 2, 1, 1, 1, 2, 3, 1, 4, 2, 5, 1},
      {9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 1, 1, 2, 3, 3, 5, 7, 1},
      {200, 1, 2, 4, 4, 2, 2, 0, 2, 1, 1, 1, 1, 3, 1, 2, 3, 11, 11, 3, 3, 1, 1, 1, 2, 1, 0, 1, 4, 1, 2, 3, 6}};
  for (size_t i = 0; i < seeds.size(); ++i) {
    std::vector<std::byte> bytes;
    for (uint8_t v : seeds[i]) bytes.push_back(std::byte{v});
    write("model" + std::to_string(i), bytes);
  }
}
/// Requests for store_request: a set, a get of it, an add, a wait, and a length past the limit, on each connection
/// kind (open store; the job-token store with and without its hello, a wrong one, a huge value before it).
void store_requests(const fs::path& out) {
  auto write = seed_writer(out, "store_request");
  auto request = [](char op, const std::string& key, const std::string& value) {
    std::string r(1, op);
    uint32_t n = uint32_t(key.size());
    r.append(reinterpret_cast<const char*>(&n), 4).append(key);
    n = uint32_t(value.size());
    r.append(reinterpret_cast<const char*>(&n), 4).append(value);
    return r;
  };
  std::string ms(8, '\0'), one(8, '\0');
  ms[0] = 50, one[0] = 1;
  std::string bytes =
      request('S', "key", "value") + request('G', "key", ms) + request('A', "count", one) + request('W', "key", ms);
  auto as_bytes = [](const std::string& s) {
    std::vector<std::byte> b(s.size());
    std::memcpy(b.data(), s.data(), s.size());
    return b;
  };
  // The first byte picks the connection (store_target.cpp): 0 the open store, 1 the guarded one with its token
  // presented, 2 the guarded one without it.
  write("session", as_bytes(std::string(1, '\0') + bytes));
  write("huge_length", as_bytes(std::string("\0S\xff\xff\xff\x7f", 6)));
  write("token_session", as_bytes(std::string(1, '\1') + bytes));
  write("no_token", as_bytes(std::string(1, '\2') + bytes));
  write("wrong_token", as_bytes(std::string(1, '\2') + request('H', "a-guess", "") + bytes));
  write("right_token_raw", as_bytes(std::string(1, '\2') + request('H', "fuzz-job-token", "") + bytes));
  write("pre_token_huge_value", as_bytes(std::string(1, '\2') + std::string("H\3\0\0\0abc\xff\xff\xff\x7f", 12)));
}
/// Op sequences for record_executor: three tensors made (float, int and bool zeros of shape [2, 3]), then ops the
/// bytes of a fixed pseudo-random stream choose (executor_target.cpp reads them).
void executor_sequences(const fs::path& out) {
  auto write = seed_writer(out, "record_executor");
  auto zeros = [](OpId op, uint8_t dtype) {
    auto index = static_cast<size_t>(op);
    // op (2 bytes), kind Op, shape: rank 2 then dims 2 and 3 (each a byte < 250 and its value), dtype
    return std::vector<uint8_t>{uint8_t(index >> 8), uint8_t(index & 255), 200, 2, 0, 2, 0, 3, dtype};
  };
  uint32_t state = 12345;
  for (int seed = 0; seed < 4; ++seed) {
    std::vector<uint8_t> bytes;
    for (auto [op, dtype] : {std::pair{OpId::float_zeros, 1}, {OpId::int_zeros, 4}, {OpId::bool_zeros, 9}}) {
      auto z = zeros(op, uint8_t(dtype));
      bytes.insert(bytes.end(), z.begin(), z.end());
    }
    for (int i = 0; i < 512; ++i) bytes.push_back(uint8_t((state = state * 1103515245u + 12345u) >> 16));
    std::vector<std::byte> out_bytes(bytes.size());
    std::memcpy(out_bytes.data(), bytes.data(), bytes.size());
    write("sequence" + std::to_string(seed), out_bytes);
  }
}
}  // namespace
}  // namespace scorch::fuzz

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  std::filesystem::path out = argv[1];
  try {
    scorch::fuzz::binary_records(out);
    scorch::fuzz::configs(out);
    scorch::fuzz::tables(out);
    scorch::fuzz::images(out);
    scorch::fuzz::sqlite(out);
    scorch::fuzz::ir_ops(out);
    scorch::fuzz::remote_messages(out);
    scorch::fuzz::micro_graphs(out);
    scorch::fuzz::store_requests(out);
    scorch::fuzz::executor_sequences(out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "write_corpus: %s\n", e.what());
    return 1;
  }
  std::ofstream(out / ".stamp") << "seeds written\n";
  return 0;
}

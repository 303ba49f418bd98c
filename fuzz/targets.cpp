// The parsers under fuzzing, each fed one input the way users load files: written to a scratch file and opened
// by the public loader, then everything loaded is read back (so a size that lies shows up as a sanitizer report).
#include "fuzz/targets.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "fuzz/fuzz_config.h"
#include "scorch/data/sources/csv.h"
#include "scorch/data/sources/idx.h"
#include "scorch/data/sources/image.h"
#include "scorch/data/sources/mnist.h"
#include "scorch/data/sources/sqlite.h"
#include "scorch/import/onnx/onnx_model.h"
#include "scorch/import/pytorch/pytorch.h"
#include "scorch/ir/ir_msgpack.h"
#include "scorch/remote/protocol.h"
#include "scorch/module/recorder.h"

namespace scorch::fuzz {

namespace {
/// Where scratch files go: /dev/shm when writable (ten times the executions of a disk), else the temp folder.
std::filesystem::path scratch_folder() {
  if (::access("/dev/shm", W_OK) == 0) return "/dev/shm";
  return std::filesystem::temp_directory_path();
}

/// A file of this process in the scratch folder, rewritten for every input and removed at exit.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& name)
      : path_((scratch_folder() / ("scorch-fuzz-" + std::to_string(::getpid()) + "-" + name)).string()) {}
  ~ScratchFile() {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      std::filesystem::remove(path_ + suffix, ec);  // SQLite's
  }
  /// Writes bytes to the file; returns its path.
  const std::string& write(std::span<const std::byte> bytes) {
    std::ofstream(path_, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return path_;
  }

 private:
  std::string path_;
};

/// Reads every value of a loaded record, tensors included.
double touch(const Record& r) {
  switch (r.kind()) {
    case RecordKind::Tensor: {
      double sum = 0;
      for (double v : r.as_tensor().data.to_vector<double>()) sum += v;
      return sum;
    }
    case RecordKind::List: {
      double sum = 0;
      for (const auto& v : r.as_list()) sum += touch(v);
      return sum;
    }
    case RecordKind::Map: {
      double sum = 0;
      for (const auto& [k, v] : r.as_map()) sum += touch(v) + static_cast<double>(k.size());
      return sum;
    }
    default: return static_cast<double>(describe(r).size());
  }
}

template <class R> void record_file(std::span<const std::byte> bytes) {
  static ScratchFile file("record." + R::extension());
  Record r = R{}.load(file.write(bytes));
  touch(r);
  (void)describe(r);
  (void)r.tensor_bytes();
}

void record_bin_bytes(std::span<const std::byte> bytes) { touch(BinBytesRecorder<>{}.load(bytes)); }

void safetensors(std::span<const std::byte> bytes) {
  static ScratchFile file("weights.safetensors");
  auto recorder = SafetensorsFileRecorder<>{}.with_key_remap("^layers\\.([0-9]+)\\.", "block_$1.");
  touch(recorder.load(file.write(bytes)));
}

void pytorch_file(std::span<const std::byte> bytes) {
  static ScratchFile file("weights.pt");
  auto recorder = PyTorchFileRecorder<>{}.with_key_remap("^layers\\.([0-9]+)\\.", "block_$1.");
  touch(recorder.load(file.write(bytes)));
}

void onnx_model(std::span<const std::byte> bytes) {
  static ScratchFile file("model.onnx");
  onnx::Model m = onnx::read_model(file.write(bytes));
  for (const auto& [name, t] : m.graph.initializers) (void)t.to_vector<double>();
}

/// Every tensor of a host value read back (a sequence's or optional's elements too).
double touch_value(const onnx::HostValue& v) {
  double sum = v.type == onnx::ValueType::Tensor ? static_cast<double>(v.tensor.to_vector<double>().size()) : 0;
  for (const auto& e : v.elements) sum += touch_value(e);
  return sum;
}

/// An ONNX test-data file (TensorProto, SequenceProto or OptionalProto): the first byte picks the declared type.
void onnx_value(std::span<const std::byte> bytes) {
  using T = onnx::ValueType;
  static const std::vector<std::vector<T>> kTypes = {
      {}, {T::Sequence}, {T::Optional}, {T::Optional, T::Sequence}, {T::Sequence, T::Sequence}};
  if (bytes.empty()) return;
  static ScratchFile file("value.pb");
  onnx::ValueInfo info{"fuzz", false, std::nullopt, std::nullopt, kTypes[size_t(bytes[0]) % kTypes.size()]};
  touch_value(onnx::read_value(file.write(bytes.subspan(1)), info));
}

void config(std::span<const std::byte> bytes) {
  std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  FuzzConfig c = FuzzConfig::from_json(text, "<fuzz>");
  (void)c.to_json();
}

void idx(std::span<const std::byte> bytes) {
  static ScratchFile file("array.idx");
  data::IdxArray a = data::read_idx(file.write(bytes));
  size_t sum = std::count(a.values.begin(), a.values.end(), uint8_t{255}) + a.dims.size();
  (void)sum;
}

void csv(std::span<const std::byte> bytes) {
  static ScratchFile file("table.csv");
  for (const auto& row : data::read_csv(file.write(bytes))) {
    for (const char* column : {"label", "x", "name"}) {
      try {
        (void)row.get<double>(column);
        (void)row.get<int32_t>(column);
        (void)row.get<std::string>(column).size();
      } catch (const Error&) {
        // A missing or non-numeric column is a clear error; keep reading the others.
      }
    }
  }
}

void json_lines(std::span<const std::byte> bytes) {
  static ScratchFile file("rows.jsonl");
  for (const auto& value : data::read_json_rows(file.write(bytes))) (void)value.dump().size();
}

void image(const std::string& path) {
  data::Image image = data::read_image(path);
  size_t sum = std::count(image.pixels.begin(), image.pixels.end(), uint8_t{0});
  (void)sum;
  if (image.channels == 0 || image.height == 0 || image.width == 0) return;
  data::Image small = data::resize(data::convert_channels(image, 3), 4, 4);
  const float mean[] = {0.5f}, std[] = {0.25f};
  (void)data::normalize(small, mean, std);
}

void png(std::span<const std::byte> bytes) {
  static ScratchFile file("image.png");
  image(file.write(bytes));
}
void jpeg(std::span<const std::byte> bytes) {
  static ScratchFile file("image.jpg");
  image(file.write(bytes));
}

void sqlite(std::span<const std::byte> bytes) {
  static ScratchFile file("rows.db");
  data::SqliteDataset<data::MnistItem> rows(file.write(bytes), "train");
  for (size_t i = 0; i < std::min<size_t>(rows.len(), 64); ++i) {
    try {
      (void)rows.get(i);
    } catch (const Error&) {
      // A row that does not convert is a clear error; keep reading the others.
    }
  }
}

/// Op IR bytes as Remote receives them: one record, then a stream of them, each decoded and encoded again (which
/// reads every field).
void ir_op(std::span<const std::byte> bytes) {
  try {
    (void)ir::encode_op(ir::decode_op(bytes)).size();
  } catch (const FormatError&) {
    // Not one record (a stream holds several); read the bytes as a stream next.
  }
  for (const ir::OpRecord& record : ir::decode_ops(bytes)) (void)ir::encode_op(record).size();
}

/// A Remote message as scorch-server's decoder reads a request (and a client a reply); what decodes is encoded again.
void remote_message(std::span<const std::byte> bytes) {
  try {
    (void)remote::encode_request(remote::decode_request(bytes)).size();
  } catch (const FormatError&) {
    // Not a request; read the bytes as a reply next.
  }
  (void)remote::encode_reply(remote::decode_reply(bytes)).size();
}

constexpr std::pair<std::string_view, Target> kTargets[] = {
    {"record_bin", &record_file<BinFileRecorder<>>},
    {"record_bin_gz", &record_file<BinGzFileRecorder<>>},
    {"record_mpk", &record_file<NamedMpkFileRecorder<>>},
    {"record_mpk_gz", &record_file<NamedMpkGzFileRecorder<>>},
    {"record_json", &record_file<PrettyJsonFileRecorder<>>},
    {"record_json_gz", &record_file<JsonGzFileRecorder<>>},
    {"record_bin_bytes", &record_bin_bytes},
    {"safetensors", &safetensors},
    {"pytorch", &pytorch_file},
    {"onnx_model", &onnx_model},
    {"onnx_value", &onnx_value},
    {"config", &config},
    {"idx", &idx},
    {"idx_gz", &idx},
    {"csv", &csv},
    {"json_lines", &json_lines},
    {"png", &png},
    {"jpeg", &jpeg},
    {"sqlite", &sqlite},
    {"ir_op", &ir_op},
    {"remote_message", &remote_message},
    {"micro_graph", &micro_graph},
    {"store_request", &store_request},
    {"record_executor", &record_executor},
};
}  // namespace

Target find_target(std::string_view name) {
  for (const auto& [target_name, target] : kTargets)
    if (target_name == name) return target;
  return nullptr;
}

}  // namespace scorch::fuzz

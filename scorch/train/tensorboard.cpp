// TensorBoard's event-file records and the Event / Summary / HistogramProto messages in protobuf's wire format,
// written by hand (the field numbers of TensorBoard's event.proto and summary.proto); TensorBoardLogger.
#include "scorch/train/tensorboard.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <array>
#include <bit>
#include <iterator>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <vector>

#include "scorch/core/error.h"

namespace scorch::train {
static_assert(std::endian::native == std::endian::little, "event files are written with the host's byte order");
namespace tensorboard {
namespace {

// Protobuf wire format: varints, fixed 64-bit values and length-delimited fields.
void varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
void key(std::string& out, uint32_t field, uint32_t wire_type) { varint(out, (uint64_t(field) << 3) | wire_type); }
void fixed64(std::string& out, uint32_t field, double v) {
  key(out, field, 1);
  char bytes[8];
  std::memcpy(bytes, &v, 8);  // little-endian hosts (x86-64, AArch64)
  out.append(bytes, 8);
}
void fixed32(std::string& out, uint32_t field, float v) {
  key(out, field, 5);
  char bytes[4];
  std::memcpy(bytes, &v, 4);
  out.append(bytes, 4);
}
void bytes_field(std::string& out, uint32_t field, const std::string& payload) {
  key(out, field, 2);
  varint(out, payload.size());
  out += payload;
}
void packed_doubles(std::string& out, uint32_t field, const std::vector<double>& values) {
  std::string payload;
  for (double v : values) {
    char bytes[8];
    std::memcpy(bytes, &v, 8);
    payload.append(bytes, 8);
  }
  bytes_field(out, field, payload);
}

// Event {wall_time = 1; step = 2; summary = 5} around a Summary {repeated Value value = 1} of one value.
std::string summary_event(double wall_time, int64_t step, const std::string& value) {
  std::string summary, event;
  bytes_field(summary, 1, value);
  fixed64(event, 1, wall_time);
  key(event, 2, 0);
  varint(event, static_cast<uint64_t>(step));
  bytes_field(event, 5, summary);
  return event;
}

std::array<uint32_t, 256> crc_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;  // reflected Castagnoli polynomial
    table[i] = c;
  }
  return table;
}

}  // namespace

uint32_t crc32c(const void* data, size_t n) {
  static const std::array<uint32_t, 256> table = crc_table();
  uint32_t crc = 0xffffffffu;
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return crc ^ 0xffffffffu;
}

uint32_t masked_crc32c(const void* data, size_t n) {
  uint32_t crc = crc32c(data, n);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

std::string record(const std::string& event) {
  std::string out;
  uint64_t length = event.size();
  char header[8];
  std::memcpy(header, &length, 8);
  uint32_t header_crc = masked_crc32c(header, 8), data_crc = masked_crc32c(event.data(), event.size());
  out.append(header, 8);
  out.append(reinterpret_cast<const char*>(&header_crc), 4);
  out += event;
  out.append(reinterpret_cast<const char*>(&data_crc), 4);
  return out;
}

std::string file_version_event(double wall_time) {
  std::string event;
  fixed64(event, 1, wall_time);
  bytes_field(event, 3, "brain.Event:2");
  return event;
}

std::string scalar_event(double wall_time, int64_t step, const std::string& tag, float value) {
  std::string v;  // Summary.Value {tag = 1; simple_value = 2}
  bytes_field(v, 1, tag);
  fixed32(v, 2, value);
  return summary_event(wall_time, step, v);
}

std::string histogram_event(double wall_time, int64_t step, const std::string& tag, std::span<const double> all,
                            size_t buckets) {
  std::vector<double> values;  // NaN and infinities have no bucket: left out
  std::copy_if(all.begin(), all.end(), std::back_inserter(values), [](double x) { return std::isfinite(x); });
  if (values.empty()) throw ValueError("tensorboard histogram", "'" + tag + "' has no finite values");
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  double min = *lo, max = *hi, sum = 0, squares = 0;
  size_t count = std::max<size_t>(1, std::min(buckets, values.size()));
  double width = max / static_cast<double>(count) - min / static_cast<double>(count);  // no overflow at ±1e308
  std::vector<double> limits(count), counts(count, 0.0);
  for (size_t b = 0; b < count; ++b) limits[b] = b + 1 == count ? max : min + width * static_cast<double>(b + 1);
  for (double x : values) {
    sum += x, squares += x * x;
    double at = width > 0 ? std::floor(x / width - min / width) : 0.0;
    size_t b = static_cast<size_t>(std::clamp(at, 0.0, static_cast<double>(count - 1)));
    counts[b] += 1;
  }
  std::string h;  // HistogramProto {min 1; max 2; num 3; sum 4; sum_squares 5; bucket_limit 6; bucket 7}
  fixed64(h, 1, min), fixed64(h, 2, max), fixed64(h, 3, static_cast<double>(values.size()));
  fixed64(h, 4, sum), fixed64(h, 5, squares);
  packed_doubles(h, 6, limits), packed_doubles(h, 7, counts);
  std::string v;  // Summary.Value {tag = 1; histo = 5}
  bytes_field(v, 1, tag);
  bytes_field(v, 5, h);
  return summary_event(wall_time, step, v);
}

}  // namespace tensorboard

namespace {
double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}
std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || !name[0]) return "localhost";
  return name;
}
}  // namespace

TensorBoardLogger::TensorBoardLogger(std::string directory) {
  std::filesystem::create_directories(directory);
  double wall = now_seconds();
  auto stem = "events.out.tfevents." + std::to_string(static_cast<int64_t>(wall)) + "." + host_name() + ".scorch";
  for (int n = 0;; ++n) {  // loggers within a second (in any process) get distinct files: each name is reserved
    file_ = (std::filesystem::path(directory) / (n ? stem + "." + std::to_string(n) : stem)).string();
    int fd = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) {
      ::close(fd);
      break;
    }
    if (errno != EEXIST || n > 1000) throw FormatError("TensorBoardLogger", "cannot create " + file_);
  }
  out_.open(file_, std::ios::binary);
  if (!out_) throw FormatError("TensorBoardLogger", "cannot create " + file_);
  steps_file_ = (std::filesystem::path(directory) / "steps.tsv").string();
  std::ifstream steps(steps_file_);  // an earlier run's next step per tag: a resumed run's curves go on from there
  int64_t next;
  std::string tag;
  while (steps >> next && steps.get() == '\t' && std::getline(steps, tag))
    if (next >= 0) steps_[tag] = next;
  write(tensorboard::file_version_event(wall));
  flush();
}

void TensorBoardLogger::flush() {
  out_.flush();
  if (!out_) throw FormatError("TensorBoardLogger", "cannot write " + file_);
}

void TensorBoardLogger::write(const std::string& event) {
  out_ << tensorboard::record(event);
  if (!out_) throw FormatError("TensorBoardLogger", "cannot write " + file_);
}

void TensorBoardLogger::log(Split split, size_t, const MetricEntry& entry) {
  if (!entry.value) return;
  std::lock_guard lock(mutex_);
  std::string tag = std::string(split_name(split)) + "/" + entry.name;
  write(tensorboard::scalar_event(now_seconds(), steps_[tag]++, tag, static_cast<float>(*entry.value)));
  if (entry.running) epoch_values_[tag] = *entry.running;
}

void TensorBoardLogger::end_epoch(Split split, size_t epoch) {
  std::lock_guard lock(mutex_);
  std::string prefix = std::string(split_name(split)) + "/";
  for (auto it = epoch_values_.begin(); it != epoch_values_.end();) {
    if (it->first.rfind(prefix, 0) != 0) {
      ++it;
      continue;
    }
    write(tensorboard::scalar_event(now_seconds(), static_cast<int64_t>(epoch), it->first + "/epoch",
                                    static_cast<float>(it->second)));
    it = epoch_values_.erase(it);
  }
  flush();
  std::ofstream steps(steps_file_, std::ios::trunc);
  for (const auto& [tag, next] : steps_) steps << next << '\t' << tag << '\n';
  if (!steps) throw FormatError("TensorBoardLogger", "cannot write " + steps_file_);
}

void TensorBoardLogger::histogram(const std::string& tag, std::span<const double> values, int64_t step) {
  std::lock_guard lock(mutex_);
  write(tensorboard::histogram_event(now_seconds(), step, tag, values));
  flush();
}

}  // namespace scorch::train

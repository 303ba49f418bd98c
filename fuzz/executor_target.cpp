// The record executor under fuzzing (target record_executor): the bytes drive a sequence of op records, each run by
// the server's session executor (remote/session.h: ir::validate, then ir::execute) on a live Cpu backend. Each
// record is of an op the bytes choose; its operand ids name tensors made earlier in the sequence (or none), and its
// dims, sizes, shapes, ranges and options are small, edge or huge values. Every record must run or be refused with
// a scorch::Error; a crash, a sanitizer report or any other exception is a finding. SCORCH_FUZZ_TRACE=1 prints each
// record's op (to triage an artifact).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "fuzz/targets.h"
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/remote/session.h"

namespace scorch::fuzz {
namespace {

/// Choices read from the bytes (zeros once they run out).
class Draw {
 public:
  explicit Draw(std::span<const std::byte> bytes) : bytes_(bytes) {}
  bool done() const { return at_ >= bytes_.size(); }
  uint8_t byte() { return at_ < bytes_.size() ? static_cast<uint8_t>(bytes_[at_++]) : 0; }
  size_t below(size_t n) { return n ? byte() % n : 0; }
  bool flip() { return byte() & 1; }
  /// Mostly 0..5, sometimes an edge (a large or overflowing size).
  size_t size() {
    uint8_t b = byte();
    if (b < 200) return b % 6;
    constexpr size_t kEdges[] = {7, 64, size_t{1} << 31, size_t{1} << 40, ~size_t{0}, ~size_t{0} / 2};
    return kEdges[b % 6];
  }
  int64_t integer() {
    uint8_t b = byte();
    if (b < 200) return static_cast<int64_t>(b % 9) - 4;
    constexpr int64_t kEdges[] = {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                                  int64_t{1} << 40, -(int64_t{1} << 40), 1 << 20, -(1 << 20)};
    return kEdges[b % 6];
  }
  double real() {
    uint8_t b = byte();
    if (b < 200) return (static_cast<int>(b % 21) - 10) / 4.0;
    constexpr double kEdges[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                                 -std::numeric_limits<double>::infinity(), 1e300, -1e300, 0.0};
    return kEdges[b % 6];
  }
  /// A shape of rank 0..4 with dims 0..4 (one edge dim now and then).
  Shape shape() {
    std::vector<size_t> dims(below(5));
    for (size_t& d : dims) d = byte() < 250 ? below(5) : size();
    return Shape(dims);
  }

 private:
  std::span<const std::byte> bytes_;
  size_t at_ = 0;
};

/// Fills a record's fields from the draw: operands name ids below next_id, outputs get fresh ids.
class Filler {
 public:
  Filler(Draw& draw, uint64_t& next_id) : d_(draw), next_id_(next_id) {}

  template <class R> void operator()(const char* name, R& field) { fill(std::string_view(name), field); }

 private:
  void fill(std::string_view name, ir::TensorIr& t) { t = {name == "out" ? next_id_++ : operand(), {}, {}}; }
  template <size_t N> void fill(std::string_view, std::array<ir::TensorIr, N>& out) {
    for (ir::TensorIr& t : out) t = {next_id_++, {}, {}};
  }
  void fill(std::string_view name, std::vector<ir::TensorIr>& list) {
    list.resize(name == "out" ? d_.below(4) : d_.below(5));
    for (ir::TensorIr& t : list) t = {name == "out" ? next_id_++ : operand(), {}, {}};
  }
  void fill(std::string_view, std::optional<ir::TensorIr>& t) {
    if (d_.flip()) t = ir::TensorIr{operand(), {}, {}};
    else t.reset();
  }
  void fill(std::string_view, ir::DeviceIr& device) { device = {"Cpu"}; }
  void fill(std::string_view, size_t& v) { v = d_.size(); }
  void fill(std::string_view, int64_t& v) { v = d_.integer(); }
  void fill(std::string_view, double& v) { v = d_.real(); }
  void fill(std::string_view, bool& v) { v = d_.flip(); }
  void fill(std::string_view, Scalar& v) { v = d_.flip() ? Scalar(d_.real()) : Scalar(d_.integer()); }
  void fill(std::string_view, DType& v) { v = static_cast<DType>(d_.below(10)); }
  void fill(std::string_view, Shape& v) { v = d_.shape(); }
  void fill(std::string_view, std::vector<size_t>& v) {
    v.resize(d_.below(5));
    for (size_t& x : v) x = d_.byte() < 240 ? d_.below(5) : d_.size();
  }
  void fill(std::string_view, SliceRanges& ranges) {
    ranges.resize(d_.below(5));
    for (SliceRange& r : ranges) r = {d_.size(), d_.size(), d_.flip() ? 1 : d_.integer()};
  }
  void fill(std::string_view, TensorData& data) {
    Shape shape = d_.shape();
    auto bytes = shape.checked_num_bytes(8);
    if (!bytes || *bytes > 32768) shape = Shape{2};
    data = TensorData::zeros(shape, static_cast<DType>(d_.below(10)));
  }
  void fill(std::string_view, Distribution& v) {
    v = {static_cast<Distribution::Kind>(d_.below(4)), d_.real(), d_.real()};
  }
  void fill(std::string_view n, ConvSpec& v) {
    fill(n, v.stride), fill(n, v.padding), fill(n, v.dilation), fill(n, v.padding_out), fill(n, v.groups);
  }
  void fill(std::string_view n, PoolSpec& v) {
    fill(n, v.kernel), fill(n, v.stride), fill(n, v.padding), fill(n, v.dilation);
    v.ceil_mode = d_.flip(), v.count_include_pad = d_.flip();
  }
  void fill(std::string_view n, InterpolateSpec& v) {
    fill(n, v.output_size);
    v.mode = static_cast<InterpolateMode>(d_.below(3)), v.align_corners = d_.flip();
  }
  void fill(std::string_view, AttentionDropout& v) { v = {d_.real(), d_.byte()}; }
  void fill(std::string_view, AdamStep& v) {
    v = {d_.real(), d_.real(), d_.real(), d_.real(), d_.real(), d_.flip(), d_.real()};
  }
  void fill(std::string_view, SgdStep& v) { v = {d_.real(), d_.real(), d_.real(), d_.real(), d_.flip(), d_.flip()}; }
  void fill(std::string_view, QuantScheme& v) {
    v = {static_cast<QuantValue>(d_.below(3)), static_cast<QuantMode>(d_.below(2)),
         static_cast<QuantLevel>(d_.below(3)), d_.size(), d_.size()};
  }
  void fill(std::string_view, InputQuant& v) {
    v = {d_.flip(), d_.flip(), static_cast<QuantValue>(d_.below(3)), d_.real(), d_.integer(), d_.flip()};
  }
  uint64_t operand() { return d_.byte() < 250 ? 1 + d_.below(static_cast<size_t>(next_id_)) : d_.size(); }

  Draw& d_;
  uint64_t& next_id_;
};

template <size_t I> ir::OpRecord drawn_record(Draw& draw, uint64_t& next_id) {
  ir::RecordOf<I> record{};
  Filler filler(draw, next_id);
  record.visit(filler);
  return ir::OpRecord(std::move(record));
}
template <size_t... I> auto record_makers(std::index_sequence<I...>) {
  return std::array<ir::OpRecord (*)(Draw&, uint64_t&), sizeof...(I)>{&drawn_record<I>...};
}

}  // namespace

void record_executor(std::span<const std::byte> bytes) {
  static const auto kMakers = record_makers(std::make_index_sequence<kOpCount>{});
  static const bool kTrace = std::getenv("SCORCH_FUZZ_TRACE") != nullptr;  // names each record's op (triage)
  remote::Session<Cpu> session(CpuDevice{}, uint64_t{16} << 20);  // a 16 MiB session, as a server would bound it
  Draw draw(bytes);
  uint64_t next_id = 1;
  for (int step = 0; step < 48 && !draw.done(); ++step) {
    size_t op = (size_t{draw.byte()} << 8 | draw.byte()) % kOpCount;
    remote::Request request;
    request.kind = draw.byte() < 32 ? remote::RequestKind::Call : remote::RequestKind::Op;
    uint64_t first_out = next_id;
    request.record = kMakers[op](draw, next_id);
    if (kTrace) std::fprintf(stderr, "record_executor: %s\n", std::string(kOpNames[op]).c_str());
    try {
      (void)session.handle(request);
    } catch (const Error&) {  // a refused record: the session goes on
    }
    for (uint64_t id = first_out; kTrace && id < next_id; ++id) try {
        std::fprintf(stderr, "  -> %s\n", session.meta(ir::TensorIr{id, {}, {}}).shape.to_string().c_str());
      } catch (const Error&) {
      }
  }
}

}  // namespace scorch::fuzz

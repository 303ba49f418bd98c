// Counting an ONNX file's entries from the protobuf wire format (graph_budget.h), driven by the messages'
// descriptors so that every message type the schema nests (subgraphs, functions, training info) is seen.
#include "scorch/import/onnx/graph_budget.h"

#include <google/protobuf/descriptor.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <optional>

#include "scorch/core/error.h"

namespace scorch::onnx {
namespace {
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

constexpr int kMaxDepth = 100;  // protobuf's own recursion limit

std::atomic<size_t> configured_limit{0};  // 0: not set, read the environment

/// A cursor over wire bytes; `ok` turns false at the first byte it cannot read.
struct Wire {
  const std::byte* at;
  const std::byte* end;
  bool ok = true;

  std::optional<uint64_t> varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64 && at < end; shift += 7) {
      auto byte = static_cast<uint8_t>(*at++);
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return value;
    }
    ok = false;
    return std::nullopt;
  }
  bool skip(uint64_t n) {
    if (n > static_cast<uint64_t>(end - at)) return ok = false;
    at += n;
    return true;
  }
};

struct Counter {
  size_t limit;
  size_t entries = 0;

  /// Counts the fields of one message (type: its descriptor, null when unknown) until end or an end-group tag.
  void message(Wire& wire, const Descriptor* type, int depth) {
    if (depth > kMaxDepth) return void(wire.ok = false);
    while (wire.ok && wire.at < wire.end && entries <= limit) {
      auto tag = wire.varint();
      if (!tag) return;
      auto number = static_cast<int>(*tag >> 3);
      switch (*tag & 7) {
        case 0: wire.varint(); break;
        case 1: wire.skip(8); break;
        case 5: wire.skip(4); break;
        case 2: field(wire, type ? type->FindFieldByNumber(number) : nullptr, depth); break;
        case 3: ++entries, message(wire, nullptr, depth + 1); break;  // a group: counted, its fields too
        case 4: return;                                               // the group's end
        default: wire.ok = false; return;
      }
    }
  }

  void field(Wire& wire, const FieldDescriptor* field, int depth) {
    auto length = wire.varint();
    if (!length || *length > static_cast<uint64_t>(wire.end - wire.at)) return void(wire.ok = false);
    ++entries;
    if (field && field->type() == FieldDescriptor::TYPE_MESSAGE) {
      Wire inner{wire.at, wire.at + *length};
      message(inner, field->message_type(), depth + 1);
    }
    wire.at += *length;
  }
};

size_t limit_from_environment() {
  const char* text = std::getenv("SCORCH_ONNX_MAX_GRAPH_ENTRIES");
  if (!text || !*text) return kDefaultMaxGraphEntries;
  char* end = nullptr;
  unsigned long long value = std::strtoull(text, &end, 10);
  if (*end || value == 0)
    throw ValueError("load", "SCORCH_ONNX_MAX_GRAPH_ENTRIES='" + std::string(text) +
                                 "' is not a positive count of entries; unset it for the default (" +
                                 std::to_string(kDefaultMaxGraphEntries) + ")");
  return static_cast<size_t>(value);
}
}  // namespace

size_t max_graph_entries() {
  size_t set = configured_limit.load();
  return set ? set : limit_from_environment();
}

void set_max_graph_entries(size_t entries) {
  if (entries == 0) throw ValueError("set_max_graph_entries", "the limit must be at least 1 entry");
  configured_limit.store(entries);
}

size_t count_wire_entries(std::span<const std::byte> bytes, const Descriptor& message, size_t limit) {
  Counter counter{limit};
  Wire wire{bytes.data(), bytes.data() + bytes.size()};
  counter.message(wire, &message, 0);
  return std::min(counter.entries, limit + 1);
}

size_t count_model_entries(std::span<const std::byte> bytes, size_t limit) {
  return count_wire_entries(bytes, *::onnx::ModelProto::descriptor(), limit);
}

void check_graph_budget(std::span<const std::byte> bytes, const Descriptor& message, const std::string& path) {
  size_t limit = max_graph_entries();
  if (count_wire_entries(bytes, message, limit) <= limit) return;
  throw FormatError("load", path + ": holds more than " + std::to_string(limit) +
                                " entries (nodes, input and output names, attributes, tensors), the limit for an "
                                "ONNX file's structure; if the file is trusted, raise it with "
                                "scorch::onnx::set_max_graph_entries(n) or SCORCH_ONNX_MAX_GRAPH_ENTRIES=n");
}

}  // namespace scorch::onnx

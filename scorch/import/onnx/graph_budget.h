#pragma once
// The ONNX reader's structure budget: a file's messages and strings (nodes, their input and output names,
// attributes, tensors, value infos) counted from the protobuf wire before anything is parsed, so that a small file
// of many tiny nodes (each ~250 bytes once loaded and planned) is refused instead of taking gigabytes.
#include <cstddef>
#include <span>
#include <string>

namespace google::protobuf {
class Descriptor;
}

namespace scorch::onnx {

/// Most entries read_model accepts by default: 500,000 tiny nodes (~500 MB at the interpreter's peak), or 75,000 to
/// 220,000 nodes as PyTorch exports them (9 to 27 entries a node).
inline constexpr size_t kDefaultMaxGraphEntries = 2'000'000;
/// The process-wide entry limit: set_max_graph_entries' value, else $SCORCH_ONNX_MAX_GRAPH_ENTRIES, else the default.
size_t max_graph_entries();
/// Sets that limit (at least 1); ValueError for 0.
void set_max_graph_entries(size_t entries);

/// The entries in bytes, a serialized message of type message: every length-delimited field counts one, and those
/// of message type count their own fields too. Stops counting past limit (returns limit + 1). Malformed bytes
/// count as far as they read; protobuf's parser reports them.
size_t count_wire_entries(std::span<const std::byte> bytes, const google::protobuf::Descriptor& message, size_t limit);

/// The entries in bytes read as a ModelProto (count_wire_entries for an .onnx file's bytes).
size_t count_model_entries(std::span<const std::byte> bytes, size_t limit);

/// Throws FormatError ("[load] path: ...", naming the limit and how to raise it) when bytes hold more entries than
/// max_graph_entries().
void check_graph_budget(std::span<const std::byte> bytes, const google::protobuf::Descriptor& message,
                        const std::string& path);

}  // namespace scorch::onnx

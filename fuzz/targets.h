#pragma once
// The fuzz targets: one parser each, fed the bytes of a file. A target may throw scorch::Error only; any other
// exception, crash, leak, hang or sanitizer report is a finding (fuzz/README in docs/fuzzing.md).
#include <cstddef>
#include <span>
#include <string_view>

namespace scorch::fuzz {

/// Parses bytes as one file format and reads everything it produced.
using Target = void (*)(std::span<const std::byte> bytes);

/// The micro runtime: a model described by the bytes, wired, planned and run (micro_target.cpp).
void micro_graph(std::span<const std::byte> bytes);

/// The rendezvous store's server: the bytes sent on one connection (store_target.cpp).
void store_request(std::span<const std::byte> bytes);

/// Remote's session executor on a live Cpu backend: a sequence of op records the bytes draw (executor_target.cpp).
void record_executor(std::span<const std::byte> bytes);

/// The target called name (the launcher fuzz_<name> runs it); nullptr when there is none.
Target find_target(std::string_view name);

}  // namespace scorch::fuzz

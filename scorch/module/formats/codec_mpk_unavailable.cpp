// Named MessagePack for builds without msgpack-c (the WebAssembly build): encoding and decoding say so.
#include "scorch/core/error.h"
#include "scorch/module/formats/codec.h"

namespace scorch::formats {

namespace {
const char* const kNoMsgpack =
    ": named MessagePack records need msgpack-c, which this build (WebAssembly) has not; use Bin, Json or "
    "safetensors";
}  // namespace

void encode_mpk(const Record&, const Record&, Precision, ByteSink&) {
  throw IoError("save", std::string("record") + kNoMsgpack);
}
Record decode_mpk(std::span<const std::byte>, const std::string& source) {
  throw FormatError("load", source + kNoMsgpack);
}

}  // namespace scorch::formats

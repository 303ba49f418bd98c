#pragma once
// Remote: a backend whose tensors live on a scorch-server (scorch/remote/README.md). Each op is sent as its IR record
// (gen/ir_records.h) and runs on the server's backend; the client holds ids. Ops stream without waiting; a read
// (into_data, a shape the client does not know yet, sync) waits for the server, and an op's error is thrown there.
#include <chrono>
#include <cstdint>
#include <string>

#include "scorch/gen/remote_ops.h"
#include "scorch/remote/client.h"

namespace scorch {

struct Remote : remote::GeneratedOps {
  using FloatTensor = remote::RemoteTensor<Float>;
  using IntTensor = remote::RemoteTensor<Int>;
  using BoolTensor = remote::RemoteTensor<Bool>;
  using Device = remote::RemoteDevice;

  static std::string name() { return "remote"; }
  /// The server at endpoint ("tcp://host:port") as a device, connected with token (empty: $SCORCH_REMOTE_TOKEN)
  /// and reply timeout (0: $SCORCH_REMOTE_TIMEOUT_MS, else 60 s) when first used.
  static Device connect(const std::string& endpoint, std::string token = {},
                        std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) {
    remote::Client::configure(endpoint, remote::ClientOptions{std::move(token), timeout});
    return Device{endpoint};
  }
  /// Seeds the backend of every server this process uses, now and later.
  static void seed(uint64_t s) { remote::Client::seed_all(s); }
  /// Waits until device's server has run every op sent to it; throws the first error one of them raised.
  static void sync(const Device& device) { remote::Client::of(device)->sync(); }
};

}  // namespace scorch

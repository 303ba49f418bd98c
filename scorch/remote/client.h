#pragma once
// The client's connection to one scorch-server (a ZeroMQ DEALER socket): ops are sent as they come and not
// answered; questions (shapes, values, sync) wait for the server's reply, at most the timeout. One Client per
// endpoint and process, shared by every tensor on it; thread-safe.
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "scorch/remote/protocol.h"
#include "scorch/remote/remote_tensor.h"

namespace zmq {
class socket_t;
}  // namespace zmq

namespace scorch::remote {

/// How a client connects: the token the server wants and how long a reply may take.
struct ClientOptions {
  /// $SCORCH_REMOTE_TOKEN when empty.
  std::string token;
  /// A reply later than this is a DeviceError and the connection is dropped; 0: $SCORCH_REMOTE_TIMEOUT_MS, else
  /// 60 s.
  std::chrono::milliseconds timeout{0};
};

class Client : public std::enable_shared_from_this<Client> {
 public:
  /// The connection to device's server, opened (and greeted with the token) on first use; a connection that failed
  /// is replaced by a new one (its tensors are lost).
  static std::shared_ptr<Client> of(const RemoteDevice& device);
  /// Sets the options of endpoint's connections; the next use opens a new one (tensors on the current one, if any,
  /// keep it).
  static void configure(const std::string& endpoint, ClientOptions options);
  /// Seeds every server connected now and each one connected later.
  static void seed_all(uint64_t seed);

  Client(std::string endpoint, ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const std::string& endpoint() const { return endpoint_; }
  /// A fresh tensor id.
  uint64_t new_id();
  /// Sends an op; no reply.
  void send_op(ir::OpRecord record);
  /// Sends an op and waits for its outputs (and value); throws the server's error as its type.
  Reply call(ir::OpRecord record);
  /// Tensor id's shape and dtype, asked of the server unless a reply brought them already.
  TensorMeta meta(uint64_t id);
  /// Tells the server (with the next message) that id is no longer held.
  void drop(uint64_t id) noexcept;
  /// Waits until the server has run every op sent so far; throws the first error one of them raised.
  void sync();
  /// Seeds the server's backend (no reply; nothing for a lost connection).
  void seed(uint64_t seed);
  ServerStats stats();

 private:
  /// Sends request (with the pending drops); throws DeviceError when the connection is lost.
  void send(Request request);
  /// Sends request and waits for its reply; an error reply is thrown.
  Reply ask(Request request);
  [[noreturn]] void lose(const std::string& why);
  void check_open() const;
  /// Waits for the first handshake event monitor reports: DeviceError saying why when the server refuses the token,
  /// or when nothing answers within the timeout.
  void await_handshake(zmq::socket_t& monitor);

  std::string endpoint_;
  ClientOptions options_;
  struct Socket;
  std::unique_ptr<Socket> socket_;
  std::mutex mutex_;
  uint64_t next_id_ = 1;
  std::vector<uint64_t> drops_;
  std::unordered_map<uint64_t, TensorMeta> metas_;
  std::string lost_;  // why the connection was lost; empty while it works
};

}  // namespace scorch::remote
